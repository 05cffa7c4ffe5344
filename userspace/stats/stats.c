// SPDX-License-Identifier: MIT
/*
 * Sample statistics, Welch's two-sample interval (the penalty's, a
 * ratio's, is in ratio.c) and log2 histogram helpers. Everything here is
 * a pure function of its arguments.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* Past this many degrees of freedom the Cornish-Fisher series below is
 * exact to double precision, and the continued fraction would need
 * thousands of terms. */
#define T_DF_ASYMPTOTIC 1e5
#define BETACF_MAX_ITER 20000
#define BETACF_EPS	1e-15
#define BETACF_TINY	1e-300
#define Z_975		1.959963984540054

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double betacf(double a, double b, double x)
{
	double qab = a + b, qap = a + 1.0, qam = a - 1.0;
	double c = 1.0, d = 1.0 - qab * x / qap, h;

	if (fabs(d) < BETACF_TINY)
		d = BETACF_TINY;
	d = 1.0 / d;
	h = d;
	for (int m = 1; m <= BETACF_MAX_ITER; m++) {
		int m2 = 2 * m;
		double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		double del;

		d = 1.0 + aa * d;
		d = fabs(d) < BETACF_TINY ? BETACF_TINY : d;
		c = 1.0 + aa / c;
		c = fabs(c) < BETACF_TINY ? BETACF_TINY : c;
		d = 1.0 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1.0 + aa * d;
		d = fabs(d) < BETACF_TINY ? BETACF_TINY : d;
		c = 1.0 + aa / c;
		c = fabs(c) < BETACF_TINY ? BETACF_TINY : c;
		d = 1.0 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1.0) < BETACF_EPS)
			break;
	}
	return h;
}

/* Regularized incomplete beta I_x(a, b). */
static double betai(double a, double b, double x)
{
	double front;

	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x));
	/* The fraction converges fast only on this side of the mean. */
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * betacf(a, b, x) / a;
	return 1.0 - front * betacf(b, a, 1.0 - x) / b;
}

/* P(|T| > t) for Student's t with df degrees of freedom. */
static double t_two_tail(double t, double df)
{
	return betai(df / 2.0, 0.5, df / (df + t * t));
}

double t_quantile_975(double df)
{
	double lo = 0.0, hi = 2.0, t, lnorm;

	/* No interval exists without degrees of freedom: 0 lets callers
	 * produce a collapsed interval instead of NaN or inf. */
	if (!(df > 0.0))
		return 0.0;
	if (df > T_DF_ASYMPTOTIC) {
		/* Cornish-Fisher expansion of t around the normal quantile. */
		double z = Z_975, z2 = z * z, v = df;
		double g1 = (z2 + 1.0) * z / 4.0;
		double g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
		double g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z /
			    384.0;

		return z + g1 / v + g2 / (v * v) + g3 / (v * v * v);
	}
	/* log of the density's constant: Gamma((df + 1) / 2) /
	 * (sqrt(df pi) Gamma(df / 2)). */
	lnorm = lgamma((df + 1.0) / 2.0) - lgamma(df / 2.0) -
		0.5 * log(df * M_PI);
	/* The tail falls as t grows: bracket, then Newton's steps on the
	 * tail (its slope is -2 pdf) to ~1e-13, bisecting wherever a step
	 * would leave the bracket. Tiny df puts the quantile very far out,
	 * hence the doubling. Newton, not bisection alone: Fieller's
	 * interval (ratio.c) asks for a quantile at every ratio it tries. */
	while (t_two_tail(hi, df) > 0.05 && hi < 1e300)
		hi *= 2.0;
	t = hi / 2.0 > 1.96 ? hi / 2.0 : hi;
	for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
		double f = t_two_tail(t, df) - 0.05, next, pdf;

		if (f > 0.0)
			lo = t;
		else
			hi = t;
		pdf = exp(lnorm - (df + 1.0) / 2.0 * log1p(t * t / df));
		next = t + f / (2.0 * pdf);
		if (!(next > lo && next < hi))
			next = lo + (hi - lo) / 2.0;
		if (fabs(next - t) <= 1e-14 * t)
			return next;
		t = next;
	}
	return lo + (hi - lo) / 2.0;
}

static double mean_of(const double *x, int n)
{
	double sum = 0.0;

	for (int i = 0; i < n; i++)
		sum += x[i];
	return n > 0 ? sum / n : 0.0;
}

/* Sample variance (n - 1); 0 when it cannot be estimated. */
static double var_of(const double *x, int n, double mean)
{
	double ss = 0.0;

	if (n < 2)
		return 0.0;
	for (int i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	return ss / (n - 1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void summarize(const double *x, int n, struct summary *out)
{
	double *sorted;
	double half;

	memset(out, 0, sizeof(*out));
	if (!x || n <= 0)
		return;
	out->mean = mean_of(x, n);
	out->sd = sqrt(var_of(x, n, out->mean));
	out->min = out->max = x[0];
	for (int i = 1; i < n; i++) {
		out->min = x[i] < out->min ? x[i] : out->min;
		out->max = x[i] > out->max ? x[i] : out->max;
	}
	sorted = malloc(sizeof(*sorted) * n);
	if (sorted) {
		memcpy(sorted, x, sizeof(*sorted) * n);
		qsort(sorted, n, sizeof(*sorted), cmp_double);
		out->median = n % 2 ? sorted[n / 2]
				    : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
		free(sorted);
	} else {
		/* Out of memory for a copy: the midrange is the best estimate
		 * we can give without reordering the caller's samples. */
		out->median = (out->min + out->max) / 2.0;
	}
	half = n >= 2 ? t_quantile_975(n - 1) * out->sd / sqrt(n) : 0.0;
	out->ci95[0] = out->mean - half;
	out->ci95[1] = out->mean + half;
}

/*
 * Penalty, positive = target worse:
 *  - lower is better (times): 100 * (mt / mb - 1), the extra time relative
 *    to the baseline, as the ZFS report computes it;
 *  - higher is better (throughput): 100 * (mb / mt - 1), the extra cost
 *    (time per unit of work, 1/throughput) relative to the baseline cost,
 *    so that half the throughput reads +100 %, the same as twice the time.
 * Its interval is Fieller's for that ratio of means (ratio.c), not
 * Welch's interval of the difference divided by the denominator's mean:
 * that division treats the denominator as exact and is too narrow by as
 * much as the denominator's own error (the ZFS report's reads: 69.7 %
 * to 120.4 % that way, 69.0 % to 121.9 % with it).
 *
 * Edge cases never yield inf and set significant = false:
 *  - either side without samples: everything 0;
 *  - either side with one sample, or both sides without variance: no
 *    spread can be estimated, the intervals collapse to the point;
 *  - a zero denominator mean: no penalty can be expressed, penalty 0 and
 *    its interval unbounded (NaN ends, penalty_unbounded).
 * Otherwise the penalty's interval is unbounded (NaN ends) only when the
 * denominator's mean is not told from 0; significant is still Welch's.
 * With both means positive it never reaches below -100 %.
 */
void welch_from_summary(double mb, double sdb, int nb, double mt, double sdt,
			int nt, int higher_is_better, struct comparison *out)
{
	double vb, vt, se2, df, half, num, den, ci[2];
	bool hib = higher_is_better != 0, estimable;

	out->diff_mean = 0.0;
	out->welch_ci95[0] = out->welch_ci95[1] = 0.0;
	out->penalty_pct = 0.0;
	out->penalty_ci95_pct[0] = out->penalty_ci95_pct[1] = 0.0;
	out->penalty_unbounded = false;
	out->significant = false;
	if (nb < 1 || nt < 1)
		return;

	vb = sdb * sdb / nb;
	vt = sdt * sdt / nt;
	se2 = vb + vt;
	estimable = nb >= 2 && nt >= 2 && se2 > 0.0;
	half = 0.0;
	if (estimable) {
		/* Welch-Satterthwaite; a side without variance adds nothing. */
		df = se2 * se2 / (vb * vb / (nb - 1) + vt * vt / (nt - 1));
		half = t_quantile_975(df) * sqrt(se2);
	}
	out->diff_mean = mt - mb;
	out->welch_ci95[0] = out->diff_mean - half;
	out->welch_ci95[1] = out->diff_mean + half;

	num = hib ? mb : mt;
	den = hib ? mt : mb;
	if (den == 0.0) {
		out->penalty_unbounded = true;
		out->penalty_ci95_pct[0] = out->penalty_ci95_pct[1] = NAN;
		return;
	}
	out->penalty_pct = 100.0 * (num / den - 1.0);
	out->penalty_ci95_pct[0] = out->penalty_ci95_pct[1] = out->penalty_pct;
	if (estimable) {
		if (ratio_ci95(num, hib ? vb : vt, hib ? nb : nt, den,
			       hib ? vt : vb, hib ? nt : nb, ci)) {
			/* Of two positive means (times, rates) the ratio is
			 * not negative: Fieller's set, which does not know
			 * that, is cut at 0 (a penalty of -100 %). */
			if (num > 0.0 && den > 0.0 && ci[0] < 0.0)
				ci[0] = 0.0;
			out->penalty_ci95_pct[0] = 100.0 * (ci[0] - 1.0);
			out->penalty_ci95_pct[1] = 100.0 * (ci[1] - 1.0);
		} else {
			out->penalty_unbounded = true;
			out->penalty_ci95_pct[0] = NAN;
			out->penalty_ci95_pct[1] = NAN;
		}
	}
	out->significant = estimable && (out->welch_ci95[0] > 0.0 ||
					 out->welch_ci95[1] < 0.0);
}

void welch_compare(const double *base, int nb, const double *tgt, int nt,
		   int higher_is_better, struct comparison *out)
{
	double mb, mt;

	if (!base || !tgt || nb < 1 || nt < 1) {
		welch_from_summary(0, 0, 0, 0, 0, 0, higher_is_better, out);
		return;
	}
	mb = mean_of(base, nb);
	mt = mean_of(tgt, nt);
	welch_from_summary(mb, sqrt(var_of(base, nb, mb)), nb, mt,
			   sqrt(var_of(tgt, nt, mt)), nt, higher_is_better,
			   out);
}

bool runs_stable(const double *x, int n, double pct)
{
	double m, se;

	if (n < 2)
		return false;
	m = mean_of(x, n);
	se = sqrt(var_of(x, n, m) / n);
	if (m == 0.0)
		return se == 0.0;
	return 100.0 * se / fabs(m) < pct;
}

int hist_slot(uint64_t ns)
{
	int slot;

	if (ns < 2)
		return 0;
	slot = 63 - __builtin_clzll(ns);
	return slot < HIST_SLOTS ? slot : HIST_SLOTS - 1;
}

uint64_t hist_slot_low(int slot)
{
	if (slot <= 0 || slot >= HIST_SLOTS)
		return 0;
	return 1ULL << slot;
}

/* The last slot catches everything above it, so it has no finite upper
 * bound: UINT64_MAX says so. */
uint64_t hist_slot_high(int slot)
{
	if (slot < 0 || slot >= HIST_SLOTS)
		return 0;
	if (slot == HIST_SLOTS - 1)
		return UINT64_MAX;
	return 1ULL << (slot + 1);
}

uint64_t hist_percentile(const uint64_t *slots, int nr_slots, double pct)
{
	double total = 0.0, cum = 0.0, rank;

	if (!slots || nr_slots <= 0)
		return 0;
	if (nr_slots > HIST_SLOTS)
		nr_slots = HIST_SLOTS;
	for (int i = 0; i < nr_slots; i++)
		total += (double)slots[i];
	if (total == 0.0)
		return 0;
	pct = pct < 0.0 ? 0.0 : pct > 100.0 ? 100.0 : pct;
	rank = pct / 100.0 * total;
	for (int i = 0; i < nr_slots; i++) {
		uint64_t low = hist_slot_low(i), high = hist_slot_high(i);
		double frac, v;

		if (!slots[i] || cum + (double)slots[i] < rank) {
			cum += (double)slots[i];
			continue;
		}
		/* The open-ended last slot interpolates over its nominal
		 * width, [2^39, 2^40) ns. */
		if (i == HIST_SLOTS - 1)
			high = low * 2;
		frac = (rank - cum) / (double)slots[i];
		v = (double)low + frac * (double)(high - low);
		/* Stay inside the slot: high is exclusive. */
		return v >= (double)high ? high - 1 : (uint64_t)v;
	}
	return 0; /* not reached: rank <= total */
}
