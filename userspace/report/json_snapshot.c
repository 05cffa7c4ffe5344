// SPDX-License-Identifier: MIT
/*
 * A snapshot as a JSON document
 * (snapshots/<seq>-<target>-<workload>.iteration-<i>.json in a results
 * folder; docs/snapshot.md): every raw figure of one traced iteration of a
 * phase, keyed by name (layers, ops, worker kinds, stack uses), written
 * whole or not at all. json_snapshot_read.c reads it back.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"
#include "report_priv.h"
#include "snapshot_fields.h"

static unsigned long long u64_at(const void *base, const struct u64_field *f)
{
	return *(const unsigned long long *)((const char *)base + f->offset);
}

static int add_u64_fields(struct json_object *o, const struct u64_field *f,
			  const void *base)
{
	int err = 0;

	for (; f->name; f++)
		err |= jadd_u64(o, f->name, u64_at(base, f));
	return err;
}

/* Only the nonzero ones: fields newer than recordings kept as tests. */
static int add_u64_fields_nonzero(struct json_object *o,
				  const struct u64_field *f, const void *base)
{
	int err = 0;

	for (; f->name; f++)
		if (u64_at(base, f))
			err |= jadd_u64(o, f->name, u64_at(base, f));
	return err;
}

static struct json_object *layer_stat_json(const struct layer_stat *s)
{
	struct json_object *o = json_object_new_object();
	uint64_t slots[HIST_SLOTS];
	int err = !o;

	if (err)
		return NULL;
	for (int i = 0; i < HIST_SLOTS; i++)
		slots[i] = s->slots[i];
	err |= add_u64_fields(o, layer_stat_fields, s);
	err |= add_u64_fields(o, layer_stat_new_fields, s);
	err |= jadd(o, "slots", report_slots_json(slots));
	return jbuilt(o, err);
}

/* {"read": {...}, "write": {...}, ...}: one object per op. */
static struct json_object *per_op_stats(const struct layer_stat s[NR_OPS])
{
	struct json_object *o = json_object_new_object();
	int err = !o;

	for (int op = 0; !err && op < NR_OPS; op++)
		err |= jadd(o, op_name(op), layer_stat_json(&s[op]));
	return jbuilt(o, err);
}

static struct json_object *layer_json(const struct snapshot *s, int l)
{
	struct json_object *o = json_object_new_object(), *st, *why;
	int err = !o;

	if (err)
		return NULL;
	st = json_object_new_object();
	why = json_object_new_object();
	for (int op = 0; st && why && op < NR_OPS; op++) {
		err |= jadd_str(st, op_name(op),
				layer_state_name(s->states.state[l][op]));
		err |= jadd_str(why, op_name(op), s->states.why[l][op]);
	}
	err |= jadd_str(o, "source", s->sources[l]);
	err |= jadd(o, "state", st);
	err |= jadd(o, "reason", why);
	err |= jadd(o, "ops", per_op_stats(s->stats[l]));
	return jbuilt(o, err);
}

static struct json_object *layers_json(const struct snapshot *s)
{
	struct json_object *o = json_object_new_object();
	int err = !o;

	for (int l = 0; !err && l < NR_LAYERS; l++)
		err |= jadd(o, layer_name(l), layer_json(s, l));
	return jbuilt(o, err);
}

static struct json_object *u64_per_op(const uint64_t v[NR_OPS])
{
	struct json_object *o = json_object_new_object();
	int err = !o;

	for (int op = 0; !err && op < NR_OPS; op++)
		err |= jadd_u64(o, op_name(op), v[op]);
	return jbuilt(o, err);
}

static struct json_object *wait_op_json(const struct wait_stat *w)
{
	struct json_object *o = json_object_new_object(), *ns, *behind;
	int err = !o;

	if (err)
		return NULL;
	err |= add_u64_fields(o, wait_stat_fields, w);
	err |= add_u64_fields(o, wait_stat_why_fields, w);
	ns = json_object_new_object();
	for (int l = LAYER_FS; ns && l < NR_LAYERS; l++)
		err |= jadd_u64(ns, layer_name(l), w->ns[l]);
	err |= jadd(o, "ns", ns);
	ns = json_object_new_object();
	for (int l = LAYER_FS; ns && l < NR_LAYERS; l++)
		err |= jadd_u64(ns, layer_name(l), w->wb_blocked_layer_ns[l]);
	err |= jadd(o, "wb_blocked_layer_ns", ns);
	behind = json_object_new_object();
	for (int k = 0; behind && k <= NR_WORKER_KINDS; k++)
		err |= jadd_u64(behind, snap_worker_names[k],
				w->behind_samples[k]);
	err |= jadd(o, "behind_samples", behind);
	/* Newer (2026-12-06): written where there are any, so that older
	 * recordings read and write back the same. */
	if (w->behind_wb_samples)
		err |= jadd_u64(o, "behind_wb_samples", w->behind_wb_samples);
	err |= add_u64_fields_nonzero(o, wait_stat_jbd2_fields, w);
	if (w->jbd2_blocked_ns) {
		ns = json_object_new_object();
		for (int l = LAYER_FS; ns && l < NR_LAYERS; l++)
			err |= jadd_u64(ns, layer_name(l),
					w->jbd2_blocked_layer_ns[l]);
		err |= jadd(o, "jbd2_blocked_layer_ns", ns);
	}
	return jbuilt(o, err);
}

static struct json_object *stack_json(const struct snap_stack *st)
{
	struct json_object *o = json_object_new_object(), *f;
	int err = !o;

	if (err)
		return NULL;
	err |= jadd_str(o, "op", op_name(st->op));
	err |= jadd_str(o, "use",
			st->use < NR_STACK_USES ? snap_stack_uses[st->use]
						: "?");
	err |= jadd_u64(o, "value", st->value);
	f = json_object_new_array();
	for (int i = 0; f && i < st->nr_frames; i++)
		err |= jappend(f, json_object_new_int64(st->frames[i]));
	err |= jadd(o, "frames", f);
	return jbuilt(o, err);
}

/* Per op, the tasks that held the CPUs while its callers were runnable. */
static struct json_object *holders_json(const struct snap_wait *w)
{
	struct json_object *o = json_object_new_object();
	int err = !o;

	for (int op = 0; !err && op < NR_OPS; op++) {
		struct json_object *a = json_object_new_array();

		err |= !a;
		for (int i = 0; a && i < w->nr_holders[op]; i++) {
			const struct cpu_holder *h = &w->holders[op][i];
			struct json_object *e = json_object_new_object();

			err |= !e;
			err |= jadd_str(e, "comm", h->comm);
			err |= jadd_u64(e, "pid", h->pid);
			err |= jadd_u64(e, "tgid", h->tgid);
			err |= jadd_u64(e, "samples", h->samples);
			err |= jappend(a, e);
		}
		err |= jadd(o, op_name(op), a);
	}
	return jbuilt(o, err);
}

static struct json_object *wait_json(const struct snap_wait *w)
{
	struct json_object *o = json_object_new_object(), *a;
	int err = !o;

	if (err)
		return NULL;
	err |= jadd_bool(o, "available", w->available);
	err |= jadd_bool(o, "sampled", w->sampled);
	err |= jadd_str(o, "sample_why", w->sample_why);
	err |= jadd_int(o, "sample_hz", w->sample_hz);
	err |= jadd_bool(o, "writeback_sampled", w->wb_sampled);
	if (w->journal != SNAP_JOURNAL_UNKNOWN)
		err |= jadd_bool(o, "journal_commits_followed",
				 w->journal == SNAP_JOURNAL_FOLLOWED);
	err |= jadd_int(o, "nr_cpus", w->nr_cpus);
	a = json_object_new_object();
	for (int op = 0; a && op < NR_OPS; op++)
		err |= jadd(a, op_name(op), wait_op_json(&w->ops[op]));
	err |= jadd(o, "ops", a);
	a = json_object_new_object();
	for (int k = 0; a && k < NR_WORKER_KINDS; k++) {
		struct json_object *e = json_object_new_object();

		err |= !e ||
		       add_u64_fields(e, worker_stat_fields, &w->workers[k]) ||
		       add_u64_fields(e, worker_stat_new_fields,
				      &w->workers[k]);
		err |= jadd(a, snap_worker_names[k], e);
	}
	err |= jadd(o, "workers", a);
	a = json_object_new_array();
	for (int i = 0; a && i < w->nr_syms; i++)
		err |= jappend(a, jstr(w->syms[i]));
	err |= jadd(o, "symbols", a);
	a = json_object_new_array();
	for (int i = 0; a && i < w->nr_stacks; i++)
		err |= jappend(a, stack_json(&w->stacks[i]));
	err |= jadd(o, "stacks", a);
	err |= jadd_u64(o, "stacks_lost", w->stacks_lost);
	err |= jadd(o, "cpu_holders", holders_json(w));
	return jbuilt(o, err);
}

static struct json_object *zfs_json(const struct snap_zfs *z)
{
	struct json_object *o = json_object_new_object(), *w;
	int err = !o;

	if (err)
		return NULL;
	err |= jadd_bool(o, "probes", z->probes);
	err |= jadd_str(o, "why", z->why);
	err |= jadd_str(o, "chain_why", z->chain_why);
	err |= jadd(o, "crypt", per_op_stats(z->crypt));
	w = json_object_new_object();
	for (int k = 0; w && k < ZFS_NR_WORKERS; k++)
		err |= jadd(w, snap_zfs_workers[k], u64_per_op(z->workers[k]));
	err |= jadd(o, "workers", w);
	w = json_object_new_object();
	err |= !w;
	err |= w ? jadd_bool(w, "measured", z->arc.measured) : 0;
	err |= w ? jadd_u64(w, "hits", z->arc.hits) : 0;
	err |= w ? jadd_u64(w, "misses", z->arc.misses) : 0;
	err |= w ? jadd_u64(w, "demand_data_hits", z->arc.data_hits) : 0;
	err |= w ? jadd_u64(w, "demand_data_misses", z->arc.data_misses) : 0;
	err |= jadd(o, "arc", w);
	return jbuilt(o, err);
}

static struct json_object *tracer_json(const struct snap_tracer *t)
{
	struct json_object *o = json_object_new_object();
	int err = !o;

	if (err)
		return NULL;
	err |= jadd_bool(o, "btf", t->btf);
	err |= jadd_str(o, "write_enc", t->write_enc);
	err |= jadd_str(o, "dmx", t->dmx);
	err |= jadd_bool(o, "has_dm", t->has_dm);
	err |= jadd_bool(o, "have_kcryptd", t->have_kcryptd);
	err |= jadd_str(o, "crypt_source_dm_write", t->crypt_source_dm_write);
	err |= jadd_bool(o, "dmcrypt", t->dmcrypt);
	err |= jadd_bool(o, "dmcrypt_no_write_thread",
			 t->dmcrypt_no_write_thread);
	err |= jadd_bool(o, "no_devices", t->no_devices);
	err |= jadd_int(o, "zfs_objsets", t->nr_zfs_objsets);
	if (t->calls_by[0])
		err |= jadd_str(o, "calls_by", t->calls_by);
	return jbuilt(o, err);
}

static struct json_object *metrics_json(const struct snapshot *s)
{
	struct json_object *a = json_object_new_array();
	int err = !a;

	for (int i = 0; !err && i < s->nr_metrics; i++) {
		const struct snap_metric *m = &s->metrics[i];
		struct json_object *o = json_object_new_object();

		err |= !o;
		err |= jadd_str(o, "name", m->name);
		err |= jadd_str(o, "unit", m->unit);
		err |= jadd_bool(o, "higher_is_better", m->higher_is_better);
		err |= jadd_int(o, "samples", m->nr_samples);
		err |= jadd_double(o, "mean", m->mean);
		err |= jappend(a, o);
	}
	return jbuilt(a, err);
}

static struct json_object *snapshot_json(const struct snapshot *s)
{
	struct json_object *o = json_object_new_object(), *btf;
	int err = !o;

	if (err)
		return NULL;
	err |= jadd_str(o, "schema", SNAPSHOT_SCHEMA);
	err |= jadd_int(o, "version", SNAPSHOT_VERSION);
	err |= jadd_int(o, "seq", s->seq);
	err |= jadd_int(o, "iteration", s->iteration);
	err |= jadd_str(o, "tool_version", s->tool_version);
	err |= jadd_str(o, "kernel", s->kernel);
	btf = json_object_new_object();
	err |= !btf || jadd_bool(btf, "ok", s->btf.ok);
	err |= jadd_str(btf, "detail", s->btf.detail);
	err |= jadd(o, "btf", btf);
	err |= jadd_bool(o, "cpu_aes", s->cpu_aes);
	err |= jadd_str(o, "workload", s->workload);
	if (s->job[0])
		err |= jadd_str(o, "job", s->job);
	err |= jadd_str(o, "baseline", s->baseline);
	err |= jadd(o, "target", report_target_json(&s->target));
	err |= jadd(o, "metrics", metrics_json(s));
	err |= jadd(o, "tracer", tracer_json(&s->tracer));
	err |= jadd_double(o, "wall_s", s->wall_s);
	err |= jadd(o, "kernel_requests", u64_per_op(s->kernel_requests));
	err |= jadd_u64(o, "missed_events", s->missed_events);
	err |= jadd(o, "layers", layers_json(s));
	err |= jadd(o, "wait", wait_json(&s->wait));
	err |= jadd(o, "zfs", zfs_json(&s->zfs));
	err |= jadd(o, "aio", report_snap_aio_json(&s->aio));
	return jbuilt(o, err);
}

void report_snapshot_name(const struct snapshot *s, char *buf, size_t len)
{
	char it[32] = "";

	if (s->iteration > 0)
		snprintf(it, sizeof(it), ".iteration-%d", s->iteration);
	snprintf(buf, len, "%02d-%s-%s%s%s%s.json", s->seq, s->target.name,
		 s->workload, s->job[0] ? "-" : "", s->job, it);
}

int report_write_snapshot(const struct snapshot *s, const char *dir)
{
	struct json_object *doc = snapshot_json(s);
	char name[3 * NAME_LEN + 16];
	int err;

	if (!doc) {
		fprintf(stderr, "encbench-trace: %s: out of memory\n", dir);
		return -ENOMEM;
	}
	report_snapshot_name(s, name, sizeof(name));
	err = report_write_document(dir, name, doc);
	json_object_put(doc);
	return err;
}

int report_write_snapshots(struct snapshot *const *snaps, int n,
			   const char *dir)
{
	char sub[PATH_LEN + 16];
	int err = 0;

	snprintf(sub, sizeof(sub), "%s/snapshots", dir);
	if (mkdir(sub, 0755) && errno != EEXIST) {
		err = -errno;
		fprintf(stderr, "encbench-trace: %s: %s\n", sub,
			strerror(-err));
		return err;
	}
	for (int i = 0; i < n && !err; i++)
		err = report_write_snapshot(snaps[i], sub);
	return err;
}
