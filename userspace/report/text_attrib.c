// SPDX-License-Identifier: MIT
/*
 * Section (b) of the text report: for each target and op, one row per
 * layer (count, mean, p99, busy share of the syscall's time, source), the
 * closure and its residue. Unavailable layers are listed with the reason,
 * never left out. The busy share is the one ratio computed here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../common/fmt_time.h"
#include "report_priv.h"
#include "report.h"

static void print_layer(const struct layer_result *l, uint64_t sc_busy,
			FILE *out)
{
	char mean[32], p99[32], busy[16];

	if (!layer_has_figures(l)) {
		/* A file from before "reason" has the why in its source. */
		fprintf(out, "  %-13s %8s %10s %10s %7s  %s%s%s\n",
			layer_name(l->layer), "-", "-", "-", "-",
			l->reason[0] ? layer_state_name(l->state) : "",
			l->reason[0] ? ": " : "",
			l->reason[0] ? l->reason : l->source);
		return;
	}
	if (sc_busy)
		snprintf(busy, sizeof(busy), "%.1f",
			 100.0 * (double)l->busy_ns / (double)sc_busy);
	else
		snprintf(busy, sizeof(busy), "-");
	/* CPU time from samples (crypt without fentry or kprobe): a total,
	 * no items, so no mean or p99. */
	if (!l->count && l->sum_ns) {
		fprintf(out, "  %-13s %8s %10s %10s %7s  %s\n",
			layer_name(l->layer), "-", "-", "-", busy, l->source);
		fprintf(out, "  %-13s %8s CPU time %s from samples, no items\n",
			"", "", fmt_ns(mean, sizeof(mean), (double)l->sum_ns));
		return;
	}
	/* A derived layer has a mean but no histogram, so no p99. */
	if (l->state == LAYER_DERIVED)
		snprintf(p99, sizeof(p99), "-");
	else
		fmt_ns(p99, sizeof(p99), l->p99_ns);
	fprintf(out, "  %-13s %8" PRIu64 " %10s %10s %7s  %s\n",
		layer_name(l->layer), l->count,
		fmt_ns(mean, sizeof(mean), l->mean_ns), p99, busy, l->source);
}

/* Layers whose table of items in flight overflowed: their figures are
 * short, and the reader must know by how much. */
static void print_dropped(const struct attribution *a, FILE *out)
{
	const char *sep = "";
	bool any = false;

	for (int l = 0; l < NR_LAYERS; l++) {
		if (!a->layers[l].dropped)
			continue;
		if (!any)
			fprintf(out, "  dropped:");
		fprintf(out, "%s %s %" PRIu64, sep, layer_name(l),
			a->layers[l].dropped);
		sep = ",";
		any = true;
	}
	if (any)
		fprintf(out, " items the tracer could not follow (its table "
			     "of items in\n  flight was full); those layers' "
			     "count and busy time are short.\n");
}

static void print_attrib(const struct attribution *a, FILE *out)
{
	uint64_t sc_busy = a->layers[LAYER_SYSCALL].busy_ns;
	char mean[32];

	/* The syscall layer groups a family per op (ops.c's sys_table):
	 * say which, or "one write call" hides that fsync is one of them. */
	fprintf(out, "\n%s, %s%s%s, %s: %s calls take %s on average\n",
		a->target, a->workload, a->job[0] ? " job " : "", a->job,
		op_name(a->op), op_calls_of(a->op),
		fmt_ns(mean, sizeof(mean), a->syscall_mean_ns));
	fprintf(out, "  per-item latencies (items overlap: not shares):\n");
	fprintf(out, "  %-13s %8s %10s %10s %7s  %s\n", "layer", "count",
		"mean", "p99", "busy %", "source");
	for (int l = 0; l < NR_LAYERS; l++)
		print_layer(&a->layers[l], sc_busy, out);
	if (a->closure_pct <= 100.0)
		fprintf(out,
			"  closure: the layers below syscall cover %.1f %% of "
			"its time;\n  residue %.1f %% is in no measured "
			"layer.\n",
			a->closure_pct, 100.0 - a->closure_pct);
	else
		fprintf(out,
			"  closure: the layers below syscall add up to %.1f %% "
			"of its time;\n  residue %.1f %%: they overlap, or "
			"count work the caller did not wait for.\n",
			a->closure_pct, 100.0 - a->closure_pct);
	if (a->missed_events)
		fprintf(out,
			"  missed: the kernel skipped %" PRIu64 " tracer runs "
			"(nested on a CPU); counts may be short by as many.\n",
			a->missed_events);
	print_dropped(a, out);
	if (a->layers[LAYER_DEVICE].unseen)
		fprintf(out,
			"  unseen: %" PRIu64 " device requests ended where the "
			"kernel ran no tracer\n  program; the kernel counted "
			"them, their latency is not in the figures.\n",
			a->layers[LAYER_DEVICE].unseen);
	report_print_wait(a, out);
}

void report_print_attribution(const struct results *r, FILE *out)
{
	fprintf(out, "\nWhere the time goes\n");
	if (!r->meta.tracing) {
		fprintf(out, "  attribution is off: %s\n",
			r->meta.tracing_detail[0] ? r->meta.tracing_detail
						  : "no reason recorded");
		return;
	}
	if (r->nr_attrib <= 0) {
		fprintf(out, "  no attribution was recorded\n");
		return;
	}
	fprintf(out, "  busy %% = share of the syscall's wall time during "
		     "which the layer\n  had work in flight\n");
	for (int i = 0; i < r->nr_attrib && i < MAX_ATTRIB; i++)
		print_attrib(&r->attrib[i], out);
}
