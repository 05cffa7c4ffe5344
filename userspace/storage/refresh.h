/* SPDX-License-Identifier: MIT */
/*
 * A user's own open LUKS2 mapping, its runtime flags changed by a
 * refresh and put back (`tune --target NAME=PATH --allow-refresh`). Only
 * dm-crypt's four performance flags ever change: every refresh passes the
 * mapping's other flags (read-only, allow_discards) as they were, and is
 * read back to check that. The original flags are recorded in the state
 * file before the first change, so that `teardown` puts them back after
 * a SIGKILL. A refresh needs the passphrase or key: a key file, which
 * libcryptsetup reads itself, or a passphrase asked on the terminal, held
 * in locked memory for the sweep and wiped after it; neither is stored.
 */
#ifndef ENCBENCH_REFRESH_H
#define ENCBENCH_REFRESH_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/results.h"

struct dm_refresh {
	char name[NAME_LEN];	 /* the mapping, as /dev/mapper names it */
	char uuid[DETAIL_LEN];	 /* its LUKS2 UUID */
	char key_file[PATH_LEN]; /* "": the passphrase was asked */
	uint32_t orig;		 /* its flags before any change */
	int rec;		 /* the state record (> 0) */
};

/* dm-crypt's flags a refresh here may change. */
uint32_t dm_refresh_perf_flags(void);
/* Check name is an open LUKS2 mapping and the key opens it (key_file,
 * else asked on the terminal), then record its flags: 0, or negative
 * errno after a one-line error (nothing changed, nothing recorded). */
int dm_refresh_begin(struct dm_refresh *rf, const char *name,
		     const char *key_file);
/* Refresh with perf (a subset of dm_refresh_perf_flags()) as its
 * performance flags, the others as they were: 0 or negative errno
 * (-ENOTSUP: the kernel did not take them; the flags are put back). */
int dm_refresh_set(struct dm_refresh *rf, uint32_t perf);
/* Put the original flags back, drop the record, wipe the passphrase: 0
 * or negative errno (the record stays, for `teardown`). */
int dm_refresh_end(struct dm_refresh *rf);
/* `teardown`'s --key-file: the key for restoring recorded flags. */
void dm_refresh_teardown_key(const char *key_file);

#endif
