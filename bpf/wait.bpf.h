/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wait attribution (types in wait.h), included by attrib.bpf.c, whose
 * handlers call the wait_* hooks below at the points they already trace;
 * the scheduler and CPU-sample programs are its own.
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
#ifndef __WAIT_BPF_H
#define __WAIT_BPF_H

#include "workers.bpf.h"
#include "zfscrypt.h"

#define MAX_WAIT_THREADS 4096
#define MAX_WORK_IO	 1024
#define MAX_STACKS	 2048
#define MAX_STACK_KEYS	 4096
#define MAX_WORKER_FUNCS 16
#define MAX_BVECS	 256
#define MAX_DMIO	 1024

enum thr_state { THR_ON_CPU, THR_BLOCKED, THR_RUNNABLE };

struct thr_wait {
	__u64 start;
	__u64 last; /* the current state since */
	__u32 state;
	__u32 op;
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

/* 2f064a59a11f ("sched: Change task_struct::state", v5.14) renamed it. */
struct task_struct___o {
	volatile long state;
} __attribute__((preserve_access_index));

static __always_inline long task_state(struct task_struct *t, bool btf)
{
	if (bpf_core_field_exists(t->__state))
		return BTF_READ(btf, t, __state);
	return BPF_CORE_READ((struct task_struct___o *)t, state);
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

static __always_inline struct wait_stat *wait_stat_of(__u32 op)
{
	if (op >= NR_OPS)
		return NULL;
	return bpf_map_lookup_elem(&wait_stats, &op);
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

/* ---- the caller's syscall ----------------------------------------- */

static __always_inline void wait_sys_enter(__u32 tid, __u32 op, __u64 now)
{
	struct thr_wait t = {.start = now, .last = now, .op = op};

	bpf_map_update_elem(&thr, &tid, &t, BPF_ANY);
}

static __always_inline void wait_sys_exit(__u32 tid, __u64 now)
{
	struct thr_wait *t = bpf_map_lookup_elem(&thr, &tid);
	struct wait_stat *w;
	__u64 ns;

	if (!t)
		return;
	w = wait_stat_of(t->op);
	if (w) {
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
	bpf_map_delete_elem(&thr, &tid);
}

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
 * its hand-off to the write thread: dm until kcryptd queued it, then
 * crypt-queue, crypt. A stamp not seen (0) leaves its stage empty, its
 * time with the stage before. Returns where the write-thread stage
 * starts: the hand-off, or the clone's queueing if none was seen.
 */
static __always_inline __u64 split_dmio(struct wait_stat *w, __u64 p, __u64 to,
					const struct io_times *io)
{
	int cur = LAYER_DM;
	__u64 q;

	for (int i = 0; i < NR_DMIO_STAMPS; i++) {
		if (!io->crypt[i])
			continue;
		q = clamp_ts(io->crypt[i], p, to);
		wait_add(w, cur, q - p);
		p = q;
		/* Stamp i opens layer crypt-queue + i (attrib.h's order). */
		cur = LAYER_CRYPT_QUEUE + i;
	}
	/* Without a hand-off the time since the last stamp is that stage's
	 * up to the clone's queueing. */
	if (cur != LAYER_DMCRYPT_WRITE) {
		q = clamp_ts(io->queued, p, to);
		wait_add(w, cur, q - p);
		p = q;
	}
	return p;
}

/*
 * Blocked from `from` to `to`, waiting for an I/O (io) that a work item
 * queued at kq and started at ks (0, 0: no work item) finished. Each
 * stage's interval clipped to [from, to]: the pieces add up to to - from.
 */
static __always_inline void split_chain(struct wait_stat *w, __u64 from,
					__u64 to, const struct io_times *io,
					__u64 kq, __u64 ks)
{
	__u64 p = from, q;

	if (!io->issued) {
		/* The I/O before the work item was not seen. */
		q = kq ? clamp_ts(kq, p, to) : to;
		wait_add(w, LAYER_FS, q - p);
		__sync_fetch_and_add(&w->unresolved_ns, q - p);
		p = q;
	} else {
		/* Below a dm device: in dm-crypt's own stages from the dm
		 * bio's queueing to its clone's; a write's encryption on
		 * kcryptd and its wait for the write thread where seen. */
		q = clamp_ts(io->dm ?: io->queued, p, to);
		wait_add(w, LAYER_FS, q - p);
		p = q;
		p = split_dmio(w, p, to, io);
		q = clamp_ts(io->queued, p, to);
		wait_add(w, LAYER_DMCRYPT_WRITE, q - p);
		p = q;
		q = clamp_ts(io->issued, p, to);
		wait_add(w, LAYER_BLK_QUEUE, q - p);
		p = q;
		q = kq ? clamp_ts(kq, p, to) : to;
		wait_add(w, LAYER_DEVICE, q - p);
		p = q;
	}
	q = ks ? clamp_ts(ks, p, to) : to;
	wait_add(w, LAYER_CRYPT_QUEUE, q - p);
	wait_add(w, LAYER_CRYPT, to - q);
}

/*
 * Blocked from `from` to `to`, woken by ZFS taskq thread z in the middle
 * of a zio (z_rd_int finishing a read): the zio's vdev I/O (issued ..
 * done) is device, z's time in spa_do_crypt_abd for the target is crypt,
 * and the rest is ZFS's pipeline, in fs: before the I/O was issued (the
 * issue taskq, the vdev queue), between its completion and z taking it
 * (the interrupt taskq's queue), and z's other stages (checksum,
 * decompression). The queue's wait counts as crypt for as long as the
 * taskq threads were decrypting meanwhile (other blocks of the same read,
 * before this one). The pieces add up to to - from.
 */
static __always_inline void split_zfs(struct wait_stat *w, __u64 from, __u64 to,
				      const struct zfs_thread *z)
{
	__u64 p = from, q, crypt, dev = 0, pipe = 0;

	__sync_fetch_and_add(&w->zfs_wakeups, 1);
	if (!z->io_issued || !z->io_done) {
		/* The vdev I/O was not seen whole: up to z's start, the
		 * waiting cannot be told apart. */
		q = clamp_ts(z->exec, p, to);
		wait_add(w, LAYER_FS, q - p);
		__sync_fetch_and_add(&w->unresolved_ns, q - p);
		p = q;
	} else {
		q = clamp_ts(z->io_issued, p, to);
		pipe += q - p;
		p = q;
		q = clamp_ts(z->io_done, p, to);
		dev = q - p;
		p = q;
		q = clamp_ts(z->exec, p, to);
		crypt = z->queue_crypt_ns < q - p ? z->queue_crypt_ns : q - p;
		wait_add(w, LAYER_CRYPT, crypt);
		__sync_fetch_and_add(&w->zfs_crypt_ns, crypt);
		pipe += q - p - crypt;
		p = q;
	}
	crypt = z->crypt_ns;
	if (z->in_crypt && to > z->in_crypt)
		crypt += to - z->in_crypt;
	/* Decryption before the caller blocked is not its wait. */
	if (crypt > to - p)
		crypt = to - p;
	pipe += to - p - crypt;
	wait_add(w, LAYER_DEVICE, dev);
	wait_add(w, LAYER_CRYPT, crypt);
	wait_add(w, LAYER_FS, pipe);
	__sync_fetch_and_add(&w->zfs_device_ns, dev);
	__sync_fetch_and_add(&w->zfs_crypt_ns, crypt);
	__sync_fetch_and_add(&w->zfs_pipeline_ns, pipe);
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
	id = bpf_get_stackid(ctx, &stacks, 0);
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

/* ---- scheduler ------------------------------------------------------ */

/* A writeback worker's time on a CPU or runnable while it wrote the
 * target back (ns > 0). */
static __always_inline void wb_add(bool runnable, __u64 ns)
{
	struct wait_stat *w = wait_stat_of(EB_OP_WRITE);

	if (!w)
		return;
	if (runnable)
		__sync_fetch_and_add(&w->wb_runq_ns, ns);
	else
		__sync_fetch_and_add(&w->wb_oncpu_ns, ns);
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

static __always_inline void worker_runq(struct worker_stat *ws, __u64 ns)
{
	if (!ws)
		return;
	__sync_fetch_and_add(&ws->runq_ns, ns);
	__sync_fetch_and_add(&ws->runq_waits, 1);
}

/* Every wakeup and context switch on the machine runs these: the clock is
 * read only once a thread of ours is involved. */
static __always_inline int on_sched_waking(__u64 *ctx, bool btf)
{
	struct task_struct *p = (void *)ctx[0];
	__u32 tid = BTF_READ(btf, p, pid);
	struct served_worker *wk = NULL;
	struct thr_wait *t = NULL;
	bool wk_woken;
	__u64 now;

	if (pid_may(tid, PID_WORKER))
		wk = bpf_map_lookup_elem(&workers, &tid);
	if (pid_may(tid, PID_CALLER))
		t = bpf_map_lookup_elem(&thr, &tid);
	wk_woken = wk && !wk->woke && !wk->on;
	if (!wk_woken && (!t || t->state != THR_BLOCKED))
		return 0;
	now = bpf_ktime_get_ns();
	if (wk_woken)
		wk->woke = now;
	if (!t || t->state != THR_BLOCKED)
		return 0;
	split_blocked(ctx, t, now);
	thr_set(t, wait_stat_of(t->op), THR_RUNNABLE);
	thr_advance(t, now);
	return 0;
}

static __always_inline int on_sched_switch(__u64 *ctx, bool btf)
{
	struct task_struct *prev = (void *)ctx[1], *next = (void *)ctx[2];
	__u32 ptid = BTF_READ(btf, prev, pid), ntid = BTF_READ(btf, next, pid);
	struct thr_wait *t = NULL, *tn = NULL;
	struct served_worker *wk = NULL, *wkn = NULL;
	bool runnable;
	struct done_rec *d;
	__u32 zero = 0;
	__u64 now, ns;

	d = bpf_map_lookup_elem(&done, &zero);
	if (d && d->valid)
		d->valid = 0;
	if (pid_may(ptid, PID_CALLER))
		t = bpf_map_lookup_elem(&thr, &ptid);
	if (pid_may(ntid, PID_CALLER))
		tn = bpf_map_lookup_elem(&thr, &ntid);
	if (pid_may(ptid, PID_WORKER))
		wk = bpf_map_lookup_elem(&workers, &ptid);
	if (pid_may(ntid, PID_WORKER))
		wkn = bpf_map_lookup_elem(&workers, &ntid);
	if (!t && !tn && !wk && !wkn)
		return 0;
	/* Still TASK_RUNNING: preempted (or yielded), so runnable. */
	runnable = task_state(prev, btf) == 0;
	now = bpf_ktime_get_ns();
	if (t && t->state == THR_ON_CPU) {
		struct wait_stat *w = wait_stat_of(t->op);

		ns = thr_advance(t, now);
		if (w)
			__sync_fetch_and_add(&w->oncpu_ns, ns);
		thr_set(t, w, runnable ? THR_RUNNABLE : THR_BLOCKED);
	}
	if (wk) {
		if (wk->kind && wk->on && now > wk->last)
			wk->oncpu += now - wk->last;
		else if (wk->thread_kind && wk->on && now > wk->last)
			worker_oncpu(worker_stat_of(wk->thread_kind - 1),
				     now - wk->last);
		else if (wk->writeback && wk->on && now > wk->last)
			wb_add(false, now - wk->last);
		wk->on = 0;
		wk->woke = runnable ? now : 0;
		/* dmcrypt_write: its clone's submission is over. */
		if (wk->thread_kind)
			wk->io.queued = 0;
	}
	t = tn;
	if (t && t->state != THR_ON_CPU) {
		struct wait_stat *w = wait_stat_of(t->op);

		ns = thr_advance(t, now);
		if (t->state == THR_RUNNABLE) {
			wait_add(w, LAYER_CPU_WAIT, ns);
		} else if (w) {
			/* Woken without a sched_waking we saw. */
			wait_add(w, LAYER_FS, ns);
			__sync_fetch_and_add(&w->unresolved_ns, ns);
		}
		thr_set(t, w, THR_ON_CPU);
	}
	wk = wkn;
	if (wk) {
		if (wk->woke && now > wk->woke) {
			ns = now - wk->woke;
			if (wk->kind)
				worker_runq(worker_stat_of(wk->kind - 1), ns);
			else if (wk->thread_kind)
				worker_runq(worker_stat_of(wk->thread_kind - 1),
					    ns);
			else if (wk->writeback)
				wb_add(true, ns);
			else
				wk->pending = ns;
		}
		wk->woke = 0;
		wk->on = 1;
		wk->last = now;
	}
	return 0;
}

/* A CPU sample of a task other than a caller: while callers are
 * runnable, it is what they wait behind. Idle is nobody's. */
static __always_inline void sample_occupant(__u32 tid)
{
	struct served_worker *wk;
	struct wait_stat *w;
	__u32 cls = NR_WORKER_KINDS, behind = 0;

	if (!tid)
		return;
	/* Most samples find no caller runnable: those need no lookup of
	 * whose the task is. */
	for (__u32 op = 0; op < NR_OPS; op++) {
		w = wait_stat_of(op);
		if (w && w->runnable > 0)
			behind |= 1u << op;
	}
	if (!behind)
		return;
	wk = pid_may(tid, PID_WORKER) ? bpf_map_lookup_elem(&workers, &tid)
				      : NULL;
	if (wk && wk->kind && wk->kind <= NR_WORKER_KINDS)
		cls = wk->kind - 1;
	else if (wk && wk->thread_kind && wk->thread_kind <= NR_WORKER_KINDS)
		cls = wk->thread_kind - 1;
	for (__u32 op = 0; op < NR_OPS; op++) {
		w = wait_stat_of(op);
		if (w && (behind & 1u << op) && cls <= NR_WORKER_KINDS)
			__sync_fetch_and_add(&w->behind_samples[cls], 1);
	}
}

/* A CPU sample of a kworker writing the target back: its stack, kept
 * for op write; user space counts those in cipher code as write crypt
 * and the rest as writeback's own file system work. */
static __always_inline void wb_worker_sample(void *ctx)
{
	struct stack_key key = {.op = EB_OP_WRITE, .use = STACK_WB_SAMPLE};
	struct wait_stat *w;
	long id;

	id = bpf_get_stackid(ctx, &stacks, 0);
	key.stackid = id;
	if (id >= 0 && stack_count_add(&key, 1))
		return;
	w = wait_stat_of(EB_OP_WRITE);
	if (w)
		__sync_fetch_and_add(&w->wb_samples_nostack, 1);
}

/* A ZFS taskq thread's CPU sample, by the op its taskq serves: user
 * space counts those in cipher code as ZFS's crypt (zfscrypt.c). */
static __always_inline void zfs_worker_sample(void *ctx)
{
	struct stack_key key = {.use = STACK_ZFS_SAMPLE};
	char comm[16];
	long id;

	bpf_get_current_comm(comm, sizeof(comm));
	if (comm[0] != 'z' || comm[1] != '_')
		return;
	if (comm[2] == 'r' && comm[3] == 'd')
		key.op = EB_OP_READ;
	else if (comm[2] == 'w' && comm[3] == 'r')
		key.op = EB_OP_WRITE;
	else
		return;
	id = bpf_get_stackid(ctx, &stacks, 0);
	if (id < 0)
		return;
	key.stackid = id;
	stack_count_add(&key, 1);
}

/* On-CPU time of a syscall, split by where its kernel stack is; other
 * tasks' samples say whom runnable callers wait behind. */
SEC("perf_event")
int wait_sample(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct stack_key key = {};
	struct thr_wait *t = NULL;
	struct wait_stat *w;
	long id;

	if (pid_may(tid, PID_CALLER))
		t = bpf_map_lookup_elem(&thr, &tid);
	if (!t) {
		struct served_worker *wk = NULL;

		sample_occupant(tid);
		/* Only workers have the bit: other kworkers leave here. */
		if (tid && tracing_on && pid_may(tid, PID_WORKER))
			wk = bpf_map_lookup_elem(&workers, &tid);
		if (wk && wk->writeback)
			wb_worker_sample(ctx);
		if (zfs_sample_workers && tracing_on)
			zfs_worker_sample(ctx);
		return 0;
	}
	if (t->state != THR_ON_CPU)
		return 0;
	id = bpf_get_stackid(ctx, &stacks, 0);
	key.stackid = id;
	key.op = t->op;
	key.use = STACK_ONCPU_SAMPLE;
	if (id >= 0 && stack_count_add(&key, 1))
		return 0;
	w = wait_stat_of(t->op);
	if (w)
		__sync_fetch_and_add(&w->samples_nostack, 1);
	return 0;
}

/* ---- requests and work items ---------------------------------------- */

/* The dmio_stamps of the write whose clone heads request rq, taken out of
 * dmio_times into io (left 0 if it has none). */
static __always_inline void dmio_take(struct request *rq, struct io_times *io)
{
	__u64 key = (__u64)BPF_CORE_READ(rq, bio, bi_private);
	struct io_times *t = bpf_map_lookup_elem(&dmio_times, &key);

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

/*
 * The flusher (wb_workfn) starts writing back a bdi_writeback: if its
 * device is the target's, mark this kworker until the item ends. The work
 * item is the bdi_writeback's delayed work; its bdi's owner is the disk
 * the file system is on (device_add_disk: bdi_set_owner).
 */
static __always_inline void wait_wb_start(struct work_struct *work, __u64 now)
{
	struct served_worker *wk, init = {.writeback = 1, .on = 1, .last = now};
	struct bdi_writeback *wb;
	__u32 tid;

	wb = (void *)work -
	     (bpf_core_field_offset(struct bdi_writeback, dwork) +
	      bpf_core_field_offset(struct delayed_work, work));
	if (filter_devs && !dev_ok(BPF_CORE_READ(wb, bdi, owner, devt)))
		return;
	tid = (__u32)bpf_get_current_pid_tgid();
	wk = bpf_map_lookup_elem(&workers, &tid);
	if (wk) {
		wk->writeback = 1;
		wk->on = 1;
		wk->last = now;
	} else {
		/* The bit before the entry, as every worker's. */
		pid_mark(tid, PID_WORKER);
		bpf_map_update_elem(&workers, &tid, &init, BPF_NOEXIST);
	}
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
		worker_runq(ws, wk->pending);
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
			wb_add(false, now - wk->last);
		/* Its run-queue waits were the flusher's, not before an
		 * item of ours. */
		wk->writeback = 0;
		wk->pending = 0;
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

#endif /* __WAIT_BPF_H */
