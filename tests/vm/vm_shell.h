/* SPDX-License-Identifier: MIT */
/*
 * Shell commands for the guest tests that build storage stacks with the
 * CLI tools (losetup, dmsetup, cryptsetup, zpool). Header-only, as
 * results_json.h: each test is one program.
 */
#ifndef ENCBENCH_VM_SHELL_H
#define ENCBENCH_VM_SHELL_H

#include <stdarg.h>
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

#endif
