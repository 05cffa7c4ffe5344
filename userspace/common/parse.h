/* SPDX-License-Identifier: MIT */
/* Parsing of command-line values shared by `run` and the workloads, and
 * the one-line error every command gives for bad input. */
#ifndef ENCBENCH_PARSE_H
#define ENCBENCH_PARSE_H

#include <stdint.h>
#include <stdio.h>

/* A subcommand's one-line error for bad input: print, return exit 2. */
#define CMD_BAD(cmd, ...)                                                      \
	do {                                                                   \
		fprintf(stderr, "encbench-trace: " cmd ": " __VA_ARGS__);      \
		fputc('\n', stderr);                                           \
		return 2;                                                      \
	} while (0)

/* "64M", "1G", "4096", "512k": bytes, or -1 when it does not parse. */
int64_t parse_size(const char *s);
/* An integer in [min, max]: 0 and *out, or -1. */
int parse_int(const char *s, long min, long max, long *out);
/* A number > 0 ("0.1", "2"): 0 and *out, or -1. */
int parse_positive(const char *s, double *out);

/* The longest duration taken: about four months. */
#define MAX_DURATION_S 1e7
/* "90", "90s", "500ms", "2m", "1h": seconds, in (0, MAX_DURATION_S], or
 * -1 when it does not parse. */
double parse_duration(const char *s);

#endif
