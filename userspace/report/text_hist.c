// SPDX-License-Identifier: MIT
/*
 * Section (c) of the text report: log2 latency histograms in the layout of
 * bcc's biolatency, which readers of kernel latency data already know
 * ("     usecs               : count    distribution", then one row per
 * slot: "low -> high : count |****    |" with a 40-column bar).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report_priv.h"
#include "report.h"
#include "../stats/stats.h"

#define STARS 40

struct hist_unit {
	double div;
	const char *name;
};

/*
 * The largest unit in which the first row still reads 1 or more: two
 * decimals then tell every row apart, and long tails just get wider.
 */
static struct hist_unit pick_unit(int first)
{
	static const struct hist_unit u[] = {
		{1e9, "secs"}, {1e6, "msecs"}, {1e3, "usecs"}};
	double low = (double)hist_slot_low(first);

	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (low >= u[i].div)
			return u[i];
	return (struct hist_unit){1, "nsecs"};
}

static void fmt_bound(uint64_t ns, struct hist_unit u, char *buf, size_t len)
{
	double v = (double)ns / u.div;

	if (ns == UINT64_MAX)
		snprintf(buf, len, "inf");
	else if (u.div == 1)
		snprintf(buf, len, "%" PRIu64, ns);
	else
		snprintf(buf, len, "%.*f", report_decimals(v), v);
}

static void print_hist(const struct attribution *a,
		       const struct layer_result *l, FILE *out)
{
	int first = -1, last = -1;
	uint64_t max = 0;
	struct hist_unit u;

	for (int s = 0; s < HIST_SLOTS; s++) {
		if (!l->slots[s])
			continue;
		first = first < 0 ? s : first;
		last = s;
		max = l->slots[s] > max ? l->slots[s] : max;
	}
	if (first < 0)
		return;
	u = pick_unit(first);
	fprintf(out, "\n%s, %s%s%s, %s, layer %s (%s):\n", a->target,
		a->workload, a->job[0] ? " job " : "", a->job, op_name(a->op),
		layer_name(l->layer), u.name);
	fprintf(out, "%*s%-*s : count    distribution\n", 5, "", 19, u.name);
	for (int s = first; s <= last; s++) {
		char lo[24], hi[24], bar[STARS + 1];
		uint64_t high = hist_slot_high(s);
		int n = (int)((double)l->slots[s] * STARS / (double)max);

		fmt_bound(hist_slot_low(s), u, lo, sizeof(lo));
		/* nsecs are exact integers: show the inclusive top, as
		 * biolatency does ("2 -> 3"). */
		fmt_bound(u.div == 1 && high != UINT64_MAX ? high - 1 : high, u,
			  hi, sizeof(hi));
		memset(bar, '*', (size_t)n);
		memset(bar + n, ' ', (size_t)(STARS - n));
		bar[STARS] = '\0';
		fprintf(out, "%10s -> %-10s : %-8" PRIu64 " |%s|\n", lo, hi,
			l->slots[s], bar);
	}
}

void report_print_histograms(const struct results *r, FILE *out)
{
	bool heading = false;

	if (!r->meta.tracing)
		return;
	for (int i = 0; i < r->nr_attrib && i < MAX_ATTRIB; i++)
		for (int l = 0; l < NR_LAYERS; l++) {
			const struct layer_result *lr = &r->attrib[i].layers[l];
			bool empty = true;

			for (int s = 0; s < HIST_SLOTS && empty; s++)
				empty = !lr->slots[s];
			if (empty)
				continue;
			if (!heading)
				fprintf(out, "\nLatency histograms (log2 "
					     "slots; slot i holds [2^i, "
					     "2^(i+1)) ns)\n");
			heading = true;
			print_hist(&r->attrib[i], lr, out);
		}
}
