/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Events of the timeline (--timeline): timeline.bpf.c sends them through
 * a ring buffer for the first seconds of a phase, user space pairs starts
 * with ends into spans.
 */
#ifndef __TIMELINE_H
#define __TIMELINE_H

enum tl_kind {
	TL_SYS_ENTER,	/* key: syscall nr, arg: its sys_ops value */
	TL_SYS_EXIT,	/* arg: return value */
	TL_BIO_QUEUE,	/* key: bio, sector, bytes, arg: 1 + op */
	TL_RQ_ISSUE,	/* key: request, arg: its first bio, sector, bytes */
	TL_RQ_COMPLETE, /* key: request */
	TL_WORK_START,	/* key: work item, arg: enum crypt_work_kind */
	TL_WORK_END,	/* key: work item (not read: may be freed) */
	TL_WAKEUP,	/* tid: the woken thread, arg: the waker's tid */
};

struct tl_event {
	unsigned long long ts;
	unsigned long long key;
	unsigned long long arg;
	unsigned long long sector;
	unsigned int bytes;
	unsigned int dev; /* KDEV of the disk, block events */
	unsigned int tgid, tid;
	unsigned int kind;
	unsigned int pad;
};

#endif /* __TIMELINE_H */
