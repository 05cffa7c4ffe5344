// SPDX-License-Identifier: MIT
/*
 * `trace --pid`: the process and the descendants it already has, found in
 * /proc, added to the traced set (children forked later are added by the
 * BPF side).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "run_priv.h"
#include "../tracer/trace.h"

/* A process and its parent, as /proc/PID/stat shows them. */
struct proc_edge {
	pid_t ppid, pid;
};

static int by_parent(const void *a, const void *b)
{
	const struct proc_edge *x = a, *y = b;

	return (x->ppid > y->ppid) - (x->ppid < y->ppid);
}

/* Every process and its parent, in one pass over /proc, sorted by parent:
 * their number (at most max), or negative errno. */
static int read_proc_edges(struct proc_edge *e, int max)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;
	int n = 0;

	if (!proc)
		return -errno;
	while ((de = readdir(proc)) && n < max) {
		char path[64], line[512], *close_paren;
		FILE *f;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue; /* gone since readdir */
		/* pid (comm) state ppid: comm may hold spaces and ')' */
		if (fgets(line, sizeof(line), f) &&
		    sscanf(line, "%d", &e[n].pid) == 1 &&
		    (close_paren = strrchr(line, ')')) &&
		    sscanf(close_paren + 1, " %*c %d", &e[n].ppid) == 1)
			n++;
		fclose(f);
	}
	closedir(proc);
	qsort(e, n, sizeof(*e), by_parent);
	return n;
}

/* The first of e's n edges (sorted by parent) from parent, or n. */
static int first_child(const struct proc_edge *e, int n, pid_t parent)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (e[mid].ppid < parent)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Follow PID and the descendants it already has: trace_begin cleared the
 * traced set, and the BPF side adds only children forked from now on (a
 * fork after the PID is followed is caught there; one before, here).
 * /proc is read once; the tree is then walked breadth first from PID,
 * each process's children found by a binary search of the edges. */
int follow_running(struct tracer *tr, pid_t root)
{
	enum { MAX_PROCS = 1 << 16 };
	struct proc_edge *e = calloc(MAX_PROCS, sizeof(*e));
	/* Each process has one parent: it is queued once at most. */
	pid_t *queue = calloc(MAX_PROCS + 1, sizeof(*queue));
	int n = 0, head = 0, tail = 0, err = trace_follow(tr, root);

	if (!e || !queue)
		err = err ?: -ENOMEM;
	if (!err)
		n = read_proc_edges(e, MAX_PROCS);
	if (n < 0)
		err = n;
	if (!err)
		queue[tail++] = root;
	while (!err && head < tail) {
		pid_t parent = queue[head++];

		for (int i = first_child(e, n, parent);
		     !err && i < n && e[i].ppid == parent; i++) {
			err = trace_follow(tr, e[i].pid);
			queue[tail++] = e[i].pid;
		}
	}
	free(e);
	free(queue);
	return err;
}
