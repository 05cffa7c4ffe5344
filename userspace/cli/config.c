// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

void config_defaults(struct run_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->scratch, sizeof(cfg->scratch), "/var/tmp");
	cfg->size_bytes = 64ULL << 20;
	cfg->runs = 5;
	cfg->nr_targets = 2;
	snprintf(cfg->targets[0], NAME_LEN, "plain");
	snprintf(cfg->targets[1], NAME_LEN, "fscrypt");
	cfg->nr_workloads = 1;
	snprintf(cfg->workloads[0], NAME_LEN, "dd");
	cfg->trace = true;
	cfg->drop_caches = true;
	snprintf(cfg->luks.cipher, sizeof(cfg->luks.cipher), "aes-xts-plain64");
	cfg->luks.key_bits = 512;
	cfg->luks.sector_size = 4096;
}

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

/* Split "a,b,c" into out[]; 0, or -1 if empty items or too many. */
int parse_list(const char *s, char out[][NAME_LEN], int max, int *n)
{
	const char *p = s;

	*n = 0;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (!len || len >= NAME_LEN || *n >= max)
			return -1;
		memcpy(out[*n], p, len);
		out[*n][len] = '\0';
		(*n)++;
		p += len + (comma ? 1 : 0);
		if (comma && !*p)
			return -1;
	}
	return *n ? 0 : -1;
}
