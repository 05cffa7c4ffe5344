// SPDX-License-Identifier: MIT
/*
 * One phase's timeline events as a Chrome trace-event document. What the
 * importers make of it decided how it is written (README, "--timeline"):
 *  - Perfetto's slice tracker (importers/common/slice_tracker.cc) and
 *    catapult's slice group (tracing/model/slice_group.html) stack the 'X'
 *    spans of one (pid, tid) track: two that overlap without nesting are
 *    an import error in Perfetto and misdrawn in catapult. A thread's
 *    syscalls and work items follow one another; a device's bios and
 *    requests overlap, so each goes to the first free lane (a thread of
 *    the device's track), and one with no free lane is left out, counted.
 *  - Perfetto and catapult take ts and dur in microseconds; Perfetto rounds
 *    them to nanoseconds (json_trace_tokenizer.cc CoerceToTs), catapult
 *    decides nesting to the displayTimeUnit (model/timed_event.html
 *    bounds()): both are written as exact decimals to the nanosecond, and
 *    displayTimeUnit is "ns" (Perfetto ignores it, an info-level stat).
 *  - Both take threads by (pid, tid); Perfetto also looks tids up alone
 *    (importers/common/process_tracker.cc): device lanes get ids above
 *    any real pid or tid.
 *  - Perfetto keeps a top-level "metadata" object and skips "otherData";
 *    catapult shows both: the phase's counts go in both.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "timeline_doc.h"
#include "../common/results.h"
#include "report.h"

#define MAX_DEV_TRACKS 32
#define DEVICE_IDS     1024 /* ids per device: its pid, then its lanes */
#define LANE_BIO_TID   1    /* a device's bio lanes: pid + 1 + lane */
#define LANE_RQ_TID    (LANE_BIO_TID + TIMELINE_MAX_LANES)

_Static_assert(LANE_RQ_TID + TIMELINE_MAX_LANES <= DEVICE_IDS,
	       "a device's lanes fit in its ids");

enum span_kind { SPAN_THREAD, SPAN_WORK, SPAN_BIO, SPAN_RQ, SPAN_DROPPED };

struct span {
	uint64_t ts, end;
	const char *name, *cat;
	uint32_t pid, tid; /* of a thread; of a lane after lay_out() */
	uint32_t dev, lane;
	enum span_kind kind;
	char ph; /* 'X' span, 'i' instant */
	uint64_t sector;
	uint32_t bytes;
	int64_t nr, ret;
};

static int by_ts(const void *a, const void *b)
{
	const struct tl_event *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* In time order; at one time the longer first, so that a span comes
 * before those it holds (both importers take ties in file order). */
static int span_order(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

/* A counted call by what it does; an open only creates with O_CREAT,
 * which the timeline does not look at, so it is just an open. */
static const char *sys_name(uint32_t v)
{
	if (SYS_OP_CREAT_ARG(v) >= 0)
		return "open";
	return op_name((int)(v & SYS_OP_MASK) - 1);
}

static const char *work_name(uint64_t kind)
{
	switch (kind) {
	case CRYPT_WORK_FSCRYPT_READ:
		return "fscrypt decrypt";
	case CRYPT_WORK_FSCRYPT_BH:
		return "fscrypt decrypt (buffer head)";
	case CRYPT_WORK_DMCRYPT:
		return "dm-crypt";
	case CRYPT_WORK_BLK_CRYPTO:
		return "blk-crypto decrypt";
	}
	return "crypto work";
}

/* The start event of kind `start` with this key (and thread, for the
 * per-thread kinds), still open; it is closed as it is found. */
static struct tl_event *take(struct tl_event *open, size_t n, unsigned int kind,
			     uint64_t key, uint32_t tid, bool by_tid)
{
	for (size_t i = n; i-- > 0;) {
		struct tl_event *o = &open[i];

		if (o->kind != kind || (by_tid ? o->tid != tid : o->key != key))
			continue;
		o->kind = ~0u; /* closed */
		return o;
	}
	return NULL;
}

/* Pair starts with ends, in time order, into spans; returns how many.
 * Starts are kept in `open` (ends look backwards: the latest matches). */
static size_t pair(struct tl_event *ev, size_t n, struct span *sp,
		   struct tl_event *open, uint64_t *unpaired)
{
	size_t ns = 0, no = 0;

	for (size_t i = 0; i < n; i++) {
		struct tl_event *e = &ev[i], *s;
		struct span *x = &sp[ns];

		switch (e->kind) {
		case TL_SYS_ENTER:
		case TL_BIO_QUEUE:
		case TL_WORK_START:
			open[no++] = *e;
			continue;
		case TL_SYS_EXIT:
			s = take(open, no, TL_SYS_ENTER, 0, e->tid, true);
			if (!s)
				continue; /* an uncounted call's exit */
			*x = (struct span){.ts = s->ts,
					   .end = e->ts,
					   .name = sys_name((uint32_t)s->arg),
					   .cat = "syscall",
					   .pid = s->tgid,
					   .tid = s->tid,
					   .ph = 'X',
					   .nr = (int64_t)s->key,
					   .ret = (int64_t)e->arg};
			break;
		case TL_RQ_ISSUE:
			/* The request's first bio ends its wait here. */
			s = take(open, no, TL_BIO_QUEUE, e->arg, 0, false);
			if (s)
				sp[ns++] = (struct span){
					.ts = s->ts,
					.end = e->ts,
					.name = "bio waits for its request",
					.cat = "blk-queue",
					.dev = e->dev,
					.kind = SPAN_BIO,
					.ph = 'X',
					.sector = s->sector,
					.bytes = s->bytes};
			open[no++] = *e;
			continue;
		case TL_RQ_COMPLETE:
			s = take(open, no, TL_RQ_ISSUE, e->key, 0, false);
			if (!s) {
				(*unpaired)++;
				continue;
			}
			*x = (struct span){.ts = s->ts,
					   .end = e->ts,
					   .name = "request",
					   .cat = "device",
					   .dev = s->dev,
					   .kind = SPAN_RQ,
					   .ph = 'X',
					   .sector = s->sector,
					   .bytes = s->bytes};
			break;
		case TL_WORK_END:
			s = take(open, no, TL_WORK_START, 0, e->tid, true);
			if (!s) {
				(*unpaired)++;
				continue;
			}
			*x = (struct span){.ts = s->ts,
					   .end = e->ts,
					   .name = work_name(s->arg),
					   .cat = "crypt",
					   .pid = s->tgid,
					   .tid = s->tid,
					   .kind = SPAN_WORK,
					   .ph = 'X'};
			break;
		case TL_WAKEUP:
			*x = (struct span){.ts = e->ts,
					   .end = e->ts,
					   .name = "wakeup",
					   .cat = "sched",
					   .pid = (uint32_t)e->arg,
					   .tid = (uint32_t)e->key,
					   .ph = 'i',
					   .nr = e->tid};
			break;
		default:
			continue;
		}
		ns++;
	}
	for (size_t i = 0; i < no; i++)
		*unpaired += open[i].kind != ~0u;
	return ns;
}

/* Device spans (in time order) to the first lane of their device whose
 * last span has ended: a lane's spans are then disjoint ([ts, end) is
 * half-open in both importers). Returns how many found no lane. */
static uint64_t lay_out(struct span *sp, size_t n)
{
	struct device {
		uint32_t dev;
		uint64_t end[2][TIMELINE_MAX_LANES]; /* bios, requests */
	} *d = calloc(MAX_DEV_TRACKS, sizeof(*d));
	uint64_t dropped = 0;
	size_t nd = 0;

	for (size_t i = 0; i < n; i++) {
		struct span *x = &sp[i];
		size_t k = 0;
		uint32_t lane = 0;
		uint64_t *end;

		if (x->kind != SPAN_BIO && x->kind != SPAN_RQ)
			continue;
		while (d && k < nd && d[k].dev != x->dev)
			k++;
		if (d && k == nd && nd < MAX_DEV_TRACKS)
			d[nd++].dev = x->dev;
		if (!d || k == nd) {
			x->kind = SPAN_DROPPED;
			dropped++;
			continue;
		}
		end = d[k].end[x->kind == SPAN_RQ];
		while (lane < TIMELINE_MAX_LANES && end[lane] > x->ts)
			lane++;
		if (lane == TIMELINE_MAX_LANES) {
			x->kind = SPAN_DROPPED;
			dropped++;
			continue;
		}
		end[lane] = x->end;
		x->lane = lane;
		x->pid = TIMELINE_SYNTH_ID_BASE + k * DEVICE_IDS;
		x->tid = x->pid + lane +
			 (x->kind == SPAN_RQ ? LANE_RQ_TID : LANE_BIO_TID);
	}
	free(d);
	return dropped;
}

static void add_meta(struct json_object *a, const char *what, uint32_t pid,
		     uint32_t tid, const char *name)
{
	struct json_object *o = json_object_new_object(), *args;

	args = json_object_new_object();
	json_object_object_add(args, "name", json_object_new_string(name));
	json_object_object_add(o, "name", json_object_new_string(what));
	json_object_object_add(o, "ph", json_object_new_string("M"));
	json_object_object_add(o, "pid", json_object_new_int64(pid));
	json_object_object_add(o, "tid", json_object_new_int64(tid));
	json_object_object_add(o, "args", args);
	json_object_array_add(a, o);
}

static int by_track(const void *a, const void *b)
{
	const struct span *x = *(const struct span *const *)a;
	const struct span *y = *(const struct span *const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void dev_name(char *buf, size_t len, uint32_t dev)
{
	snprintf(buf, len, "%u:%u", dev >> KDEV_MINORBITS,
		 dev & ((1u << KDEV_MINORBITS) - 1));
}

/* A name for every process and every thread (track) the spans use. */
static void name_tracks(struct json_object *a, const struct span *sp, size_t n)
{
	const struct span **t = calloc(n + 1, sizeof(*t));
	char name[64], dev[24];
	size_t nt = 0;

	for (size_t i = 0; t && i < n; i++)
		if (sp[i].kind != SPAN_DROPPED)
			t[nt++] = &sp[i];
	if (t)
		qsort(t, nt, sizeof(*t), by_track);
	for (size_t i = 0; i < nt; i++) {
		const struct span *x = t[i];
		bool device = x->kind == SPAN_BIO || x->kind == SPAN_RQ;
		const char *who = x->kind == SPAN_WORK ? "kworker" : "workload";

		if (i && by_track(&t[i - 1], &t[i]) == 0)
			continue;
		if (device)
			dev_name(dev, sizeof(dev), x->dev);
		if (!i || t[i - 1]->pid != x->pid) {
			if (device)
				snprintf(name, sizeof(name), "device %s", dev);
			else
				snprintf(name, sizeof(name), "%s %u", who,
					 x->pid);
			add_meta(a, "process_name", x->pid, x->tid, name);
		}
		if (device)
			snprintf(name, sizeof(name), "%s %u",
				 x->kind == SPAN_RQ ? "requests" : "bios",
				 x->lane);
		else
			snprintf(name, sizeof(name), "%s %u", who, x->tid);
		add_meta(a, "thread_name", x->pid, x->tid, name);
	}
	free(t);
}

/* Microseconds to the nanosecond, written exactly ("12.345"). */
static struct json_object *us(uint64_t ns)
{
	char s[32];

	snprintf(s, sizeof(s), "%llu.%03llu", (unsigned long long)(ns / 1000),
		 (unsigned long long)(ns % 1000));
	return json_object_new_double_s(ns / 1e3, s);
}

static struct json_object *span_json(const struct span *x, uint64_t t0)
{
	struct json_object *o = json_object_new_object();
	struct json_object *args = json_object_new_object();
	char dev[24];

	json_object_object_add(o, "name", json_object_new_string(x->name));
	json_object_object_add(o, "cat", json_object_new_string(x->cat));
	json_object_object_add(
		o, "ph", json_object_new_string(x->ph == 'X' ? "X" : "i"));
	json_object_object_add(o, "ts", us(x->ts - t0));
	if (x->ph == 'X')
		json_object_object_add(o, "dur", us(x->end - x->ts));
	else
		json_object_object_add(o, "s", json_object_new_string("t"));
	json_object_object_add(o, "pid", json_object_new_int64(x->pid));
	json_object_object_add(o, "tid", json_object_new_int64(x->tid));
	if (x->kind == SPAN_BIO || x->kind == SPAN_RQ) {
		dev_name(dev, sizeof(dev), x->dev);
		json_object_object_add(args, "dev",
				       json_object_new_string(dev));
	}
	if (x->bytes) { /* a flush has neither */
		json_object_object_add(args, "sector",
				       json_object_new_int64(x->sector));
		json_object_object_add(args, "bytes",
				       json_object_new_int64(x->bytes));
	}
	if (!strcmp(x->cat, "syscall")) {
		json_object_object_add(args, "nr",
				       json_object_new_int64(x->nr));
		json_object_object_add(args, "ret",
				       json_object_new_int64(x->ret));
	}
	if (x->ph == 'i')
		json_object_object_add(args, "waker_tid",
				       json_object_new_int64(x->nr));
	json_object_object_add(o, "args", args);
	return o;
}

static struct json_object *phase_json(const struct timeline_phase *p, size_t n,
				      uint64_t unpaired, uint64_t unplaced)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "target", json_object_new_string(p->target));
	json_object_object_add(o, "workload",
			       json_object_new_string(p->workload));
	json_object_object_add(o, "window_s",
			       json_object_new_double(p->window_s));
	json_object_object_add(o, "phase_us", us(p->end_ns - p->t0_ns));
	json_object_object_add(o, "events", json_object_new_int64(n));
	json_object_object_add(o, "lost", json_object_new_int64(p->lost));
	json_object_object_add(o, "unpaired", json_object_new_int64(unpaired));
	json_object_object_add(o, "unplaced", json_object_new_int64(unplaced));
	return o;
}

struct json_object *timeline_doc(struct tl_event *ev, size_t n,
				 const struct timeline_phase *p)
{
	struct span *sp = calloc(n + 1, sizeof(*sp));
	struct tl_event *open = calloc(n + 1, sizeof(*open));
	struct json_object *doc = NULL, *events, *other;
	uint64_t unpaired = 0, unplaced = 0;
	size_t ns = 0, first = 0;

	if (!sp || !open)
		goto cleanup;
	qsort(ev, n, sizeof(*ev), by_ts);
	/* A program that read the clock just before the phase began and its
	 * deadline just after: not this phase's. */
	while (first < n && ev[first].ts < p->t0_ns)
		first++;
	ns = pair(ev + first, n - first, sp, open, &unpaired);
	qsort(sp, ns, sizeof(*sp), span_order);
	unplaced = first + lay_out(sp, ns);
	doc = json_object_new_object();
	events = json_object_new_array();
	if (!doc || !events) {
		json_object_put(doc);
		json_object_put(events);
		doc = NULL;
		goto cleanup;
	}
	name_tracks(events, sp, ns);
	for (size_t i = 0; i < ns; i++)
		if (sp[i].kind != SPAN_DROPPED)
			json_object_array_add(events,
					      span_json(&sp[i], p->t0_ns));
	json_object_object_add(doc, "traceEvents", events);
	json_object_object_add(doc, "displayTimeUnit",
			       json_object_new_string("ns"));
	other = phase_json(p, n, unpaired, unplaced);
	json_object_object_add(doc, "otherData", other);
	json_object_object_add(doc, "metadata", json_object_get(other));
cleanup:
	free(sp);
	free(open);
	return doc;
}

int report_write_timeline(const char *dir, const char *name,
			  struct tl_event *ev, size_t n,
			  const struct timeline_phase *phase)
{
	struct json_object *doc = timeline_doc(ev, n, phase);
	int err = doc ? report_write_document(dir, name, doc) : -ENOMEM;

	json_object_put(doc);
	return err;
}
