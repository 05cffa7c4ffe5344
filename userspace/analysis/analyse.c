// SPDX-License-Identifier: MIT
/*
 * Snapshots -> the results' attribution and verdicts: the one way a run,
 * `trace` and `report --reanalyze` all take, so that a saved run analysed
 * again gets what a run made today would print.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cached.h"

/* The baseline's attribution of a's workload, job and op, if r holds
 * it. */
static const struct attribution *baseline_of(const struct results *r,
					     const struct attribution *a)
{
	if (!a->baseline[0] || !strcmp(a->baseline, a->target))
		return NULL;
	for (int i = 0; i < r->nr_attrib; i++)
		if (!strcmp(r->attrib[i].target, a->baseline) &&
		    !strcmp(r->attrib[i].workload, a->workload) &&
		    !strcmp(r->attrib[i].job, a->job) &&
		    r->attrib[i].op == a->op)
			return &r->attrib[i];
	return NULL;
}

void analyse_phase(const struct snapshot *s, struct results *r)
{
	struct attribution a[NR_OPS];
	int n = attribute_snapshot(s, a);

	for (int i = 0; i < n && r->nr_attrib < MAX_ATTRIB; i++) {
		snprintf(a[i].baseline, sizeof(a[i].baseline), "%s",
			 s->baseline);
		snprintf(a[i].job, sizeof(a[i].job), "%s", s->job);
		r->attrib[r->nr_attrib++] = a[i];
	}
}

int analyse_iterations(const struct snapshot *const *parts, int n,
		       struct results *r)
{
	struct snapshot *whole = malloc(sizeof(*whole));
	int err = whole ? snapshot_combine(parts, n, whole) : -ENOMEM;

	if (!err)
		analyse_phase(whole, r);
	if (whole && !err)
		snapshot_free(whole);
	free(whole);
	return err;
}

/* The metric whose observer effect stands for op's: the first of the
 * target, workload and fio job named after the op
 * (read_s, randread_4k_iops), else the first measured (dd's fsync is in
 * its write_s). */
static const struct result *observed_metric(const struct results *r,
					    const struct attribution *a)
{
	const struct result *first = NULL;

	for (int i = 0; i < r->nr_results && i < MAX_RESULTS; i++) {
		const struct result *x = &r->results[i];

		if (strcmp(x->target, a->target) ||
		    strcmp(x->workload, a->workload) ||
		    strcmp(x->job, a->job) || !x->obs.measured)
			continue;
		if (strstr(x->metric.name, op_name(a->op)))
			return x;
		if (!first)
			first = x;
	}
	return first;
}

static const struct target_info *target_info_of(const struct results *r,
						const char *name)
{
	for (int i = 0; i < r->nr_targets && i < MAX_TARGETS; i++)
		if (!strcmp(r->targets[i].name, name))
			return &r->targets[i];
	return NULL;
}

static bool same_phase(const struct attribution *a, const struct attribution *b)
{
	return !strcmp(a->target, b->target) &&
	       !strcmp(a->workload, b->workload) && !strcmp(a->job, b->job);
}

/* A reaping call's side: the op of most of its phase's async I/Os. */
static int reap_side_of(const struct results *r, const struct attribution *a)
{
	uint64_t n[2] = {0, 0};

	for (int i = 0; i < r->nr_attrib; i++) {
		const struct attribution *o = &r->attrib[i];

		if ((o->op == EB_OP_READ || o->op == EB_OP_WRITE) &&
		    same_phase(o, a))
			n[o->op == EB_OP_WRITE] += o->aio.ios + o->aio.unlinked;
	}
	return n[1] > n[0] ? EB_OP_WRITE : EB_OP_READ;
}

/* Whose wait a reaping verdict is, seen from a's verdict: a's own I/Os,
 * or, for a randrw job's other side, the job's, most of them reap's. */
static const char *reaped_whose(const struct attribution *a,
				const struct attribution *reap)
{
	if (a->op == reap->reap_side)
		return "them";
	return reap->reap_side == EB_OP_WRITE
		       ? "the job's I/Os, most of them its writes"
		       : "the job's I/Os, most of them its reads";
}

void analyse_verdicts(struct results *r)
{
	r->nr_verdicts = 0;
	for (int i = 0; i < r->nr_attrib; i++) {
		struct attribution *a = &r->attrib[i];
		const struct result *x = observed_metric(r, a);

		a->reap_side = reap_side_of(r, a);
		a->untraced_scale = 0;
		a->traced_slower = false;
		a->observed[0] = '\0';
		if (!x)
			continue;
		/* added_pct is the added time in % of the untraced time. */
		a->untraced_scale = 1.0 / (1.0 + x->obs.added_pct / 100.0);
		a->traced_slower = x->obs.beyond_ci;
		snprintf(a->observed, NAME_LEN, "%s", x->metric.name);
	}
	for (int i = 0; i < r->nr_attrib && r->nr_verdicts < MAX_ATTRIB; i++) {
		const struct attribution *a = &r->attrib[i];
		const struct target_info *t = target_info_of(r, a->target);
		struct verdict *v = &r->verdicts[r->nr_verdicts++];

		aio_fio_clat(r, &r->attrib[i]);
		aio_job_words(r, &r->attrib[i]);
		if (aio_dominant(a))
			verdict_aio(a, baseline_of(r, a), t, v);
		else if (a->wait.available)
			verdict_wait(a, baseline_of(r, a), t,
				     r->meta.caps.cpu_aes, v);
		else
			verdict_for(a, t, v);
		snprintf(v->job, sizeof(v->job), "%s", a->job);
	}
	/* Each phase (target, workload, job), whose attribution lies
	 * together: the write phase as one is the write verdict's headline,
	 * then the headlines. Verdict i is attribution i's. */
	for (int i = 0, first = 0; i <= r->nr_verdicts; i++) {
		const struct attribution *f = &r->attrib[first];
		int write = -1, sync = -1, reap = -1;

		if (i < r->nr_verdicts && same_phase(&r->attrib[i], f))
			continue;
		for (int k = first; k < i; k++) {
			if (r->attrib[k].op == EB_OP_WRITE)
				write = k;
			else if (r->attrib[k].op == EB_OP_SYNC)
				sync = k;
			else if (r->attrib[k].op == EB_OP_REAP)
				reap = k;
		}
		/* An async job's verdict carries its caller's own wait for
		 * the I/Os, split by what woke it; worded for the side most
		 * of them are on (a randrw job's reaping calls reap both). */
		for (int k = first; reap >= 0 && k < i; k++)
			if (k != reap && aio_dominant(&r->attrib[k]) &&
			    r->verdicts[reap].summary[0])
				verdict_add_evidence(
					&r->verdicts[k],
					"the caller's own wait for %s, in "
					"its reaping calls: %s",
					reaped_whose(&r->attrib[k],
						     &r->attrib[reap]),
					r->verdicts[reap].summary);
		if (write >= 0 && sync >= 0)
			verdict_write_phase(&r->attrib[write], &r->attrib[sync],
					    baseline_of(r, &r->attrib[write]),
					    baseline_of(r, &r->attrib[sync]),
					    target_info_of(r, f->target),
					    r->meta.caps.cpu_aes,
					    &r->verdicts[write]);
		if (i > first)
			verdict_headlines(&r->verdicts[first], i - first);
		first = i;
	}
	for (int i = 0; i < r->nr_verdicts; i++)
		verdict_observer_evidence(&r->attrib[i],
					  observed_metric(r, &r->attrib[i]),
					  &r->verdicts[i]);
}

/* By phase (seq, then its names), then by iteration within it. */
static int by_seq(const void *x, const void *y)
{
	const struct snapshot *a = *(const struct snapshot *const *)x;
	const struct snapshot *b = *(const struct snapshot *const *)y;
	int c = (a->seq > b->seq) - (a->seq < b->seq);

	c = c ?: strcmp(a->target.name, b->target.name);
	c = c ?: strcmp(a->workload, b->workload);
	c = c ?: strcmp(a->job, b->job);
	return c
		       ?: (a->iteration > b->iteration) -
				  (a->iteration < b->iteration);
}

void analyse_snapshots(const struct snapshot *const *snaps, int n,
		       struct results *r)
{
	const struct snapshot **order = malloc((size_t)n * sizeof(*order));

	r->nr_attrib = 0;
	r->nr_verdicts = 0;
	if (!order)
		return;
	memcpy(order, snaps, (size_t)n * sizeof(*order));
	qsort(order, n, sizeof(*order), by_seq);
	for (int i = 0, first = 0; i < n; first = i) {
		while (i < n && snapshot_same_phase(order[first], order[i]))
			i++;
		analyse_iterations(order + first, i - first, r);
	}
	free(order);
	analyse_verdicts(r);
	/* The page cache named as the run named it (r's results have the
	 * bytes read and delivered). */
	verdicts_mark_cached(r);
}
