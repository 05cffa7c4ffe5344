// SPDX-License-Identifier: MIT
/* `report`: print a saved results.json again (the file itself is the JSON). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "../report/report.h"

int cmd_report(int argc, char **argv)
{
	const char *path = NULL;
	char buf[PATH_LEN + 16];
	struct results *r;
	struct stat st;
	int rc = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("Usage: encbench-trace report "
			       "DIR|results.json\n\nPrint the tables, "
			       "attribution, histograms and verdicts of a\n"
			       "saved run.\n\nExamples:\n"
			       "  encbench-trace report encbench-results/"
			       "20261130-101500\n");
			return 0;
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
	r = calloc(1, sizeof(*r));
	if (!r)
		return 1;
	if (report_read_json(path, r) < 0) {
		rc = 2;
		goto cleanup;
	}
	report_print_text(r, stdout, true);
	rc = 0;
cleanup:
	free(r);
	return rc;
}
