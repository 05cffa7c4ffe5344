// SPDX-License-Identifier: MIT
/*
 * The tracer's op classification on this kernel, as root: a forked child
 * makes a known set of calls -- opens with and without O_CREAT (openat2
 * included), mkdir, rename, unlink, rmdir, fsync, fdatasync,
 * copy_file_range, sendfile, and io_uring reads, writes and an fsync --
 * and each op's syscall-layer count must be exactly what it did.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <liburing.h>

#include "trace_figures.h"
#include "probe/probe.h"

#define BLK	 4096
#define NR_URING 3 /* io_uring writes, then as many reads */

static char dir[] = "/var/tmp/encbench-opstest.XXXXXX";
static struct capabilities caps;
static struct tracer *tr;

static int group_setup(void **state)
{
	char why[DETAIL_LEN] = "";

	(void)state;
	if (geteuid() != 0 || !mkdtemp(dir))
		return -1;
	probe_all(&caps);
	if (trace_open(&caps, &tr, why, sizeof(why))) {
		fprintf(stderr, "# trace_open: %s\n", why);
		return -1;
	}
	/* Loaded is not attached (the timed iterations run detached). */
	if (trace_attach(tr)) {
		fprintf(stderr, "# trace_attach failed\n");
		trace_close(tr);
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	trace_close(tr); /* detaches too */
	rmdir(dir);
	probe_release(); /* what probe_all mounted, if anything */
	return 0;
}

static char *at(const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/* The plain calls; exit code != 0 names the call that failed. */
static int plain_calls(void)
{
	struct open_how how = {.flags = O_CREAT | O_WRONLY, .mode = 0600};
	static char buf[BLK];
	off_t off = 0;
	int a, b, c;

	a = open(at("a"), O_CREAT | O_RDWR, 0600); /* create 1 */
	if (a < 0 || write(a, buf, BLK) != BLK)	   /* write 1 */
		return 1;
	if (fsync(a) || fdatasync(a)) /* sync 2 */
		return 2;
	close(a);
	a = open(at("a"), O_RDONLY);	       /* not counted */
	if (a < 0 || read(a, buf, BLK) != BLK) /* read 1 */
		return 3;
	b = syscall(SYS_openat2, AT_FDCWD, at("b"), &how, sizeof(how));
	if (b < 0) /* create 2 */
		return 4;
	if (lseek(a, 0, SEEK_SET) ||
	    copy_file_range(a, NULL, b, NULL, BLK, 0) != BLK) /* copy 1 */
		return 5;
	c = creat(at("c"), 0600);		       /* create 3 */
	if (c < 0 || sendfile(c, a, &off, BLK) != BLK) /* copy 2 */
		return 6;
	close(a);
	close(b);
	close(c);
	if (mkdir(at("d"), 0700) || rename(at("b"), at("d/b")) || /* 5 */
	    unlink(at("d/b")) || rmdir(at("d")) ||		  /* 7 */
	    unlink(at("a")) || unlink(at("c")))			  /* 9 */
		return 7;
	return 0;
}

/* NR_URING writes, an fsync and NR_URING reads through io_uring on an
 * already open file: no syscall of these is a read, write or sync. */
static int uring_calls(int fd)
{
	static char buf[BLK];
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int err = 0;

	if (io_uring_queue_init(8, &ring, 0))
		return 20;
	for (int i = 0; i < 2 * NR_URING + 1 && !err; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		off_t off = (off_t)(i % NR_URING) * BLK;

		if (i < NR_URING)
			io_uring_prep_write(sqe, fd, buf, BLK, off);
		else if (i == NR_URING)
			io_uring_prep_fsync(sqe, fd, 0);
		else
			io_uring_prep_read(sqe, fd, buf, BLK, off);
		if (io_uring_submit(&ring) != 1 ||
		    io_uring_wait_cqe(&ring, &cqe) || cqe->res < 0)
			err = 21;
		else
			io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	return err;
}

static void in_child(int (*fn)(int), int arg)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn(arg));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static int plain_calls_arg(int unused)
{
	(void)unused;
	return plain_calls();
}

static void phase(int (*fn)(int), int arg, struct phase_figures *snap)
{
	struct trace_filter f = {.parent_tgid = getpid()};

	assert_int_equal(trace_begin(tr, &f), 0);
	in_child(fn, arg);
	assert_int_equal(trace_end_figures(tr, snap), 0);
}

static uint64_t count(const struct phase_figures *s, int op)
{
	return s->stats[LAYER_SYSCALL][op].count;
}

static void test_syscall_ops(void **state)
{
	struct phase_figures snap;

	(void)state;
	phase(plain_calls_arg, 0, &snap);
	for (int op = 0; op < NR_OPS; op++)
		printf("# %s: %llu\n", op_name(op),
		       (unsigned long long)count(&snap, op));
	assert_int_equal(count(&snap, EB_OP_READ), 1);
	assert_int_equal(count(&snap, EB_OP_WRITE), 1);
	assert_int_equal(count(&snap, EB_OP_SYNC), 2);
	/* open, openat2 and creat with O_CREAT (not the plain open),
	 * mkdir, rename, 3 unlinks, rmdir. */
	assert_int_equal(count(&snap, EB_OP_CREATE), 9);
	assert_int_equal(count(&snap, EB_OP_COPY), 2);
	for (int op = 0; op < NR_OPS; op++)
		assert_int_equal(snap.stats[LAYER_SYSCALL][op].inflight, 0);
}

static void test_io_uring_requests(void **state)
{
	struct phase_figures snap;
	struct io_uring ring;
	int fd;

	(void)state;
	/* io_uring may be off (kernel.io_uring_disabled) or missing. */
	if (io_uring_queue_init(2, &ring, 0)) {
		printf("# io_uring unavailable here\n");
		skip();
	}
	io_uring_queue_exit(&ring);
	fd = open(at("u"), O_CREAT | O_RDWR, 0600);
	assert_true(fd >= 0);
	phase(uring_calls, fd, &snap);
	close(fd);
	unlink(at("u"));
	for (int op = 0; op < NR_OPS; op++)
		printf("# io_uring %s: %llu\n", op_name(op),
		       (unsigned long long)count(&snap, op));
	/* One item per request, from submission to completion. */
	assert_int_equal(count(&snap, EB_OP_WRITE), NR_URING);
	assert_int_equal(count(&snap, EB_OP_READ), NR_URING);
	assert_int_equal(count(&snap, EB_OP_SYNC), 1);
	assert_true(snap.stats[LAYER_SYSCALL][EB_OP_READ].sum_ns > 0);
	for (int op = 0; op < NR_OPS; op++)
		assert_int_equal(snap.stats[LAYER_SYSCALL][op].inflight, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syscall_ops),
		cmocka_unit_test(test_io_uring_requests),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
