// SPDX-License-Identifier: MIT
/* The workload table and what every workload shares: timed children. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
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

/* Busy and total jiffies of all CPUs from /proc/stat's first line. */
static int cpu_times(uint64_t *busy, uint64_t *total)
{
	unsigned long long v[8] = {0};
	FILE *f = fopen("/proc/stat", "re");
	int n;

	if (!f)
		return -errno;
	/* user nice system idle iowait irq softirq steal */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		return -EIO;
	*busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	*total = *busy + v[3] + v[4];
	return 0;
}

int workload_spawn(const struct workload_ctx *ctx,
		   int (*fn)(void *arg, double *secs), void *arg,
		   struct sample *out, int m)
{
	const struct workload_window *w = ctx->window;
	uint64_t busy0 = 0, total0 = 0, busy1 = 0, total1 = 0;
	double *shared;
	struct rusage ru;
	int status, rc;
	pid_t pid;

	if (workload_stop)
		return -EINTR;
	/* The child hands its timing back through shared memory, not a
	 * pipe: a write() there would count as a workload write. */
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -errno;
	*shared = 0;
	cpu_times(&busy0, &total0);
	if (w && w->open)
		w->open(w->arg);
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		if (w && w->close)
			w->close(w->arg);
		munmap(shared, sizeof(*shared));
		return rc;
	}
	if (pid == 0) {
		rc = fn(arg, shared);
		_exit(rc < 0 ? -rc : rc);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			rc = -errno;
			if (w && w->close)
				w->close(w->arg);
			munmap(shared, sizeof(*shared));
			return rc;
		}
	}
	if (w && w->close)
		w->close(w->arg);
	cpu_times(&busy1, &total1);
	out->values[m] = *shared;
	munmap(shared, sizeof(*shared));
	/* Killed, or stopped early by Ctrl-C (which reaches it too). */
	if (!WIFEXITED(status) || workload_stop)
		return -EINTR;
	out->real_s[m] = out->values[m];
	out->user_s[m] = tv_s(ru.ru_utime);
	out->sys_s[m] = tv_s(ru.ru_stime);
	/* Machine-wide: encryption runs in kworkers and writeback, which
	 * the child's own rusage never sees. */
	out->cpu_pct[m] = total1 > total0 ? 100.0 * (double)(busy1 - busy0) /
						    (double)(total1 - total0)
					  : 0;
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
