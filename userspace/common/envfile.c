// SPDX-License-Identifier: MIT
/* Lines for the tests' record files: see envfile.h. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "envfile.h"

void envfile_append(const char *env, const char *fmt, ...)
{
	const char *path = getenv(env);
	char line[512];
	va_list ap;
	int fd, n;

	if (!path || !*path)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, line, n) != n)
		fprintf(stderr, "encbench-trace: %s: short write\n", env);
	close(fd);
}
