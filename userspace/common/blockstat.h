/* SPDX-License-Identifier: MIT */
/* The kernel's own byte counts of a block device (/sys/block/<dev>/stat). */
#ifndef ENCBENCH_BLOCKSTAT_H
#define ENCBENCH_BLOCKSTAT_H

#include <stdint.h>

/* Bytes device major:minor has read since it appeared (field 3, sectors
 * read, times 512: the kernel's unit whatever the device's block size):
 * 0 and *out, or negative errno. A dm device counts the bios it was
 * sent, a disk the data it delivered. */
int blockstat_read_bytes(unsigned int major, unsigned int minor, uint64_t *out);

#endif
