/* SPDX-License-Identifier: MIT */
/* The stages of `run`, in order; run.c strings them together. */
#ifndef ENCBENCH_RUN_PRIV_H
#define ENCBENCH_RUN_PRIV_H

#include <time.h>

#include "outdir.h"
#include "run.h"
#include "../storage/target.h"
#include "../tracer/trace.h"

struct timeline;
struct snapshot;
struct workload_ops;

struct run_ctx {
	const struct run_config *cfg;
	struct results *r;
	const char *scratch;
	int nr_targets; /* set up (or being set up): teardown covers these */
	struct target targets[MAX_TARGETS];
	struct tracer *tr;
	struct timeline *tl;	    /* --timeline, beside tr */
	struct trace_filter filter; /* the current target's */
	/* One per traced iteration of each phase, in order (snapshots.c);
	 * the phases so far (their seq). */
	int nr_snapshots, nr_phases;
	struct snapshot **snapshots;
	/* After each timed iteration i of t and workload (tune's budget
	 * and early stop): true ends that target's iterations. */
	bool (*enough)(struct run_ctx *ctx, const struct target *t,
		       const char *workload, int i);
	void *enough_arg;
};

/* disturbed.c: how many times worse a traced value is than the worst of
 * n untraced ones (higher_is_better: a rate), 0 when not known; and the
 * most of that over metrics first..first+n-1 of one part of a workload
 * on a target (values: the traced iteration's, by metric index), the
 * metric in *metric. DISTURBED: the bar past which the traced iteration
 * is traced again. */
#define DISTURBED 2.0
double disturbance_of(const double *untraced, int n, double traced,
		      bool higher_is_better);
double traced_disturbance(const struct results *r, const char *target,
			  const char *workload, const char *job,
			  const struct metric_def *defs, int first, int n,
			  const double *values, int *metric);

/* A target's options where they are not the run's (tune's variants). */
struct run_target_opts {
	struct luks_options luks;
	struct fscrypt_options fscrypt;
	struct zfs_options zfs;
	struct ecryptfs_options ecryptfs;
	int ext4_block_size;
};

/* run.c, shared with `tune`: what can be checked before anything is
 * created (folders resolved into cfg and out; 0, or the exit code after
 * the one-line error), and the run's meta data. */
struct output_dir;
int run_validate(struct run_config *cfg, struct output_dir *out);
void run_fill_meta(struct results *r, const struct run_config *cfg);

/*
 * frame.c: the frame `run` and `tune` share. The caller sets command,
 * timed and complete; open validates, claims the output folder, fills
 * ctx (results, meta, probe with the layers' planned sources) and makes
 * the state file and scratch folder: 0, or the exit code, and close must
 * still be called. close undoes everything on every path, writes the
 * results if measured, says what a signal left and returns the exit
 * code (rc, 1 if anything stayed behind or the report failed, 130 after
 * a signal).
 */
struct run_frame {
	const char *command; /* the state file's: "run", "tune" */
	/* results' duration_s: the wall time from open to the report;
	 * false: the caller's (tune's budget spent). */
	bool timed;
	/* A signal after the measurements leaves them complete (run); tune
	 * ranks and reports what finished, and says it was interrupted. */
	bool complete;
	/* The frame's own. */
	bool claimed;
	struct output_dir out;
	char scratch[PATH_LEN];
	struct timespec t0;
};
int run_frame_open(struct run_frame *f, struct run_ctx *ctx,
		   struct run_config *cfg);
int run_frame_close(struct run_frame *f, struct run_ctx *ctx, int rc,
		    bool measured);

/* fit.c: a built target's file system size: --room, else enough that
 * ext4's free-space path stays far. */
uint64_t target_fs_bytes(const struct run_config *cfg);
/* What the largest workload needs free on a target: its data, plus a
 * quarter and 64 MiB (a user target's folder must have it). */
uint64_t workload_fit_bytes(const struct run_config *cfg);
/* fit.c: the bytes the largest workload needs, its name and the options
 * that shrink it (NULL, NULL when none needs any). */
uint64_t largest_workload(const struct run_config *cfg, const char **name,
			  const char **shrink);
/* "; fio wants N MiB of files, at most M MiB would fit: shrink it
 * with --fio-size, ..." for a target with `room` bytes free: a user's
 * folder, or (built) the share of the scratch folder one built target
 * has, which its mkfs also writes to. */
void target_fit_hint(const struct run_config *cfg, uint64_t room, bool built,
		     char *buf, size_t len);
/* What results.json records of cfg (report/json.c writes it). */
void run_options_of(const struct run_config *cfg, struct run_options *o);
/* SIGINT, SIGTERM, SIGHUP set workload_stop: every stage unwinds. */
void run_signals(void);

/* lifecycle.c: what `run` and `setup` share. */
/* Root, the scratch folder, no stale state file, room for the kinds that
 * will be built: 0, or 2 after the one-line error. */
int validate_targets(struct run_config *cfg);
/* Our own new folder in parent (recorded in the state file): 0 or 1
 * after saying why; scratch_remove takes it back when empty. */
int scratch_create(const char *parent, char out[PATH_LEN]);
void scratch_remove(char path[PATH_LEN]);
/* Returns 0, 1 when the baseline cannot be built, or 2 when a target
 * refused the user's options (the run stops either way). */
int run_setup_targets(struct run_ctx *ctx);
/* One target of kind `kind` (path: a user's folder) named name, with
 * opts (NULL: the run's): set up, verified, in ctx->targets. 0 (also
 * when a non-baseline kind was skipped or failed, which it says),
 * -EINVAL when the options were refused, else negative errno. */
int run_setup_one(struct run_ctx *ctx, const char *kind, const char *name,
		  const char *path, bool baseline,
		  const struct run_target_opts *opts);
/* The timed iterations of workload w (params) on t, its attribution:
 * 0 or negative errno (-EINTR after a signal). */
int run_on_target(struct run_ctx *ctx, const struct workload_ops *w,
		  const void *params, struct target *t);
/* Never fails: without tracing the benchmark still runs and says why. */
void run_open_tracer(struct run_ctx *ctx);
int run_workloads(struct run_ctx *ctx);
/* series.c: a target's baseline, its kind's own (zfs -> zfs-off) if that
 * was built, else the run's first target. */
const char *run_baseline_name(const struct results *r, const char *target);
/* Figures from the untraced iterations; the observer effect from the
 * traced ones against them. */
void run_statistics(struct run_ctx *ctx);
/* The verdicts: shares from the traced iterations, times from the
 * untraced ones (after run_statistics). */
void run_verdicts(struct run_ctx *ctx);
void run_teardown(struct run_ctx *ctx);
int run_report(struct run_ctx *ctx);

/* snapshots.c. The run's facts in s: its number in the run (seq), the
 * tool, kernel, BTF, AES instructions, the baseline it is compared with. */
void snapshot_run_facts(struct snapshot *s, const struct capabilities *caps,
			int seq, const char *baseline);
/* snaps[0..n) completed from the finished results r: the targets' final
 * descriptions (notes included) and the workloads' own figures. */
void snapshots_complete(struct snapshot *const *snaps, int n,
			const struct results *r);
/* Keep s (malloc'ed; then the run frees it); negative errno if not. */
int run_keep_snapshot(struct run_ctx *ctx, struct snapshot *s);
void run_free_snapshots(struct run_ctx *ctx);

/* follow.c: follow root and the descendants it already has (trace_begin
 * cleared the traced set): 0 or negative errno. */
int follow_running(struct tracer *tr, pid_t root);

#endif /* ENCBENCH_RUN_PRIV_H */
