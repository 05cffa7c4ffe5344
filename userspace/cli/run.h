/* SPDX-License-Identifier: MIT */
/* The stages of `run`, in order; cmd_run.c strings them together. */
#ifndef ENCBENCH_RUN_H
#define ENCBENCH_RUN_H

#include "config.h"
#include "../storage/target.h"

struct tracer;
struct timeline;

struct run_ctx {
	const struct run_config *cfg;
	struct results *r;
	const char *scratch;
	int nr_targets; /* set up (or being set up): teardown covers these */
	struct target targets[MAX_TARGETS];
	struct tracer *tr;
	struct timeline *tl; /* --timeline, beside tr */
};

uint64_t target_fs_bytes(const struct run_config *cfg);
/* What results.json records of cfg (report/json.c writes it). */
void run_options_of(const struct run_config *cfg, struct run_options *o);
/* SIGINT, SIGTERM, SIGHUP set workload_stop: every stage unwinds. */
void run_signals(void);

/* lifecycle.c: what `run` and `setup` share. */
/* Root, the scratch folder, no stale state file, room for the kinds that
 * will be built: 0, or 2 after the one-line error. */
int validate_targets(struct run_config *cfg);
/* Our own new folder in parent (recorded in the state file): 0 or 1
 * after saying why; scratch_remove takes it back when empty. */
int scratch_create(const char *parent, char out[PATH_LEN]);
void scratch_remove(char path[PATH_LEN]);
/* Returns 0, 1 when the baseline cannot be built, or 2 when a target
 * refused the user's options (the run stops either way). */
int run_setup_targets(struct run_ctx *ctx);
/* Never fails: without tracing the benchmark still runs and says why. */
void run_open_tracer(struct run_ctx *ctx);
int run_workloads(struct run_ctx *ctx);
void run_statistics(struct run_ctx *ctx);
void run_teardown(struct run_ctx *ctx);
int run_report(struct run_ctx *ctx);

#endif
