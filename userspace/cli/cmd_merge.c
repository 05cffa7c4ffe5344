// SPDX-License-Identifier: MIT
/*
 * `merge`: runs from several machines side by side, one column per host,
 * on the terminal and, with --html DIR, as one report.html.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "load.h"
#include "../report/report.h"

#define MAX_MERGE 16

static const char merge_usage[] =
	"Usage: encbench-trace merge [--html DIR] RUN RUN...\n\n"
	"Put runs from several machines (each a results folder or a "
	"results.json)\nside by side: one table, one column per host.\n\n"
	"      --html DIR   also write DIR/report.html (DIR is made if "
	"missing;\n"
	"                   an existing report.html is never replaced)\n"
	"  -h, --help       this help\n\n"
	"Examples:\n"
	"  encbench-trace merge host1/results.json host2/results.json\n"
	"  encbench-trace merge --html fleet/ runs/*/\n";

static const struct option merge_opts[] = {
	{"html", required_argument, NULL, 'H'},
	{"help", no_argument, NULL, 'h'},
	{0},
};

int cmd_merge(int argc, char **argv)
{
	struct results *runs[MAX_MERGE] = {NULL};
	char path[PATH_LEN + 16], html[PATH_LEN + 32];
	const char *dir = NULL;
	int c, n = 0, rc = 2;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", merge_opts, NULL)) != -1) {
		switch (c) {
		case 'H':
			dir = optarg;
			break;
		case 'h':
			fputs(merge_usage, stdout);
			return 0;
		case ':':
			CMD_BAD("merge", "option '%s' needs a value",
				argv[optind - 1]);
		default:
			CMD_BAD("merge",
				"unknown option '%s' (see encbench-trace "
				"merge --help)",
				argv[optind - 1]);
		}
	}
	if (argc - optind < 2)
		CMD_BAD("merge", "give two or more runs (results folders or "
				 "results.json files)");
	if (argc - optind > MAX_MERGE)
		CMD_BAD("merge", "at most %d runs", MAX_MERGE);
	if (dir && check_html_dir("merge", dir, html, sizeof(html)))
		return 2;
	for (; optind < argc; optind++) {
		runs[n] = load_run(argv[optind], path, sizeof(path));
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
