/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Accounting into struct layer_stat (attrib.h): completed items go into a
 * log2 histogram plus count and sum; the number of items in flight drives
 * the busy time, the wall time with at least one item in flight.
 */
#ifndef __MAPS_BPF_H
#define __MAPS_BPF_H

#include "vmlinux.h"
#include "attrib.h"

/* errno values are macros, so vmlinux.h lacks them. */
#define EEXIST_ 17

/* When an item entered its layer, and what for (items.bpf.h's *_start
 * maps). */
struct start {
	__u64 ts;
	__u32 op;
	/* device: the request's incarnation (rq_incarnation), else 0. */
	__u32 incarnation;
	/* device: when its oldest bio was queued (0: not seen). */
	__u64 queued;
	/* blk-queue and device: when the dm bio it serves was queued on the
	 * dm device (dm_origin_queued; 0: none). */
	__u64 dm;
};

/*
 * Items in flight, one map per layer, by key_t. Invariant: one entry <->
 * one unit of stats[layer][op].inflight, so a start without its end (a
 * merged bio) must delete its entry, or the layer looks busy until the
 * phase ends. Plain hash, not LRU: an eviction would break that
 * invariant silently, while a full map only stops new items from being
 * counted, and each one it stops is counted in stats[layer][op].dropped.
 */
#define START_MAP(name, key_t, n)                                              \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_HASH);                               \
		__uint(max_entries, n);                                        \
		__type(key, key_t);                                            \
		__type(value, struct start);                                   \
	} name SEC(".maps")

static __always_inline __u64 log2_u32(__u32 v)
{
	__u32 shift, r;

	r = (v > 0xFFFF) << 4;
	v >>= r;
	shift = (v > 0xFF) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xF) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	r |= (v >> 1);
	return r;
}

static __always_inline __u64 log2_u64(__u64 v)
{
	__u32 hi = v >> 32;

	return hi ? log2_u32(hi) + 32 : log2_u32(v);
}

/* One completed item of latency lat_ns. Slot 0 holds 0 and 1 ns. */
static __always_inline void stat_record(struct layer_stat *s, __u64 lat_ns)
{
	__u64 slot = log2_u64(lat_ns);

	/*
	 * Knowing the log2 fits 32 bits, clang would clamp in a 32-bit
	 * register, and the 6.1 verifier then loses the upper bound of the
	 * 64-bit index ("math between map_value pointer and register with
	 * unbounded min value"). Hiding the value forces a 64-bit compare.
	 */
	barrier_var(slot);
	if (slot >= HIST_SLOTS)
		slot = HIST_SLOTS - 1;
	__sync_fetch_and_add(&s->count, 1);
	__sync_fetch_and_add(&s->sum_ns, lat_ns);
	__sync_fetch_and_add(&s->slots[slot], 1);
}

/* An item entered the layer: the 0 -> 1 transition opens a busy period. */
static __always_inline void stat_busy_begin(struct layer_stat *s, __u64 now)
{
	if (__sync_fetch_and_add(&s->inflight, 1) == 0)
		s->busy_start = now;
}

/*
 * An item left the layer: the 1 -> 0 transition closes the busy period.
 * busy_start is taken with an exchange so that only one closer adds it.
 * The race that remains is bounded: if another CPU opens a new period
 * (0 -> 1, writes busy_start) between our decrement and our exchange, we
 * close its period at its first instant and it loses the time until its
 * own close finds busy_start == 0 -- at most one period per such
 * interleaving, and busy_ns only ever undercounts.
 */
static __always_inline void stat_busy_end(struct layer_stat *s, __u64 now)
{
	long long old = __sync_fetch_and_add(&s->inflight, -1);
	__u64 start;

	if (old == 1) {
		start = __sync_lock_test_and_set(&s->busy_start, 0);
		if (start && now > start)
			__sync_fetch_and_add(&s->busy_ns, now - start);
	} else if (old <= 0) {
		/* User space zeroed the stats while this item was in
		 * flight: undo, so the count never goes negative. */
		__sync_fetch_and_add(&s->inflight, 1);
	}
}

#endif /* __MAPS_BPF_H */
