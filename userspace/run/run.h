/* SPDX-License-Identifier: MIT */
/*
 * run/: a run and its stages, in the data flow's order -- checks before
 * anything is made, probe, targets, the untimed and the traced iterations,
 * statistics, analysis, report, teardown -- and `setup`, `teardown` and
 * `trace`, with the signals, the progress line and the output folder.
 * This header is what cli hands a parsed command line to: one entry per
 * command that runs something. Each returns the process exit code: 0 ok,
 * 1 failure, 2 bad input, 130 interrupted.
 *
 * May include: probe/, storage/, workload/, tracer/, analysis/, stats/,
 * report/ and common/. Never cli/.
 */
#ifndef ENCBENCH_RUN_H
#define ENCBENCH_RUN_H

#include <stdbool.h>
#include <sys/types.h>

#include "config.h"

struct capabilities;

/* What this kernel and machine support (probe_all), with the source
 * each layer would be traced from: what `probe` prints and every run
 * records. */
void run_probe(struct capabilities *caps);

/* `probe`: what run_probe finds, printed as text or JSON (anything
 * probing mounts recorded in a state file when root, for `teardown`). */
int probe_print(bool json);
/* `report --reanalyze`: the run r read from folder dir, its attribution
 * and verdicts made anew from dir/snapshots/ by this version's analysis
 * and printed (report_print_form's full, hist; arg: how the user named
 * the run), written as the new results folder output when not NULL
 * (absent or empty: checked before anything is read). dir is never
 * written. */
struct results;
int reanalyze_run(struct results *r, const char *dir, const char *arg,
		  const char *output, bool full, bool hist);

/* `run`: check cfg (folders resolved into it), build the targets, time
 * and trace the workloads, report, and undo everything it made. */
int run_benchmark(struct run_config *cfg);
/* `setup`: build cfg's targets and leave them up for the user's tools. */
int setup_targets_up(struct run_config *cfg);
/* `teardown`: undo what the state files of dead processes recorded;
 * key_file (or NULL: asked on the terminal) opens a user's LUKS2 mapping
 * whose flags a killed `tune` changed. */
int teardown_dead(const char *key_file);
/* `tune`: plain and the variants of cfg->tune_kind within the budget,
 * ranked, reported, everything undone (tune_cmd.c). */
int tune_benchmark(struct run_config *cfg);
/* The axes a kind sweeps, comma-separated, for --help and errors (NULL
 * for a kind tune does not know), and whether it has one of that name
 * (tune_plan.c). */
const char *tune_axes(const char *kind);
bool tune_axis_known(const char *kind, const char *axis);
/* Does `tune --kind` sweep kind (luks2, fscrypt, zfs, ecryptfs)? */
bool tune_kind_known(const char *kind);
/* The target tune compares kind's variants with: zfs-off for zfs (the
 * same pool), plain for the others. */
const char *tune_baseline(const char *kind);

/* `trace`, as parsed: what to trace, whom, for how long, and where the
 * report goes. One of pid, cgroup or cmd; path or dev. */
struct trace_request {
	const char *path, *dev, *cgroup, *output;
	pid_t pid;
	double duration;
	bool json, quiet, verbose; /* quiet: the verdicts only */
	char **cmd; /* after "--", NULL-terminated; NULL if none */
};

/* `trace`: attribute req's I/O on its storage until it ends; with a
 * command, its exit status. */
int trace_command(const struct trace_request *req);

#endif /* ENCBENCH_RUN_H */
