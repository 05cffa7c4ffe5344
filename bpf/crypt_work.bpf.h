/* SPDX-License-Identifier: GPL-2.0 */
/*
 * crypt-queue and crypt, the read side's work items: a crypto work item
 * (fscrypt's read queue, blk-crypto's fallback, dm-crypt's kcryptd) waits
 * in crypt-queue from workqueue_queue_work to workqueue_execute_start and
 * runs in crypt until workqueue_execute_end; the workers the caller waits
 * on (the loop worker, writeback) are followed for the wait split. Part
 * of attrib.bpf.c.
 */
#ifndef __CRYPT_WORK_BPF_H
#define __CRYPT_WORK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "attrib.h"
#include "core_fixes.bpf.h"
#include "filters.bpf.h"
#include "items.bpf.h"
#include "pid_bits.bpf.h"
#include "wait_io.bpf.h"
#include "wait_sched.bpf.h"
#include "aio_io.bpf.h"
#include "aio_path.bpf.h"

/* Direction of a dm-crypt io: its original bio's op. -1 when dm_crypt
 * (and so its BTF) is not loaded, or the bio is not the target's. */
static __always_inline int dmcrypt_io_op(struct dm_crypt_io___x *io)
{
	struct bio *bio;

	if (!bpf_core_type_exists(struct dm_crypt_io___x))
		return -1;
	bio = BPF_CORE_READ(io, base_bio);
	if (!bio_dev_ok(bio, false))
		return -1;
	return op_group(BPF_CORE_READ(bio, bi_opf));
}

static __always_inline int dmcrypt_op(struct work_struct *work)
{
	if (!bpf_core_type_exists(struct dm_crypt_io___x))
		return -1;
	return dmcrypt_io_op(
		(void *)work -
		bpf_core_field_offset(struct dm_crypt_io___x, work));
}

/*
 * Whether a work item whose context holds a bio (delta: ctx_delta of its
 * kind) is the target's. Unresolved: counted everywhere, as user space
 * says in the layer's source.
 */
static __always_inline bool bio_work_dev_ok(struct work_struct *work,
					    long long delta)
{
	if (!filter_devs || !delta)
		return true;
	return bio_dev_ok(ctx_ptr(work, delta), false);
}

/* decrypt_bh's context holds a buffer_head: its block device. */
static __always_inline bool bh_work_dev_ok(struct work_struct *work,
					   long long delta)
{
	struct buffer_head *bh;
	struct block_device *bdev;

	if (!filter_devs || !delta)
		return true;
	bh = ctx_ptr(work, delta);
	if (!bh)
		return false;
	bdev = BPF_CORE_READ(bh, b_bdev);
	if (!bdev)
		return false;
	return dev_ok(BPF_CORE_READ(bdev, bd_dev)) ||
	       dev_ok(disk_dev(BPF_CORE_READ(bdev, bd_disk), false));
}

/*
 * The op a crypto work item serves, or -1 if it is no crypto work or not
 * the target's (func: its work function). Reads the work item and its context:
 * call it only where both are alive, at queue_work and execute_start -- the
 * work function may free them before execute_end.
 */
static __always_inline int crypt_work_op(struct work_struct *work, __u64 func)
{
	__u32 *kind = bpf_map_lookup_elem(&crypt_funcs, &func);

	if (!kind)
		return -1;
	switch (*kind) {
	case CRYPT_WORK_FSCRYPT_READ:
		return bio_work_dev_ok(work, ctx_delta[CRYPT_WORK_FSCRYPT_READ])
			       ? EB_OP_READ
			       : -1;
	case CRYPT_WORK_BLK_CRYPTO:
		return bio_work_dev_ok(work, ctx_delta[CRYPT_WORK_BLK_CRYPTO])
			       ? EB_OP_READ
			       : -1;
	case CRYPT_WORK_FSCRYPT_BH:
		return bh_work_dev_ok(work, ctx_delta[CRYPT_WORK_FSCRYPT_BH])
			       ? EB_OP_READ
			       : -1;
	case CRYPT_WORK_DMCRYPT:
		return dmcrypt_op(work);
	}
	return -1;
}

static __always_inline int on_queue_work(__u64 *ctx, bool btf)
{
	struct work_struct *work = (void *)ctx[2];
	__u64 key = (__u64)work, now;
	int op;

	if (!tracing_on)
		return 0;
	op = crypt_work_op(work, (__u64)BTF_READ(btf, work, func));
	if (op < 0)
		return 0;
	now = bpf_ktime_get_ns();
	item_start(&cq_start, &key, LAYER_CRYPT_QUEUE, op, now, now);
	aio_work(work, (__u64)BTF_READ(btf, work, func), false, now);
	wait_queue_work(key);
	wait_dmio_work(work, op, DMIO_QUEUED, now);
	return 0;
}

/* A worker runs one work item at a time, start to end, so the run is
 * keyed by worker tid: the work may be freed by its function, and
 * execute_end must not read it. Every work item on the machine passes
 * here: one that is neither crypto work of the target's nor a worker's
 * the caller waits on leaves before the clock is read. */
static __always_inline int on_execute_start(__u64 *ctx, bool btf)
{
	struct work_struct *work = (void *)ctx[0];
	__u64 key = (__u64)work, func = (__u64)BTF_READ(btf, work, func);
	__u64 now, queued = 0;
	__u32 *worker = NULL;
	struct start *q;
	__u32 tid;
	int op;

	op = crypt_work_op(work, func);
	if (tracing_on)
		worker = bpf_map_lookup_elem(&worker_funcs, &func);
	if (op < 0 && !worker)
		return 0;
	now = bpf_ktime_get_ns();
	if (op >= 0) {
		q = bpf_map_lookup_elem(&cq_start, &key);
		if (q) {
			queued = q->ts;
			item_end_v(&cq_start, &key, q, LAYER_CRYPT_QUEUE, now,
				   true);
		}
	}
	if (!tracing_on)
		return 0;
	if (worker)
		wait_execute_start(work, func, *worker, op, queued, now);
	if (op < 0)
		return 0;
	tid = (__u32)bpf_get_current_pid_tgid();
	pid_mark(tid, PID_CRYPT_ITEM);
	item_start(&cx_start, &tid, LAYER_CRYPT, op, now, now);
	aio_work(work, func, true, now);
	wait_dmio_work(work, op, DMIO_CRYPT, now);
	return 0;
}

static __always_inline int on_execute_end(__u64 *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct start *v = NULL;
	struct served_worker *wk = NULL;
	__u64 now = 0;

	if (pid_may(tid, PID_CRYPT_ITEM)) {
		v = bpf_map_lookup_elem(&cx_start, &tid);
		now = bpf_ktime_get_ns();
		aio_work_end(tid, now);
	}
	if (pid_may(tid, PID_WORKER))
		wk = bpf_map_lookup_elem(&workers, &tid);
	if (!v && (!wk || !(wk->kind | wk->writeback)))
		return 0;
	if (!now)
		now = bpf_ktime_get_ns();
	if (v) {
		item_end_v(&cx_start, &tid, v, LAYER_CRYPT, now, true);
		pid_unmark(tid, PID_CRYPT_ITEM);
	}
	if (wk)
		wait_execute_end(wk, now);
	return 0;
}

#endif /* __CRYPT_WORK_BPF_H */
