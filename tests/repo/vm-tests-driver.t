#!/usr/bin/env bash
# TAP (run by prove): tests/vm/vm-tests.t, the VM suites' driver, run in a
# copy of the tree whose scripts/vm/run is a stand-in guest (no QEMU): it
# prints the guest script's markers for each test program, one of which
# fails on one kernel. Checked: the TAP lines come in kernel order with a
# failure's reason under it, whether the guests ran side by side (the
# default) or one after the other (ENCBENCH_VM_PARALLEL=0), and which of
# the two it was, from the stand-in's own start and end times.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

tree=$tmp/tree
mkdir -p "$tree/tests/vm" "$tree/scripts/vm" "$tree/build/tests/vm"
cp tests/vm/vm-tests.t "$tree/tests/vm/"
for t in a b; do
	printf '#!/bin/sh\nexit 0\n' >"$tree/build/tests/vm/test_vm_$t"
	chmod +x "$tree/build/tests/vm/test_vm_$t"
done
# The stand-in: scripts/vm/run --kernel K ... -- bash -c SCRIPT guest BINS.
# It records when it starts and ends (ns), takes a second as a guest would,
# and fails test_vm_b on 6.12.
cat >"$tree/scripts/vm/run" <<'EOF'
#!/usr/bin/env bash
k=$2
while [[ $1 != -- ]]; do shift; done
shift 4 # -- bash -c SCRIPT; then "guest" BINS
shift
date +%s%N >"$FAKE_VM_DIR/$k.start"
echo "@@vmtest-kernel fake-$k"
sleep 1
for b; do
	echo "@@vmtest-begin $b"
	st=0
	if [[ $k == 6.12 && $b == */test_vm_b ]]; then
		echo "ERROR: boom on $k" >&2
		st=1
	fi
	echo "# $b ran on $k"
	echo "@@vmtest-end $b $st 1"
done 2>&1
date +%s%N >"$FAKE_VM_DIR/$k.end"
EOF
chmod +x "$tree/scripts/vm/run"
export FAKE_VM_DIR=$tmp

# $1: ENCBENCH_VM_PARALLEL's value ("": unset, the default). Output in
# $tmp/out, status in $status.
drive() {
	rm -f "$tmp"/*.start "$tmp"/*.end
	ENCBENCH_VM_PARALLEL=$1 ENCBENCH_VM_KERNELS="6.1 6.12" ENCBENCH_VM_TESTS= ENCBENCH_SKIP_VM= \
		"$tree/tests/vm/vm-tests.t" >"$tmp/out" 2>&1
	status=$?
}
# The TAP lines in order, as the driver must print them either way.
lines_ok() {
	[[ $(grep -E '^(not )?ok |^1\.\.' "$tmp/out") == "1..4
ok 1 - 6.1 (fake-6.1): test_vm_a
ok 2 - 6.1 (fake-6.1): test_vm_b
ok 3 - 6.12 (fake-6.12): test_vm_a
not ok 4 - 6.12 (fake-6.12): test_vm_b" ]] &&
		grep -A3 '^not ok 4' "$tmp/out" | grep -q '^# ERROR: boom on 6.12'
}
t() { cat "$tmp/$1"; }

drive 0
tap_ok "one after the other: a failure fails the driver (status $status)" '((status == 1))'
tap_ok "one after the other: TAP lines in kernel order, the failure's why" lines_ok
tap_ok "one after the other: 6.12's guest started after 6.1's ended" \
	'(($(t 6.12.start) >= $(t 6.1.end)))'

# scripts/vm/prepare-bg still at work: a stand-in preparation (its command
# line scripts/vm/run ... --prepare) and its child at SCHED_IDLE, its pid
# in build/vm-prepare-6.1.pid; another SCHED_IDLE process, not one, in
# vm-prepare-6.12.pid. The driver must move the first two back to
# SCHED_OTHER before the guests start, and leave the third alone.
mkdir -p "$tmp/prep/scripts/vm" "$tree/build"
printf 'sleep 30 &\nwait\n' >"$tmp/prep/scripts/vm/run"
(cd "$tmp/prep" && exec chrt --idle 0 bash scripts/vm/run --kernel 6.1 --zfs --prepare) &
prep=$!
chrt --idle 0 sleep 30 &
other=$!
echo "$prep" >"$tree/build/vm-prepare-6.1.pid"
echo "$other" >"$tree/build/vm-prepare-6.12.pid"
# And one that has ended: passed over without a word.
true &
dead=$!
wait "$dead"
echo "$dead" >"$tree/build/vm-prepare-dead.pid"
for _ in 1 2 3 4 5 6 7 8 9 10; do
	child=$(pgrep -P "$prep")
	[[ -n $child ]] && break
	sleep 0.2
done
policy() { chrt -p "$1" | sed -n 's/.*scheduling policy: //p'; }
drive ""
tap_ok "the preparation left SCHED_IDLE, child too ($(policy "$prep"), $(policy "$child"))" \
	'[[ $(policy "$prep") == SCHED_OTHER && $(policy "$child") == SCHED_OTHER ]]'
tap_ok "a process not a preparation kept its policy ($(policy "$other"))" \
	'[[ $(policy "$other") == SCHED_IDLE ]]'
tap_ok "an ended preparation's pid file: nothing said" '! grep -q "$dead" "$tmp/out"'
kill "$child" "$other" 2>/dev/null
wait "$prep" "$other" 2>/dev/null
rm -f "$tree"/build/vm-prepare-*.pid

tap_ok "side by side (the default): a failure fails the driver (status $status)" '((status == 1))'
tap_ok "side by side (the default): TAP lines in kernel order, the failure's why" lines_ok
tap_ok "side by side (the default): each guest started before the other ended" \
	'(($(t 6.12.start) < $(t 6.1.end) && $(t 6.1.start) < $(t 6.12.end)))'
tap_plan
