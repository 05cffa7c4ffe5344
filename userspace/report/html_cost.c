// SPDX-License-Identifier: MIT
/*
 * report.html's part of what tracing cost: the warning in the header
 * where tracing added more than OBSERVER_WARN_PCT % to a metric, and a
 * section with the observer effect per target and metric and each
 * phase's BPF program run counts and run times (as text_cost.c).
 */
#include <stdio.h>

#include "report.h"
#include "report_priv.h"
#include "../common/fmt_ci.h"
#include "../common/fmt_time.h"

/* out gets "<td>escaped text</td>". */
static void td(FILE *out, const char *text)
{
	fputs("<td>", out);
	report_html_escape(out, text);
	fputs("</td>", out);
}

void report_html_observer_warning(FILE *out, const struct results *r)
{
	char line[DETAIL_LEN * 2], ci[FMT_CI_LEN];

	for (int i = 0; i < r->nr_results && i < MAX_RESULTS; i++) {
		const struct result *x = &r->results[i];

		if (!report_observer_warns(x))
			continue;
		snprintf(line, sizeof(line),
			 "Tracing added %.1f %% %s to %s %s %s "
			 "(traced/untraced %.3f); the figures are the untraced "
			 "iterations'.",
			 x->obs.added_pct,
			 fmt_ci(ci, sizeof(ci), x->obs.added_ci95_pct, 1, true),
			 x->target, x->workload, x->metric.name, x->obs.ratio);
		fputs("<p class=\"warning\">", out);
		report_html_escape(out, line);
		fputs("</p>\n", out);
	}
}

static void observer_rows(FILE *out, const struct results *r)
{
	char buf[96], ci[FMT_CI_LEN];

	for (int i = 0; i < r->nr_results && i < MAX_RESULTS; i++) {
		const struct result *x = &r->results[i];
		const struct observer *o = &x->obs;

		if (!x->nr_traced)
			continue;
		fputs("<tr>", out);
		td(out, x->target);
		td(out, x->workload);
		td(out, x->metric.name);
		if (o->measured) {
			snprintf(buf, sizeof(buf), "%.3f %s", o->ratio,
				 fmt_ci(ci, sizeof(ci), o->ratio_ci95, 3,
					false));
			td(out, buf);
			snprintf(buf, sizeof(buf), "%+.1f %% %s%s",
				 o->added_pct,
				 fmt_ci(ci, sizeof(ci), o->added_ci95_pct, 1,
					true),
				 o->beyond_ci ? " (beyond the untraced CI)"
					      : "");
			td(out, buf);
		} else {
			td(out, "not measured");
			td(out, "");
		}
		fprintf(out,
			"<td class=\"num\">%d</td><td class=\"num\">%d"
			"</td></tr>\n",
			x->nr_traced, x->nr_samples);
	}
}

static void cost_rows(FILE *out, const struct results *r)
{
	char t[FMT_NS_LEN], per[FMT_NS_LEN], buf[64];

	for (int i = 0; i < r->nr_costs && i < MAX_TARGETS * MAX_WORKLOADS;
	     i++) {
		const struct tracer_cost *c = &r->costs[i];

		for (int k = 0; k < c->nr_progs && k < MAX_COST_PROGS; k++) {
			const struct prog_cost *p = &c->progs[k];

			if (!p->run_cnt)
				continue;
			fputs("<tr>", out);
			td(out, c->target);
			td(out, c->workload);
			td(out, p->name);
			fprintf(out, "<td class=\"num\">%llu</td>",
				(unsigned long long)p->run_cnt);
			td(out, fmt_ns(t, sizeof(t), (double)p->run_time_ns));
			td(out, fmt_ns(per, sizeof(per),
				       c->ops ? (double)p->run_time_ns /
							(double)c->ops
					      : 0.0));
			snprintf(buf, sizeof(buf), "%.2f",
				 c->ops ? (double)p->run_cnt / (double)c->ops
					: 0.0);
			td(out, buf);
			fputs("</tr>\n", out);
		}
	}
}

void report_html_costs(FILE *out, const struct results *const *runs, int n)
{
	fputs("<section id=\"observer\"><h2>What tracing cost</h2>\n"
	      "<p>The figures above come from untraced iterations; the "
	      "attribution from traced ones apart. Traced against untraced, "
	      "per target and metric (95 % CI, Fieller's):</p>\n<table>\n"
	      "<tr><th>target</th><th>workload</th><th>metric</th>"
	      "<th>traced/untraced</th><th>tracing added</th>"
	      "<th>traced</th><th>untraced</th></tr>\n",
	      out);
	for (int i = 0; i < n; i++)
		observer_rows(out, runs[i]);
	fputs("</table>\n<p>Each BPF program over one traced iteration (the "
	      "kernel's run counts and run times, BPF_ENABLE_STATS), per "
	      "traced syscall of the workload:</p>\n<table>\n"
	      "<tr><th>target</th><th>workload</th><th>program</th>"
	      "<th>runs</th><th>run time</th><th>per op</th>"
	      "<th>runs per op</th></tr>\n",
	      out);
	for (int i = 0; i < n; i++)
		cost_rows(out, runs[i]);
	fputs("</table></section>\n", out);
}
