/* SPDX-License-Identifier: MIT */
/*
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
 * penalty_pct is the change in "cost" relative to the baseline mean, signed
 * so that positive always means the target is worse (slower for times,
 * lower for throughputs); penalty_ci95_pct maps the interval the same way.
 * significant = the interval excludes 0. Fills the numeric fields of *out.
 */
void welch_compare(const double *base, int nb, const double *tgt, int nt,
		   int higher_is_better, struct comparison *out);

/* The same from summary figures (mean, sample sd, n of each side): what a
 * report that published only those allows, as the ZFS one did. */
void welch_from_summary(double mb, double sdb, int nb, double mt, double sdt,
			int nt, int higher_is_better, struct comparison *out);

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
