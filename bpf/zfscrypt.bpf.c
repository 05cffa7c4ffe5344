// SPDX-License-Identifier: GPL-2.0
/*
 * ZFS native encryption: the `crypt` layer of a ZFS dataset. ZFS does not
 * use the kernel's crypto API nor a workqueue: every block is encrypted
 * (zio_encrypt, a write pipeline stage in the z_wr_iss taskq threads) and
 * decrypted (zio_decrypt, a read transform run in the z_rd_int threads, or
 * arc_hdr_decrypt in the reader) through one function,
 *
 *   int spa_do_crypt_abd(boolean_t encrypt, spa_t *spa,
 *                        const zbookmark_phys_t *zb, ...)
 *
 * (module/zfs/dsl_crypt.c), timed here from entry to return per thread.
 * Kprobes, not fentry: Debian's zfs-dkms modules carry no BTF (kbuild
 * skips it without the kernel's vmlinux), and fentry needs it. OpenZFS's
 * own tracepoints are compiled out on Debian's kernels (configure finds
 * DECLARE_EVENT_CLASS unusable for a CDDL module) and have none for crypto.
 *
 * Only the target's datasets count: the first member of zbookmark_phys_t
 * is the objset id (zb_objset, on-disk format, stable), which user space
 * reads as the dataset's `objsetid` property.
 *
 * For the wait attribution, the ZFS taskq threads' zio work goes into
 * the zfs_threads map that attrib.bpf.c created (zfscrypt.h): when a
 * z_rd_int thread wakes a reader, the reader's wait splits into the vdev
 * I/O, the decryption and the pipeline around them (wait_chain.bpf.h:
 * split_zfs); each taskq thread that runs a zio is enrolled in attrib.bpf.c's
 * workers map, which counts its own run-queue wait and CPU time. Only
 * function entries and pointers are used, never members
 * of ZFS's structs: without BTF their layout is unknown.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "attrib.h"
#include "maps.bpf.h"
#include "pid_bits.bpf.h"
#include "workers.bpf.h"
#include "zfscrypt.h"

#define MAX_THREADS 4096
#define MAX_ZIOS    4096

/* Set by user space at each phase. */
__u32 tracing_on = 0;

/* Objset ids of the target's datasets; none: count every dataset. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, ZFS_MAX_OBJSETS);
	__type(key, __u64);
	__type(value, __u8);
} objsets SEC(".maps");
__u32 filter_objsets = 0;

/* crypt per op (enum eb_op), as attrib.bpf.c's stats[LAYER_CRYPT]. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NR_OPS);
	__type(key, __u32);
	__type(value, struct layer_stat);
} stats SEC(".maps");

/* Calls per (thread kind, op): who does the crypto (see zfscrypt.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, ZFS_NR_WORKERS *NR_OPS);
	__type(key, __u32);
	__type(value, __u64);
} workers SEC(".maps");

struct call {
	__u64 ts;
	__u32 op;
	__u32 pad;
};

/* Calls in flight by thread id: the function does not sleep across
 * threads, and does not recurse. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_THREADS);
	__type(key, __u32);
	__type(value, struct call);
} calls SEC(".maps");

/* Shared with attrib.bpf.c: user space reuses its maps' fds. */
ZFS_THREADS_MAP;
WORKERS_MAP(wait_workers);
WORKER_STATS_MAP(wait_worker_stats);

/* A leaf zio's vdev I/O: started, completed (0: not seen), and
 * crypt_total when it completed; what came before it (zfs_thread). */
struct zio_io {
	__u64 issued;
	__u64 done;
	__u64 crypt_at_done;
	__u64 issue_crypt_ns;
	__u64 prev_issued;
	__u64 prev_done;
	__u64 prev_crypt_ns;
};

/* Time ZFS's taskq threads have spent in spa_do_crypt_abd for the target
 * (calls ended), ever growing: its difference over a zio's time in the
 * interrupt taskq's queue is the decryption it queued behind. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} crypt_total SEC(".maps");

static __always_inline __u64 crypt_total_now(void)
{
	__u32 zero = 0;
	__u64 *t = bpf_map_lookup_elem(&crypt_total, &zero);

	return t ? *t : 0;
}

/* By zio pointer; LRU: a zio freed before an interrupt taskq took it
 * (an I/O error retried elsewhere) must not fill the map. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_ZIOS);
	__type(key, __u64);
	__type(value, struct zio_io);
} zios SEC(".maps");

/* The ZFS taskq threads are named after their queue: z_rd_int_0, ... */
static __always_inline __u32 worker_kind(void)
{
	char comm[16];

	bpf_get_current_comm(comm, sizeof(comm));
	if (comm[0] != 'z' || comm[1] != '_')
		return ZFS_WORKER_CALLER;
	if (comm[2] == 'r' && comm[3] == 'd')
		return ZFS_WORKER_RD; /* z_rd_int, z_rd_iss */
	if (comm[2] == 'w' && comm[3] == 'r')
		return ZFS_WORKER_WR; /* z_wr_iss, z_wr_int */
	return ZFS_WORKER_OTHER_TASKQ;
}

SEC("kprobe/spa_do_crypt_abd")
int BPF_KPROBE(zfs_crypt_enter, int encrypt, void *spa, const __u64 *zb)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), key;
	struct call c = {.op = encrypt ? EB_OP_WRITE : EB_OP_READ};
	struct zfs_thread *zt;
	struct layer_stat *s;
	__u64 objset = 0, *n;

	if (!tracing_on)
		return 0;
	if (filter_objsets) {
		bpf_probe_read_kernel(&objset, sizeof(objset), zb);
		if (!bpf_map_lookup_elem(&objsets, &objset))
			return 0;
	}
	s = bpf_map_lookup_elem(&stats, &c.op);
	if (!s)
		return 0;
	c.ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&calls, &tid, &c, BPF_ANY)) {
		__sync_fetch_and_add(&s->dropped, 1);
		return 0;
	}
	stat_busy_begin(s, c.ts);
	key = worker_kind() * NR_OPS + c.op;
	n = bpf_map_lookup_elem(&workers, &key);
	if (n)
		__sync_fetch_and_add(n, 1);
	zt = bpf_map_lookup_elem(&zfs_threads, &tid);
	if (zt && zt->exec) {
		zt->in_crypt = c.ts;
		if (!zt->crypt_start)
			zt->crypt_start = c.ts;
	}
	return 0;
}

SEC("kretprobe/spa_do_crypt_abd")
int BPF_KRETPROBE(zfs_crypt_exit)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 now = bpf_ktime_get_ns(), ts;
	struct zfs_thread *zt;
	struct layer_stat *s;
	struct call *c;
	__u32 op;

	c = bpf_map_lookup_elem(&calls, &tid);
	if (!c)
		return 0;
	ts = c->ts;
	op = c->op;
	/* Whoever deletes the entry accounts for it (user space clears the
	 * map between phases). */
	if (bpf_map_delete_elem(&calls, &tid))
		return 0;
	zt = bpf_map_lookup_elem(&zfs_threads, &tid);
	if (zt && zt->in_crypt) {
		if (now > zt->in_crypt)
			zt->crypt_ns += now - zt->in_crypt;
		zt->in_crypt = 0;
	}
	if (worker_kind() != ZFS_WORKER_CALLER) {
		__u32 zero = 0;
		__u64 *total = bpf_map_lookup_elem(&crypt_total, &zero);

		if (total && now > ts)
			__sync_fetch_and_add(total, now - ts);
	}
	s = bpf_map_lookup_elem(&stats, &op);
	if (!s)
		return 0;
	stat_record(s, now > ts ? now - ts : 0);
	stat_busy_end(s, now);
	return 0;
}

/* ---- the zio chain, for the wait attribution ------------------------
 * A read's leaf zio is started on its vdev (vdev_file_io_start hands it
 * to the z_vdev_file taskq, vdev_disk_io_start submits bios), completes
 * through zio_interrupt(), which queues it on the z_rd_int taskq, whose
 * thread runs zio_execute() on it: the rest of its pipeline and its
 * parents', decryption in arc_read_done, and the wakeup of the reader
 * waiting in zio_wait(). */

static __always_inline int zio_issued(__u64 zio)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct zio_io io = {.issued = bpf_ktime_get_ns()};
	struct zfs_thread *zt;

	if (!tracing_on)
		return 0;
	/* Issued by a taskq thread in a zio: its encryption so far, and
	 * the completed I/O it was processing (the chain's first round). */
	zt = bpf_map_lookup_elem(&zfs_threads, &tid);
	if (zt && zt->exec) {
		io.issue_crypt_ns = zt->crypt_ns;
		if (zt->io_issued && zt->io_done) {
			io.prev_issued = zt->io_issued;
			io.prev_done = zt->io_done;
			io.prev_crypt_ns = zt->issue_crypt_ns;
		}
	}
	bpf_map_update_elem(&zios, &zio, &io, BPF_ANY);
	return 0;
}

SEC("kprobe/vdev_file_io_start")
int BPF_KPROBE(zfs_vdev_file_start, void *zio)
{
	return zio_issued((__u64)zio);
}

SEC("kprobe/vdev_disk_io_start")
int BPF_KPROBE(zfs_vdev_disk_start, void *zio)
{
	return zio_issued((__u64)zio);
}

/* The vdev's I/O is over; the zio goes to the interrupt taskq. */
static __always_inline int zio_io_done(__u64 key)
{
	__u64 now = bpf_ktime_get_ns(), total = crypt_total_now();
	struct zio_io *io, seen = {.done = now, .crypt_at_done = total};

	if (!tracing_on)
		return 0;
	io = bpf_map_lookup_elem(&zios, &key);
	if (io) {
		io->done = now;
		io->crypt_at_done = total;
	} else {
		bpf_map_update_elem(&zios, &key, &seen, BPF_ANY);
	}
	return 0;
}

/* vdev_file_io_strategy and vdev_disk's bio completion call
 * zio_delay_interrupt, into which the compiler inlines zio_interrupt
 * (seen with Debian's zfs-dkms 2.1.11): both, whichever is there. */
SEC("kprobe/zio_interrupt")
int BPF_KPROBE(zfs_zio_interrupt, void *zio)
{
	return zio_io_done((__u64)zio);
}

SEC("kprobe/zio_delay_interrupt")
int BPF_KPROBE(zfs_zio_delay_interrupt, void *zio)
{
	return zio_io_done((__u64)zio);
}

/*
 * Taskq thread tid, on a CPU since now, runs a zio: from now on
 * attrib.bpf.c counts its run-queue waits and CPU time as a worker's
 * (WORKER_ZFS_TASKQ), as it does for dm-crypt's write thread.
 */
static __always_inline void taskq_worker(__u32 tid, __u64 now)
{
	struct served_worker init = {
		.thread_kind = WORKER_ZFS_TASKQ + 1, .on = 1, .last = now};
	__u32 kind = WORKER_ZFS_TASKQ;
	struct worker_stat *ws;

	ws = bpf_map_lookup_elem(&wait_worker_stats, &kind);
	if (ws)
		__sync_fetch_and_add(&ws->items, 1);
	if (!bpf_map_lookup_elem(&wait_workers, &tid)) {
		pid_mark(tid, PID_WORKER);
		bpf_map_update_elem(&wait_workers, &tid, &init, BPF_NOEXIST);
	}
}

SEC("kprobe/zio_execute")
int BPF_KPROBE(zfs_zio_execute, void *zio)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct zfs_thread t = {};
	__u64 key = (__u64)zio;
	struct zio_io *io;

	if (!tracing_on || worker_kind() == ZFS_WORKER_CALLER)
		return 0;
	t.exec = bpf_ktime_get_ns();
	taskq_worker(tid, t.exec);
	io = bpf_map_lookup_elem(&zios, &key);
	if (io) {
		t.io_issued = io->issued;
		t.io_done = io->done;
		t.issue_crypt_ns = io->issue_crypt_ns;
		t.prev_issued = io->prev_issued;
		t.prev_done = io->prev_done;
		t.prev_crypt_ns = io->prev_crypt_ns;
		if (io->done)
			t.queue_crypt_ns =
				crypt_total_now() - io->crypt_at_done;
		bpf_map_delete_elem(&zios, &key);
	}
	bpf_map_update_elem(&zfs_threads, &tid, &t, BPF_ANY);
	return 0;
}

/* The item is over: a later wakeup by this thread is not its doing. */
SEC("kretprobe/zio_execute")
int BPF_KRETPROBE(zfs_zio_execute_exit)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct zfs_thread *zt = bpf_map_lookup_elem(&zfs_threads, &tid);

	if (zt)
		zt->exec = 0;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
