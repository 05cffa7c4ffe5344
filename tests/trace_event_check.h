/* SPDX-License-Identifier: MIT */
/*
 * What Perfetto's JSON importer and catapult's trace viewer (the one in
 * chrome://tracing) need of a trace-event file, checked on one of ours.
 * Each rule names where it comes from: Perfetto's
 * src/trace_processor/importers/json/json_trace_tokenizer.cc (TOK),
 * json_trace_parser.cc (PARSE), importers/common/slice_tracker.cc (SLICE),
 * catapult's tracing/tracing/extras/importer/trace_event_importer.html
 * (CAT) and tracing/tracing/model/slice_group.html, timed_event.html.
 * The code is ours; only the rules are theirs.
 */
#ifndef ENCBENCH_TRACE_EVENT_CHECK_H
#define ENCBENCH_TRACE_EVENT_CHECK_H

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "file_text.h"

/* Device lanes are given ids from Linux's PID_MAX_LIMIT up. */
#define TE_SYNTH_ID_BASE (1ll << 22)
/* SLICE: slice_tracker.h kMaxDepth; deeper slices are dropped. */
#define TE_MAX_DEPTH 512

struct te_summary {
	size_t spans, instants, tracks;
};

struct te_slice {
	int64_t pid, tid, ts, dur; /* nanoseconds */
	size_t index;		   /* in the file */
};

static inline int te_fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

static inline struct json_object *te_get(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(o, k, &v) ? v : NULL;
}

/* TOK CoerceToTs: ts and dur are microseconds, turned into nanoseconds by
 * rounding: a digit past the third decimal would be lost, and nesting
 * decided on rounded times. catapult nests to its display unit
 * (timed_event.html bounds()). So: a plain decimal, at most 3 decimals,
 * not negative; its nanoseconds exactly, from the text, into *ns. */
static inline bool te_us(struct json_object *v, int64_t *ns)
{
	const char *s, *dot;
	size_t frac;

	if (!json_object_is_type(v, json_type_double) &&
	    !json_object_is_type(v, json_type_int))
		return false;
	s = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
	dot = strchr(s, '.');
	frac = dot ? strlen(dot + 1) : 0;
	if (!isdigit((unsigned char)s[0]) || frac > 3 ||
	    strspn(s, "0123456789") != (dot ? (size_t)(dot - s) : strlen(s)) ||
	    (dot && strspn(dot + 1, "0123456789") != frac))
		return false;
	*ns = strtoll(s, NULL, 10) * 1000;
	if (dot) {
		char f[4] = "000";

		memcpy(f, dot + 1, frac);
		*ns += strtoll(f, NULL, 10);
	}
	return true;
}

/* TOK: pid and tid become uint32 (CoerceToUint32: out of range is 0) and
 * a tid of 0 is taken for the pid; CAT keys threads by these values. */
static inline bool te_id(struct json_object *v, int64_t *id)
{
	if (!json_object_is_type(v, json_type_int))
		return false;
	*id = json_object_get_int64(v);
	return *id > 0 && *id <= UINT32_MAX;
}

static inline bool te_nonempty(struct json_object *v)
{
	return json_object_is_type(v, json_type_string) &&
	       json_object_get_string_len(v) > 0;
}

static inline int te_by_track(const void *a, const void *b)
{
	const struct te_slice *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static inline bool te_named(const struct te_slice *names, size_t n, int64_t pid,
			    int64_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (names[i].pid == pid && (tid < 0 || names[i].tid == tid))
			return true;
	return false;
}

/* SLICE MaybeCloseStack on each (pid, tid) track, slices in the order the
 * importers take them (time, then file: TOK sorts by ts, stably; catapult's
 * createSubSlicesImpl_ breaks ties by index): [ts, ts + dur) is half-open,
 * one that ends past the enclosing one's end is an overlap (Perfetto
 * spills it, slice_spill_overlapping_complete_event, an import error;
 * catapult draws it wrongly). */
static inline int te_nesting(struct te_slice *s, size_t n, size_t *tracks,
			     char *why, size_t len)
{
	struct te_slice *stack[TE_MAX_DEPTH];
	size_t depth = 0;

	qsort(s, n, sizeof(*s), te_by_track);
	*tracks = 0;
	for (size_t i = 0; i < n; i++) {
		struct te_slice *x = &s[i];

		if (!i || x->pid != s[i - 1].pid || x->tid != s[i - 1].tid) {
			depth = 0;
			++*tracks;
		}
		while (depth) {
			struct te_slice *top = stack[depth - 1];
			int64_t end = top->ts + top->dur;

			if (end > x->ts ||
			    (end == x->ts && !top->dur && !x->dur))
				break;
			depth--;
		}
		if (depth && x->ts + x->dur > stack[depth - 1]->ts +
						      stack[depth - 1]->dur)
			return te_fail(why, len,
				       "events %zu and %zu on track %lld/%lld "
				       "overlap without nesting",
				       stack[depth - 1]->index, x->index,
				       (long long)x->pid, (long long)x->tid);
		if (depth == TE_MAX_DEPTH)
			return te_fail(why, len, "event %zu nested too deep",
				       x->index);
		stack[depth++] = x;
	}
	return 0;
}

/* A metadata event: TOK lets it go without ts; PARSE knows these four
 * names, CAT warns on others; *_name needs a non-empty args.name (PARSE:
 * json_parser_failure), *_sort_index a number. */
static inline int te_meta(struct json_object *e, size_t i, struct te_slice *n,
			  size_t *np, struct te_slice *t, size_t *nt, char *why,
			  size_t len)
{
	const char *name = json_object_get_string(te_get(e, "name"));
	struct json_object *args = te_get(e, "args");
	int64_t pid, tid;

	if (!te_id(te_get(e, "pid"), &pid) || !te_id(te_get(e, "tid"), &tid))
		return te_fail(why, len, "metadata %zu: pid/tid", i);
	if (!name || !json_object_is_type(args, json_type_object))
		return te_fail(why, len, "metadata %zu: name or args", i);
	if (!strcmp(name, "process_sort_index") ||
	    !strcmp(name, "thread_sort_index")) {
		if (!json_object_is_type(te_get(args, "sort_index"),
					 json_type_int))
			return te_fail(why, len, "metadata %zu: sort_index", i);
		return 0;
	}
	if (strcmp(name, "process_name") && strcmp(name, "thread_name"))
		return te_fail(why, len, "metadata %zu: unknown %s", i, name);
	if (!te_nonempty(te_get(args, "name")))
		return te_fail(why, len, "metadata %zu: no args.name", i);
	if (!strcmp(name, "process_name"))
		n[(*np)++] = (struct te_slice){.pid = pid, .tid = -1};
	else
		t[(*nt)++] = (struct te_slice){.pid = pid, .tid = tid};
	return 0;
}

/* An 'X' or 'i' event into *s. */
static inline int te_event(struct json_object *e, size_t i, char ph,
			   struct te_slice *s, char *why, size_t len)
{
	struct json_object *args = te_get(e, "args");

	s->index = i;
	s->dur = 0;
	/* PARSE: an empty name becomes "[No name]"; CAT colours by it. */
	if (!te_nonempty(te_get(e, "name")) ||
	    !json_object_is_type(te_get(e, "cat"), json_type_string))
		return te_fail(why, len, "event %zu: name or cat", i);
	/* TOK: an event without a usable ts is an import error. */
	if (!te_us(te_get(e, "ts"), &s->ts))
		return te_fail(why, len, "event %zu: ts %s", i,
			       json_object_get_string(te_get(e, "ts")));
	/* PARSE 'X': without dur, json_parser_failure. */
	if (ph == 'X' && !te_us(te_get(e, "dur"), &s->dur))
		return te_fail(why, len, "event %zu: dur %s", i,
			       json_object_get_string(te_get(e, "dur")));
	/* PARSE 'i': thread scope needs a tid; CAT: only "t" is a slice. */
	if (ph == 'i' &&
	    strcmp(json_object_get_string(te_get(e, "s")) ?: "", "t"))
		return te_fail(why, len, "event %zu: instant scope", i);
	if (!te_id(te_get(e, "pid"), &s->pid) ||
	    !te_id(te_get(e, "tid"), &s->tid))
		return te_fail(why, len, "event %zu: pid/tid", i);
	/* Ours: a lane is all synthetic or all real, never a thread's id. */
	if ((s->pid >= TE_SYNTH_ID_BASE) != (s->tid >= TE_SYNTH_ID_BASE) ||
	    (s->pid >= TE_SYNTH_ID_BASE && s->pid == s->tid))
		return te_fail(why, len, "event %zu: ids %lld/%lld", i,
			       (long long)s->pid, (long long)s->tid);
	/* TOK keeps args only if an object. */
	if (args && !json_object_is_type(args, json_type_object))
		return te_fail(why, len, "event %zu: args", i);
	/* CAT's JSON.parse makes every number a double: an integer past
	 * 2^53 would be shown as another one. */
	if (args) {
		json_object_object_foreach(args, k, v)
		{
			int64_t x = json_object_get_int64(v);

			if (json_object_is_type(v, json_type_int) &&
			    (x > (1ll << 53) - 1 || x < -((1ll << 53) - 1)))
				return te_fail(why, len, "event %zu: args.%s",
					       i, k);
		}
	}
	return 0;
}

/* 0 if the file at `path` keeps every rule, else -1 and why. */
static inline int te_check(const char *path, struct te_summary *sum, char *why,
			   size_t len)
{
	char *text = file_text(path), *p = text;
	struct json_tokener *tok = json_tokener_new();
	struct json_object *doc = NULL, *events, *unit;
	struct te_slice *s = NULL, *pn = NULL, *tn = NULL;
	size_t n = 0, ns = 0, np = 0, nt = 0;
	int64_t last = 0;
	int err = -1;

	memset(sum, 0, sizeof(*sum));
	if (!text || !tok) {
		te_fail(why, len, "%s: cannot read", path);
		goto out;
	}
	/* TOK JsonImporter::Sniff: blanks aside, it begins {" or [{". */
	while (isspace((unsigned char)*p))
		p++;
	if (*p != '{' || p[1 + strspn(p + 1, " \t\r\n")] != '"') {
		te_fail(why, len, "%s: does not begin {\"", path);
		goto out;
	}
	/* Strict JSON, all of it: TOK fails the file on a syntax error. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	doc = json_tokener_parse_ex(tok, text, (int)strlen(text));
	if (!doc || json_tokener_get_error(tok) != json_tokener_success ||
	    text[json_tokener_get_parse_end(tok) +
		 strspn(text + json_tokener_get_parse_end(tok), " \t\r\n")]) {
		te_fail(why, len, "%s: not strict JSON", path);
		goto out;
	}
	/* TOK: "traceEvents is not an array" fails the file. */
	events = te_get(doc, "traceEvents");
	if (!json_object_is_type(events, json_type_array)) {
		te_fail(why, len, "%s: traceEvents is not an array", path);
		goto out;
	}
	/* CAT throws on a unit other than ms and ns; with ms it nests to
	 * the microsecond (time.html roundedLess), ours need ns. */
	unit = te_get(doc, "displayTimeUnit");
	if (!unit || strcmp(json_object_get_string(unit), "ns")) {
		te_fail(why, len, "%s: displayTimeUnit is not ns", path);
		goto out;
	}
	n = json_object_array_length(events);
	s = calloc(n + 1, sizeof(*s));
	pn = calloc(n + 1, sizeof(*pn));
	tn = calloc(n + 1, sizeof(*tn));
	if (!s || !pn || !tn)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(events, i);
		const char *ph = json_object_get_string(te_get(e, "ph"));

		/* TOK: no ph is an error; CAT warns on a phase it does not
		 * know. Ours are these three. */
		if (!ph || strlen(ph) != 1 || !strchr("XiM", ph[0])) {
			te_fail(why, len, "event %zu: ph %s", i, ph ?: "none");
			goto out;
		}
		if (ph[0] == 'M') {
			if (te_meta(e, i, pn, &np, tn, &nt, why, len))
				goto out;
			continue;
		}
		if (te_event(e, i, ph[0], &s[ns], why, len))
			goto out;
		/* Ours: the file is in time order. */
		if (s[ns].ts < last) {
			te_fail(why, len, "event %zu: before the one ahead", i);
			goto out;
		}
		last = s[ns].ts;
		sum->spans += ph[0] == 'X';
		sum->instants += ph[0] == 'i';
		/* Ours: every process and thread drawn is named. */
		if (!te_named(pn, np, s[ns].pid, -1) ||
		    !te_named(tn, nt, s[ns].pid, s[ns].tid)) {
			te_fail(why, len, "event %zu: track %lld/%lld unnamed",
				i, (long long)s[ns].pid, (long long)s[ns].tid);
			goto out;
		}
		ns++;
	}
	err = te_nesting(s, ns, &sum->tracks, why, len);
out:
	json_object_put(doc);
	json_tokener_free(tok);
	free(text);
	free(s);
	free(pn);
	free(tn);
	return err;
}

#endif /* ENCBENCH_TRACE_EVENT_CHECK_H */
