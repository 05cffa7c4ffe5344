#!/usr/bin/env bash
# TAP (run by prove): make check's stages (scripts/check-stages.sh) all
# run whatever the ones before them did, and the end lists each that
# failed, with a non-zero status. A failing prove run once kept the
# sanitizers and fuzzers from running at all, and .ci/run must still fail
# on any stage.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
tap_diag=$tmp/err

scripts/check-stages.sh \
	first "touch $tmp/first; exit 3" \
	second "touch $tmp/second" \
	third "false" \
	fourth "touch $tmp/fourth" >"$tmp/out" 2>"$tmp/err"
status=$?
tap_ok "a failed stage fails the whole (status $status)" '((status == 1))'
tap_ok "every stage ran after the failures" \
	'[[ -f $tmp/first && -f $tmp/second && -f $tmp/fourth ]]'
tap_ok "the last line lists each failed stage, in order" \
	'[[ $(tail -n 1 "$tmp/err") == "make check: FAILED: 2 of 4 stages: first, third" ]]'
tap_ok "each stage's status is told" \
	'grep -q "first .*FAILED (exit 3)" "$tmp/err" && grep -q "second .*passed" "$tmp/err"'

scripts/check-stages.sh one true two true >"$tmp/out" 2>"$tmp/err"
status=$?
tap_ok "all passed: status 0 (status $status)" '((status == 0))'
tap_ok "all passed: said so" \
	'[[ $(tail -n 1 "$tmp/err") == "make check: all 2 stages passed" ]]'

# make -n check: make stages run (with -n), others are only printed.
ENCBENCH_CHECK_DRY=n MAKE=make scripts/check-stages.sh \
	shell "touch $tmp/dry" made "make -C $tmp -f /dev/null -n" \
	>"$tmp/out" 2>"$tmp/err"
status=$?
tap_ok "dry run: nothing but make runs" \
	'((status == 0)) && [[ ! -e $tmp/dry ]] && grep -qx "touch $tmp/dry" "$tmp/out"'

# The CI script runs make check under set -e: its status is make's.
tap_ok ".ci/run ends with make check under set -e" \
	'grep -q "^set -euo pipefail" .ci/run && [[ $(tail -n 1 .ci/run) == "make check" ]]'
tap_plan
