// SPDX-License-Identifier: MIT
/*
 * The three reports' presets, parsed and run for real, shrunk by --size,
 * --runs and --scale to seconds, on the host's targets (plain and
 * fscrypt: luks2 and zfs are the VM's): each runs its report's workload
 * with its report's parameters except those overridden, prints its
 * report's table shape (the rusage rows, the CPU summary, the ZFS
 * report's sentence for each op) and writes the raw per-run section of
 * the LUKS report in run.log.
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

#include "file_text.h"
#include "leftovers.h"
#include "results_json.h"
#include "run_prog.h"

static char tmp[] = "/var/tmp/encbench-presettest.XXXXXX";
static char ids_file[PATH_MAX];
static const char *bin;

/* Run with extra args into tmp/<tag>; its results.json, or NULL. */
static struct json_object *run_preset(const char *tag, const char *const *extra,
				      int n)
{
	const char *argv[40] = {bin, "run", "--scratch", tmp, "--output"};
	char out[PATH_MAX];
	int argc = 5;

	snprintf(out, sizeof(out), "%s/%s", tmp, tag);
	argv[argc++] = out;
	for (int i = 0; i < n && argc < 39; i++)
		argv[argc++] = extra[i];
	argv[argc] = NULL;
	return run_prog_results(
		tmp, tag, run_reap(run_spawn(tmp, tag, NULL, NULL, argv)), out);
}

static int setup(void **state)
{
	(void)state;
	if (run_prog_begin(tmp))
		return -1;
	chmod(tmp, 0711); /* the phoronix preset's servers reach it */
	bin = run_prog_bin();
	run_prog_record_ids(tmp, ids_file);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return remove_tree(tmp);
}

static const char *option_str(struct json_object *doc, const char *k)
{
	return json_object_get_string(get(get(get(doc, "meta"), "options"), k));
}

static size_t nr_samples(struct json_object *r)
{
	return json_object_array_length(get(r, "samples"));
}

static char *read_out(const char *tag, const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s/%s", tmp, tag, file);
	return file_text(path);
}

/* LUKS report: copy, its 4.4 GB shrunk by --size, 5 runs as the report
 * did; plain vs fscrypt here (luks2 is the VM's). The table has the
 * report's Elapsed/User/System rows and run.log its raw section. */
static void test_luks_cp(void **state)
{
	static const char *const args[] = {
		"--preset", "luks-cp", "-s", "4M", "-t", "plain,fscrypt", "-q"};
	struct json_object *doc = run_preset("luks-cp", args, 7);
	char *text, *log;

	(void)state;
	assert_non_null(doc);
	assert_string_equal(option_str(doc, "preset"), "luks-cp");
	assert_int_equal(nr_samples(result_of(doc, "plain", "copy", "copy_s")),
			 5);
	assert_int_equal(
		json_object_get_int64(get(
			get(json_object_array_get_idx(get(doc, "workloads"), 0),
			    "params"),
			"size_bytes")),
		4 << 20);
	/* The full report (report.txt: the terminal has the short form). */
	text = read_out("luks-cp", "report.txt");
	assert_non_null(text);
	assert_non_null(strstr(text, "  elapsed (s)"));
	assert_non_null(strstr(text, "  system (s)"));
	/* The ZFS report's sentence, for copy's op. */
	assert_non_null(strstr(text, "copy copies on fscrypt are between"));
	log = read_out("luks-cp", "run.log");
	assert_non_null(log);
	assert_non_null(strstr(log, "copy on plain (copy_s)"));
	assert_non_null(strstr(log, "Run#5\n\treal    0m"));
	assert_null(strstr(log, "Run#6"));
	free(text);
	free(log);
	json_object_put(doc);
}

/* ZFS report: dd of 2000 MB x 100, shrunk to 4M x 3; zfs is the VM's, so
 * plain alone here (the preset's zfs skipped, with its reason). */
static void test_zfs_dd(void **state)
{
	static const char *const args[] = {"--preset", "zfs-dd", "-s",
					   "4M",       "-n",	 "3"};
	struct json_object *doc = run_preset("zfs-dd", args, 6);
	struct json_object *w;

	(void)state;
	assert_non_null(doc);
	assert_string_equal(option_str(doc, "preset"), "zfs-dd");
	assert_int_equal(nr_samples(result_of(doc, "plain", "dd", "read_s")),
			 3);
	w = json_object_array_get_idx(get(doc, "workloads"), 0);
	assert_string_equal(json_object_get_string(get(w, "name")), "dd");
	assert_int_equal(
		json_object_get_int64(get(get(w, "params"), "size_bytes")),
		4 << 20);
	json_object_put(doc);
}

/* Phoronix: its workloads this build has, runs auto (bounded to 2 here),
 * --scale shrinking counts and durations; every one has its metrics and
 * a CPU summary on both targets, and the table shows avg (min-max). */
static void test_phoronix(void **state)
{
	static const char *const args[] = {
		"--preset",	 "phoronix",   "--scale", "0.05",	"-t",
		"plain,fscrypt", "--min-runs", "2",	  "--max-runs", "2",
		"--no-trace",	 "-q"};
	static const struct {
		const char *workload, *metric;
	} expect[] = {
		{"fsmark", "files_per_s"},   {"createfiles", "create_us"},
		{"sqlite", "insert_s"},	     {"pgbench", "tps"},
		{"nginx", "requests_per_s"},
	};
	struct json_object *doc = run_preset("phoronix", args, 12);
	char *text;

	(void)state;
	assert_non_null(doc);
	assert_string_equal(option_str(doc, "runs"), "auto");
	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++)
		for (int t = 0; t < 2; t++) {
			struct json_object *r =
				result_of(doc, t ? "fscrypt" : "plain",
					  expect[i].workload, expect[i].metric);
			struct json_object *cpu = get(r, "cpu");

			assert_int_equal(nr_samples(r), 2);
			assert_true(json_object_get_int(get(cpu, "samples")) >=
				    2);
			assert_true(json_object_get_double(get(cpu, "min")) <=
				    json_object_get_double(get(cpu, "max")));
		}
	text = read_out("phoronix", "report.txt");
	assert_non_null(text);
	assert_non_null(strstr(text, "\npgbench: mean +- sd of 2 runs"));
	assert_non_null(strstr(text, "  cpu all (%)"));
	assert_non_null(strstr(text, "mean (min-max) of samples"));
	free(text);
	json_object_put(doc);
}

static void test_nothing_left(void **state)
{
	(void)state;
	assert_int_equal(leftovers_recorded(tmp, ids_file), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_luks_cp),
		cmocka_unit_test(test_zfs_dd),
		cmocka_unit_test(test_phoronix),
		cmocka_unit_test(test_nothing_left),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
