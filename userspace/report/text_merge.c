// SPDX-License-Identifier: MIT
/*
 * `merge` on the terminal: runs from several machines in one table, one
 * column per host. Per workload and metric, each target's mean +- sd, then
 * each penalty with its 95 % interval; a run without that row shows "-".
 */
#include <stdio.h>
#include <string.h>

#include "report_priv.h"
#include "report.h"
#include "../common/fmt_ci.h"

#define COL_ROW	 28
#define COL_HOST 30

struct key {
	const char *workload, *metric, *target;
};

static const struct result *result_of(const struct results *r,
				      const struct key *k)
{
	for (int i = 0; i < r->nr_results && i < MAX_RESULTS; i++) {
		const struct result *x = &r->results[i];

		if (!strcmp(x->workload, k->workload) &&
		    !strcmp(x->metric.name, k->metric) &&
		    !strcmp(x->target, k->target))
			return x;
	}
	return NULL;
}

static const struct comparison *cmp_of(const struct results *r,
				       const struct key *k)
{
	for (int i = 0; i < r->nr_comparisons && i < MAX_RESULTS; i++) {
		const struct comparison *c = &r->comparisons[i];

		if (!strcmp(c->workload, k->workload) &&
		    !strcmp(c->metric, k->metric) &&
		    !strcmp(c->target, k->target))
			return c;
	}
	return NULL;
}

/* Has an earlier (run, result) already given this key? */
static bool seen_before(const struct results *const *runs, int run, int idx,
			const struct key *k)
{
	for (int i = 0; i <= run; i++) {
		int end = i == run ? idx : runs[i]->nr_results;

		for (int j = 0; j < end && j < MAX_RESULTS; j++) {
			const struct result *x = &runs[i]->results[j];

			if (!strcmp(x->workload, k->workload) &&
			    !strcmp(x->metric.name, k->metric) &&
			    !strcmp(x->target, k->target))
				return true;
		}
	}
	return false;
}

/* A host's cell: padded, but the last one ends the line unpadded. */
static void put_cell(FILE *out, const char *text, bool last)
{
	if (last)
		fprintf(out, "%s\n", text);
	else
		fprintf(out, "%-*s", COL_HOST, text);
}

static void print_row(const struct results *const *runs, int n,
		      const struct key *k, FILE *out)
{
	char label[NAME_LEN * 2 + 4], cell[64];

	snprintf(label, sizeof(label), "%s %s", k->metric, k->target);
	fprintf(out, "%-*s", COL_ROW, label);
	for (int i = 0; i < n; i++) {
		const struct result *x = result_of(runs[i], k);

		snprintf(cell, sizeof(cell), "-");
		if (x)
			snprintf(cell, sizeof(cell), "%.*f +-%.*f %s",
				 report_decimals(x->s.mean) + 1, x->s.mean,
				 report_decimals(x->s.sd) + 1, x->s.sd,
				 x->metric.unit);
		put_cell(out, cell, i == n - 1);
	}
}

static void print_penalty_row(const struct results *const *runs, int n,
			      const struct key *k, FILE *out)
{
	char label[NAME_LEN * 2 + 16], cell[64];
	bool any = false;

	for (int i = 0; i < n; i++)
		any |= cmp_of(runs[i], k) != NULL;
	if (!any)
		return;
	snprintf(label, sizeof(label), "  penalty %s", k->target);
	fprintf(out, "%-*s", COL_ROW, label);
	for (int i = 0; i < n; i++) {
		const struct comparison *c = cmp_of(runs[i], k);
		char ci[FMT_CI_LEN];

		snprintf(cell, sizeof(cell), "-");
		/* Not disk figures: no penalty is claimed (text.c). */
		if (c && report_not_disk(c))
			snprintf(cell, sizeof(cell), "%s: not a disk figure",
				 report_not_disk(c));
		else if (c)
			snprintf(cell, sizeof(cell), "%s%+.1f %% %s",
				 c->significant ? "" : "~", c->penalty_pct,
				 fmt_ci(ci, sizeof(ci), c->penalty_ci95_pct, 1,
					true));
		put_cell(out, cell, i == n - 1);
	}
}

void report_print_merged(const struct results *const *runs, int n, FILE *out)
{
	const char *last_wl = "";

	fprintf(out, "Merged runs\n");
	for (int i = 0; i < n; i++)
		fprintf(out, "  %s: kernel %s, %s, started %s\n",
			runs[i]->meta.hostname, runs[i]->meta.caps.kernel,
			runs[i]->meta.cpu_model, runs[i]->meta.started);
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < runs[i]->nr_results && j < MAX_RESULTS;
		     j++) {
			const struct result *x = &runs[i]->results[j];
			struct key k = {x->workload, x->metric.name, x->target};

			if (seen_before(runs, i, j, &k))
				continue;
			if (strcmp(last_wl, x->workload)) {
				fprintf(out, "\n%s: mean +- sd per host\n%-*s",
					x->workload, COL_ROW, "metric target");
				for (int h = 0; h < n; h++)
					put_cell(out, runs[h]->meta.hostname,
						 h == n - 1);
				last_wl = x->workload;
			}
			print_row(runs, n, &k, out);
			print_penalty_row(runs, n, &k, out);
		}
	}
	fprintf(out, "\npenalty: against each host's own baseline, 95 %% CI "
		     "of the ratio of means (Fieller); ~ marks one that is "
		     "not significant.\n");
}
