/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The I/O side of the wait attribution: what a request completion, a
 * crypto or loop work item, dm-crypt's write thread and the flusher did
 * for the I/O a caller waits on, recorded where attrib.bpf.c's handlers
 * see it, for wait_chain.bpf.h to split the wait by.
 */
#ifndef __WAIT_IO_BPF_H
#define __WAIT_IO_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "core_fixes.bpf.h"
#include "filters.bpf.h"
#include "maps.bpf.h" /* struct start */
#include "pid_bits.bpf.h"
#include "wait_state.bpf.h"

/* ---- requests and work items ---------------------------------------- */

/* dm devices stacked above a request-based one that dm_origin_queued
 * (block.bpf.h) and dmio_of follow up (dm-crypt over dm-delay,
 * dm-linear or LVM, ...). */
#define MAX_DM_DEPTH 4

/* The bio a dm device was given, of which `clone` is dm core's clone
 * (embedded in its dm_target_io); garbage for any other bio (the reads
 * are fault-safe, and no map holds the result). */
static __always_inline struct bio *dm_clone_orig(struct bio *clone)
{
	struct dm_target_io___x *tio =
		(void *)clone -
		bpf_core_field_offset(struct dm_target_io___x, clone);

	return BPF_CORE_READ(tio, io, orig_bio);
}

/*
 * The dmio_times entry of the dm-crypt write that bio serves (*key its
 * key), or NULL. dm-crypt's clone points bi_private at its dm_crypt_io,
 * the key. Below a dm device under dm-crypt (dm-delay, LVM) the bio is
 * dm core's clone, embedded in a tio whose dm_io holds the bio that
 * device was given: dm-crypt's clone, or another level up. Without this
 * walk a LUKS2 write over dm-delay lost its stamps: its encryption on
 * kcryptd (27 ms per MiB in the 6.1 guest) was told as device-mapper.
 */
static __always_inline struct io_times *dmio_of(struct bio *bio, __u64 *key)
{
	struct io_times *t;

	for (int i = 0; i < MAX_DM_DEPTH && bio; i++) {
		*key = (__u64)BPF_CORE_READ(bio, bi_private);
		t = *key ? bpf_map_lookup_elem(&dmio_times, key) : NULL;
		if (t || !bpf_core_type_exists(struct dm_target_io___x))
			return t;
		bio = dm_clone_orig(bio);
	}
	return NULL;
}

/* The dmio_stamps of the write whose clone (or a clone of it, further
 * down a dm stack) heads request rq, taken out of dmio_times into io
 * (left 0 if it has none). */
static __always_inline void dmio_take(struct request *rq, struct io_times *io)
{
	__u64 key = 0;
	struct io_times *t = dmio_of(BPF_CORE_READ(rq, bio), &key);

	if (!t)
		return;
	for (int i = 0; i < NR_DMIO_STAMPS; i++)
		io->crypt[i] = t->crypt[i];
	bpf_map_delete_elem(&dmio_times, &key);
}

/* Request rq, started as v (rq_start), completes `bytes`. */
static __always_inline void wait_rq_complete(struct request *rq,
					     const struct start *v, __u64 bytes)
{
	struct wait_stat *w = wait_stat_of(v->op);
	__u32 zero = 0;
	struct done_rec *d = bpf_map_lookup_elem(&done, &zero);

	if (d) {
		__builtin_memset(&d->io, 0, sizeof(d->io));
		d->io.dm = v->dm;
		d->io.queued = v->queued;
		d->io.issued = v->ts;
		if (v->dm && v->op == EB_OP_WRITE)
			dmio_take(rq, &d->io);
		d->pid = (__u32)bpf_get_current_pid_tgid();
		d->valid = 1;
	}
	if (w)
		__sync_fetch_and_add(&w->dev_bytes, bytes);
}

/*
 * The second end of a write in a flush sequence: its flushes are done and
 * its bios end now, so a caller or writeback worker woken here (jbd2 on
 * its commit block, an O_DSYNC writer) waited for that write, its flushes
 * included. The done record carries the write's stages as at its first
 * end (io): dm-delay holding it is dm, the post-flush device. Without
 * this the waker said nothing and all of it was told as device.
 */
static __always_inline void wait_flush_seq_end(const struct io_times *io)
{
	__u32 zero = 0;
	struct done_rec *d = bpf_map_lookup_elem(&done, &zero);

	if (!d)
		return;
	d->io = *io;
	d->pid = (__u32)bpf_get_current_pid_tgid();
	d->valid = 1;
}

/* Stamp `which` of the write io (a struct dm_crypt_io *) at now; now 0
 * takes a stamp back. */
static __always_inline void wait_dmio_stamp(__u64 io, int which, __u64 now)
{
	struct io_times *t = bpf_map_lookup_elem(&dmio_times, &io), init = {};

	if (which < 0 || which >= NR_DMIO_STAMPS || (!t && !now))
		return;
	if (!t) {
		/* The kcryptd stage comes first: a later stamp without an
		 * entry is an inline or unseen encryption. */
		init.crypt[which] = now;
		bpf_map_update_elem(&dmio_times, &io, &init, BPF_ANY);
		return;
	}
	t->crypt[which] = now;
}

/* The same for a dm-crypt work item serving a write (op: its op). */
static __always_inline void wait_dmio_work(struct work_struct *work, int op,
					   int which, __u64 now)
{
	__u64 func = (__u64)BPF_CORE_READ(work, func);
	__u32 *kind = bpf_map_lookup_elem(&crypt_funcs, &func);

	if (op != EB_OP_WRITE || !kind || *kind != CRYPT_WORK_DMCRYPT ||
	    !bpf_core_type_exists(struct dm_crypt_io___x))
		return;
	wait_dmio_stamp((__u64)work - bpf_core_field_offset(
					      struct dm_crypt_io___x, work),
			which, now);
}

/* dm-crypt's write thread serves one of our writes: from now on each of
 * its run-queue waits is counted (it runs no work items to mark). */
static __always_inline void wait_dmw_thread(struct task_struct *thread)
{
	struct served_worker init = {.thread_kind = WORKER_DMCRYPT_WRITE + 1};
	__u32 tid = BPF_CORE_READ(thread, pid);
	struct served_worker *wk;

	if (!tid)
		return;
	pid_mark(tid, PID_WORKER);
	wk = bpf_map_lookup_elem(&workers, &tid);
	if (wk)
		wk->thread_kind = WORKER_DMCRYPT_WRITE + 1;
	else
		bpf_map_update_elem(&workers, &tid, &init, BPF_NOEXIST);
}

/*
 * The write thread (this thread) queued the clone of write io (a struct
 * dm_crypt_io *) below at now; its dm bio was queued at dm (0: unseen).
 * Until the thread is switched out, a caller it wakes waited for that
 * clone: a device that completes bios inside their submission (brd,
 * zram, pmem) ends the clone, and its dm bio, in this thread.
 */
static __always_inline void wait_dmw_submitted(__u64 io, __u64 dm, __u64 now)
{
	struct worker_stat *ws = worker_stat_of(WORKER_DMCRYPT_WRITE);
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct served_worker *wk = bpf_map_lookup_elem(&workers, &tid);
	struct io_times *t = bpf_map_lookup_elem(&dmio_times, &io);

	if (ws)
		__sync_fetch_and_add(&ws->items, 1);
	if (!wk)
		return;
	__builtin_memset(&wk->io, 0, sizeof(wk->io));
	for (int i = 0; t && i < NR_DMIO_STAMPS; i++)
		wk->io.crypt[i] = t->crypt[i];
	wk->io.dm = dm;
	/* No request below: the device's time starts at the queueing. */
	wk->io.queued = now;
	wk->io.issued = now;
}

/* A crypto work item queued by a completion of ours serves that I/O. */
static __always_inline void wait_queue_work(__u64 work)
{
	__u32 zero = 0;
	struct done_rec *d = bpf_map_lookup_elem(&done, &zero);

	if (!d || !d->valid || d->pid != (__u32)bpf_get_current_pid_tgid())
		return;
	bpf_map_update_elem(&work_io, &work, &d->io, BPF_ANY);
}

/* Since 5.11 (c1a08bb5ed6b: "loop: add cgroup support") loop serves
 * requests on a workqueue; before, on a kthread, which is no worker here. */
struct loop_device___x {
	struct gendisk *lo_disk;
	struct work_struct rootcg_work;
} __attribute__((preserve_access_index));

struct loop_worker___x {
	struct work_struct work;
	struct loop_device___x *lo;
} __attribute__((preserve_access_index));

/* Whether a loop work item serves one of the target's devices. */
static __always_inline bool loop_work_ok(struct work_struct *work,
					 __u32 flavour)
{
	struct loop_device___x *lo;
	struct loop_worker___x *lw;

	if (!filter_devs || !bpf_core_type_exists(struct loop_device___x))
		return true;
	if (flavour == LOOP_ROOTCG) {
		lo = (void *)work -
		     bpf_core_field_offset(struct loop_device___x, rootcg_work);
	} else {
		lw = (void *)work -
		     bpf_core_field_offset(struct loop_worker___x, work);
		lo = BPF_CORE_READ(lw, lo);
	}
	return dev_ok(disk_dev(BPF_CORE_READ(lo, lo_disk), false));
}

/* Bytes a crypto work item deciphers, 0 if unknown. */
static __always_inline __u64 crypt_item_bytes(struct work_struct *work,
					      __u64 func)
{
	__u64 sum = 0;
	__u32 *kind = bpf_map_lookup_elem(&crypt_funcs, &func);
	struct dm_crypt_io___x *io;
	struct bio_vec *vec, bv;
	struct buffer_head *bh;
	struct bio *bio;
	__u16 vcnt;

	if (!kind)
		return 0;
	switch (*kind) {
	case CRYPT_WORK_FSCRYPT_READ:
		if (!ctx_delta[CRYPT_WORK_FSCRYPT_READ])
			return 0;
		/* Completed: bi_iter is spent, the vectors are whole. */
		bio = ctx_ptr(work, ctx_delta[CRYPT_WORK_FSCRYPT_READ]);
		vcnt = BPF_CORE_READ(bio, bi_vcnt);
		vec = BPF_CORE_READ(bio, bi_io_vec);
		for (int i = 0; i < MAX_BVECS && i < vcnt; i++) {
			if (bpf_probe_read_kernel(&bv, sizeof(bv), &vec[i]))
				break;
			sum += bv.bv_len;
		}
		return sum;
	case CRYPT_WORK_FSCRYPT_BH:
		if (!ctx_delta[CRYPT_WORK_FSCRYPT_BH])
			return 0;
		bh = ctx_ptr(work, ctx_delta[CRYPT_WORK_FSCRYPT_BH]);
		return BPF_CORE_READ(bh, b_size);
	case CRYPT_WORK_DMCRYPT:
		if (!bpf_core_type_exists(struct dm_crypt_io___x))
			return 0;
		io = (void *)work -
		     bpf_core_field_offset(struct dm_crypt_io___x, work);
		return BPF_CORE_READ(io, base_bio, bi_iter.bi_size);
	}
	return 0;
}

/* This thread starts writing the target back, as `how` (enum wb_worker),
 * with run-queue wait pending before it (0: none seen). */
static __always_inline void wb_mark(__u32 how, __u64 pending, __u64 now)
{
	struct served_worker *wk,
		init = {.writeback = how, .on = 1, .last = now};
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	wk = bpf_map_lookup_elem(&workers, &tid);
	if (wk) {
		wk->writeback = how;
		wk->wb_until_sleep = 0;
		wk->pending = 0;
		wk->on = 1;
		wk->last = now;
	} else {
		/* The bit before the entry, as every worker's. */
		pid_mark(tid, PID_WORKER);
		bpf_map_update_elem(&workers, &tid, &init, BPF_NOEXIST);
	}
	if (pending)
		wb_add(how, true, pending);
}

/*
 * The flusher (wb_workfn) starts writing back a bdi_writeback: if its
 * device is the target's, mark this kworker until the item ends. The work
 * item is the bdi_writeback's delayed work; its bdi's owner is the disk
 * the file system is on (device_add_disk: bdi_set_owner).
 */
static __always_inline void wait_wb_start(struct work_struct *work, __u64 now)
{
	struct bdi_writeback *wb;

	wb = (void *)work -
	     (bpf_core_field_offset(struct bdi_writeback, dwork) +
	      bpf_core_field_offset(struct delayed_work, work));
	if (filter_devs && !dev_ok(BPF_CORE_READ(wb, bdi, owner, devt)))
		return;
	/* A kworker's run-queue wait before this item was the flusher's
	 * only if the item was queued before it woke: not known, so
	 * dropped, as before any item that is not ours. */
	wb_mark(WB_FLUSHER, 0, now);
}

/*
 * jbd2 commits a journal (jbd2_start_commit -> jbd2_end_commit, in the
 * journal's own kthread): if it is the target's, the thread writes the
 * target back until it next sleeps after the commit. The callers it wakes
 * from jbd2_log_wait_commit (fsync, O_SYNC) waited for what the commit
 * did -- its journal writes, the ordered data before them, the cache
 * flush -- and have their wait shared out by it as the flusher's
 * (share_unwoken), not told as the file system's. Its run-queue wait
 * since the caller woke it counts: the caller waited for that too.
 */
static __always_inline void wait_jbd2_start(journal_t *j, __u64 now)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct served_worker *wk;
	__u64 pending = 0;

	if (filter_devs && !dev_ok(BPF_CORE_READ(j, j_fs_dev, bd_dev)))
		return;
	wk = pid_may(tid, PID_WORKER) ? bpf_map_lookup_elem(&workers, &tid)
				      : NULL;
	if (wk)
		pending = wk->pending;
	wb_mark(WB_JOURNAL, pending, now);
}

static __always_inline void wait_jbd2_end(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct served_worker *wk;

	if (!pid_may(tid, PID_WORKER))
		return;
	wk = bpf_map_lookup_elem(&workers, &tid);
	if (wk && wk->writeback == WB_JOURNAL)
		wk->wb_until_sleep = 1;
}

/* A worker starts item `work` of work function func, whose worker_funcs
 * value is val; crypt_op: crypt_work_op()'s answer, queued: when the item
 * was queued (0: not seen). */
static __always_inline void wait_execute_start(struct work_struct *work,
					       __u64 func, __u32 val,
					       int crypt_op, __u64 queued,
					       __u64 now)
{
	__u32 kind = val & 0xff, tid;
	__u64 key = (__u64)work;
	struct worker_stat *ws;
	struct io_times *io;
	struct served_worker *wk, init = {};

	if (val == WORKER_WRITEBACK_FN) {
		wait_wb_start(work, now);
		return;
	}
	if (kind == WORKER_CRYPT && crypt_op < 0)
		return;
	if (kind == WORKER_DEVICE &&
	    !loop_work_ok(work, val >> WORKER_FLAVOUR_SHIFT))
		return;
	ws = worker_stat_of(kind);
	if (!ws)
		return;
	tid = (__u32)bpf_get_current_pid_tgid();
	wk = bpf_map_lookup_elem(&workers, &tid);
	if (!wk) {
		pid_mark(tid, PID_WORKER);
		bpf_map_update_elem(&workers, &tid, &init, BPF_ANY);
		wk = bpf_map_lookup_elem(&workers, &tid);
		if (!wk)
			return;
	}
	if (wk->pending)
		worker_runq(ws, wk->pending, wk->pending_idle);
	wk->pending = 0;
	wk->kind = kind + 1;
	wk->exec = now;
	wk->queued = queued;
	wk->last = now;
	wk->on = 1;
	wk->oncpu = 0;
	__builtin_memset(&wk->io, 0, sizeof(wk->io));
	wk->bytes = 0;
	if (kind == WORKER_CRYPT) {
		io = bpf_map_lookup_elem(&work_io, &key);
		if (io) {
			wk->io = *io;
			bpf_map_delete_elem(&work_io, &key);
		}
		wk->bytes = crypt_item_bytes(work, func);
	}
	__sync_fetch_and_add(&ws->items, 1);
}

/* The worker wk (this thread) ends its item. */
static __always_inline void wait_execute_end(struct served_worker *wk,
					     __u64 now)
{
	struct worker_stat *ws;

	if (wk->writeback) {
		if (wk->on && now > wk->last)
			wb_add(wk->writeback, false, now - wk->last);
		/* Its run-queue waits were the flusher's, not before an
		 * item of ours. */
		wk->writeback = 0;
		wk->pending = 0;
		wk->blocked = 0;
	}
	if (!wk->kind)
		return;
	if (wk->on && now > wk->last)
		wk->oncpu += now - wk->last;
	ws = worker_stat_of(wk->kind - 1);
	if (ws) {
		__sync_fetch_and_add(&ws->oncpu_ns, wk->oncpu);
		if (wk->bytes) {
			__sync_fetch_and_add(&ws->bytes, wk->bytes);
			__sync_fetch_and_add(&ws->bytes_oncpu_ns, wk->oncpu);
		}
	}
	wk->kind = 0;
}

#endif /* __WAIT_IO_BPF_H */
