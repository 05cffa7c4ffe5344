// SPDX-License-Identifier: MIT
/*
 * `merge`: its command line, handed to merge_saved (run/merge_cmd.c): runs
 * from several machines side by side, one column per host,
 * on the terminal and, with --html DIR, as one report.html.
 */
#include "cmdline.h"
#include "commands.h"
#include "../run/saved.h"

enum { OPT_HTML = 256 };

// clang-format off
static const struct argp_option merge_options[] = {
	{"html", OPT_HTML, "DIR", 0, "also write DIR/report.html (DIR is made if missing; an existing report.html is never replaced)", 0},
	CMD_HELP_OPTION,
	{0},
};
// clang-format on

static error_t merge_key(int key, char *arg, struct argp_state *state)
{
	const char **dir = cmd_line_input(state);

	if (key == OPT_HTML) {
		*dir = arg;
		return 0;
	}
	return cmd_line_key(key, arg, state);
}

/* Help text: one literal per phrase, never cut (clang-format would). */
// clang-format off
static const struct argp merge_argp = {
	.options = merge_options,
	.parser = merge_key,
	.args_doc = "RUN RUN...",
	.doc = "Put runs from several machines (each a results folder or a results.json) "
	       "side by side: one table, one column per host.\n"
	       "\v"
	       "EXAMPLES:\n"
	       "  encbench-trace merge host1/results.json host2/results.json\n"
	       "  encbench-trace merge --html fleet/ runs/*/\n",
};
// clang-format on

int cmd_merge(int argc, char **argv)
{
	char html[PATH_LEN + 32];
	const char *dir = NULL;
	struct cmd_line cl = {
		.cmd = "merge", .input = &dir, .check_after = true};
	int rc;

	rc = cmd_line_parse(&cl, &merge_argp, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (cl.nr_args < 2)
		CMD_BAD("merge", "give two or more runs (results folders or "
				 "results.json files)");
	if (cl.nr_args > MAX_MERGE)
		CMD_BAD("merge", "at most %d runs", MAX_MERGE);
	if (cmd_line_checked())
		return 0;
	if (dir && check_html_dir("merge", dir, html, sizeof(html)))
		return 2;
	return merge_saved(cl.args, cl.nr_args, dir, html);
}
