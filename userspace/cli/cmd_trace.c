// SPDX-License-Identifier: MIT
/*
 * `trace`'s command line: the storage (--path or --dev), whom to follow
 * (--pid, --cgroup or -- CMD) and where the report goes, handed to
 * run/trace_cmd.c, which traces.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmdline.h"
#include "commands.h"
#include "../common/parse.h"
#include "../run/run.h"

#define TRACE_BAD(...) CMD_BAD("trace", __VA_ARGS__)

enum { OPT_PID = 256, OPT_CGROUP, OPT_JSON };

// clang-format off
static const struct argp_option trace_options[] = {
	{"path", 'p', "PATH", 0, "trace the block devices under PATH's file system (or its ZFS dataset)", 0},
	{"dev", 'd', "DEV", 0, "trace block device DEV (/dev/sdX or MAJ:MIN)", 0},
	{"pid", OPT_PID, "PID", 0, "trace process PID and its children", 0},
	{"cgroup", OPT_CGROUP, "CG", 0, "trace the tasks of cgroup v2 folder CG", 0},
	{"duration", 'D', "S", 0, "stop after S seconds (default: when CMD or PID ends, or on Ctrl-C)", 0},
	{"output", 'o', "DIR", 0, "results.json, histogram files and the full report (report.txt) in DIR (a new folder)", 0},
	{"json", OPT_JSON, 0, 0, "results.json on stdout (the text goes to stderr)", 0},
	{"quiet", 'q', 0, 0, "print the verdicts only, a line each", 0},
	{"verbose", 'v', 0, 0, "print the full report (layer by layer, every verdict's evidence)", 0},
	CMD_HELP_OPTION,
	{0},
};
// clang-format on

static error_t trace_key(int key, char *arg, struct argp_state *state)
{
	struct trace_request *c = cmd_line_input(state);
	char *end;
	long v;

	switch (key) {
	case 'p':
		c->path = arg;
		return 0;
	case 'd':
		c->dev = arg;
		return 0;
	case OPT_PID:
		v = strtol(arg, &end, 10);
		if (*end || v <= 0 || v > INT_MAX)
			return cmd_line_bad(state, "bad pid '%s'", arg);
		c->pid = (pid_t)v;
		return 0;
	case OPT_CGROUP:
		c->cgroup = arg;
		return 0;
	case 'D':
		c->duration = parse_duration(arg);
		if (c->duration < 0)
			return cmd_line_bad(state,
					    "bad duration '%s' (seconds > 0, "
					    "or with ms, s, m, h)",
					    arg);
		return 0;
	case 'o':
		c->output = arg;
		return 0;
	case OPT_JSON:
		c->json = true;
		return 0;
	case 'q':
		c->quiet = true;
		return 0;
	case 'v':
		c->verbose = true;
		return 0;
	}
	return cmd_line_key(key, arg, state);
}

/* Help text: one literal per phrase, never cut (clang-format would). */
// clang-format off
static const struct argp trace_argp = {
	.options = trace_options,
	.parser = trace_key,
	.args_doc = "[-- CMD ARGS...]",
	.doc = "Attribute the time of a command's or a process's read and write calls to the kernel's layers "
	       "(what they waited for), "
	       "on the storage stack under PATH or DEV, "
	       "and say in one sentence why they are slow. "
	       "Give --path or --dev, and one of --pid, --cgroup or -- CMD.\n"
	       "\v"
	       "With -- CMD, the exit status is CMD's. "
	       "The screen gets the short report; --output DIR keeps the full one in DIR/report.txt.\n\n"
	       "EXAMPLES:\n"
	       "  sudo encbench-trace trace --path ~/luks -- cp big.iso ~/luks/\n"
	       "  sudo encbench-trace trace --dev /dev/nvme0n1 --pid 1234 --duration 10\n",
};
// clang-format on

/* 0, 1 when the help was printed or --check-args is done, or 2 after a
 * one-line error. */
static int parse(int argc, char **argv, struct trace_request *c)
{
	struct cmd_line cl = {.cmd = "trace",
			      .input = c,
			      .stop_at_arg = true,
			      .check_after = true};
	int n = 0, rc = cmd_line_parse(&cl, &trace_argp, argc, argv);

	if (rc)
		return rc;
	if (cl.nr_args && !cl.after_dashes)
		TRACE_BAD("unexpected '%s': a command goes after --",
			  cl.args[0]);
	if (cl.nr_args)
		c->cmd = argv + cl.first_arg;
	n = !!c->pid + !!c->cgroup + !!c->cmd;
	if (n != 1)
		TRACE_BAD("give one of --pid, --cgroup or -- CMD");
	if (c->path && c->dev)
		TRACE_BAD("give --path or --dev, not both");
	if (!c->path && !c->dev)
		TRACE_BAD(
			"give --path PATH or --dev DEV: the storage to trace");
	if (c->quiet && c->verbose)
		TRACE_BAD("give --quiet or --verbose, not both");
	/* --check-args: what follows looks at the machine. */
	if (cmd_line_checked())
		return 1;
	if (c->pid && kill(c->pid, 0) < 0 && errno == ESRCH)
		TRACE_BAD("no process %d", (int)c->pid);
	return 0;
}

int cmd_trace(int argc, char **argv)
{
	struct trace_request req = {0};
	int rc = parse(argc, argv, &req);

	if (rc)
		return rc == 1 ? 0 : rc;
	return trace_command(&req);
}
