/* SPDX-License-Identifier: MIT */
/*
 * Running the real program from an integration test: each run's stdout
 * and stderr go to <dir>/<tag>.stdout and <dir>/<tag>.stderr, where the
 * test reads them back. Header-only.
 */
#ifndef ENCBENCH_RUN_PROG_H
#define ENCBENCH_RUN_PROG_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* Start bin with argv in cwd (NULL: the test's), as uid (NULL: root). */
static inline pid_t run_spawn(const char *dir, const char *tag, const char *cwd,
			      const char *uid, const char *const *argv)
{
	char path[PATH_MAX];
	pid_t pid = fork();

	if (pid == 0) {
		snprintf(path, sizeof(path), "%s/%s.stdout", dir, tag);
		freopen(path, "w", stdout);
		snprintf(path, sizeof(path), "%s/%s.stderr", dir, tag);
		freopen(path, "w", stderr);
		freopen("/dev/null", "r", stdin);
		if (cwd && chdir(cwd))
			_exit(97);
		if (uid && (setgid(atoi(uid)) || setuid(atoi(uid))))
			_exit(99);
		execv(argv[0], (char *const *)argv);
		_exit(98);
	}
	return pid;
}

/* Its exit status, 128 + signal when killed. */
static inline int run_reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* What run <tag> wrote to `stream` ("stdout", "stderr"); static buffer. */
static inline const char *run_output(const char *dir, const char *tag,
				     const char *stream)
{
	static char buf[1 << 16];
	char path[PATH_MAX];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.%s", dir, tag, stream);
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* The test's folder, and everything in it: 0 when gone. */
static inline int remove_tree(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static inline int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

#endif
