/* SPDX-License-Identifier: MIT */
/*
 * Saved runs named on the command line (`report`, `compare`, `merge`):
 * reading them, and where a report.html of them goes; and the work of
 * `compare` and `merge` (compare_cmd.c, merge_cmd.c), which cli hands
 * its parsed arguments.
 */
#ifndef ENCBENCH_SAVED_H
#define ENCBENCH_SAVED_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/results.h"

/* arg is a results folder or a results.json: the run it holds (calloc'ed,
 * free() it), its file's path in path; NULL after a one-line error. */
struct results *load_run(const char *arg, char *path, size_t len);
/* The folder path is in ("." for a bare name). */
void folder_of(const char *path, char *dir, size_t len);
/* true, after a one-line error naming cmd, when path exists. */
bool refuse_existing(const char *cmd, const char *path);
/* Where report.html goes (dir/report.html into html), checked before
 * anything is read or made: 2 after a one-line error when dir is not a
 * folder or report.html exists, else 0. */
int check_html_dir(const char *cmd, const char *dir, char *html, size_t len);
/* Make dir if missing, write report.html of runs there, print its path:
 * the exit code, 0 or 1. */
int write_html_in(const char *cmd, const struct results *const *runs, int n,
		  const char *dir, const char *html);

/* A per-iteration CSV file by its name (else a results folder or
 * .json). */
bool saved_is_csv(const char *arg);
/* `compare BASE OTHER`: both runs or both CSV files (saved_is_csv,
 * checked by the caller), paired metric by metric, printed (as JSON with
 * json), report.html in dir when not NULL (html: check_html_dir's). The
 * exit code. */
int compare_saved(const char *base, const char *other, bool json,
		  const char *dir, const char *html);
/* Runs `merge` puts side by side, at most. */
#define MAX_MERGE 16
/* `merge`: the n runs side by side, printed, report.html in dir when not
 * NULL (html: check_html_dir's). The exit code. */
int merge_saved(char *const *args, int n, const char *dir, const char *html);

#endif
