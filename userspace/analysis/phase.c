// SPDX-License-Identifier: MIT
/*
 * A snapshot's figures as the analysis reads them: the tracer's plan
 * (each layer's source and state) adjusted to what the phase's target
 * has and what this kernel let the tracer see, and the layers whose
 * figures come from elsewhere -- dm-crypt's writes on its workqueue, write
 * crypt from CPU samples, ZFS's own encryption.
 */
#include <stdio.h>
#include <string.h>

#include "analysis.h"

/* The source texts name the method as the tracer's plan does. */
#define ENC_SAMPLES_NAME "cpu samples"

/* dm-crypt encrypts writes on its workqueue too: with a dm device in the
 * target, crypt sees writes without fentry/kprobe. */
static bool dm_write_seen(const struct snapshot *s, struct phase_figures *f)
{
	const struct snap_tracer *t = &s->tracer;
	struct layer_states *ls = &f->states;

	if (!t->has_dm || !t->have_kcryptd ||
	    (ls->state[LAYER_CRYPT][EB_OP_WRITE] != LAYER_UNAVAILABLE &&
	     strcmp(t->write_enc, ENC_SAMPLES_NAME)) ||
	    ls->state[LAYER_CRYPT][EB_OP_READ] == LAYER_UNAVAILABLE)
		return false;
	layer_states_set(ls, LAYER_CRYPT, EB_OP_WRITE,
			 ls->state[LAYER_CRYPT][EB_OP_READ],
			 ls->why[LAYER_CRYPT][EB_OP_READ]);
	snprintf(f->sources[LAYER_CRYPT], DETAIL_LEN, "%s",
		 t->crypt_source_dm_write);
	return true;
}

static void dm_applicable(const struct snapshot *s, struct phase_figures *f)
{
	size_t n;

	if (!s->tracer.has_dm) {
		layer_states_set(&f->states, LAYER_DM, -1, LAYER_NOT_APPLICABLE,
				 "no device-mapper device in the target");
		snprintf(f->sources[LAYER_DM], DETAIL_LEN, "not applicable: %s",
			 f->states.why[LAYER_DM][0]);
		return;
	}
	if (!strcmp(s->tracer.dmx, "none"))
		return;
	n = strlen(f->sources[LAYER_CRYPT]);
	snprintf(f->sources[LAYER_CRYPT] + n, DETAIL_LEN - n,
		 "; %s:kcryptd_crypt_{read,write}_convert (dm-crypt "
		 "without workqueue)",
		 s->tracer.dmx);
}

/* dmcrypt-write exists only for a dm-crypt device whose writes go
 * through its write thread. */
static void dmw_applicable(const struct snapshot *s, struct phase_figures *f)
{
	const char *why = NULL;
	int op = -1;

	if (!s->tracer.has_dm || !s->tracer.dmcrypt) {
		why = "no dm-crypt device in the target";
	} else if (s->tracer.dmcrypt_no_write_thread) {
		/* The other ops are not applicable already (the plan). */
		op = EB_OP_WRITE;
		why = "no_write_workqueue is active: dm-crypt submits each "
		      "encrypted write itself, it never waits for the "
		      "dmcrypt_write thread";
	}
	if (!why)
		return;
	layer_states_set(&f->states, LAYER_DMCRYPT_WRITE, op,
			 LAYER_NOT_APPLICABLE, why);
	snprintf(f->sources[LAYER_DMCRYPT_WRITE], DETAIL_LEN,
		 "not applicable: %s", why);
}

static void no_devices(struct phase_figures *f)
{
	for (int l = LAYER_BLK_QUEUE; l <= LAYER_DEVICE; l++) {
		snprintf(f->sources[l], DETAIL_LEN,
			 "not applicable: the target has no block device of "
			 "its own (its I/O goes through the filesystem of a "
			 "file)");
		layer_states_set(&f->states, l, -1, LAYER_NOT_APPLICABLE,
				 "the target has no block device of its own");
	}
}

/* x ns as a count: a file's figures may be anything. */
static uint64_t ns_of(double x)
{
	if (!(x > 0))
		return 0;
	return x < 1.8e19 ? (uint64_t)x : UINT64_MAX;
}

/* CPU time ns as a layer's figures: no calls, no latencies; samples of
 * several CPUs can outrun the wall clock, busy time cannot. */
static void cpu_time_stat(struct layer_stat *st, double ns, double wall_s)
{
	st->sum_ns = ns_of(ns);
	st->busy_ns = ns < wall_s * 1e9 ? ns_of(ns) : ns_of(wall_s * 1e9);
}

/*
 * Neither fentry nor kprobe sees fscrypt's write-side encryption: crypt
 * for writes is the CPU time of the samples in cipher code, of the
 * callers (write, sync, copy) and of the kworkers writing the target back
 * (where fscrypt encrypts what the callers leave to writeback).
 */
static void write_crypt_from_samples(struct phase_figures *f)
{
	struct layer_stat *st = &f->stats[LAYER_CRYPT][EB_OP_WRITE];

	memset(st, 0, sizeof(*st));
	cpu_time_stat(st, (double)wait_sampled_write_crypt_ns(&f->wait),
		      f->wall_s);
}

/*
 * Without the kprobes, ZFS's crypt from CPU samples: those of its
 * z_rd_*|z_wr_* taskq threads and of the callers in cipher code, times
 * the sampling period. CPU time only: no calls, no latencies.
 */
static void zfs_from_samples(const struct snapshot *s, struct phase_figures *f)
{
	const struct wait_counts *w = &f->wait;
	char why[DETAIL_LEN];
	uint64_t n = 0;

	if (!w->sampled || w->sample_hz <= 0) {
		snprintf(why, sizeof(why),
			 "%.200s; no CPU samples either: %.200s", s->zfs.why,
			 s->wait.sample_why);
		snprintf(f->sources[LAYER_CRYPT], DETAIL_LEN, "unavailable: %s",
			 why);
		layer_states_set(&f->states, LAYER_CRYPT, -1, LAYER_UNAVAILABLE,
				 why);
		return;
	}
	snprintf(why, sizeof(why),
		 "%.200s: ZFS's CPU time in cipher code from CPU samples, no "
		 "per-call latencies",
		 s->zfs.why);
	layer_states_set(&f->states, LAYER_CRYPT, -1, LAYER_FALLBACK, why);
	for (int op = 0; op < NR_OPS; op++) {
		uint64_t k = w->zfs_crypt_samples[op] + w->crypt_samples[op];

		n += k;
		cpu_time_stat(&f->stats[LAYER_CRYPT][op],
			      (double)k * 1e9 / w->sample_hz, f->wall_s);
	}
	snprintf(f->sources[LAYER_CRYPT], DETAIL_LEN,
		 "cpu samples: ZFS cipher code (ICP gcm_/ccm_/aes, zio_crypt_, "
		 "spa_do_crypt_) in z_rd_*/z_wr_* taskq threads and the "
		 "callers at %d Hz per CPU, %llu samples, times the period "
		 "(CPU time, not latency)",
		 w->sample_hz, (unsigned long long)n);
}

/* Which threads did ZFS's crypto of op, as a phrase for the source. */
static void zfs_workers(const struct snapshot *s, int op, char *buf, size_t len)
{
	static const char *const names[ZFS_NR_WORKERS] = {
		[ZFS_WORKER_CALLER] = "outside ZFS's taskqs",
		[ZFS_WORKER_RD] = "in z_rd_* taskq threads",
		[ZFS_WORKER_WR] = "in z_wr_* taskq threads",
		[ZFS_WORKER_OTHER_TASKQ] = "in other z_* taskq threads",
	};
	uint64_t total = 0;
	int best = 0;

	for (int w = 0; w < ZFS_NR_WORKERS; w++) {
		total += s->zfs.workers[w][op];
		if (s->zfs.workers[w][op] > s->zfs.workers[best][op])
			best = w;
	}
	if (!total) {
		buf[0] = '\0';
		return;
	}
	snprintf(buf, len, "%.0f %% %s",
		 100.0 * (double)s->zfs.workers[best][op] / (double)total,
		 names[best]);
}

/* A ZFS target's crypt is ZFS's own, not the kernel crypto work the main
 * programs see (ZFS uses neither workqueues nor the crypto API). */
static void zfs_overlay(const struct snapshot *s, struct phase_figures *f)
{
	char rd[DETAIL_LEN / 2], wr[DETAIL_LEN / 2];

	snprintf(f->sources[LAYER_CRYPT_QUEUE], DETAIL_LEN,
		 "not measured: ZFS queues its encryption in its own taskqs "
		 "(z_wr_iss, z_rd_int), not on a workqueue");
	layer_states_set(&f->states, LAYER_CRYPT_QUEUE, -1, LAYER_NOT_MEASURED,
			 "ZFS queues its encryption in its own taskqs");
	memset(f->stats[LAYER_CRYPT_QUEUE], 0,
	       sizeof(f->stats[LAYER_CRYPT_QUEUE]));
	memset(f->stats[LAYER_CRYPT], 0, sizeof(f->stats[LAYER_CRYPT]));
	if (!s->zfs.probes) {
		zfs_from_samples(s, f);
		return;
	}
	memcpy(f->stats[LAYER_CRYPT], s->zfs.crypt, sizeof(s->zfs.crypt));
	layer_states_set(&f->states, LAYER_CRYPT, -1, LAYER_MEASURED, "");
	zfs_workers(s, EB_OP_READ, rd, sizeof(rd));
	zfs_workers(s, EB_OP_WRITE, wr, sizeof(wr));
	snprintf(f->sources[LAYER_CRYPT], DETAIL_LEN,
		 "kprobe:spa_do_crypt_abd (ZFS encryption, the target's "
		 "datasets%s%s%s%s)",
		 rd[0] ? "; read: " : "", rd, wr[0] ? "; write: " : "", wr);
}

/*
 * The workload timed its calls (snap_tracer.calls_by): no syscall
 * tracepoint saw them end, so the caller's on-CPU time inside them was
 * not counted. It is what the workload timed less what the blocked and
 * runnable intervals counted (every interval goes to exactly one of
 * ns[], waker_stack_ns, wb_waker_ns, oncpu_ns: the split still adds up
 * to the calls' time by construction). Where the intervals counted more
 * than the workload timed (a traced process's own reads beside its
 * jobs'), the on-CPU time is 0 and the excess stays visible as a
 * closure above 100 %.
 */
static void calls_by_workload(const struct snapshot *s, struct phase_figures *f)
{
	snprintf(f->sources[LAYER_SYSCALL], DETAIL_LEN,
		 "%s; no syscall tracepoint attached (the on-CPU part of the "
		 "wait split is that time less the blocked and runnable "
		 "intervals, which sched_switch gave the call it read from "
		 "the task's saved registers)",
		 s->tracer.calls_by);
	for (int op = 0; op < NR_OPS; op++) {
		struct wait_stat *w = &f->wait.ops[op];
		uint64_t counted = w->waker_stack_ns + w->wb_waker_ns;

		for (int l = 0; l < NR_LAYERS; l++)
			counted += w->ns[l];
		w->oncpu_ns = w->total_ns > counted ? w->total_ns - counted : 0;
	}
}

void phase_figures_of(const struct snapshot *s, struct phase_figures *f)
{
	bool dm_write;

	memset(f, 0, sizeof(*f));
	memcpy(f->stats, s->stats, sizeof(f->stats));
	memcpy(f->sources, s->sources, sizeof(f->sources));
	f->states = s->states;
	f->wall_s = s->wall_s;
	memcpy(f->kernel_requests, s->kernel_requests,
	       sizeof(f->kernel_requests));
	f->missed_events = s->missed_events;
	wait_counts_of(s, &f->wait);
	dm_write = dm_write_seen(s, f);
	dm_applicable(s, f);
	dmw_applicable(s, f);
	if (s->tracer.no_devices)
		no_devices(f);
	/* The samples are the write side's only measure here. */
	if (!strcmp(s->tracer.write_enc, ENC_SAMPLES_NAME) && !dm_write)
		write_crypt_from_samples(f);
	if (s->tracer.nr_zfs_objsets)
		zfs_overlay(s, f);
	if (s->tracer.calls_by[0])
		calls_by_workload(s, f);
}
