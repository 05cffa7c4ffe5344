// SPDX-License-Identifier: MIT
/*
 * results.json reader: the inverse of json.c. Every field the model has
 * comes back exactly (doubles are written in round-trip precision);
 * options and params come back typed, and cipher_drivers is
 * not read because it repeats meta.capabilities.ciphers. Errors stick
 * (see report_priv.h): the first one is reported and the rest skipped.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report_priv.h"
#include "report.h"

/* Layers a future version may add are skipped, not an error. */
#define MAX_LAYER_ENTRIES 64

typedef void (*from_json_fn)(int *err, struct json_object *o, void *item);

static bool entry_is(int *err, const char *key, size_t i, struct json_object *e,
		     enum json_type type)
{
	char name[NAME_LEN];

	if (*err || json_object_is_type(e, type))
		return !*err;
	snprintf(name, sizeof(name), "%s[%zu]", key, i);
	jget_fail(err, -EINVAL, name, "is not %s",
		  type == json_type_object ? "an object" : "a string");
	return false;
}

static void read_array(int *err, struct json_object *o, const char *key,
		       int max, void *items, size_t size, int *count,
		       from_json_fn fn)
{
	struct json_object *a;
	size_t n = jget_array(err, o, key, (size_t)max, &a);

	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);

		if (!entry_is(err, key, i, e, json_type_object))
			break;
		jctx_push(key, (long)i);
		fn(err, e, (char *)items + i * size);
		jctx_pop();
	}
	if (!*err)
		*count = (int)n;
}

#define READ_ARRAY(err, o, key, arr, max, count, fn)                           \
	read_array((err), (o), (key), (max), (arr), sizeof((arr)[0]), (count), \
		   (fn))

/* An array of strings into rows of width bytes each. */
static void read_str_rows(int *err, struct json_object *o, const char *key,
			  int max, char *dst, size_t width, int *count)
{
	struct json_object *a;
	size_t n = jget_array(err, o, key, (size_t)max, &a);

	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(a, i);

		if (entry_is(err, key, i, s, json_type_string))
			snprintf(dst + i * width, width, "%s",
				 json_object_get_string(s));
	}
	if (!*err)
		*count = (int)n;
}

static void read_strs(int *err, struct json_object *o, const char *key, int max,
		      char (*dst)[DETAIL_LEN], int *count)
{
	read_str_rows(err, o, key, max, dst[0], DETAIL_LEN, count);
}

/* --target NAME=PATH, written as {"NAME": "PATH", ...}. */
static void user_targets_from(int *err, struct json_object *u,
			      struct run_options *r)
{
	if (!u)
		return;
	jctx_push("user_targets", -1);
	json_object_object_foreach(u, name, path)
	{
		int i = r->nr_user_targets;

		(void)path;
		if (i >= MAX_USER_TARGETS || strlen(name) >= NAME_LEN) {
			jget_fail(
				err, -E2BIG, name,
				"is one target too many, or its name is too long");
			break;
		}
		snprintf(r->user_names[i], NAME_LEN, "%s", name);
		jget_str(err, u, name, r->user_paths[i], PATH_LEN);
		r->nr_user_targets++;
	}
	jctx_pop();
}

/*
 * meta.options, the writer's report_options_json inverse. "scale",
 * "preset", the --runs auto members and the luks ones are optional:
 * files from before them lack them.
 */
static void options_from(int *err, struct json_object *meta,
			 struct run_options *r)
{
	struct json_object *o = jget_object(err, meta, "options"), *runs;
	char word[8] = "";

	memset(r, 0, sizeof(*r));
	r->scale = 1;
	if (!o)
		return;
	jctx_push("options", -1);
	jget_u64(err, o, "size_bytes", &r->size_bytes);
	if (json_object_object_get_ex(o, "runs", &runs) &&
	    json_object_is_type(runs, json_type_string)) {
		jget_str(err, o, "runs", word, sizeof(word));
		if (!*err && strcmp(word, "auto"))
			jget_fail(err, -EINVAL, "runs",
				  "is neither a count nor \"auto\"");
		r->runs_auto = true;
		jget_double(err, o, "stable_pct", &r->stable_pct);
		jget_int(err, o, "min_runs", &r->min_runs);
		jget_int(err, o, "max_runs", &r->max_runs);
	} else {
		jget_int(err, o, "runs", &r->runs);
	}
	if (jhas(o, "scale"))
		jget_double(err, o, "scale", &r->scale);
	if (jhas(o, "preset"))
		jget_str(err, o, "preset", r->preset, sizeof(r->preset));
	jget_str(err, o, "scratch", r->scratch, sizeof(r->scratch));
	jget_str(err, o, "output", r->output, sizeof(r->output));
	jget_bool(err, o, "trace", &r->trace);
	if (jhas(o, "trace_runs"))
		jget_int(err, o, "trace_runs", &r->trace_runs);
	if (jhas(o, "syscall_tracepoints"))
		jget_bool(err, o, "syscall_tracepoints",
			  &r->syscall_tracepoints);
	jget_bool(err, o, "drop_caches", &r->drop_caches);
	jget_bool(err, o, "html", &r->html);
	read_str_rows(err, o, "targets", MAX_TARGETS, r->targets[0], NAME_LEN,
		      &r->nr_targets);
	read_str_rows(err, o, "workloads", MAX_WORKLOADS, r->workloads[0],
		      NAME_LEN, &r->nr_workloads);
	if (jhas(o, "luks_cipher")) {
		jget_str(err, o, "luks_cipher", r->luks_cipher,
			 sizeof(r->luks_cipher));
		jget_int(err, o, "luks_key_bits", &r->luks_key_bits);
		jget_int(err, o, "luks_sector_size", &r->luks_sector_size);
	}
	if (jhas(o, "user_targets"))
		user_targets_from(err, jget_object(err, o, "user_targets"), r);
	if (jhas(o, "baseline"))
		jget_str(err, o, "baseline", r->baseline, sizeof(r->baseline));
	jctx_pop();
}

static void read_doubles(int *err, struct json_object *o, const char *key,
			 int max, double *dst, int *count)
{
	struct json_object *a;
	size_t n = jget_array(err, o, key, (size_t)max, &a);

	for (size_t i = 0; i < n; i++)
		jto_double(err, key, json_object_array_get_idx(a, i), &dst[i]);
	if (!*err)
		*count = (int)n;
}

static void read_op(int *err, struct json_object *o, int *op)
{
	char name[NAME_LEN] = "";

	jget_str(err, o, "op", name, sizeof(name));
	*op = op_from_name(name);
}

static void meta_from(int *err, struct json_object *o, struct run_meta *m)
{
	struct json_object *caps;

	jget_str(err, o, "tool_version", m->tool_version,
		 sizeof(m->tool_version));
	jget_str(err, o, "hostname", m->hostname, sizeof(m->hostname));
	jget_str(err, o, "kernel", m->caps.kernel, sizeof(m->caps.kernel));
	jget_str(err, o, "cpu_model", m->cpu_model, sizeof(m->cpu_model));
	jget_bool(err, o, "cpu_aes", &m->caps.cpu_aes);
	jget_str(err, o, "started", m->started, sizeof(m->started));
	jget_double(err, o, "duration_s", &m->duration_s);
	options_from(err, o, &m->options);
	jget_bool(err, o, "tracing", &m->tracing);
	jget_str(err, o, "tracing_detail", m->tracing_detail,
		 sizeof(m->tracing_detail));
	jget_bool(err, o, "dropped_caches", &m->dropped_caches);
	caps = jget_object(err, o, "capabilities");
	jctx_push("capabilities", -1);
	if (caps)
		*err = report_caps_from_json(caps, &m->caps);
	jctx_pop();
}

static void device_from(int *err, struct json_object *o, void *item)
{
	struct device_info *d = item;

	jget_str(err, o, "name", d->name, sizeof(d->name));
	jget_uint(err, o, "major", &d->major);
	jget_uint(err, o, "minor", &d->minor);
	jget_str(err, o, "role", d->role, sizeof(d->role));
}

static void encryption_from(int *err, struct json_object *o,
			    struct target_info *t)
{
	t->encrypted = true;
	jget_str(err, o, "scheme", t->encryption.scheme,
		 sizeof(t->encryption.scheme));
	jget_str(err, o, "contents_cipher", t->encryption.contents_cipher,
		 sizeof(t->encryption.contents_cipher));
	jget_str(err, o, "names_cipher", t->encryption.names_cipher,
		 sizeof(t->encryption.names_cipher));
	jget_int(err, o, "key_bits", &t->encryption.key_bits);
	jget_int(err, o, "sector_size", &t->encryption.sector_size);
	jget_str(err, o, "flags", t->encryption.flags,
		 sizeof(t->encryption.flags));
	jget_str(err, o, "driver", t->encryption.driver,
		 sizeof(t->encryption.driver));
	jget_bool(err, o, "hw_accel", &t->encryption.hw_accel);
}

static void zfs_from(int *err, struct json_object *o, struct zfs_info *z)
{
	jget_str(err, o, "dataset", z->dataset, sizeof(z->dataset));
	jget_u64(err, o, "objset_id", &z->objset_id);
	jget_str(err, o, "encryption", z->encryption, sizeof(z->encryption));
	jget_str(err, o, "keystatus", z->keystatus, sizeof(z->keystatus));
	jget_str(err, o, "keyformat", z->keyformat, sizeof(z->keyformat));
	jget_str(err, o, "compression", z->compression, sizeof(z->compression));
	jget_u64(err, o, "recordsize", &z->recordsize);
	jget_str(err, o, "version", z->version, sizeof(z->version));
	jget_str(err, o, "direct", z->direct, sizeof(z->direct));
}

void report_target_from(int *err, struct json_object *o, void *item)
{
	struct target_info *t = item;
	struct json_object *enc, *zfs;

	jget_str(err, o, "name", t->name, sizeof(t->name));
	jget_str(err, o, "kind", t->kind, sizeof(t->kind));
	jget_str(err, o, "mount", t->mount, sizeof(t->mount));
	jget_str(err, o, "dir", t->dir, sizeof(t->dir));
	jget_str(err, o, "fs", t->fs, sizeof(t->fs));
	READ_ARRAY(err, o, "devices", t->devices, MAX_DEVICES, &t->nr_devices,
		   device_from);
	/* null: not encrypted. */
	enc = jget_object_or_null(err, o, "encryption");
	jctx_push("encryption", -1);
	if (enc)
		encryption_from(err, enc, t);
	jctx_pop();
	jget_bool(err, o, "verified_encrypted", &t->verified_encrypted);
	/* Absent from runs before they were recorded; path only for user
	 * targets. */
	if (jhas(o, "verification"))
		jget_str(err, o, "verification", t->verification,
			 sizeof(t->verification));
	if (jhas(o, "path"))
		jget_str(err, o, "path", t->path, sizeof(t->path));
	/* Absent: not a ZFS dataset. */
	if (json_object_object_get_ex(o, "zfs", &zfs) && zfs)
		zfs_from(err, zfs, &t->zfs);
	read_strs(err, o, "notes", MAX_NOTES, t->notes, &t->nr_notes);
}

/* Typed back from JSON's own types: the writer's params_json inverse. */
static void params_from(int *err, struct json_object *o, struct param_list *l)
{
	struct json_object *ps = jget_object(err, o, "params");

	l->n = 0;
	if (!ps)
		return;
	json_object_object_foreach(ps, key, v)
	{
		switch (json_object_get_type(v)) {
		case json_type_int:
			param_int(l, key, json_object_get_int64(v));
			break;
		case json_type_double:
			param_num(l, key, json_object_get_double(v));
			break;
		case json_type_boolean:
			param_bool(l, key, json_object_get_boolean(v));
			break;
		case json_type_string:
			param_str(l, key, json_object_get_string(v));
			break;
		default:
			*err = -EINVAL;
		}
	}
}

/* A part of a workload (a fio job): since jobs were traced apart;
 * absent for a workload of one part. */
static void read_job(int *err, struct json_object *o, char job[NAME_LEN])
{
	if (jhas(o, "job"))
		jget_str(err, o, "job", job, NAME_LEN);
}

static void workload_from(int *err, struct json_object *o, void *item)
{
	struct workload_info *w = item;

	jget_str(err, o, "name", w->name, sizeof(w->name));
	params_from(err, o, &w->params);
}

static void result_from(int *err, struct json_object *o, void *item)
{
	struct result *r = item;
	struct json_object *cpu, *ru, *runs;

	jget_str(err, o, "target", r->target, sizeof(r->target));
	jget_str(err, o, "workload", r->workload, sizeof(r->workload));
	read_job(err, o, r->job);
	jget_str(err, o, "metric", r->metric.name, sizeof(r->metric.name));
	jget_str(err, o, "unit", r->metric.unit, sizeof(r->metric.unit));
	jget_bool(err, o, "higher_is_better", &r->metric.higher_is_better);
	read_doubles(err, o, "samples", MAX_SAMPLES, r->samples,
		     &r->nr_samples);
	report_traced_from(err, o, r);
	jget_double(err, o, "mean", &r->s.mean);
	jget_double(err, o, "sd", &r->s.sd);
	jget_double(err, o, "min", &r->s.min);
	jget_double(err, o, "max", &r->s.max);
	jget_double(err, o, "median", &r->s.median);
	jget_pair(err, o, "ci95", r->s.ci95);
	cpu = jget_object(err, o, "cpu");
	jctx_push("cpu", -1);
	jget_double(err, cpu, "min", &r->cpu.min);
	jget_double(err, cpu, "avg", &r->cpu.avg);
	jget_double(err, cpu, "max", &r->cpu.max);
	jget_int(err, cpu, "samples", &r->cpu.samples);
	jctx_pop();
	ru = jget_object(err, o, "rusage");
	jctx_push("rusage", -1);
	jget_double(err, ru, "real_s", &r->rusage.real_s);
	jget_double(err, ru, "user_s", &r->rusage.user_s);
	jget_double(err, ru, "sys_s", &r->rusage.sys_s);
	/* Each run's: since the raw section of run.log; optional. */
	if (ru && jhas(ru, "runs")) {
		int n[3] = {0};

		jctx_push("runs", -1);
		runs = jget_object(err, ru, "runs");
		read_doubles(err, runs, "real_s", MAX_RAW_RUNS,
			     r->rusage.run_real_s, &n[0]);
		read_doubles(err, runs, "user_s", MAX_RAW_RUNS,
			     r->rusage.run_user_s, &n[1]);
		read_doubles(err, runs, "sys_s", MAX_RAW_RUNS,
			     r->rusage.run_sys_s, &n[2]);
		if (!*err && (n[1] != n[0] || n[2] != n[0]))
			jget_fail(
				err, -EINVAL, "runs",
				"of real_s, user_s and sys_s of different lengths");
		r->rusage.nr_runs = n[0];
		jctx_pop();
	}
	jctx_pop();
	/* Read-side figures' bytes: since the page cache was counted. */
	if (jhas(o, "read_bytes")) {
		jget_double(err, o, "read_bytes", &r->read_bytes);
		jget_double(err, o, "dev_read_bytes", &r->dev_read_bytes);
		jget_int(err, o, "dev_samples", &r->dev_samples);
	}
	/* Written only when true (since 2026-12-06). */
	if (jhas(o, "page_cache_writes"))
		jget_bool(err, o, "page_cache_writes", &r->page_cache_writes);
}

static void comparison_from(int *err, struct json_object *o, void *item)
{
	struct comparison *c = item;

	jget_str(err, o, "baseline", c->baseline, sizeof(c->baseline));
	jget_str(err, o, "target", c->target, sizeof(c->target));
	jget_str(err, o, "workload", c->workload, sizeof(c->workload));
	jget_str(err, o, "metric", c->metric, sizeof(c->metric));
	jget_double(err, o, "diff_mean", &c->diff_mean);
	jget_pair(err, o, "welch_ci95", c->welch_ci95);
	jget_double(err, o, "penalty_pct", &c->penalty_pct);
	jget_pair(err, o, "penalty_ci95_pct", c->penalty_ci95_pct);
	/* Files before Fieller's interval have no flag and finite ends. */
	if (jhas(o, "penalty_ci95_unbounded"))
		jget_bool(err, o, "penalty_ci95_unbounded",
			  &c->penalty_unbounded);
	if (isnan(c->penalty_ci95_pct[0]) || isnan(c->penalty_ci95_pct[1]))
		c->penalty_unbounded = true;
	jget_bool(err, o, "significant", &c->significant);
	c->cached_pct = -1;
	if (jhas(o, "cached")) {
		jget_bool(err, o, "cached", &c->cached);
		jget_double(err, o, "cached_pct", &c->cached_pct);
	}
	if (jhas(o, "buffered"))
		jget_bool(err, o, "buffered", &c->buffered);
}

/* Slots were trimmed of trailing zeros (the caller zeroed the rest). */
void report_slots_from(int *err, struct json_object *o, const char *key,
		       uint64_t *slots)
{
	struct json_object *a;
	size_t n = jget_array(err, o, key, SIZE_MAX, &a);

	for (size_t i = 0; i < n && !*err; i++) {
		struct json_object *v = json_object_array_get_idx(a, i);
		uint64_t count = json_object_get_uint64(v);

		if (!json_object_is_type(v, json_type_int) ||
		    json_object_get_int64(v) < 0 || count == UINT64_MAX) {
			jget_fail(err, -EINVAL, key, "entry %zu is not a count",
				  i);
			break;
		}
		/* A longer histogram folds into our open-ended last slot. */
		slots[i < HIST_SLOTS ? i : HIST_SLOTS - 1] += count;
	}
}

static void hist_from(int *err, struct json_object *o, uint64_t *slots)
{
	struct json_object *h = jget_object(err, o, "hist");
	char unit[8] = "ns";

	jctx_push("hist", -1);

	jget_str(err, h, "unit", unit, sizeof(unit));
	if (!*err && strcmp(unit, "ns"))
		jget_fail(err, -EINVAL, "unit",
			  "is \"%s\": only \"ns\" is known", unit);
	report_slots_from(err, h, "slots", slots);
	jctx_pop();
}

/* "state" and "reason"; a file from before them has "available" only. */
static void layer_state_from(int *err, struct json_object *o,
			     struct layer_result *l)
{
	char name[32] = "";
	bool available = false;
	int st;

	jget_bool(err, o, "available", &available);
	if (!jhas(o, "state")) {
		l->state = !available		  ? LAYER_UNAVAILABLE
			   : l->layer == LAYER_FS ? LAYER_DERIVED
						  : LAYER_MEASURED;
		return;
	}
	jget_str(err, o, "state", name, sizeof(name));
	jget_str(err, o, "reason", l->reason, sizeof(l->reason));
	st = layer_state_from_name(name);
	if (*err)
		return;
	if (st < 0) {
		jget_fail(err, -EINVAL, "state", "is not a layer state");
		return;
	}
	l->state = st;
	if (layer_has_figures(l) != available)
		jget_fail(err, -EINVAL, "available", "contradicts \"state\"");
}

static void layer_from(int *err, struct json_object *o, struct attribution *a)
{
	char name[NAME_LEN] = "";
	struct layer_result *l;
	int idx;

	jget_str(err, o, "layer", name, sizeof(name));
	idx = layer_from_name(name);
	if (*err || idx < 0)
		return;
	l = &a->layers[idx];
	l->layer = idx;
	jget_str(err, o, "source", l->source, sizeof(l->source));
	layer_state_from(err, o, l);
	jget_u64(err, o, "count", &l->count);
	jget_u64(err, o, "sum_ns", &l->sum_ns);
	jget_u64(err, o, "busy_ns", &l->busy_ns);
	jget_u64(err, o, "mean_ns", &l->mean_ns);
	jget_u64(err, o, "p50_ns", &l->p50_ns);
	jget_u64(err, o, "p99_ns", &l->p99_ns);
	jget_u64(err, o, "kernel_requests", &l->kernel_requests);
	jget_u64(err, o, "dropped", &l->dropped);
	/* Written since unseen and unissued requests were found: optional. */
	if (jhas(o, "unseen"))
		jget_u64(err, o, "unseen", &l->unseen);
	if (jhas(o, "unissued"))
		jget_u64(err, o, "unissued", &l->unissued);
	if (jhas(o, "calls")) /* since crypt's cipher calls were counted */
		jget_u64(err, o, "calls", &l->calls);
	hist_from(err, o, l->slots);
}

static void attrib_from(int *err, struct json_object *o, void *item)
{
	struct attribution *a = item;
	struct json_object *arr;
	size_t n;

	for (int l = 0; l < NR_LAYERS; l++)
		a->layers[l].layer = l;
	jget_str(err, o, "target", a->target, sizeof(a->target));
	jget_str(err, o, "workload", a->workload, sizeof(a->workload));
	read_job(err, o, a->job);
	read_op(err, o, &a->op);
	jget_u64(err, o, "syscall_mean_ns", &a->syscall_mean_ns);
	jget_u64(err, o, "missed_events", &a->missed_events);
	jget_double(err, o, "closure_pct", &a->closure_pct);
	/* Entries are placed by layer name, not position. */
	n = jget_array(err, o, "layers", MAX_LAYER_ENTRIES, &arr);
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);

		if (!entry_is(err, "layers", i, e, json_type_object))
			break;
		jctx_push("layers", (long)i);
		layer_from(err, e, a);
		jctx_pop();
	}
	/* Written before the stage existed: say so rather than leave it
	 * an unexplained "unavailable". */
	if (!a->layers[LAYER_DMCRYPT_WRITE].source[0]) {
		snprintf(
			a->layers[LAYER_DMCRYPT_WRITE].source, DETAIL_LEN,
			"not recorded: this results.json predates the dmcrypt-write stage");
		snprintf(a->layers[LAYER_DMCRYPT_WRITE].reason, DETAIL_LEN,
			 "not recorded in this file");
	}
	report_wait_from(err, o, &a->wait);
	report_aio_from(err, o, &a->aio);
}

static void verdict_from(int *err, struct json_object *o, void *item)
{
	struct verdict *v = item;

	jget_str(err, o, "target", v->target, sizeof(v->target));
	jget_str(err, o, "workload", v->workload, sizeof(v->workload));
	read_job(err, o, v->job);
	read_op(err, o, &v->op);
	jget_str(err, o, "summary", v->summary, sizeof(v->summary));
	read_strs(err, o, "evidence", MAX_EVIDENCE, v->evidence,
		  &v->nr_evidence);
	/* Absent before the short report: no line of its own (the summary
	 * stands in), and the reads and writes are its headlines. */
	if (jhas(o, "brief"))
		jget_str(err, o, "brief", v->brief, sizeof(v->brief));
	if (jhas(o, "phase_ns"))
		jget_double(err, o, "phase_ns", &v->phase_ns);
	if (jhas(o, "headline"))
		jget_bool(err, o, "headline", &v->headline);
	else
		v->headline = v->op == EB_OP_READ || v->op == EB_OP_WRITE;
}

static void skipped_from(int *err, struct json_object *o, void *item)
{
	struct skipped_target *s = item;

	jget_str(err, o, "kind", s->kind, sizeof(s->kind));
	jget_str(err, o, "reason", s->reason, sizeof(s->reason));
}

static int results_from(struct json_object *root, struct results *r)
{
	char schema[NAME_LEN] = "";
	struct json_object *meta;
	int err = 0;

	jget_str(&err, root, "schema", schema, sizeof(schema));
	if (!err && strcmp(schema, RESULTS_SCHEMA))
		jget_fail(&err, -EINVAL, "schema", "is \"%s\", not \"%s\"",
			  schema, RESULTS_SCHEMA);
	meta = jget_object(&err, root, "meta");
	jctx_push("meta", -1);
	meta_from(&err, meta, &r->meta);
	jctx_pop();
	READ_ARRAY(&err, root, "targets", r->targets, MAX_TARGETS,
		   &r->nr_targets, report_target_from);
	/* Always written; optional for hand-made files (the fuzz corpus). */
	if (jhas(root, "skipped_targets"))
		READ_ARRAY(&err, root, "skipped_targets", r->skipped,
			   MAX_TARGETS, &r->nr_skipped, skipped_from);
	READ_ARRAY(&err, root, "workloads", r->workloads, MAX_WORKLOADS,
		   &r->nr_workloads, workload_from);
	READ_ARRAY(&err, root, "results", r->results, MAX_RESULTS,
		   &r->nr_results, result_from);
	READ_ARRAY(&err, root, "comparisons", r->comparisons, MAX_RESULTS,
		   &r->nr_comparisons, comparison_from);
	READ_ARRAY(&err, root, "attribution", r->attrib, MAX_ATTRIB,
		   &r->nr_attrib, attrib_from);
	READ_ARRAY(&err, root, "verdicts", r->verdicts, MAX_ATTRIB,
		   &r->nr_verdicts, verdict_from);
	if (!err)
		report_tune_from(&err, root, &r->tune);
	if (jhas(root, "tracer_costs"))
		READ_ARRAY(&err, root, "tracer_costs", r->costs,
			   MAX_TARGETS * MAX_WORKLOADS, &r->nr_costs,
			   report_cost_from);
	return err;
}

/* root -> *r, with a one-line error naming file `name` and the member. */
static int results_of(const char *name, struct json_object *root,
		      struct results *r)
{
	int err;

	jget_reset();
	err = results_from(root, r);
	if (err)
		fprintf(stderr, "encbench-trace: %s: not a results file: %s\n",
			name, jget_error());
	json_object_put(root);
	return err;
}

int report_read_json(const char *path, struct results *r)
{
	struct json_object *root = NULL;
	int err;

	memset(r, 0, sizeof(*r));
	err = report_load_json(path, &root);
	return err ? err : results_of(path, root, r);
}

int report_parse_results(const char *name, const char *text, size_t len,
			 struct results *r)
{
	struct json_object *root = NULL;
	int err;

	memset(r, 0, sizeof(*r));
	err = report_parse_json(name, text, len, &root);
	return err ? err : results_of(name, root, r);
}
