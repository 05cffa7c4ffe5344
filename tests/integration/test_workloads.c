// SPDX-License-Identifier: MIT
/*
 * The built-in workloads through the real program, as root, at small
 * sizes on plain and fscrypt: each produces its metrics (with the right
 * direction) and a CPU summary; copy's cp copies exactly --copy-size
 * bytes (the workload fails otherwise); --runs auto stops inside its
 * bounds; bad workload options are one-line errors that create nothing.
 */
#include <errno.h>
#include <math.h>
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

static char tmp[] = "/var/tmp/encbench-wltest.XXXXXX";
static char ids_file[PATH_MAX];
static const char *bin;
static struct json_object *results;

static const struct {
	const char *workload, *metric;
	bool higher_is_better;
} expected[] = {
	{"copy", "copy_s", false},
	{"createfiles", "create_us", false},
	{"fsmark", "files_per_s", true},
	{"sqlite", "insert_s", false},
};

#define NR_EXPECTED (sizeof(expected) / sizeof(expected[0]))

static int run_in(const char *out, const char *const *extra, int n)
{
	const char *args[RUN_PROG_MAX_ARGS] = {"--no-trace"};

	for (int i = 0; i < n && i + 1 < RUN_PROG_MAX_ARGS; i++)
		args[i + 1] = extra[i];
	return run_prog_run(tmp, out, args, n + 1);
}

static int setup(void **state)
{
	static const char *const args[] = {
		"-w",
		"copy,createfiles,fsmark,sqlite",
		"-n",
		"2",
		"--copy-size",
		"8M",
		"--createfiles-files",
		"500",
		"--fsmark-files",
		"12",
		"--fsmark-file-size",
		"64k",
		"--fsmark-threads",
		"2",
		"--sqlite-inserts",
		"40",
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

static double dbl(struct json_object *o, const char *k)
{
	return json_object_get_double(get(o, k));
}

static void test_metrics_and_cpu(void **state)
{
	static const char *const targets[] = {"plain", "fscrypt"};

	(void)state;
	for (size_t t = 0; t < 2; t++)
		for (size_t i = 0; i < NR_EXPECTED; i++) {
			struct json_object *r = result_of(
				results, targets[t], NULL, expected[i].metric);
			struct json_object *s, *cpu;

			if (!r)
				fail_msg("no %s on %s", expected[i].metric,
					 targets[t]);
			assert_string_equal(
				json_object_get_string(get(r, "workload")),
				expected[i].workload);
			assert_int_equal(json_object_get_boolean(
						 get(r, "higher_is_better")),
					 expected[i].higher_is_better);
			s = get(r, "samples");
			assert_int_equal(json_object_array_length(s), 2);
			for (size_t k = 0; k < 2; k++)
				assert_true(json_object_get_double(
						    json_object_array_get_idx(
							    s, k)) > 0);
			/* At least one /proc/stat sample per timed child. */
			cpu = get(r, "cpu");
			assert_true(json_object_get_int(get(cpu, "samples")) >=
				    2);
			assert_true(dbl(cpu, "min") >= 0);
			assert_true(dbl(cpu, "min") <= dbl(cpu, "avg"));
			assert_true(dbl(cpu, "avg") <= dbl(cpu, "max"));
			assert_true(dbl(cpu, "max") <= 100.0 + 1e-9);
		}
	/* One comparison per metric: fscrypt against plain. */
	assert_int_equal(json_object_array_length(get(results, "comparisons")),
			 NR_EXPECTED);
}

/* The workloads' parameters are what was asked, typed in results.json. */
static void test_params(void **state)
{
	struct json_object *wls = get(results, "workloads");
	int seen = 0;

	(void)state;
	for (size_t i = 0; i < json_object_array_length(wls); i++) {
		struct json_object *w = json_object_array_get_idx(wls, i);
		const char *name = json_object_get_string(get(w, "name"));
		struct json_object *p = get(w, "params");

		if (!strcmp(name, "copy")) {
			assert_int_equal(
				json_object_get_int64(get(p, "size_bytes")),
				8 << 20);
			seen++;
		} else if (!strcmp(name, "fsmark")) {
			assert_int_equal(json_object_get_int(get(p, "files")),
					 12);
			assert_int_equal(json_object_get_int(get(p, "threads")),
					 2);
			assert_int_equal(
				json_object_get_int(get(p, "file_bytes")),
				64 << 10);
			seen++;
		}
	}
	assert_int_equal(seen, 2);
}

/* --runs auto: between --min-runs and --max-runs, and it stops early only
 * when every metric is stable enough. */
static void test_runs_auto(void **state)
{
	static const char *const args[] = {
		"-w",	      "createfiles", "--createfiles-files",
		"300",	      "--runs",	     "auto",
		"--min-runs", "2",	     "--max-runs",
		"4",	      "--stable",    "50",
		"-t",	      "plain"};
	char out[PATH_MAX];
	struct json_object *doc, *r, *s;
	size_t n;

	(void)state;
	snprintf(out, sizeof(out), "%s/auto", tmp);
	doc = run_prog_results(
		tmp, "run", run_in(out, args, sizeof(args) / sizeof(args[0])),
		out);
	assert_non_null(doc);
	r = result_of(doc, "plain", NULL, "create_us");
	assert_non_null(r);
	s = get(r, "samples");
	n = json_object_array_length(s);
	assert_true(n >= 2 && n <= 4);
	if (n < 4) {
		double rse = dbl(r, "sd") / sqrt((double)n) / dbl(r, "mean");

		assert_true(100 * rse < 50);
	}
	assert_string_equal(json_object_get_string(get(
				    get(get(doc, "meta"), "options"), "runs")),
			    "auto");
	json_object_put(doc);
}

static void test_bad_options(void **state)
{
	static const char *const bad[][4] = {
		{"-w", "copy", "--copy-size", "abc"},
		{"-w", "fsmark", "--fsmark-threads", "0"},
		{"-w", "fsmark", "--fsmark-bogus", "1"},
		{"-w", "copy", "--sqlite-inserts", "10"},
		{"-w", "sqlite", "--sqlite-inserts", "1.5"},
		{"-w", "copy", "--preset", "nosuch"},
	};
	char out[PATH_MAX];
	struct stat st;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *err;

		snprintf(out, sizeof(out), "%s/bad%zu", tmp, i);
		assert_int_equal(run_in(out, bad[i], 4), 2);
		err = run_output(tmp, "run", "stderr");
		/* One line, and nothing created. */
		assert_int_equal(count_lines(err), 1);
		assert_int_equal(stat(out, &st), -1);
	}
}

static void test_nothing_left(void **state)
{
	(void)state;
	assert_int_equal(leftovers_recorded(tmp, ids_file), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics_and_cpu),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_runs_auto),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_nothing_left),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
