#!/usr/bin/env bash
# What attribution costs: the same dd workload on the same kind of target,
# with and without the BPF tracer, alternated in one session (ABBA ABBA:
# each side goes first equally often) so that the shared machine's noise
# and any order effect fall on both sides alike. Prints the ratio
# traced/untraced of the median per-run time for each metric.
#
# With COMPARE=timeline the two sides are tracing with --timeline (its
# window as long as the whole phase: the worst case) and tracing alone.
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
declare -A flags=([trace]="" [no-trace]="--no-trace" [timeline]="--timeline=60")
bin=./encbench-trace
[[ -x $bin ]] || { echo "trace-overhead: build first (make)" >&2; exit 2; }
out=$(mktemp -d /tmp/encbench-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT

for ((i = 1; i <= pairs; i++)); do
	order=("$a" "$b")
	((i % 2)) || order=("$b" "$a")
	for mode in "${order[@]}"; do
		# shellcheck disable=SC2086 # the flags are words
		"$bin" run -t "$target" -s "$size" -n "$runs" -q ${flags[$mode]} \
			-o "$out/$mode-$i" >/dev/null 2>&1
	done
done

# Every per-run sample of a metric, across all pairs, for one mode.
samples() {
	jq -r --arg m "$2" '.results[] | select(.metric == $m) | .samples[]' \
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
