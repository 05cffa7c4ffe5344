// SPDX-License-Identifier: MIT
/*
 * A verdict's times from the untraced iterations. Its shares come from
 * the traced ones (only they were traced), but being traced slows a
 * target down, and by more on one that makes more syscalls and context
 * switches per byte: the time a target adds over its baseline is told as
 * the untraced iterations had it, each target's traced time per call
 * scaled by its untraced/traced ratio (analyse.c, untraced_scale), with
 * the traced figure beside it.
 */
#include <stdio.h>

#include "../common/fmt_ci.h"
#include "../common/fmt_time.h"
#include "analysis.h"

/* a's time per call, or per what its wait counts as its calls. */
static double per_call(const struct attribution *a)
{
	return wait_per_call(&a->wait, a->wait.total_ns);
}

int verdict_slower(char *buf, size_t len, const struct attribution *a,
		   const struct attribution *b, double total, const char *opn,
		   bool names)
{
	double base = per_call(b), bu, du;
	char on[2 * NAME_LEN + 16], t[32], u[32];

	if (names)
		snprintf(on, sizeof(on), "on %s than on %s", a->target,
			 b->target);
	else
		snprintf(on, sizeof(on), "than %s", b->target);
	fmt_ns(t, sizeof(t), total);
	if (a->untraced_scale <= 0 || b->untraced_scale <= 0 || base <= 0)
		return snprintf(buf, len, "%.0f %% slower %s (+%s per %s)",
				base > 0 ? 100.0 * total / base : 0.0, on, t,
				opn);
	bu = base * b->untraced_scale;
	du = per_call(a) * a->untraced_scale - bu;
	fmt_ns(u, sizeof(u), du);
	if (du <= 0)
		return snprintf(buf, len,
				"%.0f %% slower %s traced (+%s per %s; "
				"untraced %s)",
				100.0 * total / base, on, t, opn, u);
	return snprintf(buf, len,
			"%.0f %% slower %s (+%s per %s untraced, +%s traced)",
			100.0 * du / bu, on, u, opn, t);
}

double verdict_untraced_factor(const struct attribution *a,
			       const struct attribution *b, double total)
{
	double bu, du;

	if (!b || total <= 0 || a->untraced_scale <= 0 ||
	    b->untraced_scale <= 0)
		return 1.0;
	bu = per_call(b) * b->untraced_scale;
	du = per_call(a) * a->untraced_scale - bu;
	return du > 0 ? du / total : 1.0;
}

void verdict_observer_evidence(const struct attribution *a,
			       const struct result *x, struct verdict *v)
{
	char ci[FMT_CI_LEN];

	if (!a->traced_slower || !x)
		return;
	verdict_add_evidence(
		v,
		"the traced iterations' %s was beyond the "
		"untraced ones' 95 %% interval (tracing added "
		"%.1f %% %s): the shares are of the traced time",
		x->metric.name, x->obs.added_pct,
		fmt_ci(ci, sizeof(ci), x->obs.added_ci95_pct, 1, true));
}
