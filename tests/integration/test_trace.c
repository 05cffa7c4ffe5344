// SPDX-License-Identifier: MIT
/*
 * The tracer on this kernel, as root: real BPF, a real loop device with
 * ext4 (created with `-O encrypt` so one file system has a plain and an
 * fscrypt v2 directory). A forked child does a known number of read and
 * write syscalls; the counters must say exactly that, the block layers
 * must see its O_DIRECT requests, plain files must cost no crypto work,
 * fscrypt reads must, and closing the tracer must leave no BPF link.
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

#include "trace/trace.h" /* before leftovers.h: the skeleton needs it */
#include "probe/probe.h"
#include "leftovers.h"

#define MIB	  (1 << 20)
#define NR_IO	  8 /* 1 MiB writes, then reads, per phase */
#define IMAGE_MIB 64

static char dir[] = "/var/tmp/encbench-tracetest.XXXXXX";
/* Short: every path below is one of these plus a short name. */
static char image[256], mnt[256], loopdev[64];
static unsigned int dev_major, dev_minor;
static bool mounted;
static struct capabilities caps;
static struct tracer *tr;
static int links_before = -1;

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

/* Lines of `bpftool link list` that start a link ("12: tracing ..."). */
static int bpftool_links(void)
{
	char line[512];
	int n = 0, id;
	FILE *p = popen("bpftool link list 2>/dev/null", "r");

	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		n += sscanf(line, "%d:", &id) == 1;
	pclose(p);
	return n;
}

static int group_setup(void **state)
{
	char line[512];
	struct stat st;
	FILE *p;
	int fd;

	(void)state;
	if (geteuid() != 0) {
		fprintf(stderr, "# not root: the tracer needs root\n");
		return -1;
	}
	if (!mkdtemp(dir))
		return -1;
	snprintf(image, sizeof(image), "%s/image", dir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	fd = open(image, O_CREAT | O_RDWR, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)IMAGE_MIB * MIB) || close(fd))
		return -1;
	if (mkdir(mnt, 0700))
		return -1;
	snprintf(line, sizeof(line), "losetup --find --show %s", image);
	p = popen(line, "r");
	if (!p || !fgets(loopdev, sizeof(loopdev), p)) {
		if (p)
			pclose(p);
		return -1;
	}
	pclose(p);
	loopdev[strcspn(loopdev, "\n")] = '\0';
	if (stat(loopdev, &st) || !S_ISBLK(st.st_mode))
		return -1;
	dev_major = major(st.st_rdev);
	dev_minor = minor(st.st_rdev);
	if (sh("mkfs.ext4 -q -F -O encrypt %s >/dev/null 2>&1", loopdev) ||
	    mount(loopdev, mnt, "ext4", 0, NULL))
		return -1;
	mounted = true;
	links_before = bpftool_links();
	probe_all(&caps);
	return 0;
}

/* Undo group_setup; safe to call twice. */
static void cleanup(void)
{
	trace_close(tr);
	tr = NULL;
	if (mounted && umount(mnt))
		fprintf(stderr, "# umount %s: %s\n", mnt, strerror(errno));
	mounted = false;
	if (loopdev[0])
		sh("losetup -d %s", loopdev);
	loopdev[0] = '\0';
	if (image[0])
		unlink(image);
	rmdir(mnt);
}

static int group_teardown(void **state)
{
	(void)state;
	cleanup();
	rmdir(dir);
	return 0;
}

/* The figures, as TAP comments: what a failing run is read from. */
static void dump(const char *what, const struct trace_snapshot *snap)
{
	printf("# %s: %.3f s, kernel requests r %llu w %llu\n", what,
	       snap->wall_s, (unsigned long long)snap->kernel_requests[OP_READ],
	       (unsigned long long)snap->kernel_requests[OP_WRITE]);
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

static void begin(void)
{
	struct trace_filter f = {
		.nr_devs = 1,
		.major = {dev_major},
		.minor = {dev_minor},
		.parent_tgid = getpid(),
	};

	assert_int_equal(trace_begin(tr, &f), 0);
}

/*
 * In a child: write NR_IO MiB to `path` and fsync (NR_IO + 1 write-op
 * syscalls), then read it back in NR_IO reads. Nothing else the child
 * does is a read or write syscall: no stdio, _exit.
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
	assert_true(our_bpf_links() > 0);
	assert_true(bpftool_links() > links_before);
}

static void test_plain_direct(void **state)
{
	struct trace_snapshot snap;
	struct attribution a[NR_OPS];
	char plan[NR_LAYERS][DETAIL_LEN];
	char path[512];
	const struct layer_stat *s;

	(void)state;
	snprintf(path, sizeof(path), "%s/plain", mnt);
	begin();
	child_io(path, O_DIRECT, true);
	assert_int_equal(trace_end(tr, &snap), 0);
	dump("plain, O_DIRECT", &snap);

	/* Exactly the child's syscalls: never the test process's own. */
	assert_int_equal(snap.stats[LAYER_SYSCALL][OP_READ].count, NR_IO);
	assert_int_equal(snap.stats[LAYER_SYSCALL][OP_WRITE].count, NR_IO + 1);
	for (int op = 0; op < NR_OPS; op++) {
		s = &snap.stats[LAYER_SYSCALL][op];
		assert_true(s->sum_ns > 0);
		assert_true(s->busy_ns > 0 && s->busy_ns <= s->sum_ns);
		assert_true(s->busy_ns <= (uint64_t)(snap.wall_s * 1e9));
		assert_int_equal(s->inflight, 0);
	}

	/* Each 1 MiB O_DIRECT read is one or more requests (split by the
	 * queue limits), each with a queued head bio. */
	s = &snap.stats[LAYER_DEVICE][OP_READ];
	assert_true(s->count >= NR_IO);
	assert_true(s->sum_ns > 0);
	assert_true(s->busy_ns <= s->sum_ns);
	assert_true(snap.kernel_requests[OP_READ] >= NR_IO);
	assert_true(s->count >= snap.kernel_requests[OP_READ]);
	assert_true(snap.stats[LAYER_DEVICE][OP_WRITE].count >= NR_IO);
	assert_true(snap.available[LAYER_BLK_QUEUE]);
	assert_true(snap.stats[LAYER_BLK_QUEUE][OP_READ].count >= NR_IO);
	assert_true(snap.stats[LAYER_BLK_QUEUE][OP_READ].count <= s->count);

	/* Plain ext4: no crypto work at all. */
	for (int op = 0; op < NR_OPS; op++) {
		assert_int_equal(snap.stats[LAYER_CRYPT][op].count, 0);
		assert_int_equal(snap.stats[LAYER_CRYPT_QUEUE][op].count, 0);
	}
	assert_non_null(strstr(snap.sources[LAYER_DM], "not applicable"));

	/* The tracer follows the plan `probe` prints (dm aside: that one
	 * depends on the target). */
	trace_plan(&caps, plan);
	for (int l = 0; l < NR_LAYERS; l++)
		if (l != LAYER_DM)
			assert_string_equal(snap.sources[l], plan[l]);

	assert_int_equal(attribute(&snap, "plain", "itest", a), 2);
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
	struct trace_snapshot snap;
	struct tracer *rt = NULL;
	char why[DETAIL_LEN] = "", path[512];
	struct trace_filter f = {
		.nr_devs = 1,
		.major = {dev_major},
		.minor = {dev_minor},
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
	snprintf(path, sizeof(path), "%s/plain-raw", mnt);
	assert_int_equal(trace_begin(rt, &f), 0);
	child_io(path, O_DIRECT, true);
	assert_int_equal(trace_end(rt, &snap), 0);
	trace_close(rt);
	dump("plain, O_DIRECT, raw_tp", &snap);
	assert_int_equal(snap.stats[LAYER_SYSCALL][OP_READ].count, NR_IO);
	assert_int_equal(snap.stats[LAYER_SYSCALL][OP_WRITE].count, NR_IO + 1);
	assert_true(snap.stats[LAYER_DEVICE][OP_READ].count >= NR_IO);
	assert_true(snap.stats[LAYER_BLK_QUEUE][OP_READ].count >= NR_IO);
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
	struct trace_snapshot snap;

	(void)state;
	begin();
	assert_int_equal(trace_end(tr, &snap), 0);
	for (int op = 0; op < NR_OPS; op++)
		assert_int_equal(snap.stats[LAYER_SYSCALL][op].count, 0);
	assert_true(snap.wall_s >= 0.0 && snap.wall_s < 5.0);
}

/* An fscrypt v2 directory, its key added for the whole file system. */
static int fscrypt_dir(const char *path)
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
	root = open(mnt, O_RDONLY | O_DIRECTORY);
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

static void test_fscrypt(void **state)
{
	struct trace_snapshot snap;
	char edir[512], path[1024];
	const struct layer_stat *s;
	int fd;

	(void)state;
	snprintf(edir, sizeof(edir), "%s/enc", mnt);
	snprintf(path, sizeof(path), "%s/file", edir);
	if (fscrypt_dir(edir)) {
		fprintf(stderr, "# fscrypt setup: %s\n", strerror(errno));
		skip();
	}

	/* Writes: fscrypt encrypts in writeback, seen only with
	 * fentry/kprobe; the source must say which, or why not. */
	begin();
	child_io(path, 0, true);
	assert_int_equal(trace_end(tr, &snap), 0);
	dump("fscrypt, buffered writes", &snap);
	assert_int_equal(snap.stats[LAYER_SYSCALL][OP_WRITE].count, NR_IO + 1);
	if (caps.fentry.ok)
		assert_non_null(strstr(snap.sources[LAYER_CRYPT], "fentry:"));
	else if (caps.kprobe.ok)
		assert_non_null(strstr(snap.sources[LAYER_CRYPT], "kprobe:"));
	else
		assert_true(snap.unavailable_op[LAYER_CRYPT][OP_WRITE] &&
			    strstr(snap.sources[LAYER_CRYPT],
				   "write: unavailable"));
	if (!snap.unavailable_op[LAYER_CRYPT][OP_WRITE])
		assert_true(snap.stats[LAYER_CRYPT][OP_WRITE].count > 0);

	/* Reads from disk: evict the (plaintext) page cache first. */
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
	begin();
	child_io(path, 0, false);
	assert_int_equal(trace_end(tr, &snap), 0);
	dump("fscrypt, cold reads", &snap);
	assert_int_equal(snap.stats[LAYER_SYSCALL][OP_READ].count, NR_IO);
	s = &snap.stats[LAYER_CRYPT][OP_READ];
	assert_true(s->count > 0);
	assert_true(s->sum_ns > 0 && s->busy_ns > 0);
	assert_int_equal(s->inflight, 0);
	assert_true(snap.stats[LAYER_CRYPT_QUEUE][OP_READ].count > 0);
	assert_true(snap.stats[LAYER_DEVICE][OP_READ].count > 0);
}

static void test_close_leaves_nothing(void **state)
{
	(void)state;
	trace_close(tr);
	tr = NULL;
	assert_int_equal(our_bpf_links(), 0);
	assert_int_equal(bpftool_links(), links_before);
	/* And this test's own mount and loop device go too. */
	cleanup();
	assert_int_equal(leftovers(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open),
		cmocka_unit_test(test_plain_direct),
		cmocka_unit_test(test_phase_reset),
		cmocka_unit_test(test_raw_tp_fallback),
		cmocka_unit_test(test_no_method),
		cmocka_unit_test(test_fscrypt),
		cmocka_unit_test(test_close_leaves_nothing),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
