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
#include <bpf/bpf_tracing.h>

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
 * they become on the devices below (block.bpf.h: dm_origin_queued). */
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

/* Syscall argument n (0-based) from the user registers sys_enter gets. */
static __always_inline __u64 sys_arg(struct pt_regs *regs, int n)
{
	if (n == 0)
		return PT_REGS_PARM1_CORE_SYSCALL(regs);
	if (n == 1)
		return PT_REGS_PARM2_CORE_SYSCALL(regs);
	if (n == 2)
		return PT_REGS_PARM3_CORE_SYSCALL(regs);
	return PT_REGS_PARM4_CORE_SYSCALL(regs);
}

/* 1 + enum eb_op of this call, or 0 when it is not counted: an open
 * counts (as a create) only with O_CREAT. */
static __always_inline __u32 sys_op_of(struct pt_regs *regs, __u32 v)
{
	int arg = SYS_OP_CREAT_ARG(v);
	__u64 flags = 0;

	if (arg < 0)
		return v & SYS_OP_MASK;
	if ((v & SYS_OP_IF_HOW_CREAT) == SYS_OP_IF_HOW_CREAT) {
		/* openat2: flags is the first member of struct open_how. */
		if (bpf_probe_read_user(&flags, sizeof(flags),
					(void *)sys_arg(regs, 2)))
			return 0;
	} else {
		flags = sys_arg(regs, arg);
	}
	return flags & SYS_OP_O_CREAT ? v & SYS_OP_MASK : 0;
}

/*
 * The enum eb_op of the syscall the current task is in, from the user
 * registers its kernel entry saved (task_pt_regs), or -1: not in a
 * counted call (in user space, a page fault or an interrupt from there,
 * whose entries store -1 as the syscall number). Where the workload
 * times its own calls (calls_by_sched, wait_state.bpf.h), this replaces
 * the raw syscall tracepoints: while attached, those put every thread of
 * the machine on the slow syscall path. Valid where current is the task
 * that matters: sched_switch's prev, a CPU sample's interrupted task.
 */
static __always_inline int current_call_op(void)
{
#if defined(__TARGET_ARCH_x86)
	struct pt_regs *regs =
		(struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	long nr = BPF_CORE_READ(regs, orig_ax);
	__u32 key, *v, op;

	if (nr < 0 || nr >= MAX_SYSCALLS)
		return -1;
	key = nr;
	v = bpf_map_lookup_elem(&sys_ops, &key);
	if (!v || !*v)
		return -1;
	op = sys_op_of(regs, *v);
	return op ? (int)op - 1 : -1;
#else
	/* User space enables calls_by_sched on x86 only. */
	return -1;
#endif
}

/* A CPU sample (a perf_event program's ctx: the interrupted registers)
 * taken in user space: x86's privilege level, the low bits of the code
 * segment it saved. The verifier takes only whole words of ctx: a read
 * of regs.cs as the u16 it is was refused. */
static __always_inline bool sample_in_user(void *ctx)
{
#if defined(__TARGET_ARCH_x86)
	__u64 cs = *(volatile __u64 *)(ctx +
				       __builtin_offsetof(struct pt_regs, cs));

	return (cs & 3) == 3;
#else
	(void)ctx;
	return false;
#endif
}

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
