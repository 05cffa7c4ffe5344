// SPDX-License-Identifier: MIT
/* /proc/self/mountinfo: see mountinfo.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
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
