// SPDX-License-Identifier: MIT
/*
 * The wait decomposition in the text report: per component, the time per
 * syscall and its share of the caller's time -- shares that add up to
 * 100 %, unlike the per-item latency table above it -- then the workers'
 * own run-queue waits.
 */
#include <inttypes.h>
#include <stdio.h>

#include "../common/fmt_time.h"
#include "report_priv.h"
#include "report.h"

/* idle: the part of waited spent for an idle CPU to wake. */
static void print_worker(const char *what, const char *per_what,
			 uint64_t waited, uint64_t idle, uint64_t per,
			 uint64_t items, FILE *out)
{
	char b[32], i[32];

	if (!items)
		return;
	fprintf(out,
		"  %s (whole phase): %" PRIu64
		" items, waited %s per %s for a CPU (%s of it for an idle "
		"CPU to wake)\n",
		what, items,
		fmt_ns(b, sizeof(b), per ? (double)waited / per : 0), per_what,
		fmt_ns(i, sizeof(i), per ? (double)idle / per : 0));
}

/* Whom the caller waited behind, by worker kind, then other tasks. */
static void print_behind(const struct wait_result *w, FILE *out)
{
	static const char *const who[NR_WORKER_KINDS + 1] = {
		[WORKER_CRYPT] = "crypto workers",
		[WORKER_DEVICE] = "the loop worker",
		[WORKER_DMCRYPT_WRITE] = "dm-crypt's write thread",
		[WORKER_ZFS_TASKQ] = "ZFS's taskq threads",
		[NR_WORKER_KINDS] = "other tasks",
	};
	uint64_t samples = 0;

	fprintf(out, "  cpu-wait behind:");
	for (int k = 0; k <= NR_WORKER_KINDS; k++) {
		samples += w->behind_samples[k];
		/* The kthreads' shares only where they ran. */
		if (k == WORKER_DMCRYPT_WRITE || k == WORKER_ZFS_TASKQ)
			if (!w->behind_samples[k] && !w->workers[k].items)
				continue;
		fprintf(out, "%s %s %.0f %%", k ? "," : "", who[k],
			100.0 * (double)w->cpu_wait_behind_ns[k] /
				(double)w->ns[LAYER_CPU_WAIT]);
	}
	fprintf(out, " (%" PRIu64 " samples); an idle CPU waking %.0f %%\n",
		samples,
		100.0 * (double)w->cpu_wait_idle_ns /
			(double)w->ns[LAYER_CPU_WAIT]);
}

/* The target's writeback workers: CPU time beside the caller's, never
 * a share of it. */
static void print_writeback(const struct wait_result *w, FILE *out)
{
	char c[32], f[32], r[32];

	if (!w->writeback.sampled)
		return;
	fprintf(out,
		"  writeback workers of the target (whole phase, not in the "
		"shares: the caller waited for them only where it blocked on "
		"writeback): on a CPU %s in cipher code, %s in the file "
		"system's writeback, runnable %s (%" PRIu64 " samples, %" PRIu64
		" in cipher code%s)\n",
		fmt_ns(c, sizeof(c), (double)w->writeback.crypt_ns),
		fmt_ns(f, sizeof(f), (double)w->writeback.fs_ns),
		fmt_ns(r, sizeof(r), (double)w->writeback.runq_ns),
		w->writeback.samples, w->writeback.crypt_samples,
		w->writeback.samples_nostack ? "; some without a stack" : "");
}

void report_print_wait(const struct attribution *a, FILE *out)
{
	const struct wait_result *w = &a->wait;
	double calls = (double)(w->syscalls ? w->syscalls : 1);
	uint64_t sum = 0;
	char b[32], e[32];

	if (!w->available) {
		fprintf(out, "  what the caller waited for: %s\n",
			w->source[0] ? w->source : "unavailable");
		return;
	}
	fprintf(out,
		"  what the caller waited for (shares of %" PRIu64 " calls' "
		"time; they add up):\n",
		w->syscalls);
	for (int l = LAYER_FS; l < NR_LAYERS; l++) {
		sum += w->ns[l];
		if (!w->ns[l])
			continue;
		fprintf(out, "  %-13s %9s per call %6.1f %%\n", layer_name(l),
			fmt_ns(b, sizeof(b), (double)w->ns[l] / calls),
			w->total_ns
				? 100.0 * (double)w->ns[l] / (double)w->total_ns
				: 0.0);
	}
	fprintf(out,
		"  sum %.1f %% of the calls' time; on a CPU %s per call, "
		"split by %" PRIu64 " samples (+-%s)",
		w->total_ns ? 100.0 * (double)sum / (double)w->total_ns : 0.0,
		fmt_ns(b, sizeof(b), (double)w->oncpu_ns / calls), w->samples,
		fmt_ns(e, sizeof(e), (double)w->sampling_err_ns / calls));
	if (w->samples_nostack)
		fprintf(out, "; %" PRIu64 " more without a stack, in no split",
			w->samples_nostack);
	fputc('\n', out);
	if (w->ns[LAYER_CPU_WAIT])
		print_behind(w, out);
	if (w->dmw_wakeups)
		fprintf(out,
			"  woken by dm-crypt's write thread itself: %" PRIu64
			" times, %s per call (%" PRIu64
			" along its clone's chain, the rest by its stack)\n",
			w->dmw_wakeups,
			fmt_ns(b, sizeof(b), (double)w->dmw_waker_ns / calls),
			w->dmw_chained);
	if (w->unresolved_ns)
		fprintf(out, "  waker not followed: %s per call (in fs)\n",
			fmt_ns(b, sizeof(b), (double)w->unresolved_ns / calls));
	print_worker("crypto workers", "item", w->workers[WORKER_CRYPT].runq_ns,
		     w->workers[WORKER_CRYPT].runq_idle_ns,
		     w->workers[WORKER_CRYPT].items,
		     w->workers[WORKER_CRYPT].items, out);
	/* A kthread draining a tree: per wakeup, not per clone. */
	print_worker("dm-crypt write thread", "wakeup",
		     w->workers[WORKER_DMCRYPT_WRITE].runq_ns,
		     w->workers[WORKER_DMCRYPT_WRITE].runq_idle_ns,
		     w->workers[WORKER_DMCRYPT_WRITE].runq_waits,
		     w->workers[WORKER_DMCRYPT_WRITE].items, out);
	print_worker("ZFS taskq threads", "wakeup",
		     w->workers[WORKER_ZFS_TASKQ].runq_ns,
		     w->workers[WORKER_ZFS_TASKQ].runq_idle_ns,
		     w->workers[WORKER_ZFS_TASKQ].runq_waits,
		     w->workers[WORKER_ZFS_TASKQ].items, out);
	/* Per request it served: the flushes are requests too. */
	print_worker("loop worker", "request",
		     w->workers[WORKER_DEVICE].runq_ns,
		     w->workers[WORKER_DEVICE].runq_idle_ns,
		     a->layers[LAYER_DEVICE].count + w->flush_reqs,
		     w->workers[WORKER_DEVICE].items, out);
	if (w->flush_reqs)
		fprintf(out,
			"  flush requests (whole phase, no data, not device "
			"items): %" PRIu64 ", %s each\n",
			w->flush_reqs,
			fmt_ns(b, sizeof(b),
			       (double)w->flush_ns / (double)w->flush_reqs));
	print_writeback(w, out);
	fprintf(out, "  source: %s\n", w->source);
}
