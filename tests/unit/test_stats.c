// SPDX-License-Identifier: MIT
/* Sample statistics and Welch's comparison against published figures. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "stats/stats.h"

#define N_ZFS 100

static void assert_near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.9g, want %.9g +- %g", got, want, tol);
}

static bool finite_cmp(const struct comparison *c)
{
	return isfinite(c->diff_mean) && isfinite(c->welch_ci95[0]) &&
	       isfinite(c->welch_ci95[1]) && isfinite(c->penalty_pct) &&
	       isfinite(c->penalty_ci95_pct[0]) &&
	       isfinite(c->penalty_ci95_pct[1]);
}

/* Published two-sided 95 % critical values (t tables, 3 decimals). */
static void test_t_quantile_table(void **state)
{
	static const struct {
		double df, t;
	} tab[] = {
		{1, 12.706}, {2, 4.303},   {4, 2.776},	 {9, 2.262},
		{30, 2.042}, {198, 1.972}, {1e9, 1.960},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		assert_near(t_quantile_975(tab[i].df), tab[i].t, 5e-4);
	/* Closed forms: df=1 is Cauchy, df=2 is (2p-1)/sqrt(2p(1-p)). */
	assert_near(t_quantile_975(1), tan(M_PI * 0.475), 1e-9);
	assert_near(t_quantile_975(2), 0.95 / sqrt(2 * 0.975 * 0.025), 1e-9);
}

/* Welch df are fractional: the quantile must be smooth and decreasing. */
static void test_t_quantile_fractional(void **state)
{
	(void)state;
	assert_true(t_quantile_975(1.5) < t_quantile_975(1.0));
	assert_true(t_quantile_975(1.5) > t_quantile_975(2.0));
	assert_true(t_quantile_975(105.98) > t_quantile_975(106.0));
	assert_near(t_quantile_975(105.98), 1.9826, 2e-4);
	/* Either side of the asymptotic switch agrees. */
	assert_near(t_quantile_975(99999), t_quantile_975(100001), 1e-7);
	assert_near(t_quantile_975(1e5 + 1), 1.95998, 1e-5);
	assert_true(isfinite(t_quantile_975(0.05)));
	assert_true(t_quantile_975(0.5) > 100);
	assert_near(t_quantile_975(0), 0, 0);
	assert_near(t_quantile_975(-3), 0, 0);
	assert_near(t_quantile_975(NAN), 0, 0);
}

/* The LUKS report's plain-ext4 elapsed times. */
static void test_summarize_known(void **state)
{
	double x[] = {32.086, 32.046, 31.948, 30.725, 29.407};
	struct summary s;

	(void)state;
	summarize(x, 5, &s);
	assert_near(s.mean, 31.2424, 1e-9);
	assert_near(s.min, 29.407, 0);
	assert_near(s.max, 32.086, 0);
	assert_near(s.median, 31.948, 0);
	/* sd with n - 1 (Python's statistics.stdev) */
	assert_near(s.sd, 1.1717189509, 1e-9);
	assert_near(s.ci95[0], 31.2424 - 2.776445 * 1.1717189509 / sqrt(5),
		    1e-5);
	assert_near(s.ci95[1], 31.2424 + 2.776445 * 1.1717189509 / sqrt(5),
		    1e-5);
}

static void test_summarize_edges(void **state)
{
	double even[] = {4, 1, 3, 2};
	double one = 7.5;
	struct summary s;

	(void)state;
	summarize(even, 4, &s);
	assert_near(s.median, 2.5, 0);
	assert_near(even[0], 4, 0); /* caller's order untouched */
	summarize(&one, 1, &s);
	assert_near(s.mean, 7.5, 0);
	assert_near(s.sd, 0, 0);
	assert_near(s.median, 7.5, 0);
	assert_near(s.ci95[0], 7.5, 0);
	assert_near(s.ci95[1], 7.5, 0);
	summarize(NULL, 0, &s);
	assert_near(s.mean, 0, 0);
	assert_near(s.ci95[1], 0, 0);
}

/* n samples with exactly this mean and sample sd: half at mean - a, half at
 * mean + a, a = sd * sqrt((n - 1) / n). */
static void synth(double *x, int n, double mean, double sd)
{
	double a = sd * sqrt((double)(n - 1) / n);

	for (int i = 0; i < n; i++)
		x[i] = mean + (i % 2 ? a : -a);
}

/*
 * ZFS report, reads: 0.263 (0.062) vs 0.513 (0.33), n=100 each: point
 * 0.250 s, CI (0.184, 0.317) s, "69.7 %..120.4 % slower". The report got
 * its percentages by dividing the difference's interval by the baseline
 * mean, as if that mean had no error; the penalty's interval here is
 * Fieller's for the ratio of the means, which holds it: 69.0 %..121.9 %
 * (tests/unit/fieller_ref.py, mpmath, for every Fieller figure below).
 */
static void test_welch_zfs_read(void **state)
{
	double b[N_ZFS], t[N_ZFS];
	struct comparison c;
	struct summary s;

	(void)state;
	synth(b, N_ZFS, 0.263, 0.062);
	synth(t, N_ZFS, 0.513, 0.33);
	summarize(t, N_ZFS, &s);
	assert_near(s.sd, 0.33, 1e-12);
	welch_compare(b, N_ZFS, t, N_ZFS, 0, &c);
	assert_near(c.diff_mean, 0.250, 1e-12);
	/* The report rounded its inputs to 3 figures: allow that much. */
	assert_near(c.welch_ci95[0], 0.184, 1e-3);
	assert_near(c.welch_ci95[1], 0.317, 1e-3);
	/* The report's own percentages, its way. */
	assert_near(100 * c.welch_ci95[0] / 0.263, 69.7, 0.05);
	assert_near(100 * c.welch_ci95[1] / 0.263, 120.4, 0.05);
	assert_near(c.penalty_ci95_pct[0], 68.9889501657701, 1e-6);
	assert_near(c.penalty_ci95_pct[1], 121.947971822221, 1e-6);
	assert_false(c.penalty_unbounded);
	assert_near(c.penalty_pct, 100 * 0.25 / 0.263, 1e-9);
	assert_true(c.significant);
}

/* ZFS report, writes: 4.69 (0.77) vs 5.10 (0.77): "4.2 %..13.3 % slower",
 * with the baseline mean's error 4.07 %..13.64 %. */
static void test_welch_zfs_write(void **state)
{
	double b[N_ZFS], t[N_ZFS];
	struct comparison c;

	(void)state;
	synth(b, N_ZFS, 4.69, 0.77);
	synth(t, N_ZFS, 5.10, 0.77);
	welch_compare(b, N_ZFS, t, N_ZFS, 0, &c);
	assert_near(c.welch_ci95[0], 0.198, 3.5e-3);
	assert_near(c.welch_ci95[1], 0.625, 1e-3);
	assert_near(100 * c.welch_ci95[0] / 4.69, 4.2, 0.05);
	assert_near(100 * c.welch_ci95[1] / 4.69, 13.3, 0.05);
	assert_near(c.penalty_ci95_pct[0], 4.06915705421332, 1e-6);
	assert_near(c.penalty_ci95_pct[1], 13.6435195374048, 1e-6);
	assert_true(c.significant);
}

/* The same two intervals from the report's summary table alone (means,
 * sds, n = 100 each): what `compare` does without the raw samples. */
static void test_welch_from_summary_zfs(void **state)
{
	struct comparison r, w, c;
	double b[N_ZFS], t[N_ZFS];

	(void)state;
	welch_from_summary(0.263, 0.062, N_ZFS, 0.513, 0.33, N_ZFS, 0, &r);
	assert_near(r.welch_ci95[0], 0.184, 1e-3);
	assert_near(r.welch_ci95[1], 0.317, 1e-3);
	assert_near(r.penalty_ci95_pct[0], 68.9889501657701, 1e-9);
	assert_near(r.penalty_ci95_pct[1], 121.947971822221, 1e-9);
	welch_from_summary(4.69, 0.77, N_ZFS, 5.10, 0.77, N_ZFS, 0, &w);
	assert_near(w.welch_ci95[1], 0.625, 1e-3);
	assert_near(w.penalty_ci95_pct[0], 4.06915705421332, 1e-9);
	assert_near(w.penalty_ci95_pct[1], 13.6435195374048, 1e-9);
	/* And it is exactly what the sample-based comparison computes. */
	synth(b, N_ZFS, 4.69, 0.77);
	synth(t, N_ZFS, 5.10, 0.77);
	welch_compare(b, N_ZFS, t, N_ZFS, 0, &c);
	assert_near(c.welch_ci95[0], w.welch_ci95[0], 1e-9);
	assert_near(c.penalty_ci95_pct[1], w.penalty_ci95_pct[1], 1e-9);
}

/* --runs auto stops when sd / sqrt(n) / mean < PCT %. */
static void test_runs_stable(void **state)
{
	/* mean 10, sd 1: RSE 1/sqrt(n)/10 = 10 %/sqrt(n). */
	double x[16];

	(void)state;
	synth(x, 4, 10.0, 1.0); /* RSE 5 % */
	assert_false(runs_stable(x, 4, 3.5));
	assert_true(runs_stable(x, 4, 5.01));
	synth(x, 10, 10.0, 1.0); /* RSE 3.16 % */
	assert_true(runs_stable(x, 10, 3.5));
	assert_false(runs_stable(x, 10, 3.1));
	/* One sample says nothing about spread; identical ones are stable. */
	assert_false(runs_stable(x, 1, 50));
	x[0] = x[1] = x[2] = 0.0;
	assert_true(runs_stable(x, 3, 3.5));
	x[2] = 1.0;
	assert_false(runs_stable(x, 3, 3.5));
}

/* Throughput: half the MB/s is +100 % cost, its interval Fieller's of
 * the cost ratio mean(b) / mean(t). */
static void test_welch_higher_is_better(void **state)
{
	double b[] = {99, 101, 100, 100}, t[] = {49, 51, 50, 50};
	struct comparison c;

	(void)state;
	welch_compare(b, 4, t, 4, 1, &c);
	assert_near(c.diff_mean, -50, 1e-12);
	assert_near(c.penalty_pct, 100, 1e-9);
	assert_near(c.penalty_ci95_pct[0], 95.2280559898974, 1e-9);
	assert_near(c.penalty_ci95_pct[1], 105.010447185265, 1e-9);
	assert_true(c.significant);
	/* Faster target: negative penalty. */
	welch_compare(t, 4, b, 4, 1, &c);
	assert_near(c.penalty_pct, -50, 1e-9);
}

static void test_welch_not_significant(void **state)
{
	double b[] = {1.0, 2.0, 3.0}, t[] = {1.1, 2.1, 3.1};
	struct comparison c;

	(void)state;
	welch_compare(b, 3, t, 3, 0, &c);
	assert_true(c.welch_ci95[0] < 0 && c.welch_ci95[1] > 0);
	assert_false(c.significant);
}

static void test_welch_edges(void **state)
{
	double one = 1.0, two[] = {2.0, 2.0}, three[] = {3.0, 3.0};
	double zero[] = {0.0, 0.0}, spread[] = {1.0, 3.0};
	struct comparison c;

	(void)state;
	/* n < 2: no spread, interval collapses, never significant. */
	welch_compare(&one, 1, two, 2, 0, &c);
	assert_true(finite_cmp(&c));
	assert_near(c.diff_mean, 1.0, 0);
	assert_near(c.welch_ci95[0], 1.0, 0);
	assert_near(c.welch_ci95[1], 1.0, 0);
	assert_near(c.penalty_pct, 100.0, 1e-12);
	assert_near(c.penalty_ci95_pct[0], 100.0, 1e-12);
	assert_near(c.penalty_ci95_pct[1], 100.0, 1e-12);
	assert_false(c.penalty_unbounded);
	assert_false(c.significant);
	/* Zero variance both sides. */
	welch_compare(two, 2, three, 2, 0, &c);
	assert_true(finite_cmp(&c));
	assert_near(c.welch_ci95[1] - c.welch_ci95[0], 0, 0);
	assert_false(c.significant);
	/* Zero variance on one side is ordinary Welch (df = n - 1); an
	 * exact baseline mean makes Fieller's interval the difference's
	 * divided by it. */
	welch_compare(two, 2, spread, 2, 0, &c);
	assert_true(finite_cmp(&c));
	assert_near(c.welch_ci95[1] - c.welch_ci95[0],
		    2 * 12.7062047 * sqrt(2.0 / 2), 1e-5);
	assert_near(c.penalty_ci95_pct[1], 100 * c.welch_ci95[1] / 2, 1e-9);
	/* (Its lower end, 100 * welch_ci95[0] / 2 = -635 %, is cut at the
	 * ratio 0 of two positive means.) */
	assert_true(100 * c.welch_ci95[0] / 2 < -100);
	assert_near(c.penalty_ci95_pct[0], -100, 0);
	/* Baseline mean 0: no penalty can be expressed, nor bounded. */
	welch_compare(zero, 2, spread, 2, 0, &c);
	assert_true(isfinite(c.welch_ci95[0]) && isfinite(c.welch_ci95[1]));
	assert_near(c.penalty_pct, 0, 0);
	assert_true(c.penalty_unbounded);
	assert_true(isnan(c.penalty_ci95_pct[0]) &&
		    isnan(c.penalty_ci95_pct[1]));
	assert_false(c.significant);
	/* Throughput target mean 0: the same. */
	welch_compare(spread, 2, zero, 2, 1, &c);
	assert_near(c.penalty_pct, 0, 0);
	assert_true(c.penalty_unbounded);
	/* One sample with a zero baseline: still no penalty. */
	welch_compare(zero, 1, spread, 2, 0, &c);
	assert_true(c.penalty_unbounded);
	assert_false(c.significant);
	/* No samples at all. */
	welch_compare(NULL, 0, two, 2, 0, &c);
	assert_true(finite_cmp(&c));
	assert_near(c.diff_mean, 0, 0);
	assert_false(c.significant);
}

/* Unequal n, the noisier side the smaller (3 baseline, 8 target
 * samples): Fieller's interval is far from symmetric about the point. */
static void test_fieller_small_samples(void **state)
{
	double b[] = {0.21, 0.35, 0.30};
	double t[] = {0.52, 0.61, 0.47, 0.55, 0.58, 0.50, 0.63, 0.49};
	struct comparison c;

	(void)state;
	welch_compare(b, 3, t, 8, 0, &c);
	assert_near(c.penalty_ci95_pct[0], 24.459629548944, 1e-8);
	assert_near(c.penalty_ci95_pct[1], 380.812237492173, 1e-8);
	assert_true(c.penalty_ci95_pct[1] - c.penalty_pct >
		    3 * (c.penalty_pct - c.penalty_ci95_pct[0]));
	assert_true(c.significant);
}

/* A baseline of mean 1, n 4, told from 0 only just (1 / se = 3.2 against
 * t(3) = 3.1824): a bounded, huge interval; only just not (3.18):
 * unbounded, NaN ends, while the difference itself is significant. */
static void test_fieller_unbounded(void **state)
{
	struct comparison c;
	struct summary s;
	double b[4];

	(void)state;
	welch_from_summary(1.0, 2 / 3.2, 4, 3.0, 0.5, 4, 0, &c);
	assert_false(c.penalty_unbounded);
	assert_near(c.penalty_ci95_pct[0], 54.9910825392501, 1e-7);
	assert_near(c.penalty_ci95_pct[1] / 54575.9411769998, 1, 1e-9);
	assert_true(c.significant);
	welch_from_summary(1.0, 2 / 3.18, 4, 3.0, 0.5, 4, 0, &c);
	assert_true(c.penalty_unbounded);
	assert_true(isnan(c.penalty_ci95_pct[0]) &&
		    isnan(c.penalty_ci95_pct[1]));
	assert_near(c.penalty_pct, 200, 1e-9);
	assert_true(c.significant);
	/* The criterion is the baseline's own 95 % interval holding 0. */
	synth(b, 4, 1.0, 2 / 3.18);
	summarize(b, 4, &s);
	assert_true(s.ci95[0] < 0);
	synth(b, 4, 1.0, 2 / 3.2);
	summarize(b, 4, &s);
	assert_true(s.ci95[0] > 0);
	/* A rate: the cost's denominator is the target's mean rate. */
	welch_from_summary(3.0, 0.5, 4, 1.0, 2 / 3.18, 4, 1, &c);
	assert_true(c.penalty_unbounded);
	welch_from_summary(1.0, 2 / 3.18, 4, 3.0, 0.5, 4, 1, &c);
	assert_false(c.penalty_unbounded);
}

/* The interval inverts Welch's test: bounded, it excludes 0 exactly when
 * the comparison is significant, over a sweep across the boundary with
 * unequal n and spreads (the closed form, df fixed at the point ratio,
 * disagrees with Welch in 4 of these 1515: fieller_ref.py). */
static void test_fieller_agrees_with_welch(void **state)
{
	int n = 0, sig = 0;

	(void)state;
	for (int nb = 2; nb <= 12; nb += 5) {
		for (int nt = 2; nt <= 30; nt += 7) {
			for (int i = 0; i <= 100; i++) {
				struct comparison c;

				welch_from_summary(1.0, 0.1, nb, 1.0 + i / 50.0,
						   0.9, nt, 0, &c);
				if (c.penalty_unbounded)
					continue;
				n++;
				sig += c.significant;
				assert_int_equal(c.significant,
						 c.penalty_ci95_pct[0] > 0 ||
							 c.penalty_ci95_pct[1] <
								 0);
				assert_true(c.penalty_ci95_pct[0] <=
						    c.penalty_pct &&
					    c.penalty_pct <=
						    c.penalty_ci95_pct[1]);
			}
		}
	}
	/* Both sides of the boundary were crossed. */
	assert_true(sig > 10 && n - sig > 10);
}

/* Two positive means: the ratio's interval stops at 0 (-100 %), where
 * Fieller's set, which does not know the means are positive, goes on
 * below it (the default run's plain reads at load 15: 0.415 s +- 0.242
 * against fscrypt's 2.936 s +- 2.379, 5 runs each). */
static void test_fieller_cut_at_zero(void **state)
{
	double ci[2];
	struct comparison c;

	(void)state;
	assert_true(ratio_ci95(2.936, 2.379 * 2.379 / 5, 5, 0.415,
			       0.242 * 0.242 / 5, 5, ci));
	assert_true(ci[0] < 0);
	welch_from_summary(0.415, 0.242, 5, 2.936, 2.379, 5, 0, &c);
	assert_false(c.penalty_unbounded);
	assert_near(c.penalty_ci95_pct[0], -100, 0);
	assert_near(c.penalty_ci95_pct[1], 100 * (ci[1] - 1), 1e-9);
	assert_false(c.significant);
}

/* The set for b / a is the reciprocals of the set for a / b. */
static void test_ratio_reciprocal(void **state)
{
	double ab[2], ba[2], pct[2], inv[2];

	(void)state;
	assert_true(ratio_ci95(0.513, 0.33 * 0.33 / N_ZFS, N_ZFS, 0.263,
			       0.062 * 0.062 / N_ZFS, N_ZFS, ab));
	assert_true(ratio_ci95(0.263, 0.062 * 0.062 / N_ZFS, N_ZFS, 0.513,
			       0.33 * 0.33 / N_ZFS, N_ZFS, ba));
	assert_near(ab[0] * ba[1], 1, 1e-10);
	assert_near(ab[1] * ba[0], 1, 1e-10);
	pct[0] = 100 * (ab[0] - 1);
	pct[1] = 100 * (ab[1] - 1);
	assert_true(ratio_ci95_reciprocal_pct(pct, inv));
	assert_near(inv[0], 100 * (ba[0] - 1), 1e-8);
	assert_near(inv[1], 100 * (ba[1] - 1), 1e-8);
	/* Unbounded stays unbounded; an interval through theta = 0 too. */
	pct[0] = pct[1] = NAN;
	assert_false(ratio_ci95_reciprocal_pct(pct, inv));
	assert_true(isnan(inv[0]) && isnan(inv[1]));
	pct[0] = -120;
	pct[1] = 10;
	assert_false(ratio_ci95_reciprocal_pct(pct, inv));
	/* No interval without two samples and some variance. */
	assert_false(ratio_ci95(1, 0.1, 1, 1, 0.1, 5, ab));
	assert_false(ratio_ci95(1, 0, 5, 1, 0, 5, ab));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t_quantile_table),
		cmocka_unit_test(test_t_quantile_fractional),
		cmocka_unit_test(test_summarize_known),
		cmocka_unit_test(test_summarize_edges),
		cmocka_unit_test(test_welch_zfs_read),
		cmocka_unit_test(test_welch_zfs_write),
		cmocka_unit_test(test_welch_higher_is_better),
		cmocka_unit_test(test_welch_not_significant),
		cmocka_unit_test(test_welch_edges),
		cmocka_unit_test(test_welch_from_summary_zfs),
		cmocka_unit_test(test_fieller_small_samples),
		cmocka_unit_test(test_fieller_unbounded),
		cmocka_unit_test(test_fieller_agrees_with_welch),
		cmocka_unit_test(test_fieller_cut_at_zero),
		cmocka_unit_test(test_ratio_reciprocal),
		cmocka_unit_test(test_runs_stable),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
