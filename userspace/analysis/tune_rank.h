/* SPDX-License-Identifier: MIT */
/*
 * `tune`'s ranking: pure functions of the results model (no kernel, no
 * tracer), so that a ranking can be recomputed from a results.json and
 * unit-tested on figures made by hand.
 */
#ifndef ENCBENCH_TUNE_RANK_H
#define ENCBENCH_TUNE_RANK_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/results.h"

/* The ranking score of target on workload, one value per iteration, into
 * out (room for MAX_SAMPLES): the sum of the workload's metrics when they
 * share unit and direction (dd: write_s + read_s), else its first metric.
 * desc, unit and *higher describe it (either may be NULL). Returns the
 * number of values. */
int tune_score(const struct results *r, const char *target,
	       const char *workload, double *out, char *desc, size_t len,
	       char *unit, bool *higher);
/* Against the current best of r->tune's variants (the lowest penalty
 * against the baseline, r->targets[0], among those with 2 or more
 * values), is target's score worse with an interval that excludes 0?
 * best_name gets the best's name, best_pct its penalty (either NULL). */
bool tune_separated_from_best(const struct results *r, const char *target,
			      char *best_name, double *best_pct);
/* Fill the variants' penalty, rank (ties share the best's rank), the
 * added wait per op against the baseline, and the advice's gain of the
 * best over the reference. The advice's command is not made here. */
void tune_rank(struct results *r);

#endif /* ENCBENCH_TUNE_RANK_H */
