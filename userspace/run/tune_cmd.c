// SPDX-License-Identifier: MIT
/*
 * `tune` in the frame `run` has (frame.c): the same checks before
 * anything is made, the same state file, the same teardown on every exit
 * path (Ctrl-C included), and the same writers for what was measured;
 * the sweep itself is tune.c's.
 */
#include "run_priv.h"
#include "tune.h"

int tune_benchmark(struct run_config *cfg)
{
	struct run_frame f = {.command = "tune"};
	struct run_ctx ctx = {0};
	bool measured = false;
	int rc = run_frame_open(&f, &ctx, cfg);

	if (!rc)
		rc = tune_run(&ctx, &measured);
	/* What finished is reported, after a signal too (then exit 130). */
	if (measured)
		ctx.r->meta.duration_s = ctx.r->tune.spent_s;
	return run_frame_close(&f, &ctx, rc, measured);
}
