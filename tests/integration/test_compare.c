// SPDX-License-Identifier: MIT
/*
 * `compare` as a user runs it: on the two per-iteration CSV files and on
 * the results.json files of real small runs (root, loop devices, ext4
 * and fscrypt; no tracing, which compare never reads), with the figures
 * checked against what the runs themselves computed; and bad input: one
 * line, exit 2, nothing created.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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
#include "results_json.h"
#include "run_prog.h"

static char tmp[] = "/var/tmp/encbench-compare.XXXXXX";
static const char *bin;
/* Two runs' results.json, parsed. */
static struct json_object *run_a, *run_b;

static const char *in_tmp(const char *name)
{
	static char path[16][PATH_MAX];
	static int k;

	k = (k + 1) % 16;
	snprintf(path[k], sizeof(path[k]), "%s/%s", tmp, name);
	return path[k];
}

/* compare with up to 5 args (NULL ends them): its exit status. */
static int compare(const char *a1, const char *a2, const char *a3,
		   const char *a4, const char *a5)
{
	const char *argv[] = {bin, "compare", a1, a2, a3, a4, a5, NULL};

	return run_reap(run_spawn(tmp, "cmp", NULL, NULL, argv));
}

static const char *out(const char *stream)
{
	return run_output(tmp, "cmp", stream);
}

static struct json_object *small_run(const char *name)
{
	const char *argv[] = {bin,	    "run",
			      "--size",	    "16M",
			      "--runs",	    "3",
			      "--no-trace", "--quiet",
			      "--targets",  "plain,fscrypt",
			      "--scratch",  tmp,
			      "--output",   in_tmp(name),
			      NULL};

	return run_prog_results(
		tmp, "run", run_reap(run_spawn(tmp, "run", NULL, NULL, argv)),
		in_tmp(name));
}

static int setup(void **state)
{
	(void)state;
	bin = run_prog_bin();
	if (run_prog_begin(tmp))
		return -1;
	run_a = small_run("a");
	run_b = run_a ? small_run("b") : NULL;
	return run_b ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	json_object_put(run_a);
	json_object_put(run_b);
	return remove_tree(tmp);
}

static double dbl(struct json_object *o, const char *k)
{
	return json_object_get_double(get(o, k));
}

static double at(struct json_object *o, const char *k, int i)
{
	return json_object_get_double(json_object_array_get_idx(get(o, k), i));
}

static const char *str(struct json_object *o, const char *k)
{
	return json_object_get_string(get(o, k));
}

/* The entry of array `key` in doc whose members match (NULL: any). */
static struct json_object *find(struct json_object *doc, const char *key,
				const char *target, const char *tkey,
				const char *metric)
{
	struct json_object *a = get(doc, key);

	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *e = json_object_array_get_idx(a, i);

		if ((!target || !strcmp(str(e, tkey), target)) &&
		    !strcmp(str(e, "metric"), metric))
			return e;
	}
	fail_msg("no %s %s in %s", target ? target : "", metric, key);
	return NULL;
}

static struct json_object *stdout_json(void)
{
	struct json_object *o = json_tokener_parse(out("stdout"));

	if (!o)
		fail_msg("compare --json printed no JSON: %s", out("stdout"));
	return o;
}

/* compare's sentence on `what` (the metric's op) is the one the run's own
 * interval calls for: three 16 MiB writes and reads a side can leave
 * plain's mean not told from 0 (a clean-clone make check beside a busy
 * loop, 4 MiB then, 2026-12-06), and then there is no bounded ratio. */
static void sentence_as_own(const char *metric, const char *what)
{
	struct json_object *own =
		find(run_a, "comparisons", "fscrypt", "target", metric);
	bool unbounded =
		json_object_get_boolean(get(own, "penalty_ci95_unbounded"));
	const char *line, *end;
	char want[96];

	if (unbounded)
		snprintf(
			want, sizeof(want),
			"%s on fscrypt-dd against plain-dd: no bounded 95 %% CI",
			what);
	else
		snprintf(want, sizeof(want), "%s on fscrypt-dd are between ",
			 what);
	line = strstr(out("stdout"), want);
	if (!line)
		fail_msg("no '%s' in: %s", want, out("stdout"));
	/* The interval's own sentence ends so, on its own line. */
	end = strchr(line, '\n');
	if (!unbounded &&
	    !memmem(line, end ? (size_t)(end - line) : strlen(line),
		    " than on plain-dd (95 % CI)", 27))
		fail_msg("'%s' sentence without ' than on plain-dd (95 %% CI)' "
			 "in: %s",
			 what, out("stdout"));
}

/* The run's own fscrypt-vs-plain comparisons come back from its two
 * CSV files: the same means and Welch intervals (the CSV keeps 6
 * decimals), and the report's sentence. */
static void test_two_csvs(void **state)
{
	const char *plain = in_tmp("a/plain-dd.csv");
	const char *fscrypt = in_tmp("a/fscrypt-dd.csv");
	struct json_object *doc;

	(void)state;
	assert_int_equal(compare(plain, fscrypt, NULL, NULL, NULL), 0);
	sentence_as_own("write_s", "writes");
	sentence_as_own("read_s", "reads");
	assert_string_equal(out("stderr"), "");
	assert_int_equal(compare("--json", plain, fscrypt, NULL, NULL), 0);
	doc = stdout_json();
	assert_int_equal(json_object_array_length(get(doc, "comparisons")), 2);
	for (int m = 0; m < 2; m++) {
		const char *metric = m ? "read_s" : "write_s";
		struct json_object *c =
			find(doc, "comparisons", NULL, NULL, metric);
		struct json_object *own =
			find(run_a, "comparisons", "fscrypt", "target", metric);
		struct json_object *res =
			find(run_a, "results", "plain", "target", metric);

		assert_int_equal(json_object_get_int(get(get(c, "base"), "n")),
				 3);
		assert_string_equal(str(get(c, "other"), "label"),
				    "fscrypt-dd");
		assert_true(fabs(dbl(get(c, "base"), "mean") -
				 dbl(res, "mean")) < 1e-6);
		assert_true(fabs(dbl(get(c, "base"), "sd") - dbl(res, "sd")) <
			    1e-5);
		assert_true(fabs(at(c, "welch_ci95", 0) -
				 at(own, "welch_ci95", 0)) < 1e-5);
		assert_true(fabs(at(c, "welch_ci95", 1) -
				 at(own, "welch_ci95", 1)) < 1e-5);
		assert_true(json_object_get_boolean(get(c, "significant")) ==
			    json_object_get_boolean(get(own, "significant")));
		assert_non_null(strstr(str(c, "sentence"), " on fscrypt-dd "));
	}
	json_object_put(doc);
}

/* Two runs: each target's metric against the same of the other run. */
static void test_two_runs(void **state)
{
	struct json_object *doc, *c, *u;
	bool plain_read_unbounded = false;

	(void)state;
	assert_int_equal(compare("--json", in_tmp("a"),
				 in_tmp("b/results.json"), NULL, NULL),
			 0);
	doc = stdout_json();
	/* plain and fscrypt, write_s and read_s. */
	assert_int_equal(json_object_array_length(get(doc, "comparisons")), 4);
	for (size_t i = 0; i < 4; i++) {
		const char *target, *metric;
		double want;

		c = json_object_array_get_idx(get(doc, "comparisons"), i);
		metric = str(c, "metric");
		target = strstr(str(get(c, "base"), "label"), "fscrypt@")
				 ? "fscrypt"
				 : "plain";
		assert_string_equal(str(c, "workload"), "dd");
		assert_true(!strcmp(str(get(c, "base"), "label"), "plain@a") ||
			    !strcmp(str(get(c, "base"), "label"), "fscrypt@a"));
		want = dbl(find(run_b, "results", target, "target", metric),
			   "mean") -
		       dbl(find(run_a, "results", target, "target", metric),
			   "mean");
		assert_true(fabs(dbl(c, "diff_mean") - want) < 1e-12);
		assert_true(at(c, "welch_ci95", 0) <= dbl(c, "diff_mean") &&
			    dbl(c, "diff_mean") <= at(c, "welch_ci95", 1));
		if (!strcmp(target, "plain") && !strcmp(metric, "read_s") &&
		    json_object_object_get_ex(c, "penalty_ci95_unbounded", &u))
			plain_read_unbounded = json_object_get_boolean(u);
	}
	json_object_put(doc);
	/* The table, with a heading per pair of sides. */
	assert_int_equal(compare(in_tmp("a"), in_tmp("b"), NULL, NULL, NULL),
			 0);
	assert_non_null(strstr(out("stdout"), "fscrypt@b vs fscrypt@a\n"));
	/* Three runs a side: where plain@a's read time spreads by more than
	 * 40 % of its mean, its mean's interval holds 0 and the ratio's is
	 * unbounded (Fieller), which the sentence says instead. */
	if (plain_read_unbounded)
		assert_non_null(strstr(out("stdout"),
				       "dd reads on plain@b against plain@a: "
				       "no bounded 95 % CI"));
	else
		assert_non_null(
			strstr(out("stdout"), "dd reads on plain@b are "));
}

static void test_html(void **state)
{
	const char *dir = in_tmp("page");
	char *page;

	(void)state;
	assert_int_equal(compare("--html", dir, in_tmp("a/plain-dd.csv"),
				 in_tmp("a/fscrypt-dd.csv"), NULL),
			 0);
	page = file_text(in_tmp("page/report.html"));
	assert_non_null(page);
	assert_non_null(strstr(page, "\"metric\":\"read_s\""));
	assert_non_null(strstr(page, "\"baseline\":\"plain-dd\""));
	free(page);
	/* Never replaced. */
	assert_int_equal(compare("--html", dir, in_tmp("a/plain-dd.csv"),
				 in_tmp("a/fscrypt-dd.csv"), NULL),
			 2);
	assert_non_null(strstr(out("stderr"), "exists"));
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Exit 2, one line on stderr holding want, no output folder made. */
static void expect_bad(const char *base, const char *other, const char *want)
{
	const char *dir = in_tmp("never");
	struct stat st;

	assert_int_equal(compare("--html", dir, base, other, NULL), 2);
	if (count_lines(out("stderr")) != 1 || !strstr(out("stderr"), want))
		fail_msg("stderr '%s' is not one line with '%s'", out("stderr"),
			 want);
	assert_string_equal(out("stdout"), "");
	assert_true(lstat(dir, &st) < 0);
}

static void test_bad_input(void **state)
{
	const char *plain = in_tmp("a/plain-dd.csv");
	const char *fifo = in_tmp("fifo.csv");

	(void)state;
	write_text(in_tmp("rates.csv"), "iteration,files_per_s\n1,5\n2,6\n");
	write_text(in_tmp("one.csv"), "iteration,write_s,read_s\n1,1,2\n");
	write_text(in_tmp("bad.csv"), "iteration,write_s,read_s\n1,1,2\n"
				      "2,1;5,2\n");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	expect_bad(plain, in_tmp("a/results.json"), "different shapes");
	expect_bad(plain, in_tmp("rates.csv"), "no metric column in common");
	expect_bad(plain, in_tmp("one.csv"),
		   "has 1 sample; an interval "
		   "needs at least 2");
	expect_bad(plain, in_tmp("bad.csv"),
		   "bad.csv:3:3: '1;5' is not a number (column 'write_s')");
	expect_bad(plain, in_tmp("missing.csv"), "missing.csv");
	expect_bad(fifo, plain, "is a FIFO");
	expect_bad(in_tmp("a"), in_tmp("a/run.log"), "not a JSON object");
	expect_bad("--frob", plain, "unknown option '--frob'");
	expect_bad(plain, NULL, "give exactly two files");
	assert_int_equal(compare(plain, plain, plain, NULL, NULL), 2);
	assert_int_equal(compare("--html", NULL, NULL, NULL, NULL), 2);
	assert_non_null(strstr(out("stderr"), "'--html' needs a value"));
}

/* A baseline whose mean is not told from 0 (0.01, 0.9, 0.01 s: its 95 %
 * interval holds 0): no bounded ratio, and the sentence says so instead of
 * printing an interval; the same sentence sentence_as_own expects when a
 * run's own interval is unbounded. */
static void test_unbounded(void **state)
{
	(void)state;
	write_text(in_tmp("wide.csv"), "iteration,write_s,read_s\n"
				       "1,0.01,1\n2,0.9,1.1\n3,0.01,1.2\n");
	write_text(in_tmp("tight.csv"), "iteration,write_s,read_s\n"
					"1,0.5,2\n2,0.51,2.1\n3,0.52,2.2\n");
	assert_int_equal(compare(in_tmp("wide.csv"), in_tmp("tight.csv"), NULL,
				 NULL, NULL),
			 0);
	if (!strstr(out("stdout"),
		    "writes on tight against wide: no bounded 95 % CI"))
		fail_msg("no unbounded writes sentence in: %s", out("stdout"));
	if (!strstr(out("stdout"), "reads on tight are between "))
		fail_msg("no bounded reads sentence in: %s", out("stdout"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_csvs),
		cmocka_unit_test(test_two_runs),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_unbounded),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
