/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the report writers and readers. Private to
 * userspace/report.
 */
#ifndef ENCBENCH_REPORT_PRIV_H
#define ENCBENCH_REPORT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "../common/results.h"

/* The results.json "schema" member this version writes and reads. */
#define RESULTS_SCHEMA "encbench-trace/1"

/*
 * Builders: each adds one member to object o and returns 0, or -1 when out
 * of memory (the value is then freed). Callers OR the results together and
 * check once per object.
 */
int jadd(struct json_object *o, const char *key, struct json_object *v);
/* A JSON string of s, made valid UTF-8 (see report_utf8_valid). */
struct json_object *jstr(const char *s);
int jadd_str(struct json_object *o, const char *key, const char *s);
int jadd_bool(struct json_object *o, const char *key, bool b);
int jadd_int(struct json_object *o, const char *key, int64_t i);
int jadd_u64(struct json_object *o, const char *key, uint64_t u);
/* Non-finite doubles have no JSON form: written as null. */
int jadd_double(struct json_object *o, const char *key, double d);
struct json_object *jdouble(double d);
/* An array of n doubles, non-finite ones as null; NULL when out of
 * memory. */
struct json_object *jdouble_array(const double *d, int n);
/* Append v to array a; same contract as jadd. */
int jappend(struct json_object *a, struct json_object *v);
/* The whole results model as the results.json document (json.c); NULL
 * when out of memory. The caller puts it. */
struct json_object *report_results_json(const struct results *r);
/* One struct comparison (item) as results.json's comparisons hold it. */
struct json_object *report_comparison_json(const void *item);
/* meta.options as results.json holds it, and as one line of that JSON
 * (run.log, report.html). */
struct json_object *report_options_json(const struct run_options *r);
void report_options_text(const struct run_options *r, char *buf, size_t len);

/*
 * Readers, with a sticky error: each does nothing once *err is set, and
 * sets it (negative errno) with a message naming the member, for
 * jget_error(), when the member is missing (the writer writes every
 * member: test jhas() first for one that is optional), null where the
 * writer never writes null, of the wrong type, a number that is not finite,
 * an integer that is negative or out of range, or a string longer than
 * the destination (a cut path or name would come back as a different
 * value).
 */
void jget_str(int *err, struct json_object *o, const char *key, char *buf,
	      size_t len);
void jget_bool(int *err, struct json_object *o, const char *key, bool *b);
/* Integers are counts and sizes: 0 .. INT32_MAX, UINT32_MAX, UINT64_MAX-1. */
void jget_int(int *err, struct json_object *o, const char *key, int *i);
void jget_uint(int *err, struct json_object *o, const char *key,
	       unsigned int *u);
void jget_u64(int *err, struct json_object *o, const char *key, uint64_t *u);
/* null reads as NaN, the value that was written as null. */
void jget_double(int *err, struct json_object *o, const char *key, double *d);
/* The same for a value v (e.g. an array element) of member key. */
void jto_double(int *err, const char *key, struct json_object *v, double *d);
/* [lo, hi] pair of doubles. */
void jget_pair(int *err, struct json_object *o, const char *key, double out[2]);
/* Member that must be an array of at most max elements: its length, and
 * the array in *arr. */
size_t jget_array(int *err, struct json_object *o, const char *key, size_t max,
		  struct json_object **arr);
/* Member that must be an object. */
struct json_object *jget_object(int *err, struct json_object *o,
				const char *key);
/* The same, where the writer writes null for "none": NULL then. */
struct json_object *jget_object_or_null(int *err, struct json_object *o,
					const char *key);
/* Is the member there (null included)? */
bool jhas(struct json_object *o, const char *key);
/* Set the error (the first one sticks) with "is ..." after the name. */
void jget_fail(int *err, int code, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Members are named below what was pushed: "results[3].mean". */
void jctx_push(const char *key, long idx);
void jctx_pop(void);
/* Before a document: no error, no context. After: the first error. */
void jget_reset(void);
const char *jget_error(void);

/*
 * json_caps.c: the capability groups, each ending with a NULL name, in the
 * order of the JSON object and of `probe` output.
 */
struct cap_field {
	const char *name;
	size_t offset; /* of a struct cap in struct capabilities */
};

extern const struct cap_field report_caps_top[], report_caps_attach[],
	report_caps_storage[], report_caps_io[];
const struct cap *report_cap_at(const struct capabilities *c, size_t off);

/*
 * fileio.c. Each prints a one-line message naming the file on failure and
 * return negative errno.
 */
/* dir/.name.XXXXXX, fsync, published as dir/name unless that exists
 * (never replaced), fsync dir. Adds a final newline when text lacks one. */
int report_write_atomic(const char *dir, const char *name, const char *text);
/* build(out, arg) writes the text into memory (0, or negative errno);
 * then it goes to dir/name as with report_write_atomic. */
int report_write_built(const char *dir, const char *name,
		       int (*build)(FILE *out, const void *arg),
		       const void *arg);
/* The largest results file read: the largest the writer makes (every
 * sample, attribution and histogram at its maximum) is well below. */
#define REPORT_MAX_INPUT (64 << 20)
/*
 * The whole of a regular file of at most max bytes, judged by fstat
 * before a byte is read: /dev/zero, a FIFO (opened without blocking) or a
 * folder are refused, and so is a file too large. NUL-terminated text,
 * malloc'ed.
 */
int report_read_file(const char *path, size_t max, char **text, size_t *len);
/* Whole file as one JSON object (nothing but whitespace may follow); a
 * regular file of at most REPORT_MAX_INPUT bytes. */
int report_load_json(const char *path, struct json_object **out);
/* The same for text in memory; name is what messages call it. */
int report_parse_json(const char *name, const char *text, size_t len,
		      struct json_object **out);

/*
 * escape.c: text from outside on its way out.
 */
/* text to out with every control character (C0 but newline and tab, DEL,
 * C1) escaped, as are bytes that are not UTF-8 (\xNN). */
void report_put_safe(FILE *out, const char *text, size_t len);
/* text as valid UTF-8 (bytes that are not become \xNN); malloc'ed, NULL
 * when out of memory. */
char *report_utf8_valid(const char *text);

/*
 * Text pieces shared by text*.c and csv.c (run.log).
 */
/* A target: file system, devices, encryption; its notes when asked. */
void report_print_target(FILE *out, const struct target_info *t, bool baseline,
			 bool notes);
/* Decimals that show v >= 1 to three significant digits. */
static inline int report_decimals(double v)
{
	if (v >= 100)
		return 0;
	return v >= 10 ? 1 : 2;
}
/* Section (b) of the text report: attribution tables. */
void report_print_attribution(const struct results *r, FILE *out);
/* Section (c) of the text report: every non-empty histogram. */
void report_print_histograms(const struct results *r, FILE *out);

/* json_wait.c: an attribution's "wait" object. */
struct json_object *report_wait_json(const struct wait_result *w);
void report_wait_from(int *err, struct json_object *parent,
		      struct wait_result *w);
/* text_wait.c: the wait decomposition of one attribution. */
void report_print_wait(const struct attribution *a, FILE *out);

#endif /* ENCBENCH_REPORT_PRIV_H */
