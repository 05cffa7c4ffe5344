/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Types of the wait decomposition (wait.bpf.h) shared with user space.
 * Included by attrib.h after the layer and op enums.
 *
 * Every traced syscall's wall time is cut into intervals at each change of
 * the calling thread's state -- on a CPU, blocked, runnable -- and each
 * interval is added to one component, so the components add up to the
 * syscall time by construction. Blocked intervals are split along the
 * chain that ended in the wakeup (who woke the caller, and what that
 * waker was waiting for).
 */
#ifndef __WAIT_H
#define __WAIT_H

/* Kernel stack frames kept per stack id. */
#define WAIT_STACK_DEPTH 32

/*
 * Workers the caller waits on: their own run-queue wait (woken or
 * preempted, not yet running) and, for crypto work, the CPU time and bytes
 * that give the cipher's throughput.
 */
enum worker_kind {
	WORKER_CRYPT,  /* crypto work items (crypt_funcs) */
	WORKER_DEVICE, /* a CPU-served device's worker (loop) */
	/* dm-crypt's dmcrypt_write/<dev> kthread: no work items, every
	 * run-queue wait of it counts. */
	WORKER_DMCRYPT_WRITE,
	/* ZFS's taskq threads (z_rd_int, z_wr_iss, ...: those in the
	 * zfs_threads map), enrolled at their first zio while tracing;
	 * items: the zios they ran (zio_execute). */
	WORKER_ZFS_TASKQ,
	NR_WORKER_KINDS,
};

/* Per op: key op of the wait_stats array map. */
struct wait_stat {
	unsigned long long syscalls;
	/* Sum of the syscalls' wall times: what ns[], oncpu_ns and
	 * waker_stack_ns add up to. */
	unsigned long long total_ns;
	/* Blocked and runnable time by component, indexed by enum layer:
	 * fs, crypt-queue, crypt, dm, blk-queue, device, cpu-wait. */
	unsigned long long ns[NR_LAYERS];
	/* On a CPU inside the syscall: split into crypt and fs by the CPU
	 * samples of stack_counts (use STACK_ONCPU_SAMPLE). */
	unsigned long long oncpu_ns;
	/* Blocked time whose waker ran no work item and completed no
	 * request of ours: split by the waker's stack in user space
	 * (stack_counts, use STACK_WAKER_NS). */
	unsigned long long waker_stack_ns;
	/* Part of ns[LAYER_FS] whose waker was not seen at all (woken
	 * while the tracer missed the event). */
	unsigned long long unresolved_ns;
	/* CPU samples that found the caller on a CPU but could not take
	 * its stack; waker stacks likewise (their ns go to fs). */
	unsigned long long samples_nostack;
	unsigned long long wakers_nostack;
	/* Bytes the target's devices completed for this op. */
	unsigned long long dev_bytes;
	/* Callers of this op runnable now, and CPU samples taken while
	 * any was, by what ran instead: enum worker_kind, or another task
	 * at NR_WORKER_KINDS. They split cpu-wait by whom it waited
	 * behind. */
	long long runnable;
	unsigned long long behind_samples[NR_WORKER_KINDS + 1];
	/* Blocked time whose waker was a ZFS taskq thread running a zio
	 * (struct zfs_thread): wakeups, and what they gave to ns[] --
	 * crypt, device (the vdev's I/O), and ZFS's own pipeline (in
	 * ns[fs]: taskq and vdev queues, checksums, decompression). */
	unsigned long long zfs_wakeups;
	unsigned long long zfs_crypt_ns, zfs_device_ns, zfs_pipeline_ns;
	/* Blocked time whose waker was dm-crypt's write thread itself (a
	 * device below that completes bios inside their submission):
	 * wakeups, their ns, and how many of them split along the chain of
	 * the clone it was submitting (the others: by its stack). */
	unsigned long long dmw_wakeups, dmw_waker_ns, dmw_chained;
	/* The target's writeback workers (op write): CPU samples whose
	 * stack could not be taken (STACK_WB_SAMPLE), their time on a CPU
	 * and runnable while they wrote the target back. */
	unsigned long long wb_samples_nostack;
	unsigned long long wb_oncpu_ns, wb_runq_ns;
};

/* worker_funcs values: enum worker_kind in the low byte, a flavour above
 * saying where the work item is embedded. */
#define WORKER_FLAVOUR_SHIFT 8
#define LOOP_ROOTCG	     1 /* loop_rootcg_workfn: work in loop_device */
#define LOOP_WORKER	     2 /* loop_workfn: work in loop_worker */
/* worker_funcs value of wb_workfn (fs/fs-writeback.c), the flusher: no
 * worker kind the caller waits on, only CPU samples while it writes the
 * target back (STACK_WB_SAMPLE). */
#define WORKER_WRITEBACK_FN 0xff

struct worker_stat {
	unsigned long long items;
	unsigned long long runq_ns;
	unsigned long long runq_waits;
	unsigned long long oncpu_ns;
	/* Bytes of the items whose size is known, and their CPU time. */
	unsigned long long bytes;
	unsigned long long bytes_oncpu_ns;
};

enum stack_use {
	STACK_ONCPU_SAMPLE, /* value: samples */
	STACK_WAKER_NS,	    /* value: ns of blocked time */
	/* A ZFS taskq thread's CPU sample (z_rd_* for reads, z_wr_* for
	 * writes): ZFS's crypt from samples where kprobes cannot attach. */
	STACK_ZFS_SAMPLE, /* value: samples */
	/* A kworker's CPU sample while it runs wb_workfn for the target's
	 * device (op write): where fscrypt encrypts the writes the caller
	 * left to writeback. Not in the caller's wait. */
	STACK_WB_SAMPLE, /* value: samples */
};

struct stack_key {
	unsigned int stackid;
	unsigned short op;
	unsigned short use;
};

#endif /* __WAIT_H */
