/* SPDX-License-Identifier: MIT */
/*
 * Finding things in a results.json (as json-c parsed it) for the tests
 * that run the real program, on the host and in the VM guest. A missing
 * piece fails the current test with its name. Header-only: the guest
 * tests link nothing of the program's.
 */
#ifndef ENCBENCH_RESULTS_JSON_H
#define ENCBENCH_RESULTS_JSON_H

#include <stdint.h>
#include <string.h>

#include <json-c/json.h>

static inline struct json_object *get(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, k, &v))
		fail_msg("results.json: missing \"%s\"", k);
	return v;
}

/* The target called `name` in results document doc. */
static inline struct json_object *target_of(struct json_object *doc,
					    const char *name)
{
	struct json_object *ts = get(doc, "targets");

	for (size_t i = 0; i < json_object_array_length(ts); i++) {
		struct json_object *t = json_object_array_get_idx(ts, i);

		if (!strcmp(json_object_get_string(get(t, "name")), name))
			return t;
	}
	fail_msg("no target %s", name);
	return NULL;
}

/* The result of (target, workload, metric) in results document doc;
 * workload NULL: any workload's. Fails the test when there is none. */
static inline struct json_object *result_of(struct json_object *doc,
					    const char *target,
					    const char *workload,
					    const char *metric)
{
	struct json_object *res = get(doc, "results");

	for (size_t i = 0; i < json_object_array_length(res); i++) {
		struct json_object *r = json_object_array_get_idx(res, i);

		if (!strcmp(json_object_get_string(get(r, "target")), target) &&
		    (!workload ||
		     !strcmp(json_object_get_string(get(r, "workload")),
			     workload)) &&
		    !strcmp(json_object_get_string(get(r, "metric")), metric))
			return r;
	}
	fail_msg("no %s %s on %s", workload ? workload : "", metric, target);
	return NULL;
}

/* The attribution entry for (target, op) in results document doc, of
 * the part (a fio job) named job if not NULL, or NULL. */
static inline struct json_object *attrib_find(struct json_object *doc,
					      const char *target,
					      const char *job, const char *op)
{
	struct json_object *att = get(doc, "attribution");

	for (size_t i = 0; i < json_object_array_length(att); i++) {
		struct json_object *a = json_object_array_get_idx(att, i);

		if (!strcmp(json_object_get_string(get(a, "target")), target) &&
		    (!job ||
		     !strcmp(json_object_get_string(get(a, "job")), job)) &&
		    !strcmp(json_object_get_string(get(a, "op")), op))
			return a;
	}
	return NULL;
}

/* The attribution entry for (target, op) in results document doc. */
static inline struct json_object *attrib_of(struct json_object *doc,
					    const char *target, const char *op)
{
	struct json_object *a = attrib_find(doc, target, NULL, op);

	if (!a)
		fail_msg("no %s/%s attribution", target, op);
	return a;
}

/* The verdict for (target, op) in results document doc. */
static inline struct json_object *verdict_of(struct json_object *doc,
					     const char *target, const char *op)
{
	struct json_object *vs = get(doc, "verdicts");

	for (size_t i = 0; i < json_object_array_length(vs); i++) {
		struct json_object *v = json_object_array_get_idx(vs, i);

		if (!strcmp(json_object_get_string(get(v, "target")), target) &&
		    !strcmp(json_object_get_string(get(v, "op")), op))
			return v;
	}
	fail_msg("no %s/%s verdict", target, op);
	return NULL;
}

/* A layer of attribution entry a. */
static inline struct json_object *layer_in(struct json_object *a,
					   const char *layer)
{
	struct json_object *ls = get(a, "layers");

	for (size_t j = 0; j < json_object_array_length(ls); j++) {
		struct json_object *l = json_object_array_get_idx(ls, j);

		if (!strcmp(json_object_get_string(get(l, "layer")), layer))
			return l;
	}
	fail_msg("no %s layer in the attribution of %s", layer,
		 json_object_get_string(get(a, "op")));
	return NULL;
}

/* A layer of the attribution entry for (target, op). */
static inline struct json_object *layer_of(struct json_object *doc,
					   const char *target, const char *op,
					   const char *layer)
{
	return layer_in(attrib_of(doc, target, op), layer);
}

/* A wait decomposition w ("wait" of an attribution entry) after checking
 * that its components add up to its total, as they do by construction. */
static inline struct json_object *wait_checked(struct json_object *w)
{
	uint64_t sum = 0;

	json_object_object_foreach(get(w, "ns"), k, v)
	{
		(void)k;
		sum += json_object_get_uint64(v);
	}
	if (sum != json_object_get_uint64(get(w, "total_ns")))
		fail_msg("wait components add up to %llu ns, not total_ns",
			 (unsigned long long)sum);
	return w;
}

/* How many of the targets' notes contain `needle`. */
static inline int notes_with(struct json_object *doc, const char *needle)
{
	struct json_object *ts = get(doc, "targets");
	int n = 0;

	for (size_t i = 0; i < json_object_array_length(ts); i++) {
		struct json_object *notes =
			get(json_object_array_get_idx(ts, i), "notes");

		for (size_t k = 0; k < json_object_array_length(notes); k++)
			n += !!strstr(
				json_object_get_string(
					json_object_array_get_idx(notes, k)),
				needle);
	}
	return n;
}

/* The variant called `name` of a results document's "tune" object. */
static inline struct json_object *variant_of(struct json_object *tune,
					     const char *name)
{
	struct json_object *vs = get(tune, "variants");

	for (size_t i = 0; i < json_object_array_length(vs); i++) {
		struct json_object *v = json_object_array_get_idx(vs, i);

		if (!strcmp(json_object_get_string(get(v, "name")), name))
			return v;
	}
	fail_msg("no variant %s", name);
	return NULL;
}

#endif
