#!/usr/bin/env bash
# What tracing costs an I/O-bound program: fio 4 KiB random reads at queue
# depth 1 (psync, O_DIRECT) on a loop device, run untraced, traced by
# `encbench-trace trace` (every layer and the wait attribution) and traced
# by libbpf-tools' biolatency, interleaved in one session (the order
# rotates each round, so the shared machine's noise falls on all three).
#
# Besides IOPS, fio's low clat percentiles: under other load the median
# IOPS swing by a factor of ten, while the fastest I/Os (p5) are those
# that found the CPUs free, so their latency shows what tracing adds to
# one I/O's path even on a busy machine.
#
# The IOPS rounds run with kernel.bpf_stats_enabled off: with it on, each
# program run also reads the clock twice (about 90 ns each on this
# project's VM, where clock_gettime takes as long), which would tax the
# tracer by its number of runs, not by what it does. One more traced run
# and one more biolatency run, with it on, give the per-program table:
# each program's run_time_ns and run_cnt are read just before fio starts
# and just after it ends (the traced command waits for the go), so it
# covers fio's I/Os only: ns per run, runs per I/O, ns per I/O. Our
# programs are known by the ids ENCBENCH_IDS_FILE records, biolatency's
# as those that appeared when it started. The scheduler and syscall
# programs run for every task on the machine, so their runs per I/O
# include other load. The tracer's own CPU time (user + system) during
# fio's run says whether its user-space side competes for the CPUs.
#
#   sudo bench/wait-overhead.sh          # ROUNDS=3 SECS=10
#   sudo ENCBENCH_BENCH_SKIP=wait_sample bench/wait-overhead.sh
#       (bench-only: the named programs are left unattached, see trace.c)
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
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
truncate -s 1G "$work/img"
dd if=/dev/urandom of="$work/img" bs=1M count=1024 conv=notrunc status=none
dev=$(losetup -f --show "$work/img")
name=${dev#/dev/}

fio_cmd=(fio --name=randread --filename="$dev" --rw=randread --bs=4k
	--ioengine=psync --iodepth=1 --direct=1 --time_based --runtime="$secs"
	--percentile_list=5:50 --output-format=json)

# bpftool here lists no owning pids: programs are known by id -- ours from
# ENCBENCH_IDS_FILE, biolatency's as those that appeared when it started.
prog_ids() { bpftool prog show --json | jq -r '.[].id' | sort; }
# "id name run_time_ns run_cnt" of each program id on stdin.
prog_stats() {
	while read -r id; do
		bpftool prog show id "$id" --json 2>/dev/null || true
	done | jq -r 'select(.id != null) |
		"\(.id) \(.name) \(.run_time_ns // 0) \(.run_cnt // 0)"'
}
# "name ns runs" of what each program did between the readings $1 and $2.
prog_delta() {
	awk 'NR == FNR { ns[$1] = $3; n[$1] = $4; next }
	     $1 in n && $4 > n[$1] { print $2, $3 - ns[$1], $4 - n[$1] }' "$1" "$2"
}
# Memlock of the maps the program ids on stdin use.
map_bytes() {
	while read -r id; do
		bpftool prog show id "$id" --json 2>/dev/null || true
	done | jq -r '.map_ids[]?' | sort -u | while read -r m; do
		bpftool map show id "$m" --json 2>/dev/null || true
	done | jq -s 'map(.bytes_memlock) | add // 0'
}
await() { while [[ ! -e $1 ]]; do sleep 0.05; done; }

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

run_untraced() { "${fio_cmd[@]}" >"$work/u$1.json"; }
# The traced command waits for the go, so that the first reading of the
# stats is taken after the tracer has attached and before fio runs; fio's
# JSON is renamed into place whole (an empty file is valid to jq -e).
# $2: 1 to read the programs' bpf_stats.
run_traced() {
	local w=$work/t$1 costed=${2:-0}
	sysctl -qw kernel.bpf_stats_enabled="$costed"
	ENCBENCH_IDS_FILE="$w.ids" "$bin" trace --dev "$dev" -q -- sh -c "
		touch $w.ready; while [ ! -e $w.go ]; do sleep 0.05; done
		$(printf '%q ' "${fio_cmd[@]}") >$w.part && mv $w.part $w.json
		while [ ! -e $w.end ]; do sleep 0.05; done" >"$w.txt" 2>&1 &
	local tracer=$! ticks
	await "$w.ready"
	awk '$1 == "prog" { print $2 }' "$w.ids" >"$w.pids"
	((costed)) && prog_stats <"$w.pids" >"$w.before"
	ticks=$(cpu_ticks "$tracer")
	touch "$w.go"
	await "$w.json"
	echo $(($(cpu_ticks "$tracer") - ticks)) >"$w.ticks"
	if ((costed)); then
		prog_stats <"$w.pids" >"$w.after"
		prog_delta "$w.before" "$w.after" >"$w.progs"
	fi
	map_bytes <"$w.pids" >"$w.maps"
	grep VmHWM "/proc/$tracer/status" | awk '{ print $2 }' >"$w.rss"
	touch "$w.end"
	wait "$tracer"
	sysctl -qw kernel.bpf_stats_enabled="$stats_was"
}
run_biolatency() {
	local w=$work/b$1 costed=${2:-0}
	sysctl -qw kernel.bpf_stats_enabled="$costed"
	prog_ids >"$w.before_ids"
	biolatency -d "$name" >/dev/null 2>&1 &
	local bl=$! tries=0
	# Its request programs, once loaded (seconds under load: a fixed
	# second was not enough), then a moment to attach. Other tracers may
	# load programs of the same names meanwhile: rare, and visible as a
	# count above 2 in the table.
	until (($(prog_ids | comm -13 "$w.before_ids" - | prog_stats |
		awk '$2 ~ /^block_rq_(issue|complete)/' | tee "$w.found" | wc -l) >= 2)); do
		((++tries < 300)) || { echo "wait-overhead: biolatency did not load" >&2; exit 1; }
		sleep 0.1
	done
	sleep 0.5
	awk '{ print $1 }' "$w.found" >"$w.pids"
	((costed)) && prog_stats <"$w.pids" >"$w.before"
	"${fio_cmd[@]}" >"$w.json"
	if ((costed)); then
		prog_stats <"$w.pids" >"$w.after"
		prog_delta "$w.before" "$w.after" >"$w.progs"
	fi
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
# The costed runs: not among the IOPS rounds (their files are c*, d*).
run_traced_costed() { run_traced "$1" 1; mv "$work/t$1.progs" "$work/c.progs"; mv "$work/t$1.json" "$work/c.json"; }
run_biolatency_costed() { run_biolatency "$1" 1; mv "$work/b$1.progs" "$work/d.progs"; mv "$work/b$1.json" "$work/d.json"; }
run_traced_costed x
run_biolatency_costed x

# The median round of a mode's IOPS, or of a clat percentile (us).
median() { jq -s "map($2) | sort | .[length / 2 | floor]" "$work"/"$1"[0-9]*.json; }
iops() { median "$1" '.jobs[0].read.iops'; }
pct() { median "$1" ".jobs[0].read.clat_ns.percentile[\"$2\"] / 1000"; }
rounds_of() { jq -s -r 'map(.jobs[0].read.iops | floor | tostring) | join(" ")' "$work"/"$1"[0-9]*.json; }
ios() { jq '.jobs[0].read.total_ios' "$work/$1.json"; }
vs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", 100 * (a / b - 1) }'; }
u=$(iops u) t=$(iops t) b=$(iops b)
u5=$(pct u 5.000000) t5=$(pct t 5.000000) b5=$(pct b 5.000000)
echo "wait-overhead: fio randread 4k QD1 psync direct on $name, ${secs}s x $rounds rounds, $(date -u '+%F %H:%M') UTC, kernel $(uname -r), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), load average $load_start -> $(cut -d' ' -f1-3 /proc/loadavg)${ENCBENCH_BENCH_SKIP:+, ENCBENCH_BENCH_SKIP=$ENCBENCH_BENCH_SKIP}"
printf '%-14s %11s %11s %8s %8s %8s  %s\n' mode 'median IOPS' vs-untraced 'p5 us' 'p5 vs' 'p50 us' 'IOPS of each round'
printf '%-14s %11.0f %11s %8.1f %8s %8.1f  %s\n' untraced "$u" - "$u5" - "$(pct u 50.000000)" "$(rounds_of u)"
printf '%-14s %11.0f %11s %8.1f %8s %8.1f  %s\n' encbench-trace "$t" "$(vs "$t" "$u")" "$t5" "$(vs "$t5" "$u5")" "$(pct t 50.000000)" "$(rounds_of t)"
printf '%-14s %11.0f %11s %8.1f %8s %8.1f  %s\n' biolatency "$b" "$(vs "$b" "$u")" "$b5" "$(vs "$b5" "$u5")" "$(pct b 50.000000)" "$(rounds_of b)"
# Each round's ratio to its own untraced run: the load drifts between
# rounds more than within one.
paired() {
	for ((i = 1; i <= rounds; i++)); do
		jq -s '.[1].jobs[0].read.iops / .[0].jobs[0].read.iops' \
			"$work/u$i.json" "$work/$1$i.json"
	done | sort -g | awk '{ r[NR] = $1; s = s sprintf(" %+.1f%%", 100 * ($1 - 1)) }
		END { printf "median %+.1f%% (each round:%s)", 100 * (r[int((NR + 1) / 2)] - 1), s }'
}
echo "per round, IOPS vs the same round's untraced run: encbench-trace $(paired t); biolatency $(paired b)"
echo
echo "BPF programs during fio's run (bpf_stats on, a run of its own): ns per run, runs per I/O, ns per I/O"
table() {
	cat "$work/$1.progs" | awk -v who="$2" -v ios="$3" '
		{ ns[$1] += $2; n[$1] += $3 }
		END {
			for (p in n) {
				printf "  %-14s %-28s %6.0f ns %7.2f %7.0f\n", who, p,
					ns[p] / n[p], n[p] / ios, ns[p] / ios
				all += ns[p]
			}
			printf "  %-14s %-28s %9s %7s %7.0f\n", who, "(all)", "", "", all / ios
		}' | sort -k1,1 -k2,2
}
table c encbench-trace "$(ios c)"
table d biolatency "$(ios d)"
echo
echo "encbench-trace RSS high-water: $(sort -n "$work"/t*.rss | tail -1) KiB; BPF maps memlock: $(sort -n "$work"/t*.maps | tail -1) bytes;" \
	"its CPU time during fio's runs: $(cat "$work"/t*.ticks | awk -v hz="$(getconf CLK_TCK)" '{ s += $1 } END { printf "%.0f ms", 1000 * s / hz }') in all"
