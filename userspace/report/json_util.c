// SPDX-License-Identifier: MIT
/* Small json-c wrappers with the error conventions of report_priv.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_priv.h"

int jadd(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v)
		return -1;
	/* json-c keeps ownership with the caller when the add fails. */
	if (json_object_object_add(o, key, v)) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

struct json_object *jstr(const char *s)
{
	char *valid;
	struct json_object *v;

	/* Paths and names from the command line need not be UTF-8; JSON
	 * must be. */
	valid = report_utf8_valid(s);
	v = valid ? json_object_new_string(valid) : NULL;
	free(valid);
	return v;
}

int jadd_str(struct json_object *o, const char *key, const char *s)
{
	return jadd(o, key, jstr(s));
}

int jadd_bool(struct json_object *o, const char *key, bool b)
{
	return jadd(o, key, json_object_new_boolean(b));
}

int jadd_int(struct json_object *o, const char *key, int64_t i)
{
	return jadd(o, key, json_object_new_int64(i));
}

int jadd_u64(struct json_object *o, const char *key, uint64_t u)
{
	return jadd(o, key, json_object_new_uint64(u));
}

/*
 * The shortest of %.15g..%.17g that reads back as the same double: exact
 * round trips without printing 0.26300000000000001 for 0.263.
 */
struct json_object *jdouble(double d)
{
	char buf[32];

	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	return json_object_new_double_s(d, buf);
}

int jadd_double(struct json_object *o, const char *key, double d)
{
	if (!isfinite(d))
		return json_object_object_add(o, key, NULL) ? -1 : 0;
	return jadd(o, key, jdouble(d));
}

struct json_object *jbuilt(struct json_object *o, int err)
{
	if (err) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int jappend(struct json_object *a, struct json_object *v)
{
	if (!v)
		return -1;
	if (json_object_array_add(a, v)) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

/* ---- reading: the first error, one line naming the member ---------- */

static char err_text[256];
static char ctx[192];
static size_t ctx_len[8];
static int ctx_depth;

void jctx_push(const char *key, long idx)
{
	size_t n = strlen(ctx);

	if (ctx_depth < 8)
		ctx_len[ctx_depth] = n;
	ctx_depth++;
	if (idx >= 0)
		snprintf(ctx + n, sizeof(ctx) - n, "%s%s[%ld]", n ? "." : "",
			 key, idx);
	else
		snprintf(ctx + n, sizeof(ctx) - n, "%s%s", n ? "." : "", key);
}

void jctx_pop(void)
{
	if (ctx_depth > 0 && --ctx_depth < 8)
		ctx[ctx_len[ctx_depth]] = '\0';
}

void jget_reset(void)
{
	err_text[0] = ctx[0] = '\0';
	ctx_depth = 0;
}

const char *jget_error(void)
{
	return err_text[0] ? err_text : "unreadable";
}

void jget_fail(int *err, int code, const char *key, const char *fmt, ...)
{
	char why[128];
	va_list ap;

	if (*err)
		return;
	*err = code;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(err_text, sizeof(err_text), "member \"%s%s%s\" %s", ctx,
		 ctx[0] && key[0] ? "." : "", key, why);
}

static void bad_type(int *err, const char *key, const char *want)
{
	jget_fail(err, -EINVAL, key, "is not %s", want);
}

/*
 * The member, present: the writer always writes every member, so one
 * that is missing is an error. *v is NULL for a JSON null.
 */
static bool member(int *err, struct json_object *o, const char *key,
		   struct json_object **v)
{
	*v = NULL;
	if (*err)
		return false;
	/* o is NULL where an entry that should be an object was null. */
	if (!o || !json_object_object_get_ex(o, key, v)) {
		jget_fail(err, -EINVAL, key, "is missing");
		return false;
	}
	return true;
}

bool jhas(struct json_object *o, const char *key)
{
	return o && json_object_object_get_ex(o, key, NULL);
}

static int copy_str(int *err, const char *key, const char *s, char *buf,
		    size_t len)
{
	size_t n = strlen(s);

	if (n >= len) {
		jget_fail(err, -E2BIG, key,
			  "is too long (%zu bytes, at most %zu)", n, len - 1);
		return *err;
	}
	memcpy(buf, s, n + 1);
	return 0;
}

void jget_str(int *err, struct json_object *o, const char *key, char *buf,
	      size_t len)
{
	struct json_object *v;

	if (!member(err, o, key, &v))
		return;
	if (!json_object_is_type(v, json_type_string))
		bad_type(err, key, "a string");
	else
		copy_str(err, key, json_object_get_string(v), buf, len);
}

void jget_bool(int *err, struct json_object *o, const char *key, bool *b)
{
	struct json_object *v;

	if (!member(err, o, key, &v))
		return;
	if (!json_object_is_type(v, json_type_boolean))
		bad_type(err, key, "true or false");
	else
		*b = json_object_get_boolean(v);
}

/*
 * An integer in [0, max]. json-c clamps what does not fit 64 bits to
 * INT64_MIN or UINT64_MAX without a word: those are refused as out of
 * range (the writer never writes them).
 */
static bool get_count(int *err, struct json_object *o, const char *key,
		      uint64_t max, uint64_t *out)
{
	struct json_object *v;
	int64_t s;
	uint64_t u;

	if (!member(err, o, key, &v))
		return false;
	if (!json_object_is_type(v, json_type_int)) {
		bad_type(err, key, "an integer");
		return false;
	}
	s = json_object_get_int64(v);
	u = json_object_get_uint64(v);
	if (s < 0)
		jget_fail(err, -ERANGE, key, "is negative (%lld)",
			  (long long)s);
	else if (u == UINT64_MAX || u > max)
		jget_fail(err, -ERANGE, key, "is out of range (at most %llu)",
			  (unsigned long long)(max == UINT64_MAX ? max - 1
								 : max));
	if (*err)
		return false;
	*out = u;
	return true;
}

void jget_int(int *err, struct json_object *o, const char *key, int *i)
{
	uint64_t x;

	if (get_count(err, o, key, INT32_MAX, &x))
		*i = (int)x;
}

void jget_u64(int *err, struct json_object *o, const char *key, uint64_t *u)
{
	get_count(err, o, key, UINT64_MAX, u);
}

void jget_uint(int *err, struct json_object *o, const char *key,
	       unsigned int *u)
{
	uint64_t x;

	if (get_count(err, o, key, UINT32_MAX, &x))
		*u = (unsigned int)x;
}

void jto_double(int *err, const char *key, struct json_object *v, double *d)
{
	double x;

	if (*err)
		return;
	if (!v) {
		*d = NAN; /* written as null: not finite */
		return;
	}
	if (!json_object_is_type(v, json_type_double) &&
	    !json_object_is_type(v, json_type_int)) {
		bad_type(err, key, "a number");
		return;
	}
	/* json-c takes NaN, Infinity and 1e400 (inf); the writer never
	 * writes them (null stands for not finite). */
	x = json_object_get_double(v);
	if (!isfinite(x))
		jget_fail(err, -ERANGE, key, "is not a finite number");
	else
		*d = x;
}

void jget_double(int *err, struct json_object *o, const char *key, double *d)
{
	struct json_object *v;

	if (member(err, o, key, &v))
		jto_double(err, key, v, d);
}

void jget_pair(int *err, struct json_object *o, const char *key, double out[2])
{
	struct json_object *v;

	if (!member(err, o, key, &v))
		return;
	if (!json_object_is_type(v, json_type_array) ||
	    json_object_array_length(v) != 2) {
		bad_type(err, key, "a [low, high] pair");
		return;
	}
	jto_double(err, key, json_object_array_get_idx(v, 0), &out[0]);
	jto_double(err, key, json_object_array_get_idx(v, 1), &out[1]);
}

size_t jget_array(int *err, struct json_object *o, const char *key, size_t max,
		  struct json_object **arr)
{
	struct json_object *v;

	*arr = NULL;
	if (!member(err, o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_array)) {
		bad_type(err, key, "an array");
		return 0;
	}
	if (json_object_array_length(v) > max) {
		jget_fail(err, -E2BIG, key, "has %zu entries, at most %zu fit",
			  json_object_array_length(v), max);
		return 0;
	}
	*arr = v;
	return json_object_array_length(v);
}

struct json_object *jget_object_or_null(int *err, struct json_object *o,
					const char *key)
{
	struct json_object *v;

	if (!member(err, o, key, &v) || !v)
		return NULL;
	if (!json_object_is_type(v, json_type_object)) {
		bad_type(err, key, "an object");
		return NULL;
	}
	return v;
}

struct json_object *jget_object(int *err, struct json_object *o,
				const char *key)
{
	struct json_object *v;

	if (!member(err, o, key, &v))
		return NULL;
	if (!v || !json_object_is_type(v, json_type_object)) {
		bad_type(err, key, "an object");
		return NULL;
	}
	return v;
}
