// SPDX-License-Identifier: MIT
/*
 * A traced iteration that something else disturbed. The attribution of a
 * phase is its traced iterations' (one by default), so one that ran into
 * something the untraced ones did not -- a stall of the machine, another
 * tenant's burst -- explains that instead of the workload, and against a
 * baseline it can turn the comparison over: in the VM guest a plain
 * target's one traced dd read took 2.8x its untraced ones (2026-12-02),
 * and the encrypted target's reads, slower untraced, came out faster
 * traced. Being traced costs time too (issue 20: up to 1.4x on fio's
 * random reads), so the bar is well above that: worse than twice the
 * worst untraced iteration so far, on any metric of the part. Such an
 * iteration is set aside and traced again once (series.c); a second
 * like it is kept, and both are said.
 */
#include <string.h>

#include "run_priv.h"

double disturbance_of(const double *untraced, int n, double traced,
		      bool higher_is_better)
{
	double worst = 0;

	if (n <= 0 || traced <= 0)
		return 0;
	for (int i = 0; i < n; i++) {
		if (untraced[i] <= 0)
			return 0;
		if (!i || (higher_is_better ? untraced[i] < worst
					    : untraced[i] > worst))
			worst = untraced[i];
	}
	return higher_is_better ? worst / traced : traced / worst;
}

double traced_disturbance(const struct results *r, const char *target,
			  const char *workload, const char *job,
			  const struct metric_def *defs, int first, int n,
			  const double *values, int *metric)
{
	double most = 0;

	for (int i = 0; i < r->nr_results && i < MAX_RESULTS; i++) {
		const struct result *x = &r->results[i];

		if (strcmp(x->target, target) ||
		    strcmp(x->workload, workload) || strcmp(x->job, job))
			continue;
		for (int m = first; m < first + n; m++) {
			double d;

			if (strcmp(x->metric.name, defs[m].name))
				continue;
			d = disturbance_of(x->samples, x->nr_samples, values[m],
					   x->metric.higher_is_better);
			if (d > most) {
				most = d;
				*metric = m;
			}
		}
	}
	return most;
}
