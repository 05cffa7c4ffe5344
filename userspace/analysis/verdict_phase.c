// SPDX-License-Identifier: MIT
/*
 * The write phase as one: a workload's write() and fsync() calls
 * together, per MiB that reached the device. Where a write penalty is
 * paid depends on the room: with free space short, ext4 makes the writer
 * wait in write() for writeback (ext4_nonda_switch); with room, the
 * writes only dirty the page cache and the fsync writes (and on fscrypt
 * encrypts) it all. Per call, the penalty moves from one line to the
 * other; per MiB of the phase, it stays. So the phase is the headline of
 * the write verdict, and the per-call verdicts are its details. Pure: it
 * merges attributions and formats a verdict.
 */
#include <stdio.h>
#include <string.h>

#include "../common/fmt_time.h"
#include "analysis.h"

#define MiB (1024.0 * 1024.0)

int holder_merge(struct cpu_holder *top, int n, const struct cpu_holder *h)
{
	int i;

	for (i = 0; i < n; i++)
		if (top[i].pid == h->pid) {
			top[i].samples += h->samples;
			top[i].ns += h->ns;
			break;
		}
	if (i == n) {
		if (n == TOP_CPU_HOLDERS && top[n - 1].samples >= h->samples)
			return n;
		if (n < TOP_CPU_HOLDERS)
			n++;
		i = n - 1;
		top[i] = *h;
	}
	for (; i > 0 && top[i - 1].samples < top[i].samples; i--) {
		struct cpu_holder x = top[i - 1];

		top[i - 1] = top[i];
		top[i] = x;
	}
	return n;
}

/* The device layer of both calls: requests, and their mean. */
static void device_merge(struct layer_result *d, const struct layer_result *s)
{
	uint64_t n = d->count + s->count;

	if (n)
		d->mean_ns =
			(d->mean_ns * d->count + s->mean_ns * s->count) / n;
	d->count = n;
	d->sum_ns += s->sum_ns;
	d->busy_ns += s->busy_ns;
}

/*
 * w and s (its fsync) of one target as one attribution whose "calls"
 * are the MiB the two moved to the device: the components add up, and
 * everything per call becomes per MiB. The workers' figures are the
 * phase's already (the same in both). false without bytes.
 */
static bool phase_merge(const struct attribution *w,
			const struct attribution *s, struct attribution *m)
{
	const struct wait_result *sw = &s->wait;
	struct wait_result *mw = &m->wait;
	uint64_t bytes = w->wait.dev_bytes + sw->dev_bytes;

	if (!w->wait.available || !sw->available || bytes < MiB)
		return false;
	*m = *w;
	mw->syscalls = (uint64_t)((double)bytes / MiB + 0.5);
	mw->total_ns += sw->total_ns;
	for (int l = 0; l < NR_LAYERS; l++)
		mw->ns[l] += sw->ns[l];
	mw->oncpu_ns += sw->oncpu_ns;
	mw->oncpu_crypt_ns += sw->oncpu_crypt_ns;
	mw->samples += sw->samples;
	mw->crypt_samples += sw->crypt_samples;
	mw->crypt_stack_samples += sw->crypt_stack_samples;
	mw->samples_nostack += sw->samples_nostack;
	mw->sampling_err_ns += sw->sampling_err_ns;
	mw->unresolved_ns += sw->unresolved_ns;
	mw->dev_bytes = bytes;
	for (int k = 0; k <= NR_WORKER_KINDS; k++) {
		mw->behind_samples[k] += sw->behind_samples[k];
		mw->cpu_wait_behind_ns[k] += sw->cpu_wait_behind_ns[k];
	}
	mw->cpu_wait_idle_ns += sw->cpu_wait_idle_ns;
	mw->behind_wb_samples += sw->behind_wb_samples;
	mw->cpu_wait_wb_ns += sw->cpu_wait_wb_ns;
	for (int i = 0; i < sw->nr_cpu_holders; i++)
		mw->nr_cpu_holders =
			holder_merge(mw->cpu_holders, mw->nr_cpu_holders,
				     &sw->cpu_holders[i]);
	device_merge(&m->layers[LAYER_DEVICE], &s->layers[LAYER_DEVICE]);
	return true;
}

/* "write() 1.2 ms per call (+30 % over the baseline's 0.9 ms)". */
static size_t per_call(char *buf, size_t len, const char *call,
		       const struct attribution *a, const struct attribution *b)
{
	double t = wait_per_call(&a->wait, a->wait.total_ns);
	double bt = b ? wait_per_call(&b->wait, b->wait.total_ns) : 0.0;
	char x[32], y[32];

	fmt_ns(x, sizeof(x), t);
	if (bt <= 0)
		return (size_t)snprintf(buf, len, "%s %s per call (%llu calls)",
					call, x,
					(unsigned long long)a->wait.syscalls);
	fmt_ns(y, sizeof(y), bt);
	return (size_t)snprintf(buf, len,
				"%s %s per call (%+.0f %% over %s's %s)", call,
				x, 100.0 * (t - bt) / bt, b->target, y);
}

/* Where the phase's time went per call: the details under the headline. */
static void per_call_line(const struct attribution *w,
			  const struct attribution *s,
			  const struct attribution *bw,
			  const struct attribution *bs, uint64_t mib,
			  struct verdict *out)
{
	char line[DETAIL_LEN];
	size_t n = (size_t)snprintf(line, sizeof(line),
				    "the write phase is write() and fsync() "
				    "together per MiB (%llu MiB reached the "
				    "device); per call: ",
				    (unsigned long long)mib);

	if (n < sizeof(line))
		n += per_call(line + n, sizeof(line) - n, "write()", w, bw);
	if (n < sizeof(line))
		n += (size_t)snprintf(line + n, sizeof(line) - n, ", ");
	if (n < sizeof(line))
		per_call(line + n, sizeof(line) - n, "fsync()", s, bs);
	verdict_add_evidence(out, "%s", line);
}

/* When write() itself waited for the writeback that encrypts (ext4 short
 * of free space: verdict_why.c's reading of its blocked stacks), the
 * per-call verdict is the story and the phase's goes under it. */
static bool write_waited_for_writeback(const struct verdict *v)
{
	return strstr(v->summary, "is waiting for writeback (mostly") ||
	       strstr(v->summary, "wait for writeback: ");
}

/* line as v's first evidence, the others after it (the last dropped
 * when full). */
static void evidence_first(struct verdict *v, const char *line)
{
	int n = v->nr_evidence < MAX_EVIDENCE ? v->nr_evidence
					      : MAX_EVIDENCE - 1;

	memmove(v->evidence[1], v->evidence[0], (size_t)n * DETAIL_LEN);
	snprintf(v->evidence[0], DETAIL_LEN, "%s", line);
	v->nr_evidence = n + 1;
}

void verdict_write_phase(const struct attribution *w,
			 const struct attribution *s,
			 const struct attribution *bw,
			 const struct attribution *bs,
			 const struct target_info *t, bool cpu_aes,
			 struct verdict *v)
{
	static const struct verdict_unit per_mib = {
		"MiB", "writes with their fsync", "the write phase's time",
		false};
	struct attribution m, mb;
	const struct attribution *b = NULL;
	struct verdict pv;

	if (!w || !s || !phase_merge(w, s, &m))
		return;
	if (bw && bs && phase_merge(bw, bs, &mb))
		b = &mb;
	if (!verdict_headline(&m, &b, t, cpu_aes, &per_mib, &pv))
		return;
	if (write_waited_for_writeback(v)) {
		char line[DETAIL_LEN];

		snprintf(line, sizeof(line),
			 "per MiB of the write phase "
			 "(write() and fsync()): %s",
			 pv.summary);
		evidence_first(v, line);
		return;
	}
	snprintf(pv.target, sizeof(pv.target), "%s", v->target);
	snprintf(pv.workload, sizeof(pv.workload), "%s", v->workload);
	snprintf(pv.job, sizeof(pv.job), "%s", v->job);
	/* The short report's line is the phase's summary too (an empty
	 * brief prints it): the per-call causes (verdict_brief words an op's
	 * calls) would tell write()'s share alone, which moves to fsync()
	 * with the room, where the phase's penalty does not. */
	pv.brief[0] = '\0';
	pv.op = v->op;
	per_call_line(w, s, bw, bs, m.wait.syscalls, &pv);
	/* The per-call details, as many as fit. */
	for (int i = 0; i < v->nr_evidence; i++)
		verdict_add_evidence(&pv, "write(): %s", v->evidence[i]);
	*v = pv;
}
