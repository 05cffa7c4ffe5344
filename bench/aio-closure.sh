#!/usr/bin/env bash
# Async I/O followed one by one: do an I/O's layers add up to its
# completion latency (by construction: bpf/aio_io.bpf.h cuts its time at
# each layer it enters), and does the I/Os' mean agree with fio's own clat
# (which the program did not compute)? fio's QD4 random 4 KiB io_uring reads
# of a 1 MiB file on fscrypt, test_aio's page cache case: most reads are
# hits, a few hundred misses an iteration are followed through the layers.
# RUNS runs (default 10), one after the other; LOAD=1 runs a second copy of
# the same loop beside it (the load under which CI's one failure, at
# c9f0c4d, was reproduced: loop device stalls of several seconds).
#
#   sudo RUNS=10 LOAD=1 bench/aio-closure.sh
#
# Per run: I/Os followed, dropped, layers + reaping minus latency (ns per
# I/O), and fio_diff_pct (all I/Os' mean against fio's clat of the traced
# iterations). Measures, does not judge.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v jq >/dev/null || { echo "aio-closure: needs jq" >&2; exit 2; }
bin=${ENCBENCH_BIN:-$PWD/encbench-trace}
runs=${RUNS:-10}
tmp=$(mktemp -d /var/tmp/encbench-aioclosure.XXXXXX)
load_pid=''
# The load loop stops at the stop file, its run cut short by an interrupt
# (which makes it tear down what it built); then the folder goes. Not a
# kill of the loop: a run it had just forked would go on alone.
cleanup() {
	if [[ -n $load_pid ]]; then
		touch "$tmp/stop"
		pkill -INT -f -- "-o $tmp/load" || true
		wait "$load_pid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# One run into folder $1; prints its figures.
one() {
	"$bin" run -q -o "$1" -w fio -t fscrypt -n 1 --fio-rw randread \
		--fio-bs 4k --fio-engine "${ENGINE:-io_uring}" --fio-iodepth 4 \
		--fio-runtime 3 --fio-size 1M --size 128M >/dev/null 2>"$1.err" ||
		{ echo "run failed: $(tail -n 1 "$1.err")"; return; }
	jq -r '.attribution[] | select(.target == "fscrypt" and .op == "read") |
		.aio | [.ios, .dropped,
			((.reap_ns + ([.clat_layers_ns[]] | add) - .clat_ns) | . * 1000 | round / 1000),
			(.fio_diff_pct | . * 10 | round / 10)] | @tsv' "$1/results.json"
}

if [[ ${LOAD:-0} == 1 ]]; then
	(for ((i = 0; ; i++)); do
		[[ -e $tmp/stop ]] && exit 0
		one "$tmp/load$i" >/dev/null
		rm -rf "$tmp/load$i"*
	done) &
	load_pid=$!
fi
printf 'run\tios\tdropped\tlayers-clat_ns\tfio_diff_pct\n'
for ((i = 1; i <= runs; i++)); do
	printf '%d\t%s\n' "$i" "$(one "$tmp/r$i")"
	rm -rf "$tmp/r$i"*
done
