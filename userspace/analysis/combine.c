// SPDX-License-Identifier: MIT
/*
 * A phase's traced iterations, each a snapshot of its own, added up into
 * the one the analysis reads: what a tracer counting the whole phase
 * would have read at its end. The counters add; the facts (the plan, how
 * the tracer was set up, the target) are the last iteration's, as they
 * stood when the phase ended; stacks with the same frames add their
 * values; the CPU holders of every iteration merge by task. The live run
 * and `report --reanalyze` both analyse through here, so a saved run
 * analysed again combines its iterations exactly as the run did.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

/* n counters of 64 bits from src added into dst. */
static void add_u64s(void *dst, const void *src, size_t bytes)
{
	unsigned long long *d = dst;
	const unsigned long long *s = src;

	for (size_t i = 0; i < bytes / sizeof(*d); i++)
		d[i] += s[i];
}

_Static_assert(sizeof(struct layer_stat) % 8 == 0, "64-bit counters");
_Static_assert(sizeof(struct wait_stat) % 8 == 0, "64-bit counters");
_Static_assert(sizeof(struct worker_stat) % 8 == 0, "64-bit counters");
_Static_assert(sizeof(struct aio_stat) % 8 == 0, "64-bit counters");

/* A layer's counters; what was in flight is the later one's. */
static void layer_add(struct layer_stat *d, const struct layer_stat *s)
{
	long long inflight = d->inflight;
	unsigned long long busy_start = d->busy_start;

	add_u64s(d, s, sizeof(*d));
	d->inflight = inflight;
	d->busy_start = busy_start;
}

static void wait_stat_add(struct wait_stat *d, const struct wait_stat *s)
{
	long long runnable = d->runnable;

	add_u64s(d, s, sizeof(*d));
	d->runnable = runnable;
}

/* A copy of src's tables, owned by dst (dst holds src's pointers). */
static int tables_copy(struct snap_wait *dst, const struct snap_wait *src)
{
	dst->stacks = NULL;
	dst->syms = NULL;
	dst->stacks_cap = dst->syms_cap = 0;
	if (src->nr_stacks) {
		dst->stacks = malloc(src->nr_stacks * sizeof(*dst->stacks));
		if (!dst->stacks)
			return -ENOMEM;
		memcpy(dst->stacks, src->stacks,
		       src->nr_stacks * sizeof(*dst->stacks));
		dst->stacks_cap = src->nr_stacks;
	}
	if (src->nr_syms) {
		dst->syms = malloc(src->nr_syms * sizeof(*dst->syms));
		if (!dst->syms)
			return -ENOMEM;
		memcpy(dst->syms, src->syms, src->nr_syms * sizeof(*dst->syms));
		dst->syms_cap = src->nr_syms;
	}
	return 0;
}

static bool same_stack(const struct snap_stack *a, const struct snap_stack *b)
{
	return a->op == b->op && a->use == b->use &&
	       a->nr_frames == b->nr_frames &&
	       !memcmp(a->frames, b->frames, a->nr_frames * sizeof(*a->frames));
}

/* One stack of part into out, its frames renamed into out's symbols:
 * added to a stack of the same frames, else appended; counted lost when
 * out has no room. */
static void stack_add(struct snapshot *out, const struct snapshot *part,
		      const struct snap_stack *st)
{
	struct snap_stack mine = *st;
	struct snap_wait *w = &out->wait;

	for (int f = 0; f < st->nr_frames; f++) {
		int sym = st->frames[f] < (uint32_t)part->wait.nr_syms
				  ? snapshot_sym(out,
						 part->wait.syms[st->frames[f]])
				  : -1;

		if (sym < 0) {
			w->stacks_lost++;
			return;
		}
		mine.frames[f] = (uint32_t)sym;
	}
	for (int i = 0; i < w->nr_stacks; i++)
		if (same_stack(&w->stacks[i], &mine)) {
			w->stacks[i].value += mine.value;
			return;
		}
	if (snapshot_add_stack(out, &mine))
		w->stacks_lost++;
}

/* part's counters, stacks and CPU holders added into out. */
static void part_add(struct snapshot *out, const struct snapshot *part)
{
	struct snap_wait *w = &out->wait;
	const struct snap_wait *pw = &part->wait;

	for (int l = 0; l < NR_LAYERS; l++)
		for (int op = 0; op < NR_OPS; op++)
			layer_add(&out->stats[l][op], &part->stats[l][op]);
	out->wall_s += part->wall_s;
	add_u64s(out->kernel_requests, part->kernel_requests,
		 sizeof(out->kernel_requests));
	out->missed_events += part->missed_events;
	for (int op = 0; op < NR_OPS; op++) {
		wait_stat_add(&w->ops[op], &pw->ops[op]);
		for (int i = 0; i < pw->nr_holders[op]; i++)
			w->nr_holders[op] =
				holder_merge(w->holders[op], w->nr_holders[op],
					     &pw->holders[op][i]);
	}
	add_u64s(w->workers, pw->workers, sizeof(w->workers));
	w->stacks_lost += pw->stacks_lost;
	for (int i = 0; i < pw->nr_stacks; i++)
		stack_add(out, part, &pw->stacks[i]);
	for (int op = 0; op < NR_OPS; op++)
		layer_add(&out->zfs.crypt[op], &part->zfs.crypt[op]);
	add_u64s(out->zfs.workers, part->zfs.workers, sizeof(out->zfs.workers));
	out->zfs.arc.measured &= part->zfs.arc.measured;
	out->zfs.arc.hits += part->zfs.arc.hits;
	out->zfs.arc.misses += part->zfs.arc.misses;
	out->zfs.arc.data_hits += part->zfs.arc.data_hits;
	out->zfs.arc.data_misses += part->zfs.arc.data_misses;
	add_u64s(out->aio.ops, part->aio.ops, sizeof(out->aio.ops));
}

int snapshot_combine(const struct snapshot *const *parts, int n,
		     struct snapshot *out)
{
	const struct snapshot *last;
	int err;

	memset(out, 0, sizeof(*out));
	if (n < 1)
		return -EINVAL;
	last = parts[n - 1];
	*out = *last;
	err = tables_copy(&out->wait, &last->wait);
	if (err) {
		snapshot_free(out);
		return err;
	}
	if (n > 1)
		out->iteration = 0;
	for (int i = 0; i < n - 1; i++)
		part_add(out, parts[i]);
	return 0;
}
