// SPDX-License-Identifier: MIT
/*
 * `tune`'s sweep on the run's machinery: plain first (the baseline),
 * then each variant of the plan as a target of its own, set up, run with
 * the same workloads (--runs auto), torn down before the next is built.
 * The budget is shared out as the sweep goes: each variant gets what is
 * left over the variants still to run, and stops early once its
 * interval separates it from the best so far. A signal ends the sweep;
 * what finished is ranked and reported.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include <libcryptsetup.h>

#include "progress.h"
#include "tune.h"
#include "../analysis/tune_rank.h"
#include "../common/fmt_time.h"
#include "../probe/probe.h"
#include "../stats/stats.h"
#include "../storage/detect.h"
#include "../storage/refresh.h"
#include "../workload/workload.h"

#define say(...) progress_say(__VA_ARGS__)

struct tune_clock {
	double t0;		/* the sweep's start */
	double variant_t0;	/* the current variant's */
	double share_s;		/* its part of the budget */
	struct tune_variant *v; /* the current variant, NULL for plain */
	/* --target: the user's device, its flags refreshed per variant */
	struct dm_refresh *dev;
	const char *dev_path;
};

static bool kallsyms_has(const char *sym)
{
	char line[256], name[128];
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %127s", name) == 1 &&
			!strcmp(name, sym);
	if (f)
		fclose(f);
	return found;
}

static void probe_facts(struct tune_facts *f)
{
	struct utsname u;

	memset(f, 0, sizeof(*f));
	uname(&u);
	sscanf(u.release, "%d.%d", &f->kernel_major, &f->kernel_minor);
#ifdef CRYPT_ACTIVATE_HIGH_PRIORITY
	f->cryptsetup_high_priority = true;
#endif
	f->blk_crypto_fallback =
		kallsyms_has("blk_crypto_fallback_encrypt_bio");
	f->cipher_usable = probe_cipher_usable;
}

/* The progress line's news: the budget left and the best so far; said
 * as a line too when a target is done (done). */
static void say_progress(struct run_ctx *ctx, const char *target, int runs,
			 bool done)
{
	const struct tune_clock *c = ctx->enough_arg;
	const struct tune_result *tr = &ctx->r->tune;
	char left[32], best[NAME_LEN] = "", line[2 * NAME_LEN] = "";
	double pct = 0, rest = tr->budget_s - (now_s() - c->t0);

	tune_separated_from_best(ctx->r, target, best, &pct);
	if (best[0])
		snprintf(line, sizeof(line), "best so far %s (%+.1f %% vs %s)",
			 best, pct, ctx->r->targets[0].name);
	progress_budget(c->t0 + tr->budget_s, line);
	if (!done)
		return;
	fmt_duration(left, sizeof(left), rest > 0 ? rest : 0);
	say("[tune] %s: %d runs; %s of the budget left%s%s\n", target, runs,
	    left, line[0] ? "; " : "", line);
}

/* After each timed iteration: its share of the budget, or separated
 * from the best, ends a variant. */
static bool enough(struct run_ctx *ctx, const struct target *t,
		   const char *workload, int i)
{
	struct tune_clock *c = ctx->enough_arg;
	const struct run_config *cfg = ctx->cfg;
	double spent = now_s() - c->variant_t0;
	bool ranking = !strcmp(workload, ctx->r->tune.workload);

	if (ranking)
		say_progress(ctx, t->info.name, i, false);
	if (i < 2) /* no interval yet */
		return false;
	if (spent >= c->share_s || now_s() - c->t0 >= ctx->r->tune.budget_s) {
		if (c->v)
			c->v->cut_by_budget = true;
		return true;
	}
	if (c->v && ranking && i >= cfg->min_runs &&
	    tune_separated_from_best(ctx->r, t->info.name, NULL, NULL)) {
		c->v->stopped_early = true;
		return true;
	}
	return false;
}

static int run_workloads_on(struct run_ctx *ctx, struct target *t)
{
	for (int wi = 0; wi < ctx->cfg->nr_workloads; wi++) {
		const struct workload_ops *w =
			workload_find(ctx->cfg->workloads[wi]);
		int err = run_on_target(ctx, w, ctx->cfg->wparams[wi], t);

		if (workload_stop)
			return -EINTR;
		if (err) {
			progress_warn("encbench-trace: %s on %s failed: %s\n",
				      w->name, t->info.name, strerror(-err));
			return err;
		}
	}
	return 0;
}

static int count_runs(const struct results *r, const char *target)
{
	static double s[MAX_SAMPLES];

	return tune_score(r, target, r->tune.workload, s, NULL, 0, NULL, NULL);
}

/* The user's device with variant i's flags, its folder as the target:
 * as run_setup_one, 0 or negative errno (v->skipped says a refused
 * refresh). */
static int setup_on_device(struct run_ctx *ctx, const struct tune_plan *plan,
			   int i, const struct tune_clock *c)
{
	struct tune_variant *v = &ctx->r->tune.v[i];
	int err = dm_refresh_set(c->dev, plan->set[i].luks.flags);

	if (err == -ENOTSUP)
		snprintf(v->skipped, DETAIL_LEN,
			 "the kernel did not take the flags (its table read "
			 "back without them)");
	else if (err)
		snprintf(v->skipped, DETAIL_LEN, "the refresh failed: %s",
			 strerror(-err));
	if (err)
		return err == -ENOTSUP ? 0 : err;
	return run_setup_one(ctx, "user", v->name, c->dev_path, false, NULL);
}

/* Set up, run and tear down variant i; its target stays in r->targets. */
static int run_variant(struct run_ctx *ctx, const struct tune_plan *plan, int i,
		       struct tune_clock *c, int left)
{
	struct results *r = ctx->r;
	struct tune_variant *v = &r->tune.v[i];
	double rest = r->tune.budget_s - (now_s() - c->t0);
	int before = ctx->nr_targets, err;
	struct target *t;

	c->v = v;
	c->variant_t0 = now_s();
	c->share_s = rest / left;
	say("[tune] %s: %s (%.0f s of the budget)\n", v->name, v->settings,
	    c->share_s);
	err = c->dev ? setup_on_device(ctx, plan, i, c)
		     : run_setup_one(ctx, r->tune.kind, v->name, NULL, false,
				     &plan->set[i]);
	if (workload_stop)
		return -EINTR;
	if (v->skipped[0])
		return err;
	if (err || ctx->nr_targets == before) {
		snprintf(v->skipped, DETAIL_LEN,
			 "it could not be set up here (%s; the line above "
			 "says why)",
			 err == -EINVAL ? "the kernel or libcryptsetup refused "
					  "the setting"
					: "setup failed");
		return 0;
	}
	t = &ctx->targets[ctx->nr_targets - 1];
	err = run_workloads_on(ctx, t);
	if (r->nr_targets < MAX_TARGETS)
		r->targets[r->nr_targets++] = t->info;
	target_teardown(t);
	ctx->nr_targets--;
	v->runs = count_runs(r, v->name);
	v->seconds = now_s() - c->variant_t0;
	v->finished = !err;
	say_progress(ctx, v->name, v->runs, true);
	return err;
}

static void describe_workloads(struct run_ctx *ctx)
{
	struct results *r = ctx->r;

	for (int wi = 0; wi < ctx->cfg->nr_workloads; wi++) {
		const struct workload_ops *w =
			workload_find(ctx->cfg->workloads[wi]);
		struct workload_info *wl = &r->workloads[r->nr_workloads++];

		snprintf(wl->name, NAME_LEN, "%s", w->name);
		w->describe(ctx->cfg->wparams[wi], &wl->params);
	}
}

static int variants_to_run(const struct tune_result *tr, int from)
{
	int n = 0;

	for (int i = from; i < tr->nr_variants; i++)
		n += !tr->v[i].skipped[0];
	return n;
}

/* The baseline, plain (zfs-off for zfs): its share is one of the
 * variants'. It stays up through the sweep (zfs-off holds the pool the
 * variants' datasets come and go on). */
static int run_plain(struct run_ctx *ctx, struct tune_clock *c)
{
	struct results *r = ctx->r;
	const char *base = tune_baseline(r->tune.kind);
	int err;

	c->v = NULL;
	c->variant_t0 = now_s();
	c->share_s = r->tune.budget_s / (variants_to_run(&r->tune, 0) + 1);
	err = run_setup_one(ctx, base, base, NULL, true, NULL);
	if (err)
		return err == -EINVAL ? 2 : 1;
	run_open_tracer(ctx);
	describe_workloads(ctx);
	err = run_workloads_on(ctx, &ctx->targets[0]);
	r->targets[r->nr_targets++] = ctx->targets[0].info;
	say_progress(ctx, base, count_runs(r, base), true);
	return err ? 1 : 0;
}

/* --target NAME=PATH: the open LUKS2 mapping under the folder, its key
 * checked and its flags recorded (refresh.c). 0, 1, or 2 (not on one). */
static int device_begin(const struct run_config *cfg, struct dm_refresh *rf,
			struct tune_result *tr)
{
	static struct detected_stack st; /* large: not on the stack */
	char why[DETAIL_LEN], path[PATH_LEN], name[NAME_LEN] = "";
	const struct device_info *d;
	FILE *f;
	int err = stack_detect(cfg->user_paths[0], &st, why, sizeof(why));

	if (err) {
		fprintf(stderr, "encbench-trace: tune: --target %s: %s\n",
			cfg->user_paths[0], why);
		return 2;
	}
	if (st.crypt_index < 0 || strcmp(st.crypt.type, "LUKS2")) {
		fprintf(stderr,
			"encbench-trace: tune: --target %s: on no LUKS2 "
			"dm-crypt mapping (%s)\n",
			cfg->user_paths[0],
			st.crypt_index < 0 ? "no dm-crypt below it"
					   : st.crypt.type);
		return 2;
	}
	d = &st.devices[st.crypt_index];
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/dm/name", d->major,
		 d->minor);
	f = fopen(path, "re");
	if (f && fscanf(f, "%63s", name) != 1)
		name[0] = '\0';
	if (f)
		fclose(f);
	if (!name[0]) {
		fprintf(stderr, "encbench-trace: tune: %s: no dm name\n",
			d->name);
		return 1;
	}
	if (dm_refresh_begin(rf, name, cfg->key_file[0] ? cfg->key_file : NULL))
		return 1;
	snprintf(tr->device, sizeof(tr->device), "%s", name);
	dmcrypt_flag_names(rf->orig & dm_refresh_perf_flags(), tr->device_flags,
			   sizeof(tr->device_flags));
	tr->device_discards = rf->orig & CRYPT_ACTIVATE_ALLOW_DISCARDS;
	return 0;
}

/* The plan: the kind's variants, or the user's device's flags. */
static int make_plan(const struct run_config *cfg, struct dm_refresh *dev,
		     struct tune_plan *plan)
{
	struct tune_facts facts;
	int rc;

	probe_facts(&facts);
	if (dev)
		return tune_plan_device(cfg->user_names[0],
					dev->orig & dm_refresh_perf_flags(),
					dm_refresh_perf_flags(), &facts, plan);
	rc = tune_plan_make(plan->out->kind, &cfg->luks, cfg->cross, &facts,
			    plan)
		     ?: tune_plan_only(plan->out->kind,
				       (char(*)[NAME_LEN])cfg->axes,
				       cfg->nr_axes, plan);
	/* ZFS: what a variant does not set is the run's (--zfs-*): the
	 * key format and the pool's compression as given. */
	for (int i = 0; !rc && i < plan->out->nr_variants; i++) {
		struct zfs_options *z = &plan->set[i].zfs, v = *z;

		*z = cfg->zfs;
		if (v.encryption[0])
			memcpy(z->encryption, v.encryption,
			       sizeof(v.encryption));
		if (v.recordsize[0])
			memcpy(z->recordsize, v.recordsize,
			       sizeof(v.recordsize));
	}
	return rc;
}

int tune_run(struct run_ctx *ctx, bool *measured)
{
	const struct run_config *cfg = ctx->cfg;
	struct results *r = ctx->r;
	struct tune_result *tr = &r->tune;
	static struct tune_plan plan;
	struct tune_clock c = {.t0 = now_s()};
	static struct dm_refresh dev;
	const char *why;
	int rc;

	*measured = false;
	tr->on = true;
	snprintf(tr->kind, sizeof(tr->kind), "%s", cfg->tune_kind);
	snprintf(tr->workload, sizeof(tr->workload), "%s", cfg->workloads[0]);
	memcpy(tr->cross, cfg->cross, sizeof(tr->cross));
	tr->budget_s = cfg->budget_s;
	why = cfg->nr_user_targets
		      ? NULL
		      : target_find(tr->kind)->unavailable(&r->meta.caps);
	if (why) {
		fprintf(stderr,
			"encbench-trace: tune: %s is not available "
			"here: %s\n",
			tr->kind, why);
		return 1;
	}
	if (cfg->nr_user_targets) {
		rc = device_begin(cfg, &dev, tr);
		if (rc)
			return rc;
		c.dev = &dev;
		c.dev_path = cfg->user_paths[0];
	}
	plan.out = tr;
	rc = make_plan(cfg, c.dev, &plan);
	if (rc)
		goto restore;
	for (int i = 0; i < tr->nr_variants; i++)
		if (tr->v[i].skipped[0])
			say("[tune] %s skipped: %s\n", tr->v[i].name,
			    tr->v[i].skipped);
	ctx->enough = enough;
	ctx->enough_arg = &c;
	progress_plan(0);
	rc = run_plain(ctx, &c);
	for (int i = 0; !rc && i < tr->nr_variants; i++) {
		int left = variants_to_run(tr, i);

		if (tr->v[i].skipped[0])
			continue;
		if (now_s() - c.t0 >= tr->budget_s) {
			tr->budget_out = true;
			snprintf(tr->v[i].skipped, DETAIL_LEN,
				 "not reached: the budget ran out");
			continue;
		}
		rc = run_variant(ctx, &plan, i, &c, left) ? 1 : 0;
	}
restore:
	/* The user's flags back as soon as the sweep ends (a signal too). */
	if (c.dev && dm_refresh_end(c.dev))
		rc = 1;
	tr->interrupted = workload_stop != 0;
	tr->spent_s = now_s() - c.t0;
	ctx->enough = NULL;
	/* What finished is ranked, after a signal too. */
	if (r->nr_targets >= 2) {
		run_statistics(ctx);
		tune_rank(r);
		tune_advice(r, &plan);
		*measured = true;
	}
	return tr->interrupted ? 0 : rc;
}
