/* SPDX-License-Identifier: MIT */
/*
 * What a reader printed on stderr, for the unit tests of one-line errors:
 * stderr goes to a file for the call, then comes back. Header-only.
 */
#ifndef ENCBENCH_CATCH_STDERR_H
#define ENCBENCH_CATCH_STDERR_H

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/* fn(arg) with stderr caught in file err_path: fn's return, the text
 * printed (NUL-terminated, cut to len - 1) in text. */
static inline int catch_stderr(const char *err_path, int (*fn)(void *arg),
			       void *arg, char *text, size_t len)
{
	int saved, fd, rc;
	ssize_t n;

	fflush(stderr);
	saved = dup(STDERR_FILENO);
	fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, STDERR_FILENO);
	close(fd);
	rc = fn(arg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	fd = open(err_path, O_RDONLY);
	n = read(fd, text, len - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	return rc;
}

#endif
