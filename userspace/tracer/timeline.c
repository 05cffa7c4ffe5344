// SPDX-License-Identifier: MIT
/*
 * --timeline: load timeline.bpf.c beside the tracer (its maps of traced
 * processes, devices, syscalls and crypto work functions are the
 * tracer's, by map reuse) and collect the first seconds of each phase
 * from the ring buffer; report/timeline_doc.c makes them a trace-event
 * document.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "timeline.h"
#include "timeline.skel.h"
#include "common/bpf_ids.h"

#define MAX_EVENTS 200000 /* per phase; beyond, counted as lost */

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

static int attach(struct timeline *tl);

int timeline_attach(struct timeline *tl)
{
	int err;

	if (!tl)
		return 0;
	err = attach(tl);
	if (err)
		timeline_detach(tl);
	return err;
}

void timeline_detach(struct timeline *tl)
{
	if (tl)
		timeline_bpf__detach(tl->skel);
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
	err = timeline_attach(tl);
	timeline_detach(tl); /* attached only with the tracer */
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

int timeline_end(struct timeline *tl, struct timeline_events *out)
{
	if (!tl)
		return -EINVAL;
	__atomic_store_n(&tl->skel->bss->until_ns, 0, __ATOMIC_SEQ_CST);
	ring_buffer__consume(tl->rb);
	tl->collecting = false;
	*out = (struct timeline_events){
		.ev = tl->ev,
		.n = tl->nr_ev,
		.t0_ns = tl->t0_ns,
		.end_ns = now_ns(),
		.window_s = tl->window_s,
		.lost = tl->skel->bss->lost + tl->lost_user,
	};
	return 0;
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
