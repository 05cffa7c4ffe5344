/* SPDX-License-Identifier: MIT */
#ifndef ENCBENCH_COMMANDS_H
#define ENCBENCH_COMMANDS_H

#include <stdio.h>

/* A subcommand's one-line error for bad input: print, return exit 2. */
#define CMD_BAD(cmd, ...)                                                      \
	do {                                                                   \
		fprintf(stderr, "encbench-trace: " cmd ": " __VA_ARGS__);      \
		fputc('\n', stderr);                                           \
		return 2;                                                      \
	} while (0)

/* Each returns the process exit code: 0 ok, 1 failure, 2 bad input,
 * 130 interrupted. argv[0] is the subcommand name. */
int cmd_run(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_setup(int argc, char **argv);
int cmd_teardown(int argc, char **argv);

#endif
