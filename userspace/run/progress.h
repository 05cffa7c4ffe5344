/* SPDX-License-Identifier: MIT */
/*
 * Progress of `run` on a terminal: one line on stderr, redrawn in place —
 * stage, target, workload, iteration i/N and the time left. Off unless
 * stderr is a terminal (CI logs and pipes stay as they were), and off with
 * --quiet and --json. While it is on, every other line for stderr goes
 * through progress_say() or progress_warn() so that it scrolls above the
 * progress line. --quiet means no progress at all: neither the line nor
 * progress_say()'s log lines (what they tell, the report tells too); only
 * warnings, and the report. Each iteration's figures are said only with
 * --verbose (progress_detail).
 */
#ifndef ENCBENCH_PROGRESS_H
#define ENCBENCH_PROGRESS_H

#include <stdbool.h>

/* Is progress wanted for these options on this stderr? */
bool progress_wanted(bool quiet, bool json);
/* Start (when on) the redraw of the line once a second. */
void progress_start(bool on);
/* tune: the time left is the budget's, to deadline_s (CLOCK_MONOTONIC),
 * and the line ends with best ("best so far ...", or NULL). */
void progress_budget(double deadline_s, const char *best);
/* Iterations the whole run will time: the base of the time left. */
void progress_plan(int total_iterations);
/* "setup", "run", "report", "teardown"; target/workload may be NULL. */
void progress_stage(const char *stage, const char *target,
		    const char *workload);
/* Iteration i of n of the current (target, workload) begins. */
void progress_iteration(int i, int n);
/* One iteration finished: it counts towards the estimate. */
void progress_iteration_done(void);
/* --quiet: from now on progress_say() prints nothing. */
void progress_quiet(bool quiet);
/* A log line of progress for stderr ("[target] ..."): printed above the
 * progress line, unless quiet. */
void progress_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* --verbose: from now on progress_detail() prints too. */
void progress_verbose(bool verbose);
/* A detail for stderr (each iteration's figures, which the progress line
 * and the report already show): as progress_say(), with --verbose only. */
void progress_detail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* A warning for stderr ("encbench-trace: ..."): printed above the
 * progress line, quiet or not. */
void progress_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Erase the line and stop redrawing; safe to call when never started. */
void progress_stop(void);

/* The text of the line (no escapes), for tests: at most len-1 chars. */
void progress_format(char *buf, int len, const char *stage, const char *target,
		     const char *workload, int i, int n, double left_s);

#endif /* ENCBENCH_PROGRESS_H */
