/* SPDX-License-Identifier: GPL-2.0 */
/*
 * blk-queue and device (and dm, a bio on a bio-based device): a bio waits
 * in blk-queue from block_bio_queue until its request is issued, the
 * request is on the device from block_rq_issue to block_rq_complete.
 * Splits, merges, requeues, flush sequences and ends that no program saw
 * are each followed, so that every item is timed whole or counted as not.
 * Part of attrib.bpf.c; the handlers take the tracepoint flavour
 * (TP_PAIR_BTF there).
 */
#ifndef __BLOCK_BPF_H
#define __BLOCK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "attrib.h"
#include "core_fixes.bpf.h"
#include "filters.bpf.h"
#include "items.bpf.h"
#include "wait_io.bpf.h"
#include "aio_io.bpf.h"
#include "aio_path.bpf.h"

/* Filled in by user space before load from the tracepoints' BTF typedefs
 * (their argument lists changed, see tracer/load.c). Frozen, so the
 * verifier prunes the branches not taken. */
const volatile int bio_queue_arg = 0;
const volatile int bio_merge_arg = 0;
const volatile int split_arg = 0;
const volatile int rq_issue_arg = 0;
const volatile int rq_merge_arg = 0;
const volatile int rq_requeue_arg = 0;
/*
 * RQF_FLUSH_SEQ's bit, from the kernel's BTF (tracer/load.c): (1 << 4)
 * while the flags were #defines (6.1), the enumerator __RQF_FLUSH_SEQ (1)
 * once they became an enum -- an anonymous one in 6.12, which CO-RE cannot
 * find by the enum's name: read as 4 there, no flushed write was followed
 * to its second end, and a journal commit's dm-delay holds came out as
 * the device's (bench/vm-flush-seq.sh).
 */
const volatile __u32 rqf_flush_seq_bit = 4;

/*
 * Argument `idx` of a tracepoint whose argument list depends on the
 * kernel. idx is a frozen .rodata constant: the verifier only sees the
 * branch taken, so tp_btf's bounds check on ctx never trips.
 */
static __always_inline __u64 ctx_arg(__u64 *ctx, int idx)
{
	if (idx == 2)
		return ctx[2];
	if (idx == 1)
		return ctx[1];
	return ctx[0];
}
/* The dm_start item of the bio on a dm device of ours that dm core
 * cloned into the tio embedding `clone` (*key: that bio), or NULL. */
static __always_inline struct start *dm_tio_orig(struct bio *clone, __u64 *key)
{
	if (!clone)
		return NULL;
	*key = (__u64)dm_clone_orig(clone);
	return *key ? bpf_map_lookup_elem(&dm_start, key) : NULL;
}

/*
 * The dm_start item of the bio on a dm device of ours that bio was made
 * from (*key: that bio), or NULL. dm-crypt's own clone points bi_private
 * at its dm_crypt_io, whose base_bio is the clone dm core gave dm-crypt;
 * a target that remaps dm core's clone as is (dm-delay, dm-linear)
 * submits that clone itself. Both lead to a dm_target_io, whose dm_io
 * holds the bio submitted to the dm device. Any other bio's pointers lead
 * to no dm_start key (reads of them are fault-safe).
 */
static __always_inline struct start *dm_parent(struct bio *bio, __u64 *key)
{
	struct dm_crypt_io___x *io = BPF_CORE_READ(bio, bi_private);
	struct start *v = dm_tio_orig(BPF_CORE_READ(io, base_bio), key);

	return v ?: dm_tio_orig(bio, key);
}

/*
 * When the topmost dm bio that a bio below a dm stack serves was queued
 * (its dm_start item), 0 if it serves none of ours. Through a dm device
 * under dm-crypt too (dm-delay, LVM): the time a bio spends in any of
 * them is `dm`, not time before its I/O.
 */
static __always_inline __u64 dm_origin_queued(struct bio *bio)
{
	struct start *v;
	__u64 ts = 0, key = 0;

	if (!filter_dm || !bpf_core_type_exists(struct dm_target_io___x) ||
	    !bpf_core_type_exists(struct dm_crypt_io___x))
		return 0;
	for (int i = 0; i < MAX_DM_DEPTH; i++) {
		v = dm_parent(bio, &key);
		if (!v)
			break;
		ts = v->ts;
		bio = (struct bio *)key;
	}
	return ts;
}

/*
 * A bio queued below dm-crypt from its write thread ends that clone's
 * dmcrypt-write item: the clone's bi_private is its dm_crypt_io. Queued
 * from anywhere else (no_write_workqueue, or submit_from_crypt_cpus with a
 * synchronous cipher, submit it from the crypt context), the clone never
 * waited for the thread: its item ends uncounted.
 */
static __always_inline void dmw_queued(struct bio *bio)
{
	struct dm_crypt_io___x *io;
	struct task_struct *thread;
	__u64 key, now;

	if (!filter_dm || !bpf_core_type_exists(struct dm_crypt_io___x))
		return;
	io = BPF_CORE_READ(bio, bi_private);
	key = (__u64)io;
	if (!bpf_map_lookup_elem(&dmw_start, &key))
		return;
	now = bpf_ktime_get_ns();
	thread = BPF_CORE_READ(io, cc, write_thread);
	/* Submitted below now: a dm device there holds it as dm. */
	wait_dmio_stamp(key, DMIO_SUBMIT, now);
	if (thread != (void *)bpf_get_current_task()) {
		item_end(&dmw_start, &key, LAYER_DMCRYPT_WRITE, now, false);
		/* Submitted where it was encrypted: that time is crypt's. */
		wait_dmio_stamp(key, DMIO_HANDOFF, 0);
		return;
	}
	item_end(&dmw_start, &key, LAYER_DMCRYPT_WRITE, now, true);
	wait_dmw_submitted(key, dm_origin_queued(bio), now);
}

static __always_inline int on_bio_queue(__u64 *ctx, bool btf)
{
	struct bio *bio = (void *)ctx_arg(ctx, bio_queue_arg);
	struct start v = {};
	struct gendisk *disk;
	__u64 key, now;
	__u32 op;
	int grp;

	/* Items in flight end also while paused (trace_pause). */
	dmw_queued(bio);
	if (!tracing_on)
		return 0;
	grp = op_group(BTF_READ(btf, bio, bi_opf));
	if (grp < 0)
		return 0;
	op = grp;
	/* An empty REQ_PREFLUSH write (blkdev_issue_flush) never has its
	 * own request issued: the flush machinery issues a flush request
	 * and completes the original without block_rq_issue. */
	if (!BTF_READ(btf, bio, bi_iter.bi_size))
		return 0;
	disk = get_gendisk(bio, btf);
	if (!disk || !bio_dev_ok(bio, btf))
		return 0;
	key = (__u64)bio;
	now = bpf_ktime_get_ns();
	/* Only request-based (blk-mq) devices issue requests: a bio on a
	 * bio-based device (dm) lives in `dm` until block_bio_complete. */
	if (!BTF_READ(btf, disk, queue, mq_ops)) {
		item_start(&dm_start, &key, LAYER_DM, op, now, now);
		aio_bio_queued(bio, op, true, now);
		return 0;
	}
	aio_bio_queued(bio, op, false, now);
	v.ts = now;
	v.op = op;
	v.dm = dm_origin_queued(bio);
	item_start_v(&bio_start, &key, LAYER_BLK_QUEUE, &v, now);
	return 0;
}

/* dm set BIO_TRACE_COMPLETION on the bio it was given: its end. */
static __always_inline int on_bio_complete(__u64 *ctx)
{
	__u64 key = ctx[1], now = bpf_ktime_get_ns();

	item_end(&dm_start, &key, LAYER_DM, now, true);
	aio_dm_bio_done(key, now);
	return 0;
}

/*
 * A bio too big for the queue limits is split: the front part, a new bio,
 * is submitted on its own and never sees block_bio_queue. bio_chain()
 * has just pointed its bi_private at the original, whose queue time it
 * inherits.
 */
static __always_inline int on_split(__u64 *ctx)
{
	struct bio *split = (void *)ctx_arg(ctx, split_arg);
	__u64 key, pkey;
	struct start *p;

	pkey = (__u64)BPF_CORE_READ(split, bi_private);
	if (tracing_on)
		aio_split(split, pkey);
	p = bpf_map_lookup_elem(&bio_start, &pkey);
	if (!p)
		return 0;
	key = (__u64)split;
	item_start_v(&bio_start, &key, LAYER_BLK_QUEUE, p, bpf_ktime_get_ns());
	return 0;
}

/* A merged bio rides in another's request: it leaves blk-queue
 * uncounted (the head bio's wait covers it). */
static __always_inline int on_bio_merge(__u64 *ctx)
{
	__u64 key = ctx_arg(ctx, bio_merge_arg);

	item_end(&bio_start, &key, LAYER_BLK_QUEUE, bpf_ktime_get_ns(), false);
	return 0;
}

#define MAX_FRONT_MERGES 16

/*
 * The blk-queue item of a request is its oldest bio: rq->bio, unless bios
 * were front-merged before it (each ended at its merge), so walk a few.
 * Returns when that bio was queued, 0 if it was not seen; *dm, when the dm
 * bio it serves was (0: none).
 */
static __always_inline __u64 rq_queue_end(struct request *rq, __u64 now,
					  bool count, __u64 *dm, bool btf)
{
	struct bio *bio = BTF_READ(btf, rq, bio);
	struct start *v;
	__u64 key, ts;

	*dm = 0;
	for (int i = 0; i < MAX_FRONT_MERGES && bio; i++) {
		key = (__u64)bio;
		v = bpf_map_lookup_elem(&bio_start, &key);
		if (v) {
			ts = v->ts;
			*dm = v->dm;
			item_end_v(&bio_start, &key, v, LAYER_BLK_QUEUE, now,
				   count);
			return ts;
		}
		bio = BTF_READ(btf, bio, bi_next);
	}
	return 0;
}

static __always_inline bool rq_dev_ok(struct request *rq, bool btf)
{
	struct bio *bio;

	if (!filter_devs || dev_ok(disk_dev(get_disk(rq, btf), btf)))
		return true;
	bio = BTF_READ(btf, rq, bio);
	return bio && dev_ok(get_bio_bdev_dev(bio, btf));
}

/* A request merged into another one is never issued. */
static __always_inline int on_rq_merge(__u64 *ctx)
{
	struct request *rq = (void *)ctx_arg(ctx, rq_merge_arg);

	__u64 dm;

	if (rq_dev_ok(rq, false))
		rq_queue_end(rq, bpf_ktime_get_ns(), false, &dm, false);
	return 0;
}

/*
 * Which life of a struct request this is: the low bits of when it was
 * allocated (start_time_ns; 0 where the queue keeps no I/O statistics).
 * A requeued request keeps it; a freed and reallocated one gets a new one.
 */
static __always_inline __u32 rq_incarnation(struct request *rq, bool btf)
{
	return (__u32)BTF_READ(btf, rq, start_time_ns);
}

/*
 * Request `key` ended where no BPF program ran: counted as unseen, not
 * timed, and no longer in flight. Seen on this project's 6.18 build
 * machine: a softirq that completes requests on top of one of the
 * sandbox agent's threads runs block_rq_complete's other probes (ftrace
 * records it) but not BPF programs, and no recursion miss is counted.
 * The kernel counted that request all the same (kernel_requests).
 */
static __always_inline void rq_unseen(__u64 *key, __u32 op, __u64 now)
{
	struct layer_stat *s = stat_of(LAYER_DEVICE, op);

	if (bpf_map_delete_elem(&rq_start, key) || !s)
		return;
	__sync_fetch_and_add(&s->unseen, 1);
	stat_busy_end(s, now);
}

/* Flush requests in flight on the target's devices: issue time, by
 * request. LRU: one whose end went unseen is forgotten, uncounted. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u64);
} flush_start SEC(".maps");

#define REQ_OP_FLUSH_ 2

static __always_inline void flush_issue(struct request *rq, __u64 *key,
					__u64 now, bool btf)
{
	if ((BTF_READ(btf, rq, cmd_flags) & REQ_OP_MASK_) == REQ_OP_FLUSH_)
		bpf_map_update_elem(&flush_start, key, &now, BPF_ANY);
}

/* Counted whole or not at all: one issued before the window opened is
 * not in flush_start (trace_window clears it). */
static __always_inline void flush_end(__u64 *key, bool count)
{
	__u64 *ts = bpf_map_lookup_elem(&flush_start, key), now;
	struct wait_stat *w;

	if (!ts)
		return;
	now = bpf_ktime_get_ns();
	w = wait_stat_of(EB_OP_WRITE);
	if (count && w && now > *ts) {
		__sync_fetch_and_add(&w->flush_reqs, 1);
		__sync_fetch_and_add(&w->flush_ns, now - *ts);
	}
	bpf_map_delete_elem(&flush_start, key);
}

static __always_inline int on_rq_issue(__u64 *ctx, bool btf)
{
	struct request *rq = (void *)ctx_arg(ctx, rq_issue_arg);
	__u64 key = (__u64)rq, now;
	struct start v = {}, *old;
	int grp;

	/* Not the target's: none of its bios was queued here either. */
	if (!rq_dev_ok(rq, btf))
		return 0;
	now = bpf_ktime_get_ns();
	v.queued = rq_queue_end(rq, now, true, &v.dm, btf);
	/* Its previous life is still here: that one's end went unseen. */
	v.incarnation = rq_incarnation(rq, btf);
	old = bpf_map_lookup_elem(&rq_start, &key);
	if (old && old->incarnation != v.incarnation)
		rq_unseen(&key, old->op, now);
	if (!tracing_on)
		return 0;
	grp = op_group(BTF_READ(btf, rq, cmd_flags));
	if (grp < 0) {
		flush_issue(rq, &key, now, btf);
		return 0;
	}
	v.ts = now;
	v.op = grp;
	item_start_v(&rq_start, &key, LAYER_DEVICE, &v, now);
	aio_rq_event(rq, false, now);
	return 0;
}

/* A requeued request goes back to wait and will be issued again: its
 * device time ends here, uncounted, or the wait would count as device
 * busy time without being in any request's latency. */
static __always_inline int on_rq_requeue(__u64 *ctx)
{
	__u64 key = ctx_arg(ctx, rq_requeue_arg);

	item_end(&rq_start, &key, LAYER_DEVICE, bpf_ktime_get_ns(), false);
	flush_end(&key, false);
	return 0;
}

/*
 * Requests whose data completed inside a flush sequence (block/blk-flush.c):
 * the flush machinery ends them a second time, data-less, once their
 * flushes are done, and only then their bios (req_bio_endio holds them
 * while RQF_FLUSH_SEQ is set). LRU: an entry forgotten costs one unissued
 * too many.
 */
struct flushed_write {
	struct io_times io; /* its stages, as at its first end */
	__u32 incarnation;  /* rq_incarnation */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct flushed_write);
} flush_done SEC(".maps");

/* The data of write rq (key) completed in a flush sequence: keep its
 * stages, which wait_rq_complete has just put in the done record, for
 * its second end. Its wait from queueing to issue was the flush
 * machinery holding it for the pre-flush (blk_insert_flush), a device
 * operation: told as device, not blk-queue (on loop it read as a third
 * of dd oflag=dsync's write time "block queue"). */
static __always_inline void flush_seq_hold(__u64 *key, __u32 incarnation)
{
	struct flushed_write f = {.incarnation = incarnation};
	__u32 zero = 0;
	struct done_rec *d = bpf_map_lookup_elem(&done, &zero);

	if (d) {
		f.io = d->io;
		if (f.io.queued)
			f.io.issued = f.io.queued;
	}
	bpf_map_update_elem(&flush_done, key, &f, BPF_ANY);
}

static __always_inline bool rq_in_flush_seq(struct request *rq)
{
	return BPF_CORE_READ(rq, rq_flags) & (1u << (rqf_flush_seq_bit & 31));
}

/*
 * A data-less write ending untimed: the second end of a flushed write
 * (flush_done), or a request that was never issued, an empty
 * REQ_PREFLUSH write: the flush machinery issues its own flush request
 * (REQ_OP_FLUSH, not timed) and ends the original, which the kernel
 * counts as a completed write request.
 */
static __always_inline void rq_end_unissued(struct request *rq, __u64 *key,
					    bool btf)
{
	struct flushed_write *f = bpf_map_lookup_elem(&flush_done, key);
	struct layer_stat *s;

	if (f && f->incarnation == rq_incarnation(rq, btf)) {
		wait_flush_seq_end(&f->io);
		bpf_map_delete_elem(&flush_done, key);
		return;
	}
	s = stat_of(LAYER_DEVICE, EB_OP_WRITE);
	if (s)
		__sync_fetch_and_add(&s->unissued, 1);
}

/* block_rq_complete(rq, error, nr_bytes) */
static __always_inline int on_rq_complete(__u64 *ctx, bool btf)
{
	struct request *rq = (void *)ctx[0];
	__u64 key = ctx[0];
	struct start *v = bpf_map_lookup_elem(&rq_start, &key);

	if (v) {
		/* One clock read for both ends (about 35 ns each here, 75
		 * with both CPUs busy: BENCHMARKS.md, bench/bpf-primitives). */
		__u64 now = bpf_ktime_get_ns();

		aio_rq_event(rq, true, now);
		wait_rq_complete(rq, v, (__u32)ctx[2]);
		if (v->op == EB_OP_WRITE && rq_in_flush_seq(rq))
			flush_seq_hold(&key, v->incarnation);
		item_end_v(&rq_start, &key, v, LAYER_DEVICE, now, true);
		return 0;
	}
	flush_end(&key, tracing_on);
	if (tracing_on && !(__u32)ctx[2] &&
	    op_group(BTF_READ(btf, rq, cmd_flags)) == EB_OP_WRITE &&
	    rq_dev_ok(rq, btf))
		rq_end_unissued(rq, &key, btf);
	return 0;
}

/*
 * Not attached: user space runs it (BPF_PROG_TEST_RUN) on each request
 * still in rq_start when a phase ends, ctx[0] the request. One that is
 * idle, or alive again as a later incarnation, ended unseen. One in
 * flight, or completing right now (its end is being seen), stays.
 */
SEC("raw_tp")
int rq_sweep(__u64 *ctx)
{
	struct request *rq = (void *)ctx[0];
	__u64 key = ctx[0];
	struct start *v = bpf_map_lookup_elem(&rq_start, &key);

	if (!v)
		return 0;
	if (BPF_CORE_READ(rq, state) != MQ_RQ_IDLE &&
	    v->incarnation == rq_incarnation(rq, false))
		return 0;
	rq_unseen(&key, v->op, bpf_ktime_get_ns());
	return 0;
}

#endif /* __BLOCK_BPF_H */
