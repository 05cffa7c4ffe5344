/* SPDX-License-Identifier: MIT */
/* Options of `run`, parsed by cli (cli/args.h) and read by every later
 * stage. */
#ifndef ENCBENCH_CONFIG_H
#define ENCBENCH_CONFIG_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "../common/results.h"
#include "../storage/target.h"

#define MAX_WORKLOAD_OPTS 32

/* One --<workload>-<key> VALUE, kept until the workloads are known. */
struct workload_opt {
	char workload[NAME_LEN];
	char key[NAME_LEN];
	char value[PATH_LEN];
};

struct run_config {
	char scratch[PATH_LEN];	   /* parent of our scratch folder */
	char output[PATH_LEN];	   /* results folder */
	char prometheus[PATH_LEN]; /* OpenMetrics file, or "" */
	/* --size (default 64M): each workload's size where its own size
	 * option does not say otherwise. */
	uint64_t size_bytes;
	bool size_given;
	/* --room: each built target's file system size; 0: from the
	 * workloads (target_fs_bytes). */
	uint64_t room_bytes;
	double scale; /* --scale: workloads' counts and durations, 1 = as is */
	int runs;
	/* --runs auto: repeat until the relative standard error of every
	 * metric is under stable_pct, within min_runs..max_runs. */
	bool runs_auto;
	double stable_pct;
	int min_runs, max_runs;
	char preset[NAME_LEN];
	/* Given on the command line: a preset does not override these. */
	bool runs_given, targets_given, workloads_given;
	int nr_targets;
	char targets[MAX_TARGETS]
		    [NAME_LEN]; /* kinds to build, baseline first */
	int nr_user_targets;
	char user_names[MAX_USER_TARGETS][NAME_LEN];
	char user_paths[MAX_USER_TARGETS][PATH_LEN];
	char baseline[NAME_LEN]; /* --baseline, or "": the first target */
	int nr_workloads;
	char workloads[MAX_WORKLOADS][NAME_LEN];
	/* Each workload's own parameter struct, by index in workloads[]. */
	void *wparams[MAX_WORKLOADS];
	int nr_wopts;
	struct workload_opt wopts[MAX_WORKLOAD_OPTS];
	bool trace; /* attribution on (default) */
	/* --trace-runs: traced iterations per workload and target, apart
	 * from the untraced ones that give the figures (runs). */
	int trace_runs;
	bool trace_runs_given;
	/* --syscall-tracepoints: never let a workload's own timing of its
	 * calls stand in for the syscall tracepoints. */
	bool syscall_tracepoints;
	bool drop_caches;  /* between write and read, default on */
	bool quiet;	   /* no progress line, no per-stage lines */
	bool verbose;	   /* the full report on screen, per-iteration lines */
	bool json;	   /* results.json to stdout too (pipeable) */
	bool html;	   /* report.html in the output folder */
	double timeline_s; /* --timeline: seconds per phase, 0 off */
	struct zfs_options zfs;
	struct luks_options luks;
	/* tune: the kind swept, the budget, two axes to cross ("": none) */
	char tune_kind[NAME_LEN / 2];
	double budget_s;
	char cross[2][NAME_LEN / 2];
	int nr_axes; /* --axes: only these, one at a time (0: all) */
	char axes[8][NAME_LEN];
	/* tune --target NAME=PATH: the user's open LUKS2 device may be
	 * refreshed with other flags; its key file ("": asked) */
	bool allow_refresh;
	char key_file[PATH_LEN];
};

/* The command these options were given to: "run", or "setup" (which
 * takes the options that shape targets). */
extern const char *config_command;

/* The one-line error of `run` for bad input: print and return exit 2. */
#define RUN_BAD(...)                                                           \
	do {                                                                   \
		fprintf(stderr, "encbench-trace: %s: ", config_command);       \
		fprintf(stderr, __VA_ARGS__);                                  \
		fputc('\n', stderr);                                           \
		return 2;                                                      \
	} while (0)

void config_defaults(struct run_config *cfg);
/* Free what parsing allocated (the workloads' parameter structs). */
void config_free(struct run_config *cfg);
/* Iterations to run at most on one target. */
int config_max_runs(const struct run_config *cfg);

#endif /* ENCBENCH_CONFIG_H */
