// SPDX-License-Identifier: MIT
/* The snapshot's tables: symbols and stacks (see snapshot.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"

void layer_states_set(struct layer_states *ls, int layer, int op,
		      enum layer_state state, const char *why)
{
	int first = op < 0 ? 0 : op, end = op < 0 ? NR_OPS : op + 1;

	for (int o = first; o < end; o++) {
		ls->state[layer][o] = state;
		snprintf(ls->why[layer][o], DETAIL_LEN, "%s", why);
	}
}

void snapshot_free(struct snapshot *s)
{
	free(s->wait.stacks);
	free(s->wait.syms);
	s->wait.stacks = NULL;
	s->wait.syms = NULL;
	s->wait.nr_stacks = s->wait.stacks_cap = 0;
	s->wait.nr_syms = s->wait.syms_cap = 0;
}

/* Room for element n in p of *cap elements: doubled when full (64 at
 * first); NULL past max or out of memory (p is then left as it was). */
static void *grow(void *p, int n, int *cap, int max, size_t elem)
{
	int want = *cap ? *cap * 2 : 64;
	void *q;

	if (n >= max)
		return NULL;
	if (n < *cap)
		return p;
	q = realloc(p, (size_t)want * elem);
	if (q)
		*cap = want;
	return q;
}

int snapshot_sym(struct snapshot *s, const char *name)
{
	struct snap_wait *w = &s->wait;
	char kept[SNAP_SYM_LEN];
	void *p;

	snprintf(kept, sizeof(kept), "%s", name);
	if (strlen(name) >= sizeof(kept))
		kept[sizeof(kept) - 2] = '~';
	for (int i = 0; i < w->nr_syms; i++)
		if (!strcmp(w->syms[i], kept))
			return i;
	p = grow(w->syms, w->nr_syms, &w->syms_cap, SNAP_MAX_SYMS,
		 sizeof(*w->syms));
	if (!p)
		return -1;
	w->syms = p;
	memcpy(w->syms[w->nr_syms], kept, sizeof(kept));
	return w->nr_syms++;
}

int snapshot_add_stack(struct snapshot *s, const struct snap_stack *st)
{
	struct snap_wait *w = &s->wait;
	void *p = grow(w->stacks, w->nr_stacks, &w->stacks_cap, SNAP_MAX_STACKS,
		       sizeof(*w->stacks));

	if (!p)
		return -1;
	w->stacks = p;
	w->stacks[w->nr_stacks++] = *st;
	return 0;
}

bool snapshot_same_phase(const struct snapshot *a, const struct snapshot *b)
{
	return a->seq == b->seq && !strcmp(a->target.name, b->target.name) &&
	       !strcmp(a->workload, b->workload) && !strcmp(a->job, b->job);
}
