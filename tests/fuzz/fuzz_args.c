// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: any bytes as the value of --size, a duration (trace
 * --duration) and a --targets list. Every parser must answer -1 or a
 * value in its documented range, never crash or overflow.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/config.h"
#include "common/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char names[MAX_TARGETS][NAME_LEN];
	char *s = malloc(size + 1);
	int64_t bytes;
	double secs;
	int n = -1;

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
	if (parse_list(s, names, MAX_TARGETS, &n) == 0)
		for (int i = 0; i < n; i++)
			if (!names[i][0] || strlen(names[i]) >= NAME_LEN ||
			    strchr(names[i], ','))
				abort();
	free(s);
	return 0;
}
