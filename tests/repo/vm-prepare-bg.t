#!/usr/bin/env bash
# TAP (run by prove): scripts/vm/prepare-bg, which make check's tests stage
# runs before the host tests, in a copy of the tree whose scripts/vm/run is
# a stand-in that records how it was called and takes two seconds. Checked:
# one --prepare --zfs run per kernel of ENCBENCH_VM_KERNELS, at SCHED_IDLE,
# without make's jobserver in its environment, its pid where vm-tests.t
# looks for it, while prepare-bg itself returns at once; none with
# ENCBENCH_SKIP_VM=1.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

tree=$tmp/tree
mkdir -p "$tree/scripts/vm"
cp scripts/vm/prepare-bg "$tree/scripts/vm/"
cat >"$tree/scripts/vm/run" <<'EOF'
#!/usr/bin/env bash
k=$2
{
	echo "args $*"
	echo "pid $$"
	echo "policy $(chrt -p $$ | sed -n 's/.*scheduling policy: //p')"
	echo "makeflags ${MAKEFLAGS-unset}"
} >"$FAKE_VM_DIR/$k.calls"
sleep 2
echo done >>"$FAKE_VM_DIR/$k.calls"
EOF
chmod +x "$tree/scripts/vm/run"
export FAKE_VM_DIR=$tmp/calls
mkdir -p "$FAKE_VM_DIR"

start=$(date +%s%N)
MAKEFLAGS=' -j2 --jobserver-auth=3,4' ENCBENCH_VM_KERNELS='6.1 6.12' \
	"$tree/scripts/vm/prepare-bg" >"$tmp/out" 2>&1
st=$?
took_ms=$((($(date +%s%N) - start) / 1000000))
tap_ok "prepare-bg exits 0" '((st == 0))'
tap_ok "prepare-bg returns before the guests' cache is filled (${took_ms} ms)" '((took_ms < 1500))'
sleep 0.5
for k in 6.1 6.12; do
	tap_diag=$FAKE_VM_DIR/$k.calls
	tap_ok "$k: scripts/vm/run --kernel $k --zfs --prepare" \
		'grep -qx "args --kernel $k --zfs --prepare" "$FAKE_VM_DIR/$k.calls"'
	tap_ok "$k: at SCHED_IDLE" 'grep -qx "policy SCHED_IDLE" "$FAKE_VM_DIR/$k.calls"'
	tap_ok "$k: no jobserver in its MAKEFLAGS" 'grep -qx "makeflags unset" "$FAKE_VM_DIR/$k.calls"'
	tap_ok "$k: its pid in build/vm-prepare-$k.pid, for vm-tests.t" \
		'grep -qx "pid $(cat "$tree/build/vm-prepare-$k.pid")" "$FAKE_VM_DIR/$k.calls"'
done
# Wait for the stand-ins to end before the folder goes.
for _ in 1 2 3 4 5 6 7 8; do
	[[ $(grep -l '^done' "$FAKE_VM_DIR"/*.calls 2>/dev/null | wc -l) == 2 ]] && break
	sleep 0.5
done
tap_diag=$tmp/out
tap_ok "both stand-ins ran to their end" \
	'[[ $(grep -l "^done" "$FAKE_VM_DIR"/*.calls | wc -l) == 2 ]]'

rm -f "$FAKE_VM_DIR"/*.calls
ENCBENCH_SKIP_VM=1 "$tree/scripts/vm/prepare-bg" >"$tmp/out" 2>&1
st=$?
sleep 0.5
tap_ok "ENCBENCH_SKIP_VM=1: exits 0 and starts nothing" \
	'((st == 0)) && ! compgen -G "$FAKE_VM_DIR/*.calls" >/dev/null'
tap_plan
