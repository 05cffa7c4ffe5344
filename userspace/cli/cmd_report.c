// SPDX-License-Identifier: MIT
/*
 * `report`: print a saved results.json again (the file itself is the
 * JSON), or with --html write report.html beside it.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "../report/report.h"

int cmd_report(int argc, char **argv)
{
	const char *path = NULL;
	char buf[PATH_LEN + 16], dir[PATH_LEN + 16], html[PATH_LEN + 32];
	bool want_html = false;
	struct results *r;
	struct stat st;
	int rc = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("Usage: encbench-trace report [--html] "
			       "DIR|results.json\n\nPrint the tables, "
			       "attribution, histograms and verdicts of a\n"
			       "saved run.\n\n"
			       "      --html   write report.html beside the "
			       "results instead (never over\n"
			       "               an existing one)\n\n"
			       "Examples:\n"
			       "  encbench-trace report encbench-results/"
			       "20261130-101500\n"
			       "  encbench-trace report --html "
			       "encbench-results/20261130-101500\n");
			return 0;
		} else if (!strcmp(argv[i], "--html")) {
			want_html = true;
		} else if (argv[i][0] == '-' || path) {
			fprintf(stderr,
				"encbench-trace: report: unexpected "
				"argument '%s'\n",
				argv[i]);
			return 2;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		fprintf(stderr, "encbench-trace: report: which results? give a "
				"folder or a results.json\n");
		return 2;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(buf, sizeof(buf), "%s/results.json", path);
		path = buf;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(html, sizeof(html), "%s/report.html", dirname(dir));
	if (want_html && access(html, F_OK) == 0) {
		fprintf(stderr,
			"encbench-trace: report: %s exists (nothing is "
			"overwritten)\n",
			html);
		return 2;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return 1;
	if (report_read_json(path, r) < 0) {
		rc = 2;
		goto cleanup;
	}
	if (want_html) {
		const struct results *runs[] = {r};

		rc = report_write_html(runs, 1, dir) ? 1 : 0;
		if (!rc)
			printf("%s\n", html);
		goto cleanup;
	}
	report_print_text(r, stdout, true);
	rc = 0;
cleanup:
	free(r);
	return rc;
}
