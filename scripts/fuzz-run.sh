#!/usr/bin/env bash
# Run the libFuzzer targets: first every kept finding
# (tests/fuzz/regressions/<target>/, each must now pass), then fuzz each
# target for its share of SECONDS from the seed corpus of real outputs
# (tests/fuzz/corpus/<target>/). One line per target; on a finding, the
# log's tail and the input that caused it (build/fuzz/crash-*): fix the
# code, then keep the input in tests/fuzz/regressions/<target>/.
set -euo pipefail
shopt -s nullglob

seconds=${1:-60}
build=build/fuzz
targets=(results args snapshot)
share=$((seconds / ${#targets[@]}))
((share > 0)) || share=1
status=0

# The last "#N" libFuzzer printed: inputs run so far.
runs() {
	grep -o '^#[0-9][0-9]*' "$1" | tail -n 1 | tr -d '#'
}

for t in "${targets[@]}"; do
	bin=$build/fuzz_$t
	log=$build/fuzz_$t.log
	work=$build/corpus-$t
	mkdir -p "$work"
	kept=(tests/fuzz/regressions/"$t"/*)
	if ((${#kept[@]})) && ! "$bin" "${kept[@]}" >"$log" 2>&1; then
		echo "fuzz: $t: a kept finding fails again:" >&2
		tail -n 30 "$log" >&2
		status=1
		continue
	fi
	if "$bin" -max_total_time="$share" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$build/" "$work" tests/fuzz/corpus/"$t" \
		>"$log" 2>&1; then
		echo "fuzz: $t: ${share} s, ${#kept[@]} kept findings pass;" \
			"$(runs "$log") runs, no finding"
	else
		echo "fuzz: $t: finding after $(runs "$log") runs:" >&2
		tail -n 30 "$log" >&2
		status=1
	fi
done
exit $status
