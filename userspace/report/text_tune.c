// SPDX-License-Identifier: MIT
/*
 * `tune`'s ranking on the terminal: one row per variant, best first, its
 * penalty against plain with the interval, "=" where no interval
 * separates variants of one rank, and under each row the time it adds
 * per call split by what the caller waited for; then what was skipped
 * and why, and the recommendation with its command and caveat.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_priv.h"
#include "../common/fmt_ci.h"
#include "../common/fmt_time.h"

static bool rank_shared(const struct tune_result *tr, int i)
{
	for (int j = 0; j < tr->nr_variants; j++)
		if (j != i && tr->v[j].ranked && tr->v[j].rank == tr->v[i].rank)
			return true;
	return false;
}

/* "read +1.20 ms/call: crypt +800 us, crypt-queue +300 us, fs +100 us" */
static void print_added(const struct tune_added_op *o, FILE *out)
{
	char a[FMT_NS_LEN], b[FMT_NS_LEN];
	bool used[NR_LAYERS] = {0};

	fprintf(out, "          %-5s %s%s/call:", op_name(o->op),
		o->added_ns >= 0 ? "+" : "", fmt_ns(a, sizeof(a), o->added_ns));
	for (int k = 0; k < TUNE_WAIT_PARTS; k++) {
		int top = -1;

		for (int l = LAYER_FS; l < NR_LAYERS; l++)
			if (!used[l] &&
			    (top < 0 ||
			     fabs(o->layer_ns[l]) > fabs(o->layer_ns[top])))
				top = l;
		if (top < 0 || fabs(o->layer_ns[top]) < 1)
			break;
		used[top] = true;
		fprintf(out, "%s %s %s%s", k ? "," : "", layer_name(top),
			o->layer_ns[top] >= 0 ? "+" : "",
			fmt_ns(b, sizeof(b), o->layer_ns[top]));
	}
	if (o->items_per_mib[LAYER_CRYPT] > 0)
		fprintf(out, "; %.1f crypt items/MiB",
			o->items_per_mib[LAYER_CRYPT]);
	if (o->cipher_calls_per_mib > 0)
		fprintf(out, ", %.0f cipher calls/MiB",
			o->cipher_calls_per_mib);
	fputc('\n', out);
}

static void print_row(const struct tune_result *tr, int i, FILE *out)
{
	const struct tune_variant *v = &tr->v[i];
	char ci[64], span[FMT_CI_LEN], name[NAME_LEN + 8];

	snprintf(name, sizeof(name), "%s%s", v->name,
		 v->reference ? " (ref)" : "");
	snprintf(ci, sizeof(ci), "%+.1f %% %s", v->penalty_pct,
		 fmt_ci(span, sizeof(span), v->penalty_ci95_pct, 1, true));
	fprintf(out, "  %3d%-1s %-34s %-30s %4d  %s\n", v->rank,
		rank_shared(tr, i) ? "=" : "", name, ci, v->runs,
		v->stopped_early   ? "stopped early: separated from the best"
		: v->cut_by_budget ? "its share of the budget ran out"
				   : "");
	fprintf(out, "          %s\n", v->settings);
	for (int k = 0; k < v->nr_ops && k < TUNE_OPS; k++)
		print_added(&v->ops[k], out);
}

/* Does variant b come after a in the table? */
static bool after(const struct tune_result *tr, int a, int b)
{
	const struct tune_variant *x = &tr->v[a], *y = &tr->v[b];

	if (x->rank != y->rank)
		return y->rank > x->rank;
	if (x->penalty_pct != y->penalty_pct)
		return y->penalty_pct > x->penalty_pct;
	return b > a;
}

/* The ranked variant after `prev` (-1: the first) by rank, then penalty,
 * then index; -1 after the last. */
static int next_row(const struct tune_result *tr, int prev)
{
	int best = -1;

	for (int i = 0; i < tr->nr_variants; i++) {
		const struct tune_variant *v = &tr->v[i];

		if (!v->ranked || (prev >= 0 && !after(tr, prev, i)))
			continue;
		if (best < 0 || after(tr, i, best))
			best = i;
	}
	return best;
}

static void print_advice(const struct tune_result *tr, FILE *out)
{
	const struct tune_advice *ad = &tr->advice;

	fprintf(out, "\nRecommendation: %s\n", ad->summary);
	if (!ad->have)
		return;
	fprintf(out, "  apply: %s\n", ad->command);
	fprintf(out, "  caveat: %s\n", ad->caveat);
}

void report_print_tune(const struct results *r, FILE *out)
{
	const struct tune_result *tr = &r->tune;
	char budget[32], spent[32];
	bool any = false;

	fmt_duration(budget, sizeof(budget), tr->budget_s);
	fmt_duration(spent, sizeof(spent), tr->spent_s);
	fprintf(out,
		"\nTune: %s%s%s%s%s, ranked by %s of %s per iteration (%s, "
		"%s is better) against %s\n",
		tr->kind, tr->cross[0][0] ? ", " : "", tr->cross[0],
		tr->cross[0][0] ? " x " : "", tr->cross[1], tr->score,
		tr->workload, tr->score_unit,
		tr->score_higher_is_better ? "higher" : "lower",
		r->nr_targets ? r->targets[0].name : "plain");
	if (tr->device[0])
		fprintf(out,
			"your device %s: its dm-crypt flags %s, restored after "
			"each variant was refreshed in\n",
			tr->device, tr->device_flags);
	fprintf(out, "budget %s, spent %s%s%s\n\n", budget, spent,
		tr->budget_out ? "; the budget ran out" : "",
		tr->interrupted ? "; interrupted: what finished is ranked"
				: "");
	/* "plain", or zfs-off: the baseline's name, padded the same. */
	fprintf(out,
		"  rank variant                            penalty vs %-5s "
		"[95 %% CI]   runs\n",
		r->nr_targets ? r->targets[0].name : "plain");
	for (int i = next_row(tr, -1); i >= 0; i = next_row(tr, i))
		print_row(tr, i, out);
	for (int i = 0; i < tr->nr_variants; i++) {
		const struct tune_variant *v = &tr->v[i];

		if (v->ranked)
			continue;
		if (!any)
			fprintf(out, "\n  not ranked:\n");
		any = true;
		fprintf(out, "    %s (%s): %s\n", v->name, v->settings,
			v->skipped[0]	 ? v->skipped
			: v->not_disk[0] ? v->not_disk
					 : "fewer than 2 runs of the ranking "
					   "workload");
	}
	print_advice(tr, out);
}
