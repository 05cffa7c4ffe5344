// SPDX-License-Identifier: MIT
/*
 * Asynchronous I/O followed one by one (bpf/attrib.h): the per-I/O means of
 * a phase, fio's own completion latency beside them, and the verdict of
 * an async job, which speaks of each I/O's completion latency rather
 * than of the caller's syscalls (io_submit and io_uring_enter do not
 * block on the I/O, and fio's own read() calls of its files are not it).
 */
#include <stdio.h>
#include <string.h>

#include "../common/fmt_time.h"
#include "analysis.h"

void aio_result_of(const struct snap_aio *s, int op, struct aio_result *out)
{
	const struct aio_stat *st = &s->ops[op];
	double n = (double)st->ios;

	memset(out, 0, sizeof(*out));
	out->available = s->available;
	snprintf(out->source, sizeof(out->source), "%s", s->source);
	out->ios = st->ios;
	out->iouring = st->iouring;
	out->in_call = st->in_call;
	out->reaped = st->reaped;
	out->unlinked = st->unlinked;
	out->dropped = st->dropped + st->reap_lost;
	out->dropped_stale = st->stale < st->dropped ? st->stale : st->dropped;
	out->unlinked_sub_ns =
		st->unlinked_sub
			? (double)st->unlinked_sub_ns / (double)st->unlinked_sub
			: 0.0;
	if (!st->ios) {
		/* None followed through the layers (6.1's dm-crypt refusing
		 * io_uring's REQ_NOWAIT bios: every request went to io-wq):
		 * the latency of those timed without them is all there is. */
		out->all_clat_ns = st->unlinked ? (double)st->unlinked_ns /
							  (double)st->unlinked
						: 0.0;
		return;
	}
	out->sub_ns = (double)st->sub_ns / n;
	/* Each libaio I/O is reaped once: its reaping's mean over all, its
	 * runnable part in cpu-wait. */
	out->reap_ns = (double)(st->reap_ns - st->reap_cpu_ns) / n;
	out->clat_ns = (double)(st->clat_ns + st->reap_ns) / n;
	for (int l = 0; l < NR_LAYERS; l++) {
		out->layer_ns[l] = (double)st->ns[l] / n;
		out->sub_layer_ns[l] = (double)st->ns_sub[l] / n;
	}
	out->layer_ns[LAYER_CPU_WAIT] += (double)st->reap_cpu_ns / n;
	out->all_clat_ns =
		st->unlinked_ns ? (out->clat_ns * n + (double)st->unlinked_ns) /
					  (n + (double)st->unlinked)
				: out->clat_ns;
}

/*
 * Mostly async I/O: as many I/Os as the op's blocking calls, or as much
 * time in them. By count alone, a slow job lost to fio's own reads of
 * its files: fio-seq-read.fio's 256 KiB reads on fscrypt (buffered, each
 * decrypted inside io_submit) made 79 I/Os in two 300 ms iterations, 85
 * ms each, beside 200 read() calls of 75 us, and were judged as those
 * (CI, 2026-12-04). An I/O's time is its submission and its completion
 * latency; the blocking calls' the syscall layer's, io_uring's requests'
 * share of it taken out in proportion (it counts them too).
 */
bool aio_dominant(const struct attribution *a)
{
	const struct layer_result *sys = &a->layers[LAYER_SYSCALL];
	uint64_t calls = sys->count;
	uint64_t async = a->aio.ios + a->aio.unlinked;
	uint64_t blocking = calls > a->aio.iouring + a->aio.unlinked
				    ? calls - a->aio.iouring - a->aio.unlinked
				    : 0;
	double async_ns = (double)async * a->aio.all_clat_ns +
			  (double)a->aio.ios * a->aio.sub_ns;
	double blocking_ns =
		calls ? (double)sys->sum_ns * (double)blocking / (double)calls
		      : 0;

	return async && (async >= blocking || async_ns >= blocking_ns);
}

/* The result of (a's target, workload, job) named `name`, with traced
 * iterations; NULL if none. */
static const struct result *traced_metric(const struct results *r,
					  const struct attribution *a,
					  const char *name)
{
	for (int i = 0; i < r->nr_results && i < MAX_RESULTS; i++) {
		const struct result *x = &r->results[i];

		if (!strcmp(x->target, a->target) &&
		    !strcmp(x->workload, a->workload) &&
		    !strcmp(x->job, a->job) && !strcmp(x->metric.name, name) &&
		    x->nr_traced)
			return x;
	}
	return NULL;
}

/* name ends in "_<side>_clat_mean_us" for the side op is not: fio's
 * figures of a job's other side (a randrw job has both, fio_file.c). */
static bool other_side(const char *name, size_t ln, int op)
{
	const char *other =
		op == EB_OP_READ ? "_write_clat_mean_us" : "_read_clat_mean_us";
	size_t lo = strlen(other);

	return ln >= lo && !strcmp(name + ln - lo, other);
}

/*
 * fio's clat mean over the traced iterations' I/Os, each iteration's mean
 * weighed by its I/O count: fio's clat N (traced_mean_n), or in a file
 * from before it, its IOPS (the job's runtime taken as every iteration's).
 * The I/Os followed are pooled over those iterations, so an unweighed
 * mean of means would differ from theirs whenever the iterations' rates
 * differ: a 36 us and a 99 us iteration at 88k and 31k IOPS pool to 52
 * us, not 68. IOPS alone underweighs an iteration that ran past its
 * runtime: one whose loop device stalled for 5 s in a 3 s job came out
 * at 3/5 of its weight, and fio_diff_pct at +34.6 % (CI, 2026-12-06).
 */
void aio_fio_clat(const struct results *r, struct attribution *a)
{
	static const char clat[] = "_clat_mean_us", iops[] = "_iops";
	char name[sizeof(r->results[0].metric.name) + sizeof(iops)];
	size_t lc = sizeof(clat) - 1;

	a->aio.fio_clat_us = 0;
	a->aio.fio_diff_pct = 0;
	for (int i = 0; i < r->nr_results && i < MAX_RESULTS; i++) {
		const struct result *x = &r->results[i], *w;
		size_t ln = strlen(x->metric.name);
		double sum = 0, weight = 0;
		bool by_n = true;

		if (strcmp(x->target, a->target) ||
		    strcmp(x->workload, a->workload) ||
		    strcmp(x->job, a->job) || ln < lc ||
		    strcmp(x->metric.name + ln - lc, clat) ||
		    other_side(x->metric.name, ln, a->op) || !x->nr_traced)
			continue;
		snprintf(name, sizeof(name), "%.*s%s", (int)(ln - lc),
			 x->metric.name, iops);
		w = traced_metric(r, a, name);
		for (int k = 0; w && k < x->nr_traced; k++)
			if (w->nr_traced != x->nr_traced ||
			    w->traced_iteration[k] != x->traced_iteration[k])
				w = NULL;
		/* The traced iterations': the ones the I/Os were seen in. */
		for (int k = 0; k < x->nr_traced; k++)
			by_n &= x->traced_mean_n[k] > 0;
		for (int k = 0; k < x->nr_traced; k++) {
			double wk = by_n ? x->traced_mean_n[k]
				    : w	 ? w->traced[k]
					 : 1.0;

			sum += wk * x->traced[k];
			weight += wk;
		}
		if (weight <= 0)
			return;
		a->aio.fio_clat_us = sum / weight;
		if (a->aio.fio_clat_us > 0)
			a->aio.fio_diff_pct = 100.0 *
					      (a->aio.all_clat_ns / 1e3 -
					       a->aio.fio_clat_us) /
					      a->aio.fio_clat_us;
		return;
	}
}

/* The parts of an I/O's completion latency a verdict names. */
enum aio_part {
	P_CRYPTO,
	P_DEVICE,
	P_BLK_QUEUE,
	P_DM,
	P_FS,
	P_CPU,
	P_REAP,
	NR_PARTS,
};

static const char *const part_what[NR_PARTS] = {
	[P_CRYPTO] = "the decryption", /* encryption for writes */
	[P_DEVICE] = "the device",
	[P_BLK_QUEUE] = "the block queue",
	[P_DM] = "device-mapper",
	[P_FS] = "the file system and the completion path",
	[P_CPU] = "waiting for a CPU",
	[P_REAP] =
		"the reaping (fio's io_getevents, or its reading of io_uring's ring)",
};

static const char *const part_bound[NR_PARTS] = {
	[P_CRYPTO] = "crypto-bound",
	[P_DEVICE] = "device-bound",
	[P_BLK_QUEUE] = "block-queue-bound",
	[P_DM] = "device-mapper-bound",
	[P_FS] = "filesystem-bound",
	[P_CPU] = "bound by CPU contention",
	[P_REAP] = "reaping-bound",
};

static const char *part_name(int part, int op)
{
	if (part == P_CRYPTO && op == EB_OP_WRITE)
		return "the encryption";
	return part_what[part];
}

static int part_of_layer(int l)
{
	switch (l) {
	case LAYER_CRYPT_QUEUE:
	case LAYER_CRYPT:
	case LAYER_DMCRYPT_WRITE:
		return P_CRYPTO;
	case LAYER_DEVICE:
		return P_DEVICE;
	case LAYER_BLK_QUEUE:
		return P_BLK_QUEUE;
	case LAYER_DM:
		return P_DM;
	case LAYER_CPU_WAIT:
		return P_CPU;
	}
	return P_FS;
}

/*
 * Which of an I/O's times a verdict is on: its completion latency (fio's
 * clat), unless most I/Os completed inside their submitting call
 * (buffered I/O that io_submit performs itself): then fio's clat is only
 * their wait to be reaped, and what the I/O took is the submission's.
 */
static bool in_call_view(const struct aio_result *r)
{
	return r->in_call * 2 >= r->ios;
}

static double view_total(const struct aio_result *r)
{
	return in_call_view(r) ? r->sub_ns : r->clat_ns;
}

static void parts_of(const struct aio_result *r, double p[NR_PARTS])
{
	bool sub = in_call_view(r);

	memset(p, 0, NR_PARTS * sizeof(*p));
	for (int l = 0; l < NR_LAYERS; l++)
		p[part_of_layer(l)] +=
			sub ? r->sub_layer_ns[l] : r->layer_ns[l];
	if (!sub)
		p[P_REAP] += r->reap_ns;
}

static const char *view_name(const struct aio_result *r)
{
	return in_call_view(r) ? "latency inside io_submit (buffered: fio "
				 "counts it as slat)"
			       : "completion latency";
}

static int largest(const double p[NR_PARTS])
{
	int best = 0;

	for (int i = 1; i < NR_PARTS; i++)
		if (p[i] > p[best])
			best = i;
	return best;
}

static const char *engine_of(const struct aio_result *r)
{
	/* None followed (all from the page cache): the job's own engine. */
	if (!r->ios)
		return r->job_engine[0] ? r->job_engine : "async";
	if (r->iouring == r->ios)
		return "io_uring";
	return r->iouring ? "libaio and io_uring" : "libaio";
}

static bool is_dmcrypt(const struct target_info *t)
{
	return t && (!strcmp(t->kind, "luks2") || strstr(t->kind, "luks"));
}

/* "kcryptd's queue 10 us, kcryptd's work 25 us" (dm-crypt), or
 * fscrypt's decrypt work likewise. */
static void crypto_clause(double q, double w, double dw,
			  const struct target_info *t, char *buf, size_t len)
{
	char a[32], b[32], c[48] = "";

	fmt_ns(a, sizeof(a), q);
	fmt_ns(b, sizeof(b), w);
	if (dw > 0) {
		strcpy(c, ", dm-crypt's write thread ");
		fmt_ns(c + strlen(c), sizeof(c) - strlen(c), dw);
	}
	if (is_dmcrypt(t))
		snprintf(buf, len, "kcryptd's queue %s, kcryptd's work %s%s", a,
			 b, c);
	else
		snprintf(buf, len, "the decrypt work's queue %s, its work %s",
			 a, b);
}

static void summary_own(const struct aio_result *r, int op, char *buf,
			size_t len)
{
	double p[NR_PARTS], pct;
	char lat[32], part[32];
	int dom;

	parts_of(r, p);
	dom = largest(p);
	pct = view_total(r) > 0 ? 100.0 * p[dom] / view_total(r) : 0;
	fmt_ns(lat, sizeof(lat), view_total(r));
	fmt_ns(part, sizeof(part), p[dom]);
	if (r->job_words[0])
		snprintf(buf, len,
			 "%s (%s) are %s: %.0f %% of the %s %s is "
			 "%s (%s)",
			 r->job_words, engine_of(r),
			 pct >= 50 ? part_bound[dom] : "mixed", pct, lat,
			 view_name(r), part_name(dom, op), part);
	else
		snprintf(buf, len,
			 "per I/O (%s) %s: %.0f %% of the %s %s is %s (%s)",
			 engine_of(r), pct >= 50 ? part_bound[dom] : "mixed",
			 pct, lat, view_name(r), part_name(dom, op), part);
}

/* "random 4 KiB reads at QD4 (libaio)", or "per I/O (libaio)". */
static const char *subject(const struct aio_result *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s (%s)",
		 r->job_words[0] ? r->job_words : "per I/O", engine_of(r));
	return buf;
}

/* On an encrypted target against its baseline b: the added part. */
static void summary_added(const struct attribution *a,
			  const struct attribution *b,
			  const struct target_info *t, char *buf, size_t len)
{
	const struct aio_result *r = &a->aio, *br = &b->aio;
	/* Each on its own I/Os' time (a buffered target's is inside the
	 * submission, its baseline's after it). */
	const double *ns = in_call_view(r) ? r->sub_layer_ns : r->layer_ns;
	const double *bns = in_call_view(br) ? br->sub_layer_ns : br->layer_ns;
	double p[NR_PARTS], bp[NR_PARTS];
	double added = view_total(r) - view_total(br);
	double q = ns[LAYER_CRYPT_QUEUE] - bns[LAYER_CRYPT_QUEUE];
	double w = ns[LAYER_CRYPT] - bns[LAYER_CRYPT];
	double dw = ns[LAYER_DMCRYPT_WRITE] - bns[LAYER_DMCRYPT_WRITE];
	char lat[32], blat[32], add[32], part[32], crypto[DETAIL_LEN / 2];
	char who[NAME_LEN + 32];
	int dom = 0;

	parts_of(r, p);
	parts_of(br, bp);
	for (int i = 0; i < NR_PARTS; i++)
		if (p[i] - bp[i] > p[dom] - bp[dom])
			dom = i;
	fmt_ns(lat, sizeof(lat), view_total(r));
	fmt_ns(blat, sizeof(blat), view_total(br));
	fmt_ns(add, sizeof(add), added > 0 ? added : -added);
	fmt_ns(part, sizeof(part), p[dom] - bp[dom]);
	if (added <= 0) {
		snprintf(buf, len, "%s: %s %s, %s less than %s's %s",
			 subject(r, who, sizeof(who)), lat, view_name(r), add,
			 b->target, blat);
		return;
	}
	/* The crypto part named whether or not it is the largest: what
	 * the encryption itself adds. */
	crypto[0] = '\0';
	if (q + w + dw > 0) {
		size_t n;

		if (dom == P_CRYPTO)
			snprintf(crypto, sizeof(crypto), " (");
		else
			snprintf(crypto, sizeof(crypto), "; %s %.0f %% (",
				 part_name(P_CRYPTO, a->op),
				 100.0 * (q + w + dw) / added);
		n = strlen(crypto);
		crypto_clause(q, w, dw, t, crypto + n, sizeof(crypto) - n - 1);
		strcat(crypto, ")");
	}
	snprintf(buf, len,
		 "%s: %s %s, %s more than %s's %s: %s adds %s of "
		 "it (%.0f %%)%s",
		 subject(r, who, sizeof(who)), lat, view_name(r), add,
		 b->target, blat, part_name(dom, a->op), part,
		 100.0 * (p[dom] - bp[dom]) / added, crypto);
}

static void split_line(struct verdict *out, const char *what,
		       const double ns[NR_LAYERS], double reap, double total)
{
	char line[DETAIL_LEN], t[32];
	size_t n;

	fmt_ns(t, sizeof(t), total);
	n = (size_t)snprintf(line, sizeof(line), "%s %s:", what, t);
	for (int l = 0; l < NR_LAYERS && n < sizeof(line); l++) {
		if (ns[l] < 0.5)
			continue;
		fmt_ns(t, sizeof(t), ns[l]);
		n += (size_t)snprintf(line + n, sizeof(line) - n,
				      " %s %s (%.0f %%)", layer_name(l), t,
				      total > 0 ? 100.0 * ns[l] / total : 0);
	}
	if (reap >= 0.5 && n < sizeof(line)) {
		fmt_ns(t, sizeof(t), reap);
		snprintf(line + n, sizeof(line) - n, " reaping %s (%.0f %%)", t,
			 total > 0 ? 100.0 * reap / total : 0);
	}
	verdict_add_evidence(out, "%s", line);
}

/*
 * libaio's I/Os with no bio of their own that stayed inside io_submit as
 * long as the followed ones did (half their mean or more): not page cache
 * hits but buffered reads waiting there for a readahead another I/O
 * began, its device time and decryption with it (fio-seq-read.fio's
 * 256 KiB reads on fscrypt, CI 2026-12-04: 67 of 79 such, the followed
 * ones 28 ms inside io_submit). Judged with the followed ones, on the
 * submission's time.
 */
static bool unlinked_alike(const struct aio_result *r)
{
	return r->ios && r->unlinked && in_call_view(r) &&
	       r->unlinked_sub_ns >= 0.5 * r->sub_ns;
}

/*
 * Most I/Os with no bio of their own: served by the page cache (buffered
 * I/O where O_DIRECT is not done, re-reads, writes written back later),
 * so the layers below say nothing of them; their mean is the verdict's,
 * the few that reached the device told apart (a readahead's reads wait
 * milliseconds for the many that follow it).
 */
static bool cache_view(const struct aio_result *r)
{
	return r->unlinked > r->ios && !unlinked_alike(r);
}

static bool is_zfs(const struct target_info *t)
{
	return t && (!strcmp(t->kind, "zfs") || !strcmp(t->fs, "zfs"));
}

/*
 * ZFS reads and writes its vdevs from its own zio threads, not the
 * caller's: no bio is ever the caller's, for the ARC's hits and its
 * misses alike, so having none says nothing of the page cache.
 */
static void summary_zfs(const struct aio_result *r, const char *cmp, char *buf,
			size_t len)
{
	char who[NAME_LEN + 32], lat[32];

	fmt_ns(lat, sizeof(lat), r->all_clat_ns);
	snprintf(buf, len,
		 "%s: %s each%s; %llu of the %llu I/Os had no bio of their "
		 "own (ZFS issues its vdev I/O from its zio threads, for the "
		 "ARC's hits and misses alike), so they are not split by layer "
		 "here",
		 subject(r, who, sizeof(who)), lat, cmp,
		 (unsigned long long)r->unlinked,
		 (unsigned long long)(r->unlinked + r->ios));
}

static void summary_cache(const struct aio_result *r,
			  const struct aio_result *br, const char *base,
			  const struct target_info *t, int op, char *buf,
			  size_t len)
{
	char who[NAME_LEN + 32], lat[32], dev[32] = "", cmp[80] = "", part[32];
	bool encrypted = t && t->encrypted;
	double p[NR_PARTS];
	size_t n;

	fmt_ns(lat, sizeof(lat), r->all_clat_ns);
	if (br && base) {
		fmt_ns(part, sizeof(part),
		       cache_view(br) ? br->all_clat_ns : view_total(br));
		snprintf(cmp, sizeof(cmp), " (%s's %s)", base, part);
	}
	if (is_zfs(t)) {
		summary_zfs(r, cmp, buf, len);
		return;
	}
	n = (size_t)snprintf(
		buf, len,
		"%s: %llu of %llu I/Os were served by the page cache, with no "
		"bio of their own (buffered I/O), at %s each%s: the device%s "
		"not in their latency",
		subject(r, who, sizeof(who)), (unsigned long long)r->unlinked,
		(unsigned long long)(r->unlinked + r->ios), lat, cmp,
		!encrypted	    ? " is"
		: op == EB_OP_WRITE ? " and the encryption (at writeback) are"
				    : " and the decryption are");
	if (!r->ios || n >= len)
		return;
	parts_of(r, p);
	fmt_ns(lat, sizeof(lat), view_total(r));
	fmt_ns(dev, sizeof(dev), p[largest(p)]);
	snprintf(buf + n, len - n,
		 "; the %llu that reached it took %s each, "
		 "%s of it %s",
		 (unsigned long long)r->ios, lat, dev,
		 part_name(largest(p), op));
}

void verdict_aio(const struct attribution *a, const struct attribution *b,
		 const struct target_info *t, struct verdict *out)
{
	const struct aio_result *r = &a->aio;
	char own[DETAIL_LEN];

	memset(out, 0, sizeof(*out));
	snprintf(out->target, sizeof(out->target), "%s", a->target);
	snprintf(out->workload, sizeof(out->workload), "%s", a->workload);
	out->op = a->op;
	if (cache_view(r)) {
		bool cmp = b && (b->aio.ios || b->aio.unlinked);

		summary_cache(r, cmp ? &b->aio : NULL, cmp ? b->target : NULL,
			      t, a->op, out->summary, sizeof(out->summary));
		out->phase_ns = r->all_clat_ns * (double)(r->ios + r->unlinked);
	} else {
		summary_own(r, a->op, own, sizeof(own));
		if (b && b->aio.ios && t && t->encrypted) {
			summary_added(a, b, t, out->summary,
				      sizeof(out->summary));
			verdict_add_evidence(out, "of its own: %s", own);
		} else {
			snprintf(out->summary, sizeof(out->summary), "%s", own);
		}
		out->phase_ns = view_total(r) *
				(double)(r->ios +
					 (unlinked_alike(r) ? r->unlinked : 0));
	}
	split_line(out, "completion latency (fio's clat) per I/O", r->layer_ns,
		   r->reap_ns, r->clat_ns);
	split_line(out, "submission (fio's slat) per I/O", r->sub_layer_ns, 0,
		   r->sub_ns);
	if (r->fio_clat_us > 0)
		verdict_add_evidence(
			out,
			"fio's own clat mean over the traced "
			"iterations' I/Os: %.1f us; the I/Os' mean "
			"%.1f us (%+.1f %%; the layers' sum over "
			"those followed %.1f us)",
			r->fio_clat_us, r->all_clat_ns / 1e3, r->fio_diff_pct,
			r->clat_ns / 1e3);
	verdict_add_evidence(out,
			     "%llu I/Os followed from submission to "
			     "completion (%llu io_uring)",
			     (unsigned long long)r->ios,
			     (unsigned long long)r->iouring);
	if (r->in_call)
		verdict_add_evidence(out,
				     "%llu of them completed inside their "
				     "submitting call (buffered I/O): their "
				     "time is the submission's, as in fio's "
				     "slat",
				     (unsigned long long)r->in_call);
	if (unlinked_alike(r)) {
		char a[32], b[32];

		fmt_ns(a, sizeof(a), r->unlinked_sub_ns);
		fmt_ns(b, sizeof(b), r->sub_ns);
		verdict_add_evidence(out,
				     "%llu I/Os with no bio of their own took "
				     "%s each inside io_submit, the followed "
				     "ones %s: not page cache hits, but "
				     "waiting there for a readahead another "
				     "I/O began",
				     (unsigned long long)r->unlinked, a, b);
	} else if (r->unlinked) {
		char in[96] = "";

		/* How long libaio's stayed inside io_submit: what says they
		 * were served from memory. */
		if (r->unlinked_sub_ns > 0) {
			char a[32], b[32] = "";

			fmt_ns(a, sizeof(a), r->unlinked_sub_ns);
			if (r->ios)
				fmt_ns(b, sizeof(b), r->sub_ns);
			snprintf(in, sizeof(in),
				 "; %s each inside io_submit%s%s%s", a,
				 r->ios ? " (the followed ones " : "", b,
				 r->ios ? ")" : "");
		}
		verdict_add_evidence(out,
				     "%llu I/Os had no bio of their own seen "
				     "(served from the page cache, or by an "
				     "io-wq worker): not in the split, in the "
				     "I/Os' mean%s",
				     (unsigned long long)r->unlinked, in);
	}
	if (r->dropped && !r->dropped_stale)
		verdict_add_evidence(out,
				     "%llu I/Os or reapings not followed (the "
				     "tracer's tables were full)",
				     (unsigned long long)r->dropped);
	else if (r->dropped)
		verdict_add_evidence(
			out,
			"%llu I/Os or reapings not followed: %llu whose "
			"request was submitted anew before their completion "
			"was seen (followed, they would have ended on the new "
			"one's), %llu for the tracer's tables being full",
			(unsigned long long)r->dropped,
			(unsigned long long)r->dropped_stale,
			(unsigned long long)(r->dropped - r->dropped_stale));
	verdict_add_evidence(out, "source: %s", r->source);
}
