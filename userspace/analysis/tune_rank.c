// SPDX-License-Identifier: MIT
/*
 * `tune`: rank the variants by the penalty of one score against the
 * plain baseline (Welch's test, Fieller's interval), mark the ones no
 * interval separates from the best, and split the time each adds per call
 * by what the caller waited for (the wait components of the attribution),
 * so that a flag's effect shows as the component it removes.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tune_rank.h"
#include "../common/fmt_ci.h"
#include "../stats/stats.h"

#define MiB (1024.0 * 1024.0)

static const struct result *nth_metric(const struct results *r,
				       const char *target, const char *workload,
				       int n)
{
	for (int i = 0; i < r->nr_results; i++) {
		const struct result *x = &r->results[i];

		if (!strcmp(x->target, target) &&
		    !strcmp(x->workload, workload) && n-- == 0)
			return x;
	}
	return NULL;
}

/* How many of target's first metrics of workload its score sums: all of
 * them where they share unit, direction and number of samples (dd's
 * write_s + read_s), else the first alone. */
static int score_width(const struct results *r, const char *target,
		       const char *workload)
{
	const struct result *first = nth_metric(r, target, workload, 0);
	const struct result *x;
	int m;

	if (!first)
		return 0;
	for (m = 1; (x = nth_metric(r, target, workload, m)); m++)
		if (strcmp(x->metric.unit, first->metric.unit) ||
		    x->metric.higher_is_better !=
			    first->metric.higher_is_better ||
		    x->nr_samples != first->nr_samples)
			return 1;
	return m;
}

int tune_score(const struct results *r, const char *target,
	       const char *workload, double *out, char *desc, size_t len,
	       char *unit, bool *higher)
{
	const struct result *first = nth_metric(r, target, workload, 0);
	const struct result *x;
	int n, width = score_width(r, target, workload);
	size_t k = 0;

	if (!first)
		return 0;
	n = first->nr_samples;
	if (desc && len)
		desc[0] = '\0';
	for (int i = 0; i < n; i++)
		out[i] = 0;
	for (int m = 0; m < width && (x = nth_metric(r, target, workload, m));
	     m++) {
		for (int i = 0; i < n; i++)
			out[i] += x->samples[i];
		if (desc && k < len)
			k += snprintf(desc + k, len - k, "%s%s", m ? " + " : "",
				      x->metric.name);
	}
	if (unit)
		snprintf(unit, NAME_LEN / 2, "%s", first->metric.unit);
	if (higher)
		*higher = first->metric.higher_is_better;
	return n;
}

/*
 * Why target's score is not a disk figure (false: it is one): a metric
 * in it read more than CACHED_PCT_MAX % from the page cache, or timed
 * writes into it (results.h). Such a score ranks memory, not the
 * setting: fio's random reads on an fscrypt variant without inline
 * encryption (O_DIRECT falls back to buffered I/O) re-read a file that
 * is then in the page cache.
 */
static bool score_not_disk(const struct results *r, const char *target,
			   char *why, size_t len)
{
	const char *wl = r->tune.workload;
	int width = score_width(r, target, wl);
	const struct result *x;

	for (int m = 0; m < width && (x = nth_metric(r, target, wl, m)); m++) {
		double pct = result_cached_pct(x);

		if (pct > CACHED_PCT_MAX) {
			snprintf(why, len,
				 "cached, not a disk figure: %.0f %% of the "
				 "bytes %s read came from the page cache",
				 pct, x->metric.name);
			return true;
		}
		if (x->page_cache_writes) {
			snprintf(why, len,
				 "buffered, not a disk figure: %s timed "
				 "writes into the page cache",
				 x->metric.name);
			return true;
		}
	}
	return false;
}

/* Whether v's score can be ranked against the baseline's: it ran, and
 * both are disk figures (why: the reason when not, if not skipped). */
static bool rankable(const struct results *r, const struct tune_variant *v,
		     char *why, size_t len)
{
	char base_why[DETAIL_LEN];

	why[0] = '\0';
	if (v->skipped[0])
		return false;
	if (score_not_disk(r, r->targets[0].name, base_why, sizeof(base_why))) {
		snprintf(why, len, "the baseline %s's score is %s",
			 r->targets[0].name, base_why);
		return false;
	}
	return !score_not_disk(r, v->name, why, len);
}

/* v's score against base's (Welch): false when either has < 2 values. */
static bool compare(const struct results *r, const char *base,
		    const char *target, struct comparison *c)
{
	static double a[MAX_SAMPLES], b[MAX_SAMPLES];
	const char *wl = r->tune.workload;
	bool higher;
	int na = tune_score(r, base, wl, a, NULL, 0, NULL, &higher);
	int nb = tune_score(r, target, wl, b, NULL, 0, NULL, &higher);

	memset(c, 0, sizeof(*c));
	if (na < 2 || nb < 2)
		return false;
	welch_compare(a, na, b, nb, higher, c);
	return isfinite(c->penalty_pct);
}

static int best_variant(const struct results *r, double *pct)
{
	const char *base = r->targets[0].name;
	char why[DETAIL_LEN];
	struct comparison c;
	int best = -1;

	for (int i = 0; i < r->tune.nr_variants; i++) {
		const struct tune_variant *v = &r->tune.v[i];

		if (!rankable(r, v, why, sizeof(why)) ||
		    !compare(r, base, v->name, &c))
			continue;
		if (best < 0 || c.penalty_pct < *pct) {
			best = i;
			*pct = c.penalty_pct;
		}
	}
	return best;
}

bool tune_separated_from_best(const struct results *r, const char *target,
			      char *best_name, double *best_pct)
{
	struct comparison c;
	double pct = 0;
	int best = best_variant(r, &pct);

	if (best < 0)
		return false;
	if (best_name)
		snprintf(best_name, NAME_LEN, "%s", r->tune.v[best].name);
	if (best_pct)
		*best_pct = pct;
	if (!strcmp(r->tune.v[best].name, target))
		return false;
	return compare(r, r->tune.v[best].name, target, &c) && c.significant &&
	       c.penalty_pct > 0;
}

static const struct attribution *attrib_of(const struct results *r,
					   const char *target, int op)
{
	for (int i = 0; i < r->nr_attrib; i++) {
		const struct attribution *a = &r->attrib[i];

		if (!strcmp(a->target, target) &&
		    !strcmp(a->workload, r->tune.workload) && a->op == op &&
		    a->wait.available && a->wait.syscalls)
			return a;
	}
	return NULL;
}

/* Per call: what v's calls of op waited for, minus the baseline's. */
static void added_wait(const struct results *r, struct tune_variant *v)
{
	const char *base = r->targets[0].name;

	v->nr_ops = 0;
	for (int op = 0; op < NR_OPS && v->nr_ops < TUNE_OPS; op++) {
		const struct attribution *a = attrib_of(r, v->name, op);
		const struct attribution *b = attrib_of(r, base, op);
		struct tune_added_op *o;
		double na, nb, mib;

		if (!a || !b)
			continue;
		o = &v->ops[v->nr_ops++];
		na = (double)a->wait.syscalls;
		nb = (double)b->wait.syscalls;
		mib = a->wait.dev_bytes / MiB;
		o->op = op;
		o->added_ns = a->wait.total_ns / na - b->wait.total_ns / nb;
		for (int l = 0; l < NR_LAYERS; l++) {
			o->layer_ns[l] =
				a->wait.ns[l] / na - b->wait.ns[l] / nb;
			o->items_per_mib[l] =
				mib > 0 && layer_has_figures(&a->layers[l])
					? a->layers[l].count / mib
					: 0;
		}
		o->cipher_calls_per_mib =
			mib > 0 ? a->layers[LAYER_CRYPT].calls / mib : 0;
	}
}

static void advise(struct results *r, int best)
{
	struct tune_advice *ad = &r->tune.advice;
	const struct tune_variant *b;
	char ci[FMT_CI_LEN];
	struct comparison c;
	int ref = -1;

	memset(ad, 0, sizeof(*ad));
	for (int i = 0; i < r->tune.nr_variants; i++)
		if (r->tune.v[i].reference && r->tune.v[i].ranked)
			ref = i;
	for (int i = 0; ref < 0 && i < r->tune.nr_variants; i++)
		if (r->tune.v[i].reference && r->tune.v[i].not_disk[0]) {
			snprintf(ad->summary, DETAIL_LEN,
				 "no gain can be stated: the defaults' score "
				 "is not ranked (%s)",
				 r->tune.v[i].not_disk);
			return;
		}
	if (ref < 0 || best < 0) {
		snprintf(ad->summary, DETAIL_LEN,
			 "the defaults did not finish: no gain can be stated");
		return;
	}
	if (best == ref) {
		snprintf(ad->summary, DETAIL_LEN,
			 "keep the defaults: no variant tried was faster");
		return;
	}
	b = &r->tune.v[best];
	if (!compare(r, r->tune.v[ref].name, b->name, &c))
		return;
	ad->variant = best;
	ad->gain_pct = -c.penalty_pct;
	ad->gain_ci95_pct[0] = -c.penalty_ci95_pct[1];
	ad->gain_ci95_pct[1] = -c.penalty_ci95_pct[0];
	ad->significant = c.significant;
	ad->have = c.significant;
	snprintf(ad->summary, DETAIL_LEN,
		 c.significant ? "%s: %.1f %% faster than the defaults %s "
				 "(95 %% CI)"
			       : "keep the defaults: the best, %s, is %.1f %% "
				 "faster %s, not separable from them",
		 b->name, ad->gain_pct,
		 fmt_ci(ci, sizeof(ci), ad->gain_ci95_pct, 1, false));
}

void tune_rank(struct results *r)
{
	const char *base = r->targets[0].name;
	struct comparison c;
	double best_pct = 0;
	int best;

	static double sb[MAX_SAMPLES];

	if (!r->nr_targets)
		return;
	tune_score(r, base, r->tune.workload, sb, r->tune.score,
		   sizeof(r->tune.score), r->tune.score_unit,
		   &r->tune.score_higher_is_better);
	for (int i = 0; i < r->tune.nr_variants; i++) {
		struct tune_variant *v = &r->tune.v[i];
		static double s[MAX_SAMPLES];
		int n = tune_score(r, v->name, r->tune.workload, s, NULL, 0,
				   NULL, NULL);

		v->ranked = rankable(r, v, v->not_disk, sizeof(v->not_disk)) &&
			    compare(r, base, v->name, &c);
		v->rank = 0;
		v->tied_best = false;
		if (!v->ranked)
			continue;
		v->penalty_pct = c.penalty_pct;
		v->penalty_ci95_pct[0] = c.penalty_ci95_pct[0];
		v->penalty_ci95_pct[1] = c.penalty_ci95_pct[1];
		v->score_mean = 0;
		for (int k = 0; k < n; k++)
			v->score_mean += s[k] / n;
		added_wait(r, v);
	}
	/* Rank: 1 + the variants better with an interval that excludes 0;
	 * so a variant no interval separates from the best ranks first. */
	for (int i = 0; i < r->tune.nr_variants; i++) {
		struct tune_variant *v = &r->tune.v[i];

		if (!v->ranked)
			continue;
		v->rank = 1;
		for (int j = 0; j < r->tune.nr_variants; j++) {
			const struct tune_variant *u = &r->tune.v[j];

			if (j != i && u->ranked &&
			    u->penalty_pct < v->penalty_pct &&
			    compare(r, u->name, v->name, &c) && c.significant)
				v->rank++;
		}
		v->tied_best = v->rank == 1;
	}
	best = best_variant(r, &best_pct);
	/* Said also when nothing could be ranked (a baseline from the page
	 * cache): then why, from the reference's reason. */
	advise(r, best);
}
