#!/usr/bin/env bash
# What attribution costs: the same dd workload on the same kind of target,
# traced (the --trace-runs iterations of a run) and with --no-trace,
# alternated in one session (ABBA ABBA:
# each side goes first equally often) so that the shared machine's noise
# and any order effect fall on both sides alike. Prints the ratio
# traced/untraced of the median per-run time for each metric.
#
# With COMPARE=timeline the two sides are tracing with --timeline (its
# window as long as the whole phase: the worst case) and tracing alone.
# A ratio of medians cannot show a cost smaller than the machine's noise,
# so the timeline side also counts what its BPF programs cost the kernel:
# kernel.bpf_stats_enabled is on for those runs, and the run_time_ns of
# every tl_* program (known by the ids ENCBENCH_IDS_FILE records) is read
# while it is loaded and divided by the runs' timed seconds.
#
#   sudo bench/trace-overhead.sh            # PAIRS=4 SIZE=64M RUNS=5 TARGET=plain
#   sudo PAIRS=6 TARGET=fscrypt bench/trace-overhead.sh
#   sudo COMPARE=timeline bench/trace-overhead.sh
set -euo pipefail
cd "$(dirname "$0")/.."

pairs=${PAIRS:-4} size=${SIZE:-64M} runs=${RUNS:-5} target=${TARGET:-plain}
compare=${COMPARE:-trace}
# The side under test ($a) and the reference ($b), and the flags of each.
case $compare in
trace) a=trace b=no-trace ;;
timeline) a=timeline b=trace ;;
*) echo "trace-overhead: COMPARE is trace or timeline" >&2; exit 2 ;;
esac
# A run's figures are its untraced iterations (issue 20): the traced side
# is its --trace-runs iterations (traced_samples), after one untraced.
declare -A flags=([trace]="-n 1 --trace-runs $runs" [no-trace]="-n $runs --no-trace"
	[timeline]="-n 1 --trace-runs $runs --timeline=60")
declare -A field=([trace]=traced_samples [no-trace]=samples [timeline]=traced_samples)
bin=./encbench-trace
[[ -x $bin ]] || { echo "trace-overhead: build first (make)" >&2; exit 2; }
out=$(mktemp -d /tmp/encbench-bench.XXXXXX)
stats_was=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -qw kernel.bpf_stats_enabled="$stats_was"; [[ -n ${KEEP:-} ]] || rm -rf "$out"' EXIT

# "id name run_time_ns run_cnt" of each tl_* program id in the ids file $1,
# polled every 0.2 s until pid $2 ends and appended to $1.polls (a phase's
# programs are gone when the phase ends; run_time_ns only grows, so the
# largest reading of an id is its total, short of its last 0.2 s).
poll_timeline_cost() {
	local ids=$1 pid=$2
	while kill -0 "$pid" 2>/dev/null; do
		[[ -s $ids ]] && bpftool prog show --json 2>/dev/null | jq -r \
			--argjson ours "$(awk '$1 == "prog" { print $2 }' "$ids" | jq -s .)" \
			'.[] | select(.id as $i | $ours | index($i)) |
			select((.name // "") | startswith("tl_")) |
			"\(.id) \(.name) \(.run_time_ns // 0) \(.run_cnt // 0)"' \
			>>"$ids.polls"
		sleep 0.2
	done
}

for ((i = 1; i <= pairs; i++)); do
	order=("$a" "$b")
	((i % 2)) || order=("$b" "$a")
	for mode in "${order[@]}"; do
		costed=$([[ $mode == timeline ]] && echo 1 || echo 0)
		sysctl -qw kernel.bpf_stats_enabled="$costed"
		# shellcheck disable=SC2086 # the flags are words
		ENCBENCH_IDS_FILE="$out/$mode-$i.ids" "$bin" run -t "$target" \
			-s "$size" -q ${flags[$mode]} \
			-o "$out/$mode-$i" >/dev/null 2>&1 &
		run_pid=$!
		((costed)) && poll_timeline_cost "$out/$mode-$i.ids" "$run_pid" &
		wait "$run_pid"
		wait
		sysctl -qw kernel.bpf_stats_enabled="$stats_was"
	done
done

# Every per-run sample of a metric, across all pairs, for one mode.
samples() {
	jq -r --arg m "$2" --arg f "${field[$1]}" \
		'.results[] | select(.metric == $m) | .[$f][]' \
		"$out"/"$1"-*/results.json
}
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo "trace-overhead: $a vs $b, target $target, dd $size x $runs runs, $pairs ABBA pairs, $(date -u +%F)"
printf '%-10s %12s %12s %8s\n' metric "$a" "$b" ratio
for m in $(jq -r '.results[].metric' "$out/$a-1/results.json"); do
	t=$(samples "$a" "$m" | median)
	u=$(samples "$b" "$m" | median)
	printf '%-10s %12.4f %12.4f %8.3f\n' "$m" "$t" "$u" \
		"$(awk -v t="$t" -v u="$u" 'BEGIN { print t / u }')"
done

[[ $compare == timeline ]] || exit 0
# Timed seconds of every run of every timeline pair, and the tl_* programs'
# kernel time over them (the programs also run outside the timed phases,
# on every system call of the machine, so this is an upper bound).
timed=$(jq -s '[.[].results[] | select(.metric | endswith("_s")) |
	.traced_samples[]] | add' "$out"/timeline-*/results.json)
awk '$3 >= ns[$1] { ns[$1] = $3; line[$1] = $0 } END { for (i in line) print line[i] }' \
	"$out"/timeline-*.ids.polls >"$out/cost"
bpf_ns=$(awk '{ ns += $3 } END { print ns + 0 }' "$out/cost")
echo
printf 'timeline BPF programs: %.1f ms of CPU over %.2f s of timed phases = %.3f %% of one CPU (upper bound)\n' \
	"$(awk -v n="$bpf_ns" 'BEGIN { print n / 1e6 }')" "$timed" \
	"$(awk -v n="$bpf_ns" -v t="$timed" 'BEGIN { print 100 * n / 1e9 / t }')"
awk '{ ns[$2] += $3; c[$2] += $4 } END { for (p in ns) if (c[p]) printf "  %-16s %6.0f ns per run  %d runs\n", p, ns[p] / c[p], c[p] }' \
	"$out/cost" | sort
