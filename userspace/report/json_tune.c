// SPDX-License-Identifier: MIT
/*
 * results.json's "tune" object (only in a tune run's document): the
 * variants with their settings, what became of each (ranked, skipped and
 * why, stopped early), the penalty against plain with its interval, the
 * added time per call by wait component, and the recommendation. Read
 * back too, so that `report` prints the ranking again.
 */
#include <errno.h>
#include <string.h>

#include "report_priv.h"

static struct json_object *added_json(const struct tune_added_op *o)
{
	struct json_object *j = json_object_new_object();
	struct json_object *by = json_object_new_object();
	struct json_object *items = json_object_new_object();
	int err = !j || !by || !items;

	for (int l = LAYER_FS; !err && l < NR_LAYERS; l++) {
		err |= jadd_double(by, layer_name(l), o->layer_ns[l]);
		err |= jadd_double(items, layer_name(l), o->items_per_mib[l]);
	}
	if (!err) {
		err |= jadd_str(j, "op", op_name(o->op));
		err |= jadd_double(j, "added_ns_per_call", o->added_ns);
		err |= jadd_double(j, "cipher_calls_per_mib",
				   o->cipher_calls_per_mib);
		err |= jadd(j, "by_component_ns", by);
		err |= jadd(j, "items_per_mib", items);
		by = items = NULL;
	}
	json_object_put(by);
	json_object_put(items);
	return jbuilt(j, err);
}

static struct json_object *variant_json(const struct tune_variant *v)
{
	struct json_object *o = json_object_new_object();
	struct json_object *ops = json_object_new_array();
	int err = !o || !ops;

	for (int k = 0; !err && k < v->nr_ops && k < TUNE_OPS; k++)
		err |= jappend(ops, added_json(&v->ops[k]));
	if (err) {
		json_object_put(o);
		json_object_put(ops);
		return NULL;
	}
	err |= jadd_str(o, "name", v->name);
	err |= jadd_str(o, "axis", v->axis);
	err |= jadd_str(o, "settings", v->settings);
	err |= jadd_bool(o, "reference", v->reference);
	err |= jadd_str(o, "skipped", v->skipped);
	if (v->not_disk[0])
		err |= jadd_str(o, "not_disk", v->not_disk);
	err |= jadd_bool(o, "ranked", v->ranked);
	err |= jadd_int(o, "rank", v->rank);
	err |= jadd_bool(o, "tied_best", v->tied_best);
	err |= jadd_double(o, "penalty_pct", v->penalty_pct);
	err |= jadd(o, "penalty_ci95_pct",
		    jdouble_array(v->penalty_ci95_pct, 2));
	err |= jadd_double(o, "score_mean", v->score_mean);
	err |= jadd_int(o, "runs", v->runs);
	err |= jadd_double(o, "seconds", v->seconds);
	err |= jadd_bool(o, "stopped_early", v->stopped_early);
	err |= jadd_bool(o, "cut_by_budget", v->cut_by_budget);
	err |= jadd_bool(o, "finished", v->finished);
	err |= jadd(o, "added_wait", ops);
	return jbuilt(o, err);
}

static struct json_object *advice_json(const struct tune_advice *a)
{
	struct json_object *o = json_object_new_object();
	int err = !o;

	if (err)
		return NULL;
	err |= jadd_bool(o, "have", a->have);
	err |= jadd_int(o, "variant", a->variant);
	err |= jadd_bool(o, "significant", a->significant);
	err |= jadd_double(o, "gain_pct", a->gain_pct);
	err |= jadd(o, "gain_ci95_pct", jdouble_array(a->gain_ci95_pct, 2));
	err |= jadd_str(o, "summary", a->summary);
	err |= jadd_str(o, "command", a->command);
	err |= jadd_str(o, "caveat", a->caveat);
	return jbuilt(o, err);
}

struct json_object *report_tune_json(const struct tune_result *t)
{
	struct json_object *o = json_object_new_object();
	struct json_object *vs = json_object_new_array();
	int err = !o || !vs;

	for (int i = 0; !err && i < t->nr_variants && i < MAX_VARIANTS; i++)
		err |= jappend(vs, variant_json(&t->v[i]));
	if (err) {
		json_object_put(o);
		json_object_put(vs);
		return NULL;
	}
	err |= jadd_str(o, "kind", t->kind);
	err |= jadd_str(o, "workload", t->workload);
	err |= jadd_str(o, "score", t->score);
	err |= jadd_str(o, "score_unit", t->score_unit);
	err |= jadd_bool(o, "score_higher_is_better",
			 t->score_higher_is_better);
	err |= jadd_str(o, "cross_a", t->cross[0]);
	err |= jadd_str(o, "cross_b", t->cross[1]);
	err |= jadd_str(o, "device", t->device);
	err |= jadd_str(o, "device_flags", t->device_flags);
	err |= jadd_double(o, "budget_s", t->budget_s);
	err |= jadd_double(o, "spent_s", t->spent_s);
	err |= jadd_bool(o, "interrupted", t->interrupted);
	err |= jadd_bool(o, "budget_ran_out", t->budget_out);
	err |= jadd(o, "variants", vs);
	err |= jadd(o, "recommendation", advice_json(&t->advice));
	return jbuilt(o, err);
}

static void added_from(int *err, struct json_object *j, struct tune_added_op *o)
{
	struct json_object *by = jget_object(err, j, "by_component_ns");
	struct json_object *items = jget_object(err, j, "items_per_mib");
	char op[NAME_LEN / 2] = "";

	jget_str(err, j, "op", op, sizeof(op));
	o->op = op_from_name(op);
	if (!*err && o->op < 0)
		jget_fail(err, -EINVAL, "op", "is not an op");
	jget_double(err, j, "added_ns_per_call", &o->added_ns);
	if (jhas(j, "cipher_calls_per_mib")) /* newer than the first files */
		jget_double(err, j, "cipher_calls_per_mib",
			    &o->cipher_calls_per_mib);
	for (int l = LAYER_FS; !*err && l < NR_LAYERS; l++) {
		jget_double(err, by, layer_name(l), &o->layer_ns[l]);
		jget_double(err, items, layer_name(l), &o->items_per_mib[l]);
	}
}

static void variant_from(int *err, struct json_object *j,
			 struct tune_variant *v)
{
	struct json_object *ops, *arr;
	size_t n;

	jget_str(err, j, "name", v->name, sizeof(v->name));
	jget_str(err, j, "axis", v->axis, sizeof(v->axis));
	jget_str(err, j, "settings", v->settings, sizeof(v->settings));
	jget_bool(err, j, "reference", &v->reference);
	jget_str(err, j, "skipped", v->skipped, sizeof(v->skipped));
	if (jhas(j, "not_disk"))
		jget_str(err, j, "not_disk", v->not_disk, sizeof(v->not_disk));
	jget_bool(err, j, "ranked", &v->ranked);
	jget_int(err, j, "rank", &v->rank);
	jget_bool(err, j, "tied_best", &v->tied_best);
	jget_double(err, j, "penalty_pct", &v->penalty_pct);
	jget_pair(err, j, "penalty_ci95_pct", v->penalty_ci95_pct);
	jget_double(err, j, "score_mean", &v->score_mean);
	jget_int(err, j, "runs", &v->runs);
	jget_double(err, j, "seconds", &v->seconds);
	jget_bool(err, j, "stopped_early", &v->stopped_early);
	jget_bool(err, j, "cut_by_budget", &v->cut_by_budget);
	jget_bool(err, j, "finished", &v->finished);
	n = jget_array(err, j, "added_wait", TUNE_OPS, &arr);
	v->nr_ops = (int)n;
	for (size_t k = 0; !*err && k < n; k++) {
		ops = json_object_array_get_idx(arr, k);
		jctx_push("added_wait", (long)k);
		if (!json_object_is_type(ops, json_type_object))
			jget_fail(err, -EINVAL, "", "not an object");
		else
			added_from(err, ops, &v->ops[k]);
		jctx_pop();
	}
}

void report_tune_from(int *err, struct json_object *doc, struct tune_result *t)
{
	struct json_object *o, *arr, *a;
	size_t n;

	memset(t, 0, sizeof(*t));
	if (!jhas(doc, "tune"))
		return; /* a run's document */
	o = jget_object(err, doc, "tune");
	if (*err)
		return;
	t->on = true;
	jctx_push("tune", -1);
	jget_str(err, o, "kind", t->kind, sizeof(t->kind));
	jget_str(err, o, "workload", t->workload, sizeof(t->workload));
	jget_str(err, o, "score", t->score, sizeof(t->score));
	jget_str(err, o, "score_unit", t->score_unit, sizeof(t->score_unit));
	jget_bool(err, o, "score_higher_is_better", &t->score_higher_is_better);
	jget_str(err, o, "cross_a", t->cross[0], sizeof(t->cross[0]));
	jget_str(err, o, "cross_b", t->cross[1], sizeof(t->cross[1]));
	if (jhas(o, "device")) { /* since tune --target */
		jget_str(err, o, "device", t->device, sizeof(t->device));
		jget_str(err, o, "device_flags", t->device_flags,
			 sizeof(t->device_flags));
	}
	jget_double(err, o, "budget_s", &t->budget_s);
	jget_double(err, o, "spent_s", &t->spent_s);
	jget_bool(err, o, "interrupted", &t->interrupted);
	jget_bool(err, o, "budget_ran_out", &t->budget_out);
	n = jget_array(err, o, "variants", MAX_VARIANTS, &arr);
	t->nr_variants = (int)n;
	for (size_t i = 0; !*err && i < n; i++) {
		struct json_object *v = json_object_array_get_idx(arr, i);

		jctx_push("variants", (long)i);
		if (!json_object_is_type(v, json_type_object))
			jget_fail(err, -EINVAL, "", "not an object");
		else
			variant_from(err, v, &t->v[i]);
		jctx_pop();
	}
	a = jget_object(err, o, "recommendation");
	if (!*err) {
		struct tune_advice *ad = &t->advice;

		jctx_push("recommendation", -1);
		jget_bool(err, a, "have", &ad->have);
		jget_int(err, a, "variant", &ad->variant);
		jget_bool(err, a, "significant", &ad->significant);
		jget_double(err, a, "gain_pct", &ad->gain_pct);
		jget_pair(err, a, "gain_ci95_pct", ad->gain_ci95_pct);
		jget_str(err, a, "summary", ad->summary, sizeof(ad->summary));
		jget_str(err, a, "command", ad->command, sizeof(ad->command));
		jget_str(err, a, "caveat", ad->caveat, sizeof(ad->caveat));
		jctx_pop();
		if (!*err &&
		    (ad->variant < 0 || ad->variant >= t->nr_variants) &&
		    ad->have)
			jget_fail(err, -EINVAL, "recommendation.variant",
				  "is not a variant");
	}
	jctx_pop();
}
