// SPDX-License-Identifier: MIT
/*
 * The page cache named (analysis/cached.c) on hand-made results: a read
 * figure whose device delivered less than 90 % of what was read is not a
 * disk figure, its comparison says so and claims no penalty, and its
 * job's read verdict is told anew with the share and why, the traced
 * verdict kept as evidence; a figure whose device bytes were not counted
 * claims nothing. A write figure timed into the page cache on either side
 * makes its comparison buffered, on neither side not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/cached.h"

static void result(struct result *r, const char *target, double read,
		   double dev, int counted)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->target, sizeof(r->target), "%s", target);
	snprintf(r->workload, sizeof(r->workload), "fio");
	snprintf(r->job, sizeof(r->job), "read_1m");
	snprintf(r->metric.name, sizeof(r->metric.name), "read_1m_mbps");
	r->nr_samples = 2;
	r->read_bytes = read;
	r->dev_read_bytes = dev;
	r->dev_samples = counted;
}

static void test_share(void **state)
{
	struct result r;

	(void)state;
	result(&r, "fscrypt", 1000e6, 100e6, 2);
	assert_float_equal(result_cached_pct(&r), 90, 1e-9);
	/* Read-ahead brought more than was read: nothing came cached. */
	result(&r, "plain", 1000e6, 1010e6, 2);
	assert_float_equal(result_cached_pct(&r), 0, 1e-9);
	/* Not counted on every sample, or not a read figure: not known. */
	result(&r, "fscrypt", 1000e6, 0, 1);
	assert_true(result_cached_pct(&r) < 0);
	result(&r, "fscrypt", 0, 0, 2);
	assert_true(result_cached_pct(&r) < 0);
}

static void test_marked(void **state)
{
	struct results *r = calloc(1, sizeof(*r));
	struct comparison c = {0};
	struct verdict *v;

	(void)state;
	assert_non_null(r);
	r->nr_targets = 2;
	snprintf(r->targets[0].name, NAME_LEN, "plain");
	snprintf(r->targets[0].kind, NAME_LEN / 2, "plain");
	snprintf(r->targets[1].name, NAME_LEN, "fscrypt");
	snprintf(r->targets[1].kind, NAME_LEN / 2, "fscrypt");
	result(&r->results[0], "plain", 1000e6, 1000e6, 2);
	result(&r->results[1], "fscrypt", 1000e6, 250e6, 2);
	r->nr_results = 2;
	comparison_mark_cached(&c, &r->results[0], &r->results[1]);
	assert_true(c.cached);
	assert_float_equal(c.cached_pct, 75, 1e-9);
	/* The traced verdict of fscrypt's job, and plain's. */
	r->nr_verdicts = 2;
	for (int i = 0; i < 2; i++) {
		v = &r->verdicts[i];
		snprintf(v->target, NAME_LEN, "%s", r->targets[i].name);
		snprintf(v->workload, NAME_LEN, "fio");
		snprintf(v->job, NAME_LEN, "read_1m");
		v->op = EB_OP_READ;
		snprintf(v->summary, sizeof(v->summary), "reads are fast");
	}
	verdicts_mark_cached(r);
	assert_int_equal(r->nr_verdicts, 2);
	assert_string_equal(r->verdicts[0].summary, "reads are fast");
	v = &r->verdicts[1];
	assert_non_null(strstr(v->summary, "fio's read_1m reads on fscrypt are "
					   "cached, not a disk figure: 75 %"));
	assert_non_null(strstr(v->summary, "O_DIRECT fell back"));
	assert_int_equal(v->nr_evidence, 1);
	assert_non_null(strstr(v->evidence[0], "reads are fast"));
	/* The short report shows it, in its own words. */
	assert_true(v->headline);
	assert_non_null(strstr(v->brief, "cached, not a disk figure: 75 %"));
	/* Told once, however many figures of the job share the bytes. */
	result(&r->results[2], "fscrypt", 1000e6, 250e6, 2);
	r->nr_results = 3;
	verdicts_mark_cached(r);
	assert_int_equal(v->nr_evidence, 1);
	/* Without a traced verdict (no tracing), one is made. */
	r->nr_verdicts = 1;
	verdicts_mark_cached(r);
	assert_int_equal(r->nr_verdicts, 2);
	assert_string_equal(r->verdicts[1].job, "read_1m");
	assert_non_null(strstr(r->verdicts[1].summary, "cached"));
	/* eCryptfs: buffered by design. */
	assert_non_null(
		strstr(cached_why(&(struct target_info){.kind = "ecryptfs"}),
		       "refuses O_DIRECT"));
	free(r);
}

static void test_buffered(void **state)
{
	struct result b, t;
	struct comparison c = {0};

	(void)state;
	/* Write figures: no bytes read, so never cached. */
	result(&b, "plain", 0, 0, 2);
	result(&t, "fscrypt", 0, 0, 2);
	comparison_mark_cached(&c, &b, &t);
	assert_false(c.buffered);
	assert_false(c.cached);
	t.page_cache_writes = true;
	comparison_mark_cached(&c, &b, &t);
	assert_true(c.buffered);
	assert_false(c.cached);
	/* The baseline's figure alone (eCryptfs as the baseline). */
	t.page_cache_writes = false;
	b.page_cache_writes = true;
	comparison_mark_cached(&c, &b, &t);
	assert_true(c.buffered);
}

/*
 * One run of fscrypt's 4 KiB random reads beside a busy loop (bench/
 * stability.sh, 2026-12-06): 5 iterations, the 4th outran the 256 MiB
 * file (fio's random map then reads every block again, from the page
 * cache) and the others never reached a second pass. The 4th is split
 * off, the figure is the other four's, a disk figure, and the job's
 * read verdict says which iteration was left out and why.
 */
static void test_split(void **state)
{
	static const double iops[] = {3937, 4910, 5006, 26780, 4293};
	struct results *r = calloc(1, sizeof(*r));
	struct result *x;
	struct verdict *v;
	double read = 0, dev = 0, disk[5];

	(void)state;
	assert_non_null(r);
	r->nr_targets = 1;
	snprintf(r->targets[0].name, NAME_LEN, "fscrypt");
	snprintf(r->targets[0].kind, NAME_LEN / 2, "fscrypt");
	x = &r->results[r->nr_results++];
	result(x, "fscrypt", 0, 0, 0);
	snprintf(x->job, sizeof(x->job), "randread_4k");
	snprintf(x->metric.name, sizeof(x->metric.name), "randread_4k_iops");
	snprintf(x->metric.unit, sizeof(x->metric.unit), "iops");
	x->nr_samples = 0;
	for (int i = 0; i < 5; i++) {
		double rb = iops[i] * 10 * 4096;
		double db = i == 3 ? 65536.0 * 4096 : rb + 8192;

		x->iteration[x->nr_samples] = 2 * i + 1;
		x->samples[x->nr_samples++] = iops[i];
		read += rb;
		dev += db;
		if (iteration_cached(rb, db)) {
			x->cached_at[x->nr_cached_at++] = i;
			x->cached_read_bytes += rb;
			x->cached_dev_read_bytes += db;
		}
	}
	x->read_bytes = read;
	x->dev_read_bytes = dev;
	x->dev_samples = 5;
	/* The five together: a quarter of the bytes from memory. */
	assert_true(result_cached_pct(x) > CACHED_PCT_MAX);
	assert_int_equal(x->nr_cached_at, 1);
	/* What --runs auto judges while recording: the four to be kept. */
	assert_int_equal(result_disk_samples(x, disk), 4);
	assert_float_equal(disk[3], 4293, 0);
	assert_float_equal(disk[2], 5006, 0);
	result_split_cached(x);
	assert_int_equal(x->nr_samples, 4);
	assert_int_equal(x->nr_cached, 1);
	assert_float_equal(x->cached[0], 26780, 0);
	assert_int_equal(x->cached_iteration[0], 7);
	assert_float_equal(x->samples[3], 4293, 0);
	assert_int_equal(x->iteration[3], 9);
	assert_int_equal(x->dev_samples, 4);
	assert_true(result_cached_pct(x) <= CACHED_PCT_MAX);
	/* Split once only. */
	result_split_cached(x);
	assert_int_equal(x->nr_samples, 4);
	/* The verdict keeps its traced story and says what was left out. */
	v = &r->verdicts[r->nr_verdicts++];
	snprintf(v->target, NAME_LEN, "fscrypt");
	snprintf(v->workload, NAME_LEN, "fio");
	snprintf(v->job, NAME_LEN, "randread_4k");
	v->op = EB_OP_READ;
	snprintf(v->summary, sizeof(v->summary), "waiting for decryption");
	verdicts_mark_cached(r);
	assert_string_equal(v->summary, "waiting for decryption");
	assert_int_equal(v->nr_evidence, 1);
	assert_string_equal(v->evidence[0],
			    "1 of 5 iterations read over 10 % from the page "
			    "cache (iteration 7: 26780 iops): not disk "
			    "samples, left out of the figures");
	verdicts_mark_cached(r);
	assert_int_equal(v->nr_evidence, 1);
	free(r);
}

/* Fewer than two iterations that were not cached: nothing moves, and the
 * figure is cached as a whole. Places not in order: nothing moves. */
static void test_no_split(void **state)
{
	struct result x;
	double disk[4];

	(void)state;
	result(&x, "fscrypt", 4000e6, 1200e6, 3);
	x.nr_samples = 3;
	x.samples[0] = 1;
	x.samples[1] = 2;
	x.samples[2] = 3;
	x.nr_cached_at = 2;
	x.cached_at[0] = 0;
	x.cached_at[1] = 2;
	x.cached_read_bytes = 2000e6;
	x.cached_dev_read_bytes = 100e6;
	/* One iteration would be left: all are the figure's, and --runs
	 * auto judges all three. */
	assert_int_equal(result_disk_samples(&x, disk), 3);
	result_split_cached(&x);
	assert_int_equal(x.nr_samples, 3);
	assert_int_equal(x.nr_cached, 0);
	assert_float_equal(result_cached_pct(&x), 70, 1e-9);
	x.nr_samples = 4;
	x.samples[3] = 4;
	x.cached_at[0] = 2;
	x.cached_at[1] = 0;
	result_split_cached(&x);
	assert_int_equal(x.nr_samples, 4);
	assert_int_equal(x.nr_cached, 0);
	x.cached_at[0] = 0;
	x.cached_at[1] = 2;
	assert_int_equal(result_disk_samples(&x, disk), 2);
	assert_float_equal(disk[1], 4, 0);
	result_split_cached(&x);
	assert_int_equal(x.nr_samples, 2);
	assert_float_equal(x.samples[0], 2, 0);
	assert_float_equal(x.samples[1], 4, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_share),	 cmocka_unit_test(test_marked),
		cmocka_unit_test(test_buffered), cmocka_unit_test(test_split),
		cmocka_unit_test(test_no_split),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
