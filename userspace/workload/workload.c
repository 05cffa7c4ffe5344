// SPDX-License-Identifier: MIT
/* The workload table and what every workload shares: timed children. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

extern const struct workload_ops dd_workload_ops;

static const struct workload_ops *const workload_table[] = {
	&dd_workload_ops,
	NULL,
};

volatile sig_atomic_t workload_stop;

const struct workload_ops *const *workload_list(void)
{
	return workload_table;
}

const struct workload_ops *workload_find(const char *name)
{
	for (int i = 0; workload_table[i]; i++)
		if (!strcmp(workload_table[i]->name, name))
			return workload_table[i];
	return NULL;
}

static double tv_s(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

int workload_spawn(int (*fn)(void *arg, double *secs), void *arg,
		   struct sample *out, int m)
{
	double *secs = &out->values[m];
	struct rusage ru;
	int pfd[2], status, rc;
	pid_t pid;

	if (workload_stop)
		return -EINTR;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return rc;
	}
	if (pid == 0) {
		double s = 0;

		close(pfd[0]);
		rc = fn(arg, &s);
		if (write(pfd[1], &s, sizeof(s)) != sizeof(s))
			_exit(125);
		_exit(rc < 0 ? -rc : rc);
	}
	close(pfd[1]);
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			rc = -errno;
			close(pfd[0]);
			return rc;
		}
	}
	if (read(pfd[0], secs, sizeof(*secs)) != sizeof(*secs))
		*secs = 0;
	close(pfd[0]);
	/* Killed, or stopped early by Ctrl-C (which reaches it too). */
	if (!WIFEXITED(status) || workload_stop)
		return -EINTR;
	out->real_s[m] = *secs;
	out->user_s[m] = tv_s(ru.ru_utime);
	out->sys_s[m] = tv_s(ru.ru_stime);
	return -WEXITSTATUS(status);
}

int drop_caches(void)
{
	int fd, err = 0;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "3", 1) != 1)
		err = -errno;
	close(fd);
	return err;
}
