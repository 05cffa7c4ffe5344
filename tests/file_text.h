/* SPDX-License-Identifier: MIT */
/* A whole file as a malloc'ed NUL-terminated string (NULL if unreadable),
 * for tests that look at what the program wrote. */
#ifndef ENCBENCH_FILE_TEXT_H
#define ENCBENCH_FILE_TEXT_H

#include <stdio.h>

static inline char *file_text(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r"), *m;
	int c;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	while (m && (c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	if (m)
		fclose(m);
	return buf;
}

#endif
