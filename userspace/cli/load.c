// SPDX-License-Identifier: MIT
/* Saved runs named on the command line, for `report` and `merge`. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "load.h"
#include "../report/report.h"

struct results *load_run(const char *arg, char *path, size_t len)
{
	struct results *r;
	struct stat st;

	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(path, len, "%s/results.json", arg);
	else
		snprintf(path, len, "%s", arg);
	r = calloc(1, sizeof(*r));
	if (!r) {
		fprintf(stderr, "encbench-trace: out of memory\n");
		return NULL;
	}
	if (report_read_json(path, r) < 0) {
		free(r);
		return NULL;
	}
	return r;
}

void folder_of(const char *path, char *dir, size_t len)
{
	char buf[PATH_LEN + 32];

	snprintf(buf, sizeof(buf), "%s", path);
	snprintf(dir, len, "%s", dirname(buf));
}

bool refuse_existing(const char *cmd, const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return false;
	fprintf(stderr,
		"encbench-trace: %s: %s exists (nothing is overwritten)\n", cmd,
		path);
	return true;
}
