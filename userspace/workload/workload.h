/* SPDX-License-Identifier: MIT */
/*
 * Workloads behind one ops table. A workload runs one iteration at a time;
 * the timed operations run in child processes (so the tracer follows them
 * by parentage and wait4 gives their rusage), the parent does the untimed
 * preparation (drop caches, cleanup).
 * A new workload is one new file plus one entry in workload_table.
 */
#ifndef ENCBENCH_WORKLOAD_H
#define ENCBENCH_WORKLOAD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "../common/results.h"

struct target;
struct run_config;

struct sample {
	double values[MAX_METRICS];
	/* rusage of the timed child that produced each metric */
	double real_s[MAX_METRICS], user_s[MAX_METRICS], sys_s[MAX_METRICS];
	/* busy share of all CPUs while that child ran, kworkers included */
	double cpu_pct[MAX_METRICS];
};

/* Called around each timed child by whoever runs the workload (the
 * tracer's window, when attribution is on), so that what the parent does
 * untimed stays out of it. Either may be NULL. */
struct workload_window {
	void (*open)(void *arg);
	void (*close)(void *arg);
	void *arg;
};

struct workload_ctx {
	const struct run_config *cfg;
	const struct target *target;
	int iteration;
	const struct workload_window *window;
};

struct workload_ops {
	const char *name;
	const char *help;
	int nr_metrics;
	struct metric_def metrics[MAX_METRICS];
	/* NULL if it applies to this target, else why not (stated in output).
	 */
	const char *(*not_applicable)(const struct target *t);
	/* Caveat to print for this target, or NULL. */
	const char *(*caveat)(const struct target *t);
	void (*params_json)(const struct run_config *cfg, char *buf,
			    size_t len);
	int (*run_once)(const struct workload_ctx *ctx, struct sample *out);
};

const struct workload_ops *workload_find(const char *name);
const struct workload_ops *const *workload_list(void);

/* Set by SIGINT/SIGTERM: workloads stop at the next block. */
extern volatile sig_atomic_t workload_stop;

/* Run fn(arg) in a child for metric m: out->values[m] = the child's own
 * timing of fn (monotonic), and its rusage goes to out's per-metric
 * fields. Returns fn's return value (0 ok) or negative errno. */
int workload_spawn(const struct workload_ctx *ctx,
		   int (*fn)(void *arg, double *secs), void *arg,
		   struct sample *out, int m);
/* sync + drop page cache, dentries and inodes. */
int drop_caches(void);

#endif /* ENCBENCH_WORKLOAD_H */
