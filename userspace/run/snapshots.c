// SPDX-License-Identifier: MIT
/*
 * The run's snapshots: one per traced phase, kept as the tracer handed it
 * over with the run's facts, completed with those known only once the run
 * is measured (the target's final notes, the workload's own figures);
 * save.c writes them into snapshots/ beside results.json, for `report
 * --reanalyze`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_priv.h"
#include "../report/report.h"

void snapshot_run_facts(struct snapshot *s, const struct capabilities *caps,
			int seq, const char *baseline)
{
	s->seq = seq;
	snprintf(s->tool_version, sizeof(s->tool_version), "%s",
		 ENCBENCH_VERSION);
	snprintf(s->kernel, sizeof(s->kernel), "%s", caps->kernel);
	s->btf = caps->btf;
	s->cpu_aes = caps->cpu_aes;
	snprintf(s->baseline, sizeof(s->baseline), "%s", baseline);
}

int run_keep_snapshot(struct run_ctx *ctx, struct snapshot *s)
{
	struct snapshot **p;

	p = realloc(ctx->snapshots,
		    (ctx->nr_snapshots + 1) * sizeof(*ctx->snapshots));
	if (!p)
		return -ENOMEM;
	ctx->snapshots = p;
	ctx->snapshots[ctx->nr_snapshots++] = s;
	return 0;
}

/* The workload's own figures of the phase: its metrics' means. */
static void snapshot_metrics(const struct results *r, struct snapshot *s)
{
	s->nr_metrics = 0;
	for (int i = 0; i < r->nr_results && s->nr_metrics < SNAP_MAX_METRICS;
	     i++) {
		const struct result *res = &r->results[i];
		struct snap_metric *m = &s->metrics[s->nr_metrics];

		if (strcmp(res->target, s->target.name) ||
		    strcmp(res->workload, s->workload) ||
		    strcmp(res->job, s->job))
			continue;
		snprintf(m->name, sizeof(m->name), "%s", res->metric.name);
		snprintf(m->unit, sizeof(m->unit), "%s", res->metric.unit);
		m->higher_is_better = res->metric.higher_is_better;
		m->nr_samples = res->nr_samples;
		m->mean = res->s.mean;
		s->nr_metrics++;
	}
}

void snapshots_complete(struct snapshot *const *snaps, int n,
			const struct results *r)
{
	for (int i = 0; i < n; i++) {
		struct snapshot *s = snaps[i];

		for (int t = 0; t < r->nr_targets; t++)
			if (!strcmp(r->targets[t].name, s->target.name))
				s->target = r->targets[t];
		snapshot_metrics(r, s);
	}
}

void run_free_snapshots(struct run_ctx *ctx)
{
	for (int i = 0; i < ctx->nr_snapshots; i++) {
		snapshot_free(ctx->snapshots[i]);
		free(ctx->snapshots[i]);
	}
	free(ctx->snapshots);
	ctx->snapshots = NULL;
	ctx->nr_snapshots = 0;
}
