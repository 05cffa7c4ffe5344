// SPDX-License-Identifier: MIT
/*
 * The run as OpenMetrics text for node_exporter's textfile collector, so
 * that a fleet's Prometheus collects every machine's runs: each result's
 * mean and interval and each penalty and its interval as gauges, each
 * layer's log2 latency histogram as a histogram in seconds (cumulative
 * buckets at the slots' upper bounds). Labels: host, kernel, target,
 * workload, and metric or op and layer (and workload_job for a part of
 * a workload traced apart, a fio job). Values are only formatted here.
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_priv.h"
#include "report.h"
#include "../stats/stats.h"

/* A label value: backslash, double quote and newline escaped. */
static void label(FILE *out, const char *name, const char *value, bool first)
{
	fprintf(out, "%s%s=\"", first ? "" : ",", name);
	for (; *value; value++) {
		if (*value == '\\' || *value == '"')
			fprintf(out, "\\%c", *value);
		else if (*value == '\n')
			fputs("\\n", out);
		else
			fputc(*value, out);
	}
	fputc('"', out);
}

static void host_labels(FILE *out, const struct results *r, const char *target,
			const char *workload)
{
	label(out, "host", r->meta.hostname, true);
	label(out, "kernel", r->meta.caps.kernel, false);
	label(out, "target", target, false);
	label(out, "workload", workload, false);
}

/* NaN is a valid sample value in the text format. */
static void value(FILE *out, double v)
{
	if (isnan(v))
		fputs(" NaN\n", out);
	else if (isinf(v))
		fputs(v > 0 ? " +Inf\n" : " -Inf\n", out);
	else
		fprintf(out, " %.17g\n", v);
}

static void family(FILE *out, const char *name, const char *type,
		   const char *help)
{
	fprintf(out, "# TYPE %s %s\n# HELP %s %s\n", name, type, name, help);
}

static void result_gauge(FILE *out, const struct results *r, const char *name,
			 int which)
{
	for (int i = 0; i < r->nr_results && i < MAX_RESULTS; i++) {
		const struct result *x = &r->results[i];
		const double v[3] = {x->s.mean, x->s.ci95[0], x->s.ci95[1]};

		fprintf(out, "%s{", name);
		host_labels(out, r, x->target, x->workload);
		label(out, "metric", x->metric.name, false);
		label(out, "unit", x->metric.unit, false);
		fputc('}', out);
		value(out, v[which]);
	}
}

static void penalty_gauge(FILE *out, const struct results *r, const char *name,
			  int which)
{
	for (int i = 0; i < r->nr_comparisons && i < MAX_RESULTS; i++) {
		const struct comparison *c = &r->comparisons[i];
		/* Ratios, Prometheus's base unit for shares. */
		const double v[3] = {c->penalty_pct / 100,
				     c->penalty_ci95_pct[0] / 100,
				     c->penalty_ci95_pct[1] / 100};

		/* Served from the page cache, or written into it: no
		 * penalty is claimed. */
		if (report_not_disk(c))
			continue;
		fprintf(out, "%s{", name);
		host_labels(out, r, c->target, c->workload);
		label(out, "metric", c->metric, false);
		label(out, "baseline", c->baseline, false);
		fputc('}', out);
		value(out, v[which]);
	}
}

/* name_suffix{host,...,op,layer[,le]} */
static void layer_series(FILE *out, const char *name, const char *suffix,
			 const struct results *r, const struct attribution *a,
			 int layer, const char *le)
{
	fprintf(out, "%s%s{", name, suffix);
	host_labels(out, r, a->target, a->workload);
	/* A part traced apart (a fio job); not "job", Prometheus' own. */
	if (a->job[0])
		label(out, "workload_job", a->job, false);
	label(out, "op", op_name(a->op), false);
	label(out, "layer", layer_name(layer), false);
	if (le)
		label(out, "le", le, false);
	fputc('}', out);
}

static void histogram(FILE *out, const struct results *r)
{
	static const char name[] = "encbench_layer_latency_seconds";

	family(out, name, "histogram",
	       "Latency of one item in a layer (log2 slots of the tracer).");
	for (int i = 0; i < r->nr_attrib && i < MAX_ATTRIB; i++) {
		const struct attribution *a = &r->attrib[i];

		for (int l = 0; l < NR_LAYERS; l++) {
			const struct layer_result *lr = &a->layers[l];
			uint64_t cum = 0, total = 0;

			for (int s = 0; s < HIST_SLOTS; s++)
				total += lr->slots[s];
			if (!layer_has_figures(lr) || !total)
				continue;
			/* The same buckets for every series, so that a fleet's
			 * histograms add up: slot s holds [2^s, 2^(s+1)) ns,
			 * its bound 2^(s+1) is its "le"; the last slot is
			 * open-ended and only +Inf holds it. */
			for (int s = 0; s < HIST_SLOTS - 1; s++) {
				char le[32];

				cum += lr->slots[s];
				snprintf(le, sizeof(le), "%.17g",
					 (double)hist_slot_high(s) / 1e9);
				layer_series(out, name, "_bucket", r, a, l, le);
				fprintf(out, " %" PRIu64 "\n", cum);
			}
			layer_series(out, name, "_bucket", r, a, l, "+Inf");
			fprintf(out, " %" PRIu64 "\n", total);
			layer_series(out, name, "_count", r, a, l, NULL);
			fprintf(out, " %" PRIu64 "\n", total);
			layer_series(out, name, "_sum", r, a, l, NULL);
			value(out, (double)lr->sum_ns / 1e9);
		}
	}
}

/* tune: each ranked variant's penalty on the score, and its rank. */
static void tune_series(FILE *out, const struct results *r)
{
	static const char *const name[4] = {
		"encbench_tune_penalty_ratio",
		"encbench_tune_penalty_ci95_low_ratio",
		"encbench_tune_penalty_ci95_high_ratio", "encbench_tune_rank"};
	static const char *const help[4] = {
		"A tune variant's penalty against plain on the ranking score.",
		"Low end of its 95 % interval (Fieller; NaN: unbounded).",
		"High end of its 95 % interval (Fieller; NaN: unbounded).",
		"Its rank, 1 the best; variants no interval separates from the best share 1."};
	const struct tune_result *tr = &r->tune;

	for (int k = 0; k < 4; k++) {
		family(out, name[k], "gauge", help[k]);
		for (int i = 0; i < tr->nr_variants && i < MAX_VARIANTS; i++) {
			const struct tune_variant *v = &tr->v[i];
			const double x[4] = {v->penalty_pct / 100,
					     v->penalty_ci95_pct[0] / 100,
					     v->penalty_ci95_pct[1] / 100,
					     v->rank};

			if (!v->ranked)
				continue;
			fprintf(out, "%s{", name[k]);
			host_labels(out, r, v->name, tr->workload);
			label(out, "kind", tr->kind, false);
			label(out, "axis", v->axis, false);
			label(out, "settings", v->settings, false);
			fputc('}', out);
			value(out, x[k]);
		}
	}
}

static void write_metrics(FILE *out, const struct results *r)
{
	static const struct {
		const char *name, *help;
	} res[3] = {{"encbench_result_mean",
		     "Mean of the iterations of a metric (unit label)."},
		    {"encbench_result_ci95_low",
		     "Low end of the 95 % confidence interval of the mean."},
		    {"encbench_result_ci95_high",
		     "High end of the 95 % confidence interval of the mean."}},
	  pen[3] = {{"encbench_penalty_ratio",
		     "How much worse than the baseline, as a fraction "
		     "(0.5 = 50 % worse)."},
		    {"encbench_penalty_ci95_low_ratio",
		     "Low end of the penalty's 95 % interval (Fieller's, of "
		     "the ratio of means; NaN: unbounded)."},
		    {"encbench_penalty_ci95_high_ratio",
		     "High end of the penalty's 95 % interval (Fieller's, of "
		     "the ratio of means; NaN: unbounded)."}};

	for (int k = 0; k < 3; k++) {
		family(out, res[k].name, "gauge", res[k].help);
		result_gauge(out, r, res[k].name, k);
	}
	for (int k = 0; k < 3; k++) {
		family(out, pen[k].name, "gauge", pen[k].help);
		penalty_gauge(out, r, pen[k].name, k);
	}
	histogram(out, r);
	if (r->tune.on)
		tune_series(out, r);
	fputs("# EOF\n", out);
}

static int build_metrics(FILE *out, const void *r)
{
	write_metrics(out, r);
	return 0;
}

int report_write_prometheus(const struct results *r, const char *path)
{
	char dirbuf[PATH_LEN], namebuf[PATH_LEN];

	snprintf(dirbuf, sizeof(dirbuf), "%s", path);
	snprintf(namebuf, sizeof(namebuf), "%s", path);
	return report_write_built(dirname(dirbuf), basename(namebuf),
				  build_metrics, r);
}
