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
