/* SPDX-License-Identifier: MIT */
/*
 * The snapshot file's vocabulary, shared by its writer (json_snapshot.c)
 * and reader (json_snapshot_read.c) so that both say the same names:
 * the counters of each raw struct by member name, and the names of the
 * enums the file spells out. Private to userspace/report.
 */
#ifndef ENCBENCH_SNAPSHOT_FIELDS_H
#define ENCBENCH_SNAPSHOT_FIELDS_H

#include <stddef.h>

#include "../common/snapshot.h"

/* The "schema" member; the version is its own member. */
#define SNAPSHOT_SCHEMA "encbench-trace-snapshot"

struct u64_field {
	const char *name;
	size_t offset;
};

#define U64_FIELD(type, m)                                                     \
	{                                                                      \
#m, offsetof(type, m)                                          \
	}

/* struct layer_stat, slots apart (inflight and busy_start are the BPF
 * side's running state, not figures). */
static const struct u64_field layer_stat_fields[] = {
	U64_FIELD(struct layer_stat, count),
	U64_FIELD(struct layer_stat, sum_ns),
	U64_FIELD(struct layer_stat, busy_ns),
	U64_FIELD(struct layer_stat, dropped),
	U64_FIELD(struct layer_stat, unseen),
	U64_FIELD(struct layer_stat, unissued),
	{NULL, 0},
};

/* Newer than the first version 2 files (crypt's cipher calls): absent
 * from those, read as 0. */
static const struct u64_field layer_stat_new_fields[] = {
	U64_FIELD(struct layer_stat, calls),
	{NULL, 0},
};

/* struct wait_stat, ns[] and behind_samples[] apart (runnable is the BPF
 * side's running count). */
static const struct u64_field wait_stat_fields[] = {
	U64_FIELD(struct wait_stat, syscalls),
	U64_FIELD(struct wait_stat, total_ns),
	U64_FIELD(struct wait_stat, oncpu_ns),
	U64_FIELD(struct wait_stat, waker_stack_ns),
	U64_FIELD(struct wait_stat, unresolved_ns),
	U64_FIELD(struct wait_stat, samples_nostack),
	U64_FIELD(struct wait_stat, wakers_nostack),
	U64_FIELD(struct wait_stat, dev_bytes),
	U64_FIELD(struct wait_stat, zfs_wakeups),
	U64_FIELD(struct wait_stat, zfs_crypt_ns),
	U64_FIELD(struct wait_stat, zfs_device_ns),
	U64_FIELD(struct wait_stat, zfs_pipeline_ns),
	U64_FIELD(struct wait_stat, dmw_wakeups),
	U64_FIELD(struct wait_stat, dmw_waker_ns),
	U64_FIELD(struct wait_stat, dmw_chained),
	U64_FIELD(struct wait_stat, wb_samples_nostack),
	U64_FIELD(struct wait_stat, wb_oncpu_ns),
	U64_FIELD(struct wait_stat, wb_runq_ns),
	{NULL, 0},
};

/* Newer than version 1's first files (why the caller blocked, then the
 * wait for an idle CPU to wake): absent from those, read as 0. */
static const struct u64_field wait_stat_why_fields[] = {
	U64_FIELD(struct wait_stat, wb_blocked_ns),
	U64_FIELD(struct wait_stat, wb_waker_ns),
	U64_FIELD(struct wait_stat, jbd2_waker_ns),
	U64_FIELD(struct wait_stat, flush_reqs),
	U64_FIELD(struct wait_stat, flush_ns),
	U64_FIELD(struct wait_stat, why_ns),
	U64_FIELD(struct wait_stat, why_nostack_ns),
	U64_FIELD(struct wait_stat, why_short_ns),
	U64_FIELD(struct wait_stat, cpu_wait_idle_ns),
	{NULL, 0},
};

/* Newer still (2026-12-06: jbd2's part of the writeback workers' time,
 * what a caller jbd2 woke is shared out by): written only where
 * nonzero, so that older recordings read and write back the same. */
static const struct u64_field wait_stat_jbd2_fields[] = {
	U64_FIELD(struct wait_stat, jbd2_oncpu_ns),
	U64_FIELD(struct wait_stat, jbd2_runq_ns),
	U64_FIELD(struct wait_stat, jbd2_blocked_ns),
	{NULL, 0},
};

/* struct aio_stat, ns[] and ns_sub[] apart. */
static const struct u64_field aio_stat_fields[] = {
	U64_FIELD(struct aio_stat, ios),
	U64_FIELD(struct aio_stat, iouring),
	U64_FIELD(struct aio_stat, sub_ns),
	U64_FIELD(struct aio_stat, clat_ns),
	U64_FIELD(struct aio_stat, in_call),
	U64_FIELD(struct aio_stat, reaped),
	U64_FIELD(struct aio_stat, reap_ns),
	U64_FIELD(struct aio_stat, reap_cpu_ns),
	U64_FIELD(struct aio_stat, unlinked),
	U64_FIELD(struct aio_stat, unlinked_ns),
	U64_FIELD(struct aio_stat, unlinked_sub),
	U64_FIELD(struct aio_stat, unlinked_sub_ns),
	U64_FIELD(struct aio_stat, dropped),
	U64_FIELD(struct aio_stat, stale),
	U64_FIELD(struct aio_stat, reap_lost),
	{NULL, 0},
};

static const struct u64_field worker_stat_fields[] = {
	U64_FIELD(struct worker_stat, items),
	U64_FIELD(struct worker_stat, runq_ns),
	U64_FIELD(struct worker_stat, runq_waits),
	U64_FIELD(struct worker_stat, oncpu_ns),
	U64_FIELD(struct worker_stat, bytes),
	U64_FIELD(struct worker_stat, bytes_oncpu_ns),
	{NULL, 0},
};

/* Newer than the first files (2026-12-06: the wait for an idle CPU to
 * wake told apart): absent from those, read as 0. */
static const struct u64_field worker_stat_new_fields[] = {
	U64_FIELD(struct worker_stat, runq_idle_ns),
	{NULL, 0},
};

/* enum worker_kind, and "other" past them (behind_samples). */
static const char *const snap_worker_names[NR_WORKER_KINDS + 1] = {
	[WORKER_CRYPT] = "crypt",
	[WORKER_DEVICE] = "device",
	[WORKER_DMCRYPT_WRITE] = "dmcrypt-write",
	[WORKER_ZFS_TASKQ] = "zfs-taskq",
	[NR_WORKER_KINDS] = "other",
};

/* enum stack_use: a use without a name here is written "?", which no
 * reader takes (test_snapshot checks every use round-trips). */
static const char *const snap_stack_uses[NR_STACK_USES] = {
	[STACK_ONCPU_SAMPLE] = "oncpu-sample",
	[STACK_WAKER_NS] = "waker-ns",
	[STACK_ZFS_SAMPLE] = "zfs-sample",
	[STACK_WB_SAMPLE] = "writeback-sample",
	[STACK_BLOCKED_NS] = "blocked-ns",
};

/* enum zfs_worker. */
static const char *const snap_zfs_workers[ZFS_NR_WORKERS] = {
	[ZFS_WORKER_CALLER] = "caller",
	[ZFS_WORKER_RD] = "z_rd",
	[ZFS_WORKER_WR] = "z_wr",
	[ZFS_WORKER_OTHER_TASKQ] = "other-taskq",
};

#endif /* ENCBENCH_SNAPSHOT_FIELDS_H */
