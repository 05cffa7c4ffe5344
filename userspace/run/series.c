// SPDX-License-Identifier: MIT
/*
 * `run`'s workloads stage: each workload on each target as a series of
 * iterations, untraced ones for the figures interleaved with traced ones
 * for the attribution (--trace-runs), each sample recorded into its
 * result, each traced phase's snapshots analysed together; --runs auto's
 * stopping rule; a traced iteration disturbed by something else set
 * aside and traced again. The other stages are in run_stages.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progress.h"
#include "run_priv.h"
#include "../analysis/analysis.h"
#include "../common/pause_point.h"
#include "../report/report.h"
#include "../report/timeline_doc.h"
#include "../stats/stats.h"
#include "../tracer/timeline.h"
#include "../tracer/trace.h"
#include "../workload/workload.h"

#define say(...) progress_say(__VA_ARGS__)

static void add_note(struct target_info *ti, const char *note)
{
	if (ti->nr_notes < MAX_NOTES)
		snprintf(ti->notes[ti->nr_notes++], DETAIL_LEN, "%s", note);
}

/* The first seconds of this phase as trace events, beside the results. */
static void write_timeline(struct run_ctx *ctx, const struct target *t,
			   const struct workload_ops *w)
{
	struct timeline_events te;
	char name[2 * NAME_LEN + 32];
	int err = timeline_end(ctx->tl, &te);

	snprintf(name, sizeof(name), "timeline-%s-%s.json", t->info.name,
		 w->name);
	if (!err) {
		struct timeline_phase phase = {.target = t->info.name,
					       .workload = w->name,
					       .t0_ns = te.t0_ns,
					       .end_ns = te.end_ns,
					       .window_s = te.window_s,
					       .lost = te.lost};

		err = report_write_timeline(ctx->cfg->output, name, te.ev, te.n,
					    &phase);
	}
	if (err)
		progress_warn("encbench-trace: no timeline for %s %s\n",
			      t->info.name, w->name);
}

static struct result *result_slot(struct results *r, const char *target,
				  const char *workload, const char *job,
				  const struct metric_def *m)
{
	for (int i = 0; i < r->nr_results; i++)
		if (!strcmp(r->results[i].target, target) &&
		    !strcmp(r->results[i].workload, workload) &&
		    !strcmp(r->results[i].metric.name, m->name))
			return &r->results[i];
	if (r->nr_results >= MAX_RESULTS)
		return NULL;
	struct result *res = &r->results[r->nr_results++];
	snprintf(res->target, NAME_LEN, "%s", target);
	snprintf(res->workload, NAME_LEN, "%s", workload);
	snprintf(res->job, NAME_LEN, "%s", job);
	res->metric = *m;
	res->cpu.min = 1e300;
	return res;
}

/* The metrics of part ph (job: its name, "" for a workload of one part)
 * of one iteration. */
static void record_sample(struct results *r, const struct target *t,
			  const char *workload, const char *job,
			  const struct metric_def *defs,
			  const struct workload_phase *ph,
			  const struct sample *s, bool traced, int iteration)
{
	for (int m = ph->first; m < ph->first + ph->n; m++) {
		struct result *res =
			result_slot(r, t->info.name, workload, job, &defs[m]);

		if (res && traced && res->nr_traced < MAX_TRACED_SAMPLES) {
			res->traced_iteration[res->nr_traced] = iteration;
			res->traced_mean_n[res->nr_traced] = s->mean_n[m];
			res->traced[res->nr_traced++] = s->values[m];
		}
		/* The rest is the figures': untraced iterations only. */
		if (!res || traced || res->nr_samples >= MAX_SAMPLES)
			continue;
		res->iteration[res->nr_samples] = iteration;
		res->samples[res->nr_samples++] = s->values[m];
		/* Running sums; run_statistics turns them into means. */
		res->rusage.real_s += s->real_s[m];
		res->rusage.user_s += s->user_s[m];
		res->rusage.sys_s += s->sys_s[m];
		if (res->rusage.nr_runs < MAX_RAW_RUNS) {
			int k = res->rusage.nr_runs++;

			res->rusage.run_real_s[k] = s->real_s[m];
			res->rusage.run_user_s[k] = s->user_s[m];
			res->rusage.run_sys_s[k] = s->sys_s[m];
		}
		res->cpu.avg += s->cpu_sum[m];
		if (s->cpu_n[m] && s->cpu_min[m] < res->cpu.min)
			res->cpu.min = s->cpu_min[m];
		if (s->cpu_n[m] && s->cpu_max[m] > res->cpu.max)
			res->cpu.max = s->cpu_max[m];
		res->cpu.samples += s->cpu_n[m];
		res->read_bytes += s->read_bytes[m];
		res->dev_read_bytes += s->dev_read_bytes[m];
		res->dev_samples += s->dev_counted[m];
		if (s->dev_counted[m] &&
		    iteration_cached(s->read_bytes[m], s->dev_read_bytes[m])) {
			if (res->nr_cached_at < MAX_CACHED_SAMPLES)
				res->cached_at[res->nr_cached_at] =
					res->nr_samples - 1;
			res->nr_cached_at++;
			res->cached_read_bytes += s->read_bytes[m];
			res->cached_dev_read_bytes += s->dev_read_bytes[m];
		}
		res->page_cache_writes |= s->page_cache_writes[m];
	}
}

/* --runs auto: has every metric of this part of the workload on this
 * target at least min samples and a relative standard error under the
 * wanted one? Over the samples its figure will keep: an iteration read
 * from the page cache, to be split off (result_split_cached), is none. */
static bool all_stable(const struct results *r, const struct target *t,
		       const char *workload, const struct metric_def *defs,
		       const struct workload_phase *ph, int min, double pct)
{
	static double disk[MAX_SAMPLES];

	for (int i = 0; i < r->nr_results; i++) {
		const struct result *x = &r->results[i];
		bool ours = false;
		int n;

		for (int m = ph->first; m < ph->first + ph->n && !ours; m++)
			ours = !strcmp(x->metric.name, defs[m].name);
		if (!ours || strcmp(x->target, t->info.name) ||
		    strcmp(x->workload, workload))
			continue;
		n = result_disk_samples(x, disk);
		if (n < min || !runs_stable(disk, n, pct))
			return false;
	}
	return true;
}

/* One line per iteration with --verbose: i of at most n (with --runs
 * auto, n is --max-runs, and it may stop earlier). */
static void say_sample(const char *target, const char *workload, int i, int n,
		       const struct metric_def *defs,
		       const struct workload_phase *ph, const struct sample *s,
		       bool traced)
{
	progress_detail("[%s] %s %d/%d%s:", target, workload, i, n,
			traced ? " (traced)" : "");
	for (int m = ph->first; m < ph->first + ph->n && m < ph->first + 6; m++)
		progress_detail(" %s %.3f", defs[m].name, s->values[m]);
	progress_detail("%s\n", ph->n > 6 ? " ..." : "");
}

static void trace_filter_for(const struct target *t, struct trace_filter *f)
{
	memset(f, 0, sizeof(*f));
	for (int i = 0; i < t->info.nr_devices && i < MAX_TARGET_DEVS; i++) {
		f->major[f->nr_devs] = t->info.devices[i].major;
		f->minor[f->nr_devs++] = t->info.devices[i].minor;
	}
	f->parent_tgid = getpid();
	f->no_devices = t->info.nr_devices == 0;
	trace_filter_dmcrypt(f, &t->info);
	if (t->info.zfs.objset_id)
		f->zfs_objsets[f->nr_zfs_objsets++] = t->info.zfs.objset_id;
}

/* A target's baseline: its kind's own (zfs -> zfs-off) if that was built,
 * else the run's first target. */
const char *run_baseline_name(const struct results *r, const char *target)
{
	const struct target_kind *k = NULL;

	for (int i = 0; i < r->nr_targets && !k; i++)
		if (!strcmp(r->targets[i].name, target))
			k = target_find(r->targets[i].kind);
	for (int i = 0; k && k->baseline && i < r->nr_targets; i++)
		if (!strcmp(r->targets[i].kind, k->baseline))
			return r->targets[i].name;
	return r->targets[0].name;
}

/* The phase's snapshots, one per traced iteration: analysed together
 * into the results now (as `report --reanalyze` combines them), each
 * kept for snapshots/ (run_keep_snapshot takes it). job: the part's name
 * when the workload has parts (a fio job), "". */
static void record_phase(struct run_ctx *ctx, const struct target *t,
			 const struct workload_ops *w, const char *job,
			 struct snapshot **parts, int n)
{
	const char *base = run_baseline_name(ctx->r, t->info.name);
	int seq = ++ctx->nr_phases;

	for (int i = 0; i < n; i++) {
		struct snapshot *snap = parts[i];

		snap->target = t->info;
		snprintf(snap->workload, sizeof(snap->workload), "%s", w->name);
		snprintf(snap->job, sizeof(snap->job), "%s", job);
		snapshot_run_facts(snap, &ctx->r->meta.caps, seq,
				   strcmp(base, t->info.name) ? base : "");
	}
	if (analyse_iterations((const struct snapshot *const *)parts, n,
			       ctx->r))
		progress_warn("encbench-trace: out of memory analysing %s "
			      "on %s\n",
			      w->name, t->info.name);
	for (int i = 0; i < n; i++)
		if (run_keep_snapshot(ctx, parts[i])) {
			snapshot_free(parts[i]);
			free(parts[i]);
		}
}

/* A phase starts (the whole target's series when the workload has one
 * part): its counters reset and its filter set, the tracer detached
 * until a traced iteration; the calls timed by the workload where it
 * can (workload_ops.times_calls). False when there is no tracer or it
 * failed. */
static bool phase_begin(struct run_ctx *ctx, const struct workload_ops *w,
			const void *params, int phase, const struct target *t)
{
	if (!ctx->tr)
		return false;
	ctx->filter.calls_by_workload = !ctx->cfg->syscall_tracepoints &&
					w->times_calls &&
					w->times_calls(params, phase, t) &&
					trace_calls_by_sched(ctx->tr);
	if (trace_begin(ctx->tr, &ctx->filter)) {
		progress_warn(
			"encbench-trace: trace_begin failed on %s; no attribution "
			"for it\n",
			t->info.name);
		return false;
	}
	return true;
}

/*
 * One target and workload: the untraced iterations that give the figures
 * and, apart, the traced ones that explain them (the tracer attached only
 * around these), interleaved so that both see the same machine.
 */
/* Servers one workload starts, at most (nginx: one per port tried). */
#define MAX_FOLLOWED 8

struct series {
	const struct workload_ops *w;
	struct target *t;
	struct workload_ctx wc;
	struct workload_window win;
	struct metric_def defs[MAX_METRICS];
	int nr_metrics;
	/* The part of the workload running (all of it when it has one),
	 * and its job name ("" then). */
	const struct workload_phase *ph;
	const char *job;
	int max;    /* untraced iterations at most */
	int traced; /* traced iterations wanted; 0 when not tracing */
	int done_u; /* untraced iterations run */
	int done_t; /* traced iterations run */
	int iteration;
	bool stable; /* --runs auto has what it needs */
	struct tracer *tr;
	/* The servers the workload started (workload_follow): the tracer
	 * forgets every process when it detaches, so each attach follows
	 * them and what they forked meanwhile again. */
	pid_t servers[MAX_FOLLOWED];
	int nr_servers;
	/* The traced iterations' snapshots, in order (done_t of them). */
	struct snapshot *parts[MAX_TRACED_SAMPLES];
	int nr_parts;
	/* A disturbed traced iteration was set aside (disturbed.c). */
	bool retraced;
};

static void window_open(void *arg)
{
	trace_resume(((struct series *)arg)->tr);
}

static void window_close(void *arg)
{
	trace_pause(((struct series *)arg)->tr);
}

static void window_follow(void *arg, pid_t pid)
{
	struct series *z = arg;

	if (z->nr_servers < MAX_FOLLOWED)
		z->servers[z->nr_servers++] = pid;
	trace_follow(z->tr, pid);
}

/* Attached: the servers' processes as they are now, the ones forked
 * while detached too; from here on the BPF side adds their forks. */
static int attach_following(struct run_ctx *ctx, struct series *z)
{
	int err = trace_attach(ctx->tr);

	for (int i = 0; !err && i < z->nr_servers; i++)
		err = follow_running(ctx->tr, z->servers[i]);
	if (err)
		trace_detach(ctx->tr);
	return err;
}

/* The j-th traced iteration (from 0) comes after ceil((j + 1) n / (m + 1))
 * untraced ones, n those planned (--runs, or the --min-runs that --runs
 * auto makes at least): spread over the series, never first. */
static int traced_due(const struct run_config *cfg, int j)
{
	int n = cfg->runs_auto ? cfg->min_runs : cfg->runs;
	int m = cfg->trace_runs;

	return ((j + 1) * n + m) / (m + 1);
}

static bool untraced_done(const struct series *z)
{
	return z->done_u >= z->max || z->stable;
}

/*
 * Where the workload timed its calls (the syscall tracepoints detached),
 * its figures are the syscall layer's items and the calls the wait split
 * adds up to; the on-CPU part is the analysis's to derive (phase.c).
 */
static void take_calls(struct snapshot *snap, const struct sample *s)
{
	snprintf(snap->tracer.calls_by, sizeof(snap->tracer.calls_by), "%s",
		 s->calls_by);
	for (int op = 0; op < NR_OPS; op++) {
		const struct call_times *c = &s->calls[op];
		struct layer_stat *st = &snap->stats[LAYER_SYSCALL][op];

		memset(st, 0, sizeof(*st));
		st->count = c->count;
		st->sum_ns = c->sum_ns;
		st->busy_ns = c->busy_ns;
		memcpy(st->slots, c->slots, sizeof(st->slots));
		snap->wait.ops[op].syscalls = c->count;
		snap->wait.ops[op].total_ns = c->sum_ns;
	}
}

/* The traced iteration just run, its own snapshot (the tracer's
 * counters start again for the next). */
static int take_iteration(struct run_ctx *ctx, struct series *z,
			  const struct sample *s)
{
	struct snapshot *snap;

	if (z->nr_parts >= MAX_TRACED_SAMPLES)
		return -E2BIG;
	snap = calloc(1, sizeof(*snap));
	if (!snap)
		return -ENOMEM;
	if (trace_end(ctx->tr, snap)) {
		free(snap);
		return -EINVAL;
	}
	snap->iteration = z->iteration;
	if (ctx->filter.calls_by_workload)
		take_calls(snap, s);
	z->parts[z->nr_parts++] = snap;
	return 0;
}

static void drop_parts(struct series *z)
{
	for (int i = 0; i < z->nr_parts; i++) {
		snapshot_free(z->parts[i]);
		free(z->parts[i]);
	}
	z->nr_parts = 0;
}

/* Being attached is the cost: only for this iteration (attached by the
 * caller, detached here), and the last traced one also says what its
 * programs cost. */
static int traced_iteration(struct run_ctx *ctx, struct series *z,
			    struct sample *s)
{
	struct tracer_cost *c = NULL;
	bool cost = z->done_t == z->traced - 1;
	int err;

	timeline_attach(ctx->tl);
	/* The timeline covers the target's first traced seconds. */
	if (!z->done_t && !z->wc.phase && ctx->tl)
		timeline_begin(ctx->tl, &ctx->filter, ctx->cfg->timeline_s);
	if (cost && ctx->r->nr_costs < MAX_TARGETS * MAX_WORKLOADS) {
		c = &ctx->r->costs[ctx->r->nr_costs];
		memset(c, 0, sizeof(*c));
		trace_cost_begin(ctx->tr);
	}
	z->wc.window = &z->win;
	err = z->w->run_once(&z->wc, s);
	z->wc.window = NULL;
	if (c) {
		trace_cost_end(ctx->tr, c);
		/* The calls the workload timed: the tracer counted none. */
		for (int op = 0; ctx->filter.calls_by_workload && op < NR_OPS;
		     op++)
			c->ops += s->calls[op].count;
		snprintf(c->target, NAME_LEN, "%s", z->t->info.name);
		snprintf(c->workload, NAME_LEN, "%s", z->w->name);
		snprintf(c->job, NAME_LEN, "%s", z->job);
		c->iteration = z->iteration;
		ctx->r->nr_costs += !err;
	}
	timeline_detach(ctx->tl);
	trace_detach(ctx->tr);
	pause_point("detached:%s:%s", z->t->info.name, z->w->name);
	if (!err)
		err = take_iteration(ctx, z, s);
	return err;
}

/* A traced iteration far worse than every untraced one so far
 * (disturbed.c) is set aside, its snapshot and cost dropped, and traced
 * again, once per series; a second one like it is kept. Both are said,
 * in the target's notes too. True when set aside. */
static bool set_aside(struct run_ctx *ctx, struct series *z,
		      const struct sample *s)
{
	const struct tracer_cost *c;
	char buf[DETAIL_LEN];
	int m = 0;
	double d = traced_disturbance(ctx->r, z->t->info.name, z->w->name,
				      z->job, z->defs, z->ph->first, z->ph->n,
				      s->values, &m);

	if (d <= DISTURBED)
		return false;
	snprintf(buf, sizeof(buf),
		 "%s%s%s: traced iteration %d took %.1fx the worst untraced "
		 "one's %s (%.4g %s): %s",
		 z->w->name, z->job[0] ? "/" : "", z->job, z->iteration, d,
		 z->defs[m].name, s->values[m], z->defs[m].unit,
		 z->retraced ? "kept, as the one set aside before it: being "
			       "traced costs that much here"
			     : "something else disturbed it; set aside and "
			       "traced again");
	add_note(&z->t->info, buf);
	progress_warn("encbench-trace: [%s] %s\n", z->t->info.name, buf);
	if (z->retraced)
		return false;
	z->retraced = true;
	if (z->nr_parts > 0) {
		snapshot_free(z->parts[--z->nr_parts]);
		free(z->parts[z->nr_parts]);
	}
	/* Its cost entry, if it was the one whose cost was taken. */
	c = ctx->r->nr_costs ? &ctx->r->costs[ctx->r->nr_costs - 1] : NULL;
	if (c && c->iteration == z->iteration &&
	    !strcmp(c->target, z->t->info.name) &&
	    !strcmp(c->workload, z->w->name) && !strcmp(c->job, z->job))
		ctx->r->nr_costs--;
	return true;
}

static int run_series(struct run_ctx *ctx, struct series *z)
{
	const struct run_config *cfg = ctx->cfg;
	int err = 0;

	while (!err && !workload_stop) {
		bool more_t = z->done_t < z->traced;
		bool traced =
			more_t && (untraced_done(z) ||
				   z->done_u >= traced_due(cfg, z->done_t));
		struct sample s = {0};

		if (!traced && untraced_done(z))
			break;
		/* Detached here, before every iteration. */
		pause_point("iteration:%s:%s", z->t->info.name, z->w->name);
		if (traced && attach_following(ctx, z)) {
			progress_warn("encbench-trace: the tracer could not be "
				      "attached on %s; no more traced "
				      "iterations of %s\n",
				      z->t->info.name, z->w->name);
			z->traced = z->done_t;
			traced = false;
			if (untraced_done(z))
				break;
		}
		z->wc.iteration = ++z->iteration;
		progress_iteration(z->iteration,
				   z->max + z->traced + z->retraced);
		err = traced ? traced_iteration(ctx, z, &s)
			     : z->w->run_once(&z->wc, &s);
		if (err)
			break;
		progress_iteration_done();
		if (traced && set_aside(ctx, z, &s))
			continue;
		record_sample(ctx->r, z->t, z->w->name, z->job, z->defs, z->ph,
			      &s, traced, z->iteration);
		say_sample(z->t->info.name, z->w->name, z->iteration,
			   z->max + z->traced + z->retraced, z->defs, z->ph, &s,
			   traced);
		if (traced) {
			z->done_t++;
			continue;
		}
		z->done_u++;
		z->stable =
			(cfg->runs_auto && z->done_u >= cfg->min_runs &&
			 all_stable(ctx->r, z->t, z->w->name, z->defs, z->ph,
				    cfg->min_runs, cfg->stable_pct)) ||
			(ctx->enough &&
			 ctx->enough(ctx, z->t, z->w->name, z->done_u));
	}
	return err;
}

/* The workload's setup with the tracer attached (not counting): a
 * server it starts is followed from its first fork. */
static int series_setup(struct run_ctx *ctx, struct series *z)
{
	/* Nothing of setup is timed: no window opens, its servers are
	 * followed. */
	struct workload_window follow = {NULL, NULL, window_follow, z};
	int err;

	if (!z->w->setup)
		return 0;
	if (z->traced && trace_attach(ctx->tr) == 0)
		trace_pause(ctx->tr);
	z->wc.window = &follow;
	err = z->w->setup(&z->wc);
	z->wc.window = NULL;
	trace_detach(ctx->tr);
	return err;
}

static bool not_applicable(const struct workload_ops *w, const void *params,
			   struct target *t)
{
	const char *note;
	char buf[DETAIL_LEN];

	note = w->not_applicable ? w->not_applicable(t, params) : NULL;
	if (note) {
		snprintf(buf, sizeof(buf), "%s: not applicable: %s", w->name,
			 note);
		add_note(&t->info, buf);
		say("[%s] %s\n", t->info.name, buf);
		return true;
	}
	note = w->caveat ? w->caveat(t, params) : NULL;
	if (note) {
		snprintf(buf, sizeof(buf), "%s: %s", w->name, note);
		add_note(&t->info, buf);
	}
	return false;
}

int run_on_target(struct run_ctx *ctx, const struct workload_ops *w,
		  const void *params, struct target *t)
{
	const struct run_config *cfg = ctx->cfg;
	int nr_phases = w->phases ? w->phases(params) : 1;
	struct series *z;
	bool traced;
	int err = 0;

	if (not_applicable(w, params, t))
		return 0;
	z = calloc(1, sizeof(*z));
	if (!z)
		return -ENOMEM;
	z->w = w;
	z->t = t;
	/* Attribution covers the timed children only, not the parent's
	 * dropping of caches or removal of files between them. */
	z->tr = ctx->tr;
	z->win = (struct workload_window){window_open, window_close,
					  window_follow, z};
	z->wc = (struct workload_ctx){
		.params = params, .target = t, .drop_caches = cfg->drop_caches};
	z->nr_metrics = w->metrics(params, z->defs);
	z->max = config_max_runs(cfg);
	/* The phase begins before setup (trace_begin forgets every process
	 * before): a server setup starts is followed from its first fork. */
	trace_filter_for(t, &ctx->filter);
	traced = phase_begin(ctx, w, params, 0, t);
	z->traced = traced ? cfg->trace_runs : 0;
	err = series_setup(ctx, z);
	if (err)
		goto out;
	progress_stage("run", t->info.name, w->name);
	pause_point("workload:%s:%s", t->info.name, w->name);
	/* A workload of several parts (fio's jobs) runs them one after the
	 * other, each traced apart: its own attribution and verdict. */
	for (int p = 0; p < nr_phases && !err; p++) {
		struct workload_phase ph = {"", 0, z->nr_metrics};

		if (w->phase)
			w->phase(params, p, &ph);
		if (p > 0)
			traced = phase_begin(ctx, w, params, p, t);
		z->wc.phase = p;
		z->ph = &ph;
		z->job = w->phases ? ph.name : "";
		z->traced = traced ? cfg->trace_runs : 0;
		z->done_u = z->done_t = z->iteration = 0;
		z->stable = false;
		err = run_series(ctx, z);
		if (z->nr_parts && !err) {
			record_phase(ctx, t, w, z->job, z->parts, z->nr_parts);
			z->nr_parts = 0;
		}
		drop_parts(z);
	}
	if (ctx->tl && !err && z->done_t)
		write_timeline(ctx, t, w);
	if (w->teardown)
		w->teardown(&z->wc);
out:
	free(z);
	return err;
}

/* Every part's iterations on every target, at most. */
static int nr_iterations(const struct run_ctx *ctx)
{
	int n = 0;

	for (int wi = 0; wi < ctx->cfg->nr_workloads; wi++) {
		const struct workload_ops *w =
			workload_find(ctx->cfg->workloads[wi]);

		n += w->phases ? w->phases(ctx->cfg->wparams[wi]) : 1;
	}
	return n * ctx->nr_targets *
	       (config_max_runs(ctx->cfg) +
		(ctx->tr ? ctx->cfg->trace_runs : 0));
}

int run_workloads(struct run_ctx *ctx)
{
	struct results *r = ctx->r;

	for (int i = 0; i < ctx->nr_targets; i++)
		r->targets[r->nr_targets++] = ctx->targets[i].info;
	progress_plan(nr_iterations(ctx));
	for (int wi = 0; wi < ctx->cfg->nr_workloads; wi++) {
		const struct workload_ops *w =
			workload_find(ctx->cfg->workloads[wi]);
		const void *params = ctx->cfg->wparams[wi];
		struct workload_info *wl = &r->workloads[r->nr_workloads++];

		snprintf(wl->name, NAME_LEN, "%s", w->name);
		w->describe(params, &wl->params);
		for (int ti = 0; ti < ctx->nr_targets; ti++) {
			int err = run_on_target(ctx, w, params,
						&ctx->targets[ti]);

			if (workload_stop)
				return -EINTR;
			if (err) {
				progress_warn(
					"encbench-trace: %s on %s failed: %s\n",
					w->name, ctx->targets[ti].info.name,
					strerror(-err));
				return err;
			}
		}
		/* Notes were added while running: refresh the copies. */
		for (int ti = 0; ti < ctx->nr_targets; ti++)
			r->targets[ti] = ctx->targets[ti].info;
	}
	return 0;
}
