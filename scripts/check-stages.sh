#!/usr/bin/env bash
# make check's stages: NAME COMMAND pairs, run in order, each whatever
# the ones before it did (a failed prove run once kept the sanitizers and
# the fuzzers from running at all), each timed. At the end, one line per
# stage and the exit status: 0 when every stage passed, else 1 after a
# line listing each failed stage.
# Called from a recursive make line: the stages' own makes share its
# jobserver. Under `make -n` (ENCBENCH_CHECK_DRY set) only make stages run
# (with -n, from MAKEFLAGS); the others are printed.
set -uo pipefail

if (($# == 0 || $# % 2)); then
	echo "usage: $0 NAME COMMAND [NAME COMMAND ...]" >&2
	exit 2
fi
names=() statuses=() times=() failed=()
while (($#)); do
	name=$1 cmd=$2
	shift 2
	if [[ -n ${ENCBENCH_CHECK_DRY:-} ]]; then
		echo "$cmd"
		[[ $cmd == "${MAKE:-make} "* ]] && bash -c "$cmd"
		continue
	fi
	echo "== make check: $name" >&2
	start=$SECONDS
	bash -c "$cmd"
	status=$?
	names+=("$name") statuses+=("$status") times+=($((SECONDS - start)))
	((status == 0)) || failed+=("$name")
done
[[ -n ${ENCBENCH_CHECK_DRY:-} ]] && exit 0
echo "== make check: stages" >&2
for i in "${!names[@]}"; do
	if ((statuses[i] == 0)); then
		word=passed
	else
		word="FAILED (exit ${statuses[i]})"
	fi
	printf '   %-24s %s, %d s\n' "${names[i]}" "$word" "${times[i]}" >&2
done
if ((${#failed[@]})); then
	joined=$(printf '%s, ' "${failed[@]}")
	echo "make check: FAILED: ${#failed[@]} of ${#names[@]} stages: ${joined%, }" >&2
	exit 1
fi
echo "make check: all ${#names[@]} stages passed" >&2
