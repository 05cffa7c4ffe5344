/* SPDX-License-Identifier: MIT */
/* ZFS datasets: what the zfs kinds build (zfs.c) and what stack detection
 * reads of any dataset (zfs_info.c). */
#ifndef ENCBENCH_ZFS_H
#define ENCBENCH_ZFS_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/results.h"

/* zpool_layer and zfs_dataset_layer are in layer.h's list. */

/* NULL if the zfs kinds can be built here, else why not. */
const char *zfs_unavailable(const struct capabilities *caps);

/* Fill z with the properties of `dataset` (zfs get) and the module's
 * version: 0 or negative errno. */
int zfs_dataset_info(const char *dataset, struct zfs_info *z);
/* The ZFS dataset mounted at or above `dir` (the mount table's source
 * of a zfs mount), into buf: 0, or -ENOENT if dir is not on ZFS. */
int zfs_dataset_of(const char *dir, char *buf, size_t len);
/* Fill ti's encryption facts from z: ZFS encrypts with its own code (the
 * ICP), not the kernel's crypto API, so the driver is ZFS's choice. */
void zfs_describe_encryption(const struct zfs_info *z, struct target_info *ti);
/* Write out the open transaction group of z's pool (`zpool sync`) and
 * wait for it: 0, or -EIO. */
int zfs_pool_sync(const struct zfs_info *z);
/* The caveat O_DIRECT workloads must state on this dataset, or NULL. */
const char *zfs_direct_caveat(const struct zfs_info *z);

#endif /* ENCBENCH_ZFS_H */
