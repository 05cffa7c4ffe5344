// SPDX-License-Identifier: MIT
/* Saved runs named on the command line (saved.h). */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "saved.h"
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

int check_html_dir(const char *cmd, const char *dir, char *html, size_t len)
{
	struct stat st;

	snprintf(html, len, "%s/report.html", dir);
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "encbench-trace: %s: '%s' is not a folder\n",
			cmd, dir);
		return 2;
	}
	return refuse_existing(cmd, html) ? 2 : 0;
}

int write_html_in(const char *cmd, const struct results *const *runs, int n,
		  const char *dir, const char *html)
{
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "encbench-trace: %s: cannot make '%s': %s\n",
			cmd, dir, strerror(errno));
		return 1;
	}
	if (report_write_html(runs, n, dir))
		return 1;
	printf("\n%s\n", html);
	return 0;
}
