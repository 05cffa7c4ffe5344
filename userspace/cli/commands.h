/* SPDX-License-Identifier: MIT */
/*
 * cli/: the command line, and nothing else. Each subcommand's argp table,
 * help and man page (encbench-trace.1), the bash completion, and the checks
 * of what was typed; the parsed options go to run/ (run.h), or for the
 * commands that only read saved results, to report/ and analysis/.
 *
 * May include: run/, probe/, storage/, workload/, analysis/, stats/,
 * report/ and common/. Never the tracer: run/ drives it.
 */
#ifndef ENCBENCH_COMMANDS_H
#define ENCBENCH_COMMANDS_H

#include "../common/parse.h"

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
int cmd_tune(int argc, char **argv);

#endif
