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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_marked),
		cmocka_unit_test(test_buffered),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
