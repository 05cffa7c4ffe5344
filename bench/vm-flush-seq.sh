#!/usr/bin/env bash
# A journal commit's flush sequence under dm-delay, seen twice: by an
# independent bpftrace script of the block layer (each request's insert
# into the flush machinery, issue, completions with their bytes, the dm
# device's bios, who wakes jbd2 and dd) and by `encbench-trace trace` of
# the same 4 KiB overwrite with fsync (its sync verdict and the journal's
# blocked time by layer, results.json wait.unwoken.blocked_ns). Stack:
# ext4 on dm-delay (writes and flushes held 80 ms) on a loop device.
# Written for issue 21's 6.12 gap: on 6.1 the program put the commit's
# holds in dm (about 245 ms of dm, 6 of device), on 6.12 two of its three
# holds in device (82 / 167) while the block layer did the same on both
# kernels; the cause, RQF_FLUSH_SEQ's bit misread on 6.12, was fixed the
# same day (2026-12-04, BENCHMARKS.md).
#
#   bench/vm-flush-seq.sh               # on the host: boots the 6.12 guest
#   ENCBENCH_VM_KERNEL=6.1 ...          # the 6.1 guest
#
# Needs bpftrace (apt-get install bpftrace). Measures, does not judge.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -z "${ENCBENCH_VM:-}" ]]; then
	command -v bpftrace >/dev/null ||
		{ echo "vm-flush-seq: needs bpftrace (apt-get install bpftrace)" >&2; exit 2; }
	exec scripts/vm/run --kernel "${ENCBENCH_VM_KERNEL:-6.12}" --timeout 900 \
		-- bash "$0"
fi

bin=$PWD/encbench-trace
tmp=$(mktemp -d /var/tmp/encbench-vmflush.XXXXXX)
loop=""
cleanup() {
	umount "$tmp/m" 2>/dev/null || true
	dmsetup remove vmflush-delay 2>/dev/null || true
	[[ -n $loop ]] && losetup -d "$loop" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

truncate -s 64M "$tmp/img"
loop=$(losetup -f --show "$tmp/img")
sectors=$(blockdev --getsz "$loop")
dmsetup create vmflush-delay --table "0 $sectors delay $loop 0 0 $loop 0 80"
# No lazy init: its writes would join the commit's.
mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 /dev/mapper/vmflush-delay
mkdir "$tmp/m"
mount /dev/mapper/vmflush-delay "$tmp/m"
dd if=/dev/zero of="$tmp/m/f" bs=1M count=1 conv=fsync status=none
jbd2=$(basename "$(readlink -f /dev/mapper/vmflush-delay)")
echo "vm-flush-seq: kernel $(uname -r), ext4 on dm-delay ($jbd2) on $loop"

cat >"$tmp/seq.bt" <<EOF
kprobe:blk_insert_flush { \$rq = (struct request *)arg0;
  if (\$rq->q->disk->major == 7) { printf("%llu [%s] insert_flush %llx op %x len %u\n",
    nsecs / 1000, comm, arg0, \$rq->cmd_flags, \$rq->__data_len); } }
kprobe:blk_mq_start_request { \$rq = (struct request *)arg0;
  if (\$rq->q->disk->major == 7) { printf("%llu [%s] issue %llx op %x rqf %x len %u\n",
    nsecs / 1000, comm, arg0, \$rq->cmd_flags, \$rq->rq_flags, \$rq->__data_len); } }
kprobe:blk_update_request { \$rq = (struct request *)arg0;
  if (\$rq->q->disk->major == 7) { printf("%llu [%s] complete %llx rqf %x bytes %u\n",
    nsecs / 1000, comm, arg0, \$rq->rq_flags, arg2); } }
tracepoint:block:block_bio_queue { printf("%llu [%s] bio_queue %d:%d %llu +%u %s\n",
  nsecs / 1000, comm, args->dev >> 20, args->dev & 0xfffff, args->sector,
  args->nr_sector, args->rwbs); }
tracepoint:block:block_bio_complete { printf("%llu [%s] bio_complete %d:%d %llu +%u %s\n",
  nsecs / 1000, comm, args->dev >> 20, args->dev & 0xfffff, args->sector,
  args->nr_sector, args->rwbs); }
tracepoint:sched:sched_waking /args->comm == "jbd2/$jbd2-8" || args->comm == "dd"/ {
  printf("%llu [%s] wakes %s\n", nsecs / 1000, comm, args->comm); }
EOF
bpftrace "$tmp/seq.bt" >"$tmp/seq.out" 2>&1 &
bt=$!
for _ in $(seq 60); do grep -q Attaching "$tmp/seq.out" && break; sleep 1; done
sleep 2
dd if=/dev/zero of="$tmp/m/f" bs=4k count=1 conv=notrunc,fsync status=none
sleep 1
kill -INT "$bt"
wait "$bt" || true
echo "--- the block layer (bpftrace), us"
cat "$tmp/seq.out"

"$bin" trace --path "$tmp/m" --quiet --output "$tmp/out" -- \
	dd if=/dev/zero of="$tmp/m/f" bs=4k count=1 conv=notrunc,fsync status=none
echo "--- encbench-trace"
jq -M -r '.verdicts[] | select(.op == "sync") | .summary' "$tmp/out/results.json"
jq -M -c '.attribution[]? | select(.op == "sync") | .wait
	| {total_ns, ns, journal_ns: .unwoken.journal_ns, journal_blocked_ns: .unwoken.blocked_ns}' \
	"$tmp/out/results.json"
