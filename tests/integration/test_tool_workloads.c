// SPDX-License-Identifier: MIT
/*
 * The workloads that run real tools or trees, through the real program
 * with tracing, as root, at small sizes on plain and fscrypt: fio's
 * figures agree with each other (bandwidth is IOPS times the block size,
 * Little's law bounds IOPS times latency by the queue depth) and the
 * tracer saw its read jobs' I/O; a fio engine fio rejects is fio's own
 * one-line message, exit 2 (a job file's: exit 1), nothing created;
 * --fio-job runs a job file's jobs on the target, each reported apart. compilebench made the tree it
 * says (its MB/s is that tree's bytes over the phase's time, and it counts
 * the files itself); build's program was built and printed its checksum
 * (a compiler that builds nothing fails the run).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "leftovers.h"
#include "results_json.h"
#include "run_prog.h"

#define FIO_IODEPTH "8"
#define CB_FILES    "300"
/* One run each: the figures are checked against each other, not
 * compared across targets (test_workloads does comparisons). */
#define RUNS "1"

static char tmp[] = "/var/tmp/encbench-tooltest.XXXXXX";
static char ids_file[PATH_MAX];
static const char *bin;
static struct json_object *results;
static const char *const targets[] = {"plain", "fscrypt"};

static int run_in(const char *out, const char *const *extra, int n)
{
	return run_prog_run(tmp, out, extra, n);
}

static int setup(void **state)
{
	static const char *const args[] = {
		"-w",
		"fio,compilebench,build",
		"-n",
		RUNS,
		"-t",
		"plain,fscrypt",
		"--fio-size",
		"16M",
		"--fio-runtime",
		"500ms",
		"--fio-iodepth",
		FIO_IODEPTH,
		"--compilebench-files",
		CB_FILES,
		"--build-units",
		"3",
		"--build-functions",
		"10",
	};
	char out[PATH_MAX];

	(void)state;
	if (run_prog_begin(tmp))
		return -1;
	bin = run_prog_bin();
	run_prog_record_ids(tmp, ids_file);
	snprintf(out, sizeof(out), "%s/all", tmp);
	results = run_prog_results(
		tmp, "run", run_in(out, args, sizeof(args) / sizeof(args[0])),
		out);
	return results ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	json_object_put(results);
	return remove_tree(tmp);
}

/* Sample k of (target, metric). */
static double sample(const char *target, const char *metric, size_t k)
{
	struct json_object *s =
		get(result_of(results, target, NULL, metric), "samples");

	assert_int_equal(json_object_array_length(s), atoi(RUNS));
	return json_object_get_double(json_object_array_get_idx(s, k));
}

/* The attribution entry of (target, workload, op), of the part (a fio
 * job) named job if not NULL. */
static struct json_object *attrib(const char *target, const char *workload,
				  const char *job, const char *op)
{
	struct json_object *att = get(results, "attribution");

	for (size_t i = 0; i < json_object_array_length(att); i++) {
		struct json_object *a = json_object_array_get_idx(att, i);

		if (!strcmp(json_object_get_string(get(a, "target")), target) &&
		    !strcmp(json_object_get_string(get(a, "workload")),
			    workload) &&
		    (!job ||
		     !strcmp(json_object_get_string(get(a, "job")), job)) &&
		    !strcmp(json_object_get_string(get(a, "op")), op))
			return a;
	}
	fail_msg("no %s/%s/%s/%s attribution", target, workload, job ? job : "",
		 op);
	return NULL;
}

static double layer_count(struct json_object *a, const char *layer)
{
	struct json_object *ls = get(a, "layers");

	for (size_t i = 0; i < json_object_array_length(ls); i++) {
		struct json_object *l = json_object_array_get_idx(ls, i);

		if (!strcmp(json_object_get_string(get(l, "layer")), layer))
			return json_object_get_double(get(l, "count"));
	}
	fail_msg("no layer %s", layer);
	return 0;
}

static const struct {
	const char *job;
	double bs;
	bool read;
} fio_jobs[] = {
	{"randread_4k", 4096, true},
	{"randwrite_4k", 4096, false},
	{"read_4m", 4 << 20, true},
	{"write_4m", 4 << 20, false},
};

static double fio_sample(const char *target, const char *job, const char *what,
			 size_t k)
{
	char metric[128];

	snprintf(metric, sizeof(metric), "%s_%s", job, what);
	return sample(target, metric, k);
}

static void test_fio_figures(void **state)
{
	(void)state;
	for (size_t t = 0; t < 2; t++)
		for (size_t j = 0; j < 4; j++)
			for (size_t k = 0; k < (size_t)atoi(RUNS); k++) {
				const char *tg = targets[t],
					   *job = fio_jobs[j].job;
				double mbps = fio_sample(tg, job, "mbps", k);
				double iops = fio_sample(tg, job, "iops", k);
				double mean =
					fio_sample(tg, job, "clat_mean_us", k);

				assert_true(mbps > 0 && iops > 0);
				/* fio's bytes per second and I/Os per second
				 * are the same count of whole blocks. */
				assert_float_equal(mbps * 1e6,
						   iops * fio_jobs[j].bs,
						   0.02 * mbps * 1e6);
				/* Little's law: I/Os in flight (IOPS times
				 * their latency) never exceed the depth. */
				assert_true(iops * mean / 1e6 <=
					    1.05 * atof(FIO_IODEPTH));
				assert_true(
					fio_sample(tg, job, "clat_p50_us", k) <=
					fio_sample(tg, job, "clat_p99_us", k));
				assert_true(
					fio_sample(tg, job, "clat_p99_us", k) <=
					fio_sample(tg, job, "clat_p999_us", k));
			}
	assert_true(json_object_get_boolean(
		get(result_of(results, "plain", NULL, "randread_4k_iops"),
		    "higher_is_better")));
	assert_false(json_object_get_boolean(get(
		result_of(results, "plain", NULL, "randread_4k_clat_p99_us"),
		"higher_is_better")));
}

/* The tracer followed fio's job processes: every read a read job did in
 * its traced iterations is a syscall-layer item of that job's attribution
 * (a pread of glibc's POSIX AIO threads), and reads reached the device on
 * plain. The reads fio did are counted from the same job's traced
 * iterations' own IOPS. The check compared the first read attribution
 * (randread_4k's, two traced iterations) with both read jobs' untraced
 * iteration, as many as --runs and as fast as the machine untraced: a
 * clean clone's make check beside one busy loop failed it (2026-12-05,
 * at e85ed6d). */
static void test_fio_read_attribution(void **state)
{
	(void)state;
	for (size_t t = 0; t < 2; t++)
		for (size_t j = 0; j < 4; j++) {
			char metric[128];
			struct json_object *ts;
			double reads = 0;

			if (!fio_jobs[j].read)
				continue;
			snprintf(metric, sizeof(metric), "%s_iops",
				 fio_jobs[j].job);
			ts = get(result_of(results, targets[t], NULL, metric),
				 "traced_samples");
			assert_true(json_object_array_length(ts) > 0);
			/* IOPS times the 500 ms runtime. */
			for (size_t k = 0; k < json_object_array_length(ts);
			     k++)
				reads += 0.5 *
					 json_object_get_double(
						 json_object_array_get_idx(ts,
									   k));
			assert_true(reads > 0);
			assert_true(layer_count(attrib(targets[t], "fio",
						       fio_jobs[j].job, "read"),
						"syscall") >= 0.9 * reads);
		}
	assert_true(layer_count(attrib("plain", "fio", "randread_4k", "read"),
				"device") > 0);
}

/* A job file in tmp with `text`; its path in buf. */
static void job_file(const char *name, const char *text, char *buf, size_t len)
{
	FILE *f;

	snprintf(buf, len, "%s/%s", tmp, name);
	f = fopen(buf, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* What fio rejects is fio's one line, nothing created: our option (an
 * engine) is usage, exit 2; a job file's option is the file's, exit 1. */
static void test_fio_rejects(void **state)
{
	char out[PATH_MAX], file[PATH_MAX];
	const char *bad[2][4] = {
		{"-w", "fio", "--fio-engine", "nosuchengine"},
		{"-w", "fio", "--fio-job", file},
	};
	const char *says[2] = {"nosuchengine", "fio: failed parsing rw=bogus"};
	struct stat st;

	(void)state;
	job_file("bad.fio", "[j]\nrw=bogus\n", file, sizeof(file));
	for (int i = 0; i < 2; i++) {
		const char *err;

		snprintf(out, sizeof(out), "%s/bad-fio%d", tmp, i);
		assert_int_equal(run_in(out, bad[i], 4), i ? 1 : 2);
		err = run_output(tmp, "run", "stderr");
		assert_int_equal(count_lines(err), 1);
		assert_non_null(strstr(err, says[i]));
		assert_int_equal(stat(out, &st), -1);
	}
}

/* --fio-job: the job file's jobs run (in a folder of ours on the target,
 * where fio makes their files), each job's figures apart and agreeing
 * with each other: never a total across reads and writes. */
static void test_fio_job_file(void **state)
{
	char out[PATH_MAX], file[PATH_MAX];
	const char *args[] = {"-w",    "fio", "--fio-job", file,	"-t",
			      "plain", "-n",  "1",	   "--no-trace"};
	struct json_object *doc, *r[2];
	double mbps, iops;

	(void)state;
	job_file("two.fio",
		 "[global]\nbs=4k\nsize=4M\nruntime=300ms\ntime_based\n"
		 "direct=1\n[r]\nrw=randread\n[w]\nrw=randwrite\n",
		 file, sizeof(file));
	snprintf(out, sizeof(out), "%s/job-file", tmp);
	doc = run_prog_results(
		tmp, "run", run_in(out, args, sizeof(args) / sizeof(args[0])),
		out);
	assert_non_null(doc);
	for (int i = 0; i < 2; i++)
		r[i] = json_object_array_get_idx(get(doc, "results"), i);
	assert_string_equal(json_object_get_string(get(r[0], "metric")),
			    "r_mbps");
	assert_string_equal(json_object_get_string(get(r[1], "metric")),
			    "r_iops");
	for (int i = 0; i < 2; i++) {
		const char *job = i ? "w" : "r";
		char name[2][16];

		snprintf(name[0], sizeof(name[0]), "%s_mbps", job);
		snprintf(name[1], sizeof(name[1]), "%s_iops", job);
		mbps = json_object_get_double(
			get(result_of(doc, "plain", NULL, name[0]), "mean"));
		iops = json_object_get_double(
			get(result_of(doc, "plain", NULL, name[1]), "mean"));
		/* The job's 4 KiB blocks, counted as bytes and as I/Os. */
		assert_true(mbps > 0);
		assert_float_equal(mbps * 1e6, iops * 4096, 0.02 * mbps * 1e6);
		/* r and w run at once: one phase, named after both. */
		assert_string_equal(
			json_object_get_string(get(
				result_of(doc, "plain", NULL, name[0]), "job")),
			"r+w");
	}
	json_object_put(doc);
}

static struct json_object *params_of(const char *workload)
{
	struct json_object *wls = get(results, "workloads");

	for (size_t i = 0; i < json_object_array_length(wls); i++) {
		struct json_object *w = json_object_array_get_idx(wls, i);

		if (!strcmp(json_object_get_string(get(w, "name")), workload))
			return get(w, "params");
	}
	fail_msg("no workload %s", workload);
	return NULL;
}

static double param(const char *workload, const char *key)
{
	return json_object_get_double(get(params_of(workload), key));
}

/* Mean elapsed seconds of the timed child behind (target, metric). */
static double real_s(const char *target, const char *metric)
{
	return json_object_get_double(
		get(get(result_of(results, target, NULL, metric), "rusage"),
		    "real_s"));
}

static void test_compilebench(void **state)
{
	double src = param("compilebench", "source_bytes");
	double obj = param("compilebench", "object_bytes");

	(void)state;
	assert_int_equal(param("compilebench", "files"), atoi(CB_FILES));
	assert_true(param("compilebench", "objects") > 0);
	assert_true(param("compilebench", "objects") < atoi(CB_FILES));
	/* A kernel-like tree: 4 to 32 KiB per source on average. */
	assert_true(src / atoi(CB_FILES) > 4096);
	assert_true(src / atoi(CB_FILES) < 32768);
	for (size_t t = 0; t < 2; t++) {
		const char *tg = targets[t];

		assert_true(sample(tg, "create_mbps", 0) > 0);
		assert_true(sample(tg, "compile_mbps", 0) > 0);
		/* Every source and object, read back in the phase's time. */
		assert_float_equal(sample(tg, "read_mbps", 0) *
					   real_s(tg, "read_mbps"),
				   (src + obj) / 1e6, 0.01 * (src + obj) / 1e6);
		assert_float_equal(sample(tg, "create_mbps", 0) *
					   real_s(tg, "create_mbps"),
				   src / 1e6, 0.01 * src / 1e6);
		assert_true(json_object_get_boolean(
			get(result_of(results, tg, NULL, "create_mbps"),
			    "higher_is_better")));
	}
}

/* Every metric of every workload on both targets has its CPU summary
 * (the Phoronix "CPU Usage (Summary)" rows): sampled, min <= avg <= max. */
static void test_cpu_summary(void **state)
{
	static const char *const workloads[] = {"fio", "compilebench", "build"};
	struct json_object *res = get(results, "results");
	int seen[2][3] = {{0}};

	(void)state;
	for (size_t i = 0; i < json_object_array_length(res); i++) {
		struct json_object *r = json_object_array_get_idx(res, i);
		struct json_object *cpu = get(r, "cpu");
		const char *w = json_object_get_string(get(r, "workload"));
		const char *t = json_object_get_string(get(r, "target"));
		double min = json_object_get_double(get(cpu, "min"));
		double avg = json_object_get_double(get(cpu, "avg"));
		double max = json_object_get_double(get(cpu, "max"));

		assert_true(json_object_get_int(get(cpu, "samples")) >= 1);
		assert_true(min >= 0 && min <= avg && avg <= max);
		assert_true(max <= 100.0 + 1e-9);
		for (int a = 0; a < 2; a++)
			for (int b = 0; b < 3; b++)
				seen[a][b] += !strcmp(t, targets[a]) &&
					      !strcmp(w, workloads[b]);
	}
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 3; b++)
			if (!seen[a][b])
				fail_msg("no %s metric on %s", workloads[b],
					 targets[a]);
}

static void test_build(void **state)
{
	static const char *const fake[] = {
		"-w",	      "build",	       "-t", "plain",	   "-n",   "1",
		"--no-trace", "--build-units", "2",  "--build-cc", "true",
	};
	char out[PATH_MAX];
	struct stat st;

	(void)state;
	/* Built and checked by the run (it fails otherwise), the compiler's
	 * CPU time counted in the timed child's. */
	for (size_t t = 0; t < 2; t++) {
		assert_true(sample(targets[t], "build_s", 0) > 0);
		assert_true(json_object_get_double(
				    get(get(result_of(results, targets[t], NULL,
						      "build_s"),
					    "rusage"),
					"user_s")) > 0.05);
	}
	assert_int_equal(param("build", "units"), 3);
	/* `true` as the compiler "builds" without a program: the run must
	 * fail, saying so, and keep nothing. */
	snprintf(out, sizeof(out), "%s/fake-cc", tmp);
	assert_true(run_in(out, fake, sizeof(fake) / sizeof(fake[0])) != 0);
	assert_non_null(
		strstr(run_output(tmp, "run", "stderr"), "prog is missing"));
	assert_int_equal(stat(out, &st), -1);
}

static void test_nothing_left(void **state)
{
	(void)state;
	assert_int_equal(leftovers_recorded(tmp, ids_file), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fio_figures),
		cmocka_unit_test(test_fio_read_attribution),
		cmocka_unit_test(test_fio_rejects),
		cmocka_unit_test(test_fio_job_file),
		cmocka_unit_test(test_compilebench),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_cpu_summary),
		cmocka_unit_test(test_nothing_left),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
