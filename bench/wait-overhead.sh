#!/usr/bin/env bash
# What tracing costs an I/O-bound program: fio 4 KiB random reads at queue
# depth 1 (psync, O_DIRECT) on a loop device, run untraced, traced by
# `encbench-trace trace` (every layer and the wait attribution) and traced
# by libbpf-tools' biolatency, interleaved in one session (the order
# rotates each round, so the shared machine's noise falls on all three).
# With kernel.bpf_stats_enabled on for the traced runs, each BPF program's
# run_time_ns / run_cnt is read while it is still loaded, with the
# tracer's RSS high-water mark and its maps' memlock.
#
#   sudo bench/wait-overhead.sh          # ROUNDS=3 SECS=10
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${ROUNDS:-3} secs=${SECS:-10}
bin=$PWD/encbench-trace
[[ -x $bin ]] || { echo "wait-overhead: build first (make)" >&2; exit 2; }
for t in fio biolatency bpftool jq; do
	command -v "$t" >/dev/null || { echo "wait-overhead: needs $t (scripts/install-deps.sh)" >&2; exit 2; }
done
work=$(mktemp -d /var/tmp/encbench-bench.XXXXXX)
dev=
stats_was=$(sysctl -n kernel.bpf_stats_enabled)
cleanup() {
	sysctl -qw kernel.bpf_stats_enabled="$stats_was"
	[[ -n $dev ]] && losetup -d "$dev"
	rm -rf "$work"
}
trap cleanup EXIT
[[ -n ${KEEP:-} ]] && trap - EXIT
truncate -s 1G "$work/img"
dd if=/dev/urandom of="$work/img" bs=1M count=1024 conv=notrunc status=none
dev=$(losetup -f --show "$work/img")
name=${dev#/dev/}

fio_cmd=(fio --name=randread --filename="$dev" --rw=randread --bs=4k
	--ioengine=psync --iodepth=1 --direct=1 --time_based --runtime="$secs"
	--output-format=json)

# bpftool here lists no owning pids: programs are known by id -- ours from
# ENCBENCH_IDS_FILE, biolatency's as those that appeared when it started.
prog_ids() { bpftool prog show --json | jq -r '.[].id' | sort; }
# Name, ns per run and runs of each program id on stdin that ran.
prog_stats() {
	while read -r id; do
		bpftool prog show id "$id" --json 2>/dev/null || true
	done | jq -r 'select(.run_cnt != null and .run_cnt > 0) |
		"\(.name) \(.run_time_ns / .run_cnt | floor) \(.run_cnt)"'
}
# Memlock of the maps the program ids on stdin use.
map_bytes() {
	while read -r id; do
		bpftool prog show id "$id" --json 2>/dev/null || true
	done | jq -r '.map_ids[]?' | sort -u | while read -r m; do
		bpftool map show id "$m" --json 2>/dev/null || true
	done | jq -s 'map(.bytes_memlock) | add // 0'
}

run_untraced() { "${fio_cmd[@]}" >"$work/u$1.json"; }
run_traced() {
	sysctl -qw kernel.bpf_stats_enabled=1
	ENCBENCH_IDS_FILE="$work/t$1.ids" "$bin" trace --dev "$dev" -q -- \
		sh -c "$(printf '%q ' "${fio_cmd[@]}") >$work/t$1.json; sleep 2" \
		>"$work/t$1.txt" 2>&1 &
	local tracer=$!
	while ! jq -e . "$work/t$1.json" >/dev/null 2>&1; do sleep 0.2; done
	awk '$1 == "prog" { print $2 }' "$work/t$1.ids" >"$work/t$1.pids"
	prog_stats <"$work/t$1.pids" >"$work/t$1.progs"
	map_bytes <"$work/t$1.pids" >"$work/t$1.maps"
	grep VmHWM "/proc/$tracer/status" | awk '{ print $2 }' >"$work/t$1.rss"
	wait "$tracer"
	sysctl -qw kernel.bpf_stats_enabled="$stats_was"
}
run_biolatency() {
	sysctl -qw kernel.bpf_stats_enabled=1
	prog_ids >"$work/b$1.before"
	biolatency -d "$name" >/dev/null 2>&1 &
	local bl=$!
	sleep 1
	prog_ids | comm -13 "$work/b$1.before" - >"$work/b$1.pids"
	"${fio_cmd[@]}" >"$work/b$1.json"
	prog_stats <"$work/b$1.pids" >"$work/b$1.progs"
	kill -INT "$bl"
	wait "$bl" || true
	sysctl -qw kernel.bpf_stats_enabled="$stats_was"
}

for ((i = 1; i <= rounds; i++)); do
	case $((i % 3)) in
	1) order=(untraced traced biolatency) ;;
	2) order=(traced biolatency untraced) ;;
	0) order=(biolatency untraced traced) ;;
	esac
	for m in "${order[@]}"; do "run_$m" "$i"; done
done

# The median round, and every round, of a mode's IOPS.
iops() { jq -s 'map(.jobs[0].read.iops) | sort | .[length / 2 | floor]' "$work"/"$1"[0-9]*.json; }
rounds_of() { jq -s -r 'map(.jobs[0].read.iops | floor | tostring) | join(" ")' "$work"/"$1"[0-9]*.json; }
u=$(iops u) t=$(iops t) b=$(iops b)
echo "wait-overhead: fio randread 4k QD1 psync direct on $name, ${secs}s x $rounds rounds, $(date -u +%F), kernel $(uname -r)"
printf '%-14s %11s %11s  %s\n' mode 'median IOPS' vs-untraced 'each round'
printf '%-14s %11.0f %11s  %s\n' untraced "$u" - "$(rounds_of u)"
printf '%-14s %11.0f %10.1f%%  %s\n' encbench-trace "$t" \
	"$(awk -v a="$t" -v b="$u" 'BEGIN { print 100 * (a / b - 1) }')" "$(rounds_of t)"
printf '%-14s %11.0f %10.1f%%  %s\n' biolatency "$b" \
	"$(awk -v a="$b" -v b="$u" 'BEGIN { print 100 * (a / b - 1) }')" "$(rounds_of b)"
echo
echo "ns per run (mean over the rounds; bpf_stats), programs that ran:"
cat "$work"/t*.progs | awk '{ ns[$1] += $2; n[$1]++; c[$1] += $3 } END { for (p in ns) printf "  encbench-trace %-28s %6.0f ns  %d runs\n", p, ns[p] / n[p], c[p] / n[p] }' | sort
cat "$work"/b*.progs | awk '{ ns[$1] += $2; n[$1]++; c[$1] += $3 } END { for (p in ns) printf "  biolatency     %-28s %6.0f ns  %d runs\n", p, ns[p] / n[p], c[p] / n[p] }' | sort
echo
echo "encbench-trace RSS high-water: $(sort -n "$work"/t*.rss | tail -1) KiB; BPF maps memlock: $(sort -n "$work"/t*.maps | tail -1) bytes"
