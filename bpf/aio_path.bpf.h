/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The path below an asynchronous I/O's submission (aio_io.bpf.h): each
 * event it meets -- its bios queued, split and completed, its requests
 * issued and completed, the decrypt work queued and run for it, dm-crypt's
 * hand-off -- moves it to the layer it enters; its completion (a CQE
 * posted, its top bio ended) and its reaping end it. attrib.bpf.c's
 * handlers call these hooks (block.bpf.h, crypt_work.bpf.h, the
 * scheduler's and io_uring's programs).
 */
#ifndef __AIO_PATH_BPF_H
#define __AIO_PATH_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "attrib.h"
#include "aio_io.bpf.h"
#include "core_fixes.bpf.h"
#include "filters.bpf.h"
#include "pid_bits.bpf.h"

/* The record of the I/O of which bio is a bio of its own (its top one
 * or a part); *key: its top bio. */
static __always_inline struct aio_io *aio_top_of(__u64 bio, __u64 *key)
{
	struct aio_io *io;
	__u64 *top;

	*key = bio;
	io = bpf_map_lookup_elem(&aio_ios, key);
	if (io)
		return io;
	top = bpf_map_lookup_elem(&aio_part, &bio);
	if (!top)
		return NULL;
	*key = *top;
	return bpf_map_lookup_elem(&aio_ios, key);
}

/* One of io's own bios (`bio`, top key `key`) completed: whether it was
 * the last one outstanding, the I/O's completion. */
static __always_inline bool aio_part_done(__u64 bio, __u64 key,
					  struct aio_io *io)
{
	if (bio != key)
		bpf_map_delete_elem(&aio_part, &bio);
	/* Seen complete already (a bio ended twice: a failed try). */
	if (!io->parts)
		return true;
	return __sync_fetch_and_add(&io->parts, -1) <= 1;
}

/*
 * libaio's I/O ends with its top bio even with parts outstanding: its
 * time is anchored at its reaping, which lines its slot up with the
 * kernel's ring, and a part whose completion went unseen kept some I/Os
 * open past their reaping, so the reaping of the next ones was theirs
 * (+5 to +21 % of fio's clat at 2 MiB on this host, against -0.6 to
 * +0.2 % ended at the top bio). At 1 MiB the top bio completed last 3487
 * times in 3500; at 2 MiB (two bios from iomap) the wait for the other
 * is counted in the reaping. io_uring's ends at its CQE: its parts only
 * move it out of the device when the last of them completes.
 */
static __always_inline bool aio_top_ends(__u64 key, __u64 bio,
					 const struct aio_io *io)
{
	return !io->req && bio == key;
}

/* The record of the I/O one of whose bios is `bio` or a dm bio that
 * `bio` (below it) was made from, as dm_parent() walks; *key: its top
 * bio. */
static __always_inline struct aio_io *aio_of(struct bio *bio, __u64 *key)
{
	struct dm_target_io___x *tio;
	struct dm_crypt_io___x *cio;
	struct aio_io *io;
	struct bio *b;

	io = aio_top_of((__u64)bio, key);
	if (io || !filter_dm || !bpf_core_type_exists(struct dm_target_io___x))
		return io;
	for (int i = 0; i < AIO_DM_DEPTH && bio; i++) {
		/* dm-crypt's own clone: bi_private is its dm_crypt_io. */
		b = bio;
		if (bpf_core_type_exists(struct dm_crypt_io___x)) {
			cio = BPF_CORE_READ(bio, bi_private);
			b = BPF_CORE_READ(cio, base_bio) ?: bio;
		}
		tio = (void *)b -
		      bpf_core_field_offset(struct dm_target_io___x, clone);
		*key = (__u64)BPF_CORE_READ(tio, io, orig_bio);
		if (!*key && b != bio) {
			tio = (void *)bio -
			      bpf_core_field_offset(struct dm_target_io___x,
						    clone);
			*key = (__u64)BPF_CORE_READ(tio, io, orig_bio);
		}
		if (!*key)
			return NULL;
		bio = (struct bio *)*key;
		io = aio_top_of((__u64)bio, key);
		if (io)
			return io;
	}
	return NULL;
}

/* A bio of the target queued (dm: on a bio-based device): a new I/O's
 * top bio, or one below a dm device carrying an I/O on. */
static __always_inline void aio_bio_queued(struct bio *bio, __u32 op, bool dm,
					   __u64 now)
{
	struct aio_io *io;
	__u64 key;

	if (!aio_any)
		return;
	if (tracing_on && aio_bind(bio, op, dm, now))
		return;
	if (!filter_dm)
		return;
	io = aio_of(bio, &key);
	if (io && key != (__u64)bio)
		aio_move(io, dm ? LAYER_DM : LAYER_BLK_QUEUE, now);
}

/* Request rq issued (device) or completed (done). */
static __always_inline void aio_rq_event(struct request *rq, bool done,
					 __u64 now)
{
	struct bio *bio;
	struct aio_io *io;
	__u64 key;
	bool own;

	if (!aio_any)
		return;
	bio = BPF_CORE_READ(rq, bio);
	for (int i = 0; i < 4 && bio; i++) {
		io = aio_of(bio, &key);
		if (io) {
			/* One of its own bios, not a dm clone's below. */
			own = bpf_map_lookup_elem(&aio_part, &bio) ||
			      key == (__u64)bio;
			if (!done)
				aio_move(io, LAYER_DEVICE, now);
			else if (!own)
				aio_completed(key, io, true, now);
			else if (aio_part_done((__u64)bio, key, io) ||
				 aio_top_ends(key, (__u64)bio, io))
				aio_completed(key, io, io->flags & AIO_F_DM,
					      now);
		} else if (done) {
			/* A part of an I/O that ended already. */
			bpf_map_delete_elem(&aio_part, &bio);
		}
		bio = BPF_CORE_READ(bio, bi_next);
	}
}

/* A bio without a request completed (block_bio_complete): on a dm
 * device, or one that failed before it got a request. */
static __always_inline void aio_dm_bio_done(__u64 bio, __u64 now)
{
	struct aio_io *io;
	__u64 key;

	if (!aio_any)
		return;
	io = aio_top_of(bio, &key);
	if (io && (aio_part_done(bio, key, io) || aio_top_ends(key, bio, io)))
		aio_completed(key, io, false, now);
}

/* Bio `split` split off `parent` (block_split): a part of parent's I/O
 * if that one is on a request-based device, where each part completes
 * as its request (dm completes its own bio after the split's). */
static __always_inline void aio_split(struct bio *split, __u64 parent)
{
	__u64 key, part = (__u64)split;
	struct aio_io *io;

	if (!aio_any)
		return;
	io = aio_top_of(parent, &key);
	if (!io || (io->flags & AIO_F_DM))
		return;
	if (!bpf_map_update_elem(&aio_part, &part, &key, BPF_ANY))
		__sync_fetch_and_add(&io->parts, 1);
}

/* The I/O a crypto work item of `kind` serves (*key: its top bio). */
static __always_inline struct aio_io *aio_of_work(struct work_struct *work,
						  __u32 kind, __u64 *key)
{
	struct dm_crypt_io___x *cio;

	long long delta;

	if (kind == CRYPT_WORK_FSCRYPT_READ || kind == CRYPT_WORK_BLK_CRYPTO) {
		delta = kind == CRYPT_WORK_FSCRYPT_READ
				? ctx_delta[CRYPT_WORK_FSCRYPT_READ]
				: ctx_delta[CRYPT_WORK_BLK_CRYPTO];
		return delta ? aio_of(ctx_ptr(work, delta), key) : NULL;
	}
	if (kind != CRYPT_WORK_DMCRYPT ||
	    !bpf_core_type_exists(struct dm_crypt_io___x))
		return NULL;
	cio = (void *)work -
	      bpf_core_field_offset(struct dm_crypt_io___x, work);
	return aio_of(BPF_CORE_READ(cio, base_bio), key);
}

/* Crypto work item `work` (function func) queued, or started by this
 * worker. */
static __always_inline void aio_work(struct work_struct *work, __u64 func,
				     bool started, __u64 now)
{
	__u32 *kind, tid;
	struct aio_io *io;
	__u64 key;

	if (!aio_any)
		return;
	kind = bpf_map_lookup_elem(&crypt_funcs, &func);
	if (!kind)
		return;
	io = aio_of_work(work, *kind, &key);
	if (!io)
		return;
	aio_move(io, started ? LAYER_CRYPT : LAYER_CRYPT_QUEUE, now);
	if (!started)
		return;
	tid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_update_elem(&aio_cx, &tid, &key, BPF_ANY);
}

/* This worker ends the crypto work item it started (tid: its own). */
static __always_inline void aio_work_end(__u32 tid, __u64 now)
{
	__u64 *key;
	struct aio_io *io;

	if (!aio_any)
		return;
	key = bpf_map_lookup_elem(&aio_cx, &tid);
	if (!key)
		return;
	io = bpf_map_lookup_elem(&aio_ios, key);
	if (io)
		aio_move(io, io->flags & AIO_F_DM ? LAYER_DM : LAYER_FS, now);
	bpf_map_delete_elem(&aio_cx, &tid);
}

/* dm-crypt hands an encrypted write clone of io to its write thread. */
static __always_inline void aio_dmw_handoff(struct dm_crypt_io___x *cio,
					    __u64 now)
{
	struct aio_io *io;
	__u64 key;

	io = aio_of(BPF_CORE_READ(cio, base_bio), &key);
	if (io)
		aio_move(io, LAYER_DMCRYPT_WRITE, now);
}

/* A CQE of ring ctx posted: kept until reaped (aio_cq). */
static __always_inline void aio_cq_push(__u64 ctx, __u32 kind, __u64 ts,
					struct aio_stat *s)
{
	__u32 zero = 0;
	struct aio_cq *r = bpf_map_lookup_elem(&aio_cq, &ctx), *init;
	__u64 t;

	/* A new ring's entry, zeroed by the map (too big for the stack). */
	init = r ? NULL : bpf_map_lookup_elem(&aio_cq_zero, &zero);
	if (init) {
		bpf_map_update_elem(&aio_cq, &ctx, init, BPF_NOEXIST);
		r = bpf_map_lookup_elem(&aio_cq, &ctx);
	}
	if (!r)
		goto lost;
	aio_cq_own(r);
	t = __sync_fetch_and_add(&r->tail, 1);
	r->ts[t & (AIO_CQ_SLOTS - 1)] = ts;
	r->kind[t & (AIO_CQ_SLOTS - 1)] = kind;
	/* More unreaped than slots: the oldest is overwritten, lost. */
	if (t - r->head < AIO_CQ_SLOTS)
		return;
	r->head = t - AIO_CQ_SLOTS + 1;
lost:
	if (s)
		__sync_fetch_and_add(&s->reap_lost, 1);
}

/* io_uring_complete of request req on ring ctx, of op `op` when a traced
 * process submitted it at ts (its syscall-layer item), else -1. */
static __always_inline void aio_iou_complete(__u64 ctx, __u64 req, int op,
					     __u64 ts, __u64 now)
{
	__u64 *key = bpf_map_lookup_elem(&aio_req, &req), k = 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), kind;
	struct aio_io *io = NULL;
	struct aio_sub *sub;
	struct aio_stat *s;

	if (key) {
		k = *key;
		io = bpf_map_lookup_elem(&aio_ios, &k);
		if (!io || io->req != req) {
			bpf_map_delete_elem(&aio_req, &req);
			io = NULL;
		}
	}
	sub = bpf_map_lookup_elem(&aio_sub, &tid);
	if (io) {
		kind = io->op & AIO_CQ_OP;
		/* Still inside its submitting call (sub_end not set). */
		if (!io->sub_end)
			kind |= AIO_CQ_IN_CALL;
		s = aio_stat_of(io->op);
		aio_end(k, io, now);
		aio_cq_push(ctx, kind, now, s);
		return;
	}
	s = op >= 0 ? aio_stat_of(op) : NULL;
	/* Completed before any bio of its own: none may be bound to it
	 * later (it completes in its submitter's context). */
	if (sub && sub->req == req)
		sub->req = 0;
	aio_punt_done(req);
	if (!s || !ts)
		return;
	kind = (op & AIO_CQ_OP) | AIO_CQ_UNLINKED;
	if (sub && sub->enter && sub->enter <= ts &&
	    sub->call == AIO_CALL_IO_URING_ENTER)
		kind |= AIO_CQ_IN_CALL;
	aio_cq_push(ctx, kind, ts, s);
}

/* The CQEs kept of the ring thread state sub submitted to last, NULL if
 * none. */
static __always_inline struct aio_cq *aio_cq_of(const struct aio_sub *sub)
{
	__u64 ctx = sub->ctx;
	struct aio_cq *r;

	if (!ctx)
		return NULL;
	r = bpf_map_lookup_elem(&aio_cq, &ctx);
	if (r)
		aio_cq_own(r);
	return r;
}

/* A CQE of kind `kind` posted at ts and read by the reaper (sub) at at. */
static __always_inline void aio_cq_reaped(struct aio_stat *s,
					  const struct aio_sub *sub, __u8 kind,
					  __u64 ts, __u64 at)
{
	if (kind & AIO_CQ_UNLINKED) {
		__sync_fetch_and_add(&s->unlinked, 1);
		__sync_fetch_and_add(&s->unlinked_ns, at - ts);
		return;
	}
	__sync_fetch_and_add(&s->reaped, 1);
	__sync_fetch_and_add(&s->reap_ns, at - ts);
	__sync_fetch_and_add(&s->reap_cpu_ns, aio_runnable(sub, ts, at));
}

/* A traced thread enters io_uring_enter: the CQEs of its ring that it
 * has reaped since its last call (the ring holds fewer than aio_cq). */
static __always_inline void aio_iou_enter(__u32 tid, __u64 now)
{
	struct aio_sub *sub = bpf_map_lookup_elem(&aio_sub, &tid);
	struct aio_cq *r = sub ? aio_cq_of(sub) : NULL;
	struct io_ring_ctx *ctx;
	struct io_rings *rings;
	struct aio_stat *s;
	__u64 n, h, ts, at;
	__u32 head, tail, i;
	__u8 kind;

	if (!r || !sub)
		return;
	/* Through a local: BPF_CORE_READ would relocate sub->ctx itself. */
	ctx = (struct io_ring_ctx *)sub->ctx;
	rings = BPF_CORE_READ(ctx, rings);
	head = BPF_CORE_READ(rings, cq.head);
	tail = BPF_CORE_READ(rings, cq.tail);
	n = r->tail - r->head;
	n = n > (__u32)(tail - head) ? n - (__u32)(tail - head) : 0;
	/* One bound, no continue: with two bounds and continues clang laid
	 * the loop's latch out falling through into its head, a back-edge
	 * Linux 6.1's check_cfg refuses ("back-edge from insn 484 to 485":
	 * it allows loops only on jumps), and every program that inlines
	 * this failed to load there. */
	if (n > AIO_CQ_SLOTS)
		n = AIO_CQ_SLOTS;
	h = r->head;
	for (__u32 k = 0; k < n; k++) {
		i = (h + k) & (AIO_CQ_SLOTS - 1);
		ts = r->ts[i];
		kind = r->kind[i];
		s = aio_stat_of(kind & AIO_CQ_OP);
		at = r->exit > ts ? r->exit : ts;
		if (s && at <= now)
			aio_cq_reaped(s, sub, kind, ts, at);
	}
	r->head = h + n;
}

/* A traced thread's io_uring_enter returns: what fio's clat of the CQEs
 * posted inside it as the call of their submission starts at. */
static __always_inline void aio_iou_exit(__u32 tid, __u64 now)
{
	struct aio_sub *sub = bpf_map_lookup_elem(&aio_sub, &tid);
	struct aio_cq *r = sub ? aio_cq_of(sub) : NULL;
	__u64 t;
	__u32 i;

	if (!r || !sub || sub->call != AIO_CALL_IO_URING_ENTER)
		return;
	r->exit = now;
	/* Among the newest slots (others' CQEs may lie between). */
	t = r->tail;
	for (int k = 0; k < AIO_SUB_KEYS && t > r->head; k++) {
		i = --t & (AIO_CQ_SLOTS - 1);
		if (!(r->kind[i] & AIO_CQ_IN_CALL))
			continue;
		r->kind[i] &= ~AIO_CQ_IN_CALL;
		r->ts[i] = now;
	}
}

/* sched_waking of thread tid (or tid preempted: runnable from now), or
 * tid got a CPU (sched_switch's next). */
static __always_inline void aio_sched(__u32 tid, bool oncpu, __u64 *now)
{
	struct aio_sub *sub;

	if (!aio_any || !pid_may(tid, PID_CALLER))
		return;
	sub = bpf_map_lookup_elem(&aio_sub, &tid);
	if (!sub)
		return;
	if (!*now)
		*now = bpf_ktime_get_ns();
	if (oncpu)
		sub->oncpu = *now;
	else
		sub->woken = *now;
}

#endif /* __AIO_PATH_BPF_H */
