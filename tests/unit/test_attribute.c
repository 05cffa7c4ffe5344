// SPDX-License-Identifier: MIT
/*
 * Attribution math and verdict text on hand-built snapshots: the numbers
 * the tracer would hand over, and what must come out of them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "stats/stats.h"
#include "analysis/analysis.h"
#include "verdict_evidence.h"

#define MS  1000000ull
#define SEC 1000000000ull

static struct phase_figures snap;

/* n items of latency lat_ns each, busy for busy_ns of wall time. */
static void put(int layer, int op, uint64_t n, uint64_t lat_ns,
		uint64_t busy_ns)
{
	struct layer_stat *s = &snap.stats[layer][op];

	s->count += n;
	s->sum_ns += n * lat_ns;
	s->busy_ns += busy_ns;
	s->slots[hist_slot(lat_ns)] += n;
}

static int setup(void **state)
{
	(void)state;
	memset(&snap, 0, sizeof(snap));
	for (int l = 0; l < NR_LAYERS; l++)
		snprintf(snap.sources[l], DETAIL_LEN, "tp_btf:%s",
			 layer_name(l));
	snprintf(snap.sources[LAYER_CRYPT], DETAIL_LEN,
		 "tp_btf:workqueue_execute_start->end (read); write: "
		 "unavailable (fentry: EPERM; kprobe: not built)");
	/* The plan of a kernel with tp_btf but neither fentry nor kprobes
	 * (as the tracer's plan.c makes it), and a target without
	 * device-mapper. */
	layer_states_set(&snap.states, LAYER_SYSCALL, -1, LAYER_MEASURED, "");
	layer_states_set(&snap.states, LAYER_FS, -1, LAYER_DERIVED,
			 "syscall minus lower layers");
	for (int l = LAYER_CRYPT_QUEUE; l <= LAYER_DEVICE; l++)
		layer_states_set(&snap.states, l, -1, LAYER_MEASURED, "");
	layer_states_set(&snap.states, LAYER_CRYPT, EB_OP_WRITE,
			 LAYER_UNAVAILABLE, "fentry: EPERM; kprobe: not built");
	layer_states_set(&snap.states, LAYER_CPU_WAIT, -1, LAYER_NOT_MEASURED,
			 "a share of the wait decomposition only");
	layer_states_set(&snap.states, LAYER_DM, -1, LAYER_NOT_APPLICABLE,
			 "no device-mapper device in the target");
	return 0;
}

static void fscrypt_target(struct target_info *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "fscrypt");
	snprintf(t->kind, sizeof(t->kind), "fscrypt");
	t->encrypted = true;
	snprintf(t->encryption.contents_cipher,
		 sizeof(t->encryption.contents_cipher), "AES-256-XTS");
	snprintf(t->encryption.driver, sizeof(t->encryption.driver),
		 "xts(ecb(aes-fixed-time))");
	t->encryption.hw_accel = false;
}

#define assert_contains(hay, needle)                                           \
	do {                                                                   \
		if (!strstr((hay), (needle)))                                  \
			fail_msg("\"%s\" lacks \"%s\"", (hay), (needle));      \
	} while (0)

/* Crypto-bound fscrypt reads: 100 syscalls of 10 ms, one at a time. */
static void fill_reads(void)
{
	put(LAYER_SYSCALL, EB_OP_READ, 100, 10 * MS, 1 * SEC);
	put(LAYER_CRYPT_QUEUE, EB_OP_READ, 50, 200000, 10 * MS);
	put(LAYER_CRYPT, EB_OP_READ, 50, 18800000, 940 * MS);
	put(LAYER_BLK_QUEUE, EB_OP_READ, 200, 25000, 5 * MS);
	put(LAYER_DEVICE, EB_OP_READ, 200, 300000, 30 * MS);
	snap.kernel_requests[EB_OP_READ] = 198;
}

static void test_attribute_math(void **state)
{
	struct attribution a[NR_OPS];
	const struct layer_result *l;
	int n;

	(void)state;
	fill_reads();
	n = attribute(&snap, "fscrypt", "dd", a);
	assert_int_equal(n, 1); /* no write syscalls: left out */
	assert_string_equal(a[0].target, "fscrypt");
	assert_string_equal(a[0].workload, "dd");
	assert_int_equal(a[0].op, EB_OP_READ);
	assert_int_equal(a[0].syscall_mean_ns, 10 * MS);

	l = &a[0].layers[LAYER_CRYPT];
	assert_int_equal(l->layer, LAYER_CRYPT);
	assert_int_equal(l->state, LAYER_MEASURED);
	assert_string_equal(l->reason, "");
	assert_int_equal(l->count, 50);
	assert_int_equal(l->sum_ns, 50 * 18800000ull);
	assert_int_equal(l->mean_ns, 18800000);
	assert_int_equal(l->busy_ns, 940 * MS);
	/* All 50 in one slot, [2^24, 2^25) ns: percentiles stay in it. */
	assert_int_equal(l->slots[24], 50);
	assert_in_range(l->p50_ns, 1ull << 24, (1ull << 25) - 1);
	assert_in_range(l->p99_ns, l->p50_ns, (1ull << 25) - 1);
	assert_string_equal(l->source, snap.sources[LAYER_CRYPT]);

	l = &a[0].layers[LAYER_DEVICE];
	assert_int_equal(l->count, 200);
	assert_int_equal(l->mean_ns, 300000);
	assert_int_equal(l->kernel_requests, 198);

	/* fs = 1 s - (10 + 940 + 5 + 30) ms = 15 ms, one per syscall. */
	l = &a[0].layers[LAYER_FS];
	assert_int_equal(l->layer, LAYER_FS);
	assert_int_equal(l->state, LAYER_DERIVED);
	assert_int_equal(l->busy_ns, 15 * MS);
	assert_int_equal(l->count, 100);
	assert_int_equal(l->mean_ns, 150000);
	assert_string_equal(l->source, "derived: syscall minus lower layers");
	assert_true(a[0].closure_pct > 99.999 && a[0].closure_pct < 100.001);

	/* dm is not traced: unavailable, zero. */
	assert_int_equal(a[0].layers[LAYER_DM].state, LAYER_NOT_APPLICABLE);
	assert_int_equal(a[0].layers[LAYER_DM].count, 0);
}

/* Items the BPF side could not track (its map of items in flight was
 * full) reach the layer's result, per op, so the report can say which
 * figures are short. */
static void test_attribute_dropped(void **state)
{
	struct attribution a[NR_OPS];

	(void)state;
	fill_reads();
	put(LAYER_SYSCALL, EB_OP_WRITE, 10, 1 * MS, 10 * MS);
	snap.stats[LAYER_DEVICE][EB_OP_READ].dropped = 17;
	snap.stats[LAYER_CRYPT_QUEUE][EB_OP_READ].dropped = 2;
	snap.stats[LAYER_BLK_QUEUE][EB_OP_WRITE].dropped = 4;
	assert_int_equal(attribute(&snap, "fscrypt", "dd", a), 2);
	assert_int_equal(a[0].op, EB_OP_READ);
	assert_int_equal(a[0].layers[LAYER_DEVICE].dropped, 17);
	assert_int_equal(a[0].layers[LAYER_CRYPT_QUEUE].dropped, 2);
	assert_int_equal(a[0].layers[LAYER_BLK_QUEUE].dropped, 0);
	assert_int_equal(a[0].layers[LAYER_SYSCALL].dropped, 0);
	assert_int_equal(a[1].op, EB_OP_WRITE);
	assert_int_equal(a[1].layers[LAYER_BLK_QUEUE].dropped, 4);
	assert_int_equal(a[1].layers[LAYER_DEVICE].dropped, 0);
}

/* Lower layers overlapping each other add up past the syscall time:
 * fs is 0, never negative, and closure shows the excess. */
static void test_attribute_overlap(void **state)
{
	struct attribution a[NR_OPS];
	int n;

	(void)state;
	put(LAYER_SYSCALL, EB_OP_WRITE, 10, 100 * MS, 1 * SEC);
	put(LAYER_BLK_QUEUE, EB_OP_WRITE, 100, 5 * MS, 500 * MS);
	put(LAYER_DEVICE, EB_OP_WRITE, 100, 9 * MS, 900 * MS);
	n = attribute(&snap, "plain", "dd", a);
	assert_int_equal(n, 1);
	assert_int_equal(a[0].op, EB_OP_WRITE);
	assert_int_equal(a[0].layers[LAYER_FS].busy_ns, 0);
	assert_true(a[0].closure_pct > 139.999 && a[0].closure_pct < 140.001);
	/* crypt cannot see writes here: unavailable, whatever it holds. */
	assert_int_equal(a[0].layers[LAYER_CRYPT].state, LAYER_UNAVAILABLE);
	assert_string_equal(a[0].layers[LAYER_CRYPT].reason,
			    "fentry: EPERM; kprobe: not built");
}

static void test_attribute_both_ops(void **state)
{
	struct attribution a[NR_OPS];

	(void)state;
	fill_reads();
	put(LAYER_SYSCALL, EB_OP_WRITE, 4, 1 * MS, 4 * MS);
	assert_int_equal(attribute(&snap, "t", "w", a), 2);
	assert_int_equal(a[0].op, EB_OP_READ);
	assert_int_equal(a[1].op, EB_OP_WRITE);
	/* Nothing below: all of it is fs. */
	assert_int_equal(a[1].layers[LAYER_FS].busy_ns, 4 * MS);

	memset(&snap.stats, 0, sizeof(snap.stats));
	assert_int_equal(attribute(&snap, "t", "w", a), 0);
}

static void test_verdict_crypto_bound(void **state)
{
	struct attribution a[NR_OPS];
	struct target_info t;
	struct verdict v;

	(void)state;
	fill_reads();
	fscrypt_target(&t);
	assert_int_equal(attribute(&snap, "fscrypt", "dd", a), 1);
	verdict_for(&a[0], &t, &v);
	assert_string_equal(v.target, "fscrypt");
	assert_string_equal(v.workload, "dd");
	assert_int_equal(v.op, EB_OP_READ);
	assert_string_equal(v.summary,
			    "reads are crypto-bound: 94 % in crypt, cipher "
			    "driver xts(ecb(aes-fixed-time)) has no hardware "
			    "AES");
	assert_true(v.nr_evidence >= 3 && v.nr_evidence <= MAX_EVIDENCE);
	/* Largest share first, with its figures. */
	assert_contains(v.evidence[0], "crypt: 94 % of read time");
	assert_contains(v.evidence[0], "mean 18.8 ms per work item over 50");
	assert_true(has_evidence(&v, "device: 3 % of read time"));
	assert_true(has_evidence(&v, "driver xts(ecb(aes-fixed-time)) "
				     "(no hardware AES)"));
	assert_true(has_evidence(&v, "closure: layers add up to 100 %"));

	t.encryption.hw_accel = true;
	snprintf(t.encryption.driver, sizeof(t.encryption.driver),
		 "xts-aes-aesni");
	verdict_for(&a[0], &t, &v);
	assert_contains(v.summary, "cipher driver xts-aes-aesni uses "
				   "hardware AES");
}

static void test_verdict_device_bound(void **state)
{
	struct attribution a[NR_OPS];
	struct target_info t = {.name = "plain", .kind = "plain"};
	struct verdict v;

	(void)state;
	put(LAYER_SYSCALL, EB_OP_WRITE, 100, 10 * MS, 1 * SEC);
	put(LAYER_BLK_QUEUE, EB_OP_WRITE, 100, 100000, 10 * MS);
	put(LAYER_DEVICE, EB_OP_WRITE, 100, 1900000, 710 * MS);
	assert_int_equal(attribute(&snap, "plain", "dd", a), 1);
	verdict_for(&a[0], &t, &v);
	assert_string_equal(v.summary, "writes are device-bound: 71 % in "
				       "device (mean 1.90 ms per request)");
	assert_contains(v.evidence[0], "device: 71 % of write time");
	assert_contains(v.evidence[1], "fs: 28 % of write time");
	assert_contains(v.evidence[2], "blk-queue: 1 % of write time");
	/* A plain target has no cipher to name and nothing missing. */
	assert_false(has_evidence(&v, "driver"));
	assert_false(has_evidence(&v, "crypt for"));
	assert_true(has_evidence(&v, "closure: layers add up to 100 % of "
				     "write syscall time (mean 10.0 ms"));
}

/* fscrypt writes on a kernel without fentry/kprobes: the crypto time is
 * inside fs, and the verdict must say so and why. */
static void test_verdict_crypt_unavailable(void **state)
{
	struct attribution a[NR_OPS];
	struct target_info t;
	struct verdict v;

	(void)state;
	fscrypt_target(&t);
	put(LAYER_SYSCALL, EB_OP_WRITE, 10, 100 * MS, 1 * SEC);
	put(LAYER_DEVICE, EB_OP_WRITE, 40, 5 * MS, 200 * MS);
	assert_int_equal(attribute(&snap, "fscrypt", "dd", a), 1);
	verdict_for(&a[0], &t, &v);
	assert_contains(v.summary, "writes are filesystem-bound: 80 % in fs");
	assert_contains(v.summary, "includes the crypto time");
	assert_contains(v.summary, "fentry: EPERM; kprobe: not built");
	assert_true(has_evidence(&v, "crypt for writes: unavailable "
				     "(fentry: EPERM; kprobe: not built)"));
	assert_true(has_evidence(&v, "fs: 80 % of write time"));
	assert_true(has_evidence(&v, "device: 20 % of write time"));
	assert_true(has_evidence(&v, "closure"));
}

/* fscrypt writeback under a block plug: blk-queue dominates, and on a
 * kernel that cannot time the encryption the verdict says why. */
static void test_verdict_plugged_writeback(void **state)
{
	struct attribution a[NR_OPS];
	struct target_info t;
	struct verdict v;

	(void)state;
	fscrypt_target(&t);
	put(LAYER_SYSCALL, EB_OP_WRITE, 70, 10 * MS, 740 * MS);
	put(LAYER_BLK_QUEUE, EB_OP_WRITE, 113, 68 * MS, 655 * MS);
	put(LAYER_DEVICE, EB_OP_WRITE, 113, 21 * MS, 160 * MS);
	assert_int_equal(attribute(&snap, "fscrypt", "dd", a), 1);
	verdict_for(&a[0], &t, &v);
	assert_contains(v.summary, "writes are block-queue-bound: 89 % in "
				   "blk-queue (mean 68.0 ms per request)");
	assert_contains(v.summary, "includes crypto time");
	assert_contains(v.summary, "unavailable (fentry: EPERM");
	/* Both lower layers add up past the syscalls: closure says so. */
	assert_true(has_evidence(&v, "closure: layers add up to 110 %"));
}

static void test_verdict_other_layers(void **state)
{
	struct attribution a[NR_OPS];
	struct verdict v;

	(void)state;
	put(LAYER_SYSCALL, EB_OP_READ, 10, 100 * MS, 1 * SEC);
	put(LAYER_CRYPT_QUEUE, EB_OP_READ, 10, 60 * MS, 600 * MS);
	put(LAYER_CRYPT, EB_OP_READ, 10, 10 * MS, 100 * MS);
	assert_int_equal(attribute(&snap, "luks", "dd", a), 1);
	verdict_for(&a[0], NULL, &v);
	assert_contains(v.summary, "reads wait for crypto workers: 60 % in "
				   "crypt-queue (mean 60.0 ms queued");

	memset(&snap.stats, 0, sizeof(snap.stats));
	put(LAYER_SYSCALL, EB_OP_READ, 10, 100 * MS, 1 * SEC);
	put(LAYER_BLK_QUEUE, EB_OP_READ, 10, 55 * MS, 550 * MS);
	assert_int_equal(attribute(&snap, "plain", "dd", a), 1);
	verdict_for(&a[0], NULL, &v);
	assert_contains(v.summary, "reads are block-queue-bound: 55 % in "
				   "blk-queue");

	/* Syscalls with no busy time at all: say so, no division by 0. */
	memset(&snap.stats, 0, sizeof(snap.stats));
	snap.stats[LAYER_SYSCALL][EB_OP_READ].count = 3;
	assert_int_equal(attribute(&snap, "plain", "dd", a), 1);
	assert_true(a[0].closure_pct == 0.0);
	verdict_for(&a[0], NULL, &v);
	assert_contains(v.summary, "no time was measured");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_attribute_math, setup),
		cmocka_unit_test_setup(test_attribute_overlap, setup),
		cmocka_unit_test_setup(test_attribute_both_ops, setup),
		cmocka_unit_test_setup(test_attribute_dropped, setup),
		cmocka_unit_test_setup(test_verdict_crypto_bound, setup),
		cmocka_unit_test_setup(test_verdict_device_bound, setup),
		cmocka_unit_test_setup(test_verdict_crypt_unavailable, setup),
		cmocka_unit_test_setup(test_verdict_plugged_writeback, setup),
		cmocka_unit_test_setup(test_verdict_other_layers, setup),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
