/* SPDX-License-Identifier: MIT */
/*
 * Reading /proc/self/mountinfo: what is mounted where. Shared by probe
 * (its own tracefs mount), storage (the targets' mounts) and the
 * state file's undo of a mount.
 */
#ifndef ENCBENCH_MOUNTINFO_H
#define ENCBENCH_MOUNTINFO_H

#include <stddef.h>

#include "results.h"

/* A mountinfo field in place: \ooo (how the kernel writes space, tab,
 * newline and backslash) back to its character. */
void mountinfo_unescape(char *s);
/* The topmost mount at mnt: its fs type and source; 0 or -ENOENT. */
int mount_at(const char *mnt, char *fstype, size_t tlen, char *source,
	     size_t slen);

/* One line of /proc/self/mountinfo. */
struct mount_entry {
	char mnt[PATH_LEN];
	char type[NAME_LEN / 2];
	char source[PATH_LEN];
	char options[DETAIL_LEN * 2]; /* the filesystem's own ("super") */
	unsigned int major, minor;
};

/* The mount `dir` is on (the deepest, the last mounted): 0 or -errno. */
int mount_of(const char *dir, struct mount_entry *m);

#endif /* ENCBENCH_MOUNTINFO_H */
