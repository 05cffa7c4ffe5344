// SPDX-License-Identifier: GPL-2.0
/*
 * Latency attribution: each layer's items (a syscall, a bio waiting for
 * its request to be issued, a request on the device, a crypto work item
 * waiting and running) are timed from a start event to an end event and
 * accumulated into the `stats` array map at layer * NR_OPS + op. User
 * space reads and zeroes it between phases.
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

/* Items in flight are bounded by the devices' queues (a few hundred
 * requests each) and threads in a syscall by the workload; these sizes
 * keep all maps preallocated within the 8 MiB budget (BENCHMARKS.md: 8.93
 * MiB with 8192 items once why_stacks came, 8.74 with 4096 once the async
 * I/O maps came, and io_uring's still at 8192), and an item
 * a full map turns away is counted in `dropped`, never lost silently. */
#define MAX_THREADS 4096
#define MAX_ITEMS   4096
/* io_uring requests in flight: the rings' depth times the jobs (64
 * fio jobs at iodepth 64). 8192 put the maps at 8.74 MiB (BENCHMARKS.md). */
#define MAX_URING_ITEMS 4096
/* Encrypted write clones between their hand-off and the write thread's
 * submission: a queue of one dm device, far below MAX_ITEMS. */
#define MAX_DMW_ITEMS 2048

/* Filled in by user space before load from the tracepoints' BTF typedefs
 * (their argument lists changed, see trace.c). Frozen, so the verifier
 * prunes the branches not taken. */
const volatile int bio_queue_arg = 0;
const volatile int bio_merge_arg = 0;
const volatile int split_arg = 0;
const volatile int rq_issue_arg = 0;
const volatile int rq_merge_arg = 0;
const volatile int rq_requeue_arg = 0;
/*
 * RQF_FLUSH_SEQ's bit, from the kernel's BTF (trace.c): (1 << 4) while
 * the flags were #defines (6.1), the enumerator __RQF_FLUSH_SEQ (1) once
 * they became an enum -- an anonymous one in 6.12, which CO-RE cannot
 * find by the enum's name: read as 4 there, no flushed write was followed
 * to its second end, and a journal commit's dm-delay holds came out as
 * the device's (bench/vm-flush-seq.sh).
 */
const volatile __u32 rqf_flush_seq_bit = 4;

/*
 * An array map rather than a .bss array: a map lookup gives the verifier
 * a bounds-checked pointer on every kernel, where clang's arithmetic on a
 * global array index was rejected by the 6.1 verifier ("unbounded memory
 * access") once it hoisted the address above the bounds check.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NR_LAYERS *NR_OPS);
	__type(key, __u32);
	__type(value, struct layer_stat);
} stats SEC(".maps");

__u32 root_tgid = 0;
/* User space sets PID_TRACED bits too (it has mapped pid_bits): only
 * then may a clear one skip the lookup in `traced`. */
__u32 traced_bits = 0;
/* `trace --cgroup`: the cgroup v2 id whose tasks count too (0: none). */
__u64 cgroup_id = 0;

/* Items in flight, one map per layer (maps.bpf.h: START_MAP). */
START_MAP(bio_start, __u64, MAX_ITEMS);	      /* by struct bio * */
START_MAP(rq_start, __u64, MAX_ITEMS);	      /* by struct request * */
START_MAP(cq_start, __u64, MAX_ITEMS);	      /* by struct work_struct * */
START_MAP(cx_start, __u32, MAX_THREADS);      /* by kworker tid */
START_MAP(enc_start, __u32, MAX_THREADS);     /* by tid */
START_MAP(dm_start, __u64, MAX_ITEMS);	      /* by struct bio * (dm device) */
START_MAP(dmx_start, __u32, MAX_THREADS);     /* by tid: inline dm-crypt */
START_MAP(iou_start, __u64, MAX_URING_ITEMS); /* by struct io_kiocb * */
/* By struct dm_crypt_io *: a write clone waiting for the write thread. */
START_MAP(dmw_start, __u64, MAX_DMW_ITEMS);

static __always_inline struct layer_stat *stat_of(int layer, __u32 op)
{
	__u32 key;

	if (layer < 0 || layer >= NR_LAYERS || op >= NR_OPS)
		return NULL;
	key = layer * NR_OPS + op;
	return bpf_map_lookup_elem(&stats, &key);
}

/* A key reused before its end (requeued request, recycled pointer, a
 * call whose end went unseen): its unit of inflight moves from old_op to
 * op. */
static __always_inline void item_reop(int layer, __u32 old_op, __u32 op,
				      struct layer_stat *s, __u64 now)
{
	struct layer_stat *so;

	if (old_op == op)
		return;
	so = stat_of(layer, old_op);
	if (so)
		stat_busy_end(so, now);
	stat_busy_begin(s, now);
}

/* Item `key` enters `layer` as v (its latency measured from v->ts).
 * Whether an entry stands for it now (false: dropped, or a concurrent
 * start of the same key won). */
static __always_inline bool item_start_v(void *map, void *key, int layer,
					 const struct start *v, __u64 now)
{
	struct layer_stat *s = stat_of(layer, v->op);
	struct start *old;
	__u32 op = v->op;
	long err;

	if (!s)
		return false;
	old = bpf_map_lookup_elem(map, key);
	if (old) {
		item_reop(layer, old->op, op, s, now);
		*old = *v;
		return true;
	}
	err = bpf_map_update_elem(map, key, v, BPF_NOEXIST);
	if (err) {
		/* -EEXIST: a concurrent start of the same key won, and its
		 * entry stands for the item. Anything else is a full map:
		 * the item goes untimed, and user space must hear of it. */
		if (err != -EEXIST_)
			__sync_fetch_and_add(&s->dropped, 1);
		return false;
	}
	stat_busy_begin(s, now);
	return true;
}

static __always_inline bool item_start(void *map, void *key, int layer,
				       __u32 op, __u64 ts, __u64 now)
{
	struct start v = {.ts = ts, .op = op};

	return item_start_v(map, key, layer, &v, now);
}

/* Item `key`, whose entry v was just looked up, leaves `layer`; counted
 * (histogram) only when `count`. */
static __always_inline void item_end_v(void *map, void *key, struct start *v,
				       int layer, __u64 now, bool count)
{
	struct layer_stat *s;
	__u64 ts = v->ts;
	__u32 op = v->op;

	/* Whoever deletes the entry accounts for it: user space clearing
	 * the map between phases, or a concurrent end. */
	if (bpf_map_delete_elem(map, key))
		return;
	s = stat_of(layer, op);
	if (!s)
		return;
	if (count)
		stat_record(s, now > ts ? now - ts : 0);
	stat_busy_end(s, now);
}

static __always_inline void item_end(void *map, void *key, int layer, __u64 now,
				     bool count)
{
	struct start *v = bpf_map_lookup_elem(map, key);

	if (v)
		item_end_v(map, key, v, layer, now, count);
}

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
		/* Async I/O's submitting and reaping calls (aio_io.bpf.h). */
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

/* ---- blk-queue and device ---------------------------------------- */

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
		aio_rq_event(rq, true, bpf_ktime_get_ns());
		wait_rq_complete(rq, v, (__u32)ctx[2]);
		if (v->op == EB_OP_WRITE && rq_in_flush_seq(rq))
			flush_seq_hold(&key, v->incarnation);
		item_end_v(&rq_start, &key, v, LAYER_DEVICE, bpf_ktime_get_ns(),
			   true);
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

/* ---- crypt-queue and crypt (work items) -------------------------- */

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
	__u64 now;

	if (pid_may(tid, PID_CRYPT_ITEM)) {
		v = bpf_map_lookup_elem(&cx_start, &tid);
		aio_work_end(tid, bpf_ktime_get_ns());
	}
	if (pid_may(tid, PID_WORKER))
		wk = bpf_map_lookup_elem(&workers, &tid);
	if (!v && (!wk || !(wk->kind | wk->writeback)))
		return 0;
	now = bpf_ktime_get_ns();
	if (v) {
		item_end_v(&cx_start, &tid, v, LAYER_CRYPT, now, true);
		pid_unmark(tid, PID_CRYPT_ITEM);
	}
	if (wk)
		wait_execute_end(wk, now);
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
/* Loaded only where jbd2 is (trace.c: jbd2_autoload). */
TP_PAIR(jbd2_start_commit, on_jbd2_start)
TP_PAIR(jbd2_end_commit, on_jbd2_end)
/* Loaded only where the tracepoint exists (trace.c: iou_autoload). */
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
