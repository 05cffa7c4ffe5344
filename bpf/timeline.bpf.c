// SPDX-License-Identifier: GPL-2.0
/*
 * The timeline: per-I/O events for the first seconds of a phase (until
 * until_ns), sent to user space through a ring buffer: syscalls of the
 * workload, bios queued and requests issued and completed on the target's
 * devices, crypto work items, and wakeups of the workload's threads. Off
 * by default; the attribution (attrib.bpf.c) stays aggregate-only.
 *
 * Which processes and devices are the target's, and which work items are
 * its crypto work, is what the attribution already keeps: the filters are
 * the attribution's own (filters.bpf.h), and user space points traced,
 * devs, sys_ops, crypt_funcs and cx_start at its maps (map reuse, their
 * size and flags taken from the tracer's), so both always agree. Its
 * window is until_ns, not the attribution's tracing_on. raw_tp only:
 * every kernel with BPF has it, and one flavour keeps this diagnostic
 * small.
 */
#include "core_fixes.bpf.h" /* first: it includes vmlinux.h */
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "attrib.h"
#include "filters.bpf.h"
#include "maps.bpf.h"
#include "timeline.h"

/* The attribution's crypto work items running now, by kworker tid: its
 * workqueue_execute_start program runs before ours (attached first) and
 * enters only the target's own work, device filter and all. Sized from
 * the tracer's map. */
START_MAP(cx_start, __u32, 1);

/* Ours: the kworkers whose start we sent, so that only their ends go. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} work_open SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} events SEC(".maps");

/* Set by user space at each phase (filter_devs too: filters.bpf.h). */
__u64 until_ns = 0;
/* Events lost because the ring buffer was full. */
__u64 lost = 0;

static __always_inline bool on(__u64 now)
{
	return now < until_ns;
}

static __always_inline void emit(__u64 now, __u32 kind, __u64 key, __u64 arg,
				 __u64 sector, __u32 bytes, __u32 dev)
{
	struct tl_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	if (!e) {
		__sync_fetch_and_add(&lost, 1);
		return;
	}
	e->ts = now;
	e->kind = kind;
	e->key = key;
	e->arg = arg;
	e->sector = sector;
	e->bytes = bytes;
	e->dev = dev;
	e->tgid = pid_tgid >> 32;
	e->tid = (__u32)pid_tgid;
	e->pad = 0;
	bpf_ringbuf_submit(e, 0);
}

static __always_inline bool traced_now(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	return bpf_map_lookup_elem(&traced, &tgid) != NULL;
}

SEC("raw_tp/sys_enter")
int tl_sys_enter(__u64 *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	long id = (long)ctx[1];
	__u32 key, *v;

	if (!on(now) || id < 0 || id >= 1024 || !traced_now())
		return 0;
	key = id;
	v = bpf_map_lookup_elem(&sys_ops, &key);
	if (!v || !*v)
		return 0;
	emit(now, TL_SYS_ENTER, id, *v, 0, 0, 0);
	return 0;
}

SEC("raw_tp/sys_exit")
int tl_sys_exit(__u64 *ctx)
{
	__u64 now = bpf_ktime_get_ns();

	/* Every exit of a traced thread: user space keeps those that end
	 * an enter it has (the others were no counted call). */
	if (!on(now) || !traced_now())
		return 0;
	emit(now, TL_SYS_EXIT, ctx[1], ctx[1], 0, 0, 0);
	return 0;
}

/* block_bio_queue(struct bio *bio), since v5.11 (1c02fca620f7). */
SEC("raw_tp/block_bio_queue")
int tl_bio_queue(__u64 *ctx)
{
	struct bio *bio = (void *)ctx[0];
	__u64 now = bpf_ktime_get_ns();
	__u32 dev;

	if (!on(now))
		return 0;
	if (!bio_dev_ok(bio, false))
		return 0;
	dev = get_bio_bdev_dev(bio, false);
	emit(now, TL_BIO_QUEUE, (__u64)bio,
	     1 + op_group(BPF_CORE_READ(bio, bi_opf)),
	     BPF_CORE_READ(bio, bi_iter.bi_sector),
	     BPF_CORE_READ(bio, bi_iter.bi_size), dev);
	return 0;
}

/* block_rq_issue(struct request *rq), since v5.11 (a54895fa057c). */
SEC("raw_tp/block_rq_issue")
int tl_rq_issue(__u64 *ctx)
{
	struct request *rq = (void *)ctx[0];
	__u64 now = bpf_ktime_get_ns();
	__u32 dev;

	if (!on(now))
		return 0;
	dev = disk_dev(get_disk(rq, false), false);
	if (!dev_ok(dev))
		return 0;
	emit(now, TL_RQ_ISSUE, (__u64)rq, (__u64)BPF_CORE_READ(rq, bio),
	     BPF_CORE_READ(rq, __sector), BPF_CORE_READ(rq, __data_len), dev);
	return 0;
}

SEC("raw_tp/block_rq_complete")
int tl_rq_complete(__u64 *ctx)
{
	struct request *rq = (void *)ctx[0];
	__u64 now = bpf_ktime_get_ns();
	__u32 dev;

	/* A request issued before the deadline ends after it: let it. */
	if (now > until_ns + 1000000000ULL)
		return 0;
	dev = disk_dev(get_disk(rq, false), false);
	if (!dev_ok(dev))
		return 0;
	emit(now, TL_RQ_COMPLETE, (__u64)rq, 0, 0, 0, dev);
	return 0;
}

SEC("raw_tp/workqueue_execute_start")
int tl_work_start(__u64 *ctx)
{
	struct work_struct *work = (void *)ctx[0];
	__u64 func = (__u64)BPF_CORE_READ(work, func);
	__u64 now = bpf_ktime_get_ns();
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), *kind;
	__u8 one = 1;

	if (!on(now) || !bpf_map_lookup_elem(&cx_start, &tid))
		return 0;
	kind = bpf_map_lookup_elem(&crypt_funcs, &func);
	if (!kind)
		return 0;
	bpf_map_update_elem(&work_open, &tid, &one, BPF_ANY);
	emit(now, TL_WORK_START, (__u64)work, *kind, 0, 0, 0);
	return 0;
}

/* The work may be freed by now: only the worker is looked at. */
SEC("raw_tp/workqueue_execute_end")
int tl_work_end(__u64 *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	if (bpf_map_delete_elem(&work_open, &tid))
		return 0;
	emit(bpf_ktime_get_ns(), TL_WORK_END, ctx[0], 0, 0, 0, 0);
	return 0;
}

/* sched_wakeup(struct task_struct *p): a traced thread made runnable. */
SEC("raw_tp/sched_wakeup")
int tl_wakeup(__u64 *ctx)
{
	struct task_struct *p = (void *)ctx[0];
	__u64 now = bpf_ktime_get_ns();
	__u32 tgid;

	if (!on(now))
		return 0;
	tgid = BPF_CORE_READ(p, tgid);
	if (!bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	emit(now, TL_WAKEUP, BPF_CORE_READ(p, pid), tgid, 0, 0, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
