/* SPDX-License-Identifier: MIT */
/*
 * Looking at the program's workload child from outside, through /proc:
 * the program (pid prog) forks one of its own (same comm) to run a
 * workload such as dd; the tools it runs to build the targets have
 * theirs. Header-only, for the tests that sample it (test_why,
 * test_behind_writeback).
 */
#ifndef ENCBENCH_WORKLOAD_CHILD_H
#define ENCBENCH_WORKLOAD_CHILD_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* A /proc file's text into buf (NUL-terminated); false if none. */
static inline bool proc_read(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return n > 0;
}

static inline pid_t proc_parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (!proc_read(path, buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %d", &ppid) != 1)
		return 0;
	return ppid;
}

/* The workload's process of the program prog; 0 if none now. */
static inline pid_t proc_workload_child(pid_t prog)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	while (d && !found && (e = readdir(d))) {
		char path[300], comm[32];
		pid_t pid = atoi(e->d_name);

		if (pid <= 0 || proc_parent_of(pid) != prog)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		if (proc_read(path, comm, sizeof(comm)) &&
		    !strcmp(comm, "encbench-trace\n"))
			found = pid;
	}
	if (d)
		closedir(d);
	return found;
}

#endif
