#!/usr/bin/env bash
# What one BPF operation costs on this machine: a clock read, a hash
# lookup that misses or hits, an item's insert and delete in a start
# map, atomic adds on a slot all CPUs share, plain adds on a per-CPU slot
# (bench/bpf_primitives.bpf.c). Issue 20 asks which of the tracer's
# operations to take off fio's path; this says what each is worth alone.
#
# Each program runs REPEAT times in the kernel's own test-run loop
# (BPF_PROG_TEST_RUN through `bpftool prog run`), which prints the mean
# per run: on CPU 0 alone, then on CPUs 0 and 1 at once (the same maps:
# what sharing a line or a bucket lock between CPUs adds, as a start map
# does when an item starts on the submitter's CPU and ends on the loop
# worker's). ROUNDS rounds, the median printed. All in the cache: what a
# tracepoint's real run adds on top (cold lines, its dispatch) is not
# seen here, only in bench/wait-overhead.sh's whole-program figures.
#
#   sudo bench/bpf-primitives.sh          # ROUNDS=3 REPEAT=2000000, ~1 min
set -euo pipefail
{
cd "$(dirname "$0")/.."

rounds=${ROUNDS:-3} repeat=${REPEAT:-2000000}
[[ $(id -u) == 0 ]] || { echo "bpf-primitives: needs root (BPF_PROG_TEST_RUN)" >&2; exit 2; }
for tool in clang gcc bpftool taskset; do
	command -v "$tool" >/dev/null ||
		{ echo "bpf-primitives: needs $tool (scripts/install-deps.sh)" >&2; exit 2; }
done
(($(nproc) >= 2)) || { echo "bpf-primitives: needs two CPUs" >&2; exit 2; }

# bpftool pins what it loads: into a bpffs of our own, gone with it.
tmp=$(mktemp -d /tmp/encbench-prim-XXXXXX) # no dot: libbpf turns dots in pin paths into _
pins=$tmp/bpffs
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	mountpoint -q "$pins" && umount "$pins"
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$pins"
mount -t bpf bpf "$pins"
mkdir "$pins/maps"

# The tracer's own code generation (Makefile: BPF_CFLAGS).
clang -O2 -g -target bpf -mcpu=v3 -Wall -Werror \
	-I"/usr/include/$(gcc -dumpmachine)" \
	-c bench/bpf_primitives.bpf.c -o "$tmp/prim.bpf.o"
bpftool prog loadall "$tmp/prim.bpf.o" "$pins/progs" pinmaps "$pins/maps"
# HIT_KEY (7), little-endian, and a zeroed struct start.
zeros=()
for _ in $(seq 24); do zeros+=(0); done
bpftool map update pinned "$pins/maps/items" key 7 0 0 0 0 0 0 0 \
	value "${zeros[@]}"
head -c 64 /dev/zero >"$tmp/pkt"

# Mean ns per run of program $1 over one test run on CPU $2.
run_on() {
	taskset -c "$2" bpftool prog run pinned "$pins/progs/$1" \
		data_in "$tmp/pkt" repeat "$repeat" |
		sed -n 's/.*duration (average): \([0-9]*\)ns.*/\1/p'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

progs=(empty ktime hash_lookup_miss hash_lookup_hit small_hash_lookup
	hash_update_delete shared_atomics3 percpu_adds3)
echo "bpf-primitives: $rounds rounds of $repeat runs each, $(date -u '+%F %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-20s %12s %18s\n' program "alone, ns" "two CPUs, ns"
for p in "${progs[@]}"; do
	alone=() both=()
	for _ in $(seq 1 "$rounds"); do
		alone+=("$(run_on "$p" 0)")
		run_on "$p" 1 >"$tmp/other" &
		a=$(run_on "$p" 0)
		wait
		both+=("$(((a + $(cat "$tmp/other")) / 2))")
	done
	printf '%-20s %12s %18s\n' "$p" \
		"$(printf '%s\n' "${alone[@]}" | median)" \
		"$(printf '%s\n' "${both[@]}" | median)"
done
exit
}
