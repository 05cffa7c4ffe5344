// SPDX-License-Identifier: MIT
/*
 * `merge`: runs from several machines side by side, one column per host,
 * on the terminal and, with --html DIR, as one report.html.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "commands.h"
#include "load.h"
#include "../report/report.h"

#define MAX_MERGE 16

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
	struct results *runs[MAX_MERGE] = {NULL};
	char path[PATH_LEN + 16], html[PATH_LEN + 32];
	const char *dir = NULL;
	struct cmd_line cl = {.cmd = "merge", .input = &dir};
	int n = 0, rc;

	rc = cmd_line_parse(&cl, &merge_argp, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	rc = 2;
	if (cl.nr_args < 2)
		CMD_BAD("merge", "give two or more runs (results folders or "
				 "results.json files)");
	if (cl.nr_args > MAX_MERGE)
		CMD_BAD("merge", "at most %d runs", MAX_MERGE);
	if (dir && check_html_dir("merge", dir, html, sizeof(html)))
		return 2;
	for (int i = 0; i < cl.nr_args; i++) {
		runs[n] = load_run(cl.args[i], path, sizeof(path));
		if (!runs[n])
			goto cleanup;
		n++;
	}
	report_print_merged((const struct results *const *)runs, n, stdout);
	rc = dir ? write_html_in("merge", (const struct results *const *)runs,
				 n, dir, html)
		 : 0;
cleanup:
	for (int i = 0; i < n; i++)
		free(runs[i]);
	return rc;
}
