/* SPDX-License-Identifier: MIT */
/*
 * Shell commands for the guest tests that build storage stacks with the
 * CLI tools (losetup, dmsetup, cryptsetup, zpool). Header-only, as
 * results_json.h: each test is one program.
 */
#ifndef ENCBENCH_VM_SHELL_H
#define ENCBENCH_VM_SHELL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * mkfs.ext4 for a test's stack, with its inode tables and journal written
 * by mkfs itself: otherwise ext4lazyinit zeroes them through the whole
 * stack for seconds after the mount, behind the first traced command
 * (seen in the 6.1 guest: 6000 sectors written in the 4 s after mount;
 * the loop worker busy with them added 12 ms of device wait to each of
 * test_vm_delay's reads at 10 ms of delay, and none at 50 ms).
 */
#define MKFS_EXT4 "mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0"

/* system() of a printf-formatted command: its status, 0 on success. */
static inline __attribute__((format(printf, 1, 2))) int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* The first line of cmd's output, without its newline: 0, or -1 if the
 * command printed nothing or failed. */
static inline int sh_line(char *out, size_t len, const char *cmd)
{
	FILE *p = popen(cmd, "r");

	if (!p || !fgets(out, (int)len, p)) {
		if (p)
			pclose(p);
		return -1;
	}
	out[strcspn(out, "\n")] = '\0';
	return pclose(p) ? -1 : 0;
}

/*
 * No OpenZFS in this guest (scripts/vm/run without --zfs, or a kernel its
 * release does not support): TAP's plan-level skip, with the harness's
 * reason, and true.
 */
static inline bool vm_zfs_skipped(void)
{
	const char *skip = getenv("ENCBENCH_VM_ZFS_SKIP");

	if (getenv("ENCBENCH_VM_ZFS"))
		return false;
	printf("1..0 # SKIP %s\n",
	       skip
		       ?: "no OpenZFS in this guest (scripts/vm/run without "
			  "--zfs)");
	return true;
}

/*
 * A loop device on img (*loop, e.g. "/dev/loop3") and on it a dm-delay
 * map called name, built undelayed (mkfs and luksFormat would take
 * minutes under a delay); *sectors is the loop device's size, for the
 * tables that delay it later. *delayed says whether the map was made,
 * for teardown, whatever failed after. 0 or -1.
 */
static inline int vm_delay_map(const char *img, const char *name, char *loop,
			       size_t loop_len, unsigned long long *sectors,
			       bool *delayed)
{
	char cmd[512], n[32];

	snprintf(cmd, sizeof(cmd), "losetup -f --show %s", img);
	if (sh_line(loop, loop_len, cmd))
		return -1;
	snprintf(cmd, sizeof(cmd), "blockdev --getsz %s", loop);
	if (sh_line(n, sizeof(n), cmd))
		return -1;
	*sectors = strtoull(n, NULL, 10);
	if (sh("dmsetup create %s --table '0 %llu delay %s 0 0'", name,
	       *sectors, loop))
		return -1;
	*delayed = true;
	return 0;
}

/* The kernel's name of dm map `name` ("dm-3"), for /sys/block. 0 or -1. */
static inline int vm_dm_name(const char *name, char *dm, size_t len)
{
	char cmd[256], n[32];

	snprintf(cmd, sizeof(cmd), "dmsetup info -c --noheadings -o minor %s",
		 name);
	if (sh_line(n, sizeof(n), cmd))
		return -1;
	snprintf(dm, len, "dm-%d", atoi(n));
	return 0;
}

/*
 * Completed I/Os and their ticks (ms) of one direction in a copy of a
 * /sys/block/DEV/stat line at path: fields 1 and 4 (reads) or 5 and 8
 * (writes), the kernel's own accounting of a device's bios. 0 or -1.
 */
static inline int vm_block_stat(const char *path, bool writes,
				unsigned long long *ios,
				unsigned long long *ticks)
{
	unsigned long long f[8];
	FILE *fp = fopen(path, "r");
	int n;

	if (!fp)
		return -1;
	n = fscanf(fp, "%llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1],
		   &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]);
	fclose(fp);
	if (n != 8)
		return -1;
	*ios = writes ? f[4] : f[0];
	*ticks = writes ? f[7] : f[3];
	return 0;
}

#endif
