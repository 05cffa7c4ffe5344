/* SPDX-License-Identifier: MIT */
/* Options of `run`, parsed by cli and read by every later stage. */
#ifndef ENCBENCH_CONFIG_H
#define ENCBENCH_CONFIG_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "../common/parse.h"
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
	uint64_t size_bytes; /* --size (default 64M): each workload's size */
	bool size_given;
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
	bool trace;	   /* attribution on (default) */
	bool drop_caches;  /* between write and read, default on */
	bool quiet;	   /* no histograms, no progress line */
	bool json;	   /* results.json to stdout too (pipeable) */
	bool html;	   /* report.html in the output folder */
	double timeline_s; /* --timeline: seconds per phase, 0 off */
	struct zfs_options zfs;
	struct luks_options luks;
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
/* Split "a,b,c" into out[]: 0, or -1 on empty items or more than max. */
int parse_list(const char *s, char out[][NAME_LEN], int max, int *n);
/* Parse `run` arguments into cfg (after config_defaults). 0 on success,
 * 1 when help was printed, or 2 after printing a one-line error. */
int parse_run_args(int argc, char **argv, struct run_config *cfg);
/* The same for `setup`: the options of run that shape targets. */
int parse_setup_args(int argc, char **argv, struct run_config *cfg);

/* The most --<workload>-<key> options the workload table may declare. */
#define WORKLOAD_OPTIONS_MAX 256

struct argp_option;
/* workload_args.c: into out (room for max), each workload of the table
 * under a heading of its own (groups group, group + 1, ...), followed by
 * its --<workload>-<key> options, keyed key_base + their index. Returns
 * the number of entries written. */
int workload_options(struct argp_option *out, int max, int key_base, int group);
/* The option of that index was given this value: kept in cfg->wopts
 * until the workloads are known. 0, or -1 when there are too many. */
int workload_option_take(int index, const char *value, struct run_config *cfg);
/* After the common options: the preset, then each workload's parameters
 * (defaults, --size/--scale, its own options, its check). 0 or 2. */
int workload_args_resolve(struct run_config *cfg);
/* Iterations to run at most on one target. */
int config_max_runs(const struct run_config *cfg);

#endif /* ENCBENCH_CONFIG_H */
