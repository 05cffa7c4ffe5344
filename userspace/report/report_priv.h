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
/* Finish an object or array built with OR-ed jadd/jappend results: o, or
 * NULL (o put) when err is set. */
struct json_object *jbuilt(struct json_object *o, int err);
/* The whole results model as the results.json document (json.c); NULL
 * when out of memory. The caller puts it. */
struct json_object *report_results_json(const struct results *r);
/* One struct comparison (item) as results.json's comparisons hold it. */
struct json_object *report_comparison_json(const void *item);
/* json_cost.c: a result's traced iterations and observer effect, added
 * to its object o (0, -1 out of memory), and read back (optional);
 * one struct tracer_cost (item), and read back. */
int report_traced_json(struct json_object *o, const struct result *r);
void report_traced_from(int *err, struct json_object *o, struct result *r);
struct json_object *report_cost_json(const void *item);
void report_cost_from(int *err, struct json_object *o, void *item);
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
/* Op's member of a per-op object o is absent and may be: an op added after
 * the files written before it (EB_OP_REAP); its figures stay zero. */
static inline bool op_absent(struct json_object *o, int op)
{
	return op == EB_OP_REAP && o && !jhas(o, op_name(op));
}
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
/* text.c: one workload's results table and the ZFS report's sentences;
 * !full: without the rusage rows and with a one-line legend. */
void report_print_workload(const struct results *r, const char *wl, FILE *out,
			   bool full);
/* print(r, mem, arg) into memory, then escaped onto out (text.c). */
void report_print_safe(const struct results *r, FILE *out,
		       void (*print)(const struct results *r, FILE *out,
				     const void *arg),
		       const void *arg);
/* tune's ranking and recommendation (text_tune.c). */
void report_print_tune(const struct results *r, FILE *out);
/* tune: had a variant before `target` this note already? (Said once.) */
bool report_noted_before(const struct results *r, int target, const char *note);
/* The targets' notes under heading, each once under tune (text.c). */
void report_print_notes(const struct results *r, const char *heading,
			FILE *out);
/* Section (c) of the text report: every non-empty histogram. */
void report_print_histograms(const struct results *r, FILE *out);

/* A target as results.json's targets[] hold it (json.c), and back
 * (json_read.c); the snapshot files use the same. */
struct json_object *report_target_json(const void *item);
void report_target_from(int *err, struct json_object *o, void *item);
/* A log2 histogram's slots, trailing empty ones left out, and back. */
struct json_object *report_slots_json(const uint64_t *slots);
void report_slots_from(int *err, struct json_object *o, const char *key,
		       uint64_t *slots);

struct snap_aio;
/* json_aio.c: an attribution's "aio" object, and a snapshot's raw
 * counters, written and read back (absent: not available). */
struct json_object *report_aio_json(const struct aio_result *a);
void report_aio_from(int *err, struct json_object *parent,
		     struct aio_result *a);
struct json_object *report_snap_aio_json(const struct snap_aio *a);
void report_snap_aio_from(int *err, struct json_object *root,
			  struct snap_aio *a);
/* json_wait.c: an attribution's "wait" object. */
/* json_why.c: why the caller blocked, into and out of the "wait"
 * object o (0 or non-zero on failure). */
int report_why_json(struct json_object *o, const struct wait_result *w);
void report_why_from(int *err, struct json_object *o, struct wait_result *w);
struct json_object *report_wait_json(const struct wait_result *w);
void report_wait_from(int *err, struct json_object *parent,
		      struct wait_result *w);
/* json_tune.c: results.json's "tune" object, written and read back
 * (absent from a run's document: r->tune stays off). */
struct json_object *report_tune_json(const struct tune_result *t);
void report_tune_from(int *err, struct json_object *doc, struct tune_result *t);
/* text_wait.c: the wait decomposition of one attribution. */
void report_print_wait(const struct attribution *a, FILE *out);

/* text_cost.c: on the first screen, a warning per target and metric
 * where tracing added more than OBSERVER_WARN_PCT % (the traced
 * iterations against the untraced ones); in the details, the observer
 * effect per target and metric, and what the tracer's programs cost. */
#define OBSERVER_WARN_PCT 10.0
/* Whether x's observer effect is warned of: more than OBSERVER_WARN_PCT
 * and significant (its 95 % interval excludes none added). Two traced
 * iterations' wide interval, e.g. +46.7 % [-533, +627], warns of
 * nothing: the details still show it. */
bool report_observer_warns(const struct result *x);
void report_print_observer_warning(const struct results *r, FILE *out);
/* The same in one line, for the short report. */
void report_print_observer_line(const struct results *r, FILE *out);
void report_print_observer(const struct results *r, FILE *out);
void report_print_costs(const struct results *r, FILE *out);
/* html_cost.c: the same in report.html (header warning, a section). */
void report_html_observer_warning(FILE *out, const struct results *r);
void report_html_costs(FILE *out, const struct results *const *runs, int n);

#endif /* ENCBENCH_REPORT_PRIV_H */
