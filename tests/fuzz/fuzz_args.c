// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: any bytes as the value of --size and of a duration
 * (trace --duration). Each parser must answer -1 or a value in its
 * documented range, never crash or overflow.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	int64_t bytes;
	double secs;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	bytes = parse_size(s);
	if (bytes < -1)
		abort();
	secs = parse_duration(s);
	if (secs != -1 && !(secs > 0 && secs <= MAX_DURATION_S))
		abort();
	free(s);
	return 0;
}
