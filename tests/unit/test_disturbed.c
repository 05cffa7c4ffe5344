// SPDX-License-Identifier: MIT
/*
 * The bar past which a traced iteration is set aside and traced again
 * (userspace/run/disturbed.c): the traced value against the worst of the
 * untraced ones of the same target, workload, part and metric.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run/run_priv.h"

static void assert_ratio(double got, double want)
{
	if (!(got > want - 1e-9 && got < want + 1e-9))
		fail_msg("got %.9g, want %.9g", got, want);
}

/* Times: traced over the slowest untraced; rates: the lowest untraced
 * over traced; nothing known, nothing said. */
static void test_ratio_to_worst(void **state)
{
	const double secs[] = {0.30, 0.33, 0.27}, iops[] = {900, 1000, 800};

	(void)state;
	assert_ratio(disturbance_of(secs, 3, 0.83, false), 0.83 / 0.33);
	assert_ratio(disturbance_of(secs, 3, 0.30, false), 0.30 / 0.33);
	assert_ratio(disturbance_of(iops, 3, 200, true), 800.0 / 200);
	assert_ratio(disturbance_of(iops, 3, 1200, true), 800.0 / 1200);
	assert_ratio(disturbance_of(secs, 0, 0.83, false), 0);
	assert_ratio(disturbance_of(secs, 3, 0, false), 0);
	/* An untraced value of 0 (a failed figure) is no yardstick. */
	assert_ratio(disturbance_of((const double[]){0.3, 0}, 2, 9, false), 0);
}

static struct results r;

static void add(const char *target, const char *job, const char *metric,
		bool higher, const double *v, int n)
{
	struct result *x = &r.results[r.nr_results++];

	memset(x, 0, sizeof(*x));
	strcpy(x->target, target);
	strcpy(x->workload, "dd");
	strcpy(x->job, job);
	strcpy(x->metric.name, metric);
	x->metric.higher_is_better = higher;
	memcpy(x->samples, v, n * sizeof(*v));
	x->nr_samples = n;
}

/* The worst metric of the part on that target only: another target's,
 * another part's and a metric outside the part's range do not count. */
static void test_worst_metric_of_the_part(void **state)
{
	const struct metric_def defs[] = {
		{.name = "write_s"}, {.name = "read_s"}, {.name = "other_s"}};
	double traced[3] = {0.7, 0.9, 50};
	int m = -1;

	(void)state;
	r.nr_results = 0;
	add("plain", "", "write_s", false, (const double[]){0.6, 0.65}, 2);
	add("plain", "", "read_s", false, (const double[]){0.3}, 1);
	add("plain", "", "other_s", false, (const double[]){1}, 1);
	add("luks2", "", "read_s", false, (const double[]){0.1}, 1);
	add("plain", "job2", "read_s", false, (const double[]){0.05}, 1);
	assert_ratio(traced_disturbance(&r, "plain", "dd", "", defs, 0, 2,
					traced, &m),
		     0.9 / 0.3);
	assert_int_equal(m, 1);
	assert_true(0.9 / 0.3 > DISTURBED);
	/* Within the bar: tracing's own cost, not a disturbance. */
	traced[1] = 0.45;
	m = -1;
	assert_ratio(traced_disturbance(&r, "plain", "dd", "", defs, 0, 2,
					traced, &m),
		     0.45 / 0.3);
	assert_true(0.45 / 0.3 < DISTURBED);
	/* No untraced figure of that target yet: nothing to compare. */
	assert_ratio(traced_disturbance(&r, "ecryptfs", "dd", "", defs, 0, 2,
					traced, &m),
		     0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ratio_to_worst),
		cmocka_unit_test(test_worst_metric_of_the_part),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
