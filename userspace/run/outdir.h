/* SPDX-License-Identifier: MIT */
/*
 * The folders a run is given: checked before anything is created (paths
 * resolved, room for every name the run builds below them, writability
 * judged without writing), and the output folder claimed for this run
 * alone, so that nothing of anyone else's -- another run's included -- is
 * ever overwritten.
 */
#ifndef ENCBENCH_OUTDIR_H
#define ENCBENCH_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/results.h"

/* The longest the run makes a path below the folder it is given:
 * scratch: "/encbench-trace.<16-digit token>/mnt-<target>/encrypted/<file>";
 * output: "/.hist-<target>-<workload>-<op>-<layer>.csv.XXXXXX". */
#define SCRATCH_PATH_ROOM 330
#define OUTPUT_PATH_ROOM  (4 * NAME_LEN + 64)

/* The lock an output folder holds while a run writes it; it names the
 * run's PID. */
#define OUTPUT_LOCK ".encbench-trace.lock"

/*
 * `given`, resolved without creating anything: the existing part through
 * realpath (symbolic links followed) into `existing`, and in `out` that
 * plus the rest as given, which must be free of "." and ".." and of
 * dangling links, with room left for `room` more bytes (both PATH_LEN).
 * 0, or 2 after a one-line error naming `what`.
 */
int path_resolve(const char *what, const char *given, size_t room, char *out,
		 char *existing);

/* Can this process create files in dir? Judged from permissions, the
 * mount's flags and the file system's kind, never by creating one. 0, or
 * 2 after a one-line error naming `what`. */
int dir_check_writable(const char *what, const char *dir);

struct output_dir {
	char path[PATH_LEN];	 /* resolved */
	char existing[PATH_LEN]; /* its deepest part that exists now */
	char created[PATH_LEN];	 /* the topmost folder this run made, or "" */
	char lock[PATH_LEN];
	int lock_fd; /* held while the run owns the folder; -1 */
};

/* Resolve and check the output folder: absent, or an empty folder.
 * Creates nothing. 0, or 2 after a one-line error. */
int output_check(const char *given, struct output_dir *o);

/* Does the file system that will hold the output folder have room for
 * `bytes` in `files` files? Judged from statvfs, before anything is
 * built. 0, or 2 after a one-line error saying what is free and what is
 * needed. */
int output_check_room(const struct output_dir *o, uint64_t bytes,
		      uint64_t files);

/* Create it (parents too) and claim it: the lock is made with O_EXCL, and
 * the folder must then hold nothing but it. 0; 2 after a one-line error
 * naming the other run's PID when another run has it. */
int output_claim(struct output_dir *o);

/* Give the folder up: the lock goes; with `written` false, so do the
 * folders this run made, if they are empty. */
void output_release(struct output_dir *o, bool written);

#endif /* ENCBENCH_OUTDIR_H */
