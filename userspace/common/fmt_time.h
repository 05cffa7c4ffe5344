/* SPDX-License-Identifier: MIT */
/* The one way a duration is written for a reader (reports, verdicts). */
#ifndef ENCBENCH_FMT_TIME_H
#define ENCBENCH_FMT_TIME_H

#include <stddef.h>

/* Longest text fmt_ns writes, its NUL included ("-18446744073 s"). */
#define FMT_NS_LEN 24

/*
 * A duration in nanoseconds to three significant digits in the largest
 * unit that keeps it >= 1: "850 ns", "12.3 us", "1.90 ms", "2.31 s",
 * "1235 s"; negative with a "-". Rounded to the nanosecond, then half up
 * to three digits, and the unit chosen after rounding (999.5 us is
 * "1.00 ms", never "1000 us"). Returns buf, so it fits in a printf.
 */
const char *fmt_ns(char *buf, size_t len, double ns);

/* Seconds as "1h02m", "3m05s" or "42s". */
void fmt_duration(char *buf, size_t len, double s);

#endif
