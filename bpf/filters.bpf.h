/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filters every part of the attribution (attrib.bpf.c and the
 * wait_*.bpf.h headers) applies, and the timeline (timeline.bpf.c, whose
 * maps of the same names user space points at the attribution's):
 * whether a phase is being traced, which processes and syscalls count,
 * which devices are the target's, and which work items are crypto work
 * of theirs. The per-pid bits in front of them are pid_bits.bpf.h's.
 */
#ifndef __FILTERS_BPF_H
#define __FILTERS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "attrib.h"
#include "core_fixes.bpf.h"

/*
 * Per enum crypt_work_kind: where the pointer that leads to the device
 * (a bio, a buffer_head) sits relative to the work item, which is embedded
 * in a context struct. Resolved by user space from BTF, not by CO-RE: ext4
 * and f2fs both have a struct bio_post_read_ctx, and a relocation against
 * that name is ambiguous. 0: not resolved (two members of one struct never
 * share an offset), the kind then counts on every device.
 */
const volatile long long ctx_delta[NR_CRYPT_WORK_KINDS] = {};

/* Set by user space at each phase (trace_begin / trace_end). */
__u32 tracing_on = 0;
/* Set by user space with the target's devices (devs). */
__u32 filter_devs = 0;
/* A device-mapper device is in the filter: follow dm bios to the bios
 * they become on the devices below (attrib.bpf.c: dm_origin_queued). */
__u32 filter_dm = 0;

#define MAX_SYSCALLS 1024
/* Traced processes alive at once (an exiting one leaves the map): the
 * server workloads' dozens of workers, a build's jobs. 8192 held 641 KiB
 * of the 8 MiB budget. */
#define MAX_TRACED   4096

/* Processes whose syscalls count: descendants of root_tgid
 * (attrib.bpf.c), the followed ones, `trace`'s PID. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_TRACED);
	__type(key, __u32);
	__type(value, __u8);
} traced SEC(".maps");

/* Syscall nr -> SYS_OP_* encoding of attrib.h. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_SYSCALLS);
	__type(key, __u32);
	__type(value, __u32);
} sys_ops SEC(".maps");

/* Kernel dev_t of the target's devices (any layer). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2 * MAX_TARGET_DEVS);
	__type(key, __u32);
	__type(value, __u32);
} devs SEC(".maps");

/* Work function address -> enum crypt_work_kind. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_CRYPT_FUNCS);
	__type(key, __u64);
	__type(value, __u32);
} crypt_funcs SEC(".maps");

static __always_inline bool dev_ok(__u32 dev)
{
	if (!filter_devs)
		return true;
	return dev && bpf_map_lookup_elem(&devs, &dev);
}

/* A bio of the target: its whole disk or its partition is filtered. */
static __always_inline bool bio_dev_ok(struct bio *bio, bool btf)
{
	if (!bio)
		return false;
	if (!filter_devs)
		return true;
	return dev_ok(disk_dev(get_gendisk(bio, btf), btf)) ||
	       dev_ok(get_bio_bdev_dev(bio, btf));
}

/* The pointer at ctx_delta[kind] from the work item (see ctx_delta). */
static __always_inline void *ctx_ptr(struct work_struct *work, long long delta)
{
	void *p = NULL;

	bpf_probe_read_kernel(&p, sizeof(p), (void *)work + delta);
	return p;
}

#endif /* __FILTERS_BPF_H */
