// SPDX-License-Identifier: MIT
/*
 * Why the caller blocked, in results.json's "wait" object: the blocked
 * time by reason ("why_blocked"), the blocked time with no useful waker
 * and how it was shared out ("unwoken"), and ZFS's ARC over the phase
 * ("zfs_arc"). Each is absent from files written before it, and read
 * back as 0 there.
 */
#include <stdbool.h>
#include <string.h>

#include "report_priv.h"
#include "report.h"

static struct json_object *why_json(const struct wait_result *w)
{
	struct json_object *o = json_object_new_object();
	struct json_object *ns = json_object_new_object();
	int err = !o || !ns;

	for (int r = 0; !err && r < NR_BLOCK_REASONS; r++)
		err |= jadd_u64(ns, block_reason_key(r), w->why_ns[r]);
	err |= jadd(o, "ns", ns);
	ns = NULL;
	err |= jadd_u64(o, "nostack_ns", w->why_nostack_ns);
	err |= jadd_u64(o, "short_ns", w->why_short_ns);
	if (err) {
		json_object_put(ns);
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *unwoken_json(const struct wait_result *w)
{
	struct json_object *o = json_object_new_object(), *b;
	int err = !o;

	err |= jadd_bool(o, "shared", w->unwoken.shared);
	/* Newer (2026-12-06): written where set, older files unchanged. */
	if (w->unwoken.journal_by_jbd2)
		err |= jadd_bool(o, "journal_by_jbd2", true);
	err |= jadd_u64(o, "flusher_ns", w->unwoken.flusher_ns);
	err |= jadd_u64(o, "journal_ns", w->unwoken.journal_ns);
	err |= jadd_u64(o, "other_ns", w->unwoken.other_ns);
	err |= jadd_u64(o, "crypt_ns", w->unwoken.crypt_ns);
	err |= jadd_u64(o, "fs_ns", w->unwoken.fs_ns);
	err |= jadd_u64(o, "runq_ns", w->unwoken.runq_ns);
	err |= jadd_u64(o, "device_ns", w->unwoken.device_ns);
	b = json_object_new_object();
	for (int l = LAYER_FS; b && l < NR_LAYERS; l++)
		err |= jadd_u64(b, layer_name(l), w->unwoken.blocked_ns[l]);
	err |= jadd(o, "blocked_ns", b);
	return jbuilt(o, err);
}

static struct json_object *arc_json(const struct wait_result *w)
{
	struct json_object *o = json_object_new_object();
	int err = !o;

	err |= jadd_bool(o, "measured", w->arc.measured);
	err |= jadd_u64(o, "hits", w->arc.hits);
	err |= jadd_u64(o, "misses", w->arc.misses);
	err |= jadd_u64(o, "demand_data_hits", w->arc.data_hits);
	err |= jadd_u64(o, "demand_data_misses", w->arc.data_misses);
	return jbuilt(o, err);
}

int report_why_json(struct json_object *o, const struct wait_result *w)
{
	int err = 0;

	err |= jadd(o, "why_blocked", why_json(w));
	err |= jadd(o, "unwoken", unwoken_json(w));
	err |= jadd(o, "zfs_arc", arc_json(w));
	return err;
}

void report_why_from(int *err, struct json_object *o, struct wait_result *w)
{
	struct json_object *ks, *ns;

	ks = jhas(o, "why_blocked") ? jget_object(err, o, "why_blocked") : NULL;
	ns = ks ? jget_object(err, ks, "ns") : NULL;
	for (int r = 0; ns && r < NR_BLOCK_REASONS; r++)
		if (jhas(ns, block_reason_key(r)))
			jget_u64(err, ns, block_reason_key(r), &w->why_ns[r]);
	if (ks) {
		jget_u64(err, ks, "nostack_ns", &w->why_nostack_ns);
		jget_u64(err, ks, "short_ns", &w->why_short_ns);
	}
	ks = jhas(o, "unwoken") ? jget_object(err, o, "unwoken") : NULL;
	if (ks) {
		jget_bool(err, ks, "shared", &w->unwoken.shared);
		if (jhas(ks, "journal_by_jbd2"))
			jget_bool(err, ks, "journal_by_jbd2",
				  &w->unwoken.journal_by_jbd2);
		jget_u64(err, ks, "flusher_ns", &w->unwoken.flusher_ns);
		if (jhas(ks, "journal_ns"))
			jget_u64(err, ks, "journal_ns", &w->unwoken.journal_ns);
		jget_u64(err, ks, "other_ns", &w->unwoken.other_ns);
		jget_u64(err, ks, "crypt_ns", &w->unwoken.crypt_ns);
		jget_u64(err, ks, "fs_ns", &w->unwoken.fs_ns);
		jget_u64(err, ks, "runq_ns", &w->unwoken.runq_ns);
		jget_u64(err, ks, "device_ns", &w->unwoken.device_ns);
		/* Absent before the blocked part was split: all device. */
		w->unwoken.blocked_ns[LAYER_DEVICE] = w->unwoken.device_ns;
		if (jhas(ks, "blocked_ns")) {
			struct json_object *b =
				jget_object(err, ks, "blocked_ns");

			/* A layer newer than the file is absent: 0. */
			for (int l = LAYER_FS; b && l < NR_LAYERS; l++)
				if (jhas(b, layer_name(l)))
					jget_u64(err, b, layer_name(l),
						 &w->unwoken.blocked_ns[l]);
		}
	}
	ks = jhas(o, "zfs_arc") ? jget_object(err, o, "zfs_arc") : NULL;
	if (ks) {
		jget_bool(err, ks, "measured", &w->arc.measured);
		jget_u64(err, ks, "hits", &w->arc.hits);
		jget_u64(err, ks, "misses", &w->arc.misses);
		jget_u64(err, ks, "demand_data_hits", &w->arc.data_hits);
		jget_u64(err, ks, "demand_data_misses", &w->arc.data_misses);
	}
}
