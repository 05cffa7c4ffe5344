// SPDX-License-Identifier: MIT
/*
 * What tracing cost, in the text report: the warning on the first screen
 * where the traced iterations were significantly more than
 * OBSERVER_WARN_PCT % slower than the untraced ones, and in the details the
 * observer effect of every target and metric and each traced phase's program
 * runs and run times.
 */
#include <stdio.h>
#include <string.h>

#include "report_priv.h"
#include "../common/fmt_ci.h"
#include "../common/fmt_time.h"

/* Lines of warnings before "and N more". */
#define MAX_WARNINGS 6

bool report_observer_warns(const struct result *x)
{
	return x->obs.measured && x->obs.significant &&
	       x->obs.added_pct > OBSERVER_WARN_PCT;
}

void report_print_observer_warning(const struct results *r, FILE *out)
{
	int n = 0;

	for (int i = 0; i < r->nr_results && i < MAX_RESULTS; i++) {
		const struct result *x = &r->results[i];
		char ci[FMT_CI_LEN];

		if (!report_observer_warns(x))
			continue;
		if (n++ < MAX_WARNINGS)
			fprintf(out,
				"WARNING: tracing added %.1f %% %s to %s %s %s "
				"(traced/untraced %.3f); the figures are the "
				"untraced iterations'\n",
				x->obs.added_pct,
				fmt_ci(ci, sizeof(ci), x->obs.added_ci95_pct, 1,
				       true),
				x->target, x->workload, x->metric.name,
				x->obs.ratio);
	}
	if (n > MAX_WARNINGS)
		fprintf(out,
			"WARNING: ... and %d more (see \"Observer effect\")\n",
			n - MAX_WARNINGS);
}

void report_print_observer_line(const struct results *r, FILE *out)
{
	const struct result *worst = NULL;
	char ci[FMT_CI_LEN];
	int n = 0;

	for (int i = 0; i < r->nr_results && i < MAX_RESULTS; i++) {
		const struct result *x = &r->results[i];

		if (!report_observer_warns(x))
			continue;
		n++;
		if (!worst || x->obs.added_pct > worst->obs.added_pct)
			worst = x;
	}
	if (worst)
		fprintf(out,
			"WARNING: tracing added more than %.0f %% to %d "
			"metric%s (most: %s %s %s, +%.1f %% %s); the figures "
			"are the untraced iterations'\n",
			OBSERVER_WARN_PCT, n, n == 1 ? "" : "s", worst->target,
			worst->workload, worst->metric.name,
			worst->obs.added_pct,
			fmt_ci(ci, sizeof(ci), worst->obs.added_ci95_pct, 1,
			       true));
}

void report_print_observer(const struct results *r, FILE *out)
{
	bool any = false;

	for (int i = 0; i < r->nr_results && i < MAX_RESULTS; i++) {
		const struct result *x = &r->results[i];
		const struct observer *o = &x->obs;
		char ratio[FMT_CI_LEN], added[FMT_CI_LEN];

		if (!x->nr_traced)
			continue;
		if (!any)
			fprintf(out,
				"\nObserver effect (traced iterations against "
				"the untraced ones that give the figures;\n"
				"added: what tracing added to the time, "
				"95 %% CI (Fieller); * traced mean beyond the "
				"untraced 95 %% CI)\n");
		any = true;
		if (!o->measured) {
			fprintf(out,
				"  %s %s %s: not measured (%d untraced, %d "
				"traced: 2 of each needed)\n",
				x->target, x->workload, x->metric.name,
				x->nr_samples, x->nr_traced);
			continue;
		}
		fprintf(out,
			"  %s %s %s: traced/untraced %.3f %s, added %+.1f %% "
			"%s%s%s (%d traced, %d untraced)\n",
			x->target, x->workload, x->metric.name, o->ratio,
			fmt_ci(ratio, sizeof(ratio), o->ratio_ci95, 3, false),
			o->added_pct,
			fmt_ci(added, sizeof(added), o->added_ci95_pct, 1,
			       true),
			o->significant ? "" : " ~", o->beyond_ci ? " *" : "",
			x->nr_traced, x->nr_samples);
	}
}

static void print_cost(const struct tracer_cost *c, FILE *out)
{
	char t[FMT_NS_LEN], per[FMT_NS_LEN];

	if (!c->measured) {
		fprintf(out, "  %s %s: not measured: %s\n", c->target,
			c->workload, c->why);
		return;
	}
	fmt_ns(t, sizeof(t), (double)c->run_time_ns);
	fmt_ns(per, sizeof(per),
	       c->ops ? (double)c->run_time_ns / (double)c->ops : 0.0);
	fprintf(out,
		"  %s %s%s%s (iteration %d, %.2f s traced): %llu program runs, "
		"%s of program time (%.1f %% of one CPU); %llu syscalls: %.1f "
		"events and %s per op; %llu events dropped\n",
		c->target, c->workload, c->job[0] ? " " : "", c->job,
		c->iteration, c->wall_s, (unsigned long long)c->runs, t,
		c->wall_s > 0 ? (double)c->run_time_ns / (c->wall_s * 1e7)
			      : 0.0,
		(unsigned long long)c->ops,
		c->ops ? (double)c->runs / (double)c->ops : 0.0, per,
		(unsigned long long)c->dropped);
	for (int i = 0; i < c->nr_progs && i < MAX_COST_PROGS; i++) {
		const struct prog_cost *p = &c->progs[i];

		if (!p->run_cnt)
			continue;
		fmt_ns(t, sizeof(t), (double)p->run_time_ns);
		fmt_ns(per, sizeof(per),
		       (double)p->run_time_ns / (double)p->run_cnt);
		fprintf(out, "    %-28s %10llu runs %10s %9s per run%s\n",
			p->name, (unsigned long long)p->run_cnt, t, per,
			p->misses ? " (some missed)" : "");
	}
}

void report_print_costs(const struct results *r, FILE *out)
{
	if (r->nr_costs > 0)
		fprintf(out, "\nTracer cost (the kernel's run counts and run "
			     "times of each BPF program over one traced "
			     "iteration, BPF_ENABLE_STATS)\n");
	for (int i = 0; i < r->nr_costs && i < MAX_TARGETS * MAX_WORKLOADS; i++)
		print_cost(&r->costs[i], out);
}
