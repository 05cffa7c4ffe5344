// SPDX-License-Identifier: MIT
/* What would fit when the largest workload does not: said in the line
 * that refuses the run, with the options that shrink it. */
#include <stdio.h>

#include "run_priv.h"
#include "../workload/workload.h"

#define MiB (1ULL << 20)

uint64_t largest_workload(const struct run_config *cfg, const char **name,
			  const char **shrink)
{
	uint64_t most = 0;

	*name = *shrink = NULL;
	for (int i = 0; i < cfg->nr_workloads; i++) {
		const struct workload_ops *w = workload_find(cfg->workloads[i]);
		uint64_t need = w && cfg->wparams[i]
					? w->space_needed(cfg->wparams[i])
					: 0;

		if (need > most) {
			most = need;
			*name = w->name;
			*shrink = w->shrink;
		}
	}
	return most;
}

static uint64_t round_mib(uint64_t b)
{
	return (b + MiB - 1) & ~(MiB - 1);
}

uint64_t workload_fit_bytes(const struct run_config *cfg)
{
	const char *name, *shrink;
	uint64_t most = largest_workload(cfg, &name, &shrink);

	/* Workloads run one at a time: room for the largest, plus ext4
	 * metadata and journal. */
	return round_mib(most + most / 4 + 64 * MiB);
}

/*
 * ext4_da_write_begin calls ext4_nonda_switch: with fewer free clusters
 * than twice the dirty (delalloc) ones, the writer starts writeback of
 * the whole file system and waits for it, and that writeback is where
 * fscrypt encrypts. A room of "workload x 1.25 + 64 MiB" put a 128 MiB
 * dd there for 95 % of its blocked time, which no disk with free space
 * does. Five times the data plus 256 MiB leaves, with all of a
 * workload's data allocated and as much again dirty, four times the
 * dirty data free. Images are sparse: the room costs no disk until
 * written (check_space counts what is written).
 */
uint64_t target_fs_bytes(const struct run_config *cfg)
{
	const char *name, *shrink;

	if (cfg->room_bytes)
		return cfg->room_bytes;
	return round_mib(5 * largest_workload(cfg, &name, &shrink) + 256 * MiB);
}

void target_fit_hint(const struct run_config *cfg, uint64_t room, bool built,
		     char *buf, size_t len)
{
	const char *big, *shrink;
	uint64_t most = largest_workload(cfg, &big, &shrink), fits, mkfs = 0;
	uint64_t given = cfg->room_bytes;

	/*
	 * workload_fit_bytes' need (1.25 x + 64 MiB), solved for the
	 * workload's own bytes x; a target built here also writes mkfs's
	 * sixteenth of its room, which grows with x (5 x + 256 MiB) unless
	 * --room fixed it: 1.5625 x + 80 MiB in all.
	 */
	if (built && given)
		mkfs = given / 16;
	if (room <= 64 * MiB + mkfs)
		fits = 0;
	else if (built && !given)
		fits = room > 80 * MiB ? (room - 80 * MiB) / 25 * 16 : 0;
	else
		fits = (room - 64 * MiB - mkfs) / 5 * 4;
	if (!big) {
		snprintf(buf, len, "%s", "");
		return;
	}
	snprintf(buf, len,
		 "; %s wants %llu MiB of files, at most %llu MiB would fit%s%s",
		 big, (unsigned long long)(most / MiB),
		 (unsigned long long)(fits / MiB),
		 shrink ? ": shrink it with " : "", shrink ? shrink : "");
}
