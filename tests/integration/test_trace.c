// SPDX-License-Identifier: MIT
/*
 * The tracer on this kernel, as root: real BPF, a real loop device with
 * ext4 (created with `-O encrypt` so one file system has a plain and an
 * fscrypt v2 directory). A forked child does a known number of read and
 * write syscalls; the counters must say exactly that, the block layers
 * must see its O_DIRECT requests, plain files must cost no crypto work,
 * fscrypt reads must -- but only on the filtered device, a second loop
 * device's fscrypt reads must not count -- and closing the tracer must
 * leave no BPF link.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fscrypt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "trace_figures.h"
#include "probe/probe.h"
#include "leftovers.h"

#define MIB	  (1 << 20)
#define NR_IO	  8 /* 1 MiB writes, then reads, per phase */
#define IMAGE_MIB 64

static char dir[] = "/var/tmp/encbench-tracetest.XXXXXX";

/* An ext4 file system on a loop device over an image file in dir. */
struct loopfs {
	/* Short: every path below is one of these plus a short name. */
	char image[256], mnt[256], dev[64];
	unsigned int major, minor;
	bool mounted;
};

/* The tracer's target, and another file system it must ignore. */
static struct loopfs main_fs, other_fs;
static struct capabilities caps;
static struct tracer *tr;
/* A biolatency running through all the tests, and its links. */
static pid_t biolatency = -1;
static struct bpf_id bio_links[16];
static int nr_bio_links;

/* Run a shell command quietly; its exit status. */
static int sh(const char *fmt, ...)
{
	char cmd[PATH_MAX * 2];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ext4 with fscrypt support (and `mkfs_opts`) on a new loop device,
 * mounted: dir/<name> is the image, dir/<name>.mnt the mount point. */
static int loopfs_make(struct loopfs *fs, const char *name,
		       const char *mkfs_opts)
{
	char line[512];
	struct stat st;
	FILE *p;
	int fd;

	snprintf(fs->image, sizeof(fs->image), "%s/%s", dir, name);
	snprintf(fs->mnt, sizeof(fs->mnt), "%s/%s.mnt", dir, name);
	fd = open(fs->image, O_CREAT | O_RDWR, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)IMAGE_MIB * MIB) || close(fd))
		return -1;
	if (mkdir(fs->mnt, 0700))
		return -1;
	snprintf(line, sizeof(line), "losetup --find --show %s", fs->image);
	p = popen(line, "r");
	if (!p || !fgets(fs->dev, sizeof(fs->dev), p)) {
		if (p)
			pclose(p);
		return -1;
	}
	pclose(p);
	fs->dev[strcspn(fs->dev, "\n")] = '\0';
	if (stat(fs->dev, &st) || !S_ISBLK(st.st_mode))
		return -1;
	fs->major = major(st.st_rdev);
	fs->minor = minor(st.st_rdev);
	if (sh("mkfs.ext4 -q -F -O encrypt %s %s >/dev/null 2>&1", mkfs_opts,
	       fs->dev) ||
	    mount(fs->dev, fs->mnt, "ext4", 0, NULL))
		return -1;
	fs->mounted = true;
	return 0;
}

/* Undo loopfs_make, as far as it got; safe to call twice. */
static void loopfs_remove(struct loopfs *fs)
{
	if (fs->mounted && umount(fs->mnt))
		fprintf(stderr, "# umount %s: %s\n", fs->mnt, strerror(errno));
	fs->mounted = false;
	if (fs->dev[0])
		sh("losetup -d %s", fs->dev);
	fs->dev[0] = '\0';
	if (fs->image[0])
		unlink(fs->image);
	if (fs->mnt[0])
		rmdir(fs->mnt);
}

static int group_setup(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		fprintf(stderr, "# not root: the tracer needs root\n");
		return -1;
	}
	if (!mkdtemp(dir) || loopfs_make(&main_fs, "image", ""))
		return -1;
	biolatency = foreign_tracer_start(bio_links, 16, &nr_bio_links);
	if (biolatency < 0)
		return -1;
	probe_all(&caps);
	return 0;
}

/* Undo group_setup and the tests' own file systems; safe to call
 * twice. */
static void cleanup(void)
{
	trace_close(tr);
	tr = NULL;
	loopfs_remove(&other_fs);
	loopfs_remove(&main_fs);
	/* tracefs, if probe_all mounted it: without it the test left
	 * one mounted (source "encbench-trace.", no token: no state file
	 * is open here). */
	probe_release();
}

static int group_teardown(void **state)
{
	(void)state;
	cleanup();
	foreign_tracer_stop(biolatency);
	rmdir(dir);
	return 0;
}

/* The figures, as TAP comments: what a failing run is read from. */
static void dump(const char *what, const struct phase_figures *snap)
{
	printf("# %s: %.3f s, kernel requests r %llu w %llu\n", what,
	       snap->wall_s,
	       (unsigned long long)snap->kernel_requests[EB_OP_READ],
	       (unsigned long long)snap->kernel_requests[EB_OP_WRITE]);
	for (int l = 0; l < NR_LAYERS; l++)
		for (int op = 0; op < NR_OPS; op++) {
			const struct layer_stat *s = &snap->stats[l][op];

			if (!s->count)
				continue;
			printf("#   %-11s %-5s count %llu sum %llu ns "
			       "busy %llu ns\n",
			       layer_name(l), op_name(op), s->count, s->sum_ns,
			       s->busy_ns);
		}
}

/* A phase with the tracer filtered to fs's device. */
static void begin_on(const struct loopfs *fs)
{
	struct trace_filter f = {
		.nr_devs = 1,
		.major = {fs->major},
		.minor = {fs->minor},
		.parent_tgid = getpid(),
	};

	assert_int_equal(trace_begin(tr, &f), 0);
}

static void begin(void)
{
	begin_on(&main_fs);
}

/*
 * In a child: write NR_IO MiB to `path` and fsync (NR_IO write-op
 * syscalls, one sync-op, and one create-op open), then read it back in NR_IO
 * reads. Nothing else the child does is a read or write syscall: no stdio,
 * _exit.
 */
static void child_io(const char *path, int flags, bool do_write)
{
	void *buf = NULL;
	int fd, err = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		if (posix_memalign(&buf, 4096, MIB))
			_exit(10);
		memset(buf, 0x5a, MIB);
		fd = open(path, O_RDWR | O_CREAT | flags, 0600);
		if (fd < 0)
			_exit(11);
		for (int i = 0; do_write && i < NR_IO; i++)
			if (pwrite(fd, buf, MIB, (off_t)i * MIB) != MIB)
				err = 12;
		if (do_write && fsync(fd))
			err = 13;
		for (int i = 0; i < NR_IO; i++)
			if (pread(fd, buf, MIB, (off_t)i * MIB) != MIB)
				err = 14;
		_exit(err);
	}
	{
		int status;

		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
}

static void test_open(void **state)
{
	char why[DETAIL_LEN] = "";
	int err;

	(void)state;
	err = trace_open(&caps, &tr, why, sizeof(why));
	if (err)
		fail_msg("trace_open: %d: %s", err, why);
	assert_non_null(tr);
	/* Opened, the programs are loaded but nothing is attached: being
	 * attached is what costs (issue 20). */
	struct bpf_id ids[MAX_TRACER_IDS], links[MAX_TRACER_IDS];
	int n = trace_bpf_ids(tr, ids, MAX_TRACER_IDS), nl = 0;
	assert_int_equal(bpf_ids_count(ids, n, BPF_ID_LINK), 0);
	assert_true(bpf_ids_count(ids, n, BPF_ID_PROG) > 0);
	assert_int_equal(bpf_ids_alive(ids, n), n);
	/* Attached, it knows its links, and they are there. */
	assert_int_equal(trace_attach(tr), 0);
	n = trace_bpf_ids(tr, ids, MAX_TRACER_IDS);
	assert_true(bpf_ids_count(ids, n, BPF_ID_LINK) > 0);
	assert_int_equal(bpf_ids_alive(ids, n), n);
	for (int i = 0; i < n; i++)
		if (ids[i].kind == BPF_ID_LINK)
			links[nl++] = ids[i];
	/* Detached, every one of them is gone; the programs stay. */
	trace_detach(tr);
	assert_int_equal(bpf_ids_alive(links, nl), 0);
	n = trace_bpf_ids(tr, ids, MAX_TRACER_IDS);
	assert_int_equal(bpf_ids_count(ids, n, BPF_ID_LINK), 0);
	assert_int_equal(bpf_ids_alive(ids, n), n);
	/* The tests below trace: attached again. */
	assert_int_equal(trace_attach(tr), 0);
}

/* Detached in the middle of a phase: what runs meanwhile is not seen,
 * and what was counted before stays; attached again, it counts again. */
static void test_detached_counts_nothing(void **state)
{
	struct phase_figures snap;
	char path[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/detached", main_fs.mnt);
	begin();
	child_io(path, O_DIRECT, true);
	trace_pause(tr);
	trace_detach(tr);
	child_io(path, O_DIRECT, true);
	assert_int_equal(trace_attach(tr), 0);
	trace_resume(tr);
	child_io(path, O_DIRECT, true);
	assert_int_equal(trace_end_figures(tr, &snap), 0);
	/* Two children's syscalls of three, and every busy period ended. */
	assert_int_equal(snap.stats[LAYER_SYSCALL][EB_OP_READ].count,
			 2 * NR_IO);
	assert_int_equal(snap.stats[LAYER_SYSCALL][EB_OP_WRITE].count,
			 2 * NR_IO);
	for (int l = 0; l < NR_LAYERS; l++)
		for (int op = 0; op < NR_OPS; op++)
			assert_true(snap.stats[l][op].busy_ns <=
				    (uint64_t)(snap.wall_s * 1e9) + 1000000);
}

/* The programs' cost over a stretch, by the kernel's own statistics,
 * which are off again once it ends (the fd closed). */
static void test_cost(void **state)
{
	struct tracer_cost *c = calloc(1, sizeof(*c));
	char path[512], st[8] = "";
	FILE *f;

	(void)state;
	assert_non_null(c);
	snprintf(path, sizeof(path), "%s/cost", main_fs.mnt);
	begin();
	assert_int_equal(trace_cost_begin(tr), 0);
	child_io(path, O_DIRECT, true);
	trace_cost_end(tr, c);
	assert_true(c->measured);
	/* The child's syscalls, at least: 2 NR_IO reads and writes, a
	 * sync and an open. */
	assert_true(c->ops >= 2 * NR_IO + 2);
	assert_true(c->runs >= c->ops);
	assert_true(c->run_time_ns > 0);
	assert_true(c->nr_progs > 0);
	/* Sorted by run time, and the sum of its parts. */
	uint64_t runs = 0;
	for (int i = 0; i < c->nr_progs; i++) {
		runs += c->progs[i].run_cnt;
		if (i)
			assert_true(c->progs[i - 1].run_time_ns >=
				    c->progs[i].run_time_ns);
	}
	assert_int_equal(runs, c->runs);
	/* Never the global switch. */
	f = fopen("/proc/sys/kernel/bpf_stats_enabled", "re");
	if (f) {
		assert_non_null(fgets(st, sizeof(st), f));
		fclose(f);
		assert_int_equal(st[0], '0');
	}
	free(c);
	struct phase_figures snap;
	assert_int_equal(trace_end_figures(tr, &snap), 0);
}

static void test_plain_direct(void **state)
{
	struct phase_figures snap;
	struct attribution a[NR_OPS];
	char plan[NR_LAYERS][DETAIL_LEN];
	char path[512];
	const struct layer_stat *s;

	(void)state;
	snprintf(path, sizeof(path), "%s/plain", main_fs.mnt);
	begin();
	child_io(path, O_DIRECT, true);
	assert_int_equal(trace_end_figures(tr, &snap), 0);
	dump("plain, O_DIRECT", &snap);

	/* Exactly the child's syscalls: never the test process's own. */
	assert_int_equal(snap.stats[LAYER_SYSCALL][EB_OP_READ].count, NR_IO);
	assert_int_equal(snap.stats[LAYER_SYSCALL][EB_OP_WRITE].count, NR_IO);
	assert_int_equal(snap.stats[LAYER_SYSCALL][EB_OP_SYNC].count, 1);
	assert_int_equal(snap.stats[LAYER_SYSCALL][EB_OP_CREATE].count, 1);
	assert_int_equal(snap.stats[LAYER_SYSCALL][EB_OP_COPY].count, 0);
	for (int op = 0; op <= EB_OP_CREATE; op++) {
		s = &snap.stats[LAYER_SYSCALL][op];
		assert_true(s->sum_ns > 0);
		assert_true(s->busy_ns > 0 && s->busy_ns <= s->sum_ns);
		assert_true(s->busy_ns <= (uint64_t)(snap.wall_s * 1e9));
		assert_int_equal(s->inflight, 0);
	}

	/* Each 1 MiB O_DIRECT read is one or more requests (split by the
	 * queue limits), each with a queued head bio. */
	s = &snap.stats[LAYER_DEVICE][EB_OP_READ];
	assert_true(s->count >= NR_IO);
	assert_true(s->sum_ns > 0);
	assert_true(s->busy_ns <= s->sum_ns);
	assert_true(snap.kernel_requests[EB_OP_READ] >= NR_IO);
	assert_true(s->count >= snap.kernel_requests[EB_OP_READ]);
	assert_true(snap.stats[LAYER_DEVICE][EB_OP_WRITE].count >= NR_IO);
	assert_int_equal(snap.states.state[LAYER_BLK_QUEUE][EB_OP_READ],
			 caps.tp_btf.ok ? LAYER_MEASURED : LAYER_FALLBACK);
	assert_true(snap.stats[LAYER_BLK_QUEUE][EB_OP_READ].count >= NR_IO);
	assert_true(snap.stats[LAYER_BLK_QUEUE][EB_OP_READ].count <= s->count);

	/* Plain ext4: no crypto work at all. */
	for (int op = 0; op < NR_OPS; op++) {
		assert_int_equal(snap.stats[LAYER_CRYPT][op].count, 0);
		assert_int_equal(snap.stats[LAYER_CRYPT_QUEUE][op].count, 0);
	}
	assert_non_null(strstr(snap.sources[LAYER_DM], "not applicable"));
	assert_int_equal(snap.states.state[LAYER_DM][EB_OP_READ],
			 LAYER_NOT_APPLICABLE);
	assert_string_equal(snap.sources[LAYER_DMCRYPT_WRITE],
			    "not applicable: no dm-crypt device in the target");
	for (int op = 0; op < NR_OPS; op++)
		assert_int_equal(snap.states.state[LAYER_DMCRYPT_WRITE][op],
				 LAYER_NOT_APPLICABLE);

	/* The tracer follows the plan `probe` prints (dm and dmcrypt-write
	 * aside: they depend on the target). */
	trace_plan(&caps, plan);
	for (int l = 0; l < NR_LAYERS; l++)
		if (l != LAYER_DM && l != LAYER_DMCRYPT_WRITE)
			assert_string_equal(snap.sources[l], plan[l]);

	/* read, write, sync and create: the ops the child did. */
	assert_int_equal(attribute(&snap, "plain", "itest", a), 4);
	assert_int_equal(a[0].layers[LAYER_SYSCALL].count, NR_IO);
	assert_true(a[0].closure_pct >= 100.0);
	assert_string_equal(a[0].layers[LAYER_FS].source,
			    "derived: syscall minus lower layers");
}

/* Kernels without tp_btf get the raw_tp flavour of every program: same
 * counts, sources say raw_tp. Runs beside the tp_btf tracer. */
static void test_raw_tp_fallback(void **state)
{
	struct capabilities raw = caps;
	struct phase_figures snap;
	struct tracer *rt = NULL;
	char why[DETAIL_LEN] = "", path[512];
	struct trace_filter f = {
		.nr_devs = 1,
		.major = {main_fs.major},
		.minor = {main_fs.minor},
		.parent_tgid = getpid(),
	};
	int err;

	(void)state;
	if (!caps.raw_tp.ok)
		skip();
	raw.tp_btf.ok = false;
	err = trace_open(&raw, &rt, why, sizeof(why));
	if (err)
		fail_msg("trace_open (raw_tp): %d: %s", err, why);
	assert_int_equal(trace_attach(rt), 0);
	snprintf(path, sizeof(path), "%s/plain-raw", main_fs.mnt);
	assert_int_equal(trace_begin(rt, &f), 0);
	child_io(path, O_DIRECT, true);
	assert_int_equal(trace_end_figures(rt, &snap), 0);
	trace_close(rt);
	dump("plain, O_DIRECT, raw_tp", &snap);
	assert_int_equal(snap.stats[LAYER_SYSCALL][EB_OP_READ].count, NR_IO);
	assert_int_equal(snap.stats[LAYER_SYSCALL][EB_OP_WRITE].count, NR_IO);
	assert_int_equal(snap.stats[LAYER_SYSCALL][EB_OP_SYNC].count, 1);
	assert_true(snap.stats[LAYER_DEVICE][EB_OP_READ].count >= NR_IO);
	assert_true(snap.stats[LAYER_BLK_QUEUE][EB_OP_READ].count >= NR_IO);
	assert_int_equal(strncmp(snap.sources[LAYER_SYSCALL], "raw_tp:", 7), 0);
	assert_int_equal(strncmp(snap.sources[LAYER_DEVICE], "raw_tp:", 7), 0);
}

/* Neither tp_btf nor raw_tp: no tracer, and a reason. */
static void test_no_method(void **state)
{
	struct capabilities none = caps;
	struct tracer *t = (void *)1;
	char why[DETAIL_LEN] = "";

	(void)state;
	none.tp_btf.ok = none.raw_tp.ok = false;
	assert_true(trace_open(&none, &t, why, sizeof(why)) < 0);
	assert_null(t);
	assert_non_null(strstr(why, "neither tp_btf"));
}

/* A new phase starts from zero; nothing happens, nothing is counted. */
static void test_phase_reset(void **state)
{
	struct phase_figures snap;

	(void)state;
	begin();
	assert_int_equal(trace_end_figures(tr, &snap), 0);
	for (int op = 0; op < NR_OPS; op++)
		assert_int_equal(snap.stats[LAYER_SYSCALL][op].count, 0);
	assert_true(snap.wall_s >= 0.0 && snap.wall_s < 5.0);
}

/*
 * trace_end within a phase, as a run calls it after each traced
 * iteration: each end holds what ran since the last one, never the
 * earlier iterations again, and the filter stays (the next child is
 * counted without a trace_begin; the test process itself never is).
 */
static void test_end_restarts(void **state)
{
	struct phase_figures snap;
	char path[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/restarts", main_fs.mnt);
	begin();
	child_io(path, O_DIRECT, true);
	assert_int_equal(trace_end_figures(tr, &snap), 0);
	assert_int_equal(snap.stats[LAYER_SYSCALL][EB_OP_READ].count, NR_IO);
	assert_int_equal(snap.stats[LAYER_SYSCALL][EB_OP_WRITE].count, NR_IO);
	assert_true(snap.stats[LAYER_DEVICE][EB_OP_READ].count > 0);
	assert_true(snap.wait.ops[EB_OP_READ].syscalls > 0);
	trace_resume(tr);
	child_io(path, O_DIRECT, true);
	child_io(path, O_DIRECT, true);
	assert_int_equal(trace_end_figures(tr, &snap), 0);
	assert_int_equal(snap.stats[LAYER_SYSCALL][EB_OP_READ].count,
			 2 * NR_IO);
	assert_int_equal(snap.stats[LAYER_SYSCALL][EB_OP_WRITE].count,
			 2 * NR_IO);
	assert_int_equal(snap.wait.ops[EB_OP_READ].syscalls, 2 * NR_IO);
	assert_true(snap.stats[LAYER_DEVICE][EB_OP_READ].count > 0);
	/* Nothing since. */
	assert_int_equal(trace_end_figures(tr, &snap), 0);
	for (int op = 0; op < NR_OPS; op++)
		assert_int_equal(snap.stats[LAYER_SYSCALL][op].count, 0);
	assert_int_equal(snap.wait.ops[EB_OP_READ].syscalls, 0);
}

/* An fscrypt v2 directory on fs, its key added for the whole file
 * system. */
static int fscrypt_dir(const struct loopfs *fs, const char *path)
{
	struct fscrypt_policy_v2 pol = {
		.version = FSCRYPT_POLICY_V2,
		.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS,
		.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS,
		.flags = FSCRYPT_POLICY_FLAGS_PAD_32,
	};
	struct {
		struct fscrypt_add_key_arg arg;
		__u8 raw[64];
	} k;
	int root, fd, err = -1;

	memset(&k, 0, sizeof(k));
	k.arg.key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	k.arg.raw_size = sizeof(k.raw);
	for (size_t i = 0; i < sizeof(k.raw); i++)
		k.raw[i] = (__u8)(i * 7 + 1);
	root = open(fs->mnt, O_RDONLY | O_DIRECTORY);
	if (root < 0)
		return -1;
	if (mkdir(path, 0700) || ioctl(root, FS_IOC_ADD_ENCRYPTION_KEY, &k.arg))
		goto out;
	memcpy(pol.master_key_identifier, k.arg.key_spec.u.identifier,
	       FSCRYPT_KEY_IDENTIFIER_SIZE);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		goto out;
	err = ioctl(fd, FS_IOC_SET_ENCRYPTION_POLICY, &pol);
	close(fd);
out:
	close(root);
	return err;
}

/* Drop path's (plaintext) page cache, so that reads go to the disk. */
static void evict(const char *path)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
}

static void test_fscrypt(void **state)
{
	struct phase_figures snap;
	char edir[512], path[1024];
	const struct layer_stat *s;

	(void)state;
	snprintf(edir, sizeof(edir), "%s/enc", main_fs.mnt);
	snprintf(path, sizeof(path), "%s/file", edir);
	if (fscrypt_dir(&main_fs, edir)) {
		fprintf(stderr, "# fscrypt setup: %s\n", strerror(errno));
		skip();
	}

	/* Writes: fscrypt encrypts in writeback, timed only with
	 * fentry/kprobe; without them its CPU time comes from samples of
	 * the callers and writeback workers; the source must say which, or
	 * why not. */
	begin();
	child_io(path, 0, true);
	assert_int_equal(trace_end_figures(tr, &snap), 0);
	dump("fscrypt, buffered writes", &snap);
	assert_int_equal(snap.stats[LAYER_SYSCALL][EB_OP_WRITE].count, NR_IO);
	assert_int_equal(snap.stats[LAYER_SYSCALL][EB_OP_SYNC].count, 1);
	if (caps.fentry.ok)
		assert_non_null(strstr(snap.sources[LAYER_CRYPT], "fentry:"));
	else if (caps.kprobe.ok)
		assert_non_null(strstr(snap.sources[LAYER_CRYPT], "kprobe:"));
	else if (snap.wait.sampled && snap.wait.wb_sampled)
		assert_true(snap.states.state[LAYER_CRYPT][EB_OP_WRITE] ==
				    LAYER_FALLBACK &&
			    strstr(snap.sources[LAYER_CRYPT],
				   "write: cpu samples: callers + writeback "
				   "workers"));
	else
		assert_true(snap.states.state[LAYER_CRYPT][EB_OP_WRITE] ==
				    LAYER_UNAVAILABLE &&
			    strstr(snap.sources[LAYER_CRYPT],
				   "write: unavailable"));
	if (caps.fentry.ok || caps.kprobe.ok)
		assert_true(snap.stats[LAYER_CRYPT][EB_OP_WRITE].count > 0);
	else if (snap.states.state[LAYER_CRYPT][EB_OP_WRITE] == LAYER_FALLBACK)
		assert_true(snap.stats[LAYER_CRYPT][EB_OP_WRITE].sum_ns > 0);

	/* Reads from disk: evict the (plaintext) page cache first. */
	evict(path);
	begin();
	child_io(path, 0, false);
	assert_int_equal(trace_end_figures(tr, &snap), 0);
	dump("fscrypt, cold reads", &snap);
	assert_int_equal(snap.stats[LAYER_SYSCALL][EB_OP_READ].count, NR_IO);
	s = &snap.stats[LAYER_CRYPT][EB_OP_READ];
	assert_true(s->count > 0);
	assert_true(s->sum_ns > 0 && s->busy_ns > 0);
	assert_int_equal(s->inflight, 0);
	assert_true(snap.stats[LAYER_CRYPT_QUEUE][EB_OP_READ].count > 0);
	assert_true(snap.stats[LAYER_DEVICE][EB_OP_READ].count > 0);
}

/*
 * In parent (not traced): NR_IO MiB at path, all data (ext4 decrypts it
 * in decrypt_work) or, holey, one 1 KiB block of data then a hole in each
 * 2 KiB: a hole followed by data in one page sends ext4 to
 * block_read_full_folio(), where each block is decrypted in decrypt_bh.
 */
static void make_file(const char *path, bool holey)
{
	static char buf[MIB];
	size_t step = holey ? 2048 : MIB, len = holey ? 1024 : MIB;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	memset(buf, 0x5a, sizeof(buf));
	for (off_t off = 0; off < (off_t)NR_IO * MIB; off += (off_t)step)
		assert_int_equal(pwrite(fd, buf, len, off), (ssize_t)len);
	assert_int_equal(ftruncate(fd, (off_t)NR_IO * MIB), 0);
	assert_int_equal(close(fd), 0);
}

/* Cold reads of path by a traced child, filtered to fs's device. */
static void cold_reads(const struct loopfs *fs, const char *path,
		       const char *what, struct phase_figures *snap)
{
	evict(path);
	begin_on(fs);
	child_io(path, 0, false);
	assert_int_equal(trace_end_figures(tr, snap), 0);
	dump(what, snap);
	assert_int_equal(snap->stats[LAYER_SYSCALL][EB_OP_READ].count, NR_IO);
}

/*
 * fscrypt work items are the filtered device's only: another file
 * system's decryption (both of ext4's decrypt work functions) counts
 * nothing, the same reads filtered to their own device do count.
 */
static void test_fscrypt_other_device(void **state)
{
	const char *kinds[] = {"dense", "holey"};
	struct phase_figures snap;
	char edir[512], path[1024], what[64];

	(void)state;
	/* 1 KiB blocks: pages of several blocks, for the holey file. */
	if (loopfs_make(&other_fs, "other", "-b 1024"))
		fail_msg("second loop device: %s", strerror(errno));
	snprintf(edir, sizeof(edir), "%s/enc", other_fs.mnt);
	if (fscrypt_dir(&other_fs, edir)) {
		fprintf(stderr, "# fscrypt setup: %s\n", strerror(errno));
		skip();
	}
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", edir, kinds[i]);
		make_file(path, i == 1);

		snprintf(what, sizeof(what), "fscrypt %s, other device",
			 kinds[i]);
		cold_reads(&main_fs, path, what, &snap);
		assert_non_null(snap.sources[LAYER_CRYPT_QUEUE]);
		assert_null(strstr(snap.sources[LAYER_CRYPT_QUEUE],
				   "not filtered"));
		for (int op = 0; op < NR_OPS; op++) {
			assert_int_equal(snap.stats[LAYER_CRYPT][op].count, 0);
			assert_int_equal(
				snap.stats[LAYER_CRYPT_QUEUE][op].count, 0);
		}
		/* Reads only: the filtered file system's own journal may
		 * commit (write) during the window; that is its I/O. */
		assert_int_equal(snap.stats[LAYER_DEVICE][EB_OP_READ].count, 0);

		snprintf(what, sizeof(what), "fscrypt %s, own device",
			 kinds[i]);
		cold_reads(&other_fs, path, what, &snap);
		assert_true(snap.stats[LAYER_CRYPT][EB_OP_READ].count > 0);
		assert_true(snap.stats[LAYER_CRYPT_QUEUE][EB_OP_READ].count >
			    0);
		assert_true(snap.stats[LAYER_DEVICE][EB_OP_READ].count > 0);
	}
	loopfs_remove(&other_fs);
}

/* Every program and link this process made (probe's and each tracer's)
 * is gone once closed -- counted by id, with biolatency's programs of the
 * same names still attached (issue 6, item 8), and its links untouched. */
static void test_close_leaves_nothing(void **state)
{
	struct bpf_id ids[MAX_BPF_IDS];
	int n;
	(void)state;

	trace_close(tr);
	tr = NULL;
	n = bpf_ids_recorded(ids, MAX_BPF_IDS);
	assert_true(bpf_ids_count(ids, n, BPF_ID_LINK) > 0);
	/* And this test's own mount and loop device go too. */
	cleanup();
	assert_int_equal(leftovers(dir, ids, n), 0);
	assert_true(foreign_tracer_intact(biolatency, bio_links, nr_bio_links));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open),
		cmocka_unit_test(test_plain_direct),
		cmocka_unit_test(test_detached_counts_nothing),
		cmocka_unit_test(test_cost),
		cmocka_unit_test(test_phase_reset),
		cmocka_unit_test(test_end_restarts),
		cmocka_unit_test(test_raw_tp_fallback),
		cmocka_unit_test(test_no_method),
		cmocka_unit_test(test_fscrypt),
		cmocka_unit_test(test_fscrypt_other_device),
		cmocka_unit_test(test_close_leaves_nothing),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
