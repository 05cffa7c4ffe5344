/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Shared by zfscrypt.bpf.c, attrib.bpf.c (wait_state.bpf.h) and user space
 * (userspace/tracer/zfscrypt.c).
 */
#ifndef __ZFSCRYPT_H
#define __ZFSCRYPT_H

#define ZFS_MAX_OBJSETS 8

/* Which thread ran spa_do_crypt_abd: ZFS's taskq threads or the caller
 * (a read that finds the block encrypted in the ARC decrypts in place). */
enum zfs_worker {
	ZFS_WORKER_CALLER, /* not a z_* taskq thread: the reader, txg_sync */
	ZFS_WORKER_RD,	   /* z_rd_int / z_rd_iss taskqs */
	ZFS_WORKER_WR,	   /* z_wr_iss / z_wr_int taskqs */
	ZFS_WORKER_OTHER_TASKQ, /* another z_* taskq */
	ZFS_NR_WORKERS,
};

/*
 * What a ZFS taskq thread is doing now, for the wait attribution of the
 * callers it wakes: zfscrypt.bpf.c writes it, wait_chain.bpf.h reads it at
 * sched_waking. One map, created by attrib.bpf.c (always loaded) and
 * reused by zfscrypt.bpf.c (bpf_map__reuse_fd), keyed by thread id.
 *
 * A taskq thread runs one zio_execute() at a time; within it, the zio an
 * interrupt taskq (z_rd_int) got from the vdev goes through the rest of
 * its pipeline -- checksum, decryption (arc_read_done), decompression --
 * and on to its parents, whose completion wakes the reader.
 */
struct zfs_thread {
	__u64 exec;	 /* the current zio_execute began; 0: none */
	__u64 io_issued; /* its zio's vdev I/O was started; 0: not seen */
	__u64 io_done;	 /* that I/O completed (zio_interrupt); 0: not seen */
	/* Time ZFS's taskq threads spent decrypting the target's blocks
	 * while the zio waited in the taskq's queue (io_done .. exec): a
	 * z_rd_int thread busy decrypting the other blocks of the same
	 * read is what the last one queues behind. */
	__u64 queue_crypt_ns;
	/* Time its issuing thread spent in spa_do_crypt_abd of ours before
	 * it issued that I/O (a write's encryption in z_wr_iss). */
	__u64 issue_crypt_ns;
	/*
	 * The vdev I/O before it in the chain, 0 if none: the I/O whose
	 * completion the issuing thread was processing when it issued this
	 * one, and that one's issue_crypt_ns. An fsync's ZIL commit is two
	 * rounds: the log block written (with the records' data), then, from
	 * zil_lwb_write_done in the interrupt taskq, the vdevs flushed; the
	 * flush's completion wakes the caller, and the first round is here.
	 */
	__u64 prev_issued;
	__u64 prev_done;
	__u64 prev_crypt_ns;
	__u64 crypt_start; /* first spa_do_crypt_abd of ours in it; 0: none */
	__u64 crypt_ns;	   /* time in spa_do_crypt_abd of ours in it */
	__u64 in_crypt;	   /* the call in progress began; 0: none */
};

#define ZFS_MAX_THREADS 1024

/* LRU: a forgotten thread only loses the chain of its next wakeup. */
#define ZFS_THREADS_MAP                                                        \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_LRU_HASH);                           \
		__uint(max_entries, ZFS_MAX_THREADS);                          \
		__type(key, __u32);                                            \
		__type(value, struct zfs_thread);                              \
	} zfs_threads SEC(".maps")

#endif /* __ZFSCRYPT_H */
