// SPDX-License-Identifier: MIT
/* The kernel's own per-device request counters, to cross-check `device`. */
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "trace.h"
#include "trace_priv.h"

static bool sysfs_dev_has(unsigned int major, unsigned int minor,
			  const char *what)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s", major, minor,
		 what);
	return access(path, F_OK) == 0;
}

static bool filter_has(const struct trace_filter *f, unsigned int major,
		       unsigned int minor)
{
	for (int i = 0; i < f->nr_devs; i++)
		if (f->major[i] == major && f->minor[i] == minor)
			return true;
	return false;
}

/*
 * The kernel's completed read and write requests (/sys/block/<dev>/stat
 * fields 1 and 5) summed over the filter's request-based devices: dm
 * devices count bios, not requests, and a partition whose disk is also
 * in the filter is already in the disk's figures.
 */
void kernel_requests(const struct trace_filter *f, uint64_t out[NR_OPS])
{
	out[OP_READ] = out[OP_WRITE] = 0;
	for (int i = 0; i < f->nr_devs; i++) {
		unsigned long long rd, rm, rs, rt, wr;
		unsigned int pmaj, pmin;
		char path[PATH_MAX];
		FILE *s;

		if (sysfs_dev_has(f->major[i], f->minor[i], "dm"))
			continue;
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../dev",
			 f->major[i], f->minor[i]);
		if (sysfs_dev_has(f->major[i], f->minor[i], "partition") &&
		    (s = fopen(path, "re"))) {
			bool dup = fscanf(s, "%u:%u", &pmaj, &pmin) == 2 &&
				   filter_has(f, pmaj, pmin);

			fclose(s);
			if (dup)
				continue;
		}
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/stat",
			 f->major[i], f->minor[i]);
		s = fopen(path, "re");
		if (!s)
			continue;
		if (fscanf(s, "%llu %llu %llu %llu %llu", &rd, &rm, &rs, &rt,
			   &wr) == 5) {
			out[OP_READ] += rd;
			out[OP_WRITE] += wr;
		}
		fclose(s);
	}
}
