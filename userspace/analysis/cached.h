/* SPDX-License-Identifier: MIT */
/*
 * The page cache named: a read-side figure that came more than
 * CACHED_PCT_MAX % from the page cache is not a disk figure. Its
 * comparison claims no penalty, and the verdict of its job says so, with
 * the share and why the reads were cached. Pure: results in, results out.
 */
#ifndef ENCBENCH_ANALYSIS_CACHED_H
#define ENCBENCH_ANALYSIS_CACHED_H

#include "../common/results.h"

/* Mark c cached when the target's or the baseline's figure (t, b) came
 * from the page cache past the bar, buffered when either is a write
 * figure timed into the page cache. */
void comparison_mark_cached(struct comparison *c, const struct result *b,
			    const struct result *t);

/* Why reads on this target came from the page cache ("O_DIRECT fell
 * back to buffered I/O on fscrypt ..."). */
const char *cached_why(const struct target_info *t);

/* Every cached read figure gets the verdict it deserves: the read
 * verdict of its (target, workload, job) is told anew by the first such
 * figure, the traced one kept as evidence, or made when there is none
 * (no tracing). */
void verdicts_mark_cached(struct results *r);

#endif
