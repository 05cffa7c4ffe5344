// SPDX-License-Identifier: MIT
/*
 * Async I/O followed one by one, in JSON: an attribution's "aio" object
 * in results.json (struct aio_result) and a snapshot's raw counters
 * (struct snap_aio), each written and read back. Both are absent from
 * files written before they existed: read as not available.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "report_priv.h"
#include "snapshot_fields.h"

static struct json_object *per_layer(const double ns[NR_LAYERS])
{
	struct json_object *o = json_object_new_object();
	int err = !o;

	for (int l = LAYER_FS; !err && l < NR_LAYERS; l++)
		err |= jadd_double(o, layer_name(l), ns[l]);
	return jbuilt(o, err);
}

static void per_layer_from(int *err, struct json_object *parent,
			   const char *key, double ns[NR_LAYERS])
{
	struct json_object *o = jget_object(err, parent, key);

	jctx_push(key, -1);
	for (int l = LAYER_FS; l < NR_LAYERS; l++)
		jget_double(err, o, layer_name(l), &ns[l]);
	jctx_pop();
}

struct json_object *report_aio_json(const struct aio_result *a)
{
	struct json_object *o = json_object_new_object();
	int err = !o;

	if (err)
		return NULL;
	err |= jadd_bool(o, "available", a->available);
	err |= jadd_str(o, "source", a->source);
	err |= jadd_u64(o, "ios", a->ios);
	err |= jadd_u64(o, "iouring", a->iouring);
	err |= jadd_u64(o, "in_call", a->in_call);
	err |= jadd_u64(o, "reaped", a->reaped);
	err |= jadd_u64(o, "unlinked", a->unlinked);
	err |= jadd_u64(o, "dropped", a->dropped);
	/* Written where any, so that older recordings replay the same. */
	if (a->dropped_stale)
		err |= jadd_u64(o, "dropped_stale", a->dropped_stale);
	err |= jadd_double(o, "slat_ns", a->sub_ns);
	err |= jadd_double(o, "clat_ns", a->clat_ns);
	err |= jadd_double(o, "reap_ns", a->reap_ns);
	err |= jadd(o, "clat_layers_ns", per_layer(a->layer_ns));
	err |= jadd(o, "slat_layers_ns", per_layer(a->sub_layer_ns));
	err |= jadd_double(o, "fio_clat_us", a->fio_clat_us);
	err |= jadd_double(o, "fio_diff_pct", a->fio_diff_pct);
	err |= jadd_double(o, "all_clat_ns", a->all_clat_ns);
	err |= jadd_double(o, "unlinked_sub_ns", a->unlinked_sub_ns);
	return jbuilt(o, err);
}

void report_aio_from(int *err, struct json_object *parent, struct aio_result *a)
{
	struct json_object *o;

	memset(a, 0, sizeof(*a));
	if (!jhas(parent, "aio"))
		return;
	o = jget_object(err, parent, "aio");
	jctx_push("aio", -1);
	jget_bool(err, o, "available", &a->available);
	jget_str(err, o, "source", a->source, sizeof(a->source));
	jget_u64(err, o, "ios", &a->ios);
	jget_u64(err, o, "iouring", &a->iouring);
	jget_u64(err, o, "in_call", &a->in_call);
	jget_u64(err, o, "reaped", &a->reaped);
	jget_u64(err, o, "unlinked", &a->unlinked);
	jget_u64(err, o, "dropped", &a->dropped);
	if (jhas(o, "dropped_stale")) {
		jget_u64(err, o, "dropped_stale", &a->dropped_stale);
		if (!*err && a->dropped_stale > a->dropped)
			jget_fail(err, -EINVAL, "dropped_stale",
				  "more than the I/Os dropped");
	}
	jget_double(err, o, "slat_ns", &a->sub_ns);
	jget_double(err, o, "clat_ns", &a->clat_ns);
	jget_double(err, o, "reap_ns", &a->reap_ns);
	per_layer_from(err, o, "clat_layers_ns", a->layer_ns);
	per_layer_from(err, o, "slat_layers_ns", a->sub_layer_ns);
	jget_double(err, o, "fio_clat_us", &a->fio_clat_us);
	jget_double(err, o, "fio_diff_pct", &a->fio_diff_pct);
	if (jhas(o, "all_clat_ns"))
		jget_double(err, o, "all_clat_ns", &a->all_clat_ns);
	if (jhas(o, "unlinked_sub_ns"))
		jget_double(err, o, "unlinked_sub_ns", &a->unlinked_sub_ns);
	jctx_pop();
}

/* ---- the snapshot's raw counters ------------------------------------ */

static struct json_object *u64_per_layer(const unsigned long long v[NR_LAYERS])
{
	struct json_object *o = json_object_new_object();
	int err = !o;

	for (int l = LAYER_FS; !err && l < NR_LAYERS; l++)
		err |= jadd_u64(o, layer_name(l), v[l]);
	return jbuilt(o, err);
}

static void u64_per_layer_from(int *err, struct json_object *parent,
			       const char *key, unsigned long long v[NR_LAYERS])
{
	struct json_object *o = jget_object(err, parent, key);
	uint64_t u;

	jctx_push(key, -1);
	for (int l = LAYER_FS; l < NR_LAYERS; l++) {
		u = 0;
		jget_u64(err, o, layer_name(l), &u);
		v[l] = u;
	}
	jctx_pop();
}

static struct json_object *aio_stat_json(const struct aio_stat *s)
{
	struct json_object *o = json_object_new_object();
	int err = !o;

	for (const struct u64_field *f = aio_stat_fields; !err && f->name; f++)
		err |= jadd_u64(o, f->name,
				*(const unsigned long long *)((const char *)s +
							      f->offset));
	err |= jadd(o, "ns_sub", u64_per_layer(s->ns_sub));
	err |= jadd(o, "ns", u64_per_layer(s->ns));
	return jbuilt(o, err);
}

struct json_object *report_snap_aio_json(const struct snap_aio *a)
{
	struct json_object *o = json_object_new_object(), *ops;
	int err = !o;

	if (err)
		return NULL;
	err |= jadd_bool(o, "available", a->available);
	err |= jadd_str(o, "source", a->source);
	ops = json_object_new_object();
	err |= !ops;
	for (int op = 0; !err && op < NR_OPS; op++)
		err |= jadd(ops, op_name(op), aio_stat_json(&a->ops[op]));
	err |= jadd(o, "ops", ops);
	return jbuilt(o, err);
}

void report_snap_aio_from(int *err, struct json_object *root,
			  struct snap_aio *a)
{
	struct json_object *o, *ops, *e;
	uint64_t u;

	memset(a, 0, sizeof(*a));
	if (!jhas(root, "aio"))
		return;
	o = jget_object(err, root, "aio");
	jctx_push("aio", -1);
	jget_bool(err, o, "available", &a->available);
	jget_str(err, o, "source", a->source, sizeof(a->source));
	ops = jget_object(err, o, "ops");
	jctx_push("ops", -1);
	for (int op = 0; !*err && op < NR_OPS; op++) {
		if (op_absent(ops, op))
			continue;
		e = jget_object(err, ops, op_name(op));
		jctx_push(op_name(op), -1);
		for (const struct u64_field *f = aio_stat_fields; f->name;
		     f++) {
			u = 0;
			/* unlinked_ns, unlinked_sub*, stale: absent from
			 * older files. */
			if (jhas(e, f->name))
				jget_u64(err, e, f->name, &u);
			*(unsigned long long *)((char *)&a->ops[op] +
						f->offset) = u;
		}
		u64_per_layer_from(err, e, "ns_sub", a->ops[op].ns_sub);
		u64_per_layer_from(err, e, "ns", a->ops[op].ns);
		jctx_pop();
	}
	jctx_pop();
	jctx_pop();
}
