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

#include <json-c/json.h>

#include "trace.h"

struct timeline;

/* Load and attach beside tr. On failure, negative errno and why. */
int timeline_open(struct tracer *tr, struct timeline **out, char *why,
		  size_t why_len);
/* A phase begins (call after trace_begin): record for `seconds`. */
int timeline_begin(struct timeline *tl, const struct trace_filter *f,
		   double seconds);
/* The phase ends: what was recorded, paired into spans, as a trace-event
 * document (the caller puts it); NULL when out of memory. */
struct json_object *timeline_end(struct timeline *tl, const char *target,
				 const char *workload);
/* Detach and free; NULL is fine. */
void timeline_close(struct timeline *tl);

#endif /* ENCBENCH_TIMELINE_H */
