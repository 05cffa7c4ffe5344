// SPDX-License-Identifier: MIT
/*
 * `report --reanalyze` on a real saved run (plain and fscrypt, traced, on
 * real loop devices) and on the recorded runs of tests/data: the verdicts
 * made again from the snapshots are those the run printed (same analysis),
 * -o writes a whole new results folder, and the saved run is left byte
 * for byte as it was. Bad input: one line, non-zero exit, nothing made.
 */
#include <dirent.h>
#include <limits.h>
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
#include "run_prog.h"

static char tmp[] = "/var/tmp/encbench-reanalyze.XXXXXX";
static char run_dir[PATH_MAX];

/* Every file under dir (one level of folders), path and content, as one
 * string: what "byte for byte" compares. */
static char *tree_text(const char *dir)
{
	char cmd[PATH_MAX + 128], *text;
	FILE *p;
	size_t cap = 1 << 22, n = 0;

	snprintf(
		cmd, sizeof(cmd),
		"cd '%s' && find . -type f | LC_ALL=C sort | "
		"while read -r f; do echo \"== $f $(stat -c %%s.%%Y \"$f\")\"; "
		"cat \"$f\"; done",
		dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	text = malloc(cap);
	assert_non_null(text);
	while (n < cap - 1 && !feof(p))
		n += fread(text + n, 1, cap - 1 - n, p);
	text[n] = '\0';
	pclose(p);
	return text;
}

static int report(const char *tag, const char *const *args)
{
	const char *argv[16] = {run_prog_bin(), "report"};
	int n = 2;

	for (; *args && n < 15; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	return run_reap(run_spawn(tmp, tag, NULL, NULL, argv));
}

static int setup(void **state)
{
	static const char *const extra[] = {
		"--targets", "plain,fscrypt", "--size", "16M", "--runs", "2"};
	(void)state;
	if (run_prog_begin(tmp))
		return -1;
	snprintf(run_dir, sizeof(run_dir), "%s/run", tmp);
	if (run_prog_run(tmp, run_dir, extra, 6)) {
		fprintf(stderr, "# run failed: %s\n",
			run_output(tmp, "run", "stderr"));
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return remove_tree(tmp);
}

static const char *summary(struct json_object *doc, int i)
{
	struct json_object *v = json_object_array_get_idx(
		json_object_object_get(doc, "verdicts"), i);

	return json_object_get_string(json_object_object_get(v, "summary"));
}

static size_t nr_verdicts(struct json_object *doc)
{
	return json_object_array_length(
		json_object_object_get(doc, "verdicts"));
}

/*
 * One snapshot per traced iteration of each phase, named by the phase's
 * order and the iteration results.json marks traced (the first result of
 * the target, dd's read_s): two of each target, four files. Returns how
 * many files it checked.
 */
static int assert_iteration_files(const char *dir, const char *const *phases,
				  int n)
{
	char path[PATH_MAX + 128];
	struct json_object *doc, *results;
	int files = 0;

	snprintf(path, sizeof(path), "%s/results.json", dir);
	doc = json_object_from_file(path);
	assert_non_null(doc);
	results = json_object_object_get(doc, "results");
	for (int p = 0; p < n; p++) {
		struct json_object *its = NULL;

		for (size_t i = 0;
		     !its && i < json_object_array_length(results); i++) {
			struct json_object *r =
				json_object_array_get_idx(results, i);

			if (strstr(phases[p], json_object_get_string(
						      json_object_object_get(
							      r, "target"))))
				its = json_object_object_get(
					r, "traced_iterations");
		}
		assert_non_null(its);
		/* The default --trace-runs. */
		assert_int_equal(json_object_array_length(its), 2);
		for (size_t k = 0; k < json_object_array_length(its); k++) {
			snprintf(path, sizeof(path),
				 "%s/snapshots/%s.iteration-%d.json", dir,
				 phases[p],
				 json_object_get_int(
					 json_object_array_get_idx(its, k)));
			assert_int_equal(access(path, R_OK), 0);
			files++;
		}
	}
	json_object_put(doc);
	assert_int_equal(snapshot_files(dir), files);
	return files;
}

/* The saved run's verdicts again, printed and in NEW; DIR as it was. */
static void test_saved_run(void **state)
{
	static const char *const phases[] = {"01-plain-dd", "02-fscrypt-dd"};
	char new_dir[PATH_MAX], path[PATH_MAX + 32], *before, *after;
	char line[64];
	struct json_object *old, *now;
	const char *out;
	int files;
	(void)state;

	files = assert_iteration_files(run_dir, phases, 2);
	before = tree_text(run_dir);
	assert_int_equal(report("re", (const char *const[]){"--reanalyze",
							    run_dir, NULL}),
			 0);
	out = run_output(tmp, "re", "stdout");
	snprintf(line, sizeof(line), "Analysed again from %d snapshots", files);
	assert_non_null(strstr(out, line));
	assert_non_null(strstr(out, "fscrypt"));
	snprintf(new_dir, sizeof(new_dir), "%s/new", tmp);
	assert_int_equal(
		report("re-o", (const char *const[]){"--reanalyze", "-o",
						     new_dir, run_dir, NULL}),
		0);
	after = tree_text(run_dir);
	assert_string_equal(before, after);
	free(before);
	free(after);

	snprintf(path, sizeof(path), "%s/results.json", run_dir);
	old = json_object_from_file(path);
	snprintf(path, sizeof(path), "%s/results.json", new_dir);
	now = json_object_from_file(path);
	assert_non_null(old);
	assert_non_null(now);
	assert_true(nr_verdicts(old) > 0);
	assert_int_equal(nr_verdicts(now), nr_verdicts(old));
	for (size_t i = 0; i < nr_verdicts(old); i++)
		assert_string_equal(summary(now, i), summary(old, i));
	assert_int_equal(assert_iteration_files(new_dir, phases, 2), files);
	json_object_put(old);
	json_object_put(now);
}

/* The recordings in the tree, left as they are. */
static void test_recorded_runs(void **state)
{
	static const char *const names[] = {
		"host-fscrypt-default", "host-contention", "vm61-luks-aes",
		"vm61-luks-null",	"vm61-ecryptfs",   "vm61-zfs",
		"vm61-dmdelay"};
	char dir[PATH_MAX];
	(void)state;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *before, *after;

		assert_non_null(realpath("tests/data", dir));
		strcat(dir, "/");
		strcat(dir, names[i]);
		before = tree_text(dir);
		assert_int_equal(
			report("rec",
			       (const char *const[]){"--reanalyze", dir, NULL}),
			0);
		assert_non_null(strstr(run_output(tmp, "rec", "stdout"),
				       "Analysed again from"));
		after = tree_text(dir);
		assert_string_equal(before, after);
		free(before);
		free(after);
	}
}

/* One line each, non-zero, nothing made. */
static void test_refusals(void **state)
{
	char bad[PATH_MAX], path[PATH_MAX + 64], new_dir[PATH_MAX],
		cmd[3 * PATH_MAX];
	const char *err;
	(void)state;

	/* A snapshot of a version this program does not read. */
	snprintf(bad, sizeof(bad), "%s/bad", tmp);
	snprintf(cmd, sizeof(cmd),
		 "cp -r '%s' '%s' && sed -i 's/\"version\":2,/\"version\":7,/' "
		 "'%s/snapshots/01-plain-dd.iteration-'*.json",
		 run_dir, bad, bad);
	assert_int_equal(system(cmd), 0);
	snprintf(new_dir, sizeof(new_dir), "%s/never", tmp);
	assert_int_not_equal(
		report("v7", (const char *const[]){"--reanalyze", "-o", new_dir,
						   bad, NULL}),
		0);
	err = run_output(tmp, "v7", "stderr");
	assert_non_null(strstr(err, "\"version\" is 7"));
	assert_int_equal(count_lines(err), 1);
	assert_int_not_equal(access(new_dir, F_OK), 0);

	/* No snapshots: a run from before them. */
	snprintf(path, sizeof(path), "%s/snapshots", bad);
	snprintf(cmd, sizeof(cmd), "rm -r '%s'", path);
	assert_int_equal(system(cmd), 0);
	assert_int_not_equal(
		report("none", (const char *const[]){"--reanalyze", bad, NULL}),
		0);
	assert_int_equal(count_lines(run_output(tmp, "none", "stderr")), 1);

	/* -o over a folder with something in it; -o alone. */
	assert_int_equal(
		report("full", (const char *const[]){"--reanalyze", "-o",
						     run_dir, run_dir, NULL}),
		2);
	assert_int_equal(count_lines(run_output(tmp, "full", "stderr")), 1);
	assert_int_equal(report("alone", (const char *const[]){"-o", new_dir,
							       run_dir, NULL}),
			 2);
	assert_int_not_equal(access(new_dir, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_saved_run),
		cmocka_unit_test(test_recorded_runs),
		cmocka_unit_test(test_refusals),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
