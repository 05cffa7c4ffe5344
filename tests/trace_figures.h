/* SPDX-License-Identifier: MIT */
/*
 * The host tests' way from a traced phase to its figures: the tracer's
 * snapshot, read by the analysis as a run reads it (analysis/phase.c).
 */
#ifndef ENCBENCH_TESTS_TRACE_FIGURES_H
#define ENCBENCH_TESTS_TRACE_FIGURES_H

#include "analysis/analysis.h"
#include "tracer/trace.h"

/* trace_end, then the snapshot's figures into *f; trace_end's result. */
static inline int trace_end_figures(struct tracer *tr, struct phase_figures *f)
{
	static struct snapshot s;
	int err = trace_end(tr, &s);

	if (!err)
		phase_figures_of(&s, f);
	snapshot_free(&s);
	return err;
}

#endif
