// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: any bytes as a results.json, through the reader
 * `report` and `merge` use and, when it accepts them, through the text
 * report (where every string is escaped on its way out). A crash, a
 * sanitizer report or an accepted document with a non-finite number or a
 * negative count is a finding. Seeds: real outputs (tests/fuzz/corpus).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/report.h"

static struct results *r;
static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!r && !(r = malloc(sizeof(*r))))
		return 0;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (report_parse_results("fuzz", (const char *)data, size, r))
		return 0;
	/* What the reader lets through, the writers may trust. */
	for (int i = 0; i < r->nr_results; i++)
		if (isinf(r->results[i].s.mean) || r->results[i].nr_samples < 0)
			abort();
	for (int i = 0; i < r->nr_targets; i++)
		if (r->targets[i].encryption.key_bits < 0)
			abort();
	report_print_text(r, devnull, true);
	return 0;
}
