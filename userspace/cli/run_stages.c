// SPDX-License-Identifier: MIT
/* The stages of `run`: targets, tracer, workloads, statistics, report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progress.h"
#include "run.h"
#include "../common/pause_point.h"
#include "../probe/probe.h"
#include "../report/report.h"
#include "../report/timeline_doc.h"
#include "../stats/stats.h"
#include "../trace/timeline.h"
#include "../trace/trace.h"
#include "../workload/workload.h"

#define say(...) progress_say(__VA_ARGS__)

void run_options_of(const struct run_config *cfg, struct run_options *o)
{
	memset(o, 0, sizeof(*o));
	o->size_bytes = cfg->size_bytes;
	o->runs_auto = cfg->runs_auto;
	o->runs = cfg->runs;
	o->stable_pct = cfg->stable_pct;
	o->min_runs = cfg->min_runs;
	o->max_runs = cfg->max_runs;
	o->scale = cfg->scale;
	snprintf(o->preset, sizeof(o->preset), "%s", cfg->preset);
	snprintf(o->scratch, sizeof(o->scratch), "%s", cfg->scratch);
	snprintf(o->output, sizeof(o->output), "%s", cfg->output);
	o->trace = cfg->trace;
	o->drop_caches = cfg->drop_caches;
	o->html = cfg->html;
	o->nr_targets = cfg->nr_targets;
	memcpy(o->targets, cfg->targets, sizeof(o->targets));
	o->nr_workloads = cfg->nr_workloads;
	memcpy(o->workloads, cfg->workloads, sizeof(o->workloads));
	snprintf(o->luks_cipher, sizeof(o->luks_cipher), "%s",
		 cfg->luks.cipher);
	o->luks_key_bits = cfg->luks.key_bits;
	o->luks_sector_size = cfg->luks.sector_size;
	o->nr_user_targets = cfg->nr_user_targets;
	memcpy(o->user_names, cfg->user_names, sizeof(o->user_names));
	memcpy(o->user_paths, cfg->user_paths, sizeof(o->user_paths));
	snprintf(o->baseline, sizeof(o->baseline), "%s", cfg->baseline);
}

static void add_note(struct target_info *ti, const char *note)
{
	if (ti->nr_notes < MAX_NOTES)
		snprintf(ti->notes[ti->nr_notes++], DETAIL_LEN, "%s", note);
}

/* What was found under a user's folder, in one line. */
static void say_detected(const struct target *t)
{
	const struct target_info *ti = &t->info;
	char chain[DETAIL_LEN] = "";
	size_t n = 0;

	for (int i = 0; i < ti->nr_devices && n < sizeof(chain); i++)
		n += snprintf(chain + n, sizeof(chain) - n, "%s%s (%s)",
			      i ? ", " : " on ", ti->devices[i].name,
			      ti->devices[i].role);
	say("[%s] %s: %s%s; encryption: %s%s%s; %s\n", ti->name, ti->path,
	    ti->fs, chain, ti->encrypted ? ti->encryption.scheme : "none",
	    ti->encrypted ? " " : "",
	    ti->encrypted ? ti->encryption.contents_cipher : "",
	    ti->verification);
}

static int setup_one(struct run_ctx *ctx, const char *name, const char *path,
		     bool baseline)
{
	const struct target_kind *k = path ? &user_target : target_find(name);
	struct capabilities *caps = &ctx->r->meta.caps;
	struct target *t = &ctx->targets[ctx->nr_targets];
	struct target_config tc = {
		.name = name,
		.scratch = ctx->scratch,
		.fs_bytes = target_fs_bytes(ctx->cfg),
		.path = path,
		.luks = ctx->cfg->luks,
		.zfs = ctx->cfg->zfs,
		.stop = &workload_stop,
	};
	const char *why = k->unavailable(caps);
	const struct device_info *low;
	int err;

	/* Kinds the user did not name: skipped where unavailable, and said. */
	if (why && !ctx->cfg->targets_given && !baseline) {
		struct skipped_target *s =
			&ctx->r->skipped[ctx->r->nr_skipped++];

		snprintf(s->kind, sizeof(s->kind), "%s", name);
		snprintf(s->reason, sizeof(s->reason), "%s", why);
		say("[%s] skipped: %s\n", name, why);
		return 0;
	}
	if (why) {
		progress_warn(
			"encbench-trace: target %s is not available here: %s\n",
			name, why);
		return baseline ? -ENODEV : 0;
	}
	progress_stage("setup", name, NULL);
	memset(t, 0, sizeof(*t));
	t->kind = k;
	snprintf(t->info.name, NAME_LEN, "%s", name);
	ctx->nr_targets++; /* from here on teardown covers it */
	if (path)
		say("[%s] detecting the storage stack of %s\n", name, path);
	else
		say("[%s] setting up: %s\n", name, k->help);
	err = target_setup(t, &tc);
	if (!err && !workload_stop)
		err = target_verify(t);
	if (err || workload_stop) {
		if (!workload_stop && err != -EINVAL)
			progress_warn(
				"encbench-trace: target %s could not be set up "
				"(%s)%s\n",
				name, strerror(-err),
				baseline ? "" : "; going on without it");
		target_teardown(t);
		ctx->nr_targets--;
		if (err == -EINVAL)
			return err; /* the user's options were refused */
		return baseline || workload_stop ? -EIO : 0;
	}
	if (t->info.encrypted)
		probe_target_driver(caps, &t->info);
	if (k->detected) {
		say_detected(t);
	} else if (t->info.encrypted) {
		low = &t->info.devices[t->info.nr_devices - 1];
		say("[%s] verified: data on /dev/%s is ciphertext; %s runs on "
		    "%s (%s)\n",
		    name, low->name, t->info.encryption.contents_cipher,
		    t->info.encryption.driver[0] ? t->info.encryption.driver
						 : "unknown driver",
		    t->info.encryption.hw_accel ? "hardware AES"
						: "no hardware AES");
	} else if (t->info.null_cipher) {
		say("[%s] verified: data on /dev/%s is PLAINTEXT, as asked: "
		    "%s is not encryption, this target is a control\n",
		    name, t->info.devices[t->info.nr_devices - 1].name,
		    ctx->cfg->luks.cipher);
	}
	return 0;
}

int run_setup_targets(struct run_ctx *ctx)
{
	const struct run_config *cfg = ctx->cfg;
	const char *names[MAX_TARGETS], *paths[MAX_TARGETS];
	int n = 0;

	for (int i = 0; i < cfg->nr_targets && n < MAX_TARGETS; i++, n++) {
		names[n] = cfg->targets[i];
		paths[n] = NULL;
	}
	for (int i = 0; i < cfg->nr_user_targets && n < MAX_TARGETS; i++, n++) {
		names[n] = cfg->user_names[i];
		paths[n] = cfg->user_paths[i];
	}
	/* The reports compare every target with the first: --baseline's
	 * goes there, the others keep their order. */
	for (int i = 1; i < n && cfg->baseline[0]; i++) {
		const char *name = names[i], *path = paths[i];

		if (strcmp(name, cfg->baseline))
			continue;
		memmove(&names[1], &names[0], i * sizeof(names[0]));
		memmove(&paths[1], &paths[0], i * sizeof(paths[0]));
		names[0] = name;
		paths[0] = path;
	}
	for (int i = 0; i < n; i++) {
		int err = setup_one(ctx, names[i], paths[i], i == 0);

		if (err)
			return err == -EINVAL ? 2 : 1;
	}
	if (ctx->nr_targets < 2)
		progress_warn(
			"encbench-trace: only the baseline could be set up: no "
			"comparison will be made\n");
	return 0;
}

/* --timeline: beside the tracer, or not at all (and it says why). */
static void open_timeline(struct run_ctx *ctx)
{
	char why[DETAIL_LEN] = "";

	if (ctx->cfg->timeline_s <= 0)
		return;
	if (timeline_open(ctx->tr, &ctx->tl, why, sizeof(why)))
		progress_warn("encbench-trace: no timeline (%s)\n", why);
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

void run_open_tracer(struct run_ctx *ctx)
{
	struct run_meta *m = &ctx->r->meta;
	char why[DETAIL_LEN] = "";

	if (!ctx->cfg->trace) {
		snprintf(m->tracing_detail, DETAIL_LEN, "--no-trace given");
	} else if (trace_open(&m->caps, &ctx->tr, why, sizeof(why)) == 0) {
		m->tracing = true;
		m->tracing_detail[0] = '\0';
		open_timeline(ctx);
		return;
	} else {
		snprintf(m->tracing_detail, DETAIL_LEN, "%s", why);
	}
	m->tracing = false;
	ctx->tr = NULL;
	progress_warn(
		"encbench-trace: attribution is off (%s); benchmarking only\n",
		m->tracing_detail);
}

static struct result *result_slot(struct results *r, const char *target,
				  const char *workload,
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
	res->metric = *m;
	res->cpu.min = 1e300;
	return res;
}

static void record_sample(struct results *r, const struct target *t,
			  const char *workload, const struct metric_def *defs,
			  int nr_metrics, const struct sample *s)
{
	for (int m = 0; m < nr_metrics; m++) {
		struct result *res =
			result_slot(r, t->info.name, workload, &defs[m]);

		if (!res || res->nr_samples >= MAX_SAMPLES)
			continue;
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
	}
}

/* --runs auto: has every metric of this target and workload a relative
 * standard error under the wanted one? */
static bool all_stable(const struct results *r, const struct target *t,
		       const char *workload, double pct)
{
	for (int i = 0; i < r->nr_results; i++) {
		const struct result *x = &r->results[i];

		if (!strcmp(x->target, t->info.name) &&
		    !strcmp(x->workload, workload) &&
		    !runs_stable(x->samples, x->nr_samples, pct))
			return false;
	}
	return true;
}

/* One line per iteration: i of at most n (with --runs auto, n is
 * --max-runs, and it may stop earlier). */
static void say_sample(const char *target, const char *workload, int i, int n,
		       const struct metric_def *defs, int nr_metrics,
		       const struct sample *s)
{
	say("[%s] %s %d/%d:", target, workload, i, n);
	for (int m = 0; m < nr_metrics && m < 6; m++)
		say(" %s %.3f", defs[m].name, s->values[m]);
	say("%s\n", nr_metrics > 6 ? " ..." : "");
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
static const char *baseline_name(const struct results *r, const char *target)
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

/* The baseline's attribution of a's workload and op, if t is not its own
 * baseline (run before it) and it was recorded. */
static const struct attribution *baseline_of(const struct run_ctx *ctx,
					     const struct target *t,
					     const struct attribution *a)
{
	const struct results *r = ctx->r;
	const char *base = baseline_name(r, t->info.name);

	if (!strcmp(base, t->info.name))
		return NULL;
	for (int i = 0; i < r->nr_attrib; i++)
		if (!strcmp(r->attrib[i].target, base) &&
		    !strcmp(r->attrib[i].workload, a->workload) &&
		    r->attrib[i].op == a->op)
			return &r->attrib[i];
	return NULL;
}

static void record_attribution(struct run_ctx *ctx, struct target *t,
			       const struct workload_ops *w,
			       const struct trace_snapshot *snap)
{
	struct results *r = ctx->r;
	struct attribution a[NR_OPS];
	int n = attribute(snap, t->info.name, w->name, a);

	for (int i = 0; i < n && r->nr_attrib < MAX_ATTRIB; i++) {
		struct verdict *v = &r->verdicts[r->nr_verdicts++];

		r->attrib[r->nr_attrib] = a[i];
		if (a[i].wait.available)
			verdict_wait(&a[i], baseline_of(ctx, t, &a[i]),
				     &t->info, r->meta.caps.cpu_aes, v);
		else
			verdict_for(&a[i], &t->info, v);
		r->nr_attrib++;
	}
}

static void window_open(void *tr)
{
	trace_resume(tr);
}

static void window_close(void *tr)
{
	trace_pause(tr);
}

static void window_follow(void *tr, pid_t pid)
{
	trace_follow(tr, pid);
}

static int run_on_target(struct run_ctx *ctx, const struct workload_ops *w,
			 const void *params, struct target *t)
{
	/* Attribution covers the timed children only, not the parent's
	 * dropping of caches or removal of files between them. */
	const struct workload_window win = {window_open, window_close,
					    window_follow, ctx->tr};
	const struct run_config *cfg = ctx->cfg;
	struct workload_ctx wc = {
		.params = params,
		.target = t,
		.drop_caches = cfg->drop_caches,
		.window = ctx->tr ? &win : NULL,
	};
	struct metric_def defs[MAX_METRICS];
	struct trace_snapshot *snap = NULL;
	int nr_metrics = w->metrics(params, defs);
	int max = config_max_runs(cfg);
	struct trace_filter f;
	const char *note;
	int err = 0;

	note = w->not_applicable ? w->not_applicable(t, params) : NULL;
	if (note) {
		char buf[DETAIL_LEN];

		snprintf(buf, sizeof(buf), "%s: not applicable: %s", w->name,
			 note);
		add_note(&t->info, buf);
		say("[%s] %s\n", t->info.name, buf);
		return 0;
	}
	note = w->caveat ? w->caveat(t, params) : NULL;
	if (note) {
		char buf[DETAIL_LEN];

		snprintf(buf, sizeof(buf), "%s: %s", w->name, note);
		add_note(&t->info, buf);
	}
	/* The phase begins before setup: a server setup starts is followed
	 * from its first fork (trace_begin forgets every process before). */
	trace_filter_for(t, &f);
	if (ctx->tr && trace_begin(ctx->tr, &f))
		progress_warn(
			"encbench-trace: trace_begin failed on %s; no attribution "
			"for it\n",
			t->info.name);
	else if (ctx->tr)
		trace_pause(ctx->tr); /* until the first timed child */
	if (w->setup) {
		err = w->setup(&wc);
		if (err)
			return err;
	}
	if (ctx->tl)
		timeline_begin(ctx->tl, &f, ctx->cfg->timeline_s);
	progress_stage("run", t->info.name, w->name);
	pause_point("workload:%s:%s", t->info.name, w->name);
	for (int i = 1; i <= max && !err; i++) {
		struct sample s = {0};

		wc.iteration = i;
		progress_iteration(i, max);
		err = w->run_once(&wc, &s);
		if (err)
			break;
		progress_iteration_done();
		record_sample(ctx->r, t, w->name, defs, nr_metrics, &s);
		say_sample(t->info.name, w->name, i, max, defs, nr_metrics, &s);
		if (cfg->runs_auto && i >= cfg->min_runs &&
		    all_stable(ctx->r, t, w->name, cfg->stable_pct))
			break;
	}
	if (ctx->tr && !err) {
		snap = calloc(1, sizeof(*snap));
		if (snap && trace_end(ctx->tr, snap) == 0)
			record_attribution(ctx, t, w, snap);
		free(snap);
	}
	if (ctx->tl && !err)
		write_timeline(ctx, t, w);
	if (w->teardown)
		w->teardown(&wc);
	return err;
}

int run_workloads(struct run_ctx *ctx)
{
	struct results *r = ctx->r;

	for (int i = 0; i < ctx->nr_targets; i++)
		r->targets[r->nr_targets++] = ctx->targets[i].info;
	progress_plan(ctx->cfg->nr_workloads * ctx->nr_targets *
		      config_max_runs(ctx->cfg));
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

void run_statistics(struct run_ctx *ctx)
{
	struct results *r = ctx->r;

	for (int i = 0; i < r->nr_results; i++) {
		struct result *res = &r->results[i];
		int n = res->nr_samples;

		summarize(res->samples, n, &res->s);
		if (n) {
			res->rusage.real_s /= n;
			res->rusage.user_s /= n;
			res->rusage.sys_s /= n;
		}
		if (res->cpu.samples)
			res->cpu.avg /= res->cpu.samples;
		else
			res->cpu.min = 0;
	}
	/* Every target against its baseline, metric by metric. */
	for (int j = 0; j < r->nr_results; j++) {
		const struct result *t = &r->results[j];
		const char *base = baseline_name(r, t->target);

		if (!strcmp(t->target, base))
			continue;
		for (int i = 0; i < r->nr_results; i++) {
			const struct result *b = &r->results[i];
			/* Built apart, then copied in: names copied from
			 * r->results into r->comparisons could overlap for
			 * all the compiler knows (-Wrestrict at -O1). */
			struct comparison c = {0};

			if (strcmp(b->target, base) ||
			    strcmp(t->workload, b->workload) ||
			    strcmp(t->metric.name, b->metric.name) ||
			    r->nr_comparisons >= MAX_RESULTS)
				continue;
			snprintf(c.baseline, NAME_LEN, "%s", b->target);
			snprintf(c.target, NAME_LEN, "%s", t->target);
			snprintf(c.workload, NAME_LEN, "%s", t->workload);
			snprintf(c.metric, NAME_LEN, "%s", t->metric.name);
			welch_compare(b->samples, b->nr_samples, t->samples,
				      t->nr_samples, t->metric.higher_is_better,
				      &c);
			r->comparisons[r->nr_comparisons++] = c;
		}
	}
}

void run_teardown(struct run_ctx *ctx)
{
	progress_stage("teardown", NULL, NULL);
	/* The tracer first: no program may outlive what it watches. */
	timeline_close(ctx->tl);
	ctx->tl = NULL;
	trace_close(ctx->tr);
	ctx->tr = NULL;
	while (ctx->nr_targets > 0) {
		target_teardown(&ctx->targets[--ctx->nr_targets]);
	}
}

int run_report(struct run_ctx *ctx)
{
	const struct results *r = ctx->r;
	const char *dir = ctx->cfg->output;
	FILE *text = ctx->cfg->json ? stderr : stdout;
	int err;

	/* The document is made once, for the file and for --json. */
	err = report_write_json(r, dir, ctx->cfg->json ? stdout : NULL);
	if (!err)
		err = report_write_csv(r, dir);
	if (!err)
		err = report_write_histograms(r, dir);
	if (!err)
		err = report_write_runlog(r, dir);
	if (!err && ctx->cfg->html)
		err = report_write_html(&r, 1, dir);
	if (!err && ctx->cfg->prometheus[0])
		err = report_write_prometheus(r, ctx->cfg->prometheus);
	report_print_text(r, text, !ctx->cfg->quiet);
	fprintf(text,
		"\nResults in %s/ (results.json, per-iteration CSV, "
		"histograms, run.log%s)\n",
		dir, ctx->cfg->html ? ", report.html" : "");
	return err;
}
