/* SPDX-License-Identifier: MIT */
/*
 * One way to read a subcommand's command line: argp, as libbpf-tools do,
 * with -h/--help, the help on stdout in argp's layout (an EXAMPLES section
 * after "\v" in the doc), and every rejection one line on stderr,
 * "encbench-trace: CMD: ...", exit 2.
 */
#ifndef ENCBENCH_CMDLINE_H
#define ENCBENCH_CMDLINE_H

#include <argp.h>
#include <stdbool.h>

#define CMD_MAX_ARGS 64

struct cmd_line {
	const char *cmd; /* "report" */
	void *input;	 /* the subcommand's own options, for its parser */
	/* Stop at the first argument and leave it and the rest to the
	 * subcommand (a command line to run: argv + first_arg); otherwise
	 * arguments and options mix. */
	bool stop_at_arg;
	bool no_args; /* the subcommand takes options only */
	int nr_args;
	char *args[CMD_MAX_ARGS];
	int first_arg;	   /* argv index of args[0] */
	bool after_dashes; /* "--" came right before args[0] */
	bool help;
	/* The command checks more of its command line after the parse (its
	 * arguments, options that go together): with --check-args it stops
	 * itself there (cmd_line_checked), not cmd_line_parse. */
	bool check_after;
	char error[256];
	argp_parser_t parser; /* the subcommand's, behind cmd_line_parse's */
};

/* In every option table: -h, --help. */
#define CMD_HELP_OPTION                                                        \
	{                                                                      \
		"help", 'h', 0, 0, "this help", -1                             \
	}

/*
 * `encbench-trace --check-args COMMAND ...` (main.c sets it): parse and
 * check the command line as the command would, then exit 0 without doing
 * anything, before it looks at the machine (paths, processes, root) or
 * makes anything; a bad one gets its one line and exit 2 as ever. For the
 * examples in the documentation (tests/repo/doc-examples.t).
 */
extern bool cmd_line_check_only;

/*
 * Parse argv (argv[0] is the subcommand) with argp, whose parser ends
 * with `return cmd_line_key(key, arg, state);`. 0 when parsed, 1 when the
 * help was printed or --check-args is done (exit 0), 2 when an error line
 * was printed (exit 2).
 */
int cmd_line_parse(struct cmd_line *cl, const struct argp *argp, int argc,
		   char **argv);
/* Where a command with check_after has checked its whole command line:
 * true with --check-args (then return as for the help: exit 0). */
static inline bool cmd_line_checked(void)
{
	return cmd_line_check_only;
}
/* The subcommand's options, from inside its parser. */
void *cmd_line_input(const struct argp_state *state);
/* What every parser leaves to the common one: help, arguments, errors. */
error_t cmd_line_key(int key, char *arg, struct argp_state *state);
/* The long name of the option with this key ("size"), or "?". */
const char *cmd_line_option_name(const struct argp_state *state, int key);
/* From a parser: refuse an option's value, saying why (one line). */
error_t cmd_line_bad(struct argp_state *state, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
