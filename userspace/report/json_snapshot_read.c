// SPDX-License-Identifier: MIT
/*
 * A snapshot file read back (`report --reanalyze`, the replay tests): as
 * strict as results.json's reader, every member there and in range, every
 * name one this version knows, every frame a symbol of the file. A
 * version this reader does not know is refused with one line naming it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_priv.h"
#include "snapshot_fields.h"

/* The raw structs' counters are unsigned long long (the BPF side's). */
static void get_ull(int *err, struct json_object *o, const char *key,
		    unsigned long long *v)
{
	uint64_t u = 0;

	jget_u64(err, o, key, &u);
	*v = u;
}

static void get_u64_fields(int *err, struct json_object *o,
			   const struct u64_field *f, void *base)
{
	for (; f->name; f++)
		get_ull(err, o, f->name,
			(unsigned long long *)((char *)base + f->offset));
}

static void layer_stat_from(int *err, struct json_object *o,
			    struct layer_stat *s)
{
	uint64_t slots[HIST_SLOTS] = {0};

	get_u64_fields(err, o, layer_stat_fields, s);
	for (const struct u64_field *f = layer_stat_new_fields; f->name; f++)
		if (jhas(o, f->name))
			get_ull(err, o, f->name,
				(unsigned long long *)((char *)s + f->offset));
	report_slots_from(err, o, "slots", slots);
	for (int i = 0; i < HIST_SLOTS; i++)
		s->slots[i] = slots[i];
}

static void per_op_stats_from(int *err, struct json_object *o, const char *key,
			      struct layer_stat s[NR_OPS])
{
	struct json_object *ops = jget_object(err, o, key);

	jctx_push(key, -1);
	for (int op = 0; !*err && op < NR_OPS; op++) {
		struct json_object *e;

		if (op_absent(ops, op))
			continue;
		e = jget_object(err, ops, op_name(op));
		jctx_push(op_name(op), -1);
		layer_stat_from(err, e, &s[op]);
		jctx_pop();
	}
	jctx_pop();
}

static void layer_from(int *err, struct json_object *o, int l,
		       struct snapshot *s)
{
	struct json_object *st = jget_object(err, o, "state");
	struct json_object *why = jget_object(err, o, "reason");

	jget_str(err, o, "source", s->sources[l], DETAIL_LEN);
	for (int op = 0; !*err && op < NR_OPS; op++) {
		char name[32];
		int v;

		if (op_absent(st, op))
			continue;
		jctx_push("state", -1);
		jget_str(err, st, op_name(op), name, sizeof(name));
		v = layer_state_from_name(name);
		if (!*err && v < 0)
			jget_fail(err, -EINVAL, op_name(op),
				  "is not a layer state");
		jctx_pop();
		if (!*err)
			s->states.state[l][op] = v;
		jctx_push("reason", -1);
		jget_str(err, why, op_name(op), s->states.why[l][op],
			 DETAIL_LEN);
		jctx_pop();
	}
	per_op_stats_from(err, o, "ops", s->stats[l]);
}

static void layers_from(int *err, struct json_object *root, struct snapshot *s)
{
	struct json_object *o = jget_object(err, root, "layers");

	jctx_push("layers", -1);
	for (int l = 0; !*err && l < NR_LAYERS; l++) {
		struct json_object *e = jget_object(err, o, layer_name(l));

		jctx_push(layer_name(l), -1);
		layer_from(err, e, l, s);
		jctx_pop();
	}
	jctx_pop();
}

static void u64_per_op_from(int *err, struct json_object *o, const char *key,
			    uint64_t v[NR_OPS])
{
	struct json_object *e = jget_object(err, o, key);

	jctx_push(key, -1);
	for (int op = 0; op < NR_OPS; op++)
		if (!op_absent(e, op))
			jget_u64(err, e, op_name(op), &v[op]);
	jctx_pop();
}

static void wait_op_from(int *err, struct json_object *o, struct wait_stat *w)
{
	struct json_object *ns = jget_object(err, o, "ns");
	struct json_object *behind = jget_object(err, o, "behind_samples");

	get_u64_fields(err, o, wait_stat_fields, w);
	for (const struct u64_field *f = wait_stat_why_fields; f->name; f++)
		if (jhas(o, f->name))
			get_ull(err, o, f->name,
				(unsigned long long *)((char *)w + f->offset));
	jctx_push("ns", -1);
	for (int l = LAYER_FS; l < NR_LAYERS; l++)
		get_ull(err, ns, layer_name(l), &w->ns[l]);
	jctx_pop();
	jctx_push("behind_samples", -1);
	for (int k = 0; k <= NR_WORKER_KINDS; k++)
		get_ull(err, behind, snap_worker_names[k],
			&w->behind_samples[k]);
	jctx_pop();
	/* Absent before the writeback workers were told apart among the
	 * other tasks, and where none held a caller's CPU: 0. */
	if (jhas(o, "behind_wb_samples"))
		get_ull(err, o, "behind_wb_samples", &w->behind_wb_samples);
	/* Absent before jbd2's part was kept apart, and where jbd2 did
	 * nothing for the target: 0, the whole of writeback shares. */
	for (const struct u64_field *f = wait_stat_jbd2_fields; f->name; f++)
		if (jhas(o, f->name))
			get_ull(err, o, f->name,
				(unsigned long long *)((char *)w + f->offset));
	if (jhas(o, "jbd2_blocked_layer_ns")) {
		ns = jget_object(err, o, "jbd2_blocked_layer_ns");
		jctx_push("jbd2_blocked_layer_ns", -1);
		for (int l = LAYER_FS; l < NR_LAYERS; l++)
			get_ull(err, ns, layer_name(l),
				&w->jbd2_blocked_layer_ns[l]);
		jctx_pop();
	}
	/* Absent before the writeback workers' blocked time was split by
	 * its wakers' chains: none of it was. */
	if (!jhas(o, "wb_blocked_layer_ns"))
		return;
	ns = jget_object(err, o, "wb_blocked_layer_ns");
	jctx_push("wb_blocked_layer_ns", -1);
	for (int l = LAYER_FS; l < NR_LAYERS; l++)
		get_ull(err, ns, layer_name(l), &w->wb_blocked_layer_ns[l]);
	jctx_pop();
}

/* Index of name in names[0..n), or -1. */
static int name_index(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return i;
	return -1;
}

static void stack_from(int *err, struct json_object *o, struct snap_wait *w,
		       struct snap_stack *st)
{
	char op[16] = "", use[32] = "";
	struct json_object *f;
	size_t n;
	int v;

	jget_str(err, o, "op", op, sizeof(op));
	v = op_from_name(op);
	if (!*err && v < 0)
		jget_fail(err, -EINVAL, "op", "is not an op");
	st->op = v < 0 ? 0 : (uint16_t)v;
	jget_str(err, o, "use", use, sizeof(use));
	v = name_index(snap_stack_uses, NR_STACK_USES, use);
	if (!*err && v < 0)
		jget_fail(err, -EINVAL, "use", "is not a stack use");
	st->use = v < 0 ? 0 : (uint16_t)v;
	jget_u64(err, o, "value", &st->value);
	n = jget_array(err, o, "frames", WAIT_STACK_DEPTH, &f);
	for (size_t i = 0; i < n && !*err; i++) {
		struct json_object *e = json_object_array_get_idx(f, i);
		int64_t idx = json_object_get_int64(e);

		if (!json_object_is_type(e, json_type_int) || idx < 0 ||
		    idx >= w->nr_syms) {
			jget_fail(err, -EINVAL, "frames",
				  "entry %zu is not a symbol of the file", i);
			break;
		}
		st->frames[i] = (uint32_t)idx;
	}
	st->nr_frames = *err ? 0 : (int)n;
}

static void syms_from(int *err, struct json_object *o, struct snapshot *s)
{
	struct json_object *a;
	size_t n = jget_array(err, o, "symbols", SNAP_MAX_SYMS, &a);

	if (*err || !n)
		return;
	s->wait.syms = calloc(n, sizeof(*s->wait.syms));
	if (!s->wait.syms) {
		jget_fail(err, -ENOMEM, "symbols", "does not fit in memory");
		return;
	}
	s->wait.syms_cap = (int)n;
	for (size_t i = 0; i < n && !*err; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);
		const char *name = json_object_get_string(e);

		if (!json_object_is_type(e, json_type_string) ||
		    strlen(name) >= SNAP_SYM_LEN) {
			jget_fail(err, -EINVAL, "symbols",
				  "entry %zu is not a function name", i);
			break;
		}
		snprintf(s->wait.syms[i], SNAP_SYM_LEN, "%s", name);
		s->wait.nr_syms = (int)i + 1;
	}
}

static void stacks_from(int *err, struct json_object *o, struct snapshot *s)
{
	struct json_object *a;
	size_t n = jget_array(err, o, "stacks", SNAP_MAX_STACKS, &a);

	if (*err || !n)
		return;
	s->wait.stacks = calloc(n, sizeof(*s->wait.stacks));
	if (!s->wait.stacks) {
		jget_fail(err, -ENOMEM, "stacks", "does not fit in memory");
		return;
	}
	s->wait.stacks_cap = (int)n;
	for (size_t i = 0; i < n && !*err; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);

		if (!json_object_is_type(e, json_type_object)) {
			jget_fail(err, -EINVAL, "stacks",
				  "entry %zu is not an object", i);
			break;
		}
		jctx_push("stacks", (long)i);
		stack_from(err, e, &s->wait, &s->wait.stacks[i]);
		jctx_pop();
		s->wait.nr_stacks = (int)i + 1;
	}
}

static void holders_from(int *err, struct json_object *o, struct snap_wait *w)
{
	jctx_push("cpu_holders", -1);
	for (int op = 0; o && !*err && op < NR_OPS; op++) {
		struct json_object *a;
		size_t n;

		if (op_absent(o, op))
			continue;
		n = jget_array(err, o, op_name(op), TOP_CPU_HOLDERS, &a);
		w->nr_holders[op] = (int)n;
		for (size_t i = 0; a && i < n; i++) {
			struct json_object *e = json_object_array_get_idx(a, i);
			struct cpu_holder *h = &w->holders[op][i];

			jctx_push(op_name(op), (long)i);
			jget_str(err, e, "comm", h->comm, sizeof(h->comm));
			jget_uint(err, e, "pid", &h->pid);
			jget_uint(err, e, "tgid", &h->tgid);
			jget_u64(err, e, "samples", &h->samples);
			jctx_pop();
		}
	}
	jctx_pop();
}

static void wait_from(int *err, struct json_object *root, struct snapshot *s)
{
	struct json_object *o = jget_object(err, root, "wait"), *ops, *wk;
	struct snap_wait *w = &s->wait;

	jctx_push("wait", -1);
	jget_bool(err, o, "available", &w->available);
	jget_bool(err, o, "sampled", &w->sampled);
	jget_str(err, o, "sample_why", w->sample_why, sizeof(w->sample_why));
	jget_int(err, o, "sample_hz", &w->sample_hz);
	jget_bool(err, o, "writeback_sampled", &w->wb_sampled);
	if (jhas(o, "journal_commits_followed")) {
		bool followed = false;

		jget_bool(err, o, "journal_commits_followed", &followed);
		w->journal = followed ? SNAP_JOURNAL_FOLLOWED
				      : SNAP_JOURNAL_UNFOLLOWED;
	}
	jget_int(err, o, "nr_cpus", &w->nr_cpus);
	ops = jget_object(err, o, "ops");
	jctx_push("ops", -1);
	for (int op = 0; !*err && op < NR_OPS; op++) {
		struct json_object *e;

		if (op_absent(ops, op))
			continue;
		e = jget_object(err, ops, op_name(op));
		jctx_push(op_name(op), -1);
		wait_op_from(err, e, &w->ops[op]);
		jctx_pop();
	}
	jctx_pop();
	wk = jget_object(err, o, "workers");
	jctx_push("workers", -1);
	for (int k = 0; !*err && k < NR_WORKER_KINDS; k++) {
		struct json_object *e =
			jget_object(err, wk, snap_worker_names[k]);

		jctx_push(snap_worker_names[k], -1);
		get_u64_fields(err, e, worker_stat_fields, &w->workers[k]);
		for (const struct u64_field *f = worker_stat_new_fields;
		     f->name; f++)
			if (jhas(e, f->name))
				get_ull(err, e, f->name,
					(unsigned long long
						 *)((char *)&w->workers[k] +
						    f->offset));
		jctx_pop();
	}
	jctx_pop();
	syms_from(err, o, s);
	stacks_from(err, o, s);
	jget_u64(err, o, "stacks_lost", &w->stacks_lost);
	/* Absent from snapshots before they were recorded. */
	if (jhas(o, "cpu_holders"))
		holders_from(err, jget_object(err, o, "cpu_holders"), w);
	jctx_pop();
}

static void zfs_from(int *err, struct json_object *root, struct snap_zfs *z)
{
	struct json_object *o = jget_object(err, root, "zfs"), *w;

	jctx_push("zfs", -1);
	jget_bool(err, o, "probes", &z->probes);
	jget_str(err, o, "why", z->why, sizeof(z->why));
	jget_str(err, o, "chain_why", z->chain_why, sizeof(z->chain_why));
	per_op_stats_from(err, o, "crypt", z->crypt);
	w = jget_object(err, o, "workers");
	jctx_push("workers", -1);
	for (int k = 0; !*err && k < ZFS_NR_WORKERS; k++)
		u64_per_op_from(err, w, snap_zfs_workers[k], z->workers[k]);
	jctx_pop();
	/* The ARC's counters came later: absent, not measured. */
	w = jhas(o, "arc") ? jget_object(err, o, "arc") : NULL;
	if (w) {
		jget_bool(err, w, "measured", &z->arc.measured);
		jget_u64(err, w, "hits", &z->arc.hits);
		jget_u64(err, w, "misses", &z->arc.misses);
		jget_u64(err, w, "demand_data_hits", &z->arc.data_hits);
		jget_u64(err, w, "demand_data_misses", &z->arc.data_misses);
	}
	jctx_pop();
}

static void tracer_from(int *err, struct json_object *root,
			struct snap_tracer *t)
{
	struct json_object *o = jget_object(err, root, "tracer");

	jctx_push("tracer", -1);
	jget_bool(err, o, "btf", &t->btf);
	jget_str(err, o, "write_enc", t->write_enc, sizeof(t->write_enc));
	jget_str(err, o, "dmx", t->dmx, sizeof(t->dmx));
	jget_bool(err, o, "has_dm", &t->has_dm);
	jget_bool(err, o, "have_kcryptd", &t->have_kcryptd);
	jget_str(err, o, "crypt_source_dm_write", t->crypt_source_dm_write,
		 sizeof(t->crypt_source_dm_write));
	jget_bool(err, o, "dmcrypt", &t->dmcrypt);
	jget_bool(err, o, "dmcrypt_no_write_thread",
		  &t->dmcrypt_no_write_thread);
	jget_bool(err, o, "no_devices", &t->no_devices);
	jget_int(err, o, "zfs_objsets", &t->nr_zfs_objsets);
	/* Only where the workload timed its calls. */
	if (jhas(o, "calls_by"))
		jget_str(err, o, "calls_by", t->calls_by, sizeof(t->calls_by));
	jctx_pop();
}

static void metric_from(int *err, struct json_object *o, struct snap_metric *m)
{
	jget_str(err, o, "name", m->name, sizeof(m->name));
	jget_str(err, o, "unit", m->unit, sizeof(m->unit));
	jget_bool(err, o, "higher_is_better", &m->higher_is_better);
	jget_int(err, o, "samples", &m->nr_samples);
	jget_double(err, o, "mean", &m->mean);
}

static void metrics_from(int *err, struct json_object *root, struct snapshot *s)
{
	struct json_object *a;
	size_t n = jget_array(err, root, "metrics", SNAP_MAX_METRICS, &a);

	for (size_t i = 0; i < n && !*err; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);

		if (!json_object_is_type(e, json_type_object)) {
			jget_fail(err, -EINVAL, "metrics",
				  "entry %zu is not an object", i);
			break;
		}
		jctx_push("metrics", (long)i);
		metric_from(err, e, &s->metrics[i]);
		jctx_pop();
		s->nr_metrics = (int)i + 1;
	}
}

/* The schema and a version this reader knows; anything else is refused
 * before a member is read, so the one line names the version. */
static void version_from(int *err, struct json_object *root, struct snapshot *s)
{
	char schema[NAME_LEN] = "";

	jget_str(err, root, "schema", schema, sizeof(schema));
	if (!*err && strcmp(schema, SNAPSHOT_SCHEMA))
		jget_fail(err, -EINVAL, "schema", "is \"%s\", not \"%s\"",
			  schema, SNAPSHOT_SCHEMA);
	jget_int(err, root, "version", &s->version);
	if (!*err && (s->version < 1 || s->version > SNAPSHOT_VERSION))
		jget_fail(err, -EINVAL, "version",
			  "is %d: this encbench-trace reads snapshot "
			  "versions 1 to %d",
			  s->version, SNAPSHOT_VERSION);
}

/*
 * Version 1 kept one file per phase, its traced iterations counted as
 * one: upgraded, it is iteration 0 (the phase's iterations as one), the
 * only snapshot of its phase. From version 2 each traced iteration is a
 * file of its own and says which it is.
 */
static void iteration_from(int *err, struct json_object *root,
			   struct snapshot *s)
{
	if (*err)
		return;
	if (s->version == 1) {
		s->iteration = 0;
		s->version = SNAPSHOT_VERSION;
		return;
	}
	jget_int(err, root, "iteration", &s->iteration);
	if (!*err && s->iteration < 0)
		jget_fail(err, -EINVAL, "iteration", "is %d, below 0",
			  s->iteration);
}

static int snapshot_from(struct json_object *root, struct snapshot *s)
{
	struct json_object *btf, *target;
	int err = 0;

	version_from(&err, root, s);
	jget_int(&err, root, "seq", &s->seq);
	iteration_from(&err, root, s);
	jget_str(&err, root, "tool_version", s->tool_version,
		 sizeof(s->tool_version));
	jget_str(&err, root, "kernel", s->kernel, sizeof(s->kernel));
	btf = jget_object(&err, root, "btf");
	jctx_push("btf", -1);
	jget_bool(&err, btf, "ok", &s->btf.ok);
	jget_str(&err, btf, "detail", s->btf.detail, sizeof(s->btf.detail));
	jctx_pop();
	jget_bool(&err, root, "cpu_aes", &s->cpu_aes);
	jget_str(&err, root, "workload", s->workload, sizeof(s->workload));
	if (jhas(root, "job")) /* a part of it, traced apart */
		jget_str(&err, root, "job", s->job, sizeof(s->job));
	jget_str(&err, root, "baseline", s->baseline, sizeof(s->baseline));
	target = jget_object(&err, root, "target");
	jctx_push("target", -1);
	if (!err)
		report_target_from(&err, target, &s->target);
	jctx_pop();
	metrics_from(&err, root, s);
	tracer_from(&err, root, &s->tracer);
	jget_double(&err, root, "wall_s", &s->wall_s);
	u64_per_op_from(&err, root, "kernel_requests", s->kernel_requests);
	jget_u64(&err, root, "missed_events", &s->missed_events);
	layers_from(&err, root, s);
	wait_from(&err, root, s);
	zfs_from(&err, root, &s->zfs);
	report_snap_aio_from(&err, root, &s->aio);
	return err;
}

static int snapshot_of(const char *name, struct json_object *root,
		       struct snapshot *s)
{
	int err;

	jget_reset();
	err = snapshot_from(root, s);
	json_object_put(root);
	if (err) {
		fprintf(stderr, "encbench-trace: %s: not a snapshot: %s\n",
			name, jget_error());
		snapshot_free(s);
	}
	return err;
}

int report_read_snapshot(const char *path, struct snapshot *s)
{
	struct json_object *root = NULL;
	int err;

	memset(s, 0, sizeof(*s));
	err = report_load_json(path, &root);
	return err ? err : snapshot_of(path, root, s);
}

int report_parse_snapshot(const char *name, const char *text, size_t len,
			  struct snapshot *s)
{
	struct json_object *root = NULL;
	int err;

	memset(s, 0, sizeof(*s));
	err = report_parse_json(name, text, len, &root);
	return err ? err : snapshot_of(name, root, s);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of dir's *.json files, sorted (free each and the array). */
static int json_names(const char *dir, char ***out, int *n)
{
	struct dirent **list = NULL;
	char **names;
	int nr = scandir(dir, &list, NULL, alphasort), k = 0;

	if (nr < 0)
		return -errno;
	names = calloc(nr + 1, sizeof(*names));
	for (int i = 0; i < nr; i++) {
		size_t len = strlen(list[i]->d_name);

		if (names && list[i]->d_name[0] != '.' && len > 5 &&
		    !strcmp(list[i]->d_name + len - 5, ".json"))
			names[k++] = strdup(list[i]->d_name);
		free(list[i]);
	}
	free(list);
	if (!names)
		return -ENOMEM;
	qsort(names, k, sizeof(*names), by_name);
	*out = names;
	*n = k;
	return 0;
}

void report_free_snapshots(struct snapshot **snaps, int n)
{
	for (int i = 0; snaps && i < n; i++) {
		if (snaps[i])
			snapshot_free(snaps[i]);
		free(snaps[i]);
	}
	free(snaps);
}

int report_read_snapshots(const char *dir, struct snapshot ***out, int *n)
{
	char sub[PATH_LEN + 16], path[2 * PATH_LEN];
	struct snapshot **snaps = NULL;
	char **names = NULL;
	int nr = 0, err;

	*out = NULL;
	*n = 0;
	snprintf(sub, sizeof(sub), "%s/snapshots", dir);
	err = json_names(sub, &names, &nr);
	if (err || !nr) {
		fprintf(stderr,
			"encbench-trace: %s: %s: nothing to analyse again (a "
			"run without tracing, or from before snapshots were "
			"saved)\n",
			sub, err ? strerror(-err) : "no snapshot in it");
		err = err ? err : -ENOENT;
		goto cleanup;
	}
	snaps = calloc(nr, sizeof(*snaps));
	for (int i = 0; !err && i < nr; i++) {
		snaps[i] = snaps ? malloc(sizeof(*snaps[i])) : NULL;
		if (!snaps[i]) {
			err = -ENOMEM;
			break;
		}
		snprintf(path, sizeof(path), "%s/%s", sub, names[i]);
		err = report_read_snapshot(path, snaps[i]);
	}
	if (!err) {
		*out = snaps;
		*n = nr;
		snaps = NULL;
	}
cleanup:
	report_free_snapshots(snaps, nr);
	for (int i = 0; names && i < nr; i++)
		free(names[i]);
	free(names);
	return err;
}
