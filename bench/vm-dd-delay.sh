#!/usr/bin/env bash
# Where a plain and a LUKS2 target's dd reads spend their time when
# dm-delay holds every read 60 ms and every write 80 ms under both (the
# stacks of tests/vm/test_vm_truth.c), run after run: per run, the read
# verdicts, each target's read wait decomposition, and the plain target's
# four heaviest on-CPU stacks under read(). Written to find what put up to
# 370 ms per run of the plain reads in "file system" (copy-on-write of
# dd's buffers in its timed child, 2026-12-02).
#
#   bench/vm-dd-delay.sh [RUNS]     # on the host: boots the 6.12 guest
#   ENCBENCH_VM_KERNEL=6.1 ...      # the 6.1 guest
#
# Measures, does not judge; the figures go into BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -z "${ENCBENCH_VM:-}" ]]; then
    exec scripts/vm/run --kernel "${ENCBENCH_VM_KERNEL:-6.12}" --timeout 1800 \
        -- bash "$0" "${1:-4}"
fi

runs=${1:-4} bin=$PWD/encbench-trace
tmp=$(mktemp -d /var/tmp/encbench-vmdd.XXXXXX)
made=()
cleanup() {
    umount "$tmp"/plain/mnt "$tmp"/luks2/mnt 2>/dev/null || true
    cryptsetup close vmdd-luks2-c 2>/dev/null || true
    dmsetup remove vmdd-plain vmdd-luks2 2>/dev/null || true
    for l in "${made[@]}"; do losetup -d "$l" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT

# stack NAME LUKS: loop -> dm-delay (undelayed while built) [-> LUKS2] -> ext4
stack() {
    local n=$1 d=$tmp/$1 l s fs=vmdd-$1
    mkdir -p "$d/mnt"
    truncate -s 160M "$d/img"
    l=$(losetup -f --show "$d/img")
    made+=("$l")
    s=$(blockdev --getsz "$l")
    dmsetup create "vmdd-$n" --table "0 $s delay $l 0 0"
    if [[ $2 == 1 ]]; then
        head -c 64 /dev/urandom >"$d/key"
        cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 \
            --pbkdf-force-iterations 1000 --key-file "$d/key" "/dev/mapper/vmdd-$n"
        cryptsetup open --key-file "$d/key" "/dev/mapper/vmdd-$n" "vmdd-$n-c"
        fs=vmdd-$n-c
    fi
    mkfs.ext4 -q -b 4096 "/dev/mapper/$fs"
    mount -o noatime,lazytime,noinit_itable "/dev/mapper/$fs" "$d/mnt"
    dmsetup suspend "vmdd-$n"
    dmsetup load "vmdd-$n" --table "0 $s delay $l 0 60 $l 0 80"
    dmsetup resume "vmdd-$n"
}
stack plain 0
stack luks2 1

# The four heaviest on-CPU stacks of the snapshot's reads, outermost last.
stacks='.wait as $w | [$w.stacks[] | select(.op == "read" and .use == "oncpu-sample")]
  | sort_by(-.value) | .[0:4][]
  | "    \(.value) samples: " + ([.frames[] as $i | $w.symbols[$i]] | map(tostring) | .[0:12] | join(" < "))'
for i in $(seq 1 "$runs"); do
    o=$tmp/run$i
    "$bin" run --target "dm-plain=$tmp/plain/mnt" --target "dm-luks2=$tmp/luks2/mnt" \
        --baseline dm-plain --workloads dd --dd-size 4M --runs 2 --trace-runs 1 \
        --quiet --scratch "$tmp" --output "$o" >"$o.out" 2>&1 || echo "run $i failed: $(tail -1 "$o.out")"
    echo "== run $i"
    grep -E "dd, read|^read_s" "$o.out" || true
    jq -M -r '.attribution[] | select(.op == "read") | "  \(.target) read wait (ms, \(.wait.syscalls) syscalls): "
        + (.wait.ns | to_entries | map("\(.key) \(.value / 1e6 | floor)") | join(", "))
        + "; on-CPU samples \(.wait.samples)"' "$o/results.json"
    for f in "$o"/snapshots/*dm-plain-dd*; do jq -M -r "$stacks" "$f" | cut -c1-600; done
done
