// SPDX-License-Identifier: MIT
/*
 * The frame `run` and `tune` share around their measurements: the same
 * checks before anything is made, the output folder claimed, the same
 * state file, probe and scratch folder, and on the way out the same
 * teardown on every exit path (Ctrl-C included), then the writers for
 * whatever was measured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "progress.h"
#include "run_priv.h"
#include "../common/state.h"
#include "../probe/probe.h"
#include "../workload/workload.h"

int run_frame_open(struct run_frame *f, struct run_ctx *ctx,
		   struct run_config *cfg)
{
	int rc;

	f->scratch[0] = '\0';
	f->claimed = false;
	/* Valid, and the output folder (the first thing created) is ours
	 * alone, or nothing is made. */
	rc = run_validate(cfg, &f->out) ?: output_claim(&f->out);
	if (rc)
		return rc;
	f->claimed = true;
	ctx->cfg = cfg;
	ctx->r = calloc(1, sizeof(*ctx->r));
	if (!ctx->r)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &f->t0);
	run_signals();
	progress_start(progress_wanted(cfg->quiet, cfg->json));
	progress_quiet(cfg->quiet);
	progress_verbose(cfg->verbose);
	run_fill_meta(ctx->r, cfg);
	/* Open first: probe may mount tracefs, recorded too. */
	if (state_open(f->command))
		return 1;
	run_probe(&ctx->r->meta.caps);
	if (scratch_create(cfg->scratch, f->scratch))
		return 1;
	/* Searchable by others, not listable (made 0700): a server
	 * workload runs as its own user (postgres, www-data) and reaches
	 * its files on the targets mounted in here. */
	chmod(f->scratch, 0711);
	ctx->scratch = f->scratch;
	return 0;
}

int run_frame_close(struct run_frame *f, struct run_ctx *ctx, int rc,
		    bool measured)
{
	struct timespec t1;
	bool left;

	if (!f->claimed)
		return rc; /* nothing was made */
	if (!ctx->r) {
		output_release(&f->out, false);
		return rc;
	}
	run_teardown(ctx);
	progress_stop(); /* the rest goes to stdout and would meet it */
	probe_release();
	scratch_remove(f->scratch);
	left = state_close() != 0; /* it said what stays, and where */
	if (left && !rc)
		rc = 1;
	/* Measured is measured: a signal from here on still gets the
	 * results written, whole, and then exit 130. */
	if (measured) {
		if (f->timed) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			ctx->r->meta.duration_s =
				(t1.tv_sec - f->t0.tv_sec) +
				(t1.tv_nsec - f->t0.tv_nsec) / 1e9;
		}
		rc = run_report(ctx) ? 1 : rc;
	}
	/* The folders this run made go only if they are empty: the results
	 * may be elsewhere (save.c). */
	output_release(&f->out, false);
	if (workload_stop && measured && !rc && f->complete)
		fprintf(stderr,
			"encbench-trace: interrupted after the measurements "
			"were done; the results in %s/ are complete\n",
			ctx->cfg->output);
	else if (workload_stop && !left)
		fprintf(stderr,
			"encbench-trace: %s%sinterrupted; every device, mount, "
			"key and BPF link it made is removed\n",
			f->complete ? "" : f->command, f->complete ? "" : ": ");
	if (workload_stop)
		rc = 130;
	run_free_snapshots(ctx);
	free(ctx->r);
	ctx->r = NULL;
	return rc;
}
