// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

int64_t parse_size(const char *s)
{
	unsigned long long v, mult = 1;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (tolower((unsigned char)*end)) {
	case '\0':
		break;
	case 'k':
		mult = 1ULL << 10;
		break;
	case 'm':
		mult = 1ULL << 20;
		break;
	case 'g':
		mult = 1ULL << 30;
		break;
	case 't':
		mult = 1ULL << 40;
		break;
	default:
		return -1;
	}
	if (*end) {
		end++;
		/* Accept "64M", "64MiB" and "64MB" alike (binary units). */
		if (!strcasecmp(end, "ib") || !strcasecmp(end, "b"))
			end += strlen(end);
		if (*end)
			return -1;
	}
	if (v > (unsigned long long)INT64_MAX / mult)
		return -1;
	return (int64_t)(v * mult);
}

int parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_positive(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0)
		return -1;
	*out = v;
	return 0;
}

double parse_duration(const char *s)
{
	static const struct {
		const char *suffix;
		double seconds;
	} units[] = {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"m", 60}, {"h", 3600}};
	char *end;
	double v;

	if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix)) {
			v *= units[i].seconds;
			return v > 0 && v <= MAX_DURATION_S ? v : -1;
		}
	return -1;
}
