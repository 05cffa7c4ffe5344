/* SPDX-License-Identifier: MIT */
/*
 * --timeline: for the first seconds of each phase, every I/O as spans
 * (syscalls, bios, requests, crypto work) and wakeups, written as a
 * Chrome/Perfetto trace-event JSON file. It rides on the tracer: the same
 * processes, devices and crypto work functions, from its maps.
 */
#ifndef ENCBENCH_TIMELINE_H
#define ENCBENCH_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"
#include "../../bpf/timeline.h"

struct timeline;

/* One phase's recorded events, for report_write_timeline: ev stays valid
 * until the next timeline_begin or timeline_close. */
struct timeline_events {
	struct tl_event *ev;
	size_t n;
	uint64_t t0_ns, end_ns; /* the phase, CLOCK_MONOTONIC */
	double window_s;
	uint64_t lost; /* events the ring buffer or the array had no room for */
};

/* Load beside tr (attached once to know it can be, then detached). On
 * failure, negative errno and why. */
int timeline_open(struct tracer *tr, struct timeline **out, char *why,
		  size_t why_len);
/* Attached only while the tracer is (trace_attach .. trace_detach): the
 * timeline sees traced iterations only. NULL is fine. */
int timeline_attach(struct timeline *tl);
void timeline_detach(struct timeline *tl);
/* A phase begins (call after trace_begin): record for `seconds`. */
int timeline_begin(struct timeline *tl, const struct trace_filter *f,
		   double seconds);
/* The phase ends: what was recorded, in *out; -EINVAL without tl. */
int timeline_end(struct timeline *tl, struct timeline_events *out);
/* Detach and free; NULL is fine. */
void timeline_close(struct timeline *tl);

#endif /* ENCBENCH_TIMELINE_H */
