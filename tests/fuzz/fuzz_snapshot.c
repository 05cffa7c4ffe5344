// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: any bytes as a snapshot file, through the reader
 * `report --reanalyze` uses and, when it accepts them, through the whole
 * analysis (phase figures, stack classification, attribution, verdicts)
 * and the writer. A crash, a sanitizer report or an accepted snapshot
 * with a frame outside its symbol table is a finding. Seeds: real
 * recordings (tests/fuzz/corpus/snapshot, from tests/data).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/analysis.h"
#include "report/report.h"

static struct snapshot s;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct attribution a[NR_OPS];
	struct verdict v;
	int n;

	if (report_parse_snapshot("fuzz", (const char *)data, size, &s))
		return 0;
	/* What the reader lets through, the analysis may trust. */
	for (int i = 0; i < s.wait.nr_stacks; i++)
		for (int f = 0; f < s.wait.stacks[i].nr_frames; f++)
			if (s.wait.stacks[i].frames[f] >=
			    (uint32_t)s.wait.nr_syms)
				abort();
	n = attribute_snapshot(&s, a);
	for (int i = 0; i < n; i++) {
		verdict_wait(&a[i], i ? &a[0] : NULL, &s.target, s.cpu_aes, &v);
		verdict_for(&a[i], &s.target, &v);
	}
	snapshot_free(&s);
	return 0;
}
