/* SPDX-License-Identifier: MIT */
/* The one way a 95 % interval is written for a reader, unbounded ones
 * included (reports, verdicts). */
#ifndef ENCBENCH_FMT_CI_H
#define ENCBENCH_FMT_CI_H

#include <stdbool.h>
#include <stddef.h>

/* Longest text fmt_ci writes for ends below 1e12, its NUL included. */
#define FMT_CI_LEN 64

/*
 * "[lo, hi]", each end with decimals digits after the point and a sign
 * when sign is set ("[+69.0, +121.9]"); "[unbounded]" when an end is NaN:
 * stats/ leaves an interval's ends NaN where it has no bound (Fieller's
 * of a ratio whose denominator is not told from 0). Returns buf.
 */
const char *fmt_ci(char *buf, size_t len, const double ci[2], int decimals,
		   bool sign);

#endif /* ENCBENCH_FMT_CI_H */
