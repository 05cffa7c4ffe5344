// SPDX-License-Identifier: MIT
/*
 * --timeline: load timeline.bpf.c beside the tracer (its maps of traced
 * processes, devices, syscalls and crypto work functions are the
 * tracer's, by map reuse), collect the first seconds of each phase from
 * the ring buffer, pair starts with ends, and hand back the spans as a
 * Chrome trace-event document (ui.perfetto.dev and chrome://tracing open
 * it): one track per workload thread and kworker, lanes per device for
 * requests and bios, wakeups as instant events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>

#include "timeline.h"
#include "../../bpf/timeline.h"
#include "timeline.skel.h"
#include "common/bpf_ids.h"

#define MAX_EVENTS 200000 /* per phase; beyond, counted as lost */
#define MAX_LANES  64
/* Device tracks: lanes of overlapping bios, then of requests. */
#define LANE_BIO 1
#define LANE_RQ	 (LANE_BIO + MAX_LANES)

struct span {
	uint64_t ts, end;
	const char *name, *cat;
	uint32_t pid, tid;
	char ph; /* 'X' span, 'i' instant */
	uint64_t sector;
	uint32_t bytes;
	int64_t nr, ret;
};

struct timeline {
	struct timeline_bpf *skel;
	struct ring_buffer *rb;
	struct tl_event *ev;
	size_t nr_ev;
	uint64_t lost_user; /* events beyond MAX_EVENTS */
	uint64_t t0_ns;
	double window_s;
	bool collecting;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct timeline *tl = ctx;

	if (!tl->collecting || size < sizeof(struct tl_event))
		return 0;
	if (tl->nr_ev >= MAX_EVENTS) {
		tl->lost_user++;
		return 0;
	}
	memcpy(&tl->ev[tl->nr_ev++], data, sizeof(struct tl_event));
	return 0;
}

/* Our map `name` becomes the tracer's. Its size and flags are taken from
 * the tracer's map as it is, so that a change there (the tracer's tables
 * are sized for memlock) never makes the two incompatible. */
static int reuse(struct bpf_map *map, struct tracer *tr, const char *name)
{
	struct bpf_map_info info = {0};
	__u32 len = sizeof(info);
	int fd = trace_map_fd(tr, name);

	if (fd < 0)
		return fd;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (bpf_map__set_max_entries(map, info.max_entries) ||
	    bpf_map__set_map_flags(map, info.map_flags))
		return -EINVAL;
	return bpf_map__reuse_fd(map, fd);
}

static int attach(struct timeline *tl)
{
	const struct bpf_object_skeleton *s = tl->skel->skeleton;

	for (int i = 0; i < s->prog_cnt; i++) {
		struct bpf_link **link = s->progs[i].link;

		*link = bpf_program__attach(*s->progs[i].prog);
		if (!*link) {
			*link = NULL;
			return -errno;
		}
		bpf_ids_add_link(*link);
	}
	return 0;
}

int timeline_open(struct tracer *tr, struct timeline **out, char *why,
		  size_t why_len)
{
	struct timeline *tl = calloc(1, sizeof(*tl));
	struct bpf_program *prog;
	const char *step = "opening";
	int err = -ENOMEM;

	*out = NULL;
	if (!tl || !(tl->ev = calloc(MAX_EVENTS, sizeof(*tl->ev))))
		goto cleanup;
	tl->skel = timeline_bpf__open();
	if (!tl->skel) {
		err = -errno;
		goto cleanup;
	}
	step = "sharing the tracer's maps";
	err = reuse(tl->skel->maps.traced, tr, "traced") ?:
	      reuse(tl->skel->maps.sys_ops, tr, "sys_ops") ?:
	      reuse(tl->skel->maps.devs, tr, "devs") ?:
	      reuse(tl->skel->maps.crypt_funcs, tr, "crypt_funcs") ?:
	      reuse(tl->skel->maps.cx_start, tr, "cx_start");
	if (err)
		goto cleanup;
	step = "loading";
	err = timeline_bpf__load(tl->skel);
	if (err)
		goto cleanup;
	bpf_object__for_each_program(prog, tl->skel->obj)
		bpf_ids_add_prog(prog);
	step = "attaching";
	err = attach(tl);
	if (err)
		goto cleanup;
	step = "opening the ring buffer";
	tl->rb = ring_buffer__new(bpf_map__fd(tl->skel->maps.events), on_event,
				  tl, NULL);
	if (!tl->rb) {
		err = -errno;
		goto cleanup;
	}
	*out = tl;
	return 0;
cleanup:
	snprintf(why, why_len, "timeline: %s the BPF programs: %s", step,
		 strerror(-err));
	timeline_close(tl);
	return err;
}

int timeline_begin(struct timeline *tl, const struct trace_filter *f,
		   double seconds)
{
	if (!tl)
		return -EINVAL;
	/* Whatever a previous phase left in the buffer is not this one's. */
	tl->collecting = false;
	ring_buffer__consume(tl->rb);
	tl->nr_ev = 0;
	tl->lost_user = 0;
	tl->skel->bss->lost = 0;
	tl->skel->bss->filter_devs = f->nr_devs > 0;
	tl->window_s = seconds;
	tl->collecting = true;
	tl->t0_ns = now_ns();
	__atomic_store_n(&tl->skel->bss->until_ns,
			 tl->t0_ns + (uint64_t)(seconds * 1e9),
			 __ATOMIC_SEQ_CST);
	return 0;
}

static int by_ts(const void *a, const void *b)
{
	const struct tl_event *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int span_by_ts(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
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
					.pid = e->dev,
					.tid = LANE_BIO,
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
					   .pid = s->dev,
					   .tid = LANE_RQ,
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

/* Overlapping spans of one device track go to lanes (threads) of their
 * own: a trace viewer draws one lane's spans as a stack, so they must
 * nest. Spans are in time order. */
static void assign_lanes(struct span *sp, size_t n)
{
	struct {
		uint32_t dev, base;
		uint64_t end[MAX_LANES];
	} t[2 * MAX_TARGET_DEVS] = {0};
	size_t nt = 0;

	for (size_t i = 0; i < n; i++) {
		struct span *x = &sp[i];
		size_t k = 0;
		int lane = 0;

		if (x->tid != LANE_BIO && x->tid != LANE_RQ)
			continue;
		while (k < nt && (t[k].dev != x->pid || t[k].base != x->tid))
			k++;
		if (k == nt) {
			if (nt == sizeof(t) / sizeof(t[0]))
				continue;
			t[nt].dev = x->pid;
			t[nt++].base = x->tid;
		}
		while (lane < MAX_LANES - 1 && t[k].end[lane] > x->ts)
			lane++;
		t[k].end[lane] = x->end;
		x->tid += lane;
	}
}

static int add_meta(struct json_object *a, const char *what, uint32_t pid,
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
	return json_object_array_add(a, o);
}

/* Names for the tracks: processes by what they are, device lanes. */
static void name_tracks(struct json_object *a, const struct span *sp, size_t n)
{
	char name[64];

	for (size_t i = 0; i < n; i++) {
		const struct span *x = &sp[i];
		bool seen = false;

		bool pid_seen = false;

		for (size_t j = 0; j < i && !seen; j++) {
			pid_seen |= sp[j].pid == x->pid;
			seen = sp[j].pid == x->pid && sp[j].tid == x->tid;
		}
		if (seen || (pid_seen && strcmp(x->cat, "device") &&
			     strcmp(x->cat, "blk-queue")))
			continue;
		if (!strcmp(x->cat, "device") || !strcmp(x->cat, "blk-queue")) {
			snprintf(name, sizeof(name), "device %u:%u",
				 x->pid >> KDEV_MINORBITS,
				 x->pid & ((1u << KDEV_MINORBITS) - 1));
			if (!pid_seen)
				add_meta(a, "process_name", x->pid, x->tid,
					 name);
			snprintf(name, sizeof(name), "%s %u",
				 x->tid >= LANE_RQ ? "requests" : "bios",
				 x->tid >= LANE_RQ ? x->tid - LANE_RQ
						   : x->tid - LANE_BIO);
			add_meta(a, "thread_name", x->pid, x->tid, name);
		} else {
			snprintf(name, sizeof(name), "%s %u",
				 !strcmp(x->cat, "crypt") ? "kworker"
							  : "workload",
				 x->pid);
			add_meta(a, "process_name", x->pid, x->tid, name);
		}
	}
}

static struct json_object *span_json(const struct span *x, uint64_t t0)
{
	struct json_object *o = json_object_new_object();
	struct json_object *args = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(x->name));
	json_object_object_add(o, "cat", json_object_new_string(x->cat));
	json_object_object_add(
		o, "ph", json_object_new_string(x->ph == 'X' ? "X" : "i"));
	/* Microseconds since the phase began, to the nanosecond. */
	json_object_object_add(o, "ts",
			       json_object_new_double((x->ts - t0) / 1e3));
	if (x->ph == 'X')
		json_object_object_add(
			o, "dur",
			json_object_new_double((x->end - x->ts) / 1e3));
	else
		json_object_object_add(o, "s", json_object_new_string("t"));
	json_object_object_add(o, "pid", json_object_new_int64(x->pid));
	json_object_object_add(o, "tid", json_object_new_int64(x->tid));
	if (x->bytes) {
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

struct json_object *timeline_end(struct timeline *tl, const char *target,
				 const char *workload)
{
	struct json_object *doc, *events, *other;
	struct tl_event *open = NULL;
	struct span *sp = NULL;
	uint64_t end, unpaired = 0;
	size_t ns;

	if (!tl)
		return NULL;
	__atomic_store_n(&tl->skel->bss->until_ns, 0, __ATOMIC_SEQ_CST);
	ring_buffer__consume(tl->rb);
	tl->collecting = false;
	end = now_ns();
	qsort(tl->ev, tl->nr_ev, sizeof(*tl->ev), by_ts);
	sp = calloc(tl->nr_ev + 1, sizeof(*sp));
	open = calloc(tl->nr_ev + 1, sizeof(*open));
	doc = json_object_new_object();
	events = json_object_new_array();
	other = json_object_new_object();
	if (!sp || !open || !doc || !events || !other) {
		json_object_put(doc);
		json_object_put(events);
		json_object_put(other);
		doc = NULL;
		goto cleanup;
	}
	ns = pair(tl->ev, tl->nr_ev, sp, open, &unpaired);
	qsort(sp, ns, sizeof(*sp), span_by_ts);
	assign_lanes(sp, ns);
	name_tracks(events, sp, ns);
	for (size_t i = 0; i < ns; i++)
		json_object_array_add(events, span_json(&sp[i], tl->t0_ns));
	json_object_object_add(doc, "traceEvents", events);
	json_object_object_add(doc, "displayTimeUnit",
			       json_object_new_string("ns"));
	json_object_object_add(other, "target", json_object_new_string(target));
	json_object_object_add(other, "workload",
			       json_object_new_string(workload));
	json_object_object_add(other, "window_s",
			       json_object_new_double(tl->window_s));
	json_object_object_add(other, "phase_us",
			       json_object_new_double((end - tl->t0_ns) / 1e3));
	json_object_object_add(other, "events",
			       json_object_new_int64(tl->nr_ev));
	json_object_object_add(
		other, "lost",
		json_object_new_int64(tl->skel->bss->lost + tl->lost_user));
	json_object_object_add(other, "unpaired",
			       json_object_new_int64(unpaired));
	json_object_object_add(doc, "otherData", other);
cleanup:
	free(sp);
	free(open);
	return doc;
}

void timeline_close(struct timeline *tl)
{
	if (!tl)
		return;
	ring_buffer__free(tl->rb);
	timeline_bpf__destroy(tl->skel);
	free(tl->ev);
	free(tl);
}
