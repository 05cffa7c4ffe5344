/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Shared by zfscrypt.bpf.c and user space (userspace/trace/zfscrypt.c). */
#ifndef __ZFSCRYPT_H
#define __ZFSCRYPT_H

#define ZFS_MAX_OBJSETS 8

/* Which thread ran spa_do_crypt_abd: ZFS's taskq threads or the caller
 * (a read that finds the block encrypted in the ARC decrypts in place). */
enum zfs_worker {
	ZFS_WORKER_CALLER, /* not a z_* taskq thread: the reader, txg_sync */
	ZFS_WORKER_RD,	   /* z_rd_int / z_rd_iss taskqs */
	ZFS_WORKER_WR,	   /* z_wr_iss / z_wr_int taskqs */
	ZFS_WORKER_OTHER_TASKQ, /* another z_* taskq */
	ZFS_NR_WORKERS,
};

#endif /* __ZFSCRYPT_H */
