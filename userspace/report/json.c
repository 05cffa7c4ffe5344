// SPDX-License-Identifier: MIT
/*
 * results.json writer: the results model as one JSON document, field names
 * as in the "Results contract" of ARCHITECTURE.md. The reader is
 * json_read.c; the capability object is json_caps.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_priv.h"
#include "report.h"

typedef struct json_object *(*to_json_fn)(const void *item);

/* Counts come from other stages: never trust them past the array. */
static int clamp_n(int n, int max)
{
	return n < 0 ? 0 : n > max ? max : n;
}

static struct json_object *array_of(const void *items, int n, size_t size,
				    to_json_fn fn)
{
	struct json_object *a = json_object_new_array();
	int err = 0;

	if (!a)
		return NULL;
	for (int i = 0; i < n; i++)
		err |= jappend(a, fn((const char *)items + i * size));
	return jbuilt(a, err);
}

/* n strings, each in a row of width bytes (char names[][width]). */
static struct json_object *str_rows(const char *rows, size_t width, int n)
{
	struct json_object *a = json_object_new_array();
	int err = 0;

	for (int i = 0; a && i < n; i++)
		err |= jappend(a, jstr(rows + (size_t)i * width));
	return jbuilt(a, err);
}

struct json_object *jdouble_array(const double *d, int n)
{
	struct json_object *a = json_object_new_array();
	int err = 0;

	/* json-c cannot append a null element through jappend. */
	for (int i = 0; a && i < n; i++)
		err |= isfinite(d[i]) ? jappend(a, jdouble(d[i]))
				      : json_object_array_add(a, NULL);
	return jbuilt(a, err);
}

/* --target NAME=PATH as {"NAME": "PATH", ...}. */
static struct json_object *user_targets_json(const struct run_options *r)
{
	struct json_object *o = json_object_new_object();
	int err = 0;

	for (int i = 0; o && i < clamp_n(r->nr_user_targets, MAX_USER_TARGETS);
	     i++)
		err |= jadd_str(o, r->user_names[i], r->user_paths[i]);
	return jbuilt(o, err);
}

struct json_object *report_options_json(const struct run_options *r)
{
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_u64(o, "size_bytes", r->size_bytes);
	if (r->runs_auto) {
		err |= jadd_str(o, "runs", "auto");
		err |= jadd_double(o, "stable_pct", r->stable_pct);
		err |= jadd_int(o, "min_runs", r->min_runs);
		err |= jadd_int(o, "max_runs", r->max_runs);
	} else {
		err |= jadd_int(o, "runs", r->runs);
	}
	err |= jadd_double(o, "scale", r->scale);
	if (r->preset[0])
		err |= jadd_str(o, "preset", r->preset);
	err |= jadd_str(o, "scratch", r->scratch);
	err |= jadd_str(o, "output", r->output);
	err |= jadd_bool(o, "trace", r->trace);
	err |= jadd_int(o, "trace_runs", r->trace_runs);
	err |= jadd_bool(o, "syscall_tracepoints", r->syscall_tracepoints);
	err |= jadd_bool(o, "drop_caches", r->drop_caches);
	err |= jadd_bool(o, "html", r->html);
	err |= jadd(o, "targets",
		    str_rows(r->targets[0], NAME_LEN,
			     clamp_n(r->nr_targets, MAX_TARGETS)));
	err |= jadd_str(o, "luks_cipher", r->luks_cipher);
	err |= jadd_int(o, "luks_key_bits", r->luks_key_bits);
	err |= jadd_int(o, "luks_sector_size", r->luks_sector_size);
	err |= jadd(o, "workloads",
		    str_rows(r->workloads[0], NAME_LEN,
			     clamp_n(r->nr_workloads, MAX_WORKLOADS)));
	if (r->nr_user_targets > 0)
		err |= jadd(o, "user_targets", user_targets_json(r));
	if (r->baseline[0])
		err |= jadd_str(o, "baseline", r->baseline);
	return jbuilt(o, err);
}

void report_options_text(const struct run_options *r, char *buf, size_t len)
{
	struct json_object *o = report_options_json(r);

	/* json-c writes "/" as "\\/" unless told not to. */
	snprintf(buf, len, "%s",
		 o ? json_object_to_json_string_ext(
			     o, JSON_C_TO_STRING_PLAIN |
					JSON_C_TO_STRING_NOSLASHESCAPE)
		   : "{}");
	json_object_put(o);
}

static struct json_object *cipher_drivers(const struct capabilities *caps)
{
	struct json_object *o = json_object_new_object();
	int err = 0;

	for (int i = 0; o && i < clamp_n(caps->nr_ciphers, MAX_CIPHERS); i++)
		err |= jadd_str(o, caps->ciphers[i].name,
				caps->ciphers[i].driver);
	return jbuilt(o, err);
}

static struct json_object *meta_json(const struct run_meta *m)
{
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_str(o, "tool_version", m->tool_version);
	err |= jadd_str(o, "hostname", m->hostname);
	err |= jadd_str(o, "kernel", m->caps.kernel);
	err |= jadd_str(o, "cpu_model", m->cpu_model);
	err |= jadd_bool(o, "cpu_aes", m->caps.cpu_aes);
	err |= jadd(o, "cipher_drivers", cipher_drivers(&m->caps));
	err |= jadd_str(o, "started", m->started);
	err |= jadd_double(o, "duration_s", m->duration_s);
	err |= jadd(o, "options", report_options_json(&m->options));
	err |= jadd_bool(o, "tracing", m->tracing);
	err |= jadd_str(o, "tracing_detail", m->tracing_detail);
	err |= jadd_bool(o, "dropped_caches", m->dropped_caches);
	err |= jadd(o, "capabilities", report_caps_json(&m->caps));
	return jbuilt(o, err);
}

static struct json_object *device_json(const void *item)
{
	const struct device_info *d = item;
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_str(o, "name", d->name);
	err |= jadd_int(o, "major", d->major);
	err |= jadd_int(o, "minor", d->minor);
	err |= jadd_str(o, "role", d->role);
	return jbuilt(o, err);
}

static struct json_object *encryption_json(const struct target_info *t)
{
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_str(o, "scheme", t->encryption.scheme);
	err |= jadd_str(o, "contents_cipher", t->encryption.contents_cipher);
	err |= jadd_str(o, "names_cipher", t->encryption.names_cipher);
	err |= jadd_int(o, "key_bits", t->encryption.key_bits);
	err |= jadd_int(o, "sector_size", t->encryption.sector_size);
	err |= jadd_str(o, "flags", t->encryption.flags);
	err |= jadd_str(o, "driver", t->encryption.driver);
	err |= jadd_bool(o, "hw_accel", t->encryption.hw_accel);
	return jbuilt(o, err);
}

static struct json_object *zfs_json(const struct zfs_info *z)
{
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_str(o, "dataset", z->dataset);
	err |= jadd_u64(o, "objset_id", z->objset_id);
	err |= jadd_str(o, "encryption", z->encryption);
	err |= jadd_str(o, "keystatus", z->keystatus);
	err |= jadd_str(o, "keyformat", z->keyformat);
	err |= jadd_str(o, "compression", z->compression);
	err |= jadd_u64(o, "recordsize", z->recordsize);
	err |= jadd_str(o, "version", z->version);
	err |= jadd_str(o, "direct", z->direct);
	return jbuilt(o, err);
}

struct json_object *report_target_json(const void *item)
{
	const struct target_info *t = item;
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_str(o, "name", t->name);
	err |= jadd_str(o, "kind", t->kind);
	err |= jadd_str(o, "mount", t->mount);
	err |= jadd_str(o, "dir", t->dir);
	err |= jadd_str(o, "fs", t->fs);
	err |= jadd(o, "devices",
		    array_of(t->devices, clamp_n(t->nr_devices, MAX_DEVICES),
			     sizeof(t->devices[0]), device_json));
	if (t->encrypted)
		err |= jadd(o, "encryption", encryption_json(t));
	else
		err |= json_object_object_add(o, "encryption", NULL) ? -1 : 0;
	err |= jadd_bool(o, "verified_encrypted", t->verified_encrypted);
	err |= jadd_str(o, "verification", t->verification);
	if (t->path[0])
		err |= jadd_str(o, "path", t->path);
	if (t->zfs.dataset[0])
		err |= jadd(o, "zfs", zfs_json(&t->zfs));
	err |= jadd(o, "notes",
		    str_rows(t->notes[0], DETAIL_LEN,
			     clamp_n(t->nr_notes, MAX_NOTES)));
	return jbuilt(o, err);
}

/* A workload's typed parameters as one JSON object. */
static struct json_object *params_json(const struct param_list *l)
{
	struct json_object *o = json_object_new_object();
	int err = 0;

	for (int i = 0; o && i < clamp_n(l->n, MAX_PARAMS); i++) {
		const struct param *p = &l->p[i];

		switch (p->kind) {
		case PARAM_INT:
			err |= jadd_int(o, p->key, p->i);
			break;
		case PARAM_NUM:
			err |= jadd_double(o, p->key, p->num);
			break;
		case PARAM_BOOL:
			err |= jadd_bool(o, p->key, p->i);
			break;
		case PARAM_STR:
			err |= jadd_str(o, p->key, p->str);
			break;
		}
	}
	return jbuilt(o, err);
}

static struct json_object *workload_json(const void *item)
{
	const struct workload_info *w = item;
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_str(o, "name", w->name);
	err |= jadd(o, "params", params_json(&w->params));
	return jbuilt(o, err);
}

static struct json_object *triple(const char *k[3], const double v[3])
{
	struct json_object *o = json_object_new_object();
	int err = 0;

	for (int i = 0; o && i < 3; i++)
		err |= jadd_double(o, k[i], v[i]);
	return jbuilt(o, err);
}

static struct json_object *result_json(const void *item)
{
	static const char *cpu_k[3] = {"min", "avg", "max"};
	struct json_object *cpu_o, *ru_o;
	int n;
	static const char *ru_k[3] = {"real_s", "user_s", "sys_s"};
	const struct result *r = item;
	const double cpu[3] = {r->cpu.min, r->cpu.avg, r->cpu.max};
	const double ru[3] = {r->rusage.real_s, r->rusage.user_s,
			      r->rusage.sys_s};
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_str(o, "target", r->target);
	err |= jadd_str(o, "workload", r->workload);
	if (r->job[0])
		err |= jadd_str(o, "job", r->job);
	err |= jadd_str(o, "metric", r->metric.name);
	err |= jadd_str(o, "unit", r->metric.unit);
	err |= jadd_bool(o, "higher_is_better", r->metric.higher_is_better);
	err |= jadd(
		o, "samples",
		jdouble_array(r->samples, clamp_n(r->nr_samples, MAX_SAMPLES)));
	err |= report_traced_json(o, r);
	err |= jadd_double(o, "mean", r->s.mean);
	err |= jadd_double(o, "sd", r->s.sd);
	err |= jadd_double(o, "min", r->s.min);
	err |= jadd_double(o, "max", r->s.max);
	err |= jadd_double(o, "median", r->s.median);
	err |= jadd(o, "ci95", jdouble_array(r->s.ci95, 2));
	cpu_o = triple(cpu_k, cpu);
	if (cpu_o)
		err |= jadd_int(cpu_o, "samples", r->cpu.samples);
	err |= jadd(o, "cpu", cpu_o);
	ru_o = triple(ru_k, ru);
	n = clamp_n(r->rusage.nr_runs, MAX_RAW_RUNS);
	if (ru_o && n > 0) {
		struct json_object *runs = json_object_new_object();
		int e = 0;

		e |= jadd(runs, "real_s",
			  jdouble_array(r->rusage.run_real_s, n));
		e |= jadd(runs, "user_s",
			  jdouble_array(r->rusage.run_user_s, n));
		e |= jadd(runs, "sys_s", jdouble_array(r->rusage.run_sys_s, n));
		err |= jadd(ru_o, "runs", jbuilt(runs, e));
	}
	err |= jadd(o, "rusage", ru_o);
	if (r->read_bytes > 0) {
		err |= jadd_double(o, "read_bytes", r->read_bytes);
		err |= jadd_double(o, "dev_read_bytes", r->dev_read_bytes);
		err |= jadd_int(o, "dev_samples", r->dev_samples);
	}
	if (r->page_cache_writes)
		err |= jadd_bool(o, "page_cache_writes", true);
	return jbuilt(o, err);
}

struct json_object *report_comparison_json(const void *item)
{
	const struct comparison *c = item;
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_str(o, "baseline", c->baseline);
	err |= jadd_str(o, "target", c->target);
	err |= jadd_str(o, "workload", c->workload);
	err |= jadd_str(o, "metric", c->metric);
	err |= jadd_double(o, "diff_mean", c->diff_mean);
	err |= jadd(o, "welch_ci95", jdouble_array(c->welch_ci95, 2));
	err |= jadd_double(o, "penalty_pct", c->penalty_pct);
	/* Unbounded: [null, null] and the flag, which says so in words. */
	err |= jadd(o, "penalty_ci95_pct",
		    jdouble_array(c->penalty_ci95_pct, 2));
	err |= jadd_bool(o, "penalty_ci95_unbounded", c->penalty_unbounded);
	err |= jadd_bool(o, "significant", c->significant);
	if (c->cached_pct >= 0) {
		err |= jadd_bool(o, "cached", c->cached);
		err |= jadd_double(o, "cached_pct", c->cached_pct);
	}
	if (c->buffered)
		err |= jadd_bool(o, "buffered", true);
	return jbuilt(o, err);
}

/* Trailing empty slots are left out; the reader restores them as 0. */
struct json_object *report_slots_json(const uint64_t *slots)
{
	struct json_object *a = json_object_new_array();
	int n = HIST_SLOTS, err = 0;

	while (n > 0 && !slots[n - 1])
		n--;
	for (int i = 0; a && i < n; i++)
		err |= jappend(a, json_object_new_uint64(slots[i]));
	return jbuilt(a, err);
}

static struct json_object *hist_json(const uint64_t *slots)
{
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_str(o, "unit", "ns");
	err |= jadd(o, "slots", report_slots_json(slots));
	return jbuilt(o, err);
}

static struct json_object *layer_json(const void *item)
{
	const struct layer_result *l = item;
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_str(o, "layer", layer_name(l->layer));
	err |= jadd_str(o, "source", l->source);
	/* "available" for readers from before "state" (and for a glance). */
	err |= jadd_bool(o, "available", layer_has_figures(l));
	err |= jadd_str(o, "state", layer_state_name(l->state));
	err |= jadd_str(o, "reason", l->reason);
	err |= jadd_u64(o, "count", l->count);
	err |= jadd_u64(o, "sum_ns", l->sum_ns);
	err |= jadd_u64(o, "busy_ns", l->busy_ns);
	err |= jadd_u64(o, "mean_ns", l->mean_ns);
	err |= jadd_u64(o, "p50_ns", l->p50_ns);
	err |= jadd_u64(o, "p99_ns", l->p99_ns);
	err |= jadd_u64(o, "kernel_requests", l->kernel_requests);
	err |= jadd_u64(o, "dropped", l->dropped);
	err |= jadd_u64(o, "unseen", l->unseen);
	err |= jadd_u64(o, "unissued", l->unissued);
	err |= jadd_u64(o, "calls", l->calls);
	err |= jadd(o, "hist", hist_json(l->slots));
	return jbuilt(o, err);
}

static struct json_object *attrib_json(const void *item)
{
	const struct attribution *a = item;
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_str(o, "target", a->target);
	err |= jadd_str(o, "workload", a->workload);
	if (a->job[0])
		err |= jadd_str(o, "job", a->job);
	err |= jadd_str(o, "op", op_name(a->op));
	err |= jadd_u64(o, "syscall_mean_ns", a->syscall_mean_ns);
	err |= jadd_u64(o, "missed_events", a->missed_events);
	err |= jadd_double(o, "closure_pct", a->closure_pct);
	err |= jadd(o, "layers",
		    array_of(a->layers, NR_LAYERS, sizeof(a->layers[0]),
			     layer_json));
	err |= jadd(o, "wait", report_wait_json(&a->wait));
	if (a->aio.available)
		err |= jadd(o, "aio", report_aio_json(&a->aio));
	return jbuilt(o, err);
}

static struct json_object *verdict_json(const void *item)
{
	const struct verdict *v = item;
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_str(o, "target", v->target);
	err |= jadd_str(o, "workload", v->workload);
	if (v->job[0])
		err |= jadd_str(o, "job", v->job);
	err |= jadd_str(o, "op", op_name(v->op));
	err |= jadd_str(o, "summary", v->summary);
	err |= jadd(o, "evidence",
		    str_rows(v->evidence[0], DETAIL_LEN,
			     clamp_n(v->nr_evidence, MAX_EVIDENCE)));
	err |= jadd_str(o, "brief", v->brief);
	err |= jadd_double(o, "phase_ns", v->phase_ns);
	err |= jadd_bool(o, "headline", v->headline);
	return jbuilt(o, err);
}

#define ARRAY_OF(arr, n, max, fn)                                              \
	array_of((arr), clamp_n((n), (max)), sizeof((arr)[0]), (fn))

static struct json_object *skipped_json(const void *item)
{
	const struct skipped_target *s = item;
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_str(o, "kind", s->kind);
	err |= jadd_str(o, "reason", s->reason);
	return jbuilt(o, err);
}

struct json_object *report_results_json(const struct results *r)
{
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_str(o, "schema", RESULTS_SCHEMA);
	err |= jadd(o, "meta", meta_json(&r->meta));
	err |= jadd(
		o, "targets",
		ARRAY_OF(r->targets, r->nr_targets, MAX_TARGETS, report_target_json));
	err |= jadd(
		o, "skipped_targets",
		ARRAY_OF(r->skipped, r->nr_skipped, MAX_TARGETS, skipped_json));
	err |= jadd(o, "workloads",
		    ARRAY_OF(r->workloads, r->nr_workloads, MAX_WORKLOADS,
			     workload_json));
	err |= jadd(
		o, "results",
		ARRAY_OF(r->results, r->nr_results, MAX_RESULTS, result_json));
	err |= jadd(o, "comparisons",
		    ARRAY_OF(r->comparisons, r->nr_comparisons, MAX_RESULTS,
			     report_comparison_json));
	err |= jadd(o, "attribution",
		    ARRAY_OF(r->attrib, r->nr_attrib, MAX_ATTRIB, attrib_json));
	err |= jadd(o, "verdicts",
		    ARRAY_OF(r->verdicts, r->nr_verdicts, MAX_ATTRIB,
			     verdict_json));
	if (r->tune.on)
		err |= jadd(o, "tune", report_tune_json(&r->tune));
	err |= jadd(o, "tracer_costs",
		    ARRAY_OF(r->costs, r->nr_costs, MAX_TARGETS * MAX_WORKLOADS,
			     report_cost_json));
	return jbuilt(o, err);
}

int report_write_document(const char *dir, const char *name,
			  struct json_object *doc)
{
	const char *text = json_object_to_json_string_ext(
		doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

	if (!text)
		return -ENOMEM;
	return report_write_atomic(dir, name, text);
}

/* results.json's text, as written and as printed by --json. */
static const int results_flags = JSON_C_TO_STRING_PRETTY |
				 JSON_C_TO_STRING_SPACED |
				 JSON_C_TO_STRING_NOSLASHESCAPE;

int report_write_json(const struct results *r, const char *dir, FILE *print)
{
	struct json_object *root = report_results_json(r);
	const char *text = NULL;
	int err = 0;

	if (root)
		text = json_object_to_json_string_ext(root, results_flags);
	if (!text) {
		fprintf(stderr,
			"encbench-trace: cannot make results.json: out of memory\n");
		err = -ENOMEM;
	}
	if (!err && dir)
		err = report_write_atomic(dir, "results.json", text);
	if (!err && print)
		fprintf(print, "%s\n", text);
	json_object_put(root);
	return err;
}

int report_print_caps_json(const struct capabilities *caps, FILE *out)
{
	struct json_object *o = report_caps_json(caps);
	const char *text =
		o ? json_object_to_json_string_ext(o, results_flags) : NULL;

	if (text)
		fprintf(out, "%s\n", text);
	json_object_put(o);
	return text ? 0 : -ENOMEM;
}
