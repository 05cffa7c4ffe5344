/* SPDX-License-Identifier: MIT */
/*
 * The timeline's events of one phase, paired into spans and laid out as a
 * Chrome trace-event document that Perfetto's JSON importer
 * (src/trace_processor/importers/json/) and catapult's trace viewer
 * (chrome://tracing) take without an import error: every (pid, tid) track
 * holds spans that nest or are disjoint, times are whole nanoseconds, and
 * every track is named. No BPF here: it is tested on made-up events.
 */
#ifndef ENCBENCH_TIMELINE_DOC_H
#define ENCBENCH_TIMELINE_DOC_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "../../bpf/timeline.h" /* struct tl_event */

/* Tracks of the device lanes have pids and tids from here up: Linux's
 * PID_MAX_LIMIT (include/linux/threads.h), so no real process or thread
 * of the trace can have them. */
#define TIMELINE_SYNTH_ID_BASE (1u << 22)
/* Overlapping bios (or requests) of one device beyond this many at once
 * cannot be drawn without overlap: they are left out, and counted. */
#define TIMELINE_MAX_LANES 256

struct timeline_phase {
	const char *target, *workload;
	uint64_t t0_ns, end_ns; /* the phase, CLOCK_MONOTONIC */
	double window_s;
	uint64_t lost; /* events the ring buffer or the array had no room for */
};

/* ev[0..n) (sorted here, in place) as a trace-event document; NULL when
 * out of memory. */
struct json_object *timeline_doc(struct tl_event *ev, size_t n,
				 const struct timeline_phase *phase);

#endif /* ENCBENCH_TIMELINE_DOC_H */
