/* SPDX-License-Identifier: MIT */
#ifndef ENCBENCH_LOAD_H
#define ENCBENCH_LOAD_H

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

#endif
