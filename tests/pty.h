/* SPDX-License-Identifier: MIT */
/*
 * A program run on a terminal of its own (forkpty): what a user at a
 * terminal types is written to the master side, what the program shows
 * there (prompts, echo) is read back. Header-only, as run_prog.h: the
 * passphrase prompts of `tune --target` and `teardown` are tested so.
 */
#ifndef ENCBENCH_PTY_H
#define ENCBENCH_PTY_H

#include <poll.h>
#include <pty.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

struct pty_run {
	pid_t pid;
	int fd;		 /* the master side */
	char seen[8192]; /* everything read from it so far */
	size_t len;
};

/* argv on a new terminal: 0, or -1 (errno). The child's stdin, stdout,
 * stderr and controlling terminal are the pty. */
static inline int pty_spawn(struct pty_run *p, const char *const *argv)
{
	memset(p, 0, sizeof(*p));
	p->pid = forkpty(&p->fd, NULL, NULL, NULL);
	if (p->pid < 0)
		return -1;
	if (!p->pid) {
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return 0;
}

/* Read what is there within ms milliseconds: 1, 0 at the timeout, -1
 * at the end (EIO once the last slave descriptor closed). */
static inline int pty_read(struct pty_run *p, int ms)
{
	struct pollfd pf = {.fd = p->fd, .events = POLLIN};
	ssize_t n;

	if (poll(&pf, 1, ms) <= 0)
		return 0;
	n = read(p->fd, p->seen + p->len, sizeof(p->seen) - 1 - p->len);
	if (n <= 0)
		return -1;
	p->len += (size_t)n;
	p->seen[p->len] = '\0';
	return 1;
}

/* Wait up to s seconds for text to show: whether it did. */
static inline bool pty_expect(struct pty_run *p, const char *text, int s)
{
	for (int i = 0; i < s * 10 && !strstr(p->seen, text); i++)
		if (pty_read(p, 100) < 0)
			break;
	return strstr(p->seen, text) != NULL;
}

/* Type line and Enter. */
static inline int pty_type(struct pty_run *p, const char *line)
{
	size_t n = strlen(line);

	if (write(p->fd, line, n) != (ssize_t)n || write(p->fd, "\n", 1) != 1)
		return -1;
	return 0;
}

/* Everything until the program closes its side (up to s seconds). */
static inline void pty_drain(struct pty_run *p, int s)
{
	for (int i = 0; i < s * 10 && p->len < sizeof(p->seen) - 1; i++)
		if (pty_read(p, 100) < 0)
			break;
}

#endif
