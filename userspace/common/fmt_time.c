// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "fmt_time.h"

/* About 317 years: beyond it a duration is a bug upstream, not a figure. */
#define MAX_NS 1e19

static unsigned int digits(uint64_t n)
{
	unsigned int d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/*
 * Integer arithmetic from the rounded nanosecond on: printf's own rounding
 * of a double (9.995 is 9.99499...) would put the unit boundaries off by
 * one in the last digit.
 */
const char *fmt_ns(char *buf, size_t len, double ns)
{
	static const struct {
		uint64_t div;
		const char *unit;
	} units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}};
	const char *sign = ns < 0 ? "-" : "";
	double v = fabs(ns);
	uint64_t n, step = 1;

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	n = (uint64_t)(fmin(v, MAX_NS) + 0.5);
	if (!n)
		sign = "";
	if (n < 1000) {
		snprintf(buf, len, "%s%" PRIu64 " ns", sign, n);
		return buf;
	}
	/* Half up to three significant digits; seconds keep their units. */
	for (unsigned int d = digits(n); d > 3 && step < 1000000000; d--)
		step *= 10;
	n = (n + step / 2) / step * step;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t whole = n / units[i].div, frac = n % units[i].div;
		unsigned int dec = whole >= 100 ? 0 : whole >= 10 ? 1 : 2;
		uint64_t scale = units[i].div;

		if (!whole)
			continue;
		for (unsigned int k = 0; k < dec; k++)
			scale /= 10;
		if (dec)
			snprintf(buf, len, "%s%" PRIu64 ".%0*" PRIu64 " %s",
				 sign, whole, (int)dec, frac / scale,
				 units[i].unit);
		else
			snprintf(buf, len, "%s%" PRIu64 " %s", sign, whole,
				 units[i].unit);
		return buf;
	}
	return buf; /* not reached: n >= 1000 has a unit */
}

void fmt_duration(char *buf, size_t len, double s)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, len, "%lds", t);
}
