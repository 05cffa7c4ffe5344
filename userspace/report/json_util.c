// SPDX-License-Identifier: MIT
/* Small json-c wrappers with the error conventions of report_priv.h. */
#include <errno.h>
#include <math.h>
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

int jadd_str(struct json_object *o, const char *key, const char *s)
{
	return jadd(o, key, json_object_new_string(s));
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

struct json_object *jtext_object(const char *text)
{
	struct json_object *o;

	if (!text || !*text)
		return NULL;
	o = json_tokener_parse(text);
	if (o && json_object_is_type(o, json_type_object))
		return o;
	json_object_put(o);
	return json_object_new_string(text);
}

static int bad_type(const char *key, const char *want)
{
	fprintf(stderr, "encbench-trace: JSON member \"%s\" is not %s\n", key,
		want);
	return -EINVAL;
}

/* The member, or NULL when absent or null. */
static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

static int copy_str(const char *key, const char *s, char *buf, size_t len)
{
	size_t n = strlen(s);

	if (n >= len) {
		fprintf(stderr,
			"encbench-trace: JSON member \"%s\" is too long "
			"(%zu bytes, at most %zu)\n",
			key, n, len - 1);
		return -E2BIG;
	}
	memcpy(buf, s, n + 1);
	return 0;
}

void jget_str(int *err, struct json_object *o, const char *key, char *buf,
	      size_t len)
{
	struct json_object *v = member(o, key);

	if (*err || !v)
		return;
	if (!json_object_is_type(v, json_type_string))
		*err = bad_type(key, "a string");
	else
		*err = copy_str(key, json_object_get_string(v), buf, len);
}

void jget_bool(int *err, struct json_object *o, const char *key, bool *b)
{
	struct json_object *v = member(o, key);

	if (*err || !v)
		return;
	if (!json_object_is_type(v, json_type_boolean))
		*err = bad_type(key, "true or false");
	else
		*b = json_object_get_boolean(v);
}

void jget_int(int *err, struct json_object *o, const char *key, int *i)
{
	struct json_object *v = member(o, key);
	int64_t x;

	if (*err || !v)
		return;
	x = json_object_get_int64(v);
	if (!json_object_is_type(v, json_type_int) || x < INT32_MIN ||
	    x > INT32_MAX)
		*err = bad_type(key, "a 32-bit integer");
	else
		*i = (int)x;
}

void jget_u64(int *err, struct json_object *o, const char *key, uint64_t *u)
{
	struct json_object *v = member(o, key);

	if (*err || !v)
		return;
	/* json-c gives negative numbers int64, others uint64 or int64. */
	if (!json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 0)
		*err = bad_type(key, "an unsigned integer");
	else
		*u = json_object_get_uint64(v);
}

void jget_uint(int *err, struct json_object *o, const char *key,
	       unsigned int *u)
{
	uint64_t x = *u;

	jget_u64(err, o, key, &x);
	if (*err)
		return;
	if (x > UINT32_MAX)
		*err = bad_type(key, "a 32-bit unsigned integer");
	else
		*u = (unsigned int)x;
}

void jto_double(int *err, const char *key, struct json_object *v, double *d)
{
	if (*err)
		return;
	if (!v)
		*d = NAN;
	else if (!json_object_is_type(v, json_type_double) &&
		 !json_object_is_type(v, json_type_int))
		*err = bad_type(key, "a number");
	else
		*d = json_object_get_double(v);
}

void jget_double(int *err, struct json_object *o, const char *key, double *d)
{
	struct json_object *v = NULL;

	/* Present but null is NaN; absent leaves *d alone. */
	if (o && json_object_object_get_ex(o, key, &v))
		jto_double(err, key, v, d);
}

void jget_pair(int *err, struct json_object *o, const char *key, double out[2])
{
	struct json_object *v = member(o, key);

	if (*err || !v)
		return;
	if (!json_object_is_type(v, json_type_array) ||
	    json_object_array_length(v) != 2) {
		*err = bad_type(key, "a [low, high] pair");
		return;
	}
	jto_double(err, key, json_object_array_get_idx(v, 0), &out[0]);
	jto_double(err, key, json_object_array_get_idx(v, 1), &out[1]);
}

size_t jget_array(int *err, struct json_object *o, const char *key, size_t max,
		  struct json_object **arr)
{
	struct json_object *v = member(o, key);

	*arr = NULL;
	if (*err || !v)
		return 0;
	if (!json_object_is_type(v, json_type_array)) {
		*err = bad_type(key, "an array");
		return 0;
	}
	if (json_object_array_length(v) > max) {
		fprintf(stderr,
			"encbench-trace: JSON member \"%s\" has %zu entries, "
			"at most %zu fit\n",
			key, json_object_array_length(v), max);
		*err = -E2BIG;
		return 0;
	}
	*arr = v;
	return json_object_array_length(v);
}

struct json_object *jget_object(int *err, struct json_object *o,
				const char *key)
{
	struct json_object *v = member(o, key);

	if (*err || !v)
		return NULL;
	if (!json_object_is_type(v, json_type_object)) {
		*err = bad_type(key, "an object");
		return NULL;
	}
	return v;
}

void jget_text(int *err, struct json_object *o, const char *key, char *buf,
	       size_t len)
{
	const int flags =
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE;
	struct json_object *v = member(o, key);

	if (*err || !v)
		return;
	if (json_object_is_type(v, json_type_string))
		*err = copy_str(key, json_object_get_string(v), buf, len);
	else if (!json_object_is_type(v, json_type_object))
		*err = bad_type(key, "an object");
	else
		*err = copy_str(key, json_object_to_json_string_ext(v, flags),
				buf, len);
}
