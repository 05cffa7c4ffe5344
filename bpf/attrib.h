/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Types shared by attrib.bpf.c and user space: the layer vocabulary, the
 * per-(layer, op) statistics the BPF side accumulates, and the filter user
 * space fills in before attaching.
 */
#ifndef __ATTRIB_H
#define __ATTRIB_H

/* Order is the order layers are printed in, top (what the caller sees) down. */
enum layer {
	LAYER_SYSCALL,
	LAYER_FS,
	LAYER_CRYPT_QUEUE,
	LAYER_CRYPT,
	/* dm-crypt's write thread: an encrypted write clone from its hand-off
	 * (kcryptd_crypt_write_io_submit) to its submission below. */
	LAYER_DMCRYPT_WRITE,
	LAYER_DM,
	LAYER_BLK_QUEUE,
	LAYER_DEVICE,
	/* Runnable, not running: a wait component only (wait.h), no items. */
	LAYER_CPU_WAIT,
	NR_LAYERS,
};

/*
 * What a syscall or io_uring request does (prefixed: vmlinux.h has NFSv4's
 * OP_READ/OP_WRITE). The block layers know only reads and writes; sync,
 * create and copy are seen at the syscall layer. Append only: results.json
 * names them (results.c).
 */
enum eb_op {
	EB_OP_READ,
	EB_OP_WRITE,
	EB_OP_SYNC,   /* fsync, fdatasync, sync_file_range, syncfs */
	EB_OP_CREATE, /* open with O_CREAT, creat, mkdir, unlink, rename */
	EB_OP_COPY,   /* copy_file_range, sendfile, splice */
	NR_OPS,
};

/*
 * Value of the sys_ops map, by syscall number: 0 ignores the call, else
 * 1 + enum eb_op in the low byte. Open calls count as creates only with
 * O_CREAT: SYS_OP_IF_CREAT(n) says the flags are argument n (0-based),
 * SYS_OP_IF_HOW_CREAT that they lead struct open_how at argument 2
 * (openat2).
 */
#define SYS_OP_MASK	    0xff
#define SYS_OP_IF_CREAT(n)  ((1u + (n)) << 8)
#define SYS_OP_IF_HOW_CREAT (0xfu << 8)
#define SYS_OP_CREAT_ARG(v) ((int)(((v) >> 8) & 0xf) - 1)
#define SYS_OP_O_CREAT	    0100 /* asm-generic/fcntl.h, octal */

/* log2(ns) slots: slot i counts latencies in [2^i, 2^(i+1)) ns; slot 0 also
 * takes 0 ns. 40 slots reach 2^40 ns (18 minutes). */
#define HIST_SLOTS 40

struct layer_stat {
	unsigned long long count;
	unsigned long long sum_ns;
	/* Wall time with at least one item of this layer in flight: sums
	 * overlap away, so busy_ns is comparable with the caller's time. */
	unsigned long long busy_ns;
	long long inflight;
	unsigned long long busy_start;
	unsigned long long slots[HIST_SLOTS];
	/* Items never timed because the layer's map of items in flight was
	 * full: count, sum and busy time are short by these. */
	unsigned long long dropped;
	/* Items (requests) that ended where no BPF program ran, found
	 * over later (attrib.bpf.c: rq_unseen): not in count or sum. */
	unsigned long long unseen;
	/* device: data-less flush requests the kernel ended without issuing
	 * them (attrib.bpf.c: on_rq_complete); it counts them as writes. */
	unsigned long long unissued;
};

/* The kernel's dev_t: 12 bits major, 20 bits minor (include/linux/kdev_t.h),
 * the key of the device filter on both sides. */
#define KDEV_MINORBITS 20
#define KDEV(ma, mi)   (((__u32)(ma) << KDEV_MINORBITS) | (__u32)(mi))

#define MAX_TARGET_DEVS 8
#define MAX_CRYPT_FUNCS 16

/*
 * What a work function found on a workqueue does, and so where its work
 * item leads to a device. Values are shared with user space: append only.
 */
enum crypt_work_kind {
	CRYPT_WORK_NONE,
	CRYPT_WORK_FSCRYPT_READ, /* ext4 decrypt_work: bio_post_read_ctx */
	CRYPT_WORK_DMCRYPT,	 /* kcryptd_crypt: direction from the bio */
	CRYPT_WORK_BLK_CRYPTO,	 /* blk-crypto fallback decrypt */
	CRYPT_WORK_FSCRYPT_BH,	 /* decrypt_bh (fs/buffer.c): a buffer_head */
};

#define NR_CRYPT_WORK_KINDS (CRYPT_WORK_FSCRYPT_BH + 1)

/*
 * The pid_bits map (attrib.bpf.c): a nibble per pid saying which hash maps
 * may hold an entry for it. Sized by user space from pid_max (20 KiB of
 * memlock at the usual 32768), up to PID_BITS_MAX_PIDS (256 KiB), so that
 * all maps stay within 8 MiB; pids beyond it are always looked up.
 */
enum pid_bit {
	PID_CALLER = 1,	    /* a thread in a timed syscall: sys_start, thr */
	PID_WORKER = 2,	    /* a worker the caller waits on: workers */
	PID_TRACED = 4,	    /* a process whose syscalls count: traced */
	PID_CRYPT_ITEM = 8, /* a worker running crypto work: cx_start */
};

#define PID_BITS_PER_WORD 16
#define PID_BITS_SHIFT(p) ((p) % PID_BITS_PER_WORD * 4)
#define PID_BITS_MAX_PIDS (1u << 19)

#include "wait.h"

#endif /* __ATTRIB_H */
