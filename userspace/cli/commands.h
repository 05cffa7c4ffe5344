/* SPDX-License-Identifier: MIT */
#ifndef ENCBENCH_COMMANDS_H
#define ENCBENCH_COMMANDS_H

/* Each returns the process exit code: 0 ok, 1 failure, 2 bad input,
 * 130 interrupted. argv[0] is the subcommand name. */
int cmd_run(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
