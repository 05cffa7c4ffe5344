/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workers the caller waits on (attrib.h: enum worker_kind), shared by
 * attrib.bpf.c (wait_state.bpf.h), which creates the maps, and zfscrypt.bpf.c,
 * which reuses them (bpf_map__reuse_fd) to enrol ZFS's taskq threads:
 * only it sees them run a zio, where the zfs module is.
 */
#ifndef __WORKERS_BPF_H
#define __WORKERS_BPF_H

#include "attrib.h"

/* The life of one I/O: its dm bio queued on the dm device (0: none),
 * for a write below dm-crypt its encryption queued on kcryptd, started,
 * handed to the write thread and submitted below (enum dmio_stamp; 0:
 * not seen), bio queued, request issued (0: not seen). Below dm-crypt's
 * submission a dm device between (dm-delay, LVM) holds the clone until
 * its own clone is queued: dm, not the write thread's time. */
enum dmio_stamp {
	DMIO_QUEUED,
	DMIO_CRYPT,
	DMIO_HANDOFF,
	DMIO_SUBMIT,
	NR_DMIO_STAMPS,
};
_Static_assert(LAYER_CRYPT_QUEUE + DMIO_HANDOFF == LAYER_DMCRYPT_WRITE,
	       "each dmio stamp opens the layer after the one before");
_Static_assert(LAYER_CRYPT_QUEUE + DMIO_SUBMIT == LAYER_DM,
	       "each dmio stamp opens the layer after the one before");

struct io_times {
	__u64 dm;
	__u64 crypt[NR_DMIO_STAMPS];
	__u64 queued;
	__u64 issued;
};

struct served_worker {
	__u64 woke;    /* runnable since; 0 if not runnable */
	__u64 pending; /* run-queue wait before its next item */
	__u64 last;    /* on a CPU since, while an item runs */
	__u64 oncpu;   /* CPU time of the current item */
	__u64 exec;    /* current item started */
	__u64 queued;  /* current item queued */
	struct io_times io;
	__u64 bytes;
	/* Blocked since, while it writes the target back; 0 otherwise. */
	__u64 blocked;
	__u32 kind; /* 1 + enum worker_kind while an item runs, else 0 */
	__u32 on;
	/* 1 + enum worker_kind of a kthread that runs no work items
	 * (dmcrypt_write, ZFS's taskq threads): each of its run-queue
	 * waits counts. */
	__u32 thread_kind;
	/* enum wb_worker while it writes the target back -- wb_workfn for
	 * the target's device, or jbd2 committing the target's journal --
	 * else 0: its CPU samples are the target's writeback
	 * (STACK_WB_SAMPLE). */
	__u32 writeback;
	/* 1 once jbd2's commit has ended: it stays a writeback worker
	 * until it next sleeps, as it wakes the commit's waiters after
	 * trace_jbd2_end_commit (fs/jbd2/commit.c). */
	__u32 wb_until_sleep;
	/* pending ended on a CPU leaving idle (worker_runq's idle). */
	__u32 pending_idle;
};

enum wb_worker { WB_FLUSHER = 1, WB_JOURNAL };

#define MAX_WORKERS 1024

/* Workers that ran an item of ours; LRU: a forgotten idle worker only
 * loses its next run-queue wait. */
#define WORKERS_MAP(name)                                                      \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_LRU_HASH);                           \
		__uint(max_entries, MAX_WORKERS);                              \
		__type(key, __u32);                                            \
		__type(value, struct served_worker);                           \
	} name SEC(".maps")

#define WORKER_STATS_MAP(name)                                                 \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_ARRAY);                              \
		__uint(max_entries, NR_WORKER_KINDS);                          \
		__type(key, __u32);                                            \
		__type(value, struct worker_stat);                             \
	} name SEC(".maps")

#endif /* __WORKERS_BPF_H */
