// SPDX-License-Identifier: GPL-2.0
/*
 * Trivial programs, one per attach method. `probe` loads and attaches each
 * on its own: whether a method works is tested, never inferred from a
 * kernel version (fentry can fail with EPERM on a kernel that has it).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("tp_btf/sys_enter")
int BPF_PROG(probe_tp_btf, struct pt_regs *regs, long id)
{
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(probe_raw_tp)
{
	return 0;
}

SEC("fentry/vfs_read")
int BPF_PROG(probe_fentry)
{
	return 0;
}

SEC("kprobe/vfs_read")
int BPF_KPROBE(probe_kprobe)
{
	return 0;
}

SEC("perf_event")
int probe_perf_event(struct bpf_perf_event_data *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
