// SPDX-License-Identifier: MIT
/*
 * Async I/O per I/O (analysis/aio.c) on hand-built counters: the means
 * close at the completion latency, an async op gets the per-I/O verdict,
 * the verdict names the largest part (plain: the device) and on LUKS2 the
 * part added over plain with kcryptd's queue and work, a buffered target
 * is judged on the latency inside io_submit, and fio's own clat of the
 * traced iterations is read beside ours.
 */
#include <math.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis.h"
#include "verdict_evidence.h"

#define US   1000ull
#define NIOS 1000ull

/* n I/Os whose clat splits as ns[layer] us each, reaped after reap_us
 * (of which cpu_us runnable); sub_us each inside the submitting call. */
static void put(struct snap_aio *s, const uint64_t us[NR_LAYERS],
		uint64_t reap_us, uint64_t cpu_us, uint64_t sub_us)
{
	struct aio_stat *st = &s->ops[EB_OP_READ];

	s->available = true;
	snprintf(s->source, sizeof(s->source), "test");
	st->ios = NIOS;
	st->sub_ns = NIOS * sub_us * US;
	st->ns_sub[LAYER_FS] = st->sub_ns;
	for (int l = 0; l < NR_LAYERS; l++) {
		st->ns[l] = NIOS * us[l] * US;
		st->clat_ns += st->ns[l];
	}
	st->reaped = NIOS;
	st->reap_ns = NIOS * reap_us * US;
	st->reap_cpu_ns = NIOS * cpu_us * US;
}

static void attribution_of(const struct snap_aio *s, const char *target,
			   struct attribution *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->target, sizeof(a->target), "%s", target);
	snprintf(a->workload, sizeof(a->workload), "fio");
	snprintf(a->job, sizeof(a->job), "randread_4k");
	a->op = EB_OP_READ;
	a->layers[LAYER_SYSCALL].count = 137; /* fio's own read() calls */
	aio_result_of(s, EB_OP_READ, &a->aio);
}

static void test_means_close(void **state)
{
	const uint64_t us[NR_LAYERS] = {
		[LAYER_FS] = 20, [LAYER_BLK_QUEUE] = 5, [LAYER_DEVICE] = 300};
	struct snap_aio s = {0};
	struct attribution a;
	double sum;

	(void)state;
	put(&s, us, 50, 20, 10);
	attribution_of(&s, "plain", &a);
	assert_int_equal(a.aio.ios, NIOS);
	assert_true(a.aio.clat_ns == 375.0 * US);
	/* The reaping's runnable part is cpu-wait, the rest reaping. */
	assert_true(a.aio.layer_ns[LAYER_CPU_WAIT] == 20.0 * US);
	assert_true(a.aio.reap_ns == 30.0 * US);
	sum = a.aio.reap_ns;
	for (int l = 0; l < NR_LAYERS; l++)
		sum += a.aio.layer_ns[l];
	assert_true(sum == a.aio.clat_ns);
	assert_true(a.aio.sub_ns == 10.0 * US);
	assert_true(aio_dominant(&a));
	/* A blocking engine's calls outnumber the few async I/Os, and
	 * take longer together (100 us each). */
	a.layers[LAYER_SYSCALL].count = 100000;
	a.layers[LAYER_SYSCALL].sum_ns = 100000 * 100 * (uint64_t)US;
	assert_false(aio_dominant(&a));
	/* Fewer I/Os than fio's own short read() calls, but more time in
	 * them: a slow job's (fio-seq-read.fio's on fscrypt, CI
	 * 2026-12-04: 79 I/Os of 85 ms against 200 calls of 75 us). */
	a.layers[LAYER_SYSCALL].count = 2 * NIOS;
	a.layers[LAYER_SYSCALL].sum_ns = 2 * NIOS * 75 * (uint64_t)US;
	assert_true(aio_dominant(&a));
	/* Neither more I/Os nor more time: the blocking calls'. */
	a.layers[LAYER_SYSCALL].sum_ns = 2 * NIOS * 400 * (uint64_t)US;
	assert_false(aio_dominant(&a));
}

static void test_plain_device(void **state)
{
	const uint64_t us[NR_LAYERS] = {[LAYER_FS] = 20, [LAYER_DEVICE] = 300};
	struct snap_aio s = {0};
	struct attribution a;
	struct verdict v;

	(void)state;
	put(&s, us, 80, 0, 10);
	attribution_of(&s, "plain", &a);
	verdict_aio(&a, NULL, NULL, &v);
	if (!strstr(v.summary, "per I/O (libaio) device-bound: 75 % of the "
			       "400 us completion latency is the device"))
		fail_msg("%s", v.summary);
}

static void test_luks2_added(void **state)
{
	const uint64_t base_us[NR_LAYERS] = {
		[LAYER_FS] = 20, [LAYER_DEVICE] = 300};
	const uint64_t us[NR_LAYERS] = {[LAYER_FS] = 20,
					[LAYER_CRYPT_QUEUE] = 100,
					[LAYER_CRYPT] = 150,
					[LAYER_DM] = 10,
					[LAYER_DEVICE] = 300};
	struct snap_aio bs = {0}, ls = {0};
	struct attribution b, a;
	struct target_info t = {.encrypted = true};
	struct verdict v;

	(void)state;
	snprintf(t.kind, sizeof(t.kind), "luks2");
	put(&bs, base_us, 0, 0, 10);
	put(&ls, us, 0, 0, 10);
	ls.ops[EB_OP_READ].iouring = NIOS;
	attribution_of(&bs, "plain", &b);
	attribution_of(&ls, "luks2", &a);
	verdict_aio(&a, &b, &t, &v);
	if (!strstr(v.summary, "per I/O (io_uring): 580 us completion "
			       "latency, 260 us more than plain's 320 us: "
			       "the decryption adds 250 us of it (96 %)") ||
	    !strstr(v.summary, "kcryptd's queue 100 us, kcryptd's work 150 us"))
		fail_msg("%s", v.summary);
}

static void test_buffered_in_call(void **state)
{
	const uint64_t us[NR_LAYERS] = {0};
	struct snap_aio s = {0};
	struct attribution a;
	struct verdict v;

	(void)state;
	put(&s, us, 900, 0, 300);
	s.ops[EB_OP_READ].in_call = NIOS;
	s.ops[EB_OP_READ].ns_sub[LAYER_FS] = NIOS * 100 * US;
	s.ops[EB_OP_READ].ns_sub[LAYER_DEVICE] = NIOS * 200 * US;
	attribution_of(&s, "fscrypt", &a);
	verdict_aio(&a, NULL, NULL, &v);
	/* fio's clat is only the wait to be reaped: the verdict is on what
	 * the I/O took, inside io_submit. */
	if (!strstr(v.summary, "67 % of the 300 us latency inside io_submit"))
		fail_msg("%s", v.summary);
}

static void test_fio_clat(void **state)
{
	const uint64_t us[NR_LAYERS] = {[LAYER_DEVICE] = 400};
	struct results *r = calloc(1, sizeof(*r));
	struct snap_aio s = {0};
	struct result *x;

	(void)state;
	assert_non_null(r);
	put(&s, us, 40, 0, 10);
	attribution_of(&s, "plain", &r->attrib[0]);
	r->nr_attrib = 1;
	x = &r->results[r->nr_results++];
	snprintf(x->target, sizeof(x->target), "plain");
	snprintf(x->workload, sizeof(x->workload), "fio");
	snprintf(x->job, sizeof(x->job), "randread_4k");
	snprintf(x->metric.name, sizeof(x->metric.name),
		 "randread_4k_clat_mean_us");
	x->nr_samples = 1;
	x->samples[0] = 1000; /* untraced: not the I/Os followed */
	x->nr_traced = 2;
	x->traced[0] = 390;
	x->traced[1] = 410;
	aio_fio_clat(r, &r->attrib[0]);
	assert_true(r->attrib[0].aio.fio_clat_us == 400);
	assert_true(r->attrib[0].aio.fio_diff_pct == 10);
	free(r);
}

/* A randrw job's figures, fio's write side first: the read attribution
 * takes the read side's clat, never the write's. */
static void test_fio_clat_of_its_side(void **state)
{
	const uint64_t us[NR_LAYERS] = {[LAYER_DEVICE] = 400};
	static const char *const names[] = {"mixed_write_clat_mean_us",
					    "mixed_read_clat_mean_us"};
	struct results *r = calloc(1, sizeof(*r));
	struct snap_aio s = {0};

	(void)state;
	assert_non_null(r);
	put(&s, us, 40, 0, 10);
	attribution_of(&s, "plain", &r->attrib[0]);
	snprintf(r->attrib[0].job, sizeof(r->attrib[0].job), "mixed");
	r->nr_attrib = 1;
	for (int i = 0; i < 2; i++) {
		struct result *x = &r->results[r->nr_results++];

		snprintf(x->target, sizeof(x->target), "plain");
		snprintf(x->workload, sizeof(x->workload), "fio");
		snprintf(x->job, sizeof(x->job), "mixed");
		snprintf(x->metric.name, sizeof(x->metric.name), "%s",
			 names[i]);
		x->nr_traced = 1;
		x->traced[0] = i ? 400 : 2500;
	}
	aio_fio_clat(r, &r->attrib[0]);
	assert_true(r->attrib[0].aio.fio_clat_us == 400);
	free(r);
}

/* The job's I/Os in words, from the parameters the run recorded: a job
 * file's "job NAME" line, or a built-in job's name with the run's depth. */
static void test_job_words(void **state)
{
	static const struct {
		const char *job, *desc;
		int op;
		const char *words;
	} cases[] = {
		{"rand-read",
		 "rw=randread bs=4k iodepth=4 ioengine=libaio size=16777216 "
		 "numjobs=1",
		 EB_OP_READ, "random 4 KiB reads at QD4"},
		{"seq-write",
		 "rw=write bs=1m iodepth=32 ioengine=io_uring size=1 numjobs=1",
		 EB_OP_WRITE, "sequential 1 MiB writes at QD32"},
		{"mixed", "rw=randrw bs=4k,64k iodepth=8 ioengine=libaio",
		 EB_OP_WRITE, "random 64 KiB writes at QD8"},
		{"odd", "rw=read bs=4k-8k iodepth=1", EB_OP_READ, ""},
		{"randread_4k", NULL, EB_OP_READ, "random 4 KiB reads at QD16"},
		{"read_4m", NULL, EB_OP_READ, "sequential 4 MiB reads at QD16"},
		{"a+b", NULL, EB_OP_READ, ""},
	};
	struct results *r = calloc(1, sizeof(*r));
	struct workload_info *w;

	(void)state;
	assert_non_null(r);
	w = &r->workloads[r->nr_workloads++];
	snprintf(w->name, sizeof(w->name), "fio");
	param_int(&w->params, "iodepth", 16);
	param_str(&w->params, "ioengine", "posixaio");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct attribution a = {0};
		char key[NAME_LEN];

		if (cases[i].desc) {
			snprintf(key, sizeof(key), "job %s", cases[i].job);
			param_str(&w->params, key, cases[i].desc);
		}
		snprintf(a.workload, sizeof(a.workload), "fio");
		snprintf(a.job, sizeof(a.job), "%s", cases[i].job);
		a.op = cases[i].op;
		aio_job_words(r, &a);
		assert_string_equal(a.aio.job_words, cases[i].words);
	}
	free(r);
}

/* With the job's words the verdict names the job; with most I/Os served
 * by the page cache (no bio of their own) it says so, on their mean, and
 * names the job's engine, not a count of zero followed ones. */
static void test_job_named_and_page_cache(void **state)
{
	const uint64_t us[NR_LAYERS] = {[LAYER_FS] = 20, [LAYER_DEVICE] = 300};
	struct snap_aio s = {0}, c = {0};
	struct target_info t = {.encrypted = true};
	struct attribution a, b;
	struct verdict v;

	(void)state;
	snprintf(t.kind, sizeof(t.kind), "fscrypt");
	put(&s, us, 80, 0, 10);
	attribution_of(&s, "plain", &b);
	snprintf(b.aio.job_words, sizeof(b.aio.job_words),
		 "random 4 KiB reads at QD4");
	verdict_aio(&b, NULL, NULL, &v);
	if (!strstr(v.summary, "random 4 KiB reads at QD4 (libaio) are "
			       "device-bound: 75 % of the 400 us completion "
			       "latency is the device"))
		fail_msg("%s", v.summary);
	c.available = true;
	c.ops[EB_OP_READ].unlinked = 900;
	c.ops[EB_OP_READ].unlinked_ns = 900 * 25 * US;
	attribution_of(&c, "fscrypt", &a);
	a.layers[LAYER_SYSCALL].count = 6;
	snprintf(a.aio.job_engine, sizeof(a.aio.job_engine), "io_uring");
	assert_true(aio_dominant(&a));
	verdict_aio(&a, &b, NULL, &v);
	if (!strstr(v.summary, "per I/O (io_uring): 900 of 900 I/Os were "
			       "served by the page cache") ||
	    !strstr(v.summary, "at 25.0 us each (plain's 400 us): the device "
			       "is not in their latency"))
		fail_msg("%s", v.summary);
	/* On an encrypted target the cipher is not in it either. */
	verdict_aio(&a, &b, &t, &v);
	if (!strstr(v.summary, "the device and the decryption are not in "
			       "their latency"))
		fail_msg("%s", v.summary);
	assert_true(fabs(v.phase_ns - 900 * 25.0 * US) < 1);
	/* ZFS: no I/O's bio is the caller's, hit or miss: no page cache
	 * said, nor any layer ruled out. */
	snprintf(t.kind, sizeof(t.kind), "zfs");
	verdict_aio(&a, &b, &t, &v);
	if (strstr(v.summary, "page cache") ||
	    strstr(v.summary, "not in their latency") ||
	    !strstr(v.summary, "25.0 us each (plain's 400 us); 900 of the 900 "
			       "I/Os had no bio of their own (ZFS issues its "
			       "vdev I/O from its zio threads"))
		fail_msg("%s", v.summary);
}

/* The reaping calls of io's phase: 500 of 90 us each, no I/O of their
 * own. */
static void reaping_of(struct attribution *reap, const struct attribution *io)
{
	*reap = *io;
	memset(&reap->aio, 0, sizeof(reap->aio));
	reap->op = EB_OP_REAP;
	reap->layers[LAYER_SYSCALL].state = LAYER_MEASURED;
	reap->layers[LAYER_SYSCALL].count = 500;
	reap->layers[LAYER_SYSCALL].sum_ns = 500 * 90 * US;
	reap->layers[LAYER_SYSCALL].mean_ns = 90 * US;
}

/* A phase's reaping calls (op reap): their side is the op of most of the
 * phase's async I/Os, their verdict no headline but the async verdict's
 * evidence. */
static void test_reaping_is_evidence(void **state)
{
	const uint64_t us[NR_LAYERS] = {[LAYER_FS] = 20, [LAYER_DEVICE] = 300};
	struct results *r = calloc(1, sizeof(*r));
	struct snap_aio s = {0};
	struct attribution *io, *reap;

	(void)state;
	assert_non_null(r);
	put(&s, us, 80, 0, 10);
	io = &r->attrib[0];
	reap = &r->attrib[1];
	attribution_of(&s, "plain", io);
	reaping_of(reap, io);
	r->nr_attrib = 2;
	analyse_verdicts(r);
	assert_int_equal(r->nr_verdicts, 2);
	assert_int_equal(reap->reap_side, EB_OP_READ);
	assert_true(attrib_reads(reap));
	assert_true(r->verdicts[0].headline);
	assert_false(r->verdicts[1].headline);
	assert_true(r->verdicts[1].summary[0] != '\0');
	{
		char want[DETAIL_LEN + 64];
		bool found = false;

		snprintf(want, sizeof(want),
			 "the caller's own wait for them, in its reaping "
			 "calls: %s",
			 r->verdicts[1].summary);
		for (int i = 0; i < r->verdicts[0].nr_evidence; i++) {
			const char *e = r->verdicts[0].evidence[i];

			/* Cut at DETAIL_LEN: a prefix of what it says. */
			found |= strlen(e) > 60 && !strncmp(e, want, strlen(e));
		}
		assert_true(found);
	}
	/* A write job's reaping waits on the write side. */
	io->op = EB_OP_WRITE;
	io->aio.ios = NIOS;
	analyse_verdicts(r);
	assert_int_equal(reap->reap_side, EB_OP_WRITE);
	assert_false(attrib_reads(reap));
	free(r);
}

/* A randrw job's reaping calls reap both sides: the write verdict's
 * evidence says they are mostly the reads' (the reaping verdict is worded
 * for the reads), the read verdict's that they are its own. */
static void test_reaping_of_randrw(void **state)
{
	const uint64_t us[NR_LAYERS] = {[LAYER_FS] = 20, [LAYER_DEVICE] = 300};
	struct results *r = calloc(1, sizeof(*r));
	struct snap_aio s = {0};
	struct attribution *rd, *wr, *reap;

	(void)state;
	assert_non_null(r);
	put(&s, us, 80, 0, 10);
	rd = &r->attrib[0];
	wr = &r->attrib[1];
	reap = &r->attrib[2];
	attribution_of(&s, "plain", rd);
	*wr = *rd;
	wr->op = EB_OP_WRITE;
	wr->aio.ios = NIOS / 2;
	reaping_of(reap, rd);
	r->nr_attrib = 3;
	analyse_verdicts(r);
	assert_int_equal(r->nr_verdicts, 3);
	assert_int_equal(reap->reap_side, EB_OP_READ);
	assert_true(has_evidence(&r->verdicts[0],
				 "the caller's own wait for "
				 "them, in its reaping calls"));
	assert_true(has_evidence(&r->verdicts[1],
				 "the caller's own wait for the job's I/Os, "
				 "most of them its reads, in its reaping "
				 "calls"));
	assert_false(has_evidence(&r->verdicts[1], "wait for them"));
	free(r);
}

/* Buffered libaio reads on fscrypt (fio-seq-read.fio, CI 2026-12-04):
 * the followed ones, readahead's, decrypted inside io_submit; the many
 * with no bio of their own are page cache hits only if they left
 * io_submit soon: how long they stayed there decides, and is said. */
static void test_unlinked_inside_io_submit(void **state)
{
	const uint64_t us[NR_LAYERS] = {[LAYER_FS] = 50};
	struct snap_aio s = {0};
	struct attribution a;
	struct verdict v;

	(void)state;
	put(&s, us, 0, 0, 40000); /* 40 ms inside io_submit each */
	s.ops[EB_OP_READ].in_call = NIOS;
	s.ops[EB_OP_READ].unlinked = 5 * NIOS;
	s.ops[EB_OP_READ].unlinked_ns = 5 * NIOS * 90000 * US;
	s.ops[EB_OP_READ].unlinked_sub = 5 * NIOS;
	s.ops[EB_OP_READ].unlinked_sub_ns = 5 * NIOS * 2000 * US;
	attribution_of(&s, "fscrypt", &a);
	assert_true(fabs(a.aio.unlinked_sub_ns - 2000.0 * US) < 1e-6);
	/* 2 ms against 40: served from memory. */
	verdict_aio(&a, NULL, NULL, &v);
	if (!strstr(v.summary, "5000 of 6000 I/Os were served by the page "
			       "cache"))
		fail_msg("%s", v.summary);
	if (!has_evidence(&v, "2.00 ms each inside io_submit (the followed "
			      "ones 40.0 ms)"))
		fail_msg("no io_submit time in the evidence");
	/* 30 ms against 40: waiting there for the readahead, judged with
	 * the followed ones on the submission's time, all 6000 of them. */
	s.ops[EB_OP_READ].unlinked_sub_ns = 5 * NIOS * 30000 * US;
	attribution_of(&s, "fscrypt", &a);
	verdict_aio(&a, NULL, NULL, &v);
	if (strstr(v.summary, "page cache") ||
	    !strstr(v.summary, "latency inside io_submit"))
		fail_msg("%s", v.summary);
	if (!has_evidence(&v, "5000 I/Os with no bio of their own took 30.0 "
			      "ms each inside io_submit, the followed ones "
			      "40.0 ms: not page cache hits"))
		fail_msg("no 'not page cache hits' evidence");
	assert_true(fabs(v.phase_ns - 6000 * 40000.0 * US) < 1);
}

/* I/Os not followed say why: the tracer's room, or a request submitted
 * anew before the I/O's completion was seen (the stale-request guard);
 * the old line where none was stale. */
static void test_dropped_why(void **state)
{
	const uint64_t us[NR_LAYERS] = {[LAYER_DEVICE] = 50};
	struct snap_aio s = {0};
	struct attribution a;
	struct verdict v;

	(void)state;
	put(&s, us, 0, 0, 5);
	s.ops[EB_OP_READ].dropped = 7;
	s.ops[EB_OP_READ].reap_lost = 2;
	attribution_of(&s, "plain", &a);
	assert_int_equal(a.aio.dropped, 9);
	assert_int_equal(a.aio.dropped_stale, 0);
	verdict_aio(&a, NULL, NULL, &v);
	assert_true(has_evidence(&v, "9 I/Os or reapings not followed (the "
				     "tracer's tables were full)"));
	s.ops[EB_OP_READ].stale = 5;
	attribution_of(&s, "plain", &a);
	assert_int_equal(a.aio.dropped_stale, 5);
	verdict_aio(&a, NULL, NULL, &v);
	assert_false(has_evidence(&v, "tables were full)"));
	assert_true(has_evidence(&v, "9 I/Os or reapings not followed: 5 "
				     "whose request was submitted anew "
				     "before their completion was seen"));
	assert_true(has_evidence(&v, ", 4 for the tracer's tables being "
				     "full"));
	/* A snapshot saying more stale than dropped: no more than those. */
	s.ops[EB_OP_READ].stale = 70;
	attribution_of(&s, "plain", &a);
	assert_int_equal(a.aio.dropped_stale, 7);
}

/* Nothing followed, only timed: its mean, not a zero that reads as
 * -100 % against fio's clat. */
static void test_unlinked_only(void **state)
{
	struct snap_aio s = {0};
	struct aio_result out;

	(void)state;
	s.available = true;
	s.ops[EB_OP_READ].unlinked = 4;
	s.ops[EB_OP_READ].unlinked_ns = 4 * 1234 * US;
	aio_result_of(&s, EB_OP_READ, &out);
	assert_int_equal(out.ios, 0);
	assert_true(fabs(out.all_clat_ns - 1234.0 * US) < 1e-6);
	assert_true(out.clat_ns == 0);
}

/* The CI run that failed at 9a36b76: two traced iterations at 88k and 31k
 * IOPS, 36 and 99.5 us; the I/Os (mostly page cache hits, whose clat is
 * their reaping) pool to 52.5 us, which is what fio's weighed mean is. */
static void test_fio_clat_weighed_by_ios(void **state)
{
	const uint64_t us[NR_LAYERS] = {[LAYER_FS] = 1400};
	struct results *r = calloc(1, sizeof(*r));
	struct snap_aio s = {0};
	struct result *c, *iops;
	double pooled;

	(void)state;
	assert_non_null(r);
	put(&s, us, 57, 0, 400);
	/* 8162 misses followed, 348454 hits reaped 19.57 us after
	 * io_submit. */
	s.ops[EB_OP_READ].ios = 8162;
	s.ops[EB_OP_READ].clat_ns = 8162ull * 1400 * US;
	s.ops[EB_OP_READ].reap_ns = 8162ull * 57 * US;
	s.ops[EB_OP_READ].unlinked = 348454;
	s.ops[EB_OP_READ].unlinked_ns = 348454ull * 19570;
	attribution_of(&s, "fscrypt", &r->attrib[0]);
	r->nr_attrib = 1;
	pooled = (8162.0 * 1457 + 348454.0 * 19.57) / (8162 + 348454);
	assert_true(fabs(r->attrib[0].aio.all_clat_ns / US - pooled) < 0.01);
	c = &r->results[r->nr_results++];
	iops = &r->results[r->nr_results++];
	for (struct result *x = c; x <= iops; x++) {
		snprintf(x->target, sizeof(x->target), "fscrypt");
		snprintf(x->workload, sizeof(x->workload), "fio");
		snprintf(x->job, sizeof(x->job), "randread_4k");
		x->nr_traced = 2;
		x->traced_iteration[0] = 2;
		x->traced_iteration[1] = 3;
	}
	snprintf(c->metric.name, sizeof(c->metric.name),
		 "randread_4k_clat_mean_us");
	snprintf(iops->metric.name, sizeof(iops->metric.name),
		 "randread_4k_iops");
	c->traced[0] = 36.015;
	c->traced[1] = 99.456;
	iops->traced[0] = 88011;
	iops->traced[1] = 30831;
	aio_fio_clat(r, &r->attrib[0]);
	/* (88011 * 36.015 + 30831 * 99.456) / 118842, not (36 + 99.5) / 2. */
	assert_true(fabs(r->attrib[0].aio.fio_clat_us - 52.474) < 0.01);
	assert_true(fabs(r->attrib[0].aio.fio_diff_pct) < 1);
	/* Iterations that do not line up are not weighed. */
	iops->traced_iteration[1] = 4;
	aio_fio_clat(r, &r->attrib[0]);
	assert_true(fabs(r->attrib[0].aio.fio_clat_us - 67.7355) < 0.01);
	/* With fio's clat N, each iteration counts its own I/Os: one that
	 * stalled 5 s in a 3 s job (0.8 IOPS, 4 I/Os of 4.96 s) weighs 4,
	 * where its IOPS made it 2.4 (CI, 2026-12-06). */
	iops->traced_iteration[1] = 3;
	c->traced[0] = 1000;
	c->traced[1] = 4960000;
	iops->traced[0] = 3;
	iops->traced[1] = 0.8;
	c->traced_mean_n[0] = 9;
	c->traced_mean_n[1] = 4;
	aio_fio_clat(r, &r->attrib[0]);
	pooled = (9 * 1000.0 + 4 * 4960000.0) / 13;
	assert_true(fabs(r->attrib[0].aio.fio_clat_us - pooled) < 0.01);
	/* Not for one iteration only: then all are weighed by IOPS. */
	c->traced_mean_n[1] = 0;
	aio_fio_clat(r, &r->attrib[0]);
	pooled = (3 * 1000.0 + 0.8 * 4960000.0) / 3.8;
	assert_true(fabs(r->attrib[0].aio.fio_clat_us - pooled) < 0.01);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_means_close),
		cmocka_unit_test(test_plain_device),
		cmocka_unit_test(test_luks2_added),
		cmocka_unit_test(test_buffered_in_call),
		cmocka_unit_test(test_fio_clat_of_its_side),
		cmocka_unit_test(test_dropped_why),
		cmocka_unit_test(test_unlinked_only),
		cmocka_unit_test(test_unlinked_inside_io_submit),
		cmocka_unit_test(test_reaping_of_randrw),
		cmocka_unit_test(test_job_words),
		cmocka_unit_test(test_job_named_and_page_cache),
		cmocka_unit_test(test_reaping_is_evidence),
		cmocka_unit_test(test_fio_clat),
		cmocka_unit_test(test_fio_clat_weighed_by_ios),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
