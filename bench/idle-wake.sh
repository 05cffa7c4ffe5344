#!/usr/bin/env bash
# The caller's run-queue wait split into waiting for an idle CPU to wake
# and waiting behind a task, against an independent bpftrace script of the
# scheduler's own tracepoints. Both watch the same fio command (4 KiB
# random reads, psync, QD1, direct, on a `setup` plain target):
# `encbench-trace trace -- fio ...` (results.json wait.ns.cpu-wait and
# wait.cpu_wait_idle_ns; the loop worker's workers.device.runq_ns and
# runq_idle_ns), and bpftrace timing every runnable interval of fio's
# threads (from sched_waking, or from a switch-out while still
# TASK_RUNNING, to the switch-in) and of the loop workers (the kworkers
# running loop_workfn / loop_rootcg_workfn), split by whether the CPU left
# its idle task (prev_pid 0) for it. From sched_waking, as the program
# times it: sched_wakeup fires on the wakee's CPU once it has taken the
# IPI, after the idle CPU woke, and timed from there bpftrace saw 64 % of
# fio's wait beside a busy loop as idle, where from sched_waking 79 %.
# The program counts only inside fio's reads (and the loop worker's waits
# before its items), bpftrace the whole command: compare the shares.
#
# Idle, then beside one nice-0 busy loop (BUSY=0 skips that).
#
#   sudo bench/idle-wake.sh
#
# Needs bpftrace (apt-get install bpftrace). Measures, does not judge.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v bpftrace >/dev/null ||
	{ echo "idle-wake: needs bpftrace (apt-get install bpftrace)" >&2; exit 2; }
command -v jq >/dev/null || { echo "idle-wake: needs jq" >&2; exit 2; }
bin=${ENCBENCH_BIN:-$PWD/encbench-trace}
tmp=$(mktemp -d /var/tmp/encbench-idlewake.XXXXXX)
bt_pid="" busy="" mounted="" up=""
cleanup() {
	[[ -n $bt_pid ]] && kill "$bt_pid" 2>/dev/null && wait "$bt_pid" 2>/dev/null
	[[ -n $busy ]] && kill "$busy" 2>/dev/null
	[[ -n $up ]] && "$bin" teardown >/dev/null 2>&1
	[[ -n $mounted ]] && umount /sys/kernel/tracing
	rm -rf "$tmp"
}
trap cleanup EXIT
# bpftrace reads the tracepoints' formats there.
if ! mountpoint -q /sys/kernel/tracing; then
	mount -t tracefs nodev /sys/kernel/tracing && mounted=1
fi

cat >"$tmp/probe.bt" <<'EOF'
tracepoint:workqueue:workqueue_execute_start
/args->function == kaddr("loop_workfn") || args->function == kaddr("loop_rootcg_workfn")/
{ @loopw[tid] = 1; }
tracepoint:sched:sched_waking
/args->comm == "fio" || @loopw[args->pid]/
{ @since[args->pid] = nsecs; }
tracepoint:sched:sched_switch
{
	/* Preempted (still TASK_RUNNING): runnable from now. */
	if (args->prev_state == 0 && (args->prev_comm == "fio" || @loopw[args->prev_pid])) {
		@since[args->prev_pid] = nsecs;
	}
	if (@since[args->next_pid]) {
		$d = nsecs - @since[args->next_pid];
		$who = @loopw[args->next_pid] ? "loop" : "fio";
		if (args->prev_pid == 0) { @idle[$who] = sum($d); } else { @busy[$who] = sum($d); }
		delete(@since[args->next_pid]);
	}
}
END { clear(@since); clear(@loopw); }
EOF

mnt=$("$bin" setup -q -t plain 2>/dev/null | awk '$1 == "plain" { print $2 }')
up=1
[[ -d $mnt ]] || { echo "idle-wake: setup gave no plain target" >&2; exit 1; }
dd if=/dev/urandom of="$mnt/f" bs=1M count=256 oflag=direct status=none

one() {
	local name=$1 out=$tmp/$1
	bpftrace -q "$tmp/probe.bt" >"$tmp/$name.out" 2>&1 &
	bt_pid=$!
	sleep 3
	kill -0 "$bt_pid" 2>/dev/null ||
		{ echo "idle-wake: bpftrace ended: $(cat "$tmp/$name.out")" >&2; exit 1; }
	"$bin" trace -q -o "$out" --path "$mnt" -- fio --name=r --filename="$mnt/f" \
		--rw=randread --bs=4k --size=256M --runtime=10 --time_based \
		--ioengine=psync --iodepth=1 --direct=1 --output=/dev/null \
		>"$tmp/$name.log" 2>&1
	kill -INT "$bt_pid"
	wait "$bt_pid" || true
	bt_pid=""
	echo "== $name ($(date -u '+%F %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg))"
	jq -r '.attribution[] | select(.op == "read") | .wait |
		def pct(a; b): if b > 0 then (100 * a / b | floor) else 0 end;
		"program:  fio runnable \(.ns["cpu-wait"] / 1e6 | floor) ms, for an idle CPU \(pct(.cpu_wait_idle_ns // 0; .ns["cpu-wait"])) %; loop worker \(.workers.device.runq_ns / 1e6 | floor) ms, for an idle CPU \(pct(.workers.device.runq_idle_ns // 0; .workers.device.runq_ns)) % (in fio'"'"'s reads)"' \
		"$out/results.json"
	awk '/^@(idle|busy)\[/ { k = $0; sub(/^@/, "", k); split(k, p, /[\[\]:]+/); v[p[1], p[2]] = $NF }
	     END { for (w = 1; w <= 2; w++) { n = w == 1 ? "fio" : "loop"; t = v["idle", n] + v["busy", n]
		printf "%s%s runnable %d ms, for an idle CPU %d %%", w == 1 ? "bpftrace: " : "; ", n == "loop" ? "loop worker" : n,
			t / 1e6, t ? 100 * v["idle", n] / t : 0 }
		print " (the whole command)" }' "$tmp/$name.out"
	jq -r '.verdicts[] | select(.op == "read" and .headline) | "verdict:  \(.summary)"' "$out/results.json"
}

one idle
if [[ ${BUSY:-1} == 1 ]]; then
	nice -n 0 sh -c 'while :; do :; done' &
	busy=$!
	one busy
fi
