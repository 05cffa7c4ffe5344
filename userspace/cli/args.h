/* SPDX-License-Identifier: MIT */
/* The command lines of `run` and `setup`, parsed into a run_config. */
#ifndef ENCBENCH_ARGS_H
#define ENCBENCH_ARGS_H

#include "../common/parse.h"
#include "../run/config.h"

/* Split "a,b,c" into out[]: 0, or -1 on empty items or more than max. */
int parse_list(const char *s, char out[][NAME_LEN], int max, int *n);
/* A workload's own program refused what it was given (fio's error on a
 * job file), said in one line: not usage, the run exits 1. */
#define RUN_TOOL_REFUSED 3

/* Parse `run` arguments into cfg (after config_defaults). 0 on success,
 * 1 when help was printed, 2 after printing a one-line error, or
 * RUN_TOOL_REFUSED. */
int parse_run_args(int argc, char **argv, struct run_config *cfg);
/* The same for `setup`: the options of run that shape targets. */
int parse_setup_args(int argc, char **argv, struct run_config *cfg);
/* The same for `tune`: run's options but --targets, and its own. */
int parse_tune_args(int argc, char **argv, struct run_config *cfg);

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
 * (defaults, --size/--scale, its own options, its check). 0, 2 or
 * RUN_TOOL_REFUSED. */
int workload_args_resolve(struct run_config *cfg);

#endif /* ENCBENCH_ARGS_H */
