/* SPDX-License-Identifier: MIT */
/*
 * Undoing one record of a state file (state_undo.c), each in the file of
 * the layer that makes that kind of object. Each checks the object is
 * still the one recorded and returns one of UNDO_*, or negative errno
 * when it is ours but could not be removed (the record stays).
 */
#ifndef ENCBENCH_STATE_UNDO_H
#define ENCBENCH_STATE_UNDO_H

#include <stddef.h>

#include "../common/state.h"

#define UNDO_GONE     0 /* not there any more: nothing to do */
#define UNDO_REMOVED  1
#define UNDO_NOT_OURS 2 /* something else is there now: left alone */

int loop_undo(const struct state_rec *r);	 /* loop.c */
int dmcrypt_undo(const struct state_rec *r);	 /* luks2.c */
int fscrypt_key_undo(const struct state_rec *r); /* fscrypt.c */
int user_key_undo(const struct state_rec *r);	 /* ecryptfs.c */
int zpool_undo(const struct state_rec *r);	 /* zfs.c */
int zfs_dataset_undo(const struct state_rec *r); /* zfs.c */
/* A user's mapping refreshed by `tune`: its flags put back. */
int dm_flags_undo(const struct state_rec *r); /* refresh.c */

/* Is r->path still the file or folder recorded (inode and birth time)?
 * UNDO_REMOVED (yes: it may be removed), UNDO_GONE, UNDO_NOT_OURS, or
 * negative errno; its mode in *mode (if not NULL). */
int state_path_check(const struct state_rec *r, unsigned int *mode);

#endif /* ENCBENCH_STATE_UNDO_H */
