#!/usr/bin/env bash
# Are the verdicts the same every time on this machine? Issue 21 item 6:
# the same top cause and the same causes over the 15 % bar in 10 of 10
# runs, idle and beside one nice-0 busy loop.
#
# Runs one configuration RUNS times (each into its own folder under OUT)
# and compares the verdicts of every (target, workload, job, op) that is
# a headline. A verdict's causes are read from its summary, in the order
# it names them (the first is the top cause), by the component each
# phrase names; the CPU holders' list ("the CPUs held by ...") is left
# out, since who else ran is not a cause, and so is the second label of
# a near tie ("X-bound and Y-bound (nearly tied)"). Hysteresis: a cause one run
# names and another does not still agrees when that other run lists it
# in its "near the 15 % bar" evidence (verdict.c's CAUSE_NEAR, 12 %);
# and a top cause one run names first agrees with another's when either
# run says the two are "nearly tied for the top cause" (CAUSE_TIE, within
# 10 points of each other).
#
#   sudo bench/stability.sh default       # `run` as make run does
#   sudo bench/stability.sh fio           # the fio set on plain, fscrypt
#   sudo bench/stability.sh contention    # plain dd, two nice -20 loops
#   scripts/vm/run --kernel 6.1 --mem 3G --timeout 3600 -- \
#       env RUNS=3 bench/stability.sh luks2   # plain and LUKS2 (dm-crypt:
#                                         # not in this host's kernel)
#   RUNS=10 OUT=/var/tmp/stab BUSY=1 ...  # BUSY=1: one nice-0 busy loop
#                                         # beside every run
#   FROM=/var/tmp/stab OUT=/var/tmp/re ...  # no runs: the runs in FROM
#                                         # (1..RUNS) re-analysed from their
#                                         # snapshots by this program
#
# Prints, per verdict, "K of N agree" with the reference (the most common
# top cause and named set), then every run that does not, with its
# summary. Exit status 0 whatever the agreement: it measures, it does not
# judge (the figures go into BENCHMARKS.md with the date and the load).
set -euo pipefail
# One compound command, read whole before it runs: bash reads a script as
# it goes, and a series runs for hours -- an edit to this file meanwhile
# had the analysis at its end parse garbage (2026-12-06).
{
cd "$(dirname "$0")/.."

conf=${1:-default}
runs=${RUNS:-10} out=${OUT:-/var/tmp/encbench-stability-$conf}
bin=${ENCBENCH_BIN:-$PWD/encbench-trace}
[[ -x $bin ]] || { echo "stability: no program at $bin (make first)" >&2; exit 2; }
command -v jq >/dev/null || { echo "stability: needs jq (scripts/install-deps.sh check)" >&2; exit 2; }
case $conf in
default) args=() ;;
fio) args=(-w fio -t "plain,fscrypt") ;;
# test_wait's case: 16 MiB, two iterations (the reader's ~1 % of a CPU
# makes the default size take minutes).
contention) args=(-w dd -t plain --size 16M --runs 2) ;;
luks2) args=(-t "plain,luks2") ;;
*) echo "stability: unknown configuration '$conf' (default, fio, contention, luks2)" >&2; exit 2 ;;
esac
if [[ -e $out ]] && [[ -n $(ls -A "$out") ]]; then
	echo "stability: $out exists and is not empty (OUT= another folder)" >&2
	exit 2
fi
mkdir -p "$out"

loops=()
stop_loops() {
	((${#loops[@]})) && kill "${loops[@]}" 2>/dev/null
	loops=()
}
trap stop_loops EXIT
if [[ -z ${FROM:-} && $conf == contention ]]; then
	# One loop pinned to each CPU at nice -20: the reader gets ~1 % of a
	# CPU (BENCHMARKS.md, issue 21), so CPU contention is the cause.
	for c in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$c" nice -n -20 sh -c 'while :; do :; done' &
		loops+=($!)
	done
fi
if [[ -z ${FROM:-} && ${BUSY:-0} == 1 ]]; then
	nice -n 0 sh -c 'while :; do :; done' &
	loops+=($!)
fi

if [[ -n ${FROM:-} ]]; then
	echo "stability: $conf, the $runs runs in $FROM re-analysed into $out"
	for i in $(seq 1 "$runs"); do
		"$bin" report --reanalyze -o "$out/$i" "$FROM/$i" >"$out/$i.log" 2>&1 ||
			{ echo "stability: re-analysis of $FROM/$i failed (exit $?): $out/$i.log" >&2; exit 1; }
	done
else
	echo "stability: $conf, $runs runs into $out$([[ ${BUSY:-0} == 1 ]] && echo ', one nice-0 busy loop beside'), $(date -u '+%F %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
	for i in $(seq 1 "$runs"); do
		"$bin" run -q -o "$out/$i" "${args[@]}" >"$out/$i.log" 2>&1 ||
			{ echo "stability: run $i failed (exit $?): $out/$i.log" >&2; exit 1; }
	done
fi
stop_loops
echo "stability: done at $(date -u '+%H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"

# shellcheck disable=SC2016 # jq's own $variables
# Each verdict as one line: key <TAB> top <TAB> named,... <TAB> near,...
# <TAB> tied,... <TAB> summary
# The phrases, in the order tried at each place: the first that matches
# a span names its component.
causes='
def cause_re:
  "(?<c>(?:de|en)cryption in the (?:reader|caller)'"'"'s own context|cached, not a disk figure|writeback|waiting for dm-crypt'"'"'s work items|decryption|encryption|device-mapper|block.queue|the device|device-bound|file ?system|idle CPUs? (?:to )?wak|CPU contention|reaping)";
def key(p):
  if p | test("own context") then "own-context-crypto"
  elif p | test("cached") then "page-cache"
  elif p | test("writeback") then "writeback"
  elif p | test("dm-crypt") then "dm-crypt-work"
  elif p | test("cryption") then "crypto"
  elif p | test("device-mapper") then "dm"
  elif p | test("block") then "blk-queue"
  elif p | test("device") then "device"
  elif p | test("file") then "fs"
  elif p | test("idle") then "idle-wake"
  elif p | test("CPU") then "cpu"
  else "reap" end;
def keys_of(s): [s | match(cause_re; "g") | key(.captures[0].string)]
  | reduce .[] as $k ([]; if index([$k]) then . else . + [$k] end);
.verdicts[] | select(.headline)
| (.summary | sub("; the CPUs held by .*"; "")
  | sub(" and [^:]* \\(nearly tied\\)"; "")) as $s
| ([.evidence[] | select(test("^near the [0-9]+ % bar"))] | join(" ")) as $near
| ([.evidence[] | select(test("^nearly tied for the top cause"))] | join(" ")) as $tie
| [([.target, .workload, (.job // ""), .op] | join("/")),
   (keys_of($s) | .[0] // "none"),
   (keys_of($s) | join(",")),
   (keys_of($near) | join(",")),
   (keys_of($tie) | join(",")),
   .summary] | @tsv'
for i in $(seq 1 "$runs"); do
	jq -r "$causes" "$out/$i/results.json" | sed "s/^/$i\t/"
done >"$out/verdicts.tsv"

# Per verdict: the reference is the most common (top, named set); a run
# agrees when its top is the reference's (or either of the two says the
# other's top is nearly tied with its own) and every cause in either
# named set but not both is near the bar in the run that lacks it.
awk -F'\t' -v runs="$runs" '
function has(list, k,   n, a, i) { n = split(list, a, ","); for (i = 1; i <= n; i++) if (a[i] == k) return 1; return 0 }
{ key = $2; n[key]++; run[key, n[key]] = $1; top[key, n[key]] = $3; named[key, n[key]] = $4
  near[key, n[key]] = $5; tie[key, n[key]] = $6; summ[key, n[key]] = $7
  sig = $3 "|" $4; cnt[key, sig]++
  if (cnt[key, sig] > best[key]) { best[key] = cnt[key, sig]; ref[key] = n[key] }
  if (!(key in seen)) { seen[key] = 1; order[++nk] = key } }
END {
  for (o = 1; o <= nk; o++) {
    key = order[o]; r = ref[key]; ok = 0; bad = ""
    for (j = 1; j <= n[key]; j++) {
      agree = top[key, j] == top[key, r] || has(tie[key, j], top[key, r]) ||
        has(tie[key, r], top[key, j])
      m = split(named[key, r] "," named[key, j], u, ",")
      for (i = 1; i <= m && agree; i++) {
        if (u[i] == "") continue
        inr = has(named[key, r], u[i]); inj = has(named[key, j], u[i])
        if (inr && !inj && !has(near[key, j], u[i])) agree = 0
        if (inj && !inr && !has(near[key, r], u[i])) agree = 0
      }
      if (agree) ok++; else bad = bad sprintf("    run %s: top %s, named %s: %s\n", run[key, j], top[key, j], named[key, j], summ[key, j])
    }
    printf "%s: %d of %d agree (top %s; named %s)%s\n", key, ok, runs, top[key, r], named[key, r], n[key] < runs ? sprintf("; in only %d runs", n[key]) : ""
    printf "%s", bad
  } }' "$out/verdicts.tsv"
exit
}
