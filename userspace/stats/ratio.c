// SPDX-License-Identifier: MIT
/*
 * The 95 % interval of the ratio of two independent means, by Fieller's
 * theorem with Welch-Satterthwaite degrees of freedom.
 *
 * Why Fieller and not the delta method on log(a / b): the delta method
 * gives log(a / b) +- t * sqrt(cv_a^2 + cv_b^2), a first-order
 * approximation that is always bounded; when the denominator's mean is
 * barely told from 0 (the case where its error matters most) it still
 * prints a finite interval, and a wrong one. Fieller's interval is the set
 * of ratios theta that a t-test of a - theta * b = 0 does not reject; it
 * needs no approximation beyond the t pivot itself, is as asymmetric as
 * the ratio's uncertainty is, becomes unbounded exactly when it should,
 * and reduces to the difference's interval over b when b has no error.
 *
 * The pivot (a - theta b) / sqrt(va + theta^2 vb) gets, for each theta
 * tried, the Welch-Satterthwaite df of the variance under the root. So
 * the set is the inversion of Welch's test itself, with three exact
 * consequences the closed form (df fixed at a / b) only approximates:
 *  - theta = 1 is inside iff Welch's interval of a - b holds 0, so a
 *    penalty's interval excludes 0 iff the comparison is significant;
 *  - as theta grows, df tends to b's own n - 1, so the set is unbounded iff
 *    b's own 95 % interval (summarize's ci95) holds 0;
 *  - the set for b / a is the reciprocals of the set for a / b (the pivot
 *    and its df are the same), so a rate's change and its cost's change
 *    come from one interval.
 * Its ends have no closed form: each is the root of pivot_excess between a
 * / b and a point outside, found by bisection.
 */
#include <math.h>

#include "stats.h"

/* Doublings of the search step before giving up on finding the outside
 * of a bounded set (then it is reported unbounded: numerically it is),
 * and bisection steps for each end. */
#define RATIO_MAX_DOUBLINGS 200
#define RATIO_MAX_BISECT    200
#define RATIO_REL_TOL	    1e-13

struct ratio_in {
	double a, va, b, vb;
	int ka, kb; /* degrees of freedom of each variance: n - 1 */
};

/* (a - theta b)^2 - t^2 (va + theta^2 vb): <= 0 inside the set. */
static double pivot_excess(const struct ratio_in *p, double th)
{
	double s = p->va + th * th * p->vb, d = p->a - th * p->b, q, df;

	if (!(s > 0.0))
		return d * d;
	df = s * s /
	     (p->va * p->va / p->ka +
	      th * th * th * th * p->vb * p->vb / p->kb);
	q = t_quantile_975(df);
	return d * d - q * q * s;
}

/* The end of the set on the side dir (-1, +1) of r, the set's inside. */
static bool ratio_end(const struct ratio_in *p, double r, double step, int dir,
		      double *end)
{
	double in = r, out = r + dir * step, scale = step;
	int i;

	for (i = 0; i < RATIO_MAX_DOUBLINGS && pivot_excess(p, out) <= 0.0;
	     i++) {
		in = out;
		step *= 2.0;
		out = r + dir * step;
	}
	if (i == RATIO_MAX_DOUBLINGS || !isfinite(out))
		return false;
	for (i = 0; i < RATIO_MAX_BISECT; i++) {
		double mid = in + (out - in) / 2.0;

		if (fabs(out - in) <= RATIO_REL_TOL * (fabs(mid) + scale))
			break;
		if (pivot_excess(p, mid) <= 0.0)
			in = mid;
		else
			out = mid;
	}
	*end = in + (out - in) / 2.0;
	return true;
}

bool ratio_ci95(double a, double va, int na, double b, double vb, int nb,
		double ci[2])
{
	struct ratio_in p = {a, va, b, vb, na - 1, nb - 1};
	double r, step;

	ci[0] = ci[1] = NAN;
	if (na < 2 || nb < 2 || !(va >= 0.0) || !(vb >= 0.0) ||
	    !(va + vb > 0.0) || b == 0.0)
		return false;
	/* Far out the pivot tends to b / sqrt(vb) with b's own df: the set
	 * is bounded iff b is told from 0 at 95 %. */
	if (vb > 0.0 && b * b <= pow(t_quantile_975(nb - 1), 2) * vb)
		return false;
	r = a / b;
	/* A scale for the search: the half-width b's error would give a
	 * ratio of 1, never 0 (a = 0 exactly with va = 0 is possible). */
	step = t_quantile_975(p.ka < p.kb ? p.ka : p.kb) *
	       sqrt(va + (r * r + 1.0) * vb) / fabs(b);
	if (!(step > 0.0) || !isfinite(step))
		return false;
	if (!ratio_end(&p, r, step, -1, &ci[0]) ||
	    !ratio_end(&p, r, step, 1, &ci[1])) {
		ci[0] = ci[1] = NAN;
		return false;
	}
	return true;
}

bool ratio_ci95_reciprocal_pct(const double pct[2], double out[2])
{
	double lo = 1.0 + pct[0] / 100.0, hi = 1.0 + pct[1] / 100.0;

	out[0] = out[1] = NAN;
	/* NaN ends fail here too. */
	if (!(lo > 0.0) || !(hi >= lo))
		return false;
	out[0] = 100.0 * (1.0 / hi - 1.0);
	out[1] = 100.0 * (1.0 / lo - 1.0);
	return true;
}
