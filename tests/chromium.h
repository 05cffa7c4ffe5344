/* SPDX-License-Identifier: MIT */
/*
 * Debian's chromium as a test harness: headless, no sandbox (the tests
 * run as root), its profile in the test's own folder, and a proxy nobody
 * listens on, so that it is offline.
 */
#ifndef ENCBENCH_CHROMIUM_H
#define ENCBENCH_CHROMIUM_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* argv to completion, stdout to the file `save` (or /dev/null); status. */
static inline int run_to(const char *const *argv, const char *save)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (!freopen(save ? save : "/dev/null", "w", stdout))
			_exit(97);
		if (!getenv("ENCBENCH_TEST_VERBOSE"))
			freopen("/dev/null", "w", stderr);
		execvp(argv[0], (char *const *)argv);
		_exit(98);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* chromium `what` (--dump-dom, --screenshot=FILE) on the file `page`,
 * with its profile under `dir`; stdout to `save`. */
static inline int chromium(const char *dir, const char *what, const char *page,
			   const char *save)
{
	char profile[PATH_MAX], url[PATH_MAX + 8];

	snprintf(profile, sizeof(profile), "--user-data-dir=%s/profile", dir);
	snprintf(url, sizeof(url), "file://%s", page);
	const char *argv[] = {"chromium",
			      "--headless=new",
			      "--no-sandbox",
			      "--disable-gpu",
			      "--no-first-run",
			      "--hide-scrollbars",
			      "--proxy-server=127.0.0.1:9",
			      "--virtual-time-budget=15000",
			      "--window-size=1280,5600",
			      profile,
			      what,
			      url,
			      NULL};
	return run_to(argv, save);
}

#endif /* ENCBENCH_CHROMIUM_H */
