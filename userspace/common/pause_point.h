/* SPDX-License-Identifier: MIT */
/*
 * Test hook: with ENCBENCH_PAUSE_AT=<point> in the environment, the
 * program stops itself (SIGSTOP) when it reaches that point, so that a
 * test can send a signal at exactly that stage and then SIGCONT. Points
 * are "setup:<target>:<layer>" (after the layer is built),
 * "workload:<target>:<workload>" (before its first iteration),
 * "iteration:<target>:<workload>" (before each iteration, the tracer
 * detached; test_untraced interleaves two runs by it),
 * "detached:<target>:<workload>" (after each traced iteration, the tracer
 * detached again), "timing:<target>" (in a traced iteration, its timed
 * child just forked and running: a test can stop the child, and so
 * disturb that iteration, test_disturbed) and
 * "teardown:<target>:<layer>" (before the layer is undone),
 * "made:<record type>:<target or file name>" (an object exists, its
 * state record is not yet complete: state.c), "failed:<record
 * type>:<file name>" (it could not be made, its record is not yet
 * dropped) and "mounted:<fs type>"
 * (probe mounted tracefs) and "tracing" (`trace --pid` or
 * `--cgroup` is attached and about to wait). A trailing '*' matches any rest;
 * a comma-separated list stops at each. With ENCBENCH_PAUSE_LOG=<file>
 * each stop first appends its point's name to that file, one per line.
 */
#ifndef ENCBENCH_PAUSE_POINT_H
#define ENCBENCH_PAUSE_POINT_H

void pause_point(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
