// SPDX-License-Identifier: MIT
/*
 * `compare`: its command line, handed to compare_saved (run/compare_cmd.c):
 * two saved runs, or two per-iteration CSV files, metric by metric.
 */
#include <stdbool.h>

#include "cmdline.h"
#include "commands.h"
#include "../run/saved.h"

enum { OPT_JSON = 256, OPT_HTML };

// clang-format off
static const struct argp_option compare_options[] = {
	{"json", OPT_JSON, 0, 0, "print one JSON document instead of the table", 0},
	{"html", OPT_HTML, "DIR", 0, "also write DIR/report.html (DIR is made if missing; an existing report.html is never replaced)", 0},
	CMD_HELP_OPTION,
	{0},
};
// clang-format on

struct compare_args {
	bool json;
	const char *dir;
};

static error_t compare_key(int key, char *arg, struct argp_state *state)
{
	struct compare_args *a = cmd_line_input(state);

	switch (key) {
	case OPT_JSON:
		a->json = true;
		return 0;
	case OPT_HTML:
		a->dir = arg;
		return 0;
	}
	return cmd_line_key(key, arg, state);
}

/* Help text: one literal per phrase, never cut (clang-format would). */
// clang-format off
static const struct argp compare_argp = {
	.options = compare_options,
	.parser = compare_key,
	.args_doc = "BASE OTHER",
	.doc = "Compare OTHER against BASE, metric by metric: "
	       "n, mean and sd of each, "
	       "Welch's 95 % interval of the difference, "
	       "the penalty % with its interval, "
	       "and one sentence each (\"reads on X are between a % and b % slower than on Y\").\n\n"
	       "BASE and OTHER are both results "
	       "(a results folder or a results.json: same target, workload and metric are paired) "
	       "or both per-iteration CSV files "
	       "(iteration,<metric>,...: same metric column is paired; "
	       "a metric named ..._per_..., ...iops, ...tps or ...bps is higher-is-better, "
	       "any other a time).\n"
	       "\v"
	       "EXAMPLES:\n"
	       "  encbench-trace compare unencrypted.csv encrypted.csv\n"
	       "  encbench-trace compare --json before/ after/results.json\n",
};
// clang-format on

int cmd_compare(int argc, char **argv)
{
	char html[PATH_LEN + 32];
	struct compare_args a = {0};
	struct cmd_line cl = {
		.cmd = "compare", .input = &a, .check_after = true};
	const char *dir;
	bool json;
	int rc;

	rc = cmd_line_parse(&cl, &compare_argp, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	dir = a.dir;
	json = a.json;
	if (cl.nr_args != 2)
		CMD_BAD("compare", "give exactly two files: BASE OTHER "
				   "(results folders or .json, or .csv files)");
	if (saved_is_csv(cl.args[0]) != saved_is_csv(cl.args[1]))
		CMD_BAD("compare",
			"'%s' and '%s' are of different shapes: give two CSV "
			"files or two results",
			cl.args[0], cl.args[1]);
	if (cmd_line_checked())
		return 0;
	if (dir && check_html_dir("compare", dir, html, sizeof(html)))
		return 2;
	return compare_saved(cl.args[0], cl.args[1], json, dir, html);
}
