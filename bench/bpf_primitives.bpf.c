// SPDX-License-Identifier: GPL-2.0
/*
 * What the operations the tracer's programs are made of cost on this
 * machine, each alone, run by BPF_PROG_TEST_RUN (bench/bpf-primitives.sh).
 * XDP programs because their test run repeats a program and times the
 * loop in the kernel; the operations are the same helpers and inlined map
 * accesses a tracepoint program uses. Everything stays in the cache here:
 * what a real event adds on top (cold lines, dispatch) is not seen.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* As the tracer's start maps: preallocated, keyed by a pointer. */
struct start {
	__u64 ts, queued, dm;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);
	__type(value, struct start);
} items SEC(".maps");

/* As `devs`: a few dev_t. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u32);
} few SEC(".maps");

/* As `stats`: one slot shared by every CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} shared SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} percpu SEC(".maps");

/* A key nobody inserts: distinct per run, so every lookup misses. */
__u64 seq = 0;
/* The key the script inserts before the runs (HIT_KEY there). */
#define HIT_KEY 7

SEC("xdp")
int empty(struct xdp_md *ctx)
{
	return XDP_PASS;
}

SEC("xdp")
int ktime(struct xdp_md *ctx)
{
	seq += bpf_ktime_get_ns();
	return XDP_PASS;
}

SEC("xdp")
int hash_lookup_miss(struct xdp_md *ctx)
{
	__u64 key = ++seq | 1ULL << 40;

	return bpf_map_lookup_elem(&items, &key) ? XDP_DROP : XDP_PASS;
}

SEC("xdp")
int hash_lookup_hit(struct xdp_md *ctx)
{
	__u64 key = HIT_KEY;

	return bpf_map_lookup_elem(&items, &key) ? XDP_PASS : XDP_DROP;
}

SEC("xdp")
int small_hash_lookup(struct xdp_md *ctx)
{
	__u32 key = (__u32)++seq;

	return bpf_map_lookup_elem(&few, &key) ? XDP_DROP : XDP_PASS;
}

/* An item's life in a start map: inserted, then deleted. */
SEC("xdp")
int hash_update_delete(struct xdp_md *ctx)
{
	__u64 key = ++seq;
	struct start v = {.ts = key};

	bpf_map_update_elem(&items, &key, &v, BPF_NOEXIST);
	bpf_map_delete_elem(&items, &key);
	return XDP_PASS;
}

/* Three atomic adds on one slot all CPUs share (a layer's counters). */
SEC("xdp")
int shared_atomics3(struct xdp_md *ctx)
{
	__u32 zero = 0;
	__u64 *p = bpf_map_lookup_elem(&shared, &zero);

	if (!p)
		return XDP_PASS;
	__sync_fetch_and_add(p, 1);
	__sync_fetch_and_add(p, 2);
	__sync_fetch_and_add(p, 3);
	return XDP_PASS;
}

/* The same on this CPU's own slot: plain adds need no lock. */
SEC("xdp")
int percpu_adds3(struct xdp_md *ctx)
{
	__u32 zero = 0;
	__u64 *p = bpf_map_lookup_elem(&percpu, &zero);

	if (!p)
		return XDP_PASS;
	*p += 1;
	*p += 2;
	*p += 3;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
