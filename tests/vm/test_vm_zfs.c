// SPDX-License-Identifier: MIT
/*
 * Runs INSIDE the VM guest, where scripts/vm/run --zfs loaded OpenZFS
 * (ENCBENCH_VM_ZFS=<version>; on kernels it does not support,
 * ENCBENCH_VM_ZFS_SKIP says why and this program skips). One real run of
 * the ZFS dd report's benchmark: `--targets zfs` builds both datasets on
 * one pool, the unencrypted one is the baseline, the encrypted one must be
 * verified as ciphertext on the raw vdev, and ZFS's own encryption must
 * be attributed to `crypt` on the encrypted dataset only.
 *
 * The run stops once its datasets exist (ENCBENCH_PAUSE_AT) to set them
 * primarycache=metadata: reads then miss the ARC, go to the vdev, and are
 * decrypted by z_rd_int taskq threads, which wake the reader -- the chain
 * the wait attribution must follow. A second, short run with ZFS's
 * kprobes turned off (ENCBENCH_TEST_ZFS_NO_KPROBES, a test hook) must
 * take ZFS's crypt from CPU samples. A third, with the ARC left as it
 * is, reads from the ARC: its read verdict must tell decryption in the
 * reader's own context and the ARC's hits as measured. How many bytes
 * the pool's vdev read while the encrypted dataset's iterations ran
 * (`zpool iostat -r`, ZFS's own count, not the tracer's) says whether
 * the first run's reads reached the vdev at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "../results_json.h"
#include "vm_shell.h"

#define RUNS	       3
#define TRACE_RUNS     2
#define DD_MIB	       8
#define STR(x)	       #x
#define XSTR(x)	       STR(x)
#define TRACE_RUNS_ARG XSTR(TRACE_RUNS)

static char tmp[] = "/var/tmp/encbench-vmzfs.XXXXXX";
static char out[sizeof(tmp) + 16], out_samples[sizeof(tmp) + 16];
static char out_arc[sizeof(tmp) + 16];
static json_object *results, *samples, *cached;
/* The first run's wall time and the guest's context switches meanwhile
 * (/proc/stat ctxt): every run-queue wait ends in a switch. */
static double results_wall_ns;
static uint64_t results_switches;
/* The pool's vdev reads from the encrypted dataset's first iteration to
 * its teardown, in bytes (at least: each read counted at its size
 * bucket's lower bound); -1 when they could not be read. */
static double vdev_read_bytes = -1;

static uint64_t context_switches(void)
{
	unsigned long long n = 0;
	char line[256];
	FILE *f = fopen("/proc/stat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "ctxt %llu", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Our run's datasets, found by their mountpoints in our scratch folder,
 * made to keep only metadata in the ARC. */
static int uncache_datasets(void)
{
	char cmd[sizeof(tmp) + 160];

	snprintf(cmd, sizeof(cmd),
		 "zfs list -H -o name,mountpoint | awk -v d=%s/ "
		 "'index($2, d) == 1 { print $1 }' | grep . | "
		 "xargs -n1 zfs set primarycache=metadata",
		 tmp);
	return system(cmd);
}

/*
 * Bytes the pool of our datasets has read from its vdev since import, at
 * least: `zpool iostat -r`'s request-size histograms count every I/O
 * (individual and aggregated, sync and async reads) in its power-of-two
 * size bucket, -p names each bucket by its lower bound in bytes. -1 if
 * unreadable.
 */
static double pool_read_bytes(void)
{
	char cmd[sizeof(tmp) + 320];
	double b = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "zfs list -H -o name,mountpoint | awk -v d=%s/ "
		 "'index($2, d) == 1 { sub(\"/.*\", \"\", $1); print $1; "
		 "exit }' | xargs -r zpool iostat -H -p -r | "
		 "awk '$1 ~ /^[0-9]+$/ { b += $1 * ($2 + $3 + $6 + $7); n++ } "
		 "END { if (n) printf \"%%.0f\\n\", b }'",
		 tmp);
	p = popen(cmd, "r");
	if (p && fscanf(p, "%lf", &b) != 1)
		b = -1;
	if (p)
		pclose(p);
	return b;
}

/* `run --targets zfs --workloads dd` into dir; with ZFS's kprobes off
 * (samples), or stopped after setup to make the reads miss the ARC and
 * around the encrypted dataset's iterations to count the vdev's reads
 * (uncache), or neither. */
static json_object *run(const char *dir, const char *size, int runs,
			bool samples_only, bool uncache)
{
	const char *bin = getenv("ENCBENCH_BIN") ?: "./encbench-trace";
	char path[sizeof(out) + 32], nruns[8];
	double vdev0 = -1;
	int status, stops = 0;
	pid_t pid;

	snprintf(nruns, sizeof(nruns), "%d", runs);
	pid = fork();
	if (pid == 0) {
		if (samples_only)
			setenv("ENCBENCH_TEST_ZFS_NO_KPROBES", "1", 1);
		if (uncache)
			setenv("ENCBENCH_PAUSE_AT",
			       "setup:zfs:dataset,workload:zfs:dd,"
			       "teardown:zfs:dataset",
			       1);
		execl(bin, bin, "run", "--targets", "zfs", "--workloads", "dd",
		      "--size", size, "--runs", nruns, "--trace-runs",
		      TRACE_RUNS_ARG, "--quiet", "--scratch", tmp, "--output",
		      dir, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, WUNTRACED) == pid && WIFSTOPPED(status)) {
		/* The stops in their order: after setup, before the
		 * encrypted dataset's first iteration, before its teardown. */
		if (++stops == 1 && uncache_datasets())
			fprintf(stderr, "# cannot set primarycache\n");
		if (stops == 2)
			vdev0 = pool_read_bytes();
		if (stops == 3 && vdev0 >= 0)
			vdev_read_bytes = pool_read_bytes() - vdev0;
		kill(pid, SIGCONT);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "# run failed (status %d)\n", status);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/results.json", dir);
	return json_object_from_file(path);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmp))
		return -1;
	snprintf(out, sizeof(out), "%s/out", tmp);
	snprintf(out_samples, sizeof(out_samples), "%s/smp", tmp);
	snprintf(out_arc, sizeof(out_arc), "%s/arc", tmp);
	results_wall_ns = now_ns();
	results_switches = context_switches();
	results = run(out, XSTR(DD_MIB) "M", RUNS, false, true);
	results_wall_ns = now_ns() - results_wall_ns;
	results_switches = context_switches() - results_switches;
	samples = results ? run(out_samples, "2M", 1, true, false) : NULL;
	cached = samples ? run(out_arc, "16M", 1, false, false) : NULL;
	return cached ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[sizeof(tmp) + 16];

	(void)state;
	json_object_put(results);
	json_object_put(samples);
	json_object_put(cached);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	return system(cmd) ? -1 : 0;
}

static const char *str(json_object *o, const char *k)
{
	return json_object_get_string(get(o, k));
}

/* Both datasets, baseline first, same compression; the encrypted one's
 * raw vdev lacked the probe's plaintext, the other one's had it. */
static void test_datasets(void **state)
{
	json_object *off = target_of(results, "zfs-off"),
		    *enc = target_of(results, "zfs");
	json_object *zoff = get(off, "zfs"), *zenc = get(enc, "zfs");

	(void)state;
	assert_string_equal(
		str(json_object_array_get_idx(get(results, "targets"), 0),
		    "name"),
		"zfs-off");
	assert_string_equal(str(zenc, "encryption"), "aes-256-gcm");
	assert_string_equal(str(zenc, "keystatus"), "available");
	assert_string_equal(str(zoff, "encryption"), "off");
	assert_string_equal(str(zenc, "compression"), "lz4");
	assert_string_equal(str(zoff, "compression"), "lz4");
	assert_true(json_object_get_int64(get(zenc, "objset_id")) > 0);
	assert_true(json_object_get_int64(get(zenc, "objset_id")) !=
		    json_object_get_int64(get(zoff, "objset_id")));
	assert_string_equal(str(enc, "fs"), "zfs");
	assert_true(json_object_get_boolean(get(enc, "verified_encrypted")));
	assert_false(json_object_get_boolean(get(off, "verified_encrypted")));
	if (!strstr(str(get(enc, "encryption"), "driver"), "ICP"))
		fail_msg("driver '%s' is not ZFS's ICP",
			 str(get(enc, "encryption"), "driver"));
}

/* The report's shape: per-iteration CSV, run log, and for both metrics a
 * comparison of zfs against zfs-off with a Welch interval. */
static void test_comparison(void **state)
{
	json_object *cmp = get(results, "comparisons");
	char path[sizeof(out) + 32], line[256];
	int found = 0, rows = 0;
	FILE *f;

	(void)state;
	for (size_t i = 0; i < json_object_array_length(cmp); i++) {
		json_object *c = json_object_array_get_idx(cmp, i);
		json_object *ci = get(c, "welch_ci95");

		if (strcmp(str(c, "target"), "zfs"))
			continue;
		assert_string_equal(str(c, "baseline"), "zfs-off");
		assert_int_equal(json_object_array_length(ci), 2);
		assert_true(json_object_get_double(
				    json_object_array_get_idx(ci, 0)) <=
			    json_object_get_double(
				    json_object_array_get_idx(ci, 1)));
		found++;
	}
	assert_int_equal(found, 2); /* write_s and read_s */
	snprintf(path, sizeof(path), "%s/zfs-dd.csv", out);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		rows++;
	fclose(f);
	assert_int_equal(rows, 1 + RUNS);
	snprintf(path, sizeof(path), "%s/run.log", out);
	assert_int_equal(access(path, R_OK), 0);
}

/* ZFS's own encryption, kprobed: on the encrypted dataset, writes are
 * encrypted (always: every written block is); never on the other one. */
static void test_crypt_layer(void **state)
{
	json_object *w = layer_of(results, "zfs", "write", "crypt");
	const char *src = str(w, "source");

	(void)state;
	if (!strstr(src, "kprobe:spa_do_crypt_abd"))
		fail_msg("zfs crypt source '%s'", src);
	assert_true(json_object_get_boolean(get(w, "available")));
	assert_true(json_object_get_int64(get(w, "count")) > 0);
	assert_true(json_object_get_int64(get(w, "sum_ns")) > 0);
	for (int op = 0; op < 2; op++) {
		json_object *l = layer_of(results, "zfs-off",
					  op ? "write" : "read", "crypt");

		assert_int_equal(json_object_get_int64(get(l, "count")), 0);
	}
}

static uint64_t u64(json_object *o, const char *k)
{
	return json_object_get_uint64(get(o, k));
}

/* The wait decomposition of (target, op): it adds up to the syscalls'
 * time, exactly. */
static json_object *wait_of(json_object *doc, const char *target,
			    const char *op)
{
	json_object *w = get(attrib_of(doc, target, op), "wait");
	json_object *ns = get(w, "ns");
	static const char *const comps[] = {"fs",      "crypt-queue", "crypt",
					    "dm",      "blk-queue",   "device",
					    "cpu-wait"};
	uint64_t all = 0;

	for (size_t i = 0; i < sizeof(comps) / sizeof(comps[0]); i++)
		all += u64(ns, comps[i]);
	assert_true(u64(w, "syscalls") > 0);
	if (all != u64(w, "total_ns"))
		fail_msg("%s %s: components %llu ns, syscalls %llu ns", target,
			 op, (unsigned long long)all,
			 (unsigned long long)u64(w, "total_ns"));
	return w;
}

/* Reads that miss the ARC are decrypted by z_rd_int threads, which wake
 * the reader: its wait has crypt through that chain, and the vdev's I/O
 * as device; the unencrypted dataset's reads wait for no decryption. */
static void test_read_chain(void **state)
{
	json_object *w = wait_of(results, "zfs", "read");
	json_object *z = get(w, "zfs_taskq_wakers");
	json_object *off = wait_of(results, "zfs-off", "read");

	(void)state;
	fprintf(stderr,
		"# zfs read: %llu syscalls, %llu ns; %llu wakeups by ZFS "
		"taskq threads: crypt %llu, device %llu, pipeline %llu ns; "
		"crypt in all %llu ns\n",
		(unsigned long long)u64(w, "syscalls"),
		(unsigned long long)u64(w, "total_ns"),
		(unsigned long long)u64(z, "wakeups"),
		(unsigned long long)u64(z, "crypt_ns"),
		(unsigned long long)u64(z, "device_ns"),
		(unsigned long long)u64(z, "pipeline_ns"),
		(unsigned long long)u64(get(w, "ns"), "crypt"));
	if (!strstr(json_object_get_string(get(w, "source")), "zio_execute"))
		fail_msg("wait source '%s'",
			 json_object_get_string(get(w, "source")));
	assert_true(u64(z, "wakeups") > 0);
	assert_true(u64(z, "crypt_ns") > 0);
	assert_true(u64(z, "device_ns") > 0);
	assert_true(u64(get(w, "ns"), "crypt") >= u64(z, "crypt_ns"));
	assert_true(u64(get(off, "zfs_taskq_wakers"), "wakeups") > 0);
	assert_int_equal(u64(get(off, "ns"), "crypt"), 0);
	assert_int_equal(u64(get(off, "zfs_taskq_wakers"), "crypt_ns"), 0);
}

/*
 * The reads made to miss the ARC reached the vdev: while the encrypted
 * dataset's iterations ran, the pool read at least half of what they
 * read (the histogram's lower bounds halve an I/O at worst), by ZFS's own
 * count. Reads served from plaintext in memory (a txg's dirty buffers)
 * read nothing from it.
 */
static void test_reads_reach_vdev(void **state)
{
	double read = (RUNS + TRACE_RUNS) * DD_MIB * 1048576.0;

	(void)state;
	fprintf(stderr,
		"# zfs: the vdev read >= %.0f bytes during the iterations, "
		"which read %.0f\n",
		vdev_read_bytes, read);
	assert_true(vdev_read_bytes >= 0.5 * read);
}

/* The verdict's evidence line that starts with `prefix`, or NULL. */
static const char *evidence(const char *target, const char *op,
			    const char *prefix)
{
	json_object *vs = get(results, "verdicts");

	for (size_t i = 0; i < json_object_array_length(vs); i++) {
		json_object *v = json_object_array_get_idx(vs, i), *ev;

		if (strcmp(str(v, "target"), target) ||
		    strcmp(str(v, "op"), op))
			continue;
		ev = get(v, "evidence");
		for (size_t j = 0; j < json_object_array_length(ev); j++) {
			const char *e = json_object_get_string(
				json_object_array_get_idx(ev, j));

			if (!strncmp(e, prefix, strlen(prefix)))
				return e;
		}
	}
	return NULL;
}

/* The taskq threads that decrypt the reads are workers with their own
 * run-queue wait: some, each shorter than the whole run, no more waits
 * than the guest switched tasks, and CPU time for the zios they ran. */
static void test_taskq_runq(void **state)
{
	json_object *w = wait_of(results, "zfs", "read");
	json_object *z = get(get(w, "workers"), "zfs-taskq");
	const char *e = evidence("zfs", "read", "ZFS's taskq threads waited");

	(void)state;
	fprintf(stderr,
		"# zfs read: taskq threads ran %llu zios, %llu ns on a CPU, "
		"%llu run-queue waits, %llu ns; the run took %.0f ns, %llu "
		"context switches\n# %s\n",
		(unsigned long long)u64(z, "items"),
		(unsigned long long)u64(z, "oncpu_ns"),
		(unsigned long long)u64(z, "runq_waits"),
		(unsigned long long)u64(z, "runq_ns"), results_wall_ns,
		(unsigned long long)results_switches, e ? e : "(no line)");
	assert_true(u64(z, "items") > 0);
	assert_true(u64(z, "oncpu_ns") > 0);
	assert_true(u64(z, "runq_waits") > 0);
	assert_true(u64(z, "runq_ns") > 0);
	assert_true((double)u64(z, "runq_ns") / (double)u64(z, "runq_waits") <
		    results_wall_ns);
	assert_true(u64(z, "runq_waits") <= results_switches);
	assert_true((double)u64(z, "oncpu_ns") <=
		    results_wall_ns * (double)sysconf(_SC_NPROCESSORS_ONLN));
	assert_non_null(e);
	assert_non_null(strstr(e, "per wakeup for a CPU"));
}

/* Without its kprobes, ZFS's crypt comes from CPU samples of its taskq
 * threads in cipher code: a fallback, with its reason. */
static void test_crypt_from_samples(void **state)
{
	json_object *l = layer_of(samples, "zfs", "write", "crypt");

	(void)state;
	if (strncmp(str(l, "source"), "cpu samples", 11))
		fail_msg("zfs crypt source '%s'", str(l, "source"));
	assert_string_equal(str(l, "state"), "fallback");
	if (!strstr(str(l, "reason"), "ENCBENCH_TEST_ZFS_NO_KPROBES"))
		fail_msg("reason '%s'", str(l, "reason"));
	assert_true(u64(l, "sum_ns") > 0);
	assert_true(u64(l, "busy_ns") > 0);
}

static const char *read_summary(json_object *doc)
{
	json_object *vs = get(doc, "verdicts");

	for (size_t i = 0; i < json_object_array_length(vs); i++) {
		json_object *v = json_object_array_get_idx(vs, i);

		if (!strcmp(str(v, "target"), "zfs") &&
		    !strcmp(str(v, "op"), "read"))
			return str(v, "summary");
	}
	fail_msg("no zfs read verdict");
	return "";
}

/*
 * The ARC keeps an encrypted dataset's blocks encrypted: reads that hit
 * it decrypt in the reader's own context, and the verdict says so, with
 * the ARC's hits as arcstats counted them; reads made to miss it
 * (primarycache=metadata) are decrypted by z_rd_int, whose wakeups the
 * reader waits for, and are not told as its own work.
 */
static void test_arc_own_context(void **state)
{
	json_object *arc =
		get(get(attrib_of(cached, "zfs", "read"), "wait"), "zfs_arc");
	json_object *miss =
		get(get(attrib_of(results, "zfs", "read"), "wait"), "zfs_arc");
	const char *s = read_summary(cached);

	(void)state;
	fprintf(stderr, "# ARC: %llu demand data hits, %llu misses\n# %s\n",
		(unsigned long long)u64(arc, "demand_data_hits"),
		(unsigned long long)u64(arc, "demand_data_misses"), s);
	/* The read's whole decomposition (samples, crypt samples, what was
	 * lost): what to look at when the verdict is not decryption's. */
	fprintf(stderr, "# cached zfs read wait: %s\n",
		json_object_to_json_string_ext(
			get(attrib_of(cached, "zfs", "read"), "wait"),
			JSON_C_TO_STRING_PLAIN));
	assert_true(json_object_get_boolean(get(arc, "measured")));
	assert_true(u64(arc, "demand_data_hits") >
		    u64(arc, "demand_data_misses"));
	assert_non_null(strstr(s, "decryption in the reader's own context"));
	assert_non_null(strstr(s, "the reads hit the ARC"));
	assert_non_null(strstr(s, "keeps the data encrypted"));
	assert_null(strstr(s, "waiting for decryption"));
	fprintf(stderr, "# uncached: %llu hits, %llu misses\n# %s\n",
		(unsigned long long)u64(miss, "demand_data_hits"),
		(unsigned long long)u64(miss, "demand_data_misses"),
		read_summary(results));
	assert_true(json_object_get_boolean(get(miss, "measured")));
	assert_true(u64(miss, "demand_data_misses") >
		    u64(miss, "demand_data_hits"));
	assert_null(strstr(read_summary(results), "own context"));
}

/* O_DIRECT on OpenZFS 2.1 goes through the ARC: the output says so. */
static void test_direct_caveat(void **state)
{
	char path[sizeof(out) + 32], cmd[sizeof(path) + 64];

	(void)state;
	snprintf(path, sizeof(path), "%s/run.log", out);
	snprintf(cmd, sizeof(cmd),
		 "grep -q 'serves O_DIRECT through the ARC' %s", path);
	assert_int_equal(system(cmd), 0);
}

/* The pool is gone: nothing of ours is left imported. */
static void test_no_pool_left(void **state)
{
	(void)state;
	assert_int_equal(system("zpool list -H -o name | grep -q '^encbench-'"),
			 256); /* grep: no match */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_datasets),
		cmocka_unit_test(test_comparison),
		cmocka_unit_test(test_crypt_layer),
		cmocka_unit_test(test_reads_reach_vdev),
		cmocka_unit_test(test_read_chain),
		cmocka_unit_test(test_taskq_runq),
		cmocka_unit_test(test_crypt_from_samples),
		cmocka_unit_test(test_direct_caveat),
		cmocka_unit_test(test_arc_own_context),
		cmocka_unit_test(test_no_pool_left),
	};

	if (vm_zfs_skipped())
		return 0;
	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
