// SPDX-License-Identifier: MIT
/*
 * `report`: print a saved results.json again (the file itself is the
 * JSON), the short form or with --full/--hist the whole; with --html write
 * report.html beside it, with --prometheus FILE the run as OpenMetrics text.
 * Neither ever replaces an existing file. With --reanalyze, the attribution and
 * verdicts made anew from the run's snapshots by this version's analysis
 * (run/reanalyze.c). Parsing and dispatch only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "commands.h"
#include "../run/saved.h"
#include "../report/report.h"
#include "../run/run.h"

enum { OPT_HTML = 256, OPT_PROMETHEUS, OPT_REANALYZE, OPT_FULL, OPT_HIST };

// clang-format off
static const struct argp_option report_options[] = {
	{"full", OPT_FULL, 0, 0, "the full report (report.txt's, without histograms)", 0},
	{"hist", OPT_HIST, 0, 0, "the full report with the latency histograms", 0},
	{"html", OPT_HTML, 0, 0, "write report.html beside the results instead", 0},
	{"prometheus", OPT_PROMETHEUS, "FILE", 0, "write the run as OpenMetrics text instead", 0},
	{"reanalyze", OPT_REANALYZE, 0, 0, "attribution and verdicts anew from the run's snapshots, with this version's analysis", 0},
	{"output", 'o', "NEW", 0, "with --reanalyze: write the new results folder NEW (absent or empty)", 0},
	CMD_HELP_OPTION,
	{0},
};
// clang-format on

struct report_args {
	bool html, reanalyze, full, hist;
	const char *prom;
	const char *output;
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
	case OPT_REANALYZE:
		a->reanalyze = true;
		return 0;
	case OPT_FULL:
		a->full = true;
		return 0;
	case OPT_HIST:
		a->hist = true;
		return 0;
	case 'o':
		a->output = arg;
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
	.doc = "Print a saved run again: the first screen (results, penalties, verdicts), "
	       "or with --full the whole report, with --hist its histograms too.\n"
	       "\v"
	       "Neither --html nor --prometheus replaces an existing file.\n"
	       "--reanalyze reads the run's snapshots/ and never writes the run's folder.\n\n"
	       "EXAMPLES:\n"
	       "  encbench-trace report encbench-results/20261130-101500\n"
	       "  encbench-trace report --full encbench-results/20261130-101500\n"
	       "  encbench-trace report --hist encbench-results/20261130-101500/results.json\n"
	       "  encbench-trace report --reanalyze encbench-results/20261130-101500\n"
	       "  encbench-trace report --reanalyze -o again encbench-results/20261130-101500\n"
	       "  encbench-trace report --html encbench-results/20261130-101500\n"
	       "  encbench-trace report --prometheus run.prom encbench-results/20261130-101500\n",
};
// clang-format on

int cmd_report(int argc, char **argv)
{
	char path[PATH_LEN + 16], dir[PATH_LEN + 16], html[PATH_LEN + 32];
	struct report_args a = {0};
	struct cmd_line cl = {
		.cmd = "report", .input = &a, .check_after = true};
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
	if (a.output && !a.reanalyze)
		CMD_BAD("report", "-o goes with --reanalyze only");
	if (a.reanalyze && (a.html || a.prom))
		CMD_BAD("report",
			"--reanalyze cannot go with --html or --prometheus");
	if ((a.full || a.hist) && (want_html || prom))
		CMD_BAD("report",
			"--%s prints the report, --%s writes a file: give one",
			a.hist ? "hist" : "full",
			want_html ? "html" : "prometheus");
	if (cmd_line_checked())
		return 0;
	r = load_run(cl.args[0], path, sizeof(path));
	if (!r)
		return 2;
	folder_of(path, dir, sizeof(dir));
	if (a.reanalyze) {
		rc = reanalyze_run(r, dir, cl.args[0], a.output, a.full,
				   a.hist);
		free(r);
		return rc;
	}
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
	if (!want_html && !prom) {
		char again[PATH_LEN + 64];

		snprintf(again, sizeof(again),
			 "encbench-trace report --full %s", cl.args[0]);
		report_print_form(r, stdout, a.full, a.hist, again);
	}
	free(r);
	return rc;
}
