#!/usr/bin/env bash
# TAP (run by prove): the house's include rules (scripts/check-includes.pl,
# docs/layout.md). Each folder's main header says what the folder may
# include ("May include:"); the check fails on an include outside that,
# on libbpf or a skeleton reached through an allowed header, and on a
# cycle between folders. It passes on this tree, and fails on copies of it
# made bad on purpose, one way each, so that it can fail.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
# check DIR: the check's output in $tmp/out, its status in $status.
check() {
	perl scripts/check-includes.pl "$1" >"$tmp/out" 2>&1
	status=$?
}
# A copy of this tree's userspace/ as tree $1, to be made bad.
copy() {
	rm -rf "$tmp/$1"
	mkdir -p "$tmp/$1"
	cp -r userspace "$tmp/$1/"
}
has() { grep -qF -- "$1" "$tmp/out"; }

check .
tap_ok "this tree passes (status $status)" '((status == 0)) && ! grep -v "^note:" "$tmp/out" | grep -q .'
for d in userspace/*/; do
	d=$(basename "$d")
	if grep -q "^note: $d/:" "$tmp/out"; then
		echo "not ok $((tap_n += 1)) - $d/ says what it may include # TODO no main header with a \"May include:\" line yet"
	else
		echo "ok $((tap_n += 1)) - $d/ says what it may include"
	fi
done
tap_ok "every folder of the data flow has a rule" \
	'for d in cli run probe storage workload tracer analysis stats report common; do
		grep -rlq "May include:" userspace/$d/*.h || exit 1; done'

copy tracer
echo '#include "../tracer/trace.h"' >>"$tmp/tracer/userspace/analysis/analysis.h"
check "$tmp/tracer"
tap_ok "analysis/ including the tracer fails, naming both" \
	'((status == 1)) && has "userspace/analysis/analysis.h" && has "analysis/ may not include tracer/"'

copy libbpf
echo '#include <bpf/libbpf.h>' >>"$tmp/libbpf/userspace/analysis/verdict.c"
check "$tmp/libbpf"
tap_ok "analysis/ including libbpf fails" '((status == 1)) && has "analysis/ may not include libbpf"'

copy skel
echo '#include "attrib.skel.h"' >>"$tmp/skel/userspace/analysis/verdict.c"
check "$tmp/skel"
tap_ok "analysis/ including a skeleton fails" '((status == 1)) && has "analysis/ may not include skeleton"'

copy reach
echo '#include <bpf/bpf.h>' >>"$tmp/reach/userspace/common/parse.h"
echo '#include "../common/parse.h"' >>"$tmp/reach/userspace/analysis/verdict.c"
check "$tmp/reach"
tap_ok "libbpf reached through a common/ header fails for analysis/" \
	'((status == 1)) && has "reaches bpf/bpf.h through" && has "analysis/ may not include libbpf"'

copy bpfside
echo '#include "../../bpf/maps.bpf.h"' >>"$tmp/bpfside/userspace/report/text.c"
check "$tmp/bpfside"
tap_ok "user space including a BPF-side header fails" \
	'((status == 1)) && has "report/ may not include a BPF-side header"'

copy back
echo '#include "../run/run.h"' >>"$tmp/back/userspace/probe/probe.c"
check "$tmp/back"
tap_ok "an include against the data flow fails (probe/ -> run/)" \
	'((status == 1)) && has "probe/ may not include run/" && has "include cycle between probe/, run/"'

# A cycle alone: two folders that each allow the other.
mkdir -p "$tmp/cycle/userspace/a" "$tmp/cycle/userspace/b"
printf '/*\n * May include: b/.\n */\n#include "../b/b.h"\n' >"$tmp/cycle/userspace/a/a.h"
printf '/*\n * May include: a/.\n */\n#include "../a/a.h"\n' >"$tmp/cycle/userspace/b/b.h"
check "$tmp/cycle"
tap_ok "a cycle between folders fails, with its edges" \
	'((status == 1)) && has "include cycle between a/, b/" && has "a -> b (userspace/a/a.h:4)"'

copy twice
printf '/*\n * May include: common/.\n */\n' >"$tmp/twice/userspace/stats/other.h"
check "$tmp/twice"
tap_ok "two main headers in one folder fail" '((status == 1)) && has "stats/: two main headers"'

# Without analysis/ (the tree before it was split off) the rest passes.
copy noanalysis
rm -r "$tmp/noanalysis/userspace/analysis"
check "$tmp/noanalysis"
tap_ok "the tree without analysis/ passes (status $status)" '((status == 0))'

tap_plan
