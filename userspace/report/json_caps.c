// SPDX-License-Identifier: MIT
/*
 * The capability object: results.json meta.capabilities and the output of
 * `probe --json`. Its shape is relied on by the VM tests:
 *   {"kernel", "arch", "root", "btf", "tracefs", "bpffs",
 *    "attach": {"tp_btf", "raw_tp", "fentry", "kprobe", "perf_event"},
 *    "storage": {"loop", "dm_crypt", "fscrypt", "ecryptfs", "zfs"},
 *    "io_uring", "cpu_aes", "ciphers": [{name, driver, hw_accel, predicted}],
 *    "layer_sources": {<layer name>: source}}
 * where each capability is {"ok": bool, "detail": string}.
 */
#include <errno.h>
#include <stddef.h>

#include "report_priv.h"
#include "report.h"

/* clang-format cannot lay out a braced initialiser inside a macro. */
/* clang-format off */
#define CAP_FIELD(f) {#f, offsetof(struct capabilities, f)}

/* The names are the JSON member names and the `probe` labels alike. */
const struct cap_field report_caps_top[] = {
	CAP_FIELD(btf), CAP_FIELD(tracefs), CAP_FIELD(bpffs), {NULL, 0},
};
const struct cap_field report_caps_attach[] = {
	CAP_FIELD(tp_btf), CAP_FIELD(raw_tp), CAP_FIELD(fentry),
	CAP_FIELD(kprobe), CAP_FIELD(perf_event), {NULL, 0},
};
const struct cap_field report_caps_storage[] = {
	CAP_FIELD(loop), CAP_FIELD(dm_crypt), CAP_FIELD(fscrypt),
	CAP_FIELD(ecryptfs), CAP_FIELD(zfs), {NULL, 0},
};
/* Apart from the top group only to keep the documented member order. */
const struct cap_field report_caps_io[] = {
	CAP_FIELD(io_uring), {NULL, 0},
};
/* clang-format on */

const struct cap *report_cap_at(const struct capabilities *c, size_t off)
{
	return (const struct cap *)((const char *)c + off);
}

static int add_caps(struct json_object *o, const struct capabilities *caps,
		    const struct cap_field *f)
{
	int err = 0;

	for (; f->name; f++) {
		const struct cap *cap = report_cap_at(caps, f->offset);
		struct json_object *c = json_object_new_object();

		if (!c)
			return -1;
		err |= jadd_bool(c, "ok", cap->ok);
		err |= jadd_str(c, "detail", cap->detail);
		err |= jadd(o, f->name, c);
	}
	return err;
}

static struct json_object *caps_group(const struct capabilities *caps,
				      const struct cap_field *f)
{
	struct json_object *o = json_object_new_object();

	if (o && add_caps(o, caps, f)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *ciphers_json(const struct capabilities *caps)
{
	struct json_object *a = json_object_new_array();
	int err = 0;

	if (!a)
		return NULL;
	for (int i = 0; i < caps->nr_ciphers && i < MAX_CIPHERS; i++) {
		const struct cipher_info *ci = &caps->ciphers[i];
		struct json_object *c = json_object_new_object();

		if (!c) {
			err = -1;
			break;
		}
		err |= jadd_str(c, "name", ci->name);
		err |= jadd_str(c, "driver", ci->driver);
		err |= jadd_bool(c, "hw_accel", ci->hw_accel);
		err |= jadd_bool(c, "predicted", ci->predicted);
		err |= jappend(a, c);
	}
	return jbuilt(a, err);
}

struct json_object *report_caps_json(const struct capabilities *caps)
{
	struct json_object *o = json_object_new_object(), *src;
	int err = 0;

	if (!o)
		return NULL;
	err |= jadd_str(o, "kernel", caps->kernel);
	err |= jadd_str(o, "arch", caps->arch);
	err |= jadd_bool(o, "root", caps->root);
	err |= add_caps(o, caps, report_caps_top);
	err |= jadd(o, "attach", caps_group(caps, report_caps_attach));
	err |= jadd(o, "storage", caps_group(caps, report_caps_storage));
	err |= add_caps(o, caps, report_caps_io);
	err |= jadd_bool(o, "cpu_aes", caps->cpu_aes);
	err |= jadd(o, "ciphers", ciphers_json(caps));
	src = json_object_new_object();
	for (int l = 0; src && l < NR_LAYERS; l++)
		err |= jadd_str(src, layer_name(l), caps->layer_sources[l]);
	err |= jadd(o, "layer_sources", src);
	return jbuilt(o, err);
}

static void read_caps(int *err, struct json_object *o,
		      struct capabilities *caps, const struct cap_field *f)
{
	for (; f->name; f++) {
		struct cap *cap = (struct cap *)report_cap_at(caps, f->offset);
		struct json_object *c = jget_object(err, o, f->name);

		jctx_push(f->name, -1);
		jget_bool(err, c, "ok", &cap->ok);
		jget_str(err, c, "detail", cap->detail, sizeof(cap->detail));
		jctx_pop();
	}
}

static void read_ciphers(int *err, struct json_object *o,
			 struct capabilities *caps)
{
	struct json_object *a;
	size_t n = jget_array(err, o, "ciphers", MAX_CIPHERS, &a);

	for (size_t i = 0; i < n; i++) {
		struct cipher_info *ci = &caps->ciphers[i];
		struct json_object *c = json_object_array_get_idx(a, i);

		jctx_push("ciphers", (long)i);
		jget_str(err, c, "name", ci->name, sizeof(ci->name));
		jget_str(err, c, "driver", ci->driver, sizeof(ci->driver));
		jget_bool(err, c, "hw_accel", &ci->hw_accel);
		jget_bool(err, c, "predicted", &ci->predicted);
		jctx_pop();
	}
	if (!*err)
		caps->nr_ciphers = (int)n;
}

int report_caps_from_json(struct json_object *o, struct capabilities *caps)
{
	struct json_object *src;
	int err = 0;

	if (!o || !json_object_is_type(o, json_type_object)) {
		jget_fail(&err, -EINVAL, "capabilities", "is not an object");
		return err;
	}
	jget_str(&err, o, "kernel", caps->kernel, sizeof(caps->kernel));
	jget_str(&err, o, "arch", caps->arch, sizeof(caps->arch));
	jget_bool(&err, o, "root", &caps->root);
	read_caps(&err, o, caps, report_caps_top);
	read_caps(&err, jget_object(&err, o, "attach"), caps,
		  report_caps_attach);
	read_caps(&err, jget_object(&err, o, "storage"), caps,
		  report_caps_storage);
	read_caps(&err, o, caps, report_caps_io);
	jget_bool(&err, o, "cpu_aes", &caps->cpu_aes);
	read_ciphers(&err, o, caps);
	src = jget_object(&err, o, "layer_sources");
	for (int l = 0; l < NR_LAYERS; l++) {
		/* dmcrypt-write came later: absent from older files. */
		if (l == LAYER_DMCRYPT_WRITE && src &&
		    !jhas(src, layer_name(l)))
			continue;
		jget_str(&err, src, layer_name(l), caps->layer_sources[l],
			 sizeof(caps->layer_sources[l]));
	}
	return err;
}
