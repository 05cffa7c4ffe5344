/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler's side of the wait attribution: sched_waking and
 * sched_switch move callers between on a CPU, blocked and runnable and
 * keep the workers' run-queue waits and CPU time; the CPU-sample program
 * splits on-CPU time by kernel stack and says whom runnable callers wait
 * behind. attrib.bpf.c attaches the tracepoint handlers (TP_PAIR_BTF).
 */
#ifndef __WAIT_SCHED_BPF_H
#define __WAIT_SCHED_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "core_fixes.bpf.h" /* BTF_READ */
#include "filters.bpf.h"
#include "pid_bits.bpf.h"
#include "wait_chain.bpf.h"
#include "wait_state.bpf.h"

/* ---- scheduler ------------------------------------------------------ */

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
	if (wk_woken) {
		wk->woke = now;
		/* Its waker may say what it waited for. */
		if (wk->writeback && wk->blocked)
			split_wb_blocked(wk->writeback, wk->blocked, now);
		wk->blocked = 0;
	}
	if (!t || t->state != THR_BLOCKED)
		return 0;
	/*
	 * A long block's stack, taken before the block's end is read: the
	 * unwinding then falls in the blocked time. Read after it, the end
	 * put the unwinding in the runnable time that follows (this runs in
	 * the waker's try_to_wake_up, before the caller is enqueued): a
	 * cpu-wait of one stack per long block, which test_wait's fscrypt
	 * reads showed as lost "waiting for decryption" summaries.
	 */
	if (btf && t->why_stack == WHY_DEFERRED) {
		t->why_stack = -1;
		if (now - t->last >= WAIT_WHY_MIN_NS) {
			t->why_stack = why_task_stackid(p);
			now = bpf_ktime_get_ns();
		}
	}
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
	bool runnable, from_idle;
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
	/* The CPU leaves its idle task (pid 0) for next: next's wait since
	 * its wakeup was for that CPU to wake (the IPI, the idle exit; under
	 * a VM the host running the vCPU), behind no task. fio's runnable
	 * time in its 4 KiB reads here is 84-94 % that, which was told as
	 * CPU contention behind "other tasks" (bench/idle-wake.sh). */
	from_idle = ptid == 0;
	now = bpf_ktime_get_ns();
	/* calls_by_sched: a caller outside a counted call (op NR_OPS, no
	 * wait_stat) stays THR_ON_CPU, counting nothing; inside one, its
	 * on-CPU time is user space's to derive. */
	if (t && t->state == THR_ON_CPU &&
	    (!calls_by_sched || wait_stat_of(t->op))) {
		struct wait_stat *w = wait_stat_of(t->op);

		ns = thr_advance(t, now);
		if (w && !calls_by_sched)
			__sync_fetch_and_add(&w->oncpu_ns, ns);
		thr_set(t, w, runnable ? THR_RUNNABLE : THR_BLOCKED);
		/*
		 * Why it blocks: its own stack. Taken here in its own context
		 * (raw_tp), 4-10 us on this project's machines, once per
		 * block: fio at QD1 blocks once per I/O, mostly for less than
		 * WAIT_WHY_MIN_NS, whose stack is never kept. With a trusted
		 * task (tp_btf) it is taken at the wakeup, only for a long
		 * block (on_sched_waking).
		 */
		if (!runnable)
			t->why_stack = btf ? WHY_DEFERRED : why_stackid(ctx);
	}
	if (wk) {
		if (wk->kind && wk->on && now > wk->last)
			wk->oncpu += now - wk->last;
		else if (wk->thread_kind && wk->on && now > wk->last)
			worker_oncpu(worker_stat_of(wk->thread_kind - 1),
				     now - wk->last);
		else if (wk->writeback && wk->on && now > wk->last)
			wb_add(wk->writeback, false, now - wk->last);
		wk->on = 0;
		wk->woke = runnable ? now : 0;
		if (wk->wb_until_sleep && !runnable) {
			/* jbd2 done with the commit, and idle. */
			wk->writeback = 0;
			wk->wb_until_sleep = 0;
		}
		wk->blocked = !runnable && wk->writeback ? now : 0;
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
			if (w && from_idle)
				__sync_fetch_and_add(&w->cpu_wait_idle_ns, ns);
		} else if (w) {
			/* Woken without a sched_waking we saw: its stack, not
			 * taken there, is still the blocked one now, before
			 * it runs (after ns is read: not in the block). */
			wait_add(w, LAYER_FS, ns);
			__sync_fetch_and_add(&w->unresolved_ns, ns);
			if (btf && t->why_stack == WHY_DEFERRED)
				t->why_stack = ns >= WAIT_WHY_MIN_NS
						       ? why_task_stackid(next)
						       : -1;
			wait_why(w, t, ns);
		}
		thr_set(t, w, THR_ON_CPU);
	}
	wk = wkn;
	if (wk) {
		if (wk->woke && now > wk->woke) {
			ns = now - wk->woke;
			if (wk->kind)
				worker_runq(worker_stat_of(wk->kind - 1), ns,
					    from_idle);
			else if (wk->thread_kind)
				worker_runq(worker_stat_of(wk->thread_kind - 1),
					    ns, from_idle);
			else if (wk->writeback)
				wb_add(wk->writeback, true, ns);
			else
				wk->pending = ns;
			wk->pending_idle = from_idle;
		}
		/* Running again without a waking we saw. */
		if (wk->writeback && wk->blocked && now > wk->blocked)
			wb_add_blocked(wk->writeback, now - wk->blocked);
		wk->blocked = 0;
		wk->woke = 0;
		wk->on = 1;
		wk->last = now;
	}
	return 0;
}

/* Who held the CPUs while callers were runnable (sample_occupant). LRU:
 * a task sampled often stays, short-lived ones make room. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_CPU_HOLDERS);
	__type(key, struct cpu_holder_key);
	__type(value, struct cpu_holder_val);
} cpu_holders SEC(".maps");

/* One sample of task tid (the current one) holding a CPU while callers
 * of op were runnable. */
static __always_inline void cpu_holder_add(__u32 tid, __u32 op)
{
	struct cpu_holder_key key = {.tid = tid, .op = op};
	struct cpu_holder_val *v = bpf_map_lookup_elem(&cpu_holders, &key);
	struct cpu_holder_val init = {.samples = 1};

	if (v) {
		__sync_fetch_and_add(&v->samples, 1);
		return;
	}
	init.tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	bpf_get_current_comm(init.comm, sizeof(init.comm));
	bpf_map_update_elem(&cpu_holders, &key, &init, BPF_NOEXIST);
}

/* A CPU sample of a task other than a caller: while callers are
 * runnable, it is what they wait behind. Idle is nobody's. */
static __always_inline void sample_occupant(__u32 tid)
{
	struct served_worker *wk;
	struct wait_stat *w;
	__u32 cls = NR_WORKER_KINDS, behind = 0, wb = 0;

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
	else if (wk && wk->writeback)
		wb = 1;
	for (__u32 op = 0; op < NR_OPS; op++) {
		w = wait_stat_of(op);
		if (w && (behind & 1u << op) && cls <= NR_WORKER_KINDS)
			__sync_fetch_and_add(&w->behind_samples[cls], 1);
		if (w && (behind & 1u << op) && wb)
			__sync_fetch_and_add(&w->behind_wb_samples, 1);
		if (behind & 1u << op)
			cpu_holder_add(tid, op);
	}
}

/*
 * The sampled stack's id: in `stacks`, or, when that refuses it (its hash
 * bucket holds another stack: bpf_get_stackid without BPF_F_REUSE_STACKID
 * says -EEXIST, and REUSE would hand the older stack's counts these
 * frames; or the map is full), in why_stacks by its frames. In the 6.1
 * guest 33 of 586 samples of a ZFS reader had no stack before. -1:
 * neither kept it.
 */
static __always_inline long sample_stackid(void *ctx)
{
	long id = bpf_get_stackid(ctx, &stacks, 0);

	return id >= 0 ? id : why_stackid(ctx);
}

/* A CPU sample of a kworker writing the target back: its stack, kept
 * for op write; user space counts those in cipher code as write crypt
 * and the rest as writeback's own file system work. */
static __always_inline void wb_worker_sample(void *ctx)
{
	struct stack_key key = {.op = EB_OP_WRITE, .use = STACK_WB_SAMPLE};
	struct wait_stat *w;
	long id;

	id = sample_stackid(ctx);
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
	id = sample_stackid(ctx);
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
	key.op = t->op;
	/* calls_by_sched: t->op is the call it last switched out in; the
	 * one it runs now is in its saved registers, and a sample in user
	 * space is in none. */
	if (calls_by_sched) {
		int op;

		if (sample_in_user(ctx))
			return 0;
		op = current_call_op();
		if (op < 0)
			return 0;
		key.op = op;
	}
	id = sample_stackid(ctx);
	key.stackid = id;
	key.use = STACK_ONCPU_SAMPLE;
	if (id >= 0 && stack_count_add(&key, 1))
		return 0;
	w = wait_stat_of(key.op);
	if (w)
		__sync_fetch_and_add(&w->samples_nostack, 1);
	return 0;
}

#endif /* __WAIT_SCHED_BPF_H */
