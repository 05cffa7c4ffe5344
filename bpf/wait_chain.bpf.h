/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A traced caller's blocked interval, split at its wakeup along the chain
 * that ended in it (wait_state.bpf.h says how): a crypto worker's item and
 * the I/O it served, a request completion, a ZFS zio, dm-crypt's write
 * thread, or else the waker's kernel stack, for user space to classify.
 */
#ifndef __WAIT_CHAIN_BPF_H
#define __WAIT_CHAIN_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "pid_bits.bpf.h"
#include "wait_state.bpf.h"

/* ---- blocked time along the wakeup chain ---------------------------- */

/* x clamped into [lo, hi]; 0 (unknown) is lo: its segment is empty. */
static __always_inline __u64 clamp_ts(__u64 x, __u64 lo, __u64 hi)
{
	if (x < lo)
		return lo;
	return x > hi ? hi : x;
}

/*
 * The stretch of a write below dm-crypt from its dm bio's queueing (p) to
 * its clone's queueing below: dm until kcryptd queued it, then
 * crypt-queue, crypt, the write thread from the hand-off, and dm again
 * from the clone's submission (a dm device between holds it there). A
 * stamp not seen (0) leaves its stage empty, its time with the stage
 * before. Returns where the write-thread stage starts: the hand-off, if
 * that was the last stamp seen, or else the clone's queueing.
 */
static __always_inline __u64 split_dmio(unsigned long long *acc, __u64 p,
					__u64 to, const struct io_times *io)
{
	int cur = LAYER_DM;
	__u64 q;

	for (int i = 0; i < NR_DMIO_STAMPS; i++) {
		if (!io->crypt[i])
			continue;
		q = clamp_ts(io->crypt[i], p, to);
		acc_add(acc, cur, q - p);
		p = q;
		/* Stamp i opens layer crypt-queue + i (attrib.h's order). */
		cur = LAYER_CRYPT_QUEUE + i;
	}
	/* Without a hand-off the time since the last stamp is that stage's
	 * up to the clone's queueing. */
	if (cur != LAYER_DMCRYPT_WRITE) {
		q = clamp_ts(io->queued, p, to);
		acc_add(acc, cur, q - p);
		p = q;
	}
	return p;
}

/*
 * Blocked from `from` to `to`, waiting for an I/O (io) that a work item
 * queued at kq and started at ks (0, 0: no work item) finished; the
 * pieces go to acc (indexed by enum layer), the part before an unseen
 * I/O also to *unresolved (NULL: not kept). Each stage's interval clipped
 * to [from, to]: the pieces add up to to - from.
 */
static __always_inline void split_chain_to(unsigned long long *acc,
					   unsigned long long *unresolved,
					   __u64 from, __u64 to,
					   const struct io_times *io, __u64 kq,
					   __u64 ks)
{
	__u64 p = from, q;

	if (!io->issued) {
		/* The I/O before the work item was not seen. */
		q = kq ? clamp_ts(kq, p, to) : to;
		acc_add(acc, LAYER_FS, q - p);
		if (unresolved)
			__sync_fetch_and_add(unresolved, q - p);
		p = q;
	} else {
		/* Below a dm device: in dm-crypt's own stages from the dm
		 * bio's queueing to its clone's; a write's encryption on
		 * kcryptd and its wait for the write thread where seen. */
		q = clamp_ts(io->dm ?: io->queued, p, to);
		acc_add(acc, LAYER_FS, q - p);
		p = q;
		p = split_dmio(acc, p, to, io);
		q = clamp_ts(io->queued, p, to);
		acc_add(acc, LAYER_DMCRYPT_WRITE, q - p);
		p = q;
		q = clamp_ts(io->issued, p, to);
		acc_add(acc, LAYER_BLK_QUEUE, q - p);
		p = q;
		q = kq ? clamp_ts(kq, p, to) : to;
		acc_add(acc, LAYER_DEVICE, q - p);
		p = q;
	}
	q = ks ? clamp_ts(ks, p, to) : to;
	acc_add(acc, LAYER_CRYPT_QUEUE, q - p);
	acc_add(acc, LAYER_CRYPT, to - q);
}

/* The caller's blocked time, into its ns[]. */
static __always_inline void split_chain(struct wait_stat *w, __u64 from,
					__u64 to, const struct io_times *io,
					__u64 kq, __u64 ks)
{
	split_chain_to(w->ns, &w->unresolved_ns, from, to, io, kq, ks);
}

/*
 * A writeback worker of the target (the flusher, jbd2 committing) was
 * blocked from `from` to `to` and is woken now by this thread: if the
 * waker's chain says what it waited for -- a crypto worker's item, or a
 * completion of the target's request -- split it along that chain into
 * wb_blocked_layer_ns, as a caller's (jbd2's also into
 * jbd2_blocked_layer_ns). All of it is wb_blocked_ns.
 */
static __always_inline void split_wb_blocked(__u32 how, __u64 from, __u64 to)
{
	__u32 waker = (__u32)bpf_get_current_pid_tgid(), zero = 0;
	struct wait_stat *w = wait_stat_of(EB_OP_WRITE);
	unsigned long long part[NR_LAYERS] = {};
	struct served_worker *wk;
	struct done_rec *d;
	bool chained = false;

	if (!w || to <= from)
		return;
	wb_add_blocked(how, to - from);
	wk = pid_may(waker, PID_WORKER) ? bpf_map_lookup_elem(&workers, &waker)
					: NULL;
	if (wk && wk->kind == WORKER_CRYPT + 1) {
		struct io_times io = wk->io;

		split_chain_to(part, NULL, from, to, &io,
			       wk->queued ?: wk->exec, wk->exec);
		chained = true;
	} else {
		d = bpf_map_lookup_elem(&done, &zero);
		if (d && d->valid && d->pid == waker) {
			struct io_times io = d->io;

			split_chain_to(part, NULL, from, to, &io, 0, 0);
			chained = true;
		}
	}
	if (!chained)
		return;
	for (int l = 0; l < NR_LAYERS; l++) {
		if (!part[l])
			continue;
		__sync_fetch_and_add(&w->wb_blocked_layer_ns[l], part[l]);
		if (how == WB_JOURNAL)
			__sync_fetch_and_add(&w->jbd2_blocked_layer_ns[l],
					     part[l]);
	}
}

/* From *p to `until` (clamped to `to`): up to crypt_ns of it is crypt
 * (added to *crypt), the rest is returned; *p moves to `until`. */
static __always_inline __u64 zfs_span(__u64 *p, __u64 until, __u64 to,
				      __u64 crypt_ns, __u64 *crypt)
{
	__u64 q = clamp_ts(until, *p, to), c = q - *p;

	if (crypt_ns < c)
		c = crypt_ns;
	*crypt += c;
	c = q - *p - c;
	*p = q;
	return c;
}

/*
 * Blocked from `from` to `to`, woken by ZFS taskq thread z in the middle
 * of a zio (z_rd_int finishing a read): the zio's vdev I/O (issued ..
 * done) is device, and so is the round before it in the chain where there
 * was one (an fsync's log block write before the flush that wakes it);
 * the encryption before each was issued, and z's time in
 * spa_do_crypt_abd for the target, are crypt; the rest is ZFS's
 * pipeline, in fs: before the I/O was issued (the issue taskq, the vdev
 * queue), between its completion and z taking it
 * (the interrupt taskq's queue), and z's other stages (checksum,
 * decompression). The queue's wait counts as crypt for as long as the
 * taskq threads were decrypting meanwhile (other blocks of the same read,
 * before this one). The pieces add up to to - from.
 */
static __always_inline void split_zfs(struct wait_stat *w, __u64 from, __u64 to,
				      const struct zfs_thread *z)
{
	__u64 p = from, q, crypt = 0, own, dev = 0, pipe = 0;

	__sync_fetch_and_add(&w->zfs_wakeups, 1);
	if (!z->io_issued || !z->io_done) {
		/* The vdev I/O was not seen whole: up to z's start, the
		 * waiting cannot be told apart. */
		q = clamp_ts(z->exec, p, to);
		wait_add(w, LAYER_FS, q - p);
		__sync_fetch_and_add(&w->unresolved_ns, q - p);
		p = q;
	} else {
		if (z->prev_issued && z->prev_done) {
			/* The chain's round before it (zfscrypt.h). */
			pipe += zfs_span(&p, z->prev_issued, to,
					 z->prev_crypt_ns, &crypt);
			dev += zfs_span(&p, z->prev_done, to, 0, &crypt);
		}
		pipe += zfs_span(&p, z->io_issued, to, z->issue_crypt_ns,
				 &crypt);
		dev += zfs_span(&p, z->io_done, to, 0, &crypt);
		pipe += zfs_span(&p, z->exec, to, z->queue_crypt_ns, &crypt);
	}
	own = z->crypt_ns;
	if (z->in_crypt && to > z->in_crypt)
		own += to - z->in_crypt;
	/* Decryption before the caller blocked is not its wait. */
	if (own > to - p)
		own = to - p;
	pipe += to - p - own;
	crypt += own;
	wait_add(w, LAYER_DEVICE, dev);
	wait_add(w, LAYER_CRYPT, crypt);
	wait_add(w, LAYER_FS, pipe);
	__sync_fetch_and_add(&w->zfs_device_ns, dev);
	__sync_fetch_and_add(&w->zfs_crypt_ns, crypt);
	__sync_fetch_and_add(&w->zfs_pipeline_ns, pipe);
}

static __always_inline void split_blocked(void *ctx, struct thr_wait *t,
					  __u64 now)
{
	__u32 waker = (__u32)bpf_get_current_pid_tgid(), zero = 0;
	struct wait_stat *w = wait_stat_of(t->op);
	struct io_times none = {};
	struct stack_key key = {};
	struct done_rec *d;
	struct served_worker *wk;
	struct zfs_thread *zt;
	__u64 ns, from;
	long id;

	if (!w || now <= t->last)
		return;
	ns = now - t->last;
	from = t->last;
	wait_why(w, t, ns);
	wk = pid_may(waker, PID_WORKER) ? bpf_map_lookup_elem(&workers, &waker)
					: NULL;
	if (wk && wk->kind == WORKER_CRYPT + 1) {
		struct io_times io = wk->io;

		split_chain(w, from, now, &io, wk->queued ?: wk->exec,
			    wk->exec);
		return;
	}
	zt = bpf_map_lookup_elem(&zfs_threads, &waker);
	if (zt && zt->exec) {
		struct zfs_thread z = *zt;

		split_zfs(w, from, now, &z);
		return;
	}
	d = bpf_map_lookup_elem(&done, &zero);
	if (d && d->valid && d->pid == waker) {
		struct io_times io = d->io;

		split_chain(w, from, now, &io, 0, 0);
		return;
	}
	if (wk && wk->thread_kind == WORKER_DMCRYPT_WRITE + 1) {
		struct io_times io = wk->io;

		__sync_fetch_and_add(&w->dmw_wakeups, 1);
		__sync_fetch_and_add(&w->dmw_waker_ns, ns);
		if (io.queued) {
			/* Its clone's write ended in its submission. */
			__sync_fetch_and_add(&w->dmw_chained, 1);
			split_chain(w, from, now, &io, 0, 0);
			return;
		}
	}
	if (wk && wk->writeback) {
		/* The flusher ending the work the caller waited for, or
		 * jbd2 the commit: what the target's writeback did
		 * meanwhile, shared out in user space. */
		__sync_fetch_and_add(&w->wb_waker_ns, ns);
		if (wk->writeback == WB_JOURNAL)
			__sync_fetch_and_add(&w->jbd2_waker_ns, ns);
		return;
	}
	id = why_stackid(ctx);
	key.stackid = id;
	key.op = t->op;
	key.use = STACK_WAKER_NS;
	if (id >= 0 && stack_count_add(&key, ns)) {
		__sync_fetch_and_add(&w->waker_stack_ns, ns);
		return;
	}
	__sync_fetch_and_add(&w->wakers_nostack, 1);
	split_chain(w, from, now, &none, 0, now);
}

#endif /* __WAIT_CHAIN_BPF_H */
