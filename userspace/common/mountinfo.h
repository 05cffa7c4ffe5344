/* SPDX-License-Identifier: MIT */
/*
 * Reading /proc/self/mountinfo: what is mounted where. Shared by probe
 * (its own tracefs/bpffs mounts), storage (the targets' mounts) and the
 * state file's undo of a mount.
 */
#ifndef ENCBENCH_MOUNTINFO_H
#define ENCBENCH_MOUNTINFO_H

#include <stddef.h>

/* A mountinfo field in place: \ooo (how the kernel writes space, tab,
 * newline and backslash) back to its character. */
void mountinfo_unescape(char *s);
/* The topmost mount at mnt: its fs type and source; 0 or -ENOENT. */
int mount_at(const char *mnt, char *fstype, size_t tlen, char *source,
	     size_t slen);

#endif /* ENCBENCH_MOUNTINFO_H */
