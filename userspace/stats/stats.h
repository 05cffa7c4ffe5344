/* SPDX-License-Identifier: MIT */
/*
 * stats/: the statistics. May include: common/.
 *
 * Statistics for benchmark samples and latency histograms. Pure functions
 * over plain arrays: no I/O, no globals, unit-tested without root.
 */
#ifndef ENCBENCH_STATS_H
#define ENCBENCH_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/results.h"

/* Two-sided Student t quantile for 95 % confidence and df degrees of
 * freedom (df may be fractional, as Welch's is). */
double t_quantile_975(double df);

/* mean, sample sd (n-1), min, max, median and the t-interval of the mean.
 * With n < 2 sd is 0 and the interval collapses to the mean. */
void summarize(const double *x, int n, struct summary *out);

/*
 * Welch two-sample comparison of target against baseline:
 * diff_mean = mean(target) - mean(baseline) with Welch's 95 % interval;
 * penalty_pct is the change in "cost" relative to the baseline's, signed
 * so that positive always means the target is worse (slower for times,
 * lower for throughputs): 100 (theta - 1) for the ratio of means theta =
 * mt / mb (times) or mb / mt (throughputs: the cost is 1 / throughput).
 * penalty_ci95_pct is Fieller's interval of theta (ratio_ci95), which
 * holds both means' errors; where theta's denominator cannot be told from
 * 0 it is unbounded: penalty_unbounded, both ends NaN.
 * significant = Welch's interval excludes 0 (and then, by construction,
 * a bounded penalty interval excludes 0 too). Fills the numeric fields.
 */
void welch_compare(const double *base, int nb, const double *tgt, int nt,
		   int higher_is_better, struct comparison *out);

/* The same from summary figures (mean, sample sd, n of each side): what a
 * report that published only those allows, as the ZFS one did. */
void welch_from_summary(double mb, double sdb, int nb, double mt, double sdt,
			int nt, int higher_is_better, struct comparison *out);

/*
 * Fieller's 95 % interval of a / b for two independent means a and b,
 * each given with the variance of the mean (sd^2 / n) and its n, with
 * Welch-Satterthwaite df (ratio.c says why this method). true with
 * ci[0] <= a / b <= ci[1]; false with NaN ends when the interval is
 * unbounded (b's own 95 % interval holds 0) or cannot be formed (n < 2,
 * no variance on either side, b = 0).
 */
bool ratio_ci95(double a, double va, int na, double b, double vb, int nb,
		double ci[2]);

/* The interval of 100 (1 / theta - 1) from that of 100 (theta - 1): a
 * throughput's own change from its cost's penalty (Fieller's set for
 * 1 / theta is exactly the reciprocals of theta's). false, NaN ends, when
 * pct is unbounded or theta's interval reaches 0. */
bool ratio_ci95_reciprocal_pct(const double pct[2], double out[2]);

/* The stopping rule of --runs auto: the relative standard error of the
 * mean (sd / sqrt(n) / |mean|) is below pct %, with at least 2 samples. */
bool runs_stable(const double *x, int n, double pct);

/* Slot of a latency in the log2 histogram of attrib.h. */
int hist_slot(uint64_t ns);
/* Lower and upper (exclusive) bound in ns of a slot. */
uint64_t hist_slot_low(int slot);
uint64_t hist_slot_high(int slot);
/* Percentile (0..100) by linear interpolation inside the slot that holds
 * it; 0 if the histogram is empty. */
uint64_t hist_percentile(const uint64_t *slots, int nr_slots, double pct);

#endif /* ENCBENCH_STATS_H */
