// SPDX-License-Identifier: MIT
/*
 * `report`: print a saved results.json again (the file itself is the
 * JSON); with --html write report.html beside it, with --prometheus FILE
 * the run as OpenMetrics text. Neither ever replaces an existing file.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "load.h"
#include "../report/report.h"

static const char report_usage[] =
	"Usage: encbench-trace report [--html] [--prometheus FILE] "
	"DIR|results.json\n\n"
	"Print the tables, attribution, histograms and verdicts of a saved "
	"run.\n\n"
	"      --html             write report.html beside the results "
	"instead\n"
	"      --prometheus FILE  write the run as OpenMetrics text "
	"instead\n"
	"  -h, --help             this help\n\n"
	"Neither replaces an existing file.\n\n"
	"Examples:\n"
	"  encbench-trace report encbench-results/20261130-101500\n"
	"  encbench-trace report --html encbench-results/20261130-101500\n"
	"  encbench-trace report --prometheus run.prom "
	"encbench-results/20261130-101500\n";

enum { OPT_HTML = 256, OPT_PROMETHEUS };

static const struct option report_opts[] = {
	{"html", no_argument, NULL, OPT_HTML},
	{"prometheus", required_argument, NULL, OPT_PROMETHEUS},
	{"help", no_argument, NULL, 'h'},
	{0},
};

int cmd_report(int argc, char **argv)
{
	char path[PATH_LEN + 16], dir[PATH_LEN + 16], html[PATH_LEN + 32];
	const char *prom = NULL;
	bool want_html = false;
	struct results *r;
	int c, rc = 0;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", report_opts, NULL)) != -1) {
		switch (c) {
		case OPT_HTML:
			want_html = true;
			break;
		case OPT_PROMETHEUS:
			prom = optarg;
			break;
		case 'h':
			fputs(report_usage, stdout);
			return 0;
		case ':':
			CMD_BAD("report", "option '%s' needs a value",
				argv[optind - 1]);
		default:
			CMD_BAD("report",
				"unknown option '%s' (see encbench-trace "
				"report --help)",
				argv[optind - 1]);
		}
	}
	if (optind == argc)
		CMD_BAD("report",
			"which results? give a folder or a results.json");
	if (optind + 1 < argc)
		CMD_BAD("report", "unexpected argument '%s'", argv[optind + 1]);
	r = load_run(argv[optind], path, sizeof(path));
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
