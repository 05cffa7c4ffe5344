/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-I/O attribution of asynchronous I/O (types in attrib.h), hooked into
 * attrib.bpf.c's handlers at the points they already trace.
 *
 * An I/O starts at its submission: io_submit's entry (libaio) or
 * io_uring_submit_req (io_uring), remembered per submitting thread. The
 * first bio that thread queues on the target's devices before its next
 * submission is the I/O's top bio, which keys its record; its further
 * bios (same dio) and those split off them are its parts (aio_part):
 * io_uring's leaves the device when the last of them completes
 * (libaio's ends with its top bio: aio_top_ends). From there each
 * event on its path moves it to the layer it enters, and the time since
 * the last move goes to the layer it leaves:
 *   fs (submission, completion path) -> dm (a dm device's bio) ->
 *   blk-queue (a bio below, or on a plain device) -> device (request
 *   issued) -> dm or fs (request completed) -> crypt-queue (a decrypt work
 *   item queued for it) -> crypt (run) -> ... -> the end:
 *   - io_uring: io_uring_complete of its request (the CQE, posted in the
 *     submitter's own context, so its wake-up is in the last fs part);
 *   - libaio: the completion of its top bio (block_rq_complete on a plain
 *     device, block_bio_complete on dm: the kernel's aio completion runs
 *     inside it for direct I/O, and no tracepoint marks aio_complete), or
 *     the return of io_submit for an I/O completed inside it (buffered).
 * Completed I/Os then wait to be reaped, which ends what fio counts as
 * their completion latency: libaio's until io_getevents returns them
 * (aio_reap), io_uring's until fio reads their CQEs from the ring
 * (aio_cq), the unfollowed ones' too.
 *
 * Here: the records, their accounting and the submission; the path below
 * and the completion are in aio_path.bpf.h.
 */
#ifndef __AIO_IO_BPF_H
#define __AIO_IO_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "attrib.h"
#include "core_fixes.bpf.h"
#include "filters.bpf.h"
#include "pid_bits.bpf.h"

/* In flight at once: the traced jobs' queue depths together. */
#define MAX_AIO_IOS	2048
#define MAX_AIO_THREADS 1024
/* Threads reaping libaio completions (one per fio job): each holds
 * AIO_REAP_SLOTS slots, 602 KiB at 1024 of them; one past them has its
 * completions counted in reap_lost. */
#define MAX_AIO_REAPERS 256
/* Bound I/Os of one submitting call (fio's iodepth_batch_submit; more
 * close their submission at once) and completed, unreaped ones of one
 * thread (its queue depth; more are counted in reap_lost). */
#define AIO_SUB_KEYS   8
#define AIO_REAP_SLOTS 64
/* A reap slot: the completion time, its op in the top bits. */
#define AIO_SLOT_OP_SHIFT 60
#define AIO_SLOT_OP_MASK  7ULL
#define AIO_SLOT_TS_MASK  ((1ULL << AIO_SLOT_OP_SHIFT) - 1)
/* The flag of a slot holding an I/O that was not followed (no bio of its
 * own: a page cache hit): kept for the ring's order, and its reaping is
 * all of its completion latency (unlinked_ns), which fio's clat counts. */
#define AIO_SLOT_UNLINKED (1ULL << 63)
/* dm devices stacked above the device that queues a bio's request. */
#define AIO_DM_DEPTH 4

/* Syscall number + 1 of each enum aio_call (0: none), set by user space. */
const volatile __u32 aio_nr[NR_AIO_CALLS] = {};

struct aio_io {
	__u64 start;   /* the submission began */
	__u64 last;    /* it entered `layer` */
	__u64 sub_end; /* its submitting call returned (0: not yet) */
	__u64 req;     /* io_uring: its request; 0: libaio */
	__u32 tid;     /* its submitter */
	__u16 op;
	__u8 layer;
	__u8 flags; /* AIO_F_* */
	/* Its bios not yet completed: the top one, the others its
	 * submission queued for it (aio_part) and the parts split off them
	 * below (block_split). It has completed when the last one has. */
	__u32 parts;
	/* Nanoseconds per layer, 64 bits: cut at 4.3 s (32), an I/O ended
	 * seconds late lost the rest, and the layers fell short of its
	 * latency (test_aio in CI, 2026-12-06). */
	__u64 ns_sub[NR_LAYERS];
	__u64 ns[NR_LAYERS];
};

#define AIO_F_DM   1 /* its top bio is on a dm device */
#define AIO_F_DONE 2 /* completed inside its submitting call */

/* The submitting thread's state (key: tid). */
struct aio_sub {
	__u64 enter;	   /* the open aio call's entry, 0: none */
	__u64 req, req_ts; /* io_uring: submitted, no bio bound yet */
	__u32 call;	   /* enum aio_call open */
	__u32 left;	   /* libaio: iocbs of io_submit still unbound */
	__u32 n;	   /* I/Os bound in the open call (keys[] holds 8) */
	__u32 op;	   /* libaio: the op of io_submit's first iocb */
	/* io_getevents: events in the kernel's ring ahead of those this
	 * thread's reap slots know (completed before tracing began), and
	 * slots the ring no longer holds, as counted at its entry. */
	__u32 skip, stale;
	/* Its last wakeup, and when it got a CPU next: the runnable
	 * stretch of its reaping (cpu-wait). */
	__u64 woken, oncpu;
	__u64 keys[AIO_SUB_KEYS]; /* I/Os bound in the open call */
	__u64 ctx;		  /* io_uring: the ring it submitted to last */
	/* The I/O last bound in the call entered at part_enter, and its top
	 * bio's bi_private: a further bio of that call with the same one
	 * (iomap's and the block device's direct I/O point every bio of one
	 * I/O at its dio) is a part of it, not the next I/O. */
	__u64 part_key, part_priv, part_enter;
};

/* libaio's completed, unreaped I/Os of one thread, oldest at head. */
struct aio_reap {
	__u64 head, tail;
	__u64 slot[AIO_REAP_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NR_OPS);
	__type(key, __u32);
	__type(value, struct aio_stat);
} aio_stats SEC(".maps");

/* By top bio. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_AIO_IOS);
	__type(key, __u64);
	__type(value, struct aio_io);
} aio_ios SEC(".maps");

/* io_uring request -> its top bio. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_AIO_IOS);
	__type(key, __u64);
	__type(value, __u64);
} aio_req SEC(".maps");

/* A bio of an I/O other than its top one -> its top bio. LRU: a part
 * whose completion went unseen is forgotten in time. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries,
	       1024); /* parts in flight: few (QD 64 of 2 MiB: 256) */
	__type(key, __u64);
	__type(value, __u64);
} aio_part SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_AIO_THREADS);
	__type(key, __u32);
	__type(value, struct aio_sub);
} aio_sub SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_AIO_REAPERS);
	__type(key, __u32);
	__type(value, struct aio_reap);
} aio_reap SEC(".maps");

/* io_uring requests of one process punted to its io-wq workers
 * (io_uring_queue_async_work) before a bio of theirs was seen, oldest at
 * head: a worker of the process queueing a bio takes the oldest. With
 * several workers at once the pairing may swap two requests, whose
 * starts and ends stay their own (their layers are swapped). */
#define AIO_PUNT_SLOTS 8

struct aio_punt {
	__u64 head, tail;
	__u64 req[AIO_PUNT_SLOTS], ts[AIO_PUNT_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32); /* tgid */
	__type(value, struct aio_punt);
} aio_punt SEC(".maps");

/* Punted requests waiting for a worker's bio, over all processes: the
 * bio queue's lookup in aio_punt only while some wait. */
__s64 aio_punts = 0;

/*
 * io_uring's CQEs of traced requests, in the order they were posted, until
 * the submitter reaps them: fio reads them from the ring in user space,
 * which no event marks, so its next io_uring_enter tells, by the ring's
 * own count (cq.tail - cq.head: those left unreaped are the newest). It
 * reaps when its queue is full, right after a call returns, so a CQE
 * reaped is taken as reaped at the ring's last return (`exit`), or at
 * its posting if later. ts: where what is left of fio's clat starts (the
 * CQE of a followed I/O; an unfollowed one's submission, or for one
 * completed inside its submitting call that call's return); kind: its
 * op and AIO_CQ_* flags.
 */
#define AIO_CQ_SLOTS	64
#define AIO_CQ_OP	7
#define AIO_CQ_UNLINKED 8  /* not followed: all of it is its latency */
#define AIO_CQ_IN_CALL	16 /* posted inside its submitting call */

struct aio_cq {
	__u64 head, tail, exit;
	/* The process whose ring it is: a ring freed with CQEs unreaped
	 * (fio exits) and its address taken by the next fio's leaves its
	 * slots behind, which that one's reaping would take as its own
	 * (seconds late: +108 % in a run on this host). */
	__u32 tgid;
	__u64 ts[AIO_CQ_SLOTS];
	__u8 kind[AIO_CQ_SLOTS];
};

/* r, as the ring of the current process: emptied if it was another's. */
static __always_inline void aio_cq_own(struct aio_cq *r)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (r->tgid == tgid)
		return;
	r->tgid = tgid;
	r->head = r->tail;
	r->exit = 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64); /* struct io_ring_ctx * */
	__type(value, struct aio_cq);
} aio_cq SEC(".maps");

/*
 * Set before the first aio_sub entry is made, never cleared: every map
 * the hooks below read fills only through one (a bound I/O needs its
 * submitter's entry, a part or a reap slot its I/O or its call), so until then
 * the hooks that run for a synchronous caller's every syscall, context switch,
 * bio and request leave without their lookups, all of which would miss (about 8
 * hash lookups per psync I/O, 100-300 ns each on this project's machines).
 */
__u32 aio_any = 0;

/* One zeroed aio_reap, a new thread's entry (too big for the stack). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct aio_reap);
} aio_reap_zero SEC(".maps");

/* One zeroed aio_cq, a new ring's entry. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct aio_cq);
} aio_cq_zero SEC(".maps");

/* A worker running crypto work for an I/O: tid -> its top bio. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_AIO_THREADS);
	__type(key, __u32);
	__type(value, __u64);
} aio_cx SEC(".maps");

static __always_inline struct aio_stat *aio_stat_of(__u32 op)
{
	return op < NR_OPS ? bpf_map_lookup_elem(&aio_stats, &op) : NULL;
}

/* enum aio_call of syscall id, AIO_CALL_NONE for any other. */
static __always_inline __u32 aio_call_of(long id)
{
	for (__u32 c = AIO_CALL_IO_SUBMIT; c < NR_AIO_CALLS; c++)
		if (aio_nr[c] && aio_nr[c] == id + 1)
			return c;
	return AIO_CALL_NONE;
}

/* The time since io's last move goes to the layer it is in. */
static __always_inline void aio_account(struct aio_io *io, __u64 now)
{
	__u64 d = now > io->last ? now - io->last : 0;
	__u32 l = io->layer;

	barrier_var(l);
	if (l < NR_LAYERS) {
		if (io->sub_end)
			io->ns[l] += d;
		else
			io->ns_sub[l] += d;
	}
	io->last = now;
}

static __always_inline void aio_move(struct aio_io *io, int layer, __u64 now)
{
	aio_account(io, now);
	io->layer = layer;
}

/* libaio: an I/O of op `op` of thread tid (unlinked: not followed)
 * completed at `ts`, to be reaped by it; s: its op's stats. */
static __always_inline void aio_reap_push(__u32 tid, __u32 op, bool unlinked,
					  __u64 ts, struct aio_stat *s)
{
	struct aio_reap *r = bpf_map_lookup_elem(&aio_reap, &tid), *init;
	__u64 v = (ts & AIO_SLOT_TS_MASK) |
		  (((__u64)op & AIO_SLOT_OP_MASK) << AIO_SLOT_OP_SHIFT) |
		  (unlinked ? AIO_SLOT_UNLINKED : 0);
	__u32 zero = 0;
	__u64 t;

	if (!r) {
		init = bpf_map_lookup_elem(&aio_reap_zero, &zero);
		if (!init)
			goto lost;
		bpf_map_update_elem(&aio_reap, &tid, init, BPF_NOEXIST);
		r = bpf_map_lookup_elem(&aio_reap, &tid);
		if (!r)
			goto lost;
	}
	t = __sync_fetch_and_add(&r->tail, 1);
	/* A slot still held: more unreaped than slots, the oldest lost. */
	if (!__sync_lock_test_and_set(&r->slot[t & (AIO_REAP_SLOTS - 1)], v))
		return;
lost:
	if (s)
		__sync_fetch_and_add(&s->reap_lost, 1);
}

/* The part of [from, to] that thread sub spent runnable: from its last
 * wakeup until it got a CPU. */
static __always_inline __u64 aio_runnable(const struct aio_sub *sub, __u64 from,
					  __u64 to)
{
	__u64 s = sub->woken > from ? sub->woken : from;

	if (!sub->woken || sub->oncpu <= s || sub->oncpu > to)
		return 0;
	return sub->oncpu - s;
}

/* io_uring's completion runs in its submitter's own context: the
 * submitter's runnable stretch since io's last move is cpu-wait. */
static __always_inline void aio_split_runnable(struct aio_io *io, __u64 now)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct aio_sub *sub;
	__u64 r, s;

	if (tid != io->tid)
		return;
	sub = bpf_map_lookup_elem(&aio_sub, &tid);
	if (!sub)
		return;
	r = aio_runnable(sub, io->last, now);
	if (!r)
		return;
	s = sub->woken > io->last ? sub->woken : io->last;
	aio_move(io, LAYER_CPU_WAIT, s);
	aio_move(io, LAYER_FS, s + r);
}

/* I/O `key` (record io) completes now. */
static __always_inline void aio_end(__u64 key, struct aio_io *io, __u64 now)
{
	struct aio_stat *s = aio_stat_of(io->op);

	if (io->req)
		aio_split_runnable(io, now);
	aio_account(io, now);
	if (!io->sub_end)
		io->sub_end = now;
	if (s) {
		__sync_fetch_and_add(&s->ios, 1);
		if (io->req)
			__sync_fetch_and_add(&s->iouring, 1);
		if (io->flags & AIO_F_DONE)
			__sync_fetch_and_add(&s->in_call, 1);
		__sync_fetch_and_add(&s->sub_ns, io->sub_end - io->start);
		__sync_fetch_and_add(&s->clat_ns, now - io->sub_end);
		for (int l = 0; l < NR_LAYERS; l++) {
			if (io->ns_sub[l])
				__sync_fetch_and_add(&s->ns_sub[l],
						     io->ns_sub[l]);
			if (io->ns[l])
				__sync_fetch_and_add(&s->ns[l], io->ns[l]);
		}
		if (!io->req)
			aio_reap_push(io->tid, io->op, false, now, s);
	}
	if (io->req)
		bpf_map_delete_elem(&aio_req, &io->req);
	bpf_map_delete_elem(&aio_ios, &key);
}

/* Its top bio (or request) completed: libaio's I/O ends unless its
 * submitting call is still open; the rest go on in dm or fs. */
static __always_inline void aio_completed(__u64 key, struct aio_io *io,
					  bool dm_below, __u64 now)
{
	if (dm_below) {
		aio_move(io, LAYER_DM, now);
		return;
	}
	if (!io->req && io->sub_end) {
		aio_end(key, io, now);
		return;
	}
	if (!io->req)
		io->flags |= AIO_F_DONE;
	aio_move(io, LAYER_FS, now);
}

/* ---- submission --------------------------------------------------- */

static __always_inline struct aio_sub *aio_sub_get(__u32 tid)
{
	struct aio_sub *sub = bpf_map_lookup_elem(&aio_sub, &tid), init = {};

	if (sub)
		return sub;
	if (!aio_any)
		aio_any = 1;
	bpf_map_update_elem(&aio_sub, &tid, &init, BPF_NOEXIST);
	return bpf_map_lookup_elem(&aio_sub, &tid);
}

/* The head of struct aio_ring (fs/aio.c), mapped at the context's id in
 * the caller's memory: the kernel's ring of completed events. */
struct aio_ring_head {
	__u32 id, nr, head, tail, magic;
};

#define AIO_RING_MAGIC 0xa10a10a1

/* io_getevents of context ctx_id entered: how the kernel's unreaped
 * events line up with the thread's reap slots. Events enter the ring in
 * completion order, the slots' order: those the slots lack are the
 * oldest (before tracing), slots beyond the ring's count are gone. */
static __always_inline void aio_ring_count(__u32 tid, __u64 ctx_id,
					   struct aio_sub *sub)
{
	struct aio_reap *r = bpf_map_lookup_elem(&aio_reap, &tid);
	struct aio_ring_head h;
	__u64 depth = r ? r->tail - r->head : 0, pending;

	sub->skip = 0;
	sub->stale = 0;
	if (bpf_probe_read_user(&h, sizeof(h), (void *)ctx_id) ||
	    h.magic != AIO_RING_MAGIC || !h.nr || h.head >= h.nr ||
	    h.tail >= h.nr)
		return;
	pending = h.tail >= h.head ? h.tail - h.head : h.nr - h.head + h.tail;
	if (pending > depth)
		sub->skip = pending - depth;
	else
		sub->stale = depth - pending;
}

/* A traced thread enters aio call `call` (id's enum aio_call); nr: the
 * iocbs io_submit is given. */
static __always_inline void aio_sys_enter(__u32 tid, __u32 call, __u64 ctx_id,
					  __u64 nr, __u64 iocbpp, __u64 now)
{
	struct aio_sub *sub = aio_sub_get(tid);
	struct iocb *cb = NULL;
	__u16 opcode = IOCB_CMD_PREAD;

	if (!sub)
		return;
	if (call == AIO_CALL_IO_GETEVENTS || call == AIO_CALL_IO_PGETEVENTS)
		aio_ring_count(tid, ctx_id, sub);
	if (call == AIO_CALL_IO_SUBMIT &&
	    !bpf_probe_read_user(&cb, sizeof(cb), (void *)iocbpp))
		bpf_probe_read_user(&opcode, sizeof(opcode),
				    &cb->aio_lio_opcode);
	sub->op = opcode == IOCB_CMD_PWRITE || opcode == IOCB_CMD_PWRITEV
			  ? EB_OP_WRITE
			  : EB_OP_READ;
	pid_mark(tid, PID_CALLER);
	sub->enter = now;
	sub->call = call;
	sub->n = 0;
	sub->left = call == AIO_CALL_IO_SUBMIT ? (nr > 64 ? 64 : nr) : 0;
}

/*
 * A request submitted anew at the address of one an I/O is still bound
 * to: that one's completion was missed (its bio bound to the request
 * after the request had completed, as a punted one's could be), and the
 * new request's completion would end it, seconds late. It is dropped,
 * not followed.
 */
static __always_inline void aio_req_stale(__u64 req)
{
	__u64 *key = bpf_map_lookup_elem(&aio_req, &req), k;
	struct aio_stat *s;
	struct aio_io *io;

	if (!key)
		return;
	k = *key;
	io = bpf_map_lookup_elem(&aio_ios, &k);
	if (io && io->req == req) {
		s = aio_stat_of(io->op);
		if (s) {
			__sync_fetch_and_add(&s->dropped, 1);
			__sync_fetch_and_add(&s->stale, 1);
		}
		bpf_map_delete_elem(&aio_ios, &k);
	}
	bpf_map_delete_elem(&aio_req, &req);
}

/* io_uring_submit_req of request req by a traced thread. */
static __always_inline void aio_iou_submit(__u64 req, __u64 now)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct aio_sub *sub = aio_sub_get(tid);

	if (!sub)
		return;
	aio_req_stale(req);
	pid_mark(tid, PID_CALLER);
	sub->req = req;
	sub->req_ts = now;
	sub->ctx = (__u64)BPF_CORE_READ((struct io_kiocb *)req, ctx);
}

/* The traced thread's aio call returns: the I/Os it submitted leave
 * their submission (those already complete end); libaio's reaping calls
 * reap `ret` of the thread's completed I/Os. */
static __always_inline void aio_sys_exit(__u32 tid, long ret, __u64 now)
{
	struct aio_sub *sub;
	struct aio_reap *r;
	struct aio_stat *s;
	struct aio_io *io;
	__u64 key, v;
	__u32 call;

	if (!aio_any)
		return;
	sub = bpf_map_lookup_elem(&aio_sub, &tid);
	if (!sub || !sub->call)
		return;
	call = sub->call;
	/* Accepted iocbs with no bio seen completed here, from the page
	 * cache: in the ring's order, not followed, counted when reaped. */
	if (call == AIO_CALL_IO_SUBMIT && ret > sub->n) {
		__u64 k = ret - sub->n < AIO_SUB_KEYS ? ret - sub->n
						      : AIO_SUB_KEYS;

		s = aio_stat_of(sub->op);
		for (int i = 0; i < AIO_SUB_KEYS && i < k; i++)
			aio_reap_push(tid, sub->op, true, now, s);
		/* Each inside the call for all of it, as fio's slat has it:
		 * a page cache hit's is short, a read waiting for another's
		 * readahead (and its decryption) is not. */
		if (s && sub->enter && now > sub->enter) {
			__sync_fetch_and_add(&s->unlinked_sub, k);
			__sync_fetch_and_add(&s->unlinked_sub_ns,
					     k * (now - sub->enter));
		}
	}
	for (int i = 0; i < AIO_SUB_KEYS && i < sub->n; i++) {
		key = sub->keys[i];
		io = bpf_map_lookup_elem(&aio_ios, &key);
		if (!io || io->sub_end)
			continue;
		aio_account(io, now);
		io->sub_end = now;
		if (io->flags & AIO_F_DONE)
			aio_end(key, io, now);
	}
	sub->call = AIO_CALL_NONE;
	sub->enter = 0;
	sub->n = 0;
	sub->left = 0;
	if (call != AIO_CALL_IO_GETEVENTS && call != AIO_CALL_IO_PGETEVENTS)
		return;
	r = bpf_map_lookup_elem(&aio_reap, &tid);
	if (!r || ret <= 0)
		return;
	for (int k = 0; k < AIO_REAP_SLOTS && k < sub->stale; k++) {
		if (!__sync_lock_test_and_set(
			    &r->slot[r->head & (AIO_REAP_SLOTS - 1)], 0))
			break;
		r->head++;
	}
	ret = ret > sub->skip ? ret - sub->skip : 0;
	/* The kernel's ring hands events out oldest first, `ret` of them
	 * (fio reaps one at a time, leaving the rest for later). */
	for (int k = 0; k < AIO_REAP_SLOTS && k < ret; k++) {
		v = __sync_lock_test_and_set(
			&r->slot[r->head & (AIO_REAP_SLOTS - 1)], 0);
		/* Empty: its completion is being pushed right now. */
		if (!v)
			return;
		r->head++;
		s = aio_stat_of((v >> AIO_SLOT_OP_SHIFT) & AIO_SLOT_OP_MASK);
		if (!s || now < (v & AIO_SLOT_TS_MASK))
			continue;
		/* A page cache hit: its reaping is its completion latency. */
		if (v & AIO_SLOT_UNLINKED) {
			__sync_fetch_and_add(&s->unlinked, 1);
			__sync_fetch_and_add(&s->unlinked_ns,
					     now - (v & AIO_SLOT_TS_MASK));
			continue;
		}
		__sync_fetch_and_add(&s->reaped, 1);
		__sync_fetch_and_add(&s->reap_ns, now - (v & AIO_SLOT_TS_MASK));
		__sync_fetch_and_add(
			&s->reap_cpu_ns,
			aio_runnable(sub, v & AIO_SLOT_TS_MASK, now));
	}
}

/* io_uring_queue_async_work of request req: if its submitter had not
 * bound a bio to it, an io-wq worker will queue its bio. */
static __always_inline void aio_iou_punt(__u64 req)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, tgid = pid_tgid >> 32;
	struct aio_sub *sub = bpf_map_lookup_elem(&aio_sub, &tid);
	struct aio_punt *p, init = {};
	__u64 t;

	if (!sub || sub->req != req)
		return;
	sub->req = 0;
	p = bpf_map_lookup_elem(&aio_punt, &tgid);
	if (!p) {
		bpf_map_update_elem(&aio_punt, &tgid, &init, BPF_NOEXIST);
		p = bpf_map_lookup_elem(&aio_punt, &tgid);
		if (!p)
			return;
	}
	t = p->tail++;
	/* Full: the oldest is overwritten (it goes unlinked). */
	if (p->tail - p->head > AIO_PUNT_SLOTS)
		p->head = p->tail - AIO_PUNT_SLOTS;
	else
		__sync_fetch_and_add(&aio_punts, 1);
	p->req[t & (AIO_PUNT_SLOTS - 1)] = req;
	p->ts[t & (AIO_PUNT_SLOTS - 1)] = sub->req_ts;
}

/* A punted request of this process for the bio this thread queues (a
 * worker of it): its request and submission time, false if none. */
static __always_inline bool aio_punt_take(__u64 *req, __u64 *ts)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct aio_punt *p;
	__u64 h;

	if (aio_punts <= 0)
		return false;
	p = bpf_map_lookup_elem(&aio_punt, &tgid);
	if (!p || p->head == p->tail)
		return false;
	/* Skip those that completed unbound (aio_punt_done). */
	for (int i = 0; i < AIO_PUNT_SLOTS && p->head != p->tail; i++) {
		h = p->head++;
		__sync_fetch_and_add(&aio_punts, -1);
		*req = p->req[h & (AIO_PUNT_SLOTS - 1)];
		*ts = p->ts[h & (AIO_PUNT_SLOTS - 1)];
		if (*req)
			return true;
	}
	return false;
}

/* Punted request req completed with no bio bound to it (served from the
 * page cache by its worker): no later bio may take it. */
static __always_inline void aio_punt_done(__u64 req)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct aio_punt *p;

	if (aio_punts <= 0)
		return;
	p = bpf_map_lookup_elem(&aio_punt, &tgid);
	if (!p)
		return;
	for (int i = 0; i < AIO_PUNT_SLOTS; i++)
		if (p->req[i] == req)
			p->req[i] = 0;
}

/* Bio `key` (bi_private priv) queued by thread sub in an open call: a
 * further bio of the I/O it bound last in that call, if that one's dio
 * is priv and alive (some bio of it not completed: its dio is not freed,
 * so no other I/O has its address). */
static __always_inline bool aio_bind_part(struct aio_sub *sub, __u64 key,
					  __u64 priv)
{
	__u64 top = sub->part_key;
	struct aio_io *io;

	if (!priv || priv != sub->part_priv || !sub->enter ||
	    sub->enter != sub->part_enter)
		return false;
	io = bpf_map_lookup_elem(&aio_ios, &top);
	if (!io || !io->parts)
		return false;
	if (!bpf_map_update_elem(&aio_part, &key, &top, BPF_ANY))
		__sync_fetch_and_add(&io->parts, 1);
	return true;
}

/* Bio `bio` queued by this thread: the top bio of its pending
 * submission, if it has one, or a further bio of the I/O it submitted
 * last. */
static __always_inline bool aio_bind(struct bio *bio, __u32 op, bool dm,
				     __u64 now)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 key = (__u64)bio, priv = 0;
	struct aio_io io = {}, *old;
	struct aio_stat *s;
	struct aio_sub *sub;

	sub = pid_may(tid, PID_CALLER) ? bpf_map_lookup_elem(&aio_sub, &tid)
				       : NULL;
	if (sub) {
		priv = (__u64)BPF_CORE_READ(bio, bi_private);
		if (aio_bind_part(sub, key, priv))
			return true;
	}
	if (sub && sub->call == AIO_CALL_IO_SUBMIT && sub->left) {
		io.start = sub->enter;
		sub->left--;
	} else if (sub && sub->req) {
		io.start = sub->req_ts;
		io.req = sub->req;
		sub->req = 0;
	} else if (aio_punt_take(&io.req, &io.start)) {
		/* An io-wq worker's: its submitting call is long over. */
		sub = NULL;
	} else {
		return false;
	}
	io.tid = tid;
	io.op = op;
	io.layer = LAYER_FS;
	io.parts = 1;
	io.last = io.start;
	/* Submitted outside a syscall (SQPOLL's thread), or punted to an
	 * io-wq worker (its submitting call's end unknown): no slat. */
	if (!sub || !sub->enter)
		io.sub_end = io.start;
	aio_move(&io, dm ? LAYER_DM : LAYER_BLK_QUEUE, now);
	if (dm)
		io.flags |= AIO_F_DM;
	old = bpf_map_lookup_elem(&aio_ios, &key);
	if (old) {
		/* Its bio ended unseen (a REQ_NOWAIT bio failed without a
		 * request: io_uring retries it on an io-wq worker) and was
		 * freed, its address reused: that I/O goes on unfollowed,
		 * its completion counted as unlinked. */
		if (old->req)
			bpf_map_delete_elem(&aio_req, &old->req);
		bpf_map_delete_elem(&aio_ios, &key);
	}
	if (bpf_map_update_elem(&aio_ios, &key, &io, BPF_NOEXIST)) {
		s = aio_stat_of(op);
		if (s)
			__sync_fetch_and_add(&s->dropped, 1);
		return true;
	}
	if (io.req)
		bpf_map_update_elem(&aio_req, &io.req, &key, BPF_ANY);
	if (sub && sub->enter) {
		sub->part_key = key;
		sub->part_priv = priv;
		sub->part_enter = sub->enter;
	}
	if (sub && !io.sub_end) {
		if (sub->n < AIO_SUB_KEYS)
			sub->keys[sub->n & (AIO_SUB_KEYS - 1)] = key;
		sub->n++;
	}
	return true;
}

#endif /* __AIO_IO_BPF_H */
