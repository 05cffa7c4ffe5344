/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * attrib.bpf.c's ABI, its one header shared with user space (plain C,
 * no kernel type): the layer and op vocabulary every program and report
 * uses, the per-(layer, op) statistics the BPF side accumulates, the
 * filter user space fills in before attaching, and the wait
 * decomposition's counters, workers, CPU holders and stack keys.
 */
#ifndef __ATTRIB_H
#define __ATTRIB_H

/* Order is the order layers are printed in, top (what the caller sees) down. */
enum layer {
	LAYER_SYSCALL,
	LAYER_FS,
	LAYER_CRYPT_QUEUE,
	LAYER_CRYPT,
	/* dm-crypt's write thread: an encrypted write clone from its hand-off
	 * (kcryptd_crypt_write_io_submit) to its submission below. */
	LAYER_DMCRYPT_WRITE,
	LAYER_DM,
	LAYER_BLK_QUEUE,
	LAYER_DEVICE,
	/* Runnable, not running: a wait component only (struct wait_stat),
	 * no items. */
	LAYER_CPU_WAIT,
	NR_LAYERS,
};

/*
 * What a syscall or io_uring request does (prefixed: vmlinux.h has NFSv4's
 * OP_READ/OP_WRITE). The block layers know only reads and writes; sync,
 * create and copy are seen at the syscall layer. Append only: results.json
 * names them (results.c).
 */
enum eb_op {
	EB_OP_READ,
	EB_OP_WRITE,
	EB_OP_SYNC,   /* fsync, fdatasync, sync_file_range, syncfs */
	EB_OP_CREATE, /* open with O_CREAT, creat, mkdir, unlink, rename */
	EB_OP_COPY,   /* copy_file_range, sendfile, splice */
	/* An async caller's own wait for its I/Os' completions: io_getevents,
	 * io_pgetevents, io_uring_enter with min_complete (aio_io.bpf.h
	 * follows the I/Os themselves). */
	EB_OP_REAP,
	NR_OPS,
};

/*
 * Value of the sys_ops map, by syscall number: 0 ignores the call, else
 * 1 + enum eb_op in the low byte. Open calls count as creates only with
 * O_CREAT: SYS_OP_IF_CREAT(n) says the flags are argument n (0-based),
 * SYS_OP_IF_HOW_CREAT that they lead struct open_how at argument 2
 * (openat2).
 */
#define SYS_OP_MASK	    0xff
#define SYS_OP_IF_CREAT(n)  ((1u + (n)) << 8)
#define SYS_OP_IF_HOW_CREAT (0xfu << 8)
#define SYS_OP_CREAT_ARG(v) ((int)(((v) >> 8) & 0xf) - 1)
#define SYS_OP_O_CREAT	    0100 /* asm-generic/fcntl.h, octal */

/* log2(ns) slots: slot i counts latencies in [2^i, 2^(i+1)) ns; slot 0 also
 * takes 0 ns. 40 slots reach 2^40 ns (18 minutes). */
#define HIST_SLOTS 40

struct layer_stat {
	unsigned long long count;
	unsigned long long sum_ns;
	/* Wall time with at least one item of this layer in flight: sums
	 * overlap away, so busy_ns is comparable with the caller's time. */
	unsigned long long busy_ns;
	long long inflight;
	unsigned long long busy_start;
	unsigned long long slots[HIST_SLOTS];
	/* Items never timed because the layer's map of items in flight was
	 * full: count, sum and busy time are short by these. */
	unsigned long long dropped;
	/* Items (requests) that ended where no BPF program ran, found
	 * over later (block.bpf.h: rq_unseen): not in count or sum. */
	unsigned long long unseen;
	/* device: data-less flush requests the kernel ended without issuing
	 * them (block.bpf.h: on_rq_complete); it counts them as writes. */
	unsigned long long unissued;
	/* crypt: the cipher calls its items made (crypto_skcipher_encrypt
	 * and _decrypt, outermost only): one per crypto sector or data unit.
	 * Counted where fentry or kprobes attach; else 0. */
	unsigned long long calls;
};

/* The kernel's dev_t: 12 bits major, 20 bits minor (include/linux/kdev_t.h),
 * the key of the device filter on both sides. */
#define KDEV_MINORBITS 20
#define KDEV(ma, mi)   (((__u32)(ma) << KDEV_MINORBITS) | (__u32)(mi))

#define MAX_TARGET_DEVS 8
#define MAX_CRYPT_FUNCS 16

/*
 * What a work function found on a workqueue does, and so where its work
 * item leads to a device. Values are shared with user space: append only.
 */
enum crypt_work_kind {
	CRYPT_WORK_NONE,
	CRYPT_WORK_FSCRYPT_READ, /* ext4 decrypt_work: bio_post_read_ctx */
	CRYPT_WORK_DMCRYPT,	 /* kcryptd_crypt: direction from the bio */
	CRYPT_WORK_BLK_CRYPTO,	 /* blk-crypto fallback decrypt */
	CRYPT_WORK_FSCRYPT_BH,	 /* decrypt_bh (fs/buffer.c): a buffer_head */
};

#define NR_CRYPT_WORK_KINDS (CRYPT_WORK_FSCRYPT_BH + 1)

/*
 * The pid_bits map (attrib.bpf.c): a nibble per pid saying which hash maps
 * may hold an entry for it. Sized by user space from pid_max (20 KiB of
 * memlock at the usual 32768), up to PID_BITS_MAX_PIDS (256 KiB), so that
 * all maps stay within 8 MiB; pids beyond it are always looked up.
 */
enum pid_bit {
	PID_CALLER = 1,	    /* a thread in a timed syscall: thr */
	PID_WORKER = 2,	    /* a worker the caller waits on: workers */
	PID_TRACED = 4,	    /* a process whose syscalls count: traced */
	PID_CRYPT_ITEM = 8, /* a worker running crypto work: cx_start */
};

#define PID_BITS_PER_WORD 16
#define PID_BITS_SHIFT(p) ((p) % PID_BITS_PER_WORD * 4)
#define PID_BITS_MAX_PIDS (1u << 19)

/*
 * ---- The wait decomposition (wait_*.bpf.h) ----
 *
 * Every traced syscall's wall time is cut into intervals at each change of
 * the calling thread's state -- on a CPU, blocked, runnable -- and each
 * interval is added to one component, so the components add up to the
 * syscall time by construction. Blocked intervals are split along the
 * chain that ended in the wakeup (who woke the caller, and what that
 * waker was waiting for).
 */

/* Kernel stack frames kept per stack id. */
#define WAIT_STACK_DEPTH 32

/* stack_key.stackid from here up names a stack of why_stacks (blocked
 * and waker stacks, keyed by their frames), below it one of stacks (CPU
 * samples, a STACK_TRACE map). */
#define WHY_STACK_ID0 0x40000000U

/* why_stacks' key: a stack's frames, zero after the last. */
struct why_frames {
	unsigned long long ips[WAIT_STACK_DEPTH];
};

/* Blocked intervals at least this long keep the caller's own stack as it
 * blocked (STACK_BLOCKED_NS): why it blocked. Shorter ones are counted
 * (why_short_ns), not kept: they cannot matter to a verdict and their
 * stacks would fill stack_counts. */
#define WAIT_WHY_MIN_NS 20000ULL

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
	/* Blocked time whose waker ran no work item, completed no
	 * request of ours and was no writeback worker of the target: split
	 * by the waker's stack in user space (stack_counts, use
	 * STACK_WAKER_NS). Not in ns[]. */
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
	/* ...and their time blocked while writing the target back (request
	 * slots, the device, locks): with wb_oncpu_ns and wb_runq_ns what
	 * writeback did in its wall time. */
	unsigned long long wb_blocked_ns;
	/* ...the part of it whose waker's chain said what it waited for (a
	 * completion of the target's request, a crypto worker's item): by
	 * layer, as the caller's ns[] (dm-delay's hold on a journal write
	 * is dm's); user space tells the rest as device. */
	unsigned long long wb_blocked_layer_ns[NR_LAYERS];
	/* Blocked time whose waker was one of the target's writeback
	 * workers ending its work (wb_wait_for_completion: ext4's
	 * free-space path, sync; jbd2_log_wait_commit): no useful waker, user
	 * space shares it out by what writeback did. Not in ns[]. */
	unsigned long long wb_waker_ns;
	/* ...of which jbd2 ending a commit of the target's journal was the
	 * waker (jbd2_log_wait_commit: fsync, O_SYNC). */
	unsigned long long jbd2_waker_ns;
	/* Flush requests (REQ_OP_FLUSH: the flush machinery's own, for a
	 * REQ_PREFLUSH write or blkdev_issue_flush) the target's devices
	 * completed, and their time from issue to end (op write). No data,
	 * so no device items, but the device's time: a loop worker spends
	 * it in vfs_fsync of its backing file, and its run-queue waits are
	 * a part of it as of the timed requests'. */
	unsigned long long flush_reqs, flush_ns;
	/* Why the caller blocked: the time of blocked intervals of at
	 * least WAIT_WHY_MIN_NS whose stack is kept (STACK_BLOCKED_NS),
	 * those whose stack could not be taken, and the shorter ones. A
	 * view of the same blocked time ns[] splits by waker. */
	unsigned long long why_ns, why_nostack_ns, why_short_ns;
	/* Part of ns[LAYER_CPU_WAIT] that ended with the CPU leaving its
	 * idle task: the caller was woken onto an idle CPU and waited for
	 * it to wake (the wakeup's IPI, an idle state's exit; under a VM
	 * the host running the vCPU), behind no task. */
	unsigned long long cpu_wait_idle_ns;
	/* Of behind_samples[NR_WORKER_KINDS] (another task), the samples
	 * of the target's writeback workers (the flusher, jbd2 committing)
	 * holding the CPU: a writer runnable behind the writeback it waits
	 * for. */
	unsigned long long behind_wb_samples;
	/* The part of wb_oncpu_ns, wb_runq_ns, wb_blocked_ns and
	 * wb_blocked_layer_ns that was jbd2 committing the target's
	 * journal: what a caller jbd2 woke (jbd2_waker_ns) waited for. A
	 * flusher blocked meanwhile on something no chain tells is not in
	 * it (test_vm_truth: a plain fsync's dm-delay hold half told as the
	 * device in 2 runs of 7, shared out with the whole of writeback). */
	unsigned long long jbd2_oncpu_ns, jbd2_runq_ns, jbd2_blocked_ns;
	unsigned long long jbd2_blocked_layer_ns[NR_LAYERS];
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
	/* Part of runq_ns spent waiting for an idle CPU to wake (as
	 * wait_stat's cpu_wait_idle_ns), not behind a task. */
	unsigned long long runq_idle_ns;
};

/* A task's CPU samples while callers of op were runnable (they waited
 * for a CPU it held): key and value of the cpu_holders map; user space
 * keeps the top few per op. */
#define MAX_CPU_HOLDERS 1024

struct cpu_holder_key {
	unsigned int tid;
	unsigned int op;
};

struct cpu_holder_val {
	unsigned long long samples;
	unsigned int tgid;
	char comm[16];
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
	/* The caller's own stack as it blocked (taken at sched_switch),
	 * for blocked intervals of at least WAIT_WHY_MIN_NS: why it
	 * blocked (dirty throttling, ext4's free-space writeback, a folio
	 * under writeback, a journal commit, its own bio), classified in
	 * user space. */
	STACK_BLOCKED_NS, /* value: ns of blocked time */
	NR_STACK_USES,	  /* the snapshot file names each (snapshot_fields.h) */
};

struct stack_key {
	unsigned int stackid;
	unsigned short op;
	unsigned short use;
};

/*
 * ---- Per-I/O attribution of asynchronous I/O (aio_io.bpf.h) ----
 *
 * An engine whose syscalls do not block on the I/O (libaio, io_uring)
 * has no caller's time to split: each I/O is followed instead, from its
 * submission to its completion, keyed by the first bio its submitter
 * queues. Its time is cut at each layer it enters (telescoping), so the
 * layers add up to its latency by construction. As fio does, the time
 * inside the submitting call (fio's slat) is kept apart from the rest
 * (fio's clat: from the call's return until the completion is reaped).
 */
/* Per op: key op of the aio_stats array map. */
struct aio_stat {
	/* I/Os followed from submission to completion; io_uring's among
	 * them (the rest are libaio's). */
	unsigned long long ios, iouring;
	/* Inside the submitting call (io_submit, io_uring_enter): its sum
	 * and its split by layer (enum layer). */
	unsigned long long sub_ns;
	unsigned long long ns_sub[NR_LAYERS];
	/* From the submitting call's return to the completion. */
	unsigned long long clat_ns;
	unsigned long long ns[NR_LAYERS];
	/* I/Os that completed inside their submitting call (buffered I/O
	 * that libaio performs in io_submit): all of theirs is sub_ns. */
	unsigned long long in_call;
	/* Completed I/Os seen reaped, and the time from their completion
	 * until they were: the rest of fio's clat. libaio: its reaping call
	 * (io_getevents) returned; io_uring: its CQE was read from the ring
	 * (in user space: seen at the submitter's next io_uring_enter, and
	 * taken as at the ring's last return before). */
	unsigned long long reaped, reap_ns;
	/* The part of reap_ns the reaper spent woken, waiting for a CPU
	 * (cpu-wait; io_uring's up to its CQE is in ns[LAYER_CPU_WAIT]). */
	unsigned long long reap_cpu_ns;
	/* I/Os of a traced process that completed with no bio of theirs
	 * seen: io_uring requests served from the page cache or punted to
	 * an io-wq worker (whose bios are not tied to the request); libaio
	 * iocbs io_submit served from the page cache, counted when reaped. */
	unsigned long long unlinked;
	/* Their completion latencies (with the followed ones' they make the
	 * mean fio's clat is), counted when reaped: io_uring's from
	 * submission (from the submitting call's return for one completed
	 * inside it) to its reaping, libaio's from io_submit's return to the
	 * reaping call's. */
	unsigned long long unlinked_ns;
	/* libaio's of them, counted at io_submit's return, and the time
	 * each spent inside it (the call's whole time). */
	unsigned long long unlinked_sub, unlinked_sub_ns;
	/* I/Os not followed: no room in the I/O map, or in the submitter's
	 * reap slots (reaped short by these). */
	unsigned long long dropped, reap_lost;
	/* Of dropped: I/Os let go because their request was submitted anew
	 * before their completion was seen (aio_req_stale), not for room. */
	unsigned long long stale;
};

/* The submitting and reaping syscalls, whose numbers user space sets
 * (aio_nr[]). */
enum aio_call {
	AIO_CALL_NONE,
	AIO_CALL_IO_SUBMIT,
	AIO_CALL_IO_GETEVENTS,
	AIO_CALL_IO_PGETEVENTS,
	AIO_CALL_IO_URING_ENTER,
	NR_AIO_CALLS,
};

#endif /* __ATTRIB_H */
