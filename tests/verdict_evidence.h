/* SPDX-License-Identifier: MIT */
/* Whether one of a verdict's evidence lines holds some text: the unit
 * tests' look at what a verdict says beside its summary. */
#ifndef ENCBENCH_VERDICT_EVIDENCE_H
#define ENCBENCH_VERDICT_EVIDENCE_H

#include <stdbool.h>
#include <string.h>

#include "common/results.h"

static inline bool has_evidence(const struct verdict *v, const char *text)
{
	for (int i = 0; i < v->nr_evidence; i++)
		if (strstr(v->evidence[i], text))
			return true;
	return false;
}

#endif
