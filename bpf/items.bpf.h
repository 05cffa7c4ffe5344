/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The items of attrib.bpf.c's layers: each is timed from a start event
 * to an end event, and accumulated into the `stats` array map at
 * layer * NR_OPS + op, as a log2 histogram and busy time (attrib.h:
 * struct layer_stat). Items in flight wait in one start map per layer,
 * keyed by what identifies them (a bio, a request, a work item, a
 * thread). User space reads and zeroes `stats` between phases.
 */
#ifndef __ITEMS_BPF_H
#define __ITEMS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "attrib.h"
#include "maps.bpf.h"

/* Items in flight are bounded by the devices' queues (a few hundred
 * requests each) and threads in a syscall by the workload; these sizes
 * keep all maps preallocated within the 8 MiB budget (BENCHMARKS.md: 8.93
 * MiB with 8192 items once why_stacks came, 8.74 with 4096 once the async
 * I/O maps came, and io_uring's still at 8192), and an item
 * a full map turns away is counted in `dropped`, never lost silently. */
#define MAX_THREADS 4096
#define MAX_ITEMS   4096
/* io_uring requests in flight: the rings' depth times the jobs (64
 * fio jobs at iodepth 64). 8192 put the maps at 8.74 MiB (BENCHMARKS.md). */
#define MAX_URING_ITEMS 4096
/* Encrypted write clones between their hand-off and the write thread's
 * submission: a queue of one dm device, far below MAX_ITEMS. */
#define MAX_DMW_ITEMS 2048

/*
 * An array map rather than a .bss array: a map lookup gives the verifier
 * a bounds-checked pointer on every kernel, where clang's arithmetic on a
 * global array index was rejected by the 6.1 verifier ("unbounded memory
 * access") once it hoisted the address above the bounds check.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NR_LAYERS *NR_OPS);
	__type(key, __u32);
	__type(value, struct layer_stat);
} stats SEC(".maps");

/* Items in flight, one map per layer (maps.bpf.h: START_MAP). */
START_MAP(bio_start, __u64, MAX_ITEMS);	      /* by struct bio * */
START_MAP(rq_start, __u64, MAX_ITEMS);	      /* by struct request * */
START_MAP(cq_start, __u64, MAX_ITEMS);	      /* by struct work_struct * */
START_MAP(cx_start, __u32, MAX_THREADS);      /* by kworker tid */
START_MAP(enc_start, __u32, MAX_THREADS);     /* by tid */
START_MAP(dm_start, __u64, MAX_ITEMS);	      /* by struct bio * (dm device) */
START_MAP(dmx_start, __u32, MAX_THREADS);     /* by tid: inline dm-crypt */
START_MAP(iou_start, __u64, MAX_URING_ITEMS); /* by struct io_kiocb * */
/* By struct dm_crypt_io *: a write clone waiting for the write thread. */
START_MAP(dmw_start, __u64, MAX_DMW_ITEMS);

static __always_inline struct layer_stat *stat_of(int layer, __u32 op)
{
	__u32 key;

	if (layer < 0 || layer >= NR_LAYERS || op >= NR_OPS)
		return NULL;
	key = layer * NR_OPS + op;
	return bpf_map_lookup_elem(&stats, &key);
}

/* A key reused before its end (requeued request, recycled pointer, a
 * call whose end went unseen): its unit of inflight moves from old_op to
 * op. */
static __always_inline void item_reop(int layer, __u32 old_op, __u32 op,
				      struct layer_stat *s, __u64 now)
{
	struct layer_stat *so;

	if (old_op == op)
		return;
	so = stat_of(layer, old_op);
	if (so)
		stat_busy_end(so, now);
	stat_busy_begin(s, now);
}

/* Item `key` enters `layer` as v (its latency measured from v->ts).
 * Whether an entry stands for it now (false: dropped, or a concurrent
 * start of the same key won). */
static __always_inline bool item_start_v(void *map, void *key, int layer,
					 const struct start *v, __u64 now)
{
	struct layer_stat *s = stat_of(layer, v->op);
	struct start *old;
	__u32 op = v->op;
	long err;

	if (!s)
		return false;
	old = bpf_map_lookup_elem(map, key);
	if (old) {
		item_reop(layer, old->op, op, s, now);
		*old = *v;
		return true;
	}
	err = bpf_map_update_elem(map, key, v, BPF_NOEXIST);
	if (err) {
		/* -EEXIST: a concurrent start of the same key won, and its
		 * entry stands for the item. Anything else is a full map:
		 * the item goes untimed, and user space must hear of it. */
		if (err != -EEXIST_)
			__sync_fetch_and_add(&s->dropped, 1);
		return false;
	}
	stat_busy_begin(s, now);
	return true;
}

static __always_inline bool item_start(void *map, void *key, int layer,
				       __u32 op, __u64 ts, __u64 now)
{
	struct start v = {.ts = ts, .op = op};

	return item_start_v(map, key, layer, &v, now);
}

/* Item `key`, whose entry v was just looked up, leaves `layer`; counted
 * (histogram) only when `count`. */
static __always_inline void item_end_v(void *map, void *key, struct start *v,
				       int layer, __u64 now, bool count)
{
	struct layer_stat *s;
	__u64 ts = v->ts;
	__u32 op = v->op;

	/* Whoever deletes the entry accounts for it: user space clearing
	 * the map between phases, or a concurrent end. */
	if (bpf_map_delete_elem(map, key))
		return;
	s = stat_of(layer, op);
	if (!s)
		return;
	if (count)
		stat_record(s, now > ts ? now - ts : 0);
	stat_busy_end(s, now);
}

static __always_inline void item_end(void *map, void *key, int layer, __u64 now,
				     bool count)
{
	struct start *v = bpf_map_lookup_elem(map, key);

	if (v)
		item_end_v(map, key, v, layer, now, count);
}

#endif /* __ITEMS_BPF_H */
