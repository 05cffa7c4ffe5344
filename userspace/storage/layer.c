// SPDX-License-Identifier: MIT
/* Helpers every layer shares: naming a device, running mkfs. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "layer.h"

int run_cmd(char *const argv[])
{
	char err[512];
	ssize_t n, len = 0;
	int status, pfd[2];
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	/* Keep the first words of its stderr: they say why it failed. */
	while ((n = read(pfd[0], err + len, sizeof(err) - 1 - len)) > 0 ||
	       (n < 0 && errno == EINTR))
		len += n > 0 ? n : 0;
	err[len] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return -EINTR; /* killed by a signal: treat as interrupted */
	if (WEXITSTATUS(status) && len) {
		err[strcspn(err, "\n")] = '\0';
		fprintf(stderr, "encbench-trace: %s: %s\n", argv[0], err);
	}
	return WEXITSTATUS(status);
}

int layer_add_device(struct target_info *ti, const char *devname,
		     const char *role)
{
	char path[PATH_LEN];
	struct stat st;
	struct device_info *d;

	if (ti->nr_devices >= MAX_DEVICES)
		return -E2BIG;
	snprintf(path, sizeof(path), "/dev/%s", devname);
	if (stat(path, &st) < 0)
		return -errno;
	d = &ti->devices[ti->nr_devices++];
	snprintf(d->name, sizeof(d->name), "%s", devname);
	snprintf(d->role, sizeof(d->role), "%s", role);
	d->major = major(st.st_rdev);
	d->minor = minor(st.st_rdev);
	return 0;
}
