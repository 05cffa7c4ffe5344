/* SPDX-License-Identifier: MIT */
/*
 * What a run may leave behind, looked up the way an administrator would:
 * mounts (/proc/self/mountinfo), loop devices (sysfs backing_file), scratch
 * folders, and BPF links whose program is one of ours (by name, from the
 * skeletons). Header-only: shared by the integration tests.
 */
#ifndef ENCBENCH_LEFTOVERS_H
#define ENCBENCH_LEFTOVERS_H

#include <dirent.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common/results.h" /* attrib.h, before the skeleton */
#include "attrib.skel.h"
#include "probe.skel.h"

static int mounts_under(const char *dir)
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

static int loops_under(const char *dir)
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

static int scratch_dirs_under(const char *dir)
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

static bool prog_is_ours(const char *name)
{
	struct attrib_bpf *a = attrib_bpf__open();
	struct probe_bpf *p = probe_bpf__open();
	struct bpf_program *prog;
	bool ours = false;

	/* The kernel keeps BPF_OBJ_NAME_LEN - 1 characters of a name. */
	if (a)
		bpf_object__for_each_program(prog, a->obj) ours |=
			!strncmp(bpf_program__name(prog), name, 15);
	if (p)
		bpf_object__for_each_program(prog, p->obj) ours |=
			!strncmp(bpf_program__name(prog), name, 15);
	attrib_bpf__destroy(a);
	probe_bpf__destroy(p);
	return ours;
}

static int our_bpf_links(void)
{
	__u32 id = 0;
	int n = 0;

	while (!bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info li = {0};
		struct bpf_prog_info pi = {0};
		__u32 len = sizeof(li);
		int fd = bpf_link_get_fd_by_id(id), pfd;

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &li, &len)) {
			pfd = bpf_prog_get_fd_by_id(li.prog_id);
			len = sizeof(pi);
			if (pfd >= 0 && !bpf_obj_get_info_by_fd(pfd, &pi, &len))
				n += prog_is_ours(pi.name);
			if (pfd >= 0)
				close(pfd);
		}
		close(fd);
	}
	return n;
}

/* Everything left behind under dir, plus our BPF links anywhere. Loop
 * autoclear runs as the last reference goes: give it two seconds. */
static inline int leftovers(const char *dir)
{
	int n;

	for (int i = 0; i < 20; i++) {
		n = mounts_under(dir) + loops_under(dir) +
		    scratch_dirs_under(dir) + our_bpf_links();
		if (!n)
			return 0;
		usleep(100000);
	}
	fprintf(stderr,
		"# left behind under %s: %d mounts, %d loops, %d "
		"scratch folders, %d BPF links\n",
		dir, mounts_under(dir), loops_under(dir),
		scratch_dirs_under(dir), our_bpf_links());
	return n;
}

#endif
