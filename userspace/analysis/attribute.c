// SPDX-License-Identifier: MIT
/*
 * Snapshot -> attribution -> verdict. Pure functions over the results
 * model, unit-tested on hand-built snapshots.
 *
 * Layers are compared by busy time (wall time with at least one item in
 * flight), not by summed latency: a thousand requests in parallel for one
 * second are one second of the caller's time, not a thousand.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../common/fmt_time.h"
#include "../stats/stats.h"
#include "analysis.h"

/* The layers below fs, whose busy time fs is derived without. Not dm: a
 * bio's life on the dm device contains crypt and the device below. */
static const int lower_layers[] = {
	LAYER_CRYPT_QUEUE, LAYER_CRYPT,	 LAYER_DMCRYPT_WRITE,
	LAYER_BLK_QUEUE,   LAYER_DEVICE,
};
#define NR_LOWER (int)(sizeof(lower_layers) / sizeof(lower_layers[0]))

static void fill_layer(const struct phase_figures *snap, int l, int op,
		       struct layer_result *lr)
{
	const struct layer_stat *s = &snap->stats[l][op];

	lr->layer = l;
	snprintf(lr->source, sizeof(lr->source), "%s", snap->sources[l]);
	lr->state = snap->states.state[l][op];
	snprintf(lr->reason, sizeof(lr->reason), "%s", snap->states.why[l][op]);
	if (!layer_has_figures(lr))
		return;
	lr->count = s->count;
	lr->sum_ns = s->sum_ns;
	lr->busy_ns = s->busy_ns;
	lr->dropped = s->dropped;
	lr->unseen = s->unseen;
	lr->unissued = s->unissued;
	lr->calls = s->calls;
	lr->mean_ns = s->count ? s->sum_ns / s->count : 0;
	memcpy(lr->slots, s->slots, sizeof(lr->slots));
	lr->p50_ns = hist_percentile(lr->slots, HIST_SLOTS, 50.0);
	lr->p99_ns = hist_percentile(lr->slots, HIST_SLOTS, 99.0);
}

int attribute_snapshot(const struct snapshot *s, struct attribution out[NR_OPS])
{
	struct phase_figures f;

	int n, op;
	bool seen[NR_OPS] = {false};

	phase_figures_of(s, &f);
	n = attribute(&f, s->target.name, s->workload, out);
	for (int i = 0; i < n; i++) {
		aio_result_of(&s->aio, out[i].op, &out[i].aio);
		seen[out[i].op] = true;
	}
	/* Async I/O of an op the workload made no syscall of (libaio
	 * writes): its attribution is the per-I/O one alone. */
	for (op = 0; op < NR_OPS; op++) {
		if (seen[op] || !s->aio.ops[op].ios)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		snprintf(out[n].target, sizeof(out[n].target), "%s",
			 s->target.name);
		snprintf(out[n].workload, sizeof(out[n].workload), "%s",
			 s->workload);
		out[n].op = op;
		aio_result_of(&s->aio, op, &out[n].aio);
		n++;
	}
	return n;
}

int attribute(const struct phase_figures *snap, const char *target,
	      const char *workload, struct attribution out[NR_OPS])
{
	int n = 0;

	for (int op = 0; op < NR_OPS; op++) {
		const struct layer_stat *sc = &snap->stats[LAYER_SYSCALL][op];
		struct attribution *a;
		struct layer_result *fs;
		uint64_t lower = 0, total;

		if (!sc->count)
			continue;
		a = &out[n++];
		memset(a, 0, sizeof(*a));
		snprintf(a->target, sizeof(a->target), "%s", target);
		snprintf(a->workload, sizeof(a->workload), "%s", workload);
		a->op = op;
		for (int l = 0; l < NR_LAYERS; l++)
			if (l != LAYER_FS)
				fill_layer(snap, l, op, &a->layers[l]);
		a->layers[LAYER_DEVICE].kernel_requests =
			snap->kernel_requests[op];
		a->missed_events = snap->missed_events;
		wait_result_from(&snap->wait, op, &a->wait);
		a->syscall_mean_ns = sc->sum_ns / sc->count;

		for (int i = 0; i < NR_LOWER; i++)
			lower += a->layers[lower_layers[i]].busy_ns;
		total = a->layers[LAYER_SYSCALL].busy_ns;

		/* fs is what the caller waited for that no lower layer
		 * explains: filesystem, page cache, and any layer we could
		 * not see. Per syscall, it has no histogram. */
		fs = &a->layers[LAYER_FS];
		fs->layer = LAYER_FS;
		snprintf(fs->source, sizeof(fs->source),
			 "derived: syscall minus lower layers");
		fs->state = snap->states.state[LAYER_FS][op];
		snprintf(fs->reason, sizeof(fs->reason), "%s",
			 snap->states.why[LAYER_FS][op]);
		fs->busy_ns = total > lower ? total - lower : 0;
		fs->sum_ns = fs->busy_ns;
		fs->count = sc->count;
		fs->mean_ns = fs->busy_ns / sc->count;

		/* >= 100 % by construction; above it where lower layers
		 * overlap each other or outlast the syscalls (writeback). */
		a->closure_pct = total ? 100.0 * (double)(fs->busy_ns + lower) /
						 (double)total
				       : 0.0;
	}
	return n;
}

/* ---- verdict -------------------------------------------------------- */

static double share_pct(const struct attribution *a, int l)
{
	uint64_t total = a->layers[LAYER_SYSCALL].busy_ns;

	return total ? 100.0 * (double)a->layers[l].busy_ns / (double)total
		     : 0.0;
}

/* What one item of a layer is, for "mean X per <item>". */
static const char *item_name(int l)
{
	switch (l) {
	case LAYER_DEVICE:
	case LAYER_BLK_QUEUE:
		return "request";
	case LAYER_CRYPT:
	case LAYER_CRYPT_QUEUE:
		return "work item";
	case LAYER_FS:
		return "syscall";
	}
	return "bio";
}

static bool crypt_missing(const struct attribution *a,
			  const struct target_info *t)
{
	return t && t->encrypted && !layer_has_figures(&a->layers[LAYER_CRYPT]);
}

static void summary_for(const struct attribution *a,
			const struct target_info *t, int dom, char *buf,
			size_t len)
{
	const struct layer_result *d = &a->layers[dom];
	const char *ops = op_plural(a->op);
	double pct = share_pct(a, dom);
	char mean[32];

	fmt_ns(mean, sizeof(mean), d->mean_ns);
	switch (dom) {
	case LAYER_CRYPT:
		if (t && t->encrypted && t->encryption.driver[0])
			snprintf(buf, len,
				 "%s are crypto-bound: %.0f %% in crypt, "
				 "cipher driver %s %s",
				 ops, pct, t->encryption.driver,
				 t->encryption.hw_accel
					 ? "uses hardware AES"
					 : "has no hardware AES");
		else
			snprintf(buf, len,
				 "%s are crypto-bound: %.0f %% in crypt "
				 "(mean %s per work item)",
				 ops, pct, mean);
		break;
	case LAYER_CRYPT_QUEUE:
		snprintf(buf, len,
			 "%s wait for crypto workers: %.0f %% in crypt-queue "
			 "(mean %s queued per work item), the crypto "
			 "workqueue is the bottleneck",
			 ops, pct, mean);
		break;
	case LAYER_DEVICE:
		snprintf(buf, len,
			 "%s are device-bound: %.0f %% in device (mean %s "
			 "per request)",
			 ops, pct, mean);
		break;
	case LAYER_BLK_QUEUE:
		/* fscrypt writeback encrypts page after page while its
		 * block plug holds the requests already built: unseen,
		 * the crypto time shows up as queueing. */
		if (crypt_missing(a, t))
			snprintf(buf, len,
				 "%s are block-queue-bound: %.0f %% in "
				 "blk-queue (mean %s per request), which on "
				 "this kernel includes crypto time: writeback "
				 "encrypts while it holds its block plug and "
				 "crypt for %s is %s (%.200s)",
				 ops, pct, mean, ops,
				 layer_state_name(a->layers[LAYER_CRYPT].state),
				 a->layers[LAYER_CRYPT].reason);
		else
			snprintf(buf, len,
				 "%s are block-queue-bound: %.0f %% in "
				 "blk-queue (mean %s per request before the "
				 "driver took it)",
				 ops, pct, mean);
		break;
	case LAYER_DM:
		snprintf(buf, len, "%s are device-mapper-bound: %.0f %% in dm",
			 ops, pct);
		break;
	case LAYER_DMCRYPT_WRITE:
		snprintf(buf, len,
			 "%s wait for dm-crypt's write thread: %.0f %% in "
			 "dmcrypt-write (mean %s per bio from encryption done "
			 "to its submission below), dm-crypt's own queueing, "
			 "not the cipher or the device",
			 ops, pct, mean);
		break;
	default:
		if (crypt_missing(a, t))
			snprintf(buf, len,
				 "%s are filesystem-bound: %.0f %% in fs, "
				 "which on this kernel includes the crypto "
				 "time (crypt for %s is %s (%.200s))",
				 ops, pct, ops,
				 layer_state_name(a->layers[LAYER_CRYPT].state),
				 a->layers[LAYER_CRYPT].reason);
		else
			snprintf(buf, len,
				 "%s are filesystem-bound: %.0f %% in fs "
				 "(filesystem and page cache work above the "
				 "block layer)",
				 ops, pct);
		break;
	}
}

void verdict_add_evidence(struct verdict *v, const char *fmt, ...)
{
	va_list ap;

	if (v->nr_evidence >= MAX_EVIDENCE)
		return;
	va_start(ap, fmt);
	vsnprintf(v->evidence[v->nr_evidence++], DETAIL_LEN, fmt, ap);
	va_end(ap);
}

void verdict_for(const struct attribution *a, const struct target_info *t,
		 struct verdict *out)
{
	const char *opn = op_name(a->op);
	int order[NR_LAYERS], n = 0, reserve, dom;
	char mean[32], total[32];

	memset(out, 0, sizeof(*out));
	snprintf(out->target, sizeof(out->target), "%s", a->target);
	snprintf(out->workload, sizeof(out->workload), "%s", a->workload);
	out->op = a->op;

	/* Layers below syscall with time, largest busy share first. */
	for (int l = LAYER_FS; l < NR_LAYERS; l++) {
		int i;

		/* dm contains the layers below it: it would always win. */
		if (l == LAYER_DM || !layer_has_figures(&a->layers[l]) ||
		    !a->layers[l].busy_ns)
			continue;
		for (i = n; i > 0 && a->layers[order[i - 1]].busy_ns <
					     a->layers[l].busy_ns;
		     i--)
			order[i] = order[i - 1];
		order[i] = l;
		n++;
	}
	if (!n || !a->layers[LAYER_SYSCALL].busy_ns) {
		snprintf(out->summary, sizeof(out->summary),
			 "%ss: no time was measured in any layer", opn);
		return;
	}
	dom = order[0];
	summary_for(a, t, dom, out->summary, sizeof(out->summary));

	/* Evidence: the layers by share, then the facts that explain them;
	 * keep room for those. */
	reserve = 1 + (t && t->encrypted) + crypt_missing(a, t);
	for (int i = 0; i < n && out->nr_evidence < MAX_EVIDENCE - reserve;
	     i++) {
		const struct layer_result *lr = &a->layers[order[i]];

		fmt_ns(mean, sizeof(mean), lr->mean_ns);
		fmt_ns(total, sizeof(total), lr->busy_ns);
		verdict_add_evidence(
			out,
			"%s: %.0f %% of %s time (%s busy), mean %s "
			"per %s over %llu",
			layer_name(order[i]), share_pct(a, order[i]), opn,
			total, mean, item_name(order[i]),
			(unsigned long long)lr->count);
	}
	if (t && t->encrypted)
		verdict_add_evidence(
			out, "cipher %s, driver %s (%s)",
			t->encryption.contents_cipher[0]
				? t->encryption.contents_cipher
				: "unknown",
			t->encryption.driver[0] ? t->encryption.driver
						: "unknown",
			t->encryption.hw_accel ? "hardware AES"
					       : "no hardware AES");
	if (crypt_missing(a, t))
		verdict_add_evidence(
			out, "crypt for %ss: %s (%.200s)", opn,
			layer_state_name(a->layers[LAYER_CRYPT].state),
			a->layers[LAYER_CRYPT].reason);
	fmt_ns(mean, sizeof(mean), a->syscall_mean_ns);
	verdict_add_evidence(out,
			     "closure: layers add up to %.0f %% of %s syscall "
			     "time (mean %s per syscall)",
			     a->closure_pct, opn, mean);
}
