// SPDX-License-Identifier: MIT
/*
 * A caller waiting for a journal commit waits for what the commit does,
 * checked against the kernel's own accounting: `trace` of `dd
 * oflag=dsync` (each 4 KiB write() waits in jbd2_log_wait_commit for its
 * own commit) on an ext4 file system on a loop device made here. The
 * program follows jbd2's thread through each commit of the target's
 * journal (jbd2_start_commit -> jbd2_end_commit), so the writes' wait is
 * shared out by what the commits did, not told as the file system's.
 * The truth it did not compute: jbd2's own commit statistics
 * (/proc/fs/jbd2/<dev>-8/info: transactions, average commit time) and the
 * loop device's time with I/O in flight and its flush requests
 * (/sys/block/<dev>/stat io_ticks, flush I/Os and ticks).
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "results_json.h"
#include "run_prog.h"

#define WRITES 200

static char tmp[] = "/var/tmp/encbench-journal.XXXXXX";
static char dev[64];
static bool mounted;
static struct json_object *doc;
/* jbd2's commits and the device's busy time over the traced command. */
static long commits;
static double avg_commit_us, io_ticks_ms;
/* The loop device's flush requests completed, and their ms. */
static double kernel_flushes, kernel_flush_ms;

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

/* jbd2's statistics of the loop device's journal: transactions so far,
 * and the average commit time in us (a running average, jbd2's own;
 * not printed before the first commit, so asked for only with avg_us). */
static int jbd2_info(long *transactions, double *avg_us)
{
	char path[PATH_MAX], line[256];
	const char *name = strrchr(dev, '/') + 1;
	FILE *f;
	int got = 0;

	snprintf(path, sizeof(path), "/proc/fs/jbd2/%s-8/info", name);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (strstr(line, " transactions (") &&
		    sscanf(line, "%ld", transactions) == 1)
			got |= 1;
		else if (avg_us &&
			 strstr(line, "average transaction commit time") &&
			 sscanf(line, " %lfus", avg_us) == 1)
			got |= 2;
	}
	if (f)
		fclose(f);
	return got == (avg_us ? 3 : 1) ? 0 : -1;
}

/* The loop device's stat: io_ticks (ms with at least one request in
 * flight), flush requests completed and their ms (fields 16 and 17,
 * since Linux 5.5). 0, or -1. */
static int dev_stat(double *ticks, double *flushes, double *flush_ms)
{
	char path[PATH_MAX];
	unsigned long long v[17];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/sys/block/%s/stat",
		 strrchr(dev, '/') + 1);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (n < 17 && fscanf(f, "%llu", &v[n]) == 1)
		n++;
	fclose(f);
	if (n != 17)
		return -1;
	*ticks = (double)v[9];
	*flushes = (double)v[15];
	*flush_ms = (double)v[16];
	return 0;
}

static int trace_dsync_writes(void)
{
	const char *bin = run_prog_bin();
	char out[PATH_MAX], of[PATH_MAX], path[PATH_MAX + 16], n[16];
	double ticks, flushes, flush_ms, t2, f2, fm2;
	long before;
	int status;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/res", tmp);
	snprintf(of, sizeof(of), "of=%s/mnt/f", tmp);
	snprintf(n, sizeof(n), "count=%d", WRITES);
	if (jbd2_info(&before, NULL) || dev_stat(&ticks, &flushes, &flush_ms))
		return -1;
	pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		snprintf(path, sizeof(path), "%s/mnt", tmp);
		execl(bin, bin, "trace", "--path", path, "--quiet", "--output",
		      out, "--", "dd", "if=/dev/zero", of, "bs=4k", n,
		      "oflag=dsync", "status=none", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "# trace exited with status %d\n", status);
		return -1;
	}
	if (jbd2_info(&commits, &avg_commit_us)) {
		fprintf(stderr, "# no jbd2 statistics for %s\n", dev);
		return -1;
	}
	commits -= before;
	if (dev_stat(&t2, &f2, &fm2))
		return -1;
	io_ticks_ms = t2 - ticks;
	kernel_flushes = f2 - flushes;
	kernel_flush_ms = fm2 - flush_ms;
	snprintf(path, sizeof(path), "%s/results.json", out);
	doc = json_object_from_file(path);
	return doc ? 0 : -1;
}

static int teardown(void **state);

static int setup(void **state)
{
	char cmd[PATH_MAX];
	FILE *p;

	if (run_prog_begin(tmp))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "truncate -s 128M %s/img && losetup -f "
		 "--show %s/img",
		 tmp, tmp);
	p = popen(cmd, "r");
	if (!p || !fgets(dev, sizeof(dev), p) || pclose(p)) {
		fprintf(stderr, "# no loop device\n");
		teardown(state);
		return -1;
	}
	p = NULL;
	dev[strcspn(dev, "\n")] = '\0';
	/* No lazy init: ext4lazyinit would write behind the commits. */
	if (sh("mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 %s && "
	       "mkdir %s/mnt && mount %s %s/mnt",
	       dev, tmp, dev, tmp)) {
		teardown(state);
		return -1;
	}
	mounted = true;
	if (trace_dsync_writes()) {
		fprintf(stderr, "# trace of dd oflag=dsync failed\n");
		teardown(state);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	json_object_put(doc);
	doc = NULL;
	if (mounted)
		sh("umount %s/mnt", tmp);
	if (dev[0])
		sh("losetup -d %s", dev);
	mounted = false;
	dev[0] = '\0';
	return sh("rm -rf %s", tmp) ? -1 : 0;
}

static struct json_object *write_wait(void)
{
	return wait_checked(get(attrib_of(doc, "trace", "write"), "wait"));
}

static double ms_at(struct json_object *o, const char *k)
{
	return (double)json_object_get_uint64(get(o, k)) / 1e6;
}

/* Each write waited for a commit of its own, and jbd2 woke it: the
 * writes' wait whose waker was jbd2 is about jbd2's average commit time
 * per write (its running average, so a wide margin). */
static void test_waits_for_the_commits_are_followed(void **state)
{
	struct json_object *w = write_wait(), *u = get(w, "unwoken");
	double per_write_us = ms_at(u, "journal_ns") * 1e3 / WRITES;

	(void)state;
	fprintf(stderr,
		"# %ld commits, jbd2's average %.0f us; the writes' wait "
		"woken by jbd2 %.0f us per write\n",
		commits, avg_commit_us, per_write_us);
	assert_non_null(strstr(json_object_get_string(get(w, "source")),
			       "jbd2's commits followed"));
	assert_true(commits >= WRITES * 9 / 10);
	assert_true(json_object_get_boolean(get(u, "shared")));
	/* ...by jbd2's own time, not with the flusher's meanwhile. */
	assert_true(json_object_get_boolean(get(u, "journal_by_jbd2")));
	assert_true(per_write_us >= 0.4 * avg_commit_us);
	assert_true(per_write_us <= 3.0 * avg_commit_us + 200);
}

/* What the commits did was mostly the device's: the writes' device wait
 * is the device's time with a request in flight, give or take the
 * clocks (io_ticks counts whole ms), and the file system keeps little. */
static void test_device_time_is_the_devices(void **state)
{
	struct json_object *w = write_wait(), *ns = get(w, "ns");
	double device = ms_at(ns, "device"), total = ms_at(w, "total_ns");
	double fs = ms_at(ns, "fs");
	const char *v = json_object_get_string(
		get(verdict_of(doc, "trace", "write"), "summary"));

	(void)state;
	fprintf(stderr,
		"# writes' wait %.1f ms: device %.1f ms, fs %.1f ms; the "
		"loop device's io_ticks %.0f ms\n# verdict: %s\n",
		total, device, fs, io_ticks_ms, v);
	assert_true(device >= 0.6 * io_ticks_ms - 20);
	assert_true(device <= 1.5 * io_ticks_ms + 20);
	assert_true(fs < 0.3 * total);
	/* A flushed write held for its pre-flush waited for the device,
	 * not in the block layer's queue (it read a third of the time). */
	assert_true(ms_at(ns, "blk-queue") < 0.1 * total);
	assert_null(strstr(v, "filesystem-bound"));
}

/* The flush requests the commits made are the device's, counted and
 * timed as the kernel does, and the loop worker's wait for a CPU is
 * told as a share of the time of all it served, flushes too: it cannot
 * exceed the time it is a part of. */
static void test_flushes_are_the_devices(void **state)
{
	struct json_object *f = get(write_wait(), "flushes");
	double n = (double)json_object_get_uint64(get(f, "requests"));
	double ms = ms_at(f, "ns");
	const char *v = json_object_get_string(
		get(verdict_of(doc, "trace", "write"), "summary"));
	const char *share = strstr(v, " % of the device time");
	double pct = 0;

	(void)state;
	fprintf(stderr,
		"# flushes: %.0f, %.1f ms; the loop device's stat: %.0f, %.0f "
		"ms\n",
		n, ms, kernel_flushes, kernel_flush_ms);
	/* O_DSYNC: each commit flushes before and after its commit block. */
	assert_true(kernel_flushes >= WRITES);
	assert_true(n <= kernel_flushes);
	assert_true(n >= 0.95 * kernel_flushes - 2);
	assert_true(ms >= 0.8 * kernel_flush_ms - 20);
	assert_true(ms <= 1.2 * kernel_flush_ms + 20);
	if (share) {
		while (share > v && share[-1] != '(')
			share--;
		pct = atof(share);
	}
	assert_true(pct <= 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waits_for_the_commits_are_followed),
		cmocka_unit_test(test_device_time_is_the_devices),
		cmocka_unit_test(test_flushes_are_the_devices),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
