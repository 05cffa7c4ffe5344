// SPDX-License-Identifier: MIT
/*
 * `report`: print a saved results.json again (the file itself is the
 * JSON); with --html write report.html beside it, with --prometheus FILE
 * the run as OpenMetrics text. Neither ever replaces an existing file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "commands.h"
#include "load.h"
#include "../report/report.h"

enum { OPT_HTML = 256, OPT_PROMETHEUS };

// clang-format off
static const struct argp_option report_options[] = {
	{"html", OPT_HTML, 0, 0, "write report.html beside the results instead", 0},
	{"prometheus", OPT_PROMETHEUS, "FILE", 0, "write the run as OpenMetrics text instead", 0},
	CMD_HELP_OPTION,
	{0},
};
// clang-format on

struct report_args {
	bool html;
	const char *prom;
};

static error_t report_key(int key, char *arg, struct argp_state *state)
{
	struct report_args *a = cmd_line_input(state);

	switch (key) {
	case OPT_HTML:
		a->html = true;
		return 0;
	case OPT_PROMETHEUS:
		a->prom = arg;
		return 0;
	}
	return cmd_line_key(key, arg, state);
}

/* Help text: one literal per phrase, never cut (clang-format would). */
// clang-format off
static const struct argp report_argp = {
	.options = report_options,
	.parser = report_key,
	.args_doc = "DIR|results.json",
	.doc = "Print the tables, attribution, histograms and verdicts of a saved run.\n"
	       "\v"
	       "Neither --html nor --prometheus replaces an existing file.\n\n"
	       "EXAMPLES:\n"
	       "  encbench-trace report encbench-results/20261130-101500\n"
	       "  encbench-trace report --html encbench-results/20261130-101500\n"
	       "  encbench-trace report --prometheus run.prom encbench-results/20261130-101500\n",
};
// clang-format on

int cmd_report(int argc, char **argv)
{
	char path[PATH_LEN + 16], dir[PATH_LEN + 16], html[PATH_LEN + 32];
	struct report_args a = {0};
	struct cmd_line cl = {.cmd = "report", .input = &a};
	const char *prom;
	bool want_html;
	struct results *r;
	int rc = 0;

	rc = cmd_line_parse(&cl, &report_argp, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	prom = a.prom;
	want_html = a.html;
	if (!cl.nr_args)
		CMD_BAD("report",
			"which results? give a folder or a results.json");
	if (cl.nr_args > 1)
		CMD_BAD("report", "unexpected argument '%s'", cl.args[1]);
	r = load_run(cl.args[0], path, sizeof(path));
	if (!r)
		return 2;
	folder_of(path, dir, sizeof(dir));
	snprintf(html, sizeof(html), "%s/report.html", dir);
	if ((want_html && refuse_existing("report", html)) ||
	    (prom && refuse_existing("report", prom))) {
		free(r);
		return 2;
	}
	if (want_html) {
		const struct results *runs[] = {r};

		rc = report_write_html(runs, 1, dir) ? 1 : 0;
		if (!rc)
			printf("%s\n", html);
	}
	if (prom && !rc) {
		rc = report_write_prometheus(r, prom) ? 1 : 0;
		if (!rc)
			printf("%s\n", prom);
	}
	if (!want_html && !prom)
		report_print_text(r, stdout, true);
	free(r);
	return rc;
}
