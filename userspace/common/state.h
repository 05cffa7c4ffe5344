/* SPDX-License-Identifier: MIT */
/*
 * The state file: every object a run or a setup makes outside its own
 * memory (scratch folder, image, loop device, dm map, mount, key, pool,
 * dataset, mount point, the tracefs probe mounted) is recorded in
 * /run/encbench-trace/<pid>.json before it is made -- files and folders as
 * pending, then confirmed with the identity they got (inode, birth time);
 * why each kind is safe is in state.c -- and dropped once removed. One file per
 * process, so concurrent runs never wait for each other. After a SIGKILL,
 * `encbench-trace teardown` undoes the records of processes that are gone
 * (state_undo.c), checking each object is still the one recorded; nothing
 * unrecorded is ever touched. Each change rewrites the file whole under a
 * temporary name, fsyncs it and renames it over the old one: a reader sees
 * the old list or the new, never half of one.
 */
#ifndef ENCBENCH_STATE_H
#define ENCBENCH_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "results.h"

/* Hex digits of a run's random token (64 bits). */
#define STATE_TOKEN_LEN 16

/* ENCBENCH_STATE_DIR overrides it (tests keep their own). */
#define STATE_DIR_DEFAULT "/run/encbench-trace"

/* One recorded object; which fields mean what depends on type. */
struct state_rec {
	int id;
	char type[16];	       /* "scratch", "file", "dir", "loop", ... */
	char path[PATH_LEN];   /* the file, folder, mount point, image */
	char name[DETAIL_LEN]; /* loopN, dm name, fs type, pool, dataset */
	char detail[PATH_LEN]; /* mount source, LUKS2 UUID, key id */
	/* Identity of path (files, folders, images): inode numbers are
	 * reused at once, so with its birth time (ns; 0: not known). */
	uint64_t dev, ino, btime;
	int64_t serial; /* keyring key */
	/* Recorded before it is made (state_add_pending), not yet
	 * confirmed: no identity yet, only the run's token, which path
	 * holds, and the time (CLOCK_REALTIME, ns; state_mark_since) the
	 * record was written: anything born at or before it is not ours. */
	bool pending;
	char token[STATE_TOKEN_LEN + 1];
	uint64_t since;
};

const char *state_dir(void);

/* Start this process's state file; `command` is "run" or "setup". From
 * here on every state_add_* writes it. 0 or negative errno. */
int state_open(const char *command);
/* Record an object; its id (> 0) for state_forget, or negative errno
 * (then nothing may be made). Without state_open: 0, nothing recorded. */
int state_add(const struct state_rec *r);
/* This process's random token ("" before state_open): every path it
 * makes where others could make things holds it. */
const char *state_token(void);
/* A file or folder just made (or a loop device, name, over it), with
 * path's identity. */
int state_add_path(const char *type, const char *name, const char *path);
/* A file or folder about to be made at path, which must hold the token:
 * its id, or negative errno (-EINVAL: no token in path). */
int state_add_pending(const char *type, const char *name, const char *path);
/* Now (CLOCK_REALTIME, ns), returned once every file system's clock has
 * passed it: an object made before the call has a birth time <= it, one
 * made after, > it. */
uint64_t state_mark_since(void);
/* The pending object of record id is made: record its identity. */
int state_confirm(int id);
/* mkdir path (holding the token) recorded as `type`, closing the window
 * between the two: its record id, or negative errno (nothing made). */
int state_mkdir(const char *type, const char *name, const char *path,
		mode_t mode);
/* A new regular file at path (holding the token), O_EXCL, recorded as
 * "file": its fd (O_RDWR) and *rec, or negative errno (nothing made). */
int state_create_file(const char *path, int *rec);
/* A mount about to be made: undone only while the topmost mount at mnt
 * still has this fs type and source (as /proc/self/mountinfo shows
 * them). */
int state_add_mount(const char *mnt, const char *fstype, const char *source);
/* Any other object, by its name (dm map, pool, dataset, key), path and
 * detail (each may be NULL). */
int state_add_named(const char *type, const char *name, const char *path,
		    const char *detail);
/* The object of record id is gone: drop the record. */
void state_forget(int id);
/* `setup`: what was made stays up, for `teardown`. */
int state_keep(void);
/* End: the file goes if every record was forgotten, else it stays for
 * `teardown` and this says so. 0, or -EBUSY when records remain. */
int state_close(void);

/* The oldest state file of a process that is gone and was not a
 * finished `setup` (whose objects are meant to stay up): its pid, or 0. */
pid_t state_stale(void);

/* state_undo.c: undo the records of every process that is gone, newest
 * record first, one line per object on out (*removed counts them). The
 * number of objects that could not be removed (their records stay), or
 * negative errno. */
int state_teardown_dead(FILE *out, int *removed);

/* Read a state file (state_undo.c uses it; tests read it too). */
int state_read(const char *path, struct state_rec **recs, int *nr, pid_t *pid,
	       unsigned long long *start, bool *kept);
/* Rewrite `path` with recs (atomically), or remove it when nr is 0. */
int state_write(const char *path, const struct state_rec *recs, int nr,
		pid_t pid, unsigned long long start, const char *command,
		bool kept);
/* The identity of path as state_rec keeps it: 0 or negative errno. */
int state_identity(const char *path, uint64_t *dev, uint64_t *ino,
		   uint64_t *btime, unsigned int *mode);
/* Is pid, started at `start` (clock ticks after boot, /proc/PID/stat),
 * still running? */
bool state_pid_alive(pid_t pid, unsigned long long start);

#endif /* ENCBENCH_STATE_H */
