// SPDX-License-Identifier: MIT
/* Read figures served from the page cache, named as such. */
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "cached.h"

void comparison_mark_cached(struct comparison *c, const struct result *b,
			    const struct result *t)
{
	double pb = result_cached_pct(b), pt = result_cached_pct(t);

	c->cached_pct = pb > pt ? pb : pt;
	c->cached = c->cached_pct > CACHED_PCT_MAX;
	c->buffered = b->page_cache_writes || t->page_cache_writes;
}

const char *cached_why(const struct target_info *t)
{
	if (!strcmp(t->kind, "fscrypt"))
		return "O_DIRECT fell back to buffered I/O on fscrypt (direct "
		       "I/O there needs -o inlinecrypt and blk-crypto, Linux "
		       "5.18+), so the file stayed in the page cache and the "
		       "re-reads came from memory";
	if (!strcmp(t->kind, "ecryptfs"))
		return "eCryptfs refuses O_DIRECT, so fio runs buffered there by "
		       "design and its re-reads come from the page cache";
	if (!strcmp(t->kind, "zfs"))
		return "ZFS serves reads from its ARC (O_DIRECT is not direct "
		       "before OpenZFS 2.3)";
	return "the reads were buffered (no direct I/O) and the file fit in "
	       "the page cache";
}

static const struct target_info *target_of(const struct results *r,
					   const char *name)
{
	for (int i = 0; i < r->nr_targets; i++)
		if (!strcmp(r->targets[i].name, name))
			return &r->targets[i];
	return NULL;
}

/* The read verdict of res's job, or NULL. */
static struct verdict *read_verdict(struct results *r, const struct result *res)
{
	for (int i = 0; i < r->nr_verdicts; i++) {
		struct verdict *v = &r->verdicts[i];

		if (!strcmp(v->target, res->target) &&
		    !strcmp(v->workload, res->workload) &&
		    !strcmp(v->job, res->job) && v->op == EB_OP_READ)
			return v;
	}
	return NULL;
}

/* The read verdict of res's job, made if it has none (no tracing). */
static struct verdict *verdict_of(struct results *r, const struct result *res)
{
	struct verdict *found = read_verdict(r, res);

	if (found)
		return found;
	if (r->nr_verdicts >= MAX_ATTRIB)
		return NULL;
	struct verdict *v = &r->verdicts[r->nr_verdicts++];

	memset(v, 0, sizeof(*v));
	snprintf(v->target, sizeof(v->target), "%s", res->target);
	snprintf(v->workload, sizeof(v->workload), "%s", res->workload);
	snprintf(v->job, sizeof(v->job), "%s", res->job);
	v->op = EB_OP_READ;
	return v;
}

#define CACHED_SAID "are cached, not a disk figure"

/* "fio's read_1m", "dd's": whose reads the figure is of. */
static void reads_of(const struct result *res, char *buf, size_t len)
{
	snprintf(buf, len, "%s's%s%s", res->workload, res->job[0] ? " " : "",
		 res->job);
}

/* The traced verdict, kept as the first line of evidence. */
static void evidence_first(struct verdict *v, const char *old)
{
	int n = v->nr_evidence < MAX_EVIDENCE ? v->nr_evidence
					      : MAX_EVIDENCE - 1;

	memmove(v->evidence[1], v->evidence[0], n * sizeof(v->evidence[0]));
	snprintf(v->evidence[0], sizeof(v->evidence[0]),
		 "as traced, before the cache was counted: %s", old);
	v->nr_evidence = n + 1;
}

#define SPLIT_SAID "not disk samples, left out of the figures"

/* A figure some of whose iterations were split off as cached
 * (result_split_cached): said in its job's read verdict, if it has one,
 * once for the job (its metrics share the bytes), with the metric the
 * values are of. */
static void note_split(struct results *r, const struct result *res)
{
	char which[DETAIL_LEN] = "", vals[DETAIL_LEN] = "";
	int n = res->nr_cached < 4 ? res->nr_cached : 4;
	struct verdict *v = read_verdict(r, res);

	if (!v)
		return;
	for (int e = 0; e < v->nr_evidence; e++)
		if (strstr(v->evidence[e], SPLIT_SAID))
			return;
	for (int i = 0; i < n; i++) {
		size_t lw = strlen(which), lv = strlen(vals);

		snprintf(which + lw, sizeof(which) - lw, "%s%d", i ? ", " : "",
			 res->cached_iteration[i]);
		snprintf(vals + lv, sizeof(vals) - lv,
			 res->cached[i] >= 100 ? "%s%.0f" : "%s%.3g",
			 i ? ", " : "", res->cached[i]);
	}
	verdict_add_evidence(v,
			     "%d of %d iterations read over %.0f %% from the "
			     "page cache (iteration %s%s: %s %s): " SPLIT_SAID,
			     res->nr_cached, res->nr_cached + res->nr_samples,
			     CACHED_PCT_MAX, which,
			     res->nr_cached > n ? ", ..." : "", vals,
			     res->metric.unit);
}

void verdicts_mark_cached(struct results *r)
{
	for (int i = 0; i < r->nr_results; i++) {
		const struct result *res = &r->results[i];
		double pct = result_cached_pct(res);
		const struct target_info *t = target_of(r, res->target);
		char side[NAME_LEN], old[sizeof(r->verdicts[0].summary)];
		struct verdict *v;

		if (res->nr_cached > 0 && pct <= CACHED_PCT_MAX)
			note_split(r, res);
		if (pct <= CACHED_PCT_MAX || !t)
			continue;
		v = verdict_of(r, res);
		/* The first figure of the job tells it (its metrics share
		 * the bytes). */
		if (!v || strstr(v->summary, CACHED_SAID))
			continue;
		reads_of(res, side, sizeof(side));
		snprintf(old, sizeof(old), "%s", v->summary);
		snprintf(v->summary, sizeof(v->summary),
			 "%s reads on %s " CACHED_SAID ": %.0f %% of the %.1f "
			 "MB read came from the page cache (the device "
			 "delivered %.1f MB); %s",
			 side, res->target, pct, res->read_bytes / 1e6,
			 res->dev_read_bytes / 1e6, cached_why(t));
		if (old[0])
			evidence_first(v, old);
		/* The short report's line says it too, and is shown. */
		snprintf(v->brief, sizeof(v->brief),
			 "cached, not a disk figure: %.0f %% of the bytes read "
			 "came from the page cache (%s)",
			 pct,
			 strcmp(t->kind, "fscrypt")
				 ? "buffered reads"
				 : "O_DIRECT fell back to buffered I/O");
		v->headline = true;
	}
}
