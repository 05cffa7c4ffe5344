// SPDX-License-Identifier: MIT
/*
 * `compare`'s pieces without root: the per-iteration CSV reader against
 * good and bad files, and the ZFS report's interval and sentence
 * reproduced from two CSV files of its summary figures.
 */
#include <fcntl.h>
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

#include "catch_stderr.h"
#include "report/report.h"
#include "stats/stats.h"

#define N_ZFS 100

static char dir[] = "/tmp/encbench-compare-XXXXXX";
static char err_path[128];
static struct results *base, *other;

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(err_path, sizeof(err_path), "%s/stderr", dir);
	base = calloc(1, sizeof(*base));
	other = calloc(1, sizeof(*other));
	return base && other ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[160];

	(void)state;
	free(base);
	free(other);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

static const char *file_in(const char *name)
{
	static char path[2][160];
	static int k;

	k ^= 1;
	snprintf(path[k], sizeof(path[k]), "%s/%s", dir, name);
	return path[k];
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static int read_csv(void *path)
{
	return report_read_csv(path, "x", base);
}

/* report_read_csv(path, "x", base) with stderr caught: its return, and the
 * text. */
static int read_caught(const char *path, char *text, size_t len)
{
	return catch_stderr(err_path, read_csv, (void *)path, text, len);
}

/* text as a CSV file is refused with one line on stderr containing want
 * (the file, line and column, then the problem). */
static void expect_refused(const char *text, const char *want)
{
	const char *path = file_in("bad.csv");
	char err[1024], full[512];
	int lines = 0;

	write_text(path, text);
	snprintf(full, sizeof(full), "%s:%s", path, want);
	assert_true(read_caught(path, err, sizeof(err)) < 0);
	for (char *p = err; *p; p++)
		lines += *p == '\n';
	if (lines != 1 || !strstr(err, full))
		fail_msg("stderr '%s' is not one line naming '%s'", err, full);
}

static void test_csv_good(void **state)
{
	const char *path = file_in("good.csv");
	char err[256];

	(void)state;
	/* csv.c's shape: a metric with fewer samples leaves empty cells;
	 * CRLF line ends and no final newline are taken too. */
	write_text(path, "iteration,write_s,files_per_s\r\n"
			 "1,1.5,200\r\n2,2.5,100\r\n3,3.5,\n4,-1e-1,");
	assert_int_equal(read_caught(path, err, sizeof(err)), 0);
	assert_int_equal(base->nr_results, 2);
	assert_string_equal(base->results[0].metric.name, "write_s");
	assert_string_equal(base->results[0].metric.unit, "s");
	assert_false(base->results[0].metric.higher_is_better);
	assert_string_equal(base->results[0].target, "x");
	assert_int_equal(base->results[0].nr_samples, 4);
	assert_true(base->results[0].samples[3] == -0.1);
	assert_true(fabs(base->results[0].s.mean - 1.85) < 1e-12);
	assert_string_equal(base->results[1].metric.name, "files_per_s");
	assert_true(base->results[1].metric.higher_is_better);
	assert_int_equal(base->results[1].nr_samples, 2);
	assert_true(base->results[1].s.mean == 150.0);
	assert_string_equal(err, "");
}

static void test_metric_direction(void **state)
{
	(void)state;
	assert_true(report_metric_higher_is_better("files_per_s"));
	assert_true(report_metric_higher_is_better("read_iops"));
	assert_true(report_metric_higher_is_better("tps"));
	assert_true(report_metric_higher_is_better("read_MBps"));
	assert_false(report_metric_higher_is_better("read_s"));
	assert_false(report_metric_higher_is_better("create_us"));
	assert_false(report_metric_higher_is_better("lat_p99_ms"));
}

static void test_csv_bad_numbers(void **state)
{
	(void)state;
	expect_refused("iteration,read_s\n1,0.5\n2,abc\n",
		       "3:3: 'abc' is not a number (column 'read_s')");
	/* What strtod would take but a CSV of figures never holds. */
	expect_refused("iteration,read_s\n1,0x1p3\n", "2:3: '0x1p3'");
	expect_refused("iteration,read_s\n1,inf\n", "2:3: 'inf'");
	expect_refused("iteration,read_s\n1,nan\n", "2:3: 'nan'");
	expect_refused("iteration,read_s\n1, 0.5\n", "2:3: ' 0.5'");
	expect_refused("iteration,read_s\n1,1e999\n", "2:3: '1e999'");
	expect_refused("iteration,read_s\n1,1.2.3\n", "2:3: '1.2.3'");
	expect_refused("iteration,read_s\n1,-\n", "2:3: '-'");
	/* Iterations count up. */
	expect_refused("iteration,read_s\n1,1\n1,2\n", "3:1: iteration '1'");
	expect_refused("iteration,read_s\n1.5,1\n", "2:1: iteration '1.5'");
}

static void test_csv_bad_shapes(void **state)
{
	(void)state;
	expect_refused("iteration,write_s,read_s\n1,1,2\n2,1\n",
		       "3:1: fewer fields, the header has 3");
	expect_refused("iteration,read_s\n1,1,2\n",
		       "2:1: more fields, the header has 2");
	expect_refused("run,read_s\n1,1\n", "1:1: header must start with");
	expect_refused("iteration\n1\n", "1:1: header names no metric");
	expect_refused("iteration,read_s,read_s\n", "1:18: column 'read_s' "
						    "appears twice");
	expect_refused("iteration,,read_s\n", "1:11: column 2 has no usable");
	expect_refused("iteration,read_s\n1,1\n\n2,2\n", "3:1: empty line");
	expect_refused("iteration,a_s,b_s\n1,1,\n2,2,3\n",
		       "3:5: column 'b_s' resumes");
	expect_refused("", "1:1: empty file");
}

static void test_csv_not_regular(void **state)
{
	const char *fifo = file_in("fifo.csv");
	char err[512];

	(void)state;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* Refused by fstat before any read: it would block otherwise. */
	assert_true(read_caught(fifo, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "is a FIFO"));
	assert_true(read_caught(dir, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "is a folder"));
	assert_true(read_caught(file_in("missing.csv"), err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "No such file"));
}

static void test_csv_nul_byte(void **state)
{
	const char *path = file_in("nul.csv");
	FILE *f = fopen(path, "w");
	char err[512];

	(void)state;
	assert_non_null(f);
	fwrite("iteration,a_s\n1,1\n2,\0\n", 1, 22, f);
	assert_int_equal(fclose(f), 0);
	assert_true(read_caught(path, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, ":3:1: a NUL byte"));
}

/* n samples with exactly this mean and sample sd. */
static void synth(double *x, int n, double mean, double sd)
{
	double a = sd * sqrt((double)(n - 1) / n);

	for (int i = 0; i < n; i++)
		x[i] = mean + (i % 2 ? a : -a);
}

/* A CSV in the ZFS script's shape with its summary figures per column. */
static void write_zfs_csv(const char *path, double wm, double wsd, double rm,
			  double rsd)
{
	double w[N_ZFS], r[N_ZFS];
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	synth(w, N_ZFS, wm, wsd);
	synth(r, N_ZFS, rm, rsd);
	fputs("iteration,write_s,read_s\n", f);
	for (int i = 0; i < N_ZFS; i++)
		fprintf(f, "%d,%.9f,%.9f\n", i + 1, w[i], r[i]);
	assert_int_equal(fclose(f), 0);
}

static void pair(struct results *cmp, int k, const struct result *b,
		 const struct result *o)
{
	struct comparison *c = &cmp->comparisons[k];

	cmp->results[2 * k] = *b;
	cmp->results[2 * k + 1] = *o;
	snprintf(c->baseline, sizeof(c->baseline), "%s", b->target);
	snprintf(c->target, sizeof(c->target), "%s", o->target);
	snprintf(c->metric, sizeof(c->metric), "%s", b->metric.name);
	welch_compare(b->samples, b->nr_samples, o->samples, o->nr_samples,
		      b->metric.higher_is_better, c);
	cmp->nr_comparisons = k + 1;
}

/*
 * The ZFS report: means and sds of 100 runs each (its table), the Welch
 * interval of the difference (its text): reads (0.184, 0.317) s. Its
 * table's means are rounded (5.10 - 4.69 = 0.41, its point estimate
 * 0.411), so the write interval's ends in seconds are off by 0.003 and
 * only its upper end is asserted. Its penalties, reads 69.7 %..120.4 %
 * and writes 4.2 %..13.3 %, are that interval over the unencrypted mean,
 * which leaves that mean's error out; ours are Fieller's interval of the
 * ratio of the means, which holds it: 69.0 %..121.9 % and 4.1 %..13.6 %
 * (tests/unit/fieller_ref.py).
 */
static void test_zfs_report_from_csv(void **state)
{
	const char *pb = file_in("unencrypted.csv"), *po = file_in("enc.csv");
	struct results *cmp = calloc(1, sizeof(*cmp));
	const struct comparison *w, *r;
	char text[512];

	(void)state;
	assert_non_null(cmp);
	write_zfs_csv(pb, 4.69, 0.77, 0.263, 0.062);
	write_zfs_csv(po, 5.10, 0.77, 0.513, 0.33);
	assert_int_equal(report_read_csv(pb, "unencrypted", base), 0);
	assert_int_equal(report_read_csv(po, "encrypted", other), 0);
	assert_int_equal(base->results[1].nr_samples, N_ZFS);
	assert_true(fabs(other->results[1].s.sd - 0.33) < 1e-8);
	pair(cmp, 0, &base->results[0], &other->results[0]);
	pair(cmp, 1, &base->results[1], &other->results[1]);
	w = &cmp->comparisons[0];
	r = &cmp->comparisons[1];
	assert_true(fabs(r->diff_mean - 0.250) < 5e-4);
	assert_true(fabs(r->welch_ci95[0] - 0.184) < 1e-3);
	assert_true(fabs(r->welch_ci95[1] - 0.317) < 1e-3);
	assert_true(fabs(100 * r->welch_ci95[0] / 0.263 - 69.7) < 0.05);
	assert_true(fabs(100 * r->welch_ci95[1] / 0.263 - 120.4) < 0.05);
	assert_true(fabs(r->penalty_ci95_pct[0] - 68.98895) < 1e-4);
	assert_true(fabs(r->penalty_ci95_pct[1] - 121.94797) < 1e-4);
	assert_true(fabs(w->welch_ci95[1] - 0.625) < 1e-3);
	assert_true(fabs(w->penalty_ci95_pct[0] - 4.06916) < 1e-4);
	assert_true(fabs(w->penalty_ci95_pct[1] - 13.64352) < 1e-4);
	assert_true(w->significant && r->significant);
	assert_false(w->penalty_unbounded || r->penalty_unbounded);
	report_compare_sentence(cmp, 1, text, sizeof(text));
	assert_string_equal(text, "reads on encrypted are between 69.0 % and "
				  "121.9 % slower than on unencrypted (95 % "
				  "CI)");
	report_compare_sentence(cmp, 0, text, sizeof(text));
	assert_string_equal(text, "writes on encrypted are between 4.1 % and "
				  "13.6 % slower than on unencrypted (95 % "
				  "CI)");
	free(cmp);
}

/* Four samples each of metric on plain (b) and fscrypt (o), around the
 * means mb and mo with spreads sb and so. */
static void plain_fscrypt(struct result *b, struct result *o,
			  const char *metric, bool higher, double mb, double sb,
			  double mo, double so)
{
	snprintf(b->target, sizeof(b->target), "plain");
	snprintf(o->target, sizeof(o->target), "fscrypt");
	snprintf(b->metric.name, sizeof(b->metric.name), "%s", metric);
	b->metric.higher_is_better = o->metric.higher_is_better = higher;
	b->nr_samples = o->nr_samples = 4;
	synth(b->samples, 4, mb, sb);
	synth(o->samples, 4, mo, so);
	summarize(b->samples, 4, &b->s);
	summarize(o->samples, 4, &o->s);
}

/* Rates: said as the rate's change relative to BASE, then as the
 * penalty; an interval holding 0 says so. */
static void test_sentence_rates_and_no_difference(void **state)
{
	struct results *cmp = calloc(1, sizeof(*cmp));
	struct result b = {0}, o = {0};
	char text[512];

	(void)state;
	assert_non_null(cmp);
	plain_fscrypt(&b, &o, "files_per_s", true, 200.0, 1.0, 100.0, 1.0);
	pair(cmp, 0, &b, &o);
	report_compare_sentence(cmp, 0, text, sizeof(text));
	/* Half the rate: 50 % lower, twice the time per file (+100 %). */
	assert_non_null(strstr(text, "files_per_s on fscrypt is between 4"));
	assert_non_null(strstr(text, "% lower than on plain (95 % CI); "));
	assert_true(fabs(cmp->comparisons[0].penalty_pct - 100.0) < 1e-9);
	/* Overlapping samples: both words, and no significance. */
	synth(o.samples, 4, 200.5, 1.0);
	b.metric.higher_is_better = o.metric.higher_is_better = false;
	snprintf(b.metric.name, sizeof(b.metric.name), "read_s");
	pair(cmp, 0, &b, &o);
	report_compare_sentence(cmp, 0, text, sizeof(text));
	assert_non_null(strstr(text, "reads on fscrypt are between "));
	assert_non_null(strstr(text, "% faster and "));
	assert_non_null(strstr(text, "% slower than on plain (95 % CI): no "
				     "significant difference"));
	/* One run on a side: the point, never "between X and X". */
	b.nr_samples = 1;
	b.samples[0] = 100.0;
	o.nr_samples = 1;
	o.samples[0] = 150.0;
	pair(cmp, 0, &b, &o);
	report_compare_sentence(cmp, 0, text, sizeof(text));
	assert_string_equal(text, "reads on fscrypt are 50.0 % slower than on "
				  "plain: no 95 % CI (one run on a side, or no "
				  "spread), no significance claimed");
	b.metric.higher_is_better = o.metric.higher_is_better = true;
	snprintf(b.metric.name, sizeof(b.metric.name), "files_per_s");
	pair(cmp, 0, &b, &o);
	report_compare_sentence(cmp, 0, text, sizeof(text));
	assert_non_null(
		strstr(text, "files_per_s on fscrypt is 50.0 % higher than on "
			     "plain: no 95 % CI"));
	free(cmp);
}

/* Not disk figures (reads from the page cache, writes timed into it):
 * the sentence claims no change, as the table claims no penalty. */
static void test_sentence_not_disk_figures(void **state)
{
	struct results *cmp = calloc(1, sizeof(*cmp));
	struct result b = {0}, o = {0};
	char text[512];

	(void)state;
	assert_non_null(cmp);
	plain_fscrypt(&b, &o, "read_s", false, 1.0, 0.01, 3.0, 0.01);
	pair(cmp, 0, &b, &o);
	report_compare_sentence(cmp, 0, text, sizeof(text));
	assert_non_null(strstr(text, "% slower than on plain"));
	cmp->comparisons[0].cached = true;
	cmp->comparisons[0].cached_pct = 62.4;
	report_compare_sentence(cmp, 0, text, sizeof(text));
	assert_non_null(strstr(text, "reads on fscrypt against plain: not a "
				     "disk figure (62 % of the bytes read came "
				     "from the page cache), no penalty "
				     "claimed"));
	assert_null(strstr(text, "slower"));
	cmp->comparisons[0].cached = false;
	cmp->comparisons[0].buffered = true;
	report_compare_sentence(cmp, 0, text, sizeof(text));
	assert_non_null(strstr(text, "writes timed into the page cache"));
	assert_null(strstr(text, "slower"));
	free(cmp);
}

/* A baseline whose mean is not told from 0 (n 4, mean 1, sd 2): the
 * penalty's interval is unbounded, and the table and the sentence say
 * so instead of printing ends; a rate the same, naming the side whose
 * mean is at fault. */
static void test_unbounded(void **state)
{
	struct results *cmp = calloc(1, sizeof(*cmp));
	struct result b = {0}, o = {0};
	char text[512], *printed = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	assert_non_null(cmp);
	plain_fscrypt(&b, &o, "read_s", false, 1.0, 2.0, 3.0, 0.1);
	pair(cmp, 0, &b, &o);
	assert_true(cmp->comparisons[0].penalty_unbounded);
	report_compare_sentence(cmp, 0, text, sizeof(text));
	assert_string_equal(text, "reads on fscrypt against plain: no bounded "
				  "95 % CI, the mean of plain is not told "
				  "from 0; no significant difference");
	out = open_memstream(&printed, &len);
	assert_non_null(out);
	report_print_compare(cmp, out);
	fclose(out);
	assert_non_null(strstr(printed, "+200.0 [unbounded]"));
	free(printed);
	/* A rate: its cost's denominator is the target's mean rate. */
	snprintf(b.metric.name, sizeof(b.metric.name), "files_per_s");
	b.metric.higher_is_better = o.metric.higher_is_better = true;
	pair(cmp, 0, &o, &b);
	report_compare_sentence(cmp, 0, text, sizeof(text));
	assert_non_null(strstr(text, "the mean of plain is not told from 0"));
	free(cmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_good),
		cmocka_unit_test(test_metric_direction),
		cmocka_unit_test(test_csv_bad_numbers),
		cmocka_unit_test(test_csv_bad_shapes),
		cmocka_unit_test(test_csv_not_regular),
		cmocka_unit_test(test_csv_nul_byte),
		cmocka_unit_test(test_zfs_report_from_csv),
		cmocka_unit_test(test_sentence_rates_and_no_difference),
		cmocka_unit_test(test_sentence_not_disk_figures),
		cmocka_unit_test(test_unbounded),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
