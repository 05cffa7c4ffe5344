/* SPDX-License-Identifier: MIT */
/*
 * workload/: the workloads. May include: storage/ (the target a workload
 * runs on) and common/.
 *
 * Workloads behind one ops table. Each owns its parameters (a struct of
 * its own, its defaults, its --<name>-<key> options, the space it needs)
 * and runs one iteration at a time; the timed operations run in child
 * processes (so the tracer follows them by parentage and wait4 gives their
 * rusage), the parent does the untimed preparation (drop caches, cleanup).
 * A new workload is one new file plus one entry in workload_table.
 */
#ifndef ENCBENCH_WORKLOAD_H
#define ENCBENCH_WORKLOAD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/results.h"

struct target;

/* How often the CPU's busy share is sampled while a timed child runs. */
#define CPU_SAMPLE_MS 250

/* A workload's own timing of its calls of one op (enum eb_op). */
struct call_times {
	uint64_t count, sum_ns;
	/* Wall time with at least one call in flight (sum_ns for one
	 * thread making them one after the other). */
	uint64_t busy_ns;
	uint64_t slots[HIST_SLOTS]; /* log2 of ns, as the tracer's */
};

struct sample {
	double values[MAX_METRICS];
	/* How many observations a metric that is a mean averages (fio's clat
	 * mean: the I/Os it completed), 0 when it is not one or not known. */
	double mean_n[MAX_METRICS];
	/* rusage of the timed child that produced each metric */
	double real_s[MAX_METRICS], user_s[MAX_METRICS], sys_s[MAX_METRICS];
	/* Busy share of all CPUs (kworkers included) while that child ran,
	 * sampled every CPU_SAMPLE_MS: min, max, sum and number of samples. */
	double cpu_min[MAX_METRICS], cpu_max[MAX_METRICS];
	double cpu_sum[MAX_METRICS];
	int cpu_n[MAX_METRICS];
	/* Read-side metrics: the bytes the workload read, and the bytes the
	 * target's device delivered meanwhile (its /sys/block stat); what
	 * the device did not deliver came from the page cache. read_bytes
	 * 0: not a read-side figure; dev_counted: the device's were read. */
	double read_bytes[MAX_METRICS], dev_read_bytes[MAX_METRICS];
	bool dev_counted[MAX_METRICS];
	/* Write-side metrics timed into the page cache (struct result:
	 * page_cache_writes). */
	bool page_cache_writes[MAX_METRICS];
	/* Where the workload timed its calls (workload_ops.times_calls):
	 * what timed them ("fio's clat, psync engine"), "" when nothing
	 * did, and the figures per op. */
	char calls_by[DETAIL_LEN];
	struct call_times calls[NR_OPS];
};

/* Called around each timed child by whoever runs the workload (the
 * tracer's window, when attribution is on), so that what the parent does
 * untimed stays out of it. Either may be NULL. */
struct workload_window {
	void (*open)(void *arg);
	void (*close)(void *arg);
	/* Count this process (a server the workload started, before it
	 * runs) and what it forks, inside the windows, until the phase
	 * ends. May be NULL. */
	void (*follow)(void *arg, pid_t pid);
	void *arg;
};

struct workload_ctx {
	const void *params; /* the workload's own struct */
	const struct target *target;
	int iteration;
	bool drop_caches;
	const struct workload_window *window;
	/* What setup() made for the whole series on this target (a source
	 * file, a running server), for run_once and teardown. */
	void *state;
	/* The part run_once runs (workload_ops.phases), 0 when it has one. */
	int phase;
};

/* A part of a workload traced apart (one of fio's jobs). */
struct workload_phase {
	char name[NAME_LEN]; /* "randread_4k", a job file's job name */
	int first, n;	     /* its metrics */
};

/* What `run`'s common options say to every workload; 0 = not given. */
struct workload_common {
	uint64_t size_bytes; /* --size */
	double scale;	     /* --scale: counts and durations times this */
};

/* One --<workload>-<key> option, for help. */
struct workload_key {
	const char *key;
	const char *help;
};

struct workload_ops {
	const char *name;
	const char *help;
	/* What it follows (report, benchmark), for help and the README. */
	const char *follows;
	size_t params_size;
	void (*defaults)(void *p);
	/* Common options; may be NULL when none applies. */
	void (*common)(void *p, const struct workload_common *c);
	/* --<name>-<key> VALUE: 0, or -1 with a one-line reason in why. */
	int (*set)(void *p, const char *key, const char *value, char *why,
		   size_t len);
	const struct workload_key *keys; /* NULL-terminated, may be NULL */
	/* Whole-run check before anything is created (may run programs, as
	 * `fio --parse-only`): 0, or -1 with a one-line reason (bad usage,
	 * exit 2), or -2 with the program's own complaint (a job file fio
	 * rejects: exit 1). May be NULL. */
	int (*check)(const void *p, char *why, size_t len);
	/* Bytes of filesystem space its files need at once. */
	uint64_t (*space_needed)(const void *p);
	/* The options that make it smaller, for the line that refuses a
	 * run that does not fit ("--fio-size, --fio-runtime or --scale");
	 * may be NULL. */
	const char *shrink;
	/* Parts run and traced apart, each with all its iterations (fio's
	 * jobs: each gets its own attribution and verdict): how many, and
	 * part i's name and metrics. NULL: one part, the whole workload. */
	int (*phases)(const void *p);
	void (*phase)(const void *p, int i, struct workload_phase *out);
	/* Its metrics (name, unit, direction) for these parameters. */
	int (*metrics)(const void *p, struct metric_def out[MAX_METRICS]);
	/* Its parameters, typed, for results.json and run.log. */
	void (*describe)(const void *p, struct param_list *out);
	/* NULL if it applies to this target, else why not (stated in output).
	 */
	const char *(*not_applicable)(const struct target *t, const void *p);
	/* Caveat to print for this target, or NULL. */
	const char *(*caveat)(const struct target *t, const void *p);
	/* Once per target around the iterations; both may be NULL. teardown
	 * runs whenever setup succeeded, interrupted or not. */
	int (*setup)(struct workload_ctx *ctx);
	void (*teardown)(struct workload_ctx *ctx);
	int (*run_once)(const struct workload_ctx *ctx, struct sample *out);
	/* Whether part `phase`'s run_once times every call its verdicts
	 * are about (struct sample's calls_by and calls) on this target:
	 * then its traced iterations leave the syscall tracepoints
	 * detached, whose slow path costs every thread of the machine.
	 * May be NULL: never. */
	bool (*times_calls)(const void *p, int phase, const struct target *t);
};

const struct workload_ops *workload_find(const char *name);
const struct workload_ops *const *workload_list(void);

/* A parameter struct with the workload's defaults (free() it), or NULL. */
void *workload_params_new(const struct workload_ops *w);

/* Set by SIGINT/SIGTERM: workloads stop at the next block. */
extern volatile sig_atomic_t workload_stop;

/* Run fn(arg) in a child for metric m: out->values[m] = the child's own
 * timing of fn (monotonic), and its rusage and CPU samples go to out's
 * per-metric fields. Returns fn's return value (0 ok) or negative errno. */
int workload_spawn(const struct workload_ctx *ctx,
		   int (*fn)(void *arg, double *secs), void *arg,
		   struct sample *out, int m);
/* The same for a load generator (pgbench, wrk) driving a server the
 * workload follows (workload_follow): the child and what it runs are not
 * traced (their socket reads and writes are not the target's I/O); the
 * server's processes are, inside the same window. */
int workload_spawn_client(const struct workload_ctx *ctx,
			  int (*fn)(void *arg, double *secs), void *arg,
			  struct sample *out, int m);
/* Have the tracer (if any) follow pid; see workload_window.follow. */
void workload_follow(const struct workload_ctx *ctx, pid_t pid);
/* In a timed child, before its clock starts: make its own copy of the
 * pages [p, p + len) it shares with the parent since fork, and give the
 * ones never touched a page, so that neither the copy nor the zeroing
 * is timed. O_DIRECT pins the buffer, and a pin (even for reading, since
 * 5.19's anon unsharing) breaks copy-on-write in the syscall: dd's reads
 * in the VM guest spent up to 370 ms per run in do_wp_page's copies and
 * clear_page under the tracer's eye (2026-12-02). */
void workload_own_pages(void *p, size_t len);
/* Let metric `to` share metric `from`'s rusage and CPU figures (several
 * metrics from one child, as fio's MB/s and IOPS). */
void sample_share(struct sample *s, int from, int to);
/* Bytes the target's top device (its file system's) has read, for the
 * page cache's share of a read figure; 0 when it has none (a ZFS
 * dataset) or it cannot be read. */
uint64_t workload_dev_read_bytes(const struct target *t);
/* Metric m read `bytes`, while the device went from dev0 to dev1 (its
 * workload_dev_read_bytes before and after; not counted when unknown). */
void sample_read(struct sample *s, int m, double bytes, uint64_t dev0,
		 uint64_t dev1);
/* sync + drop page cache, dentries and inodes; on a ZFS dataset, its
 * pool's open txg synced first, so that what was written is read from
 * the pool, not from ZFS's dirty buffers. */
int drop_caches(const struct target *t);
/* Seconds on CLOCK_MONOTONIC. */
double now_s(void);
/* A workload timing its own calls (workload_ops.times_calls), in the
 * timed child: t = call_start(); the call; call_end(c, t). The tracer's
 * clock (CLOCK_MONOTONIC, the vDSO's: no syscall). */
uint64_t call_start(void);
void call_end(struct call_times *c, uint64_t t);
/* Where the timed children record them, per enum eb_op: memory shared
 * with the parent (made before the fork), NULL on failure (errno set);
 * calls_take copies them into out, with what timed them (`by`), and
 * calls_unshare unmaps them (NULL is fine). */
struct call_times *calls_share(void);
void calls_take(struct sample *out, const struct call_times *shared,
		const char *by);
void calls_unshare(struct call_times *shared);
/* workload_ops.times_calls of a workload that times every call it makes
 * on any target (dd, createfiles). */
bool times_every_call(const void *p, int phase, const struct target *t);

/* For set(): a size (K/M/G, > 0, a multiple of `align`) or a count in
 * [1, max] from an option's value; -1 with a one-line reason. */
int workload_opt_size(const char *wl, const char *key, const char *value,
		      uint64_t align, uint64_t *out, char *why, size_t len);
int workload_opt_count(const char *wl, const char *key, const char *value,
		       long max, long *out, char *why, size_t len);
/* A count option of a params struct: --<wl>-<key> sets the long at
 * byte offset `off`, in [1, max]. */
struct workload_count_key {
	const char *key;
	size_t off;
	long max;
};
/* set() for such keys (table ends with .key NULL): 0, -1 with why, or
 * -2 when key is not in the table. */
int workload_set_count(const char *wl, const struct workload_count_key *keys,
		       void *p, const char *key, const char *value, char *why,
		       size_t len);
/* A count times --scale, at least 1. */
long workload_scaled(long n, double scale);
/* A new file of `size` random bytes, fsync'ed (made untimed, in the
 * parent: a source to copy, a file for fio). 0 or negative errno; a file
 * left half-made is the caller's to remove. */
int workload_random_file(const char *path, uint64_t size);
/* Run argv (PATH searched) with stdout and stderr on out_fd and err_fd
 * (-1: inherited) and wait for it; call it from a timed child, whose
 * rusage then includes the program's. 0 if it exited 0, -EIO otherwise,
 * or negative errno. */
int workload_exec(char *const argv[], int out_fd, int err_fd);
/* In a child just forked from `parent`: die with it. A run killed with
 * SIGKILL must not leave children working on its mounts, which would keep
 * `teardown` from unmounting them. */
void workload_die_with(pid_t parent);
/* Path of file `name` in the target's work folder. */
void workload_path(const struct workload_ctx *ctx, const char *name, char *buf,
		   size_t len);

#endif /* ENCBENCH_WORKLOAD_H */
