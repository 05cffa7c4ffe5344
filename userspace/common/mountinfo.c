// SPDX-License-Identifier: MIT
/* /proc/self/mountinfo: see mountinfo.h. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mountinfo.h"
#include "results.h"

static bool is_octal(char c)
{
	return c >= '0' && c <= '7';
}

void mountinfo_unescape(char *s)
{
	char *d = s;

	for (; *s; s++, d++) {
		if (s[0] == '\\' && is_octal(s[1]) && is_octal(s[2]) &&
		    is_octal(s[3])) {
			*d = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				    (s[3] - '0'));
			s += 3;
		} else {
			*d = *s;
		}
	}
	*d = '\0';
}

int mount_at(const char *mnt, char *fstype, size_t tlen, char *source,
	     size_t slen)
{
	static char line[3 * PATH_LEN], point[PATH_LEN], type[NAME_LEN],
		src[PATH_LEN];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int err = -ENOENT;

	while (f && fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");

		if (!sep ||
		    sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1 ||
		    sscanf(sep + 3, "%63s %4095s", type, src) != 2)
			continue;
		mountinfo_unescape(point);
		mountinfo_unescape(src);
		if (strcmp(point, mnt))
			continue;
		/* Later lines are mounted over earlier ones: keep the last. */
		snprintf(fstype, tlen, "%s", type);
		snprintf(source, slen, "%s", src);
		err = 0;
	}
	if (f)
		fclose(f);
	return err;
}

static bool path_within(const char *path, const char *mnt)
{
	size_t n = strlen(mnt);

	if (!strcmp(mnt, "/"))
		return true;
	return !strncmp(path, mnt, n) && (path[n] == '/' || path[n] == '\0');
}

int mount_of(const char *dir, struct mount_entry *m)
{
	static char line[3 * PATH_MAX];
	char real[PATH_MAX], mnt[PATH_MAX], src[PATH_MAX], opts[1024];
	char type[64];
	size_t best = 0;
	bool found = false;
	unsigned int ma, mi;
	FILE *f;

	if (!realpath(dir, real))
		return -errno;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		opts[0] = '\0';
		if (!sep ||
		    sscanf(line, "%*s %*s %u:%u %*s %4095s", &ma, &mi, mnt) !=
			    3 ||
		    sscanf(sep + 3, "%63s %4095s %1023s", type, src, opts) < 2)
			continue;
		mountinfo_unescape(mnt);
		/* The deepest mount containing dir; of mounts on the same
		 * point, the last one (it hides the others). */
		if (!path_within(real, mnt) || strlen(mnt) < best)
			continue;
		best = strlen(mnt);
		found = true;
		mountinfo_unescape(src);
		snprintf(m->mnt, sizeof(m->mnt), "%s", mnt);
		snprintf(m->type, sizeof(m->type), "%s", type);
		snprintf(m->source, sizeof(m->source), "%s", src);
		snprintf(m->options, sizeof(m->options), "%s", opts);
		m->major = ma;
		m->minor = mi;
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}
