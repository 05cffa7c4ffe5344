// SPDX-License-Identifier: MIT
/*
 * fio as users run it, through the real program on real loop devices:
 * fio's own example job files (Debian's fio-examples: ssd-test.fio,
 * fio-rand-read.fio, fio-seq-read.fio), with only their sizes and
 * runtimes shrunk, run on plain and fscrypt and come back one result per
 * job, as fio reports it, with their own comparison; a job file with a bad
 * option or an unreachable folder is fio's error, exit 1, nothing left;
 * one too big for the scratch folder is refused naming what would fit,
 * which does.
 * And the page cache named: fio's 1 MiB sequential reads on fscrypt
 * (O_DIRECT falls back to buffered I/O there, and fio re-reads its file)
 * are marked cached, checked against what the file's size allows the
 * device to deliver; the same job on plain (direct I/O) is not.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "leftovers.h"
#include "results_json.h"
#include "run_prog.h"

#define EXAMPLES "/usr/share/doc/fio/examples"
#define FILE_MB	 8 /* --fio-size of the cached test's file */

static char tmp[] = "/var/tmp/encbench-fiojobs.XXXXXX";
static char ids_file[PATH_MAX];
static const char *const targets[] = {"plain", "fscrypt"};

static int run_in(const char *out, const char *const *extra, int n)
{
	return run_prog_run(tmp, out, extra, n);
}

static int setup(void **state)
{
	(void)state;
	if (run_prog_begin(tmp))
		return -1;
	run_prog_record_ids(tmp, ids_file);
	return 0;
}

static char small[PATH_MAX]; /* test_would_fit's tmpfs, while mounted */
/* test_buffered_writes's state folder, while its targets may be up. */
static char setup_state[PATH_MAX];

/* `teardown` of what test_buffered_writes's `setup` made: 0 when done. */
static int teardown_setup(void)
{
	const char *argv[] = {run_prog_bin(), "teardown", NULL};
	int rc;

	if (!setup_state[0])
		return 0;
	setenv("ENCBENCH_STATE_DIR", setup_state, 1);
	rc = run_reap(run_spawn(tmp, "teardown", NULL, NULL, argv));
	unsetenv("ENCBENCH_STATE_DIR");
	setup_state[0] = '\0';
	return rc;
}

static int teardown(void **state)
{
	(void)state;
	if (small[0])
		umount2(small, MNT_DETACH);
	teardown_setup();
	return remove_tree(tmp);
}

static double num(struct json_object *o, const char *k)
{
	return json_object_get_double(get(o, k));
}

struct stock_job {
	const char *name, *op, *rw, *words;
};

/* results.json's verdict of target's job and op, or NULL. */
static struct json_object *job_verdict(struct json_object *doc,
				       const char *target, const char *job,
				       const char *op)
{
	struct json_object *vs = get(doc, "verdicts");

	for (size_t i = 0; i < json_object_array_length(vs); i++) {
		struct json_object *v = json_object_array_get_idx(vs, i);

		if (!strcmp(json_object_get_string(get(v, "target")), target) &&
		    !strcmp(json_object_get_string(get(v, "job")), job) &&
		    !strcmp(json_object_get_string(get(v, "op")), op))
			return v;
	}
	return NULL;
}

/* A job's figures as fio reports them: a mean inside its 95 % interval,
 * clat percentiles in order. */
static void job_figures(struct json_object *doc, const char *target,
			const char *job)
{
	static const char *const pct[] = {"clat_p50_us", "clat_p99_us",
					  "clat_p999_us"};
	double last = 0;
	char metric[64];

	for (int k = 0; k < 3; k++) {
		struct json_object *x, *ci;

		snprintf(metric, sizeof(metric), "%s_%s", job, pct[k]);
		x = result_of(doc, target, "fio", metric);
		assert_true(num(x, "mean") >= last);
		last = num(x, "mean");
		ci = get(x, "ci95");
		assert_int_equal(json_object_array_length(ci), 2);
		assert_true(json_object_get_double(json_object_array_get_idx(
				    ci, 0)) <= num(x, "mean"));
		assert_true(json_object_get_double(json_object_array_get_idx(
				    ci, 1)) >= num(x, "mean"));
	}
	assert_true(last > 0);
}

/* One stock job file, scaled down, on plain and fscrypt: each job's six
 * figures apart, named after the job, agreeing with each other (MB/s is
 * IOPS times the file's block size), with intervals and percentiles,
 * compared per job; its parameters recorded (rw= among them), the copy
 * said in each target's caveats, and each job's verdict naming its I/Os
 * in words ("random 4 KiB reads at QD4") on its own op. */
static void stock_file(const char *name, const struct stock_job *jobs, int n,
		       double bs)
{
	char file[PATH_MAX], out[PATH_MAX], key[64];
	const char *args[] = {"-w",
			      "fio",
			      "--fio-job",
			      file,
			      "-t",
			      "plain,fscrypt",
			      "-n",
			      "2",
			      "--fio-size",
			      "16M",
			      "--fio-runtime",
			      "300ms"};
	struct json_object *doc, *params, *ts;

	snprintf(file, sizeof(file), "%s/%s", EXAMPLES, name);
	snprintf(out, sizeof(out), "%s/%s", tmp, name);
	doc = run_prog_results(
		tmp, "run", run_in(out, args, sizeof(args) / sizeof(args[0])),
		out);
	assert_non_null(doc);
	for (int t = 0; t < 2; t++)
		for (int j = 0; j < n; j++) {
			char metric[2][64];
			struct json_object *mbps, *iops, *v;
			const char *sum;

			snprintf(metric[0], sizeof(metric[0]), "%s_mbps",
				 jobs[j].name);
			snprintf(metric[1], sizeof(metric[1]), "%s_iops",
				 jobs[j].name);
			mbps = result_of(doc, targets[t], "fio", metric[0]);
			iops = result_of(doc, targets[t], "fio", metric[1]);
			assert_true(num(mbps, "mean") > 0);
			assert_float_equal(num(mbps, "mean") * 1e6,
					   num(iops, "mean") * bs,
					   0.02 * num(mbps, "mean") * 1e6);
			/* Each job its own phase (they wait for each other). */
			assert_string_equal(
				json_object_get_string(get(mbps, "job")),
				jobs[j].name);
			job_figures(doc, targets[t], jobs[j].name);
			/* A job file's writes on fscrypt (built without
			 * inline encryption: no direct I/O) went to the page
			 * cache, whatever the file asked (test_buffered_writes
			 * checks that against the kernel). */
			assert_int_equal(
				json_object_object_get_ex(
					mbps, "page_cache_writes", &v) &&
					json_object_get_boolean(v),
				t == 1 && !strcmp(jobs[j].op, "write"));
			v = job_verdict(doc, targets[t], jobs[j].name,
					jobs[j].op);
			assert_non_null(v);
			sum = json_object_get_string(get(v, "summary"));
			/* Or, re-reads served from memory, said so. */
			if (strncmp(sum, jobs[j].words,
				    strlen(jobs[j].words)) &&
			    !strstr(sum, "cached, not a disk figure"))
				fail_msg("%s %s: %s", targets[t], jobs[j].name,
					 sum);
		}
	params = get(json_object_array_get_idx(get(doc, "workloads"), 0),
		     "params");
	for (int j = 0; j < n; j++) {
		snprintf(key, sizeof(key), "job %s", jobs[j].name);
		assert_non_null(strstr(json_object_get_string(get(params, key)),
				       jobs[j].rw));
	}
	/* Each target says the copy is what ran, and where. */
	ts = get(doc, "targets");
	for (size_t t = 0; t < json_object_array_length(ts); t++) {
		struct json_object *notes =
			get(json_object_array_get_idx(ts, t), "notes");
		char says[PATH_MAX + 64];
		int said = 0;

		snprintf(says, sizeof(says),
			 "fio: runs a copy of %s whose "
			 "directory= and filename= point into ",
			 name);
		for (size_t i = 0; i < json_object_array_length(notes); i++)
			said += !strncmp(
				json_object_get_string(
					json_object_array_get_idx(notes, i)),
				says, strlen(says));
		assert_int_equal(said, 1);
	}
	/* Every job's figure compared on its own, none summed. */
	for (int j = 0; j < n; j++) {
		struct json_object *cmps = get(doc, "comparisons");
		char metric[64];
		int found = 0;

		snprintf(metric, sizeof(metric), "%s_mbps", jobs[j].name);
		for (size_t i = 0; i < json_object_array_length(cmps); i++)
			found += !strcmp(
				json_object_get_string(
					get(json_object_array_get_idx(cmps, i),
					    "metric")),
				metric);
		assert_int_equal(found, 1);
	}
	assert_null(strstr(json_object_to_json_string(doc), "job_mbps"));
	json_object_put(doc);
}

static void test_ssd_test(void **state)
{
	static const struct stock_job jobs[] = {
		{"seq-read", "read", "rw=read ",
		 "sequential 4 KiB reads at QD4"},
		{"rand-read", "read", "rw=randread ",
		 "random 4 KiB reads at QD4"},
		{"seq-write", "write", "rw=write ",
		 "sequential 4 KiB writes at QD4"},
		{"rand-write", "write", "rw=randwrite ",
		 "random 4 KiB writes at QD4"},
	};

	(void)state;
	stock_file("ssd-test.fio", jobs, 4, 4096);
}

static void test_rand_read(void **state)
{
	static const struct stock_job jobs[] = {
		{"file1", "read", "rw=randread ", "random 4 KiB reads at QD16"},
	};

	(void)state;
	stock_file("fio-rand-read.fio", jobs, 1, 4096);
}

static void test_seq_read(void **state)
{
	static const struct stock_job jobs[] = {
		{"file1", "read", "rw=read ",
		 "sequential 256 KiB reads at QD16"},
	};

	(void)state;
	stock_file("fio-seq-read.fio", jobs, 1, 256 << 10);
}

static void job_file(const char *name, const char *text, char *buf, size_t len)
{
	FILE *f;

	snprintf(buf, len, "%s/%s", tmp, name);
	f = fopen(buf, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* fio's own error, passed through: at the check (a bad option) or when
 * it runs (a folder it cannot open); exit 1, no results, nothing left. */
static void test_fio_errors(void **state)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{"[j]\nrw=read\nsize=1m\nbogus_option=1\n",
		 "Bad option <bogus_option=1>"},
		{"[j]\nrw=read\nsize=1m\nopendir=/nonexistent/dir\n",
		 "fio: failed parsing opendir=/nonexistent/dir"},
	};
	char file[PATH_MAX], out[PATH_MAX];
	const char *args[] = {"-w", "fio",   "--fio-job", file,
			      "-t", "plain", "-n",	  "1"};
	struct stat st;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *err;

		job_file("bad.fio", bad[i].text, file, sizeof(file));
		snprintf(out, sizeof(out), "%s/bad%zu", tmp, i);
		assert_int_equal(run_in(out, args, 8), 1);
		err = run_output(tmp, "run", "stderr");
		if (!strstr(err, bad[i].says))
			fail_msg("no \"%s\" in: %s", bad[i].says, err);
		assert_int_equal(stat(out, &st), -1);
	}
	assert_int_equal(leftovers_recorded(tmp, ids_file), 0);
}

/* run with the job file `file` and --fio-size `size` (NULL: the file's)
 * on plain in scratch; its exit status. */
static int fit_run(const char *file, const char *scratch, const char *size,
		   const char *out)
{
	const char *args[] = {"-w",	    "fio",	 "--fio-job",
			      file,	    "-t",	 "plain",
			      "-n",	    "1",	 "--fio-runtime",
			      "200ms",	    "--scratch", scratch,
			      "--fio-size", size};

	return run_in(out, args, size ? 14 : 12);
}

/* A job file too big for the scratch folder is refused before anything
 * is made, in one line naming what would fit and the options that
 * shrink it; and what it names is true: that size runs, 8 MiB more is
 * refused. The scratch folder: a 160 MiB tmpfs of the test's own. */
static void test_would_fit(void **state)
{
	char file[PATH_MAX], out[PATH_MAX], size[32];
	const char *err, *at;
	struct json_object *doc;
	struct stat st;
	unsigned fits = 0;

	(void)state;
	snprintf(small, sizeof(small), "%s/small", tmp);
	assert_int_equal(mkdir(small, 0700), 0);
	if (mount("tmpfs", small, "tmpfs", 0, "size=160m")) {
		small[0] = '\0';
		fail_msg("mount tmpfs: %s", strerror(errno));
	}
	job_file("big.fio", "[j]\nrw=read\nsize=1g\n", file, sizeof(file));
	snprintf(out, sizeof(out), "%s/big", tmp);
	assert_int_equal(fit_run(file, small, NULL, out), 2);
	err = run_output(tmp, "run", "stderr");
	assert_int_equal(count_lines(err), 1);
	at = strstr(err, "at most ");
	if (!at || sscanf(at, "at most %u MiB would fit", &fits) != 1 ||
	    !strstr(at, "would fit: shrink it with --fio-size, "
			"--fio-runtime or --scale"))
		fail_msg("no \"would fit\" in: %s", err);
	assert_int_equal(stat(out, &st), -1);
	assert_true(fits > 8);
	/* 8 MiB more than it says: refused the same way. */
	snprintf(size, sizeof(size), "%uM", fits + 8);
	assert_int_equal(fit_run(file, small, size, out), 2);
	assert_non_null(strstr(run_output(tmp, "run", "stderr"), "would fit"));
	/* What it says: runs, its file read back. */
	snprintf(size, sizeof(size), "%uM", fits);
	doc = run_prog_results(tmp, "run", fit_run(file, small, size, out),
			       out);
	assert_non_null(doc);
	assert_true(num(result_of(doc, "plain", "fio", "j_mbps"), "mean") > 0);
	json_object_put(doc);
	assert_int_equal(umount2(small, 0), 0);
	small[0] = '\0';
	assert_int_equal(leftovers_recorded(tmp, ids_file), 0);
}

/* drop_pagecache of /proc/vmstat: how often the page cache was dropped,
 * by anyone (drop_caches is machine-wide). */
static long cache_drops(void)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char key[64];
	long v, n = -1;

	assert_non_null(f);
	while (fscanf(f, "%63s %ld", key, &v) == 2)
		if (!strcmp(key, "drop_pagecache"))
			n = v;
	fclose(f);
	assert_true(n >= 0);
	return n;
}

/* The page cache named. The device can deliver fio's file (FILE_MB)
 * at most once per cold start: once per run (caches are dropped before
 * each job) and once more per drop of the page cache by anyone while
 * the run went on (counted in /proc/vmstat; other runs on the machine
 * drop it too). On fscrypt every byte fio read past that came from the
 * page cache; on plain, direct I/O, the device delivered all of it. */
static void test_cached(void **state)
{
	static const char *const args[] = {"-w",
					   "fio",
					   "--fio-rw",
					   "randread,read",
					   "--fio-bs",
					   "4k,1m",
					   "--fio-engine",
					   "psync",
					   "--fio-iodepth",
					   "1",
					   "--fio-size",
					   "8M",
					   "--fio-runtime",
					   "2",
					   "-t",
					   "plain,fscrypt",
					   "-n",
					   "2"};
	char out[PATH_MAX];
	struct json_object *doc, *plain, *fs, *cmps, *vs;
	double most, share, pct;
	bool marked = false, said = false;
	long drops = cache_drops();

	(void)state;
	snprintf(out, sizeof(out), "%s/cached", tmp);
	doc = run_prog_results(
		tmp, "run", run_in(out, args, sizeof(args) / sizeof(args[0])),
		out);
	assert_non_null(doc);
	drops = cache_drops() - drops;
	fs = result_of(doc, "fscrypt", "fio", "read_1m_mbps");
	plain = result_of(doc, "plain", "fio", "read_1m_mbps");
	most = (2 + drops) * (FILE_MB << 20) * 1.1 + (4 << 20);
	assert_true(num(fs, "dev_read_bytes") <= most);
	/* What the truth says of the share (0 when the machine dropped the
	 * cache so often that it says nothing). */
	share = 100 * (1 - most / num(fs, "read_bytes"));
	pct = 100 * (1 - num(fs, "dev_read_bytes") / num(fs, "read_bytes"));
	assert_true(num(plain, "dev_read_bytes") >=
		    0.9 * num(plain, "read_bytes"));
	cmps = get(doc, "comparisons");
	for (size_t i = 0; i < json_object_array_length(cmps); i++) {
		struct json_object *c = json_object_array_get_idx(cmps, i);

		if (strcmp(json_object_get_string(get(c, "metric")),
			   "read_1m_mbps"))
			continue;
		marked = json_object_get_boolean(get(c, "cached"));
		assert_true(num(c, "cached_pct") >= share);
		assert_float_equal(num(c, "cached_pct"), pct, 1e-6);
	}
	if (share > 10)
		assert_true(pct > 10);
	assert_true(marked == (pct > 10));
	if (!marked) {
		print_message(
			"# the page cache was dropped %ld times meanwhile: "
			"%.0f %% cached, not marked\n",
			drops, pct);
		json_object_put(doc);
		return;
	}
	/* A verdict per job (rw and bs in its name), the cached one told as
	 * such, with why. */
	vs = get(doc, "verdicts");
	for (size_t i = 0; i < json_object_array_length(vs); i++) {
		struct json_object *v = json_object_array_get_idx(vs, i);
		const char *sum = json_object_get_string(get(v, "summary"));

		if (strcmp(json_object_get_string(get(v, "target")),
			   "fscrypt") ||
		    strcmp(json_object_get_string(get(v, "job")), "read_1m"))
			continue;
		said |= strstr(sum, "cached") && strstr(sum, "page cache") &&
			strstr(sum, "O_DIRECT fell back");
	}
	assert_true(said);
	assert_non_null(strstr(run_output(tmp, "run", "stdout"), "cached:"));
	/* plain's jobs are disk figures: no verdict calls them cached. */
	for (size_t i = 0; i < json_object_array_length(vs); i++) {
		struct json_object *v = json_object_array_get_idx(vs, i);

		if (!strcmp(json_object_get_string(get(v, "target")), "plain"))
			assert_null(strstr(
				json_object_get_string(get(v, "summary")),
				"cached"));
	}
	json_object_put(doc);
}

/*
 * The truth the program does not compute: does an O_DIRECT write in
 * folder dir leave its data in the page cache? A file of the test's own,
 * written with O_DIRECT and looked at with mincore(2): direct I/O leaves
 * no page of it cached, a write that fell back to buffered I/O leaves
 * them all. 1 cached, 0 not, -1 the probe failed.
 */
static int direct_write_cached(const char *dir)
{
	char path[PATH_MAX];
	unsigned char resident[16];
	size_t len = sizeof(resident) * 4096;
	void *buf = NULL, *map;
	int fd, cached = -1, n = 0;

	snprintf(path, sizeof(path), "%s/direct-probe", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_DIRECT, 0600);
	if (fd < 0 || posix_memalign(&buf, 4096, len))
		goto out;
	memset(buf, 0x5a, len);
	if (write(fd, buf, len) != (ssize_t)len)
		goto out;
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		goto out;
	if (!mincore(map, len, resident)) {
		for (size_t i = 0; i < sizeof(resident); i++)
			n += resident[i] & 1;
		cached = n == (int)sizeof(resident) ? 1 : n == 0 ? 0 : -1;
	}
	munmap(map, len);
out:
	free(buf);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	return cached;
}

/*
 * Writes timed into the page cache named: on targets that `setup` left
 * up, the test finds by itself which one buffers O_DIRECT writes
 * (direct_write_cached), then runs a fio random-write job on both as the
 * user's own targets. The write figures of the one that buffers, and
 * only those, are marked (page_cache_writes), their comparisons claim no
 * penalty ("buffered": the table says "buffered:" instead), and plain's
 * figures, direct writes, are disk figures.
 */
static void test_buffered_writes(void **state)
{
	char out[PATH_MAX], name[64];
	char paths[2][PATH_MAX], targ[2][PATH_MAX + 16];
	const char *bin = run_prog_bin(), *text;
	const char *setup_argv[] = {
		bin,	  "setup", "--targets", "plain,fscrypt",
		"--size", "16M",   "--scratch", tmp,
		NULL};
	const char *args[] = {"-w",
			      "fio",
			      "--fio-rw",
			      "randwrite",
			      "--fio-bs",
			      "4k",
			      "--fio-engine",
			      "psync",
			      "--fio-iodepth",
			      "1",
			      "--fio-size",
			      "8M",
			      "--fio-runtime",
			      "1",
			      "-n",
			      "2",
			      "--no-trace",
			      "--target",
			      targ[0],
			      "--target",
			      targ[1]};
	static const char *const user_names[] = {"mine", "mine-enc"};
	int cached[2], off = 0, used, n = 0;
	struct json_object *doc, *cmps, *res;

	(void)state;
	/* A state folder of its own: teardown touches only what this
	 * test's setup made (the group's teardown too, if it fails). */
	snprintf(setup_state, sizeof(setup_state), "%s/state", tmp);
	assert_int_equal(mkdir(setup_state, 0700), 0);
	setenv("ENCBENCH_STATE_DIR", setup_state, 1);
	assert_int_equal(
		run_reap(run_spawn(tmp, "setup", NULL, NULL, setup_argv)), 0);
	text = run_output(tmp, "setup", "stdout");
	while (n < 2 && sscanf(text + off, "%63s %4095s%n", name, paths[n],
			       &used) == 2) {
		off += used;
		assert_string_equal(name, targets[n]);
		cached[n] = direct_write_cached(paths[n]);
		/* As the user's own folders: names of their own. */
		snprintf(targ[n], sizeof(targ[n]), "%s=%s", user_names[n],
			 paths[n]);
		n++;
	}
	assert_int_equal(n, 2);
	/* plain does direct I/O; the probe must say so, or it proves
	 * nothing of fscrypt either. */
	assert_int_equal(cached[0], 0);
	assert_true(cached[1] >= 0);
	snprintf(out, sizeof(out), "%s/buffered", tmp);
	doc = run_prog_results(
		tmp, "run", run_in(out, args, sizeof(args) / sizeof(args[0])),
		out);
	assert_int_equal(teardown_setup(), 0);
	assert_non_null(doc);
	res = get(doc, "results");
	for (size_t i = 0; i < json_object_array_length(res); i++) {
		struct json_object *r = json_object_array_get_idx(res, i), *v;
		bool fs = !strcmp(json_object_get_string(get(r, "target")),
				  user_names[1]);
		bool flag =
			json_object_object_get_ex(r, "page_cache_writes", &v) &&
			json_object_get_boolean(v);

		assert_int_equal(flag, fs && cached[1] == 1);
	}
	cmps = get(doc, "comparisons");
	for (size_t i = 0; i < json_object_array_length(cmps); i++) {
		struct json_object *c = json_object_array_get_idx(cmps, i), *v;
		bool flag = json_object_object_get_ex(c, "buffered", &v) &&
			    json_object_get_boolean(v);

		assert_int_equal(flag, cached[1] == 1);
	}
	assert_true(json_object_array_length(cmps) >= 6);
	if (cached[1] == 1)
		assert_non_null(
			strstr(run_output(tmp, "run", "stdout"), "buffered:"));
	else
		print_message("# fscrypt does direct I/O here (inline "
			      "encryption): nothing to mark\n");
	json_object_put(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ssd_test),
		cmocka_unit_test(test_rand_read),
		cmocka_unit_test(test_seq_read),
		cmocka_unit_test(test_fio_errors),
		cmocka_unit_test(test_would_fit),
		cmocka_unit_test(test_cached),
		cmocka_unit_test(test_buffered_writes),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
