// SPDX-License-Identifier: MIT
/* The test hook of pause_point.h. */
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pause_point.h"

/* Does point `here` match want[0..len)? A trailing '*' matches any rest:
 * a point naming a random path. */
static bool matches(const char *here, const char *want, size_t len)
{
	if (len && want[len - 1] == '*')
		return !strncmp(here, want, len - 1);
	return strlen(here) == len && !strncmp(here, want, len);
}

/* With ENCBENCH_PAUSE_LOG=<file>: the point's name as a line of it,
 * before the stop, so that a test stopping at several tells them apart. */
static void say_where(const char *here)
{
	const char *path = getenv("ENCBENCH_PAUSE_LOG");
	FILE *f = path && *path ? fopen(path, "ae") : NULL;

	if (!f)
		return;
	fprintf(f, "%s\n", here);
	fclose(f);
}

void pause_point(const char *fmt, ...)
{
	const char *want = getenv("ENCBENCH_PAUSE_AT");
	char here[256];
	va_list ap;

	if (!want || !*want)
		return;
	va_start(ap, fmt);
	vsnprintf(here, sizeof(here), fmt, ap);
	va_end(ap);
	/* A comma-separated list: the program stops at each. */
	while (*want) {
		size_t len = strcspn(want, ",");

		if (matches(here, want, len)) {
			say_where(here);
			raise(SIGSTOP);
			return;
		}
		want += len + (want[len] == ',');
	}
}
