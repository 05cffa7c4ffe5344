/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wait attribution, its state: the maps (types in attrib.h) and the
 * caller's syscall. attrib.bpf.c's handlers call the wait_* hooks of
 * wait_state, wait_io and wait_sched.bpf.h at the points they already
 * trace; wait_chain.bpf.h splits a blocked interval, wait_sched.bpf.h
 * has the scheduler and CPU-sample programs.
 *
 * A traced thread inside a syscall is on a CPU, blocked or runnable. Each
 * change of state closes an interval that goes to one component:
 * - on a CPU: oncpu_ns, split by CPU samples of its kernel stack;
 * - runnable (woken or preempted, not yet running): cpu-wait;
 * - blocked: split at the wakeup (sched_waking, which runs in the waker's
 *   context, unlike sched_wakeup) along the chain that ended in it. A
 *   crypto worker running work item K: after K started crypt, before it
 *   crypt-queue back to K's queueing; before that the I/O that K serves,
 *   by that I/O's own times (bio queued, request issued). A request
 *   completion of ours in the waker's context: the same, from the request.
 *   dm-crypt's write thread while it submits a clone (a device below that
 *   completes bios inside submit_bio, as brd does): the same, from that
 *   clone's dm-crypt stages, its queueing below, and the device after.
 *   Any other waker: by its stack, classified in user space.
 *
 * Workers (crypto, loop, dm-crypt's write thread, and ZFS's taskq threads,
 * which zfscrypt.bpf.c enrols) keep their own run-queue wait and CPU time.
 */
#ifndef __WAIT_STATE_BPF_H
#define __WAIT_STATE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "attrib.h"
#include "maps.bpf.h" /* EEXIST_ */
#include "workers.bpf.h"
#include "zfscrypt.h"

#define MAX_WAIT_THREADS 4096
#define MAX_WORK_IO	 1024
#define MAX_STACKS	 2048
#define MAX_STACK_KEYS	 4096
#define MAX_WHY_STACKS	 1024
#define MAX_WORKER_FUNCS 16
#define MAX_BVECS	 256
#define MAX_DMIO	 1024

/*
 * Set by user space for a phase whose workload times its own calls (fio's
 * clat with a synchronous engine): the raw syscall tracepoints stay
 * detached, and a caller's thr entry lives as long as its thread. At each
 * switch-out its op is read from the registers its syscall entry saved
 * (current_call_op, filters.bpf.h): a blocked or runnable interval inside
 * a counted call goes to that op as ever, and nothing counts outside one.
 * The on-CPU time inside the calls is not seen then (the calls' ends are
 * not): user space takes it as the workload's call time less what the
 * intervals counted (analysis: wait_calls_by_workload). syscalls,
 * total_ns and oncpu_ns stay 0 here.
 */
__u32 calls_by_sched = 0;

enum thr_state { THR_ON_CPU, THR_BLOCKED, THR_RUNNABLE };

struct thr_wait {
	__u64 start;
	__u64 last; /* the current state since */
	__u32 state;
	__u32 op;
	/* Its stack as it last blocked (stacks), negative if not taken. */
	__s32 why_stack;
	__u32 pad;
};

/* The request being completed on this CPU, for the wakeups and work items
 * its completion causes in the same context; cleared at the next context
 * switch on the CPU. */
struct done_rec {
	struct io_times io;
	__u32 pid;
	__u32 valid;
};

/* Preallocated, as every map here: an element allocated at run time can
 * fail in interrupt context when the allocator's per-CPU cache is empty
 * (seen as lost requests), and perf-event programs needed preallocated
 * maps before 6.1 (96da3f7d489d). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_WAIT_THREADS);
	__type(key, __u32);
	__type(value, struct thr_wait);
} thr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct done_rec);
} done SEC(".maps");

/* Crypto work item -> the I/O its queueing completed. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_WORK_IO);
	__type(key, __u64);
	__type(value, struct io_times);
} work_io SEC(".maps");

/* A write's dm_crypt_io -> its dmio_stamps, read when its clone's request
 * completes. LRU: an io whose clone completes unseen (split below) would
 * otherwise stay; a live one evicted only loses its split of dm. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_DMIO);
	__type(key, __u64);
	__type(value, struct io_times);
} dmio_times SEC(".maps");

WORKERS_MAP(workers);

/* Work function address -> enum worker_kind | flavour << 8. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_WORKER_FUNCS);
	__type(key, __u64);
	__type(value, __u32);
} worker_funcs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NR_OPS);
	__type(key, __u32);
	__type(value, struct wait_stat);
} wait_stats SEC(".maps");

WORKER_STATS_MAP(worker_stats);

/* ZFS taskq threads in a zio (zfscrypt.h): created here, where it is
 * always loaded, written by zfscrypt.bpf.c where ZFS is. */
ZFS_THREADS_MAP;

/* Set by user space when ZFS's crypt comes from CPU samples (its kprobes
 * cannot attach): ZFS taskq threads' samples are kept too. */
__u32 zfs_sample_workers = 0;

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, MAX_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, WAIT_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_STACK_KEYS);
	__type(key, struct stack_key);
	__type(value, __u64);
} stack_counts SEC(".maps");

/*
 * The stacks callers block with and wakers wake them with, each under its
 * own id. A STACK_TRACE map keeps one stack per hash bucket and, without
 * BPF_F_REUSE_STACKID, drops a stack whose bucket another holds (-EEXIST);
 * reusing would rewrite the stack of an id already counted. The CPU
 * samples' thousands of distinct stacks filled its 2048 buckets and half
 * of a fscrypt run's blocked time lost its stack (test_why, 2026-12-02).
 * These stacks are few and each one matters: they are keyed here by their
 * frames (struct why_frames), in a hash map, which has no collisions. Ids
 * from WHY_STACK_ID0.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_WHY_STACKS);
	__type(key, struct why_frames);
	__type(value, __u32);
} why_stacks SEC(".maps");

/* bpf_get_stack's buffer: 256 bytes do not fit the BPF stack's 512 with
 * the callers' frames. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct why_frames);
} why_scratch SEC(".maps");

__u32 why_next_id = 0;

/* thr_wait.why_stack of a caller blocked in a tp_btf sched_switch: its
 * stack not taken there but at its wakeup, and only for a block long
 * enough to keep it (why_task_stackid). */
#define WHY_DEFERRED (-2)

static __always_inline struct why_frames *why_buf(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&why_scratch, &zero);
}

/* Frames f's id in why_stacks, -1 if it has none (the map full). */
static __always_inline long why_id_of(struct why_frames *f)
{
	__u32 id, *old;
	long err;

	old = bpf_map_lookup_elem(&why_stacks, f);
	if (old)
		return *old;
	id = WHY_STACK_ID0 + __sync_fetch_and_add(&why_next_id, 1);
	if (id < WHY_STACK_ID0)
		return -1;
	err = bpf_map_update_elem(&why_stacks, f, &id, BPF_NOEXIST);
	if (!err)
		return id;
	if (err != -EEXIST_)
		return -1;
	/* Another CPU put the same stack in first. */
	old = bpf_map_lookup_elem(&why_stacks, f);
	return old ? *old : -1;
}

/* The current stack's id in why_stacks, -1 if it has none (no stack, or
 * the map full). bpf_get_stack zeroes what it does not fill: equal stacks
 * are equal keys. */
static __always_inline long why_stackid(void *ctx)
{
	struct why_frames *f = why_buf();

	if (!f || bpf_get_stack(ctx, f->ips, sizeof(f->ips), 0) <= 0)
		return -1;
	return why_id_of(f);
}

/* The same for task p, blocked: the stack it switched out with (from
 * __schedule down; tp_btf only, p a trusted pointer). */
static __always_inline long why_task_stackid(struct task_struct *p)
{
	struct why_frames *f = why_buf();

	if (!f || bpf_get_task_stack(p, f->ips, sizeof(f->ips), 0) <= 0)
		return -1;
	return why_id_of(f);
}

static __always_inline struct wait_stat *wait_stat_of(__u32 op)
{
	if (op >= NR_OPS)
		return NULL;
	return bpf_map_lookup_elem(&wait_stats, &op);
}

static __always_inline void acc_add(unsigned long long *acc, int comp, __u64 ns)
{
	if (!ns || comp < 0 || comp >= NR_LAYERS)
		return;
	__sync_fetch_and_add(&acc[comp], ns);
}

static __always_inline void wait_add(struct wait_stat *w, int comp, __u64 ns)
{
	if (!w || !ns || comp < 0 || comp >= NR_LAYERS)
		return;
	__sync_fetch_and_add(&w->ns[comp], ns);
}

/*
 * Move t's clock to now; the interval since its last change. Never
 * backwards: a waker's timestamp, taken on another CPU, may be older than
 * the switch-out it races with, and a clock moved back would count the
 * difference twice.
 */
static __always_inline __u64 thr_advance(struct thr_wait *t, __u64 now)
{
	__u64 last = t->last;

	if (now <= last)
		return 0;
	t->last = now;
	return now - last;
}

/* Change t's state, keeping w->runnable, the count of runnable callers. */
static __always_inline void thr_set(struct thr_wait *t, struct wait_stat *w,
				    __u32 state)
{
	if (w && t->state != state) {
		if (state == THR_RUNNABLE)
			__sync_fetch_and_add(&w->runnable, 1);
		else if (t->state == THR_RUNNABLE)
			__sync_fetch_and_add(&w->runnable, -1);
	}
	t->state = state;
}

static __always_inline struct worker_stat *worker_stat_of(__u32 kind)
{
	if (kind >= NR_WORKER_KINDS)
		return NULL;
	return bpf_map_lookup_elem(&worker_stats, &kind);
}

static __always_inline void worker_oncpu(struct worker_stat *ws, __u64 ns)
{
	if (ws)
		__sync_fetch_and_add(&ws->oncpu_ns, ns);
}

/* A run-queue wait of ns; idle: it ended on a CPU leaving idle. */
static __always_inline void worker_runq(struct worker_stat *ws, __u64 ns,
					bool idle)
{
	if (!ws)
		return;
	__sync_fetch_and_add(&ws->runq_ns, ns);
	__sync_fetch_and_add(&ws->runq_waits, 1);
	if (idle)
		__sync_fetch_and_add(&ws->runq_idle_ns, ns);
}

/* A writeback worker's time on a CPU or runnable while it wrote the
 * target back (ns > 0); how: its enum wb_worker (jbd2's apart too). */
static __always_inline void wb_add(__u32 how, bool runnable, __u64 ns)
{
	struct wait_stat *w = wait_stat_of(EB_OP_WRITE);
	bool journal = how == WB_JOURNAL;

	if (!w)
		return;
	if (runnable) {
		__sync_fetch_and_add(&w->wb_runq_ns, ns);
		if (journal)
			__sync_fetch_and_add(&w->jbd2_runq_ns, ns);
	} else {
		__sync_fetch_and_add(&w->wb_oncpu_ns, ns);
		if (journal)
			__sync_fetch_and_add(&w->jbd2_oncpu_ns, ns);
	}
}

/* ...blocked while it wrote the target back. */
static __always_inline void wb_add_blocked(__u32 how, __u64 ns)
{
	struct wait_stat *w = wait_stat_of(EB_OP_WRITE);

	if (!w)
		return;
	__sync_fetch_and_add(&w->wb_blocked_ns, ns);
	if (how == WB_JOURNAL)
		__sync_fetch_and_add(&w->jbd2_blocked_ns, ns);
}

static __always_inline bool stack_count_add(struct stack_key *k, __u64 v)
{
	__u64 *c = bpf_map_lookup_elem(&stack_counts, k);
	long err;

	if (c) {
		__sync_fetch_and_add(c, v);
		return true;
	}
	err = bpf_map_update_elem(&stack_counts, k, &v, BPF_NOEXIST);
	if (err != -EEXIST_)
		return !err;
	c = bpf_map_lookup_elem(&stack_counts, k);
	if (c)
		__sync_fetch_and_add(c, v);
	return c != NULL;
}

/* A blocked interval of ns ends: by the stack t blocked with, why. */
static __always_inline void wait_why(struct wait_stat *w,
				     const struct thr_wait *t, __u64 ns)
{
	struct stack_key key = {.op = t->op, .use = STACK_BLOCKED_NS};

	if (!w || !ns)
		return;
	if (ns < WAIT_WHY_MIN_NS) {
		__sync_fetch_and_add(&w->why_short_ns, ns);
		return;
	}
	key.stackid = t->why_stack;
	if (t->why_stack >= 0 && stack_count_add(&key, ns))
		__sync_fetch_and_add(&w->why_ns, ns);
	else
		__sync_fetch_and_add(&w->why_nostack_ns, ns);
}

/* ---- the caller's syscall ----------------------------------------- */

/* The caller's call ended at now: t, a copy of its thr entry, already
 * deleted (attrib.bpf.c: sys_call_end, which also times it in the syscall
 * layer). */
static __always_inline void wait_sys_exit(struct thr_wait *t, __u64 now)
{
	struct wait_stat *w = wait_stat_of(t->op);
	__u64 ns;

	if (!w)
		return;
	ns = thr_advance(t, now);
	if (t->state == THR_ON_CPU) {
		__sync_fetch_and_add(&w->oncpu_ns, ns);
	} else {
		/* Running again without a switch-in we saw. */
		wait_add(w, LAYER_FS, ns);
		__sync_fetch_and_add(&w->unresolved_ns, ns);
	}
	thr_set(t, w, THR_ON_CPU);
	__sync_fetch_and_add(&w->syscalls, 1);
	/* The intervals telescope from start to the clock's end. */
	__sync_fetch_and_add(&w->total_ns, t->last - t->start);
}

#endif /* __WAIT_STATE_BPF_H */
