/* SPDX-License-Identifier: MIT */
/* Options of `run`, parsed by cli and read by every later stage. */
#ifndef ENCBENCH_CONFIG_H
#define ENCBENCH_CONFIG_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "../common/results.h"
#include "../storage/target.h"

#define MAX_USER_TARGETS 4

struct run_config {
	char scratch[PATH_LEN];	   /* parent of our scratch folder */
	char output[PATH_LEN];	   /* results folder */
	char prometheus[PATH_LEN]; /* OpenMetrics file, or "" */
	uint64_t size_bytes;	   /* file size per workload iteration */
	int runs;
	int nr_targets;
	char targets[MAX_TARGETS]
		    [NAME_LEN]; /* kinds to build, baseline first */
	int nr_user_targets;
	char user_names[MAX_USER_TARGETS][NAME_LEN];
	char user_paths[MAX_USER_TARGETS][PATH_LEN];
	int nr_workloads;
	char workloads[MAX_WORKLOADS][NAME_LEN];
	bool trace;	   /* attribution on (default) */
	bool drop_caches;  /* between write and read, default on */
	bool quiet;	   /* no histograms, no progress line */
	bool json;	   /* results.json to stdout too (pipeable) */
	bool html;	   /* report.html in the output folder */
	double timeline_s; /* --timeline: seconds per phase, 0 off */
	struct luks_options luks;
};

/* The one-line error of `run` for bad input: print and return exit 2. */
#define RUN_BAD(...)                                                           \
	do {                                                                   \
		fprintf(stderr, "encbench-trace: run: " __VA_ARGS__);          \
		fputc('\n', stderr);                                           \
		return 2;                                                      \
	} while (0)

void config_defaults(struct run_config *cfg);
/* "64M", "1G", "4096", "512k": bytes, or -1 when it does not parse. */
int64_t parse_size(const char *s);
/* Split "a,b,c" into out[]: 0, or -1 on empty items or more than max. */
int parse_list(const char *s, char out[][NAME_LEN], int max, int *n);
/* Parse `run` arguments into cfg (after config_defaults). 0 on success,
 * 1 when help was printed, or 2 after printing a one-line error. */
int parse_run_args(int argc, char **argv, struct run_config *cfg);

#endif /* ENCBENCH_CONFIG_H */
