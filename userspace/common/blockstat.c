// SPDX-License-Identifier: MIT
/* /sys/dev/block/M:m/stat, read for what the device itself did. */
#include <errno.h>
#include <stdio.h>

#include "blockstat.h"

int blockstat_read_bytes(unsigned int major, unsigned int minor, uint64_t *out)
{
	unsigned long long ios, merges, sectors;
	char path[64];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/stat", major, minor);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fscanf(f, "%llu %llu %llu", &ios, &merges, &sectors);
	fclose(f);
	if (n != 3)
		return -EIO;
	*out = sectors * 512;
	return 0;
}
