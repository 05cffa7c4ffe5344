#!/usr/bin/env bash
# What tracing costs an I/O-bound program: fio 4 KiB random reads at queue
# depth 1 (psync, O_DIRECT) on a loop device, untraced, traced by
# `encbench-trace trace` (every layer and the wait attribution) and traced
# by libbpf-tools' biolatency, in one session.
#
# This machine's IOPS swing by 2x between runs seconds apart and by 7x
# between hours, so one figure per mode says nothing. The runs are short
# (SECS, 2 s) and chained ABA: an untraced run sits between every two
# traced runs, so each traced run has an untraced run on both sides, and
# its ratio is to their mean; the traced modes' order rotates each round.
# Printed per mode: the median of those ratios with a 95 % confidence
# interval (distribution-free: order statistics of the sign test), and the
# same for the per-round difference of two modes (ours minus biolatency's).
#
# Two CPU figures per I/O, each also paired with the neighbouring untraced
# runs: the machine's busy CPU time (/proc/stat user + nice + system + irq
# + softirq over fio's run; idle, iowait and steal excluded) per I/O, which
# counts what any tracer adds anywhere (BPF programs in any context, its
# user space, interrupts) but also whatever else the machine runs; and
# fio's own CPU time (getrusage: user + system) per I/O, which other load
# does not enter but which misses the loop worker's and interrupts' share.
#
# The ratio rounds run with kernel.bpf_stats_enabled off: with it on, each
# program run also reads the clock twice (about 90 ns each here), which
# would tax a tracer by its number of runs, not by what it does; and
# `trace`'s own BPF_ENABLE_STATS fd, which turns them on as the sysctl
# does, is left off there (bench-only ENCBENCH_BENCH_NO_COST; before
# 2026-12-05 it was on in every traced round of ours, not biolatency's). One more
# run of each tracer with it on gives the per-program table: run_time_ns
# and run_cnt read just before fio starts and just after it ends, so it
# covers fio's run only (ns per run, runs per I/O, ns per I/O). Ours are
# known by the ids ENCBENCH_IDS_FILE records, biolatency's as those that
# appeared when it started. The scheduler and syscall programs run for
# every task on the machine, so their runs per I/O include other load.
#
#   sudo bench/wait-overhead.sh               # ROUNDS=12 SECS=2, ~5 min
#   ours-sched, in every round: ours as run's traced iterations of a fio
#       job with a synchronous engine are (the syscall tracepoints left
#       detached, the call a caller blocks in read from its saved
#       registers: bench-only ENCBENCH_BENCH_CALLS_BY_SCHED); SCHED=0
#       leaves it out
#   sudo ENCBENCH_BIN_B=/work/main/encbench-trace bench/wait-overhead.sh
#       A/B: a second build of the tracer in the same rounds; ENCBENCH_BIN
#       (default: this tree's) is A; printed: B minus A
#   sudo ABLATE=1 bench/wait-overhead.sh      # ROUNDS=8, ~8 min
#       each group of programs left unattached in turn (bench-only
#       ENCBENCH_BENCH_SKIP, see userspace/tracer/load.c), and all attached
#       with tracing off (ENCBENCH_BENCH_IDLE): what each group costs
#   sudo FLOOR=1 bench/wait-overhead.sh       # ROUNDS=12, ~8 min
#       what being called at all costs, against ours-sched: idle-sched
#       (ours-sched's programs attached, each leaving at its first check)
#       and sched-idle, block-idle (only the scheduler programs, only the
#       block programs, attached so), and none (`trace` running the
#       command with no program attached: what the harness itself
#       costs); differences are taken against ours-sched. idle-sched's
#       costed run gives each program's ns per run when it does nothing:
#       the floor bpf_stats itself puts under every program's figure
#   BIOLATENCY=0 leaves biolatency out.
set -euo pipefail
cd "$(dirname "$0")/.."

ablate=${ABLATE:-0}
rounds=${ROUNDS:-$((ablate ? 8 : 12))} secs=${SECS:-2}
bin=${ENCBENCH_BIN:-$PWD/encbench-trace} bin_b=${ENCBENCH_BIN_B:-}
for b in "$bin" ${bin_b:+"$bin_b"}; do
	[[ -x $b ]] || { echo "wait-overhead: no tracer at $b (make first)" >&2; exit 2; }
done
for t in fio bpftool jq; do
	command -v "$t" >/dev/null || { echo "wait-overhead: needs $t (scripts/install-deps.sh)" >&2; exit 2; }
done
((${BIOLATENCY:-1})) && ! command -v biolatency >/dev/null &&
	{ echo "wait-overhead: needs biolatency (scripts/install-deps.sh), or BIOLATENCY=0" >&2; exit 2; }

# The traced modes. ours and ours-B: every layer; biolatency; with
# ABLATE, ours without one group of programs each, and ours attached with
# tracing off (every program leaves at its first check: the cost of being
# called at all).
modes=(ours)
((${SCHED:-1})) && modes+=(ours-sched)
[[ -n $bin_b ]] && modes+=(ours-B)
((${BIOLATENCY:-1})) && modes+=(biolatency)
declare -A skip=(
	[-syscall]=sys_enter,sys_exit
	[-sched]=sched_switch,sched_waking,sched_process_fork,sched_process_exit
	[-workqueue]=workqueue_queue_work,workqueue_execute_start,workqueue_execute_end
	[-block]=block_bio_queue,block_split,block_bio_backmerge,block_bio_frontmerge,block_rq_merge,block_rq_issue,block_rq_requeue,block_rq_complete,block_bio_complete
	[-sampler]=wait_sample
)
((ablate)) && modes+=(-syscall -sched -workqueue -block -sampler idle)
floor=${FLOOR:-0}
((floor)) && modes+=(idle-sched sched-idle block-idle none)
# The mode the others' per-round differences are taken against.
base=ours
((floor)) && base=ours-sched

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
truncate -s 256M "$work/img"
dd if=/dev/urandom of="$work/img" bs=1M count=256 conv=notrunc status=none
dev=$(losetup -f --show "$work/img")
name=${dev#/dev/}
sysctl -qw kernel.bpf_stats_enabled=0

fio_cmd=(fio --name=randread --filename="$dev" --rw=randread --bs=4k
	--ioengine=psync --iodepth=1 --direct=1 --time_based --runtime="$secs"
	--output-format=json)

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
# Wait for file $1; $2: the pid whose end means it will never come.
await() {
	while [[ ! -e $1 ]]; do
		[[ -z ${2:-} ]] || kill -0 "$2" 2>/dev/null ||
			{ echo "wait-overhead: the tracer ended early: $(tail -1 "${1%.*}.txt")" >&2; exit 1; }
		sleep 0.02
	done
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# The machine's busy ticks: user nice system irq softirq (not idle,
# iowait, steal, nor guest, which user already counts).
busy_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat; }

# One line per run in $work/runs: seq mode round iops ios busy_ticks
# fio_cpu_ms. $1 run file stem, $2 mode, $3 round, $4 busy ticks before.
seq=0
record() {
	local busy=$(($(busy_ticks) - $4)) to=$work/runs
	[[ $3 == x ]] && to=$work/costed
	jq -r --arg m "$2" --arg r "$3" --arg s "$seq" --arg b "$busy" \
		'.jobs[0] as $j | "\($s) \($m) \($r) \($j.read.iops) \($j.read.total_ios) \($b) \(($j.usr_cpu + $j.sys_cpu) / 100 * $j.job_runtime)"' \
		"$1.json" >>"$to"
	seq=$((seq + 1))
}

run_untraced() {
	local w=$work/r$seq busy
	busy=$(busy_ticks)
	"${fio_cmd[@]}" >"$w.json"
	record "$w" untraced "$1" "$busy"
}
# The traced command waits for the go, so that fio starts after the tracer
# has attached and the readings are taken around fio's run only; fio's JSON
# is renamed into place whole (an empty file is valid to jq -e).
# $1 round ("x": the costed run, bpf_stats on), $2 mode.
run_ours() {
	local w=$work/r$seq mode=$2 b=$bin ticks busy skipped= idle= sched=
	local costed=$([[ $1 == x ]] && echo 1 || echo 0)
	[[ $mode == ours-B* ]] && b=$bin_b
	[[ $mode == -* ]] && skipped=${skip[$mode]}
	[[ $mode == idle ]] && idle=1
	[[ $mode == ours-sched ]] && sched=1 skipped=sys_enter,sys_exit
	# The floor: ours-sched's set, or one group of it, called but idle.
	local others=${skip[-syscall]},${skip[-workqueue]},${skip[-sampler]}
	case $mode in
	idle-sched) sched=1 idle=1 skipped=${skip[-syscall]} ;;
	sched-idle) sched=1 idle=1 skipped=$others,${skip[-block]} ;;
	block-idle) sched=1 idle=1 skipped=$others,${skip[-sched]} ;;
	none) sched=1 idle=1 skipped='*' ;;
	esac
	# Outside the costed run, no run-time statistics: as in run's traced
	# iterations but the one it costs, and as biolatency runs (`trace`
	# would keep them on throughout, for its own cost figures).
	local nocost=1
	((costed)) && nocost=
	# The go and fio's end pass through FIFOs, each end blocked in a read:
	# a loop of `sleep 0.02` (a fork and exec 50 times a second, on both
	# sides) cost 3 us of machine CPU per I/O here with no program
	# attached (2026-12-05), which the untraced and biolatency runs, fio
	# in the foreground, never paid. Both held open read-write, so that
	# neither side's open blocks nor a write is lost.
	local go done
	mkfifo "$w.go" "$w.done"
	exec {done}<>"$w.done"
	ENCBENCH_IDS_FILE="$w.ids" ENCBENCH_BENCH_SKIP=$skipped ENCBENCH_BENCH_IDLE=$idle \
		ENCBENCH_BENCH_CALLS_BY_SCHED=$sched ENCBENCH_BENCH_NO_COST=$nocost \
		"$b" trace --dev "$dev" -q -- sh -c "
		exec 3<>$w.go; touch $w.ready; read go <&3
		$(printf '%q ' "${fio_cmd[@]}") >$w.part && mv $w.part $w.json
		echo >$w.done
		while [ ! -e $w.end ]; do sleep 0.02; done" >"$w.txt" 2>&1 &
	local tracer=$!
	await "$w.ready" "$tracer"
	awk '$1 == "prog" { print $2 }' "$w.ids" >"$w.pids"
	if ((costed)); then
		sysctl -qw kernel.bpf_stats_enabled=1
		prog_stats <"$w.pids" >"$w.before"
	fi
	ticks=$(cpu_ticks "$tracer") busy=$(busy_ticks)
	exec {go}<>"$w.go"
	echo >&"$go"
	exec {go}>&-
	read -r -t 600 -u "$done" _ && [[ -s $w.json ]] ||
		{ echo "wait-overhead: fio did not end under the tracer: $(tail -1 "$w.txt")" >&2; exit 1; }
	exec {done}>&-
	record "$w" "$mode" "$1" "$busy"
	echo $(($(cpu_ticks "$tracer") - ticks)) >"$w.ticks"
	if ((costed)); then
		prog_stats <"$w.pids" >"$w.after"
		sysctl -qw kernel.bpf_stats_enabled=0
		prog_delta "$w.before" "$w.after" >"$work/$mode.progs"
		jq '.jobs[0].read.total_ios' "$w.json" >"$work/$mode.ios"
		map_bytes <"$w.pids" >"$work/$mode.maps"
		grep VmHWM "/proc/$tracer/status" | awk '{ print $2 }' >"$work/$mode.rss"
	fi
	touch "$w.end"
	wait "$tracer"
}
run_biolatency() {
	local w=$work/r$seq tries=0 busy
	local costed=$([[ $1 == x ]] && echo 1 || echo 0)
	prog_ids >"$w.before_ids"
	biolatency -d "$name" >/dev/null 2>&1 &
	local bl=$!
	# Its request programs, once loaded (seconds under load: a fixed
	# second was not enough), then a moment to attach. Other tracers may
	# load programs of the same names meanwhile: rare, and visible as a
	# count above 2 in the table.
	until (($(prog_ids | comm -13 "$w.before_ids" - | prog_stats |
		awk '$2 ~ /^block_rq_(issue|complete)/' | tee "$w.found" | wc -l) >= 2)); do
		((++tries < 300)) || { echo "wait-overhead: biolatency did not load" >&2; exit 1; }
		sleep 0.1
	done
	sleep 0.3
	awk '{ print $1 }' "$w.found" >"$w.pids"
	if ((costed)); then
		sysctl -qw kernel.bpf_stats_enabled=1
		prog_stats <"$w.pids" >"$w.before"
	fi
	busy=$(busy_ticks)
	"${fio_cmd[@]}" >"$w.json"
	record "$w" biolatency "$1" "$busy"
	if ((costed)); then
		prog_stats <"$w.pids" >"$w.after"
		sysctl -qw kernel.bpf_stats_enabled=0
		prog_delta "$w.before" "$w.after" >"$work/biolatency.progs"
		jq '.jobs[0].read.total_ios' "$w.json" >"$work/biolatency.ios"
	fi
	kill -INT "$bl"
	wait "$bl" || true
}
run_mode() { if [[ $2 == biolatency ]]; then run_biolatency "$1"; else run_ours "$@"; fi; }

started=$(date -u '+%F %H:%M')
# Warm the page cache under the loop device and fio's binary: the first
# run is always faster or slower than the rest.
run_untraced 0
: >"$work/runs"
seq=0
run_untraced 0
n=${#modes[@]}
for ((i = 1; i <= rounds; i++)); do
	echo "wait-overhead: round $i of $rounds, $(date -u +%T)" >&2
	for ((k = 0; k < n; k++)); do
		run_mode "$i" "${modes[(i + k) % n]}"
		run_untraced "$i"
	done
done
# The costed runs (bpf_stats on): not among the ratio rounds.
for m in "${modes[@]}"; do
	case $m in ours | ours-sched | ours-B | biolatency | idle-sched) run_mode x "$m" ;; esac
done

commit=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
echo "wait-overhead: fio randread 4k QD1 psync direct on $name, ${secs}s runs, $rounds rounds ABA, $started UTC, kernel $(uname -r), commit $commit, load average $load_start -> $(cut -d' ' -f1-3 /proc/loadavg)"
[[ -n $bin_b ]] && echo "  A (ours): $bin; B (ours-B): $bin_b"
echo

# Each traced run against the mean of the untraced runs on both sides;
# per mode the median and a 95 % confidence interval from the order
# statistics (sign test: the interval between the k-th smallest and k-th
# largest, k the largest with P(Binomial(n, 1/2) < k) <= 2.5 %), and the
# same for each pair of modes' difference within a round.
awk -v modes="${modes[*]}" -v base="$base" -v hz="$(getconf CLK_TCK)" -v ab="${bin_b:+1}" '
function sorted(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
}
function median(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
# k of the sign-test interval, 0 if n is too small for 95 %.
function ci_k(n,   k, p, c) {
	p = 0.5 ^ n; c = 0
	for (k = 0; k < n; k++) {
		if (c + p > 0.025)
			return k
		c += p; p = p * (n - k) / (k + 1)
	}
	return 0
}
function show(label, a, n, unit, scale,   k) {
	sorted(a, n); k = ci_k(n)
	if (k)
		printf "  %-40s %+8.*f %s  [%+.*f, %+.*f]  n=%d\n", label, prec, scale * median(a, n), unit, prec, scale * a[k], prec, scale * a[n + 1 - k], n
	else
		printf "  %-40s %+8.*f %s  (n=%d: too few for a 95 %% interval)\n", label, prec, scale * median(a, n), unit, n
}
function copy(dst, src, n,   i) { delete dst; for (i = 1; i <= n; i++) dst[i] = src[i] }
{ mode[$1] = $2; round[$1] = $3; iops[$1] = $4; ios[$1] = $5; busy[$1] = $6 / hz; fio[$1] = $7 / 1000; last = $1 }
END {
	nm = split(modes, m, " ")
	for (s = 1; s < last; s++) {
		if (mode[s] == "untraced" || mode[s - 1] != "untraced" || mode[s + 1] != "untraced")
			continue
		x = mode[s]; r = round[s]
		u = (iops[s - 1] + iops[s + 1]) / 2
		ov[x, ++cnt[x]] = iops[s] / u - 1
		mc[x, cnt[x]] = 1e6 * (busy[s] / ios[s] - (busy[s - 1] / ios[s - 1] + busy[s + 1] / ios[s + 1]) / 2)
		fc[x, cnt[x]] = 1e6 * (fio[s] / ios[s] - (fio[s - 1] / ios[s - 1] + fio[s + 1] / ios[s + 1]) / 2)
		by_ov[x, r] = ov[x, cnt[x]]; by_mc[x, r] = mc[x, cnt[x]]; by_fc[x, r] = fc[x, cnt[x]]
	}
	for (s = 0; s <= last; s++)
		if (mode[s] == "untraced") {
			uiops[++nu] = iops[s]; umc[nu] = 1e6 * busy[s] / ios[s]; ufc[nu] = 1e6 * fio[s] / ios[s]
		}
	sorted(uiops, nu); sorted(umc, nu); sorted(ufc, nu)
	printf "untraced: median IOPS %.0f (runs from %.0f to %.0f); machine CPU %.1f us per I/O; fio CPU %.1f us per I/O\n\n", median(uiops, nu), uiops[1], uiops[nu], median(umc, nu), median(ufc, nu)
	for (f = 1; f <= 3; f++) {
		if (f == 1) { print "IOPS vs the untraced runs on both sides: median [95 % CI]"; prec = 1 }
		if (f == 2) { print "machine CPU per I/O added (/proc/stat busy, all CPUs, minus the untraced neighbours): median [95 % CI]"; prec = 2 }
		if (f == 3) { print "fio CPU per I/O added (getrusage): median [95 % CI]"; prec = 2 }
		for (i = 1; i <= nm; i++) {
			x = m[i]; delete a
			for (j = 1; j <= cnt[x]; j++)
				a[j] = f == 1 ? ov[x, j] : f == 2 ? mc[x, j] : fc[x, j]
			show(x, a, cnt[x], f == 1 ? "%" : "us", f == 1 ? 100 : 1)
		}
		# Differences within a round: each mode against the base.
		for (i = 1; i <= nm; i++) {
			y = m[i]; delete a; n = 0
			if (y == base)
				continue
			for (r = 1; ((base, r) in by_ov); r++)
				if ((y, r) in by_ov)
					a[++n] = f == 1 ? by_ov[base, r] - by_ov[y, r] : f == 2 ? by_mc[base, r] - by_mc[y, r] : by_fc[base, r] - by_fc[y, r]
			if (y == "ours-B")
				for (j = 1; j <= n; j++) a[j] = -a[j]
			label = y == "ours-B" ? "ours-B minus ours (B - A)" : y ~ /^-/ ? "group " substr(y, 2) " (ours - ours" y ")" : y == "idle" ? "their work (ours - idle)" : y ~ /idle$/ ? "their work (" base " - " y ")" : base " minus " y
			show(label, a, n, f == 1 ? "points" : "us", f == 1 ? 100 : 1)
		}
		print ""
	}
}' "$work/runs"

echo "BPF programs during fio's run (bpf_stats on, a run of its own): ns per run, runs per I/O, ns per I/O"
table() {
	[[ -s $work/$1.progs ]] || return 0
	awk -v who="$1" -v ios="$(cat "$work/$1.ios")" '
		{ ns[$1] += $2; n[$1] += $3 }
		END {
			for (p in n) {
				printf "  %-14s %-28s %6.0f ns %7.2f %7.0f\n", who, p,
					ns[p] / n[p], n[p] / ios, ns[p] / ios
				all += ns[p]
			}
			printf "  %-14s %-28s %9s %7s %7.0f\n", who, "(all)", "", "", all / ios
		}' "$work/$1.progs" | sort -k1,1 -k2,2
}
for m in ours ours-sched ours-B biolatency idle-sched; do table "$m"; done
echo
for m in ours $( ((${SCHED:-1})) && echo ours-sched) ${bin_b:+ours-B}; do
	echo "$m: RSS high-water $(cat "$work/$m.rss") KiB and BPF maps memlock $(cat "$work/$m.maps") bytes (its costed run);" \
		"its CPU time during fio's runs: $(awk -v m="$m" '$2 == m { print $1 }' "$work/runs" |
			while read -r s; do cat "$work/r$s.ticks"; done |
			awk -v hz="$(getconf CLK_TCK)" '{ s += $1 } END { printf "%.0f ms", 1000 * s / hz }') in all"
done
