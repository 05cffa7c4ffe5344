// SPDX-License-Identifier: MIT
/*
 * The wait decomposition's arithmetic, pure functions over the results
 * model (unit-tested on hand-built snapshots): raw counters -> components
 * that add up to the syscalls' time, and the time one target adds over
 * the baseline, component by component.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"

/* part of ns in the proportion w / sum, rounded. */
static uint64_t share_of(uint64_t ns, uint64_t w, uint64_t sum)
{
	uint64_t v;

	if (!sum)
		return 0;
	v = (uint64_t)((double)ns * (double)w / (double)sum + 0.5);
	return v > ns ? ns : v;
}

/* cpu-wait that ended on a CPU leaving idle is no task's (idle CPUs are
 * never sampled as holders); the rest is split in the proportion of the
 * samples of what ran instead; with no sample, all of it behind
 * "other". Rounding goes to "other", so the parts and the idle wait add
 * up to ns[cpu-wait]. */
static void split_cpu_wait(const struct wait_stat *w, struct wait_result *out)
{
	uint64_t n = 0, behind, rest;

	out->cpu_wait_idle_ns = w->cpu_wait_idle_ns < out->ns[LAYER_CPU_WAIT]
					? w->cpu_wait_idle_ns
					: out->ns[LAYER_CPU_WAIT];
	behind = rest = out->ns[LAYER_CPU_WAIT] - out->cpu_wait_idle_ns;

	for (int k = 0; k <= NR_WORKER_KINDS; k++) {
		out->behind_samples[k] = w->behind_samples[k];
		n += w->behind_samples[k];
	}
	for (int k = 0; n && k < NR_WORKER_KINDS; k++) {
		out->cpu_wait_behind_ns[k] =
			(uint64_t)((double)behind *
				   (double)w->behind_samples[k] / (double)n);
		if (out->cpu_wait_behind_ns[k] > rest)
			out->cpu_wait_behind_ns[k] = rest;
		rest -= out->cpu_wait_behind_ns[k];
	}
	out->cpu_wait_behind_ns[NR_WORKER_KINDS] = rest;
	/* The writeback workers are among the other tasks. */
	out->behind_wb_samples =
		w->behind_wb_samples < w->behind_samples[NR_WORKER_KINDS]
			? w->behind_wb_samples
			: w->behind_samples[NR_WORKER_KINDS];
	out->cpu_wait_wb_ns = share_of(rest, out->behind_wb_samples,
				       w->behind_samples[NR_WORKER_KINDS]);
}

/*
 * The target's writeback workers, sampled apart from the callers: only
 * for op write, where BPF keeps them. Their on-CPU time is split as the
 * callers' is, in the proportion of the samples (not samples times the
 * period: a sampler can deliver fewer than its rate, as under QEMU's TCG,
 * where about 290 of 997 per second arrived); no sample, all of it fs.
 */
static void writeback_from(const struct wait_counts *ws, int op,
			   struct wait_result *out)
{
	uint64_t n = ws->wb_samples[op], k = ws->wb_crypt_samples[op];
	uint64_t on = ws->ops[op].wb_oncpu_ns, crypt = 0;

	if (op != EB_OP_WRITE || !ws->wb_sampled)
		return;
	if (k > n)
		k = n;
	if (n)
		crypt = (uint64_t)((double)on * (double)k / (double)n + 0.5);
	if (crypt > on)
		crypt = on;
	out->writeback.sampled = true;
	out->writeback.samples = n;
	out->writeback.crypt_samples = k;
	out->writeback.samples_nostack = ws->ops[op].wb_samples_nostack;
	out->writeback.crypt_stack_samples = ws->wb_crypt_stack_samples[op];
	out->writeback.oncpu_ns = on;
	out->writeback.runq_ns = ws->ops[op].wb_runq_ns;
	out->writeback.crypt_ns = crypt;
	out->writeback.fs_ns = on - crypt;
}

/*
 * What a group of the target's writeback workers did over the phase (op
 * write's counters): on a CPU (crypt_on of it in cipher code, by the
 * samples), runnable, and blocked (layer[]: the part their wakers'
 * chains told, by layer; the rest is device).
 */
struct wb_pool {
	uint64_t on, crypt_on, runq, blocked;
	const unsigned long long *layer;
};

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * The blocked part of the unwoken time, split as the pool's blocked time
 * was by its wakers' chains (a completion of the target's request:
 * dm-delay's hold on a journal write is dm's, not the device's); what no
 * chain told is device, as ever: their requests, request slots.
 */
static void share_blocked(const struct wb_pool *p, uint64_t blocked,
			  struct wait_result *out)
{
	uint64_t left = blocked, part;

	for (int l = LAYER_FS; l < NR_LAYERS; l++) {
		if (l == LAYER_DEVICE || !p->layer[l])
			continue;
		part = share_of(blocked, p->layer[l], p->blocked);
		if (part > left)
			part = left;
		out->unwoken.blocked_ns[l] += part;
		out->ns[l] += part;
		left -= part;
	}
	out->unwoken.blocked_ns[LAYER_DEVICE] += left;
	out->unwoken.device_ns += left;
	out->ns[LAYER_DEVICE] += left;
}

/* All of what pool p did: the wall time its parts share out. */
static uint64_t pool_sum(const struct wb_pool *p)
{
	return p->on + p->runq + p->blocked;
}

/* ns shared out in the proportion of what pool p did (pool_sum > 0).
 * Rounding goes to fs, so the parts add up to ns. */
static void pool_share(const struct wb_pool *p, uint64_t ns,
		       struct wait_result *out)
{
	uint64_t sum = pool_sum(p);
	uint64_t crypt = share_of(ns, p->crypt_on, sum);
	uint64_t runq = share_of(ns, p->runq, sum);
	uint64_t blocked = share_of(ns, p->blocked, sum);

	/* Each share is rounded on its own: a tie can make them one more
	 * than ns, taken from runq, then crypt (never below 0). */
	if (crypt > ns - blocked)
		crypt = ns - blocked;
	if (crypt + runq > ns - blocked)
		runq = ns - blocked - crypt;
	out->unwoken.crypt_ns += crypt;
	out->unwoken.runq_ns += runq;
	out->unwoken.fs_ns += ns - crypt - runq - blocked;
	out->ns[LAYER_CRYPT] += crypt;
	out->ns[LAYER_FS] += ns - crypt - runq - blocked;
	out->ns[LAYER_CPU_WAIT] += runq;
	share_blocked(p, blocked, out);
}

/*
 * Blocked time with no useful waker: the flusher ending the work the
 * caller waited for, or jbd2 the journal commit (its waker was a
 * writeback worker of the target), a timer, a writeback completion of no
 * request of ours. What the caller waited for is what the target's writeback
 * was doing meanwhile, so the time is shared out in the proportion of the
 * writeback workers' time over the phase (op write's counters, whatever op
 * waited): on a CPU in cipher code and in the file system (by their samples),
 * runnable, and blocked (split as the workers' own blocked time was, by its
 * wakers' chains: share_blocked). The part jbd2 woke is shared out by
 * jbd2's own time alone where it was kept apart (a flusher blocked
 * meanwhile on something else is not what a commit's waiter waited
 * for). Writeback not seen: all of it fs.
 */
static void share_unwoken(const struct wait_counts *ws, int op,
			  uint64_t silent_ns, struct wait_result *out)
{
	const struct wait_stat *wb = &ws->ops[EB_OP_WRITE];
	uint64_t ns = ws->ops[op].wb_waker_ns + silent_ns;
	uint64_t n = ws->wb_samples[EB_OP_WRITE];
	uint64_t k = ws->wb_crypt_samples[EB_OP_WRITE];
	uint64_t journal = ws->ops[op].jbd2_waker_ns;
	struct wb_pool all = {.on = wb->wb_oncpu_ns,
			      .runq = wb->wb_runq_ns,
			      .blocked = wb->wb_blocked_ns,
			      .layer = wb->wb_blocked_layer_ns};
	/* jbd2's part, no more than the whole (a bad snapshot). */
	struct wb_pool jbd2 = {
		.on = min_u64(wb->jbd2_oncpu_ns, wb->wb_oncpu_ns),
		.runq = min_u64(wb->jbd2_runq_ns, wb->wb_runq_ns),
		.blocked = min_u64(wb->jbd2_blocked_ns, wb->wb_blocked_ns),
		.layer = wb->jbd2_blocked_layer_ns};

	/* jbd2's wakeups are a part of the writeback workers'. */
	if (journal > ws->ops[op].wb_waker_ns)
		journal = ws->ops[op].wb_waker_ns;
	out->unwoken.journal_ns = journal;
	out->unwoken.flusher_ns = ws->ops[op].wb_waker_ns - journal;
	out->unwoken.other_ns = silent_ns;
	if (!ns)
		return;
	if (ws->wb_sampled && n) {
		all.crypt_on = share_of(all.on, min_u64(k, n), n);
		jbd2.crypt_on = share_of(jbd2.on, min_u64(k, n), n);
	}
	if (!pool_sum(&all)) {
		out->unwoken.fs_ns = ns;
		out->ns[LAYER_FS] += ns;
		return;
	}
	out->unwoken.shared = true;
	if (journal && pool_sum(&jbd2)) {
		out->unwoken.journal_by_jbd2 = true;
		pool_share(&jbd2, journal, out);
		ns -= journal;
	}
	if (ns)
		pool_share(&all, ns, out);
}

/* Why the caller blocked, and what of its blocked time the stacks do
 * not say (not taken, or intervals under WAIT_WHY_MIN_NS). */
static void why_from(const struct wait_counts *ws, int op,
		     struct wait_result *out)
{
	for (int r = 0; r < NR_BLOCK_REASONS; r++)
		out->why_ns[r] = ws->why_stack_ns[op][r];
	out->why_nostack_ns = ws->ops[op].why_nostack_ns;
	out->why_short_ns = ws->ops[op].why_short_ns;
	out->arc.measured = ws->arc.measured;
	out->arc.hits = ws->arc.hits;
	out->arc.misses = ws->arc.misses;
	out->arc.data_hits = ws->arc.data_hits;
	out->arc.data_misses = ws->arc.data_misses;
}

uint64_t wait_sampled_write_crypt_ns(const struct wait_counts *ws)
{
	static const int ops[] = {EB_OP_WRITE, EB_OP_SYNC, EB_OP_COPY};
	struct wait_result r;
	uint64_t sum = 0;

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		wait_result_from(ws, ops[i], &r);
		sum += r.oncpu_crypt_ns + r.writeback.crypt_ns;
	}
	return sum;
}

/* Who held the CPUs while op's callers were runnable: their samples'
 * time at the sampling rate. */
static void cpu_holders_from(const struct wait_counts *ws, int op,
			     struct wait_result *out)
{
	int n = ws->nr_holders[op];

	out->nr_cpu_holders = n < TOP_CPU_HOLDERS ? n : TOP_CPU_HOLDERS;
	for (int i = 0; i < out->nr_cpu_holders; i++) {
		out->cpu_holders[i] = ws->holders[op][i];
		out->cpu_holders[i].ns =
			ws->sample_hz > 0 ? out->cpu_holders[i].samples *
						    (1000000000ULL /
						     (uint64_t)ws->sample_hz)
					  : 0;
	}
}

void wait_result_from(const struct wait_counts *ws, int op,
		      struct wait_result *out)
{
	const struct wait_stat *w;
	uint64_t crypt_waker, silent, on, on_crypt = 0;

	memset(out, 0, sizeof(*out));
	if (!ws->available || op < 0 || op >= NR_OPS) {
		snprintf(out->source, sizeof(out->source), "unavailable: %s",
			 ws->source[0] ? ws->source : "not traced");
		return;
	}
	w = &ws->ops[op];
	out->available = true;
	snprintf(out->source, sizeof(out->source), "%s", ws->source);
	out->syscalls = w->syscalls;
	out->total_ns = w->total_ns;
	cpu_holders_from(ws, op, out);
	for (int l = LAYER_FS; l < NR_LAYERS; l++)
		out->ns[l] = w->ns[l];
	/* Blocked time whose waker ran in crypto code is crypt; a waker
	 * that says nothing (a timer, a writeback completion) is shared out
	 * with the flusher's wakeups by what writeback did; any other
	 * waker (the journal, locks) is the file system's. */
	crypt_waker = ws->waker_crypt_ns[op] < w->waker_stack_ns
			      ? ws->waker_crypt_ns[op]
			      : w->waker_stack_ns;
	silent = ws->waker_silent_ns[op] < w->waker_stack_ns - crypt_waker
			 ? ws->waker_silent_ns[op]
			 : w->waker_stack_ns - crypt_waker;
	out->ns[LAYER_CRYPT] += crypt_waker;
	out->ns[LAYER_FS] += w->waker_stack_ns - crypt_waker - silent;

	/* On-CPU time split in the proportion of the samples; its error is
	 * that of a binomial proportion. No samples: all of it uncertain. */
	on = w->oncpu_ns;
	out->samples = ws->samples[op];
	out->crypt_samples = ws->crypt_samples[op] < out->samples
				     ? ws->crypt_samples[op]
				     : out->samples;
	out->crypt_stack_samples = ws->crypt_stack_samples[op];
	out->samples_nostack = w->samples_nostack;
	if (out->samples) {
		double n = (double)out->samples;
		double p = (double)out->crypt_samples / n;
		/* For the error, p pulled off 0 and 1 (Agresti-Coull's +1
		 * sample each way): no crypt sample in 30 is not a proof
		 * that none of the time was crypt. */
		double pe = ((double)out->crypt_samples + 1.0) / (n + 2.0);

		on_crypt = (uint64_t)((double)on * p + 0.5);
		if (on_crypt > on)
			on_crypt = on;
		out->sampling_err_ns =
			(uint64_t)((double)on * sqrt(pe * (1 - pe) / n));
	} else {
		out->sampling_err_ns = ws->sampled ? on : 0;
	}
	out->oncpu_ns = on;
	out->oncpu_crypt_ns = on_crypt;
	out->ns[LAYER_CRYPT] += on_crypt;
	out->ns[LAYER_FS] += on - on_crypt;
	out->unresolved_ns = w->unresolved_ns;
	split_cpu_wait(w, out);
	/* After the caller's own cpu-wait is split by whom it waited
	 * behind: writeback's run-queue wait is not the caller's. */
	share_unwoken(ws, op, silent, out);
	why_from(ws, op, out);
	if (out->unwoken.shared)
		snprintf(out->source + strlen(out->source),
			 sizeof(out->source) - strlen(out->source),
			 "; blocked time with no useful waker (the flusher, a "
			 "timer, a writeback completion) shared out by what "
			 "the target's writeback workers did over the phase: "
			 "cipher code, file system, runnable, blocked on their "
			 "requests");
	out->dev_bytes = w->dev_bytes;
	out->zfs_wakeups = w->zfs_wakeups;
	out->zfs_crypt_ns = w->zfs_crypt_ns;
	out->zfs_device_ns = w->zfs_device_ns;
	out->zfs_pipeline_ns = w->zfs_pipeline_ns;
	out->dmw_wakeups = w->dmw_wakeups;
	out->dmw_waker_ns = w->dmw_waker_ns;
	out->dmw_chained = w->dmw_chained;
	out->flush_reqs = ws->ops[EB_OP_WRITE].flush_reqs;
	out->flush_ns = ws->ops[EB_OP_WRITE].flush_ns;
	writeback_from(ws, op, out);
	for (int k = 0; k < NR_WORKER_KINDS; k++) {
		out->workers[k].items = ws->workers[k].items;
		out->workers[k].runq_ns = ws->workers[k].runq_ns;
		out->workers[k].runq_waits = ws->workers[k].runq_waits;
		out->workers[k].oncpu_ns = ws->workers[k].oncpu_ns;
		out->workers[k].bytes = ws->workers[k].bytes;
		out->workers[k].bytes_oncpu_ns = ws->workers[k].bytes_oncpu_ns;
		out->workers[k].runq_idle_ns =
			ws->workers[k].runq_idle_ns < ws->workers[k].runq_ns
				? ws->workers[k].runq_idle_ns
				: ws->workers[k].runq_ns;
	}
	out->nr_cpus = ws->nr_cpus;
}

uint64_t wait_sum_ns(const struct wait_result *w)
{
	uint64_t sum = 0;

	for (int l = LAYER_FS; l < NR_LAYERS; l++)
		sum += w->ns[l];
	return sum;
}

double wait_per_call(const struct wait_result *w, uint64_t ns)
{
	return w && w->syscalls ? (double)ns / (double)w->syscalls : 0.0;
}

/* Mean per syscall of component l (-1: all), in ns. */
static double per_call(const struct wait_result *w, int l)
{
	return w ? wait_per_call(w, l < 0 ? w->total_ns : w->ns[l]) : 0.0;
}

/* Mean per syscall of the cpu-wait behind workers of kind k, in ns. */
static double behind_per_call(const struct wait_result *w, int k)
{
	return w ? wait_per_call(w, w->cpu_wait_behind_ns[k]) : 0.0;
}

double wait_added_behind(const struct wait_result *t,
			 const struct wait_result *base, int kind)
{
	return behind_per_call(t, kind) - behind_per_call(base, kind);
}

/* Per call, the part of w's cpu-wait behind the target's writeback
 * workers that they spent in cipher code: by their on-CPU time's share
 * of it (writeback_from), as they held the CPU. */
static double wb_crypt_held(const struct wait_result *w)
{
	if (!w || !w->writeback.sampled || !w->writeback.oncpu_ns)
		return 0.0;
	return wait_per_call(w, w->cpu_wait_wb_ns) *
	       (double)w->writeback.crypt_ns / (double)w->writeback.oncpu_ns;
}

double wait_added_crypt_held(const struct wait_result *t,
			     const struct wait_result *base)
{
	return wait_added_behind(t, base, WORKER_CRYPT) + wb_crypt_held(t) -
	       wb_crypt_held(base);
}

double wait_added_idle(const struct wait_result *t,
		       const struct wait_result *base)
{
	return (t ? wait_per_call(t, t->cpu_wait_idle_ns) : 0.0) -
	       (base ? wait_per_call(base, base->cpu_wait_idle_ns) : 0.0);
}

uint64_t wait_runq_busy(const struct wait_result *w, int kind)
{
	uint64_t q = w->workers[kind].runq_ns,
		 idle = w->workers[kind].runq_idle_ns;

	return q > idle ? q - idle : 0;
}

double wait_added(const struct wait_result *t, const struct wait_result *base,
		  double added[NR_LAYERS])
{
	for (int l = 0; l < NR_LAYERS; l++)
		added[l] = l == LAYER_SYSCALL
				   ? 0.0
				   : per_call(t, l) - per_call(base, l);
	return per_call(t, -1) - per_call(base, -1);
}
