# shellcheck shell=bash
# Sourced by tests/repo/*.t (TAP, run by prove): the tree's root as the
# working folder, a scratch folder $tmp removed at exit, and tap_ok NAME
# EXPR, one TAP line for EXPR (eval'd) that shows the file $tap_diag
# (default $tmp/out) as # lines when it fails; tap_plan prints the plan.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tap_n=0
tap_ok() {
	tap_n=$((tap_n + 1))
	if eval "$2"; then
		echo "ok $tap_n - $1"
	else
		echo "not ok $tap_n - $1"
		sed 's/^/# /' "${tap_diag:-$tmp/out}"
	fi
}
tap_plan() { echo "1..$tap_n"; }
