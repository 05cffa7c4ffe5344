// SPDX-License-Identifier: MIT
/*
 * results.json's members for what tracing cost: each result's traced
 * iterations apart from its untraced ones (samples), the observer effect
 * between the two, and each phase's tracer_cost (the programs' run counts
 * and run times). Written by json.c's writer, read back by json_read.c;
 * all optional on reading (older files have none: every iteration then
 * was traced and nothing says what it cost).
 */
#include <errno.h>

#include "report_priv.h"

static struct json_object *int_array(const int *v, int n)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; a && i < n; i++)
		if (jappend(a, json_object_new_int(v[i]))) {
			json_object_put(a);
			return NULL;
		}
	return a;
}

static struct json_object *observer_json(const struct observer *o)
{
	struct json_object *j;
	int err = 0;

	if (!o->measured)
		return NULL; /* null: fewer than 2 iterations on a side */
	j = json_object_new_object();
	if (!j)
		return NULL;
	err |= jadd_double(j, "ratio", o->ratio);
	err |= jadd(j, "ratio_ci95", jdouble_array(o->ratio_ci95, 2));
	err |= jadd_double(j, "added_pct", o->added_pct);
	err |= jadd(j, "added_ci95_pct", jdouble_array(o->added_ci95_pct, 2));
	err |= jadd_bool(j, "significant", o->significant);
	err |= jadd_bool(j, "beyond_untraced_ci95", o->beyond_ci);
	return jbuilt(j, err);
}

int report_traced_json(struct json_object *o, const struct result *r)
{
	int n = r->nr_samples < MAX_SAMPLES ? r->nr_samples : MAX_SAMPLES;
	int t = r->nr_traced < MAX_TRACED_SAMPLES ? r->nr_traced
						  : MAX_TRACED_SAMPLES;
	int err = 0;

	err |= jadd(o, "iterations", int_array(r->iteration, n));
	err |= jadd(o, "traced_samples", jdouble_array(r->traced, t));
	err |= jadd(o, "traced_iterations", int_array(r->traced_iteration, t));
	/* Only where known: a file without it reads back the same. */
	for (int i = 0; i < t; i++)
		if (r->traced_mean_n[i] > 0) {
			err |= jadd(o, "traced_mean_n",
				    jdouble_array(r->traced_mean_n, t));
			break;
		}
	/* Only where iterations were split off as cached. */
	if (r->nr_cached > 0) {
		int c = r->nr_cached < MAX_CACHED_SAMPLES ? r->nr_cached
							  : MAX_CACHED_SAMPLES;

		err |= jadd(o, "cached_samples", jdouble_array(r->cached, c));
		err |= jadd(o, "cached_iterations",
			    int_array(r->cached_iteration, c));
	}
	if (r->obs.measured)
		err |= jadd(o, "observer", observer_json(&r->obs));
	else
		err |= json_object_object_add(o, "observer", NULL) ? -1 : 0;
	return err;
}

static void read_ints(int *err, struct json_object *o, const char *key, int max,
		      int *dst, int *count)
{
	struct json_object *a;
	size_t n = jget_array(err, o, key, (size_t)max, &a);

	for (size_t i = 0; i < n && !*err; i++) {
		struct json_object *v = json_object_array_get_idx(a, i);

		if (!json_object_is_type(v, json_type_int) ||
		    json_object_get_int64(v) < 0 ||
		    json_object_get_int64(v) > INT32_MAX)
			jget_fail(err, -EINVAL, key, "not an iteration number");
		else
			dst[i] = (int)json_object_get_int64(v);
	}
	if (!*err)
		*count = (int)n;
}

/* Samples under key and their places in the run under ikey, one each:
 * *nr of them (0 on error). */
static void read_placed(int *err, struct json_object *o, const char *key,
			const char *ikey, int max, double *vals, int *places,
			int *nr)
{
	struct json_object *a;
	int n = (int)jget_array(err, o, key, (size_t)max, &a), ni = 0;

	for (int i = 0; i < n && !*err; i++)
		jto_double(err, key, json_object_array_get_idx(a, i), &vals[i]);
	*nr = *err ? 0 : n;
	read_ints(err, o, ikey, max, places, &ni);
	if (!*err && ni != *nr)
		jget_fail(err, -EINVAL, ikey, "not one per sample");
}

void report_traced_from(int *err, struct json_object *o, struct result *r)
{
	struct json_object *a, *obs;
	int n = 0;

	if (jhas(o, "iterations")) {
		read_ints(err, o, "iterations", MAX_SAMPLES, r->iteration, &n);
		if (!*err && n != r->nr_samples)
			jget_fail(err, -EINVAL, "iterations",
				  "not one per sample");
	}
	if (jhas(o, "cached_samples"))
		read_placed(err, o, "cached_samples", "cached_iterations",
			    MAX_CACHED_SAMPLES, r->cached, r->cached_iteration,
			    &r->nr_cached);
	if (!jhas(o, "traced_samples"))
		return;
	read_placed(err, o, "traced_samples", "traced_iterations",
		    MAX_TRACED_SAMPLES, r->traced, r->traced_iteration,
		    &r->nr_traced);
	if (!*err && jhas(o, "traced_mean_n")) {
		n = (int)jget_array(err, o, "traced_mean_n", MAX_TRACED_SAMPLES,
				    &a);
		for (int i = 0; i < n && !*err; i++) {
			jto_double(err, "traced_mean_n",
				   json_object_array_get_idx(a, i),
				   &r->traced_mean_n[i]);
			if (!*err && !(r->traced_mean_n[i] >= 0))
				jget_fail(err, -EINVAL, "traced_mean_n",
					  "not a count");
		}
		if (!*err && n != r->nr_traced)
			jget_fail(err, -EINVAL, "traced_mean_n",
				  "not one per sample");
	}
	obs = jget_object_or_null(err, o, "observer");
	if (!obs)
		return;
	jctx_push("observer", -1);
	r->obs.measured = true;
	jget_double(err, obs, "ratio", &r->obs.ratio);
	jget_pair(err, obs, "ratio_ci95", r->obs.ratio_ci95);
	jget_double(err, obs, "added_pct", &r->obs.added_pct);
	jget_pair(err, obs, "added_ci95_pct", r->obs.added_ci95_pct);
	jget_bool(err, obs, "significant", &r->obs.significant);
	jget_bool(err, obs, "beyond_untraced_ci95", &r->obs.beyond_ci);
	jctx_pop();
}

static struct json_object *prog_json(const struct prog_cost *p)
{
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_str(o, "name", p->name);
	err |= jadd_u64(o, "run_cnt", p->run_cnt);
	err |= jadd_u64(o, "run_time_ns", p->run_time_ns);
	err |= jadd_u64(o, "recursion_misses", p->misses);
	return jbuilt(o, err);
}

struct json_object *report_cost_json(const void *item)
{
	const struct tracer_cost *c = item;
	struct json_object *o = json_object_new_object(), *progs;
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_str(o, "target", c->target);
	err |= jadd_str(o, "workload", c->workload);
	err |= jadd_str(o, "job", c->job);
	err |= jadd_bool(o, "measured", c->measured);
	err |= jadd_str(o, "why", c->why);
	err |= jadd_int(o, "iteration", c->iteration);
	err |= jadd_double(o, "wall_s", c->wall_s);
	err |= jadd_u64(o, "ops", c->ops);
	err |= jadd_u64(o, "runs", c->runs);
	err |= jadd_u64(o, "run_time_ns", c->run_time_ns);
	err |= jadd_double(o, "events_per_op",
			   c->ops ? (double)c->runs / (double)c->ops : 0.0);
	err |= jadd_double(o, "ns_per_op",
			   c->ops ? (double)c->run_time_ns / (double)c->ops
				  : 0.0);
	err |= jadd_u64(o, "dropped_events", c->dropped);
	progs = json_object_new_array();
	for (int i = 0; progs && i < c->nr_progs && i < MAX_COST_PROGS; i++)
		err |= jappend(progs, prog_json(&c->progs[i]));
	err |= jadd(o, "programs", progs);
	return jbuilt(o, err);
}

void report_cost_from(int *err, struct json_object *o, void *item)
{
	struct tracer_cost *c = item;
	struct json_object *a;
	size_t n;

	jget_str(err, o, "target", c->target, sizeof(c->target));
	jget_str(err, o, "workload", c->workload, sizeof(c->workload));
	if (jhas(o, "job"))
		jget_str(err, o, "job", c->job, sizeof(c->job));
	jget_bool(err, o, "measured", &c->measured);
	jget_str(err, o, "why", c->why, sizeof(c->why));
	jget_int(err, o, "iteration", &c->iteration);
	jget_double(err, o, "wall_s", &c->wall_s);
	jget_u64(err, o, "ops", &c->ops);
	jget_u64(err, o, "runs", &c->runs);
	jget_u64(err, o, "run_time_ns", &c->run_time_ns);
	jget_u64(err, o, "dropped_events", &c->dropped);
	n = jget_array(err, o, "programs", MAX_COST_PROGS, &a);
	for (size_t i = 0; i < n && !*err; i++) {
		struct json_object *p = json_object_array_get_idx(a, i);
		struct prog_cost *pc = &c->progs[i];

		jctx_push("programs", (long)i);
		jget_str(err, p, "name", pc->name, sizeof(pc->name));
		jget_u64(err, p, "run_cnt", &pc->run_cnt);
		jget_u64(err, p, "run_time_ns", &pc->run_time_ns);
		jget_u64(err, p, "recursion_misses", &pc->misses);
		jctx_pop();
	}
	c->nr_progs = *err ? 0 : (int)n;
}
