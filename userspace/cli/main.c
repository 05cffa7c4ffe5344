// SPDX-License-Identifier: MIT
/*
 * encbench-trace: what disk encryption costs on this machine, and why.
 * A subcommand table after bpftool's: `encbench-trace <command> [options]`.
 */
#include <stdio.h>
#include <string.h>

#include "cmdline.h"
#include "commands.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{"run", cmd_run, "build targets, run workloads, trace, report"},
	{"tune", cmd_tune, "rank one kind's settings on this machine"},
	{"setup", cmd_setup, "build targets and leave them up for your tools"},
	{"teardown", cmd_teardown, "remove what setup or a killed run left"},
	{"probe", cmd_probe, "what this kernel and machine support"},
	{"report", cmd_report, "print a saved results.json again"},
	{"merge", cmd_merge, "several hosts' runs side by side"},
	{"compare", cmd_compare, "two runs or CSV files: intervals, penalties"},
	{"trace", cmd_trace, "why any command's I/O is slow, on any stack"},
	{0},
};

/* Help text: one literal per phrase, never cut (clang-format would). */
// clang-format off
static const char usage_doc[] =
	"Usage: encbench-trace COMMAND [OPTIONS]\n\n"
	"Measure what disk encryption costs and explain where the time goes.\n\n"
	"Commands:\n";

static const char examples_doc[] =
	"\nEach command takes --help. "
	"--check-args before a command checks its command line and exits, doing nothing.\n\n"
	"EXAMPLES:\n"
	"  sudo encbench-trace run\n"
	"  sudo encbench-trace tune --kind luks2 --budget 10m\n"
	"  sudo encbench-trace probe --json\n"
	"  sudo encbench-trace setup --targets plain,luks2\n"
	"  sudo encbench-trace teardown\n"
	"  encbench-trace report encbench-results/*/results.json\n"
	"  encbench-trace merge --html fleet/ host1.json host2.json\n"
	"  encbench-trace compare plain-dd.csv fscrypt-dd.csv\n"
	"  sudo encbench-trace trace --path ~/luks -- cp a.iso ~/luks/\n";
// clang-format on

static void usage(FILE *out)
{
	fputs(usage_doc, out);
	for (const struct command *c = commands; c->name; c++)
		fprintf(out, "  %-8s %s\n", c->name, c->help);
	fputs(examples_doc, out);
}

int main(int argc, char **argv)
{
	/* Check a command line, do nothing (cmdline.h). */
	if (argc >= 2 && !strcmp(argv[1], "--check-args")) {
		cmd_line_check_only = true;
		argc--;
		argv++;
		if (argc < 2) {
			fprintf(stderr, "encbench-trace: --check-args: give "
					"a command line to check\n");
			return 2;
		}
	}
	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("encbench-trace %s\n", ENCBENCH_VERSION);
		return 0;
	}
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(argv[1], c->name))
			return c->fn(argc - 1, argv + 1);
	fprintf(stderr,
		"encbench-trace: unknown command '%s' (try encbench-trace --help)\n",
		argv[1]);
	return 2;
}
