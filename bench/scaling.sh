#!/usr/bin/env bash
# Does the tracer's memory stay flat? `encbench-trace trace` (every layer
# and the wait attribution, attached throughout) around fio 4 KiB random
# reads (psync, O_DIRECT) on a loop device, for a short and a long run and
# for 1 and 64 fio jobs. For each case, the tracer's peak resident set
# (VmHWM) and the memory of the BPF maps it holds (the memlock of each map
# fd in /proc/PID/fdinfo, the largest sum seen, polled every second):
# both must stay within the goals (issue 20: 32 MiB and 8 MiB) and
# should not grow with time or jobs.
#
#   sudo bench/scaling.sh                 # CASES="10:1 600:1 10:64", ~11 min
#   sudo CASES="10:1 60:1 10:64" bench/scaling.sh
#       each case is SECONDS:JOBS
set -euo pipefail
cd "$(dirname "$0")/.."

cases=${CASES:-"10:1 600:1 10:64"}
bin=${ENCBENCH_BIN:-$PWD/encbench-trace}
[[ -x $bin ]] || { echo "scaling: no tracer at $bin (make first)" >&2; exit 2; }
command -v fio >/dev/null || { echo "scaling: needs fio (scripts/install-deps.sh)" >&2; exit 2; }

work=$(mktemp -d /var/tmp/encbench-scaling.XXXXXX)
dev=
cleanup() {
	[[ -n $dev ]] && losetup -d "$dev"
	rm -rf "$work"
}
trap cleanup EXIT
truncate -s 256M "$work/img"
dev=$(losetup -f --show "$work/img")

# "maps bytes" of the BPF maps pid $1 holds (its map fds' memlock). While
# the skeleton loads (or loads again without an optional program) and
# while it is torn down, only some exist: the reading with the most maps
# is the tracer's full set.
map_bytes() {
	local sum=0 n=0 f m
	for f in /proc/"$1"/fdinfo/*; do
		m=$(awk '$1 == "map_type:" { map = 1 } $1 == "memlock:" { ml = $2 }
			END { if (map) print ml + 0 }' "$f" 2>/dev/null) || continue
		[[ -n $m ]] || continue
		sum=$((sum + m)) n=$((n + 1))
	done
	echo "$n $sum"
}

echo "scaling: encbench-trace trace --dev $dev -- fio randread 4k psync direct, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %H:%M') UTC"
printf '%8s %5s %10s %6s %10s %12s %6s\n' seconds jobs "rss MiB" maps "maps MiB" ios "exit"
for c in $cases; do
	secs=${c%%:*} jobs=${c##*:}
	"$bin" trace --dev "$dev" -q -o "$work/out-$secs-$jobs" -- \
		fio --name=randread --filename="$dev" --rw=randread --bs=4k \
		--ioengine=psync --iodepth=1 --direct=1 --time_based \
		--runtime="$secs" --numjobs="$jobs" --group_reporting \
		--output-format=json --output="$work/fio-$secs-$jobs.json" \
		>"$work/trace-$secs-$jobs.txt" 2>&1 &
	pid=$!
	hwm=0 maps=0 nmaps=0
	while kill -0 "$pid" 2>/dev/null; do
		h=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
		[[ -n $h ]] && hwm=$h
		read -r n m < <(map_bytes "$pid")
		if ((n > nmaps || (n == nmaps && m > maps))); then
			nmaps=$n maps=$m
		fi
		sleep 0.5
	done
	rc=0
	wait "$pid" || rc=$?
	ios=$(jq '.jobs[0].read.total_ios' "$work/fio-$secs-$jobs.json" 2>/dev/null || echo "?")
	printf '%8s %5s %10.1f %6s %10.2f %12s %6s\n' "$secs" "$jobs" \
		"$(awk -v k="$hwm" 'BEGIN { print k / 1024 }')" "$nmaps" \
		"$(awk -v b="$maps" 'BEGIN { print b / 1048576 }')" "$ios" "$rc"
done
