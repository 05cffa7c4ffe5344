// SPDX-License-Identifier: GPL-2.0
/*
 * Latency attribution: each layer's items (a syscall, a bio waiting for
 * its request to be issued, a request on the device, a crypto work item
 * waiting and running) are timed from a start event to an end event and
 * accumulated into the `stats` array map at layer * NR_OPS + op. User
 * space reads and zeroes it between phases. Here: the syscall layer,
 * io_uring's requests, the traced set, the scheduler's and jbd2's events
 * and the write side's crypt calls; the items' machinery is in
 * items.bpf.h, blk-queue and device in block.bpf.h, the work items of
 * crypt-queue and crypt in crypt_work.bpf.h.
 *
 * Every tracepoint program exists twice, tp_btf (preferred) and raw_tp
 * (fallback); user space turns autoload off for the flavour it does not
 * use. Pointers are read with BPF_CORE_READ so one handler serves both;
 * the handlers that run for every request, work item and context switch
 * take the flavour (TP_PAIR_BTF) and read their arguments' fields
 * directly in tp_btf (BTF_READ), without a helper call per field.
 */
#include "core_fixes.bpf.h" /* first: it includes vmlinux.h */
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "attrib.h"
#include "filters.bpf.h"
#include "maps.bpf.h"
#include "pid_bits.bpf.h"
#include "wait_state.bpf.h"
#include "wait_chain.bpf.h"
#include "wait_io.bpf.h"
#include "wait_sched.bpf.h"
#include "aio_io.bpf.h"
#include "aio_path.bpf.h"
#include "items.bpf.h"
#include "block.bpf.h"
#include "crypt_work.bpf.h"

__u32 root_tgid = 0;
/* User space sets PID_TRACED bits too (it has mapped pid_bits): only
 * then may a clear one skip the lookup in `traced`. */
__u32 traced_bits = 0;
/* `trace --cgroup`: the cgroup v2 id whose tasks count too (0: none). */
__u64 cgroup_id = 0;

/* ---- syscall ----------------------------------------------------- */

/*
 * A timed call of thread tid enters. Its thr entry (wait_state.bpf.h),
 * which the wait decomposition follows, is also its item in the syscall
 * layer, timed from t->start: one hash update and one delete per call,
 * where an entry of its own in a second map doubled both (200-300 ns
 * each on this project's machines under load). As item_start_v: a key
 * still there (a call whose end went unseen) is restarted, keeping its
 * unit of inflight; a full map drops the call, counted.
 */
static __always_inline void sys_call_start(__u32 tid, __u32 op, __u64 now)
{
	struct thr_wait v = {
		.start = now, .last = now, .op = op, .why_stack = -1};
	struct layer_stat *s = stat_of(LAYER_SYSCALL, op);
	struct thr_wait *old;
	long err;

	if (!s)
		return;
	old = bpf_map_lookup_elem(&thr, &tid);
	if (old) {
		item_reop(LAYER_SYSCALL, old->op, op, s, now);
		bpf_map_update_elem(&thr, &tid, &v, BPF_ANY);
		return;
	}
	err = bpf_map_update_elem(&thr, &tid, &v, BPF_NOEXIST);
	if (err) {
		if (err != -EEXIST_)
			__sync_fetch_and_add(&s->dropped, 1);
		return;
	}
	stat_busy_begin(s, now);
}

/* Its end: whoever deletes the entry accounts for it (user space
 * clearing thr between phases, or a concurrent end), from a copy. */
static __always_inline bool sys_call_end(__u32 tid, struct thr_wait *t,
					 __u64 now)
{
	struct thr_wait c = *t;
	struct layer_stat *s;

	if (bpf_map_delete_elem(&thr, &tid))
		return false;
	s = stat_of(LAYER_SYSCALL, c.op);
	if (s) {
		stat_record(s, now > c.start ? now - c.start : 0);
		stat_busy_end(s, now);
	}
	wait_sys_exit(&c, now);
	return true;
}

/* include/uapi/linux/io_uring.h: io_uring_enter waits for min_complete
 * completions only with this flag; without it min_complete is ignored. */
#define EB_IORING_ENTER_GETEVENTS 1U

/* Whether the current task's syscalls count: a traced process, or a
 * task of the traced cgroup. */
static __always_inline bool is_traced(__u32 tgid)
{
	if ((!traced_bits || pid_may(tgid, PID_TRACED)) &&
	    bpf_map_lookup_elem(&traced, &tgid))
		return true;
	return cgroup_id && bpf_get_current_cgroup_id() == cgroup_id;
}

static __always_inline int on_sys_enter(__u64 *ctx)
{
	long id = (long)ctx[1];
	__u64 pid_tgid, now;
	__u32 key, tgid, tid, *v, op;

	if (!tracing_on || id < 0 || id >= MAX_SYSCALLS)
		return 0;
	key = id;
	v = bpf_map_lookup_elem(&sys_ops, &key);
	if (!v || !*v) {
		/* Async I/O's submitting and reaping calls (aio_io.bpf.h,
		 * aio_path.bpf.h). */
		key = aio_call_of(id);
		pid_tgid = bpf_get_current_pid_tgid();
		if (!key || !is_traced(pid_tgid >> 32))
			return 0;
		now = bpf_ktime_get_ns();
		if (key == AIO_CALL_IO_URING_ENTER)
			aio_iou_enter((__u32)pid_tgid, now);
		aio_sys_enter((__u32)pid_tgid, key,
			      sys_arg((struct pt_regs *)ctx[0], 0),
			      sys_arg((struct pt_regs *)ctx[0], 1),
			      sys_arg((struct pt_regs *)ctx[0], 2), now);
		/* A reaping call is the caller's own wait, split by what
		 * woke it as a blocking call's is: io_getevents, or
		 * io_uring_enter asked to wait for min_complete ones. */
		if (key == AIO_CALL_IO_GETEVENTS ||
		    key == AIO_CALL_IO_PGETEVENTS ||
		    (key == AIO_CALL_IO_URING_ENTER &&
		     (__u32)sys_arg((struct pt_regs *)ctx[0], 2) &&
		     (sys_arg((struct pt_regs *)ctx[0], 3) &
		      EB_IORING_ENTER_GETEVENTS))) {
			pid_mark((__u32)pid_tgid, PID_CALLER);
			sys_call_start((__u32)pid_tgid, EB_OP_REAP, now);
		}
		return 0;
	}
	pid_tgid = bpf_get_current_pid_tgid();
	tgid = pid_tgid >> 32;
	if (!is_traced(tgid))
		return 0;
	op = sys_op_of((struct pt_regs *)ctx[0], *v);
	if (!op)
		return 0;
	tid = (__u32)pid_tgid;
	pid_mark(tid, PID_CALLER);
	sys_call_start(tid, op - 1, bpf_ktime_get_ns());
	return 0;
}

/*
 * calls_by_sched (wait_state.bpf.h): the caller switching out (current),
 * before on_sched_switch moves its state. A traced thread blocking or
 * preempted inside a counted call gets a thr entry that stays, its op
 * the call's; outside one (and while no window is open) its op is
 * NR_OPS, which counts nothing. Its state is THR_ON_CPU here: it runs.
 */
static __always_inline void sched_call_out(void)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct thr_wait *t = NULL;
	int op;

	if (pid_may(tid, PID_CALLER))
		t = bpf_map_lookup_elem(&thr, &tid);
	if (!t && (!tracing_on || !is_traced(pid_tgid >> 32)))
		return;
	op = tracing_on ? current_call_op() : -1;
	if (t) {
		t->op = op < 0 ? NR_OPS : (__u32)op;
		return;
	}
	if (op >= 0) {
		struct thr_wait v = {.op = op, .why_stack = -1};

		pid_mark(tid, PID_CALLER);
		bpf_map_update_elem(&thr, &tid, &v, BPF_NOEXIST);
	}
}

/* ---- io_uring: each request is a syscall-layer item ------------------
 * io_uring_enter submits and reaps many requests at once, so it is not
 * timed itself; each request is, from its submission (by a traced process
 * or its SQPOLL thread, which shares its tgid) to its completion, which
 * may run in any context. */

/* enum eb_op of an io_uring opcode (uapi values, stable), or -1. */
static __always_inline int iou_op(__u8 opcode)
{
	switch (opcode) {
	case IORING_OP_READV:
	case IORING_OP_READ_FIXED:
	case IORING_OP_READ:
		return EB_OP_READ;
	case IORING_OP_WRITEV:
	case IORING_OP_WRITE_FIXED:
	case IORING_OP_WRITE:
		return EB_OP_WRITE;
	case IORING_OP_FSYNC:
	case IORING_OP_SYNC_FILE_RANGE:
		return EB_OP_SYNC;
	case IORING_OP_RENAMEAT:
	case IORING_OP_UNLINKAT:
	case IORING_OP_MKDIRAT:
		return EB_OP_CREATE;
	case IORING_OP_SPLICE:
	case IORING_OP_TEE:
		return EB_OP_COPY;
	}
	return -1;
}

/* io_uring_submit_req (io_uring_submit_sqe before v6.4): req is first. */
static __always_inline int on_iou_submit(__u64 *ctx)
{
	struct io_kiocb *req = (void *)ctx[0];
	__u64 key = (__u64)req, now;
	__u32 tgid;
	int op;

	if (!tracing_on)
		return 0;
	tgid = bpf_get_current_pid_tgid() >> 32;
	if (!is_traced(tgid))
		return 0;
	op = iou_op(BPF_CORE_READ(req, opcode));
	if (op < 0)
		return 0;
	now = bpf_ktime_get_ns();
	item_start(&iou_start, &key, LAYER_SYSCALL, op, now, now);
	aio_iou_submit(key, now);
	return 0;
}

/* io_uring_queue_async_work(req, rw): a request punted to io-wq. */
static __always_inline int on_iou_punt(__u64 *ctx)
{
	if (tracing_on)
		aio_iou_punt(ctx[0]);
	return 0;
}

/* io_uring_complete(ctx, req, ...): req is second on every version. */
static __always_inline int on_iou_complete(__u64 *ctx)
{
	__u64 key = ctx[1], now = bpf_ktime_get_ns();
	struct start *v = bpf_map_lookup_elem(&iou_start, &key);
	int op = v ? (int)v->op : -1;
	__u64 ts = v ? v->ts : 0;

	if (v)
		item_end_v(&iou_start, &key, v, LAYER_SYSCALL, now, true);
	aio_iou_complete(ctx[0], key, op, ts, now);
	return 0;
}

/* Every syscall on the machine ends here: a thread with no timed call
 * leaves at its pid bits, without a hash lookup or the clock. */
static __always_inline int on_sys_exit(__u64 *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct thr_wait *t;
	__u64 now;

	if (!pid_may(tid, PID_CALLER))
		return 0;
	now = bpf_ktime_get_ns();
	aio_iou_exit(tid, now);
	aio_sys_exit(tid, (long)ctx[1], now);
	t = bpf_map_lookup_elem(&thr, &tid);
	if (!t)
		return 0;
	sys_call_end(tid, t, now);
	/* An async caller stays marked: its I/Os are followed between its
	 * calls too (aio_sub). */
	if (!aio_any || !bpf_map_lookup_elem(&aio_sub, &tid))
		pid_unmark(tid, PID_CALLER);
	return 0;
}

/* ---- traced set -------------------------------------------------- */

static __always_inline int on_fork(__u64 *ctx)
{
	struct task_struct *parent = (void *)ctx[0], *child = (void *)ctx[1];
	__u32 ptgid, ctgid;
	__u8 one = 1;

	ptgid = BPF_CORE_READ(parent, tgid);
	ctgid = BPF_CORE_READ(child, tgid);
	/* A new thread shares its tgid: nothing to add (and root_tgid's own
	 * threads must stay untraced). */
	if (ctgid == ptgid)
		return 0;
	/* The runner's children count only inside a window (they are the
	 * timed ones); a traced process's children at any time: a followed
	 * server (trace_follow) forks the backends and workers that do its
	 * I/O between the windows as well as in them. */
	if (ptgid == root_tgid ? !tracing_on
			       : !bpf_map_lookup_elem(&traced, &ptgid))
		return 0;
	pid_mark(ctgid, PID_TRACED);
	bpf_map_update_elem(&traced, &ctgid, &one, BPF_ANY);
	return 0;
}

static __always_inline int on_exit(__u64 *ctx)
{
	struct task_struct *p = (void *)ctx[0];
	__u32 tgid, tid;

	/* calls_by_sched: a caller's entry goes with its thread (its tid
	 * may come back as anyone's). It runs: no runnable count to undo. */
	tid = BPF_CORE_READ(p, pid);
	if (calls_by_sched && pid_may(tid, PID_CALLER) &&
	    !bpf_map_delete_elem(&thr, &tid))
		pid_unmark(tid, PID_CALLER);
	/* signal->live reaches 0 in do_exit() before this tracepoint when
	 * the last thread goes: works whether or not the tracepoint has
	 * 6.x's group_dead argument. The tgid may be reused after this. */
	if (BPF_CORE_READ(p, signal, live.counter) != 0)
		return 0;
	tgid = BPF_CORE_READ(p, tgid);
	if (!bpf_map_delete_elem(&traced, &tgid))
		pid_unmark(tgid, PID_TRACED);
	return 0;
}

/*
 * jbd2 commits a journal: TP_PROTO(journal_t *, transaction_t *). The
 * null check is the verifier's: kernels with 838a10bd2ebf ("bpf: Augment
 * raw_tp arguments with PTR_MAYBE_NULL", v6.13, in 6.12.y stable; the
 * 6.12 guest) refuse pointer arithmetic on a tp_btf argument before it.
 */
static __always_inline int on_jbd2_start(__u64 *ctx)
{
	journal_t *j = (journal_t *)ctx[0];

	if (!j)
		return 0;
	wait_jbd2_start(j, bpf_ktime_get_ns());
	return 0;
}

static __always_inline int on_jbd2_end(__u64 *ctx)
{
	(void)ctx;
	wait_jbd2_end();
	return 0;
}

/* The scheduler's events for the wait split and for async I/O's
 * reapers (aio_sched). */
static __always_inline int on_switch(__u64 *ctx, bool btf)
{
	struct task_struct *prev = (void *)ctx[1], *next = (void *)ctx[2];
	__u64 now = 0;

	if (task_state(prev, btf) == 0)
		aio_sched(BTF_READ(btf, prev, pid), false, &now);
	aio_sched(BTF_READ(btf, next, pid), true, &now);
	if (calls_by_sched)
		sched_call_out();
	return on_sched_switch(ctx, btf);
}

static __always_inline int on_waking(__u64 *ctx, bool btf)
{
	struct task_struct *p = (void *)ctx[0];
	__u64 now = 0;

	aio_sched(BTF_READ(btf, p, pid), false, &now);
	return on_sched_waking(ctx, btf);
}

#define TP_PAIR(tp, handler)                                                   \
	SEC("tp_btf/" #tp)                                                     \
	int tp##_btf(__u64 *ctx)                                               \
	{                                                                      \
		return handler(ctx);                                           \
	}                                                                      \
	SEC("raw_tp/" #tp)                                                     \
	int tp##_raw(__u64 *ctx)                                               \
	{                                                                      \
		return handler(ctx);                                           \
	}

/* The same, for handlers that read BTF-typed arguments directly in the
 * tp_btf flavour (their second argument: whether they may). */
#define TP_PAIR_BTF(tp, handler)                                               \
	SEC("tp_btf/" #tp)                                                     \
	int tp##_btf(__u64 *ctx)                                               \
	{                                                                      \
		return handler(ctx, true);                                     \
	}                                                                      \
	SEC("raw_tp/" #tp)                                                     \
	int tp##_raw(__u64 *ctx)                                               \
	{                                                                      \
		return handler(ctx, false);                                    \
	}

TP_PAIR(sys_enter, on_sys_enter)
TP_PAIR(sys_exit, on_sys_exit)
TP_PAIR(sched_process_fork, on_fork)
TP_PAIR(sched_process_exit, on_exit)
TP_PAIR_BTF(block_bio_queue, on_bio_queue)
TP_PAIR(block_split, on_split)
TP_PAIR(block_bio_backmerge, on_bio_merge)
TP_PAIR(block_bio_frontmerge, on_bio_merge)
TP_PAIR(block_rq_merge, on_rq_merge)
TP_PAIR_BTF(block_rq_issue, on_rq_issue)
TP_PAIR(block_rq_requeue, on_rq_requeue)
TP_PAIR_BTF(block_rq_complete, on_rq_complete)
TP_PAIR(block_bio_complete, on_bio_complete)
TP_PAIR_BTF(workqueue_queue_work, on_queue_work)
TP_PAIR_BTF(workqueue_execute_start, on_execute_start)
TP_PAIR(workqueue_execute_end, on_execute_end)
/* Loaded only where jbd2 is (userspace/tracer/ops.c: jbd2_autoload). */
TP_PAIR(jbd2_start_commit, on_jbd2_start)
TP_PAIR(jbd2_end_commit, on_jbd2_end)
/* Loaded only where the tracepoint exists (userspace/tracer/ops.c:
 * iou_autoload). */
TP_PAIR(io_uring_submit_req, on_iou_submit)
TP_PAIR(io_uring_submit_sqe, on_iou_submit)
TP_PAIR(io_uring_complete, on_iou_complete)
TP_PAIR(io_uring_queue_async_work, on_iou_punt)
TP_PAIR_BTF(sched_switch, on_switch)
TP_PAIR_BTF(sched_waking, on_waking)

/* ---- crypt, write side: fscrypt encrypts synchronously ------------
 * fscrypt_encrypt_pagecache_blocks() runs in writeback (ext4_bio_write_
 * folio), no workqueue: only fentry/kprobe see it. Its first argument is
 * a folio (a page before 6.4); ->mapping sits at the same offset in
 * both, by design of struct folio. */

static __always_inline int enc_begin(void *page)
{
	__u32 tid, dev;
	__u64 now;

	if (!tracing_on)
		return 0;
	if (filter_devs) {
		dev = BPF_CORE_READ((struct page *)page, mapping, host, i_sb,
				    s_dev);
		if (!dev_ok(dev))
			return 0;
	}
	tid = (__u32)bpf_get_current_pid_tgid();
	now = bpf_ktime_get_ns();
	item_start(&enc_start, &tid, LAYER_CRYPT, EB_OP_WRITE, now, now);
	return 0;
}

static __always_inline int enc_end(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	item_end(&enc_start, &tid, LAYER_CRYPT, bpf_ktime_get_ns(), true);
	return 0;
}

SEC("fentry/fscrypt_encrypt_pagecache_blocks")
int BPF_PROG(enc_fentry, void *page)
{
	return enc_begin(page);
}

SEC("fexit/fscrypt_encrypt_pagecache_blocks")
int BPF_PROG(enc_fexit)
{
	return enc_end();
}

SEC("kprobe/fscrypt_encrypt_pagecache_blocks")
int BPF_KPROBE(enc_kprobe, void *page)
{
	return enc_begin(page);
}

SEC("kretprobe/fscrypt_encrypt_pagecache_blocks")
int BPF_KRETPROBE(enc_kretprobe)
{
	return enc_end();
}

/* ---- crypt, dm-crypt inline: no_read_workqueue / no_write_workqueue --
 * kcryptd_queue_crypt() then runs the conversion itself, in the
 * completion (read) or submission (write) context: no work item. It calls
 * kcryptd_crypt(), which the compiler inlines there, so the conversion
 * functions under it are what fentry/kprobe can see. A run inside a
 * worker is already timed by the workqueue tracepoints. */

static __always_inline int dmx_begin(struct dm_crypt_io___x *io)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 now;
	int op;

	if (!tracing_on || bpf_map_lookup_elem(&cx_start, &tid))
		return 0;
	op = dmcrypt_io_op(io);
	if (op < 0)
		return 0;
	now = bpf_ktime_get_ns();
	item_start(&dmx_start, &tid, LAYER_CRYPT, op, now, now);
	if (op == EB_OP_WRITE)
		wait_dmio_stamp((__u64)io, DMIO_CRYPT, now);
	return 0;
}

static __always_inline int dmx_end(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	item_end(&dmx_start, &tid, LAYER_CRYPT, bpf_ktime_get_ns(), true);
	return 0;
}

#define DMX_PROGS(fn, tag)                                                     \
	SEC("fentry/" #fn)                                                     \
	int BPF_PROG(dmx_##tag##_fentry, struct dm_crypt_io___x *io)           \
	{                                                                      \
		return dmx_begin(io);                                          \
	}                                                                      \
	SEC("fexit/" #fn)                                                      \
	int BPF_PROG(dmx_##tag##_fexit)                                        \
	{                                                                      \
		return dmx_end();                                              \
	}                                                                      \
	SEC("kprobe/" #fn)                                                     \
	int BPF_KPROBE(dmx_##tag##_kprobe, struct dm_crypt_io___x *io)         \
	{                                                                      \
		return dmx_begin(io);                                          \
	}                                                                      \
	SEC("kretprobe/" #fn)                                                  \
	int BPF_KRETPROBE(dmx_##tag##_kretprobe)                               \
	{                                                                      \
		return dmx_end();                                              \
	}

DMX_PROGS(kcryptd_crypt_read_convert, rd)
DMX_PROGS(kcryptd_crypt_write_convert, wr)

/* ---- crypt: the cipher calls inside a crypt item ---------------------
 * A crypt item is a bio's (dm-crypt) or a page's (fscrypt) conversion;
 * inside it the cipher runs once per crypto sector or data unit, each a
 * crypto_skcipher_encrypt/decrypt call. So 4096-byte sectors make an
 * eighth of the calls of 512-byte ones for the same item count. Only the
 * outermost call of a thread counts: a SIMD wrapper, the xts template or
 * Adiantum call crypto_skcipher_* again on their inner ciphers (depth, by
 * tid); a call a wrapper defers to cryptd's worker runs in no item. */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_THREADS);
	__type(key, __u32);
	__type(value, __u32);
} ciph_depth SEC(".maps");

static __always_inline int ciph_enter(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), one = 1;
	struct layer_stat *s;
	struct start *v;
	__u32 *depth = bpf_map_lookup_elem(&ciph_depth, &tid);

	if (depth) {
		(*depth)++;
		return 0;
	}
	if (!tracing_on)
		return 0;
	v = bpf_map_lookup_elem(&cx_start, &tid);
	if (!v)
		v = bpf_map_lookup_elem(&dmx_start, &tid);
	if (!v)
		v = bpf_map_lookup_elem(&enc_start, &tid);
	if (!v)
		return 0;
	s = stat_of(LAYER_CRYPT, v->op);
	if (!s || bpf_map_update_elem(&ciph_depth, &tid, &one, BPF_NOEXIST))
		return 0;
	__sync_fetch_and_add(&s->calls, 1);
	return 0;
}

/* Not gated by tracing_on: a call open when tracing stopped still
 * closes (trace_begin clears what is left besides). */
static __always_inline int ciph_exit(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u32 *depth = bpf_map_lookup_elem(&ciph_depth, &tid);

	if (!depth)
		return 0;
	if (*depth <= 1)
		bpf_map_delete_elem(&ciph_depth, &tid);
	else
		(*depth)--;
	return 0;
}

#define CIPH_PROGS(fn, tag)                                                    \
	SEC("fentry/" #fn)                                                     \
	int BPF_PROG(ciph_##tag##_fentry)                                      \
	{                                                                      \
		return ciph_enter();                                           \
	}                                                                      \
	SEC("fexit/" #fn)                                                      \
	int BPF_PROG(ciph_##tag##_fexit)                                       \
	{                                                                      \
		return ciph_exit();                                            \
	}                                                                      \
	SEC("kprobe/" #fn)                                                     \
	int BPF_KPROBE(ciph_##tag##_kprobe)                                    \
	{                                                                      \
		return ciph_enter();                                           \
	}                                                                      \
	SEC("kretprobe/" #fn)                                                  \
	int BPF_KRETPROBE(ciph_##tag##_kretprobe)                              \
	{                                                                      \
		return ciph_exit();                                            \
	}

CIPH_PROGS(crypto_skcipher_encrypt, enc)
CIPH_PROGS(crypto_skcipher_decrypt, dec)

/* ---- dmcrypt-write: dm-crypt's write thread --------------------------
 * kcryptd_crypt_write_io_submit(io, async) is called once a write's
 * encryption is done; unless the clone is submitted right there, it puts
 * the io in cc->write_tree and wakes the dmcrypt_write/<dev> kthread,
 * which submits the clones in sector order (dmcrypt_write, the same in
 * 6.1 and 6.12 since b3c5fd305249 "dm crypt: sort writes", v4.0; with
 * no_write_workqueue, 39d42fa96ba1 in v5.9, it is bypassed). No
 * tracepoint marks the hand-off, so only fentry/kprobe see it; the end is
 * block_bio_queue of the clone (dmw_queued). An io that failed its
 * encryption is freed without being submitted: not started. */

static __always_inline int dmw_begin(struct dm_crypt_io___x *io)
{
	__u64 key = (__u64)io, now;

	if (!tracing_on || BPF_CORE_READ(io, error))
		return 0;
	if (dmcrypt_io_op(io) != EB_OP_WRITE)
		return 0;
	now = bpf_ktime_get_ns();
	item_start(&dmw_start, &key, LAYER_DMCRYPT_WRITE, EB_OP_WRITE, now,
		   now);
	wait_dmio_stamp(key, DMIO_HANDOFF, now);
	wait_dmw_thread(BPF_CORE_READ(io, cc, write_thread));
	aio_dmw_handoff(io, now);
	return 0;
}

SEC("fentry/kcryptd_crypt_write_io_submit")
int BPF_PROG(dmw_fentry, struct dm_crypt_io___x *io)
{
	return dmw_begin(io);
}

SEC("kprobe/kcryptd_crypt_write_io_submit")
int BPF_KPROBE(dmw_kprobe, struct dm_crypt_io___x *io)
{
	return dmw_begin(io);
}

char LICENSE[] SEC("license") = "GPL";
