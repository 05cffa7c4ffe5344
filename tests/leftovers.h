/* SPDX-License-Identifier: MIT */
/*
 * What a run may leave behind, looked up the way an administrator would:
 * mounts (/proc/self/mountinfo), loop devices (sysfs backing_file) and
 * scratch folders under the test's own folder, and BPF programs and links
 * by the kernel ids the program recorded as it made them (common/bpf_ids.h)
 * -- never by name: other tracers (libbpf-tools) name theirs as we do, and
 * other tests run at the same time. Header-only: shared by the integration
 * tests.
 */
#ifndef ENCBENCH_LEFTOVERS_H
#define ENCBENCH_LEFTOVERS_H

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "common/bpf_ids.h"

static inline int mounts_under(const char *dir)
{
	char line[4096], mnt[4096];
	int n = 0;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 &&
		    !strncmp(mnt, dir, strlen(dir)))
			n++;
	if (f)
		fclose(f);
	return n;
}

static inline int loops_under(const char *dir)
{
	char line[4096];
	glob_t g;
	int n = 0;

	if (glob("/sys/block/loop*/loop/backing_file", 0, NULL, &g))
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");

		if (f && fgets(line, sizeof(line), f) &&
		    !strncmp(line, dir, strlen(dir)))
			n++;
		if (f)
			fclose(f);
	}
	globfree(&g);
	return n;
}

static inline int scratch_dirs_under(const char *dir)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)))
		n += !strncmp(de->d_name, "encbench-trace.", 15);
	if (d)
		closedir(d);
	return n;
}

/* The ids a program run appended to its ENCBENCH_IDS_FILE; -1 if the
 * file cannot be read. */
static inline int bpf_ids_from_file(const char *path, struct bpf_id *out,
				    int max)
{
	char kind[8];
	unsigned int id;
	int n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (n < max && fscanf(f, "%7s %u", kind, &id) == 2) {
		out[n].kind = strcmp(kind, "link") ? BPF_ID_PROG : BPF_ID_LINK;
		out[n++].id = id;
	}
	fclose(f);
	return n;
}

static inline int bpf_ids_count(const struct bpf_id *ids, int n,
				enum bpf_id_kind kind)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += ids[i].kind == kind;
	return k;
}

/* Does the kernel still hold this program or link? */
static inline bool bpf_id_alive(const struct bpf_id *id)
{
	int fd = id->kind == BPF_ID_LINK ? bpf_link_get_fd_by_id(id->id)
					 : bpf_prog_get_fd_by_id(id->id);

	if (fd >= 0) {
		close(fd);
		return true;
	}
	return errno != ENOENT;
}

static inline int bpf_ids_alive(const struct bpf_id *ids, int n)
{
	int alive = 0;

	for (int i = 0; i < n; i++)
		alive += bpf_id_alive(&ids[i]);
	return alive;
}

/*
 * Everything left behind under dir, plus those of ids the kernel still
 * holds. Loop autoclear runs as the last reference goes, and the kernel
 * frees a BPF program a little after its last fd closes (RCU): poll, for
 * at most five seconds.
 */
static inline int leftovers(const char *dir, const struct bpf_id *ids,
			    int nr_ids)
{
	int n;

	for (int i = 0; i < 50; i++) {
		n = mounts_under(dir) + loops_under(dir) +
		    scratch_dirs_under(dir) + bpf_ids_alive(ids, nr_ids);
		if (!n)
			return 0;
		usleep(100000);
	}
	fprintf(stderr,
		"# left behind under %s: %d mounts, %d loops, %d "
		"scratch folders; %d of our %d BPF programs and links\n",
		dir, mounts_under(dir), loops_under(dir),
		scratch_dirs_under(dir), bpf_ids_alive(ids, nr_ids), nr_ids);
	return n;
}

/* ---- another tracer on the machine ----------------------------------- */

/* The BPF link ids process pid holds, from its fds' fdinfo. */
static inline int links_of_pid(pid_t pid, struct bpf_id *out, int max)
{
	char path[64], line[128];
	unsigned int id;
	glob_t g;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/*", pid);
	if (glob(path, 0, NULL, &g))
		return 0;
	for (size_t i = 0; i < g.gl_pathc && n < max; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");

		while (f && n < max && fgets(line, sizeof(line), f))
			if (sscanf(line, "link_id: %u", &id) == 1)
				out[n++] = (struct bpf_id){BPF_ID_LINK, id};
		if (f)
			fclose(f);
	}
	globfree(&g);
	return n;
}

/*
 * libbpf-tools' biolatency names its programs block_rq_issue_btf and
 * block_rq_complete_btf, as attrib.bpf.c does: started before a test and
 * left running through it, it proves the test tells our objects from
 * another tracer's. Returns its pid once it has attached (its links show
 * in its fdinfo), after filling `links` with their ids; -1 on failure.
 */
static inline pid_t foreign_tracer_start(struct bpf_id *links, int max, int *nr)
{
	const char *bin = "/usr/sbin/biolatency";
	pid_t pid;

	if (access(bin, X_OK)) {
		fprintf(stderr, "# %s missing: run scripts/install-deps.sh\n",
			bin);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		freopen("/dev/null", "w", stdout);
		execl(bin, bin, NULL);
		_exit(98);
	}
	for (int i = 0; i < 200; i++) {
		*nr = links_of_pid(pid, links, max);
		if (*nr >= 2)
			return pid;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			break;
		usleep(50000);
	}
	fprintf(stderr, "# biolatency did not attach\n");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

/* Still running, and holding every link it had? */
static inline bool foreign_tracer_intact(pid_t pid, const struct bpf_id *links,
					 int nr)
{
	return pid > 0 && waitpid(pid, NULL, WNOHANG) == 0 &&
	       bpf_ids_alive(links, nr) == nr;
}

static inline void foreign_tracer_stop(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGINT);
		waitpid(pid, NULL, 0);
	}
}

/* leftovers() of the BPF ids the runs recorded in ids_file (their
 * ENCBENCH_IDS_FILE): what they left under dir, and of what they made in
 * the kernel. */
static inline int leftovers_recorded(const char *dir, const char *ids_file)
{
	static struct bpf_id ids[4 * MAX_BPF_IDS];
	int n = bpf_ids_from_file(ids_file, ids, 4 * MAX_BPF_IDS);

	return leftovers(dir, ids, n < 0 ? 0 : n);
}

#endif
