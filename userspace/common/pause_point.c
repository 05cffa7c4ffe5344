// SPDX-License-Identifier: MIT
/* The test hook of pause_point.h. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pause_point.h"

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
	if (!strcmp(here, want))
		raise(SIGSTOP);
}
