/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel struct layouts that changed under us, read with CO-RE so one
 * object loads on every kernel with BTF. After libbpf-tools'
 * core_fixes.bpf.h: each flavour names the commit that forced it.
 */
#ifndef __CORE_FIXES_BPF_H
#define __CORE_FIXES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "attrib.h" /* KDEV */

/*
 * A field read, src->a(->b...): a direct load where the program's BTF
 * types src (a tp_btf argument, btf a constant true), which the verifier
 * checks and which needs no helper call; BPF_CORE_READ otherwise (raw_tp,
 * or a pointer read from memory or computed). Both read 0 on a fault.
 */
#define BTF_READ(btf, src, a, ...)                                             \
	((btf) ? ___arrow((src), a, ##__VA_ARGS__)                             \
	       : BPF_CORE_READ(src, a, ##__VA_ARGS__))

/*
 * REQ_OP_BITS has been 8 since ef295ecf090d ("block: better op and flags
 * encoding", v4.10); the mask is a macro, so it is not in vmlinux.h.
 */
#define REQ_OP_MASK_	((1U << 8) - 1)
#define REQ_OP_DISCARD_ 3

/*
 * The op a bio or request counts under, the way the kernel's diskstats
 * count it (op_stat_group(): discard apart, an op with the write bit set
 * is a write, REQ_OP_WRITE_ZEROES included), so the `device` layer stays
 * comparable with /sys/block/<dev>/stat. -1 for the rest (flush, discard).
 */
static __always_inline int op_group(__u32 opf)
{
	__u32 op = opf & REQ_OP_MASK_;

	if (op == 0)
		return 0; /* EB_OP_READ */
	if ((op & 1) && op != REQ_OP_DISCARD_)
		return 1; /* EB_OP_WRITE */
	return -1;
}

/*
 * 309dca309fc3 ("block: store a block_device pointer in struct bio",
 * v5.12) replaced bio->bi_disk with bio->bi_bdev.
 */
struct bio___x {
	struct block_device *bi_bdev;
} __attribute__((preserve_access_index));

struct bio___old {
	struct gendisk *bi_disk;
} __attribute__((preserve_access_index));

static __always_inline struct gendisk *get_gendisk(void *bio, bool btf)
{
	struct bio___x *b = bio;

	if (bpf_core_field_exists(b->bi_bdev))
		return BTF_READ(btf, b, bi_bdev, bd_disk);
	return BTF_READ(btf, (struct bio___old *)bio, bi_disk);
}

/* The partition (or whole disk) a bio was submitted to, 0 if unknown. */
static __always_inline __u32 get_bio_bdev_dev(void *bio, bool btf)
{
	struct bio___x *b = bio;

	if (bpf_core_field_exists(b->bi_bdev))
		return BTF_READ(btf, b, bi_bdev, bd_dev);
	return 0;
}

/*
 * f3fa33acca9f ("block: remove the ->rq_disk field in struct request",
 * v5.17) leaves rq->q->disk, added by d152c682f03c ("block: add an
 * explicit ->disk backpointer to the request_queue", v5.15).
 */
struct request___x {
	struct request_queue *q;
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

struct request_queue___x {
	struct gendisk *disk;
} __attribute__((preserve_access_index));

static __always_inline struct gendisk *get_disk(void *request, bool btf)
{
	struct request___x *r = request;
	struct request_queue___x *q;

	if (bpf_core_field_exists(r->rq_disk))
		return BTF_READ(btf, r, rq_disk);
	q = (void *)BTF_READ(btf, r, q);
	return BTF_READ(btf, q, disk);
}

static __always_inline __u32 disk_dev(struct gendisk *disk, bool btf)
{
	if (!disk)
		return 0;
	return KDEV(BTF_READ(btf, disk, major),
		    BTF_READ(btf, disk, first_minor));
}

/*
 * dm-crypt's per-bio state lives in the dm_crypt module, so this resolves
 * against module BTF (libbpf searches module BTF when vmlinux lacks the
 * type). The work item kcryptd_crypt runs on is embedded in it.
 */
struct crypt_config___x {
	struct task_struct *write_thread;
} __attribute__((preserve_access_index));

struct dm_crypt_io___x {
	struct crypt_config___x *cc;
	struct work_struct work;
	struct bio *base_bio;
	blk_status_t error;
} __attribute__((preserve_access_index));

/* dm core (drivers/md/dm-core.h): a target is given the clone embedded in
 * a dm_target_io; its dm_io holds the bio submitted to the dm device. */
struct dm_io___x {
	struct bio *orig_bio;
} __attribute__((preserve_access_index));

struct dm_target_io___x {
	struct dm_io___x *io;
	struct bio clone;
} __attribute__((preserve_access_index));

#endif /* __CORE_FIXES_BPF_H */
