#!/usr/bin/env bash
# TAP driver (run by prove on the host): boots one guest per kernel in
# ${ENCBENCH_VM_KERNELS:-6.1 6.12} and runs every build/tests/vm/test_vm_*
# program in it (one boot per kernel: a boot costs ~10 s under TCG).
# One TAP line per (kernel, program); a failure shows the program's output,
# or the whole guest run's output if the guest itself failed, as # lines.
# ENCBENCH_VM_TESTS="NAME..." runs only test_vm_NAME..., in that order.
# ENCBENCH_VM_TIMEOUT (default 2400) bounds each guest run, boot included
# (the 6.1 guest with ZFS took 323 s here while other jobs shared the CPUs;
# 628 s, killed at 600, at a host load of 12 on two CPUs, 2026-11-30; 794-834
# s at load 8-10 once test_vm_dmw and the flusher case of test_vm_samples came).
# The 6.1 guest hit 1500 s at load ~10 on 2026-12-02 with test_vm_tune (a
# 240 s budget) and the ZFS ARC run added, and then never ended in CI: it
# hung under multi-threaded TCG (scripts/vm/run says why); on one TCG
# thread it took 861 s on an idle host. Each program's time is printed.
# The guests run side by side (each one TCG thread; ENCBENCH_VM_PARALLEL=0:
# one after the other): beside one busy loop a clean-clone make check took
# 41.4 min that way, 48.2 one after the other. One such run failed
# test_vm_truth's plain write check (the loop device below dm-delay slow
# with three CPU-bound threads on two CPUs, 2026-12-05), which made one
# after the other the default until that check was made unambiguous: it
# now asks device-mapper-bound only when the loop device's own write
# ticks in the traced iteration stay under one hold (1c5efef).
set -uo pipefail

if [[ "${ENCBENCH_SKIP_VM:-}" == 1 ]]; then
    echo "1..0 # SKIP ENCBENCH_SKIP_VM set"
    exit 0
fi
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

read -r -a kernels <<<"${ENCBENCH_VM_KERNELS:-6.1 6.12}"
shopt -s nullglob
if [[ -n "${ENCBENCH_VM_TESTS:-}" ]]; then
    # ENCBENCH_VM_TESTS="user wait": only test_vm_user and test_vm_wait.
    bins=()
    for t in ${ENCBENCH_VM_TESTS}; do
        [[ -x "build/tests/vm/test_vm_$t" ]] || { echo "Bail out! no build/tests/vm/test_vm_$t"; exit 1; }
        bins+=("build/tests/vm/test_vm_$t")
    done
else
    bins=(build/tests/vm/test_vm_*)
fi
shopt -u nullglob
if ((${#bins[@]} == 0)); then
    echo "Bail out! no build/tests/vm/test_vm_* programs: run 'make check-vm'"
    exit 1
fi

# Runs in the guest: each program's output between markers the host parses.
# shellcheck disable=SC2016 # expanded in the guest
guest_script='
echo "@@vmtest-kernel $(uname -r)"
for b; do
    echo "@@vmtest-begin $b"
    t=$SECONDS
    "./$b" 2>&1
    echo "@@vmtest-end $b $? $((SECONDS - t))"
done'

diag() { sed 's/^/# /'; }

echo "1..$((${#kernels[@]} * ${#bins[@]}))"
# One guest per kernel, its output in $tmp/K.out and "STATUS SECONDS" in
# $tmp/K.status; one after the other with ENCBENCH_VM_PARALLEL=0.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run_guest() {
    local k=$1 start=$SECONDS st=0
    # --zfs: OpenZFS where the kernel allows it (built once per kernel and
    # ZFS version, cached: the first run pays some 10-20 min for it; make
    # check starts it before the host tests, scripts/vm/prepare-bg, and
    # this waits for that one's lock).
    scripts/vm/run --kernel "$k" --zfs --timeout "${ENCBENCH_VM_TIMEOUT:-2400}" \
        -- bash -c "$guest_script" guest "${bins[@]}" >"$tmp/$k.out" 2>&1 || st=$?
    echo "$st $((SECONDS - start))" >"$tmp/$k.status"
}

n=0 failed=0
# TAP lines for kernel $1's guest run, once it has ended.
report_guest() {
    local k=$1 out run_status took_all kver b name section status took skip
    out=$(cat "$tmp/$k.out")
    read -r run_status took_all <"$tmp/$k.status"
    echo "# kernel $k: guest run took $took_all s (status $run_status)"
    kver=$(sed -n 's/^@@vmtest-kernel //p' <<<"$out" | head -n 1)
    for b in "${bins[@]}"; do
        n=$((n + 1))
        name="$k${kver:+ ($kver)}: ${b##*/}"
        # The program's own lines, and its status from the end marker.
        section=$(awk -v b="$b" '
            $0 == "@@vmtest-begin " b { on = 1; next }
            on && index($0, "@@vmtest-end " b " ") { sub(/@@vmtest-end .*/, ""); if ($0 != "") print; exit }
            on { print }' <<<"$out")
        # "STATUS SECONDS" after the end marker.
        read -r status took < <(awk -v m="@@vmtest-end $b " '
            i = index($0, m) { s = substr($0, i + length(m)) } END { print s }' <<<"$out")
        skip=$(sed -n 's/^1\.\.0 # SKIP //p' <<<"$section" | head -n 1)
        [[ -n "$status" ]] && echo "# $name took ${took:-?} s"
        if [[ "$status" == 0 && -n "$skip" ]]; then
            echo "ok $n - $name # SKIP $skip"
        elif [[ "$status" == 0 ]]; then
            echo "ok $n - $name"
        else
            failed=$((failed + 1))
            echo "not ok $n - $name"
            if [[ -n "$status" ]]; then
                # Why first: CI shows only a few lines past a "not ok", and
                # a program's failed assertions come at the end of its
                # output (cmocka's "file:line: error:" and fail_msg's
                # "ERROR: ..." on stderr, the program's own "# " lines).
                echo "# exited $status in the guest; why:"
                grep -E -B2 'not ok|: error: |ERROR: ' <<<"$section" | grep -v '^--$' | head -n 30 | diag
                echo "# its whole output:"
                diag <<<"$section"
            else
                echo "# the guest run failed (scripts/vm/run status $run_status); its output:"
                diag <<<"$out"
            fi
        fi
    done
}

# scripts/vm/prepare-bg's cache filling, if still at work, is now what the
# guests wait for: it leaves SCHED_IDLE, each process before its children
# (one forked meanwhile inherits the new policy). Only a live pid whose
# command line is that preparation's.
promote() {
    local c
    chrt --other -p 0 "$1" 2>/dev/null || return 0
    for c in $(pgrep -P "$1"); do promote "$c"; done
}
for f in build/vm-prepare-*.pid; do
    [[ -s "$f" ]] || continue
    pid=$(<"$f")
    [[ "$pid" =~ ^[0-9]+$ ]] || continue
    { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -q -- 'scripts/vm/run .*--prepare' || continue
    echo "# the guests' cache is still being filled (pid $pid): back to SCHED_OTHER"
    promote "$pid"
done

if [[ "${ENCBENCH_VM_PARALLEL:-1}" == 1 ]]; then
    # A background job ignores SIGINT; TERM reaches scripts/vm/run's own
    # trap, which stops its guest.
    trap 'kill -TERM $(jobs -p) 2>/dev/null; wait; exit 130' INT TERM
    for k in "${kernels[@]}"; do run_guest "$k" & done
    wait
    trap - INT TERM
    for k in "${kernels[@]}"; do report_guest "$k"; done
else
    for k in "${kernels[@]}"; do
        run_guest "$k"
        report_guest "$k"
    done
fi
((failed == 0))
