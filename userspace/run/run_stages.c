// SPDX-License-Identifier: MIT
/* The stages of `run`: targets, tracer, statistics, verdicts, teardown
 * (the workloads stage is series.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "progress.h"
#include "run_priv.h"
#include "../analysis/analysis.h"
#include "../analysis/cached.h"
#include "../probe/probe.h"
#include "../stats/stats.h"
#include "../tracer/timeline.h"
#include "../tracer/trace.h"
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
	o->trace_runs = cfg->trace ? cfg->trace_runs : 0;
	o->syscall_tracepoints = cfg->syscall_tracepoints;
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

int run_setup_one(struct run_ctx *ctx, const char *kind, const char *name,
		  const char *path, bool baseline,
		  const struct run_target_opts *opts)
{
	const struct target_kind *k = path ? &user_target : target_find(kind);
	struct capabilities *caps = &ctx->r->meta.caps;
	struct target *t = &ctx->targets[ctx->nr_targets];
	struct target_config tc = {
		.name = name,
		.scratch = ctx->scratch,
		.fs_bytes = target_fs_bytes(ctx->cfg),
		.path = path,
		.luks = opts ? opts->luks : ctx->cfg->luks,
		.zfs = opts ? opts->zfs : ctx->cfg->zfs,
		.fscrypt = opts ? opts->fscrypt : (struct fscrypt_options){0},
		.ecryptfs = opts ? opts->ecryptfs
				 : (struct ecryptfs_options){{0}, 0},
		.ext4_block_size = opts ? opts->ext4_block_size : 0,
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
		    tc.luks.cipher);
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
		int err = run_setup_one(ctx, names[i], names[i], paths[i],
					i == 0, NULL);

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

void run_probe(struct capabilities *caps)
{
	probe_all(caps);
	trace_plan(caps, caps->layer_sources);
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

/* The observer effect on res: its traced iterations against its
 * untraced ones (res->s summarized already). */
static void observe(struct result *res)
{
	struct observer *o = &res->obs;
	struct comparison c = {0};
	double mu = res->s.mean, mt, rate[2];
	const double *pct = c.penalty_ci95_pct;

	memset(o, 0, sizeof(*o));
	if (res->nr_samples < 2 || res->nr_traced < 2 || mu == 0)
		return;
	welch_compare(res->samples, res->nr_samples, res->traced,
		      res->nr_traced, res->metric.higher_is_better, &c);
	mt = mu + c.diff_mean;
	o->measured = true;
	o->ratio = mt / mu;
	/* The penalty is on the cost: a rate's own ratio is its reciprocal
	 * (NaN ends where unbounded, either way). */
	if (res->metric.higher_is_better) {
		ratio_ci95_reciprocal_pct(c.penalty_ci95_pct, rate);
		pct = rate;
	}
	o->ratio_ci95[0] = 1.0 + pct[0] / 100.0;
	o->ratio_ci95[1] = 1.0 + pct[1] / 100.0;
	o->added_pct = c.penalty_pct;
	o->added_ci95_pct[0] = c.penalty_ci95_pct[0];
	o->added_ci95_pct[1] = c.penalty_ci95_pct[1];
	o->significant = c.significant;
	o->beyond_ci = res->metric.higher_is_better ? mt < res->s.ci95[0]
						    : mt > res->s.ci95[1];
}

void run_statistics(struct run_ctx *ctx)
{
	struct results *r = ctx->r;

	for (int i = 0; i < r->nr_results; i++) {
		struct result *res = &r->results[i];
		int n = res->nr_samples;

		if (n) {
			res->rusage.real_s /= n;
			res->rusage.user_s /= n;
			res->rusage.sys_s /= n;
		}
		/* Cached iterations among disk ones are no disk samples. */
		result_split_cached(res);
		summarize(res->samples, res->nr_samples, &res->s);
		if (res->cpu.samples)
			res->cpu.avg /= res->cpu.samples;
		else
			res->cpu.min = 0;
	}
	for (int i = 0; i < r->nr_results; i++)
		observe(&r->results[i]);
	/* Every target against its baseline, metric by metric. */
	for (int j = 0; j < r->nr_results; j++) {
		const struct result *t = &r->results[j];
		const char *base = run_baseline_name(r, t->target);

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
			comparison_mark_cached(&c, b, t);
			r->comparisons[r->nr_comparisons++] = c;
		}
	}
}

void run_verdicts(struct run_ctx *ctx)
{
	analyse_verdicts(ctx->r);
	/* The page cache named as the results say (after the statistics:
	 * they have the bytes read and delivered). */
	verdicts_mark_cached(ctx->r);
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
