// SPDX-License-Identifier: MIT
/*
 * The short report's verdict lines (analysis/brief.c) on hand-made wait
 * decompositions: the added time and its causes with their shares, the
 * largest saving, the cipher driver where decryption dominates, the own
 * time without a baseline; and which verdicts are headlines: reads and
 * writes (unless under 5 % of their phase), another op only when it holds
 * a quarter of the time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis.h"

#define MS 1000000ull

/* n calls of op whose components (by layer, summed over the calls) are
 * comps[]: what wait_result_from() would make of a phase. */
static void attribution(struct attribution *a, const char *target, int op,
			const uint64_t comps[NR_LAYERS], uint64_t n)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->target, sizeof(a->target), "%s", target);
	snprintf(a->workload, sizeof(a->workload), "dd");
	a->op = op;
	a->wait.available = true;
	a->wait.syscalls = n;
	for (int l = LAYER_FS; l < NR_LAYERS; l++) {
		a->wait.ns[l] = comps[l];
		a->wait.total_ns += comps[l];
	}
}

static void fscrypt_info(struct target_info *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "fscrypt");
	snprintf(t->kind, sizeof(t->kind), "fscrypt");
	t->encrypted = true;
	snprintf(t->encryption.driver, sizeof(t->encryption.driver),
		 "xts(ecb(aes-fixed-time))");
}

static void test_added_causes_and_shares(void **state)
{
	/* Per read: 1 ms on plain, 12 ms on fscrypt: +11 ms, of which
	 * decryption +7.5 ms (68 %), cpu-wait +3.5 ms (32 %), fs +0.3 ms
	 * (3 %: left out) and the device -0.3 ms (-3 %: no saving to say). */
	uint64_t plain[NR_LAYERS] = {[LAYER_FS] = 10 * MS,
				     [LAYER_DEVICE] = 70 * MS,
				     [LAYER_CPU_WAIT] = 20 * MS};
	uint64_t enc[NR_LAYERS] = {[LAYER_FS] = 40 * MS,
				   [LAYER_CRYPT] = 750 * MS,
				   [LAYER_DEVICE] = 40 * MS,
				   [LAYER_CPU_WAIT] = 370 * MS};
	struct attribution a, b;
	struct target_info t;
	struct verdict v;

	(void)state;
	attribution(&b, "plain", EB_OP_READ, plain, 100);
	attribution(&a, "fscrypt", EB_OP_READ, enc, 100);
	fscrypt_info(&t);
	verdict_wait(&a, &b, &t, true, &v);
	assert_string_equal(v.brief,
			    "1100 % slower than plain (+11.0 ms per read): "
			    "decryption 7.50 ms (68 %), CPU contention 3.50 ms "
			    "(32 %); cipher driver xts(ecb(aes-fixed-time)), "
			    "software AES (the CPU has AES instructions)");
	/* The whole phase's added time: 11 ms times 100 reads. */
	assert_float_equal(v.phase_ns, 1100.0 * MS, 1);
}

static void test_saving_said(void **state)
{
	/* Writes: the file system adds 15 ms, the device saves 2 ms. */
	uint64_t plain[NR_LAYERS] = {
		[LAYER_FS] = 100 * MS, [LAYER_DEVICE] = 300 * MS};
	uint64_t enc[NR_LAYERS] = {
		[LAYER_FS] = 1600 * MS, [LAYER_DEVICE] = 100 * MS};
	struct attribution a, b;
	struct target_info t;
	struct verdict v;

	(void)state;
	attribution(&b, "plain", EB_OP_WRITE, plain, 100);
	attribution(&a, "fscrypt", EB_OP_WRITE, enc, 100);
	fscrypt_info(&t);
	verdict_wait(&a, &b, &t, true, &v);
	assert_string_equal(v.brief,
			    "325 % slower than plain (+13.0 ms per write): "
			    "file system 15.0 ms (115 %); device -2.00 ms "
			    "(-15 %)");
}

static void test_own_time(void **state)
{
	uint64_t plain[NR_LAYERS] = {[LAYER_FS] = 60 * MS,
				     [LAYER_DEVICE] = 530 * MS,
				     [LAYER_CPU_WAIT] = 410 * MS};
	struct attribution a;
	struct verdict v;

	(void)state;
	attribution(&a, "plain", EB_OP_READ, plain, 100);
	verdict_wait(&a, NULL, NULL, true, &v);
	assert_string_equal(v.brief, "10.0 ms per read: device 5.30 ms (53 %), "
				     "CPU contention 4.10 ms (41 %), file "
				     "system 600 us (6 %)");
	assert_float_equal(v.phase_ns, 1000.0 * MS, 1);
	/* Nothing measured: no line, no time. */
	memset(&a.wait, 0, sizeof(a.wait));
	a.wait.available = true;
	verdict_wait(&a, NULL, NULL, true, &v);
	assert_string_equal(v.brief, "");
	assert_float_equal(v.phase_ns, 0, 0);
}

/* cipher_null does no cipher work: neither "decryption" nor a driver. */
static void test_cipher_null(void **state)
{
	uint64_t plain[NR_LAYERS] = {[LAYER_DEVICE] = 100 * MS};
	uint64_t ctl[NR_LAYERS] = {
		[LAYER_CRYPT] = 300 * MS, [LAYER_DEVICE] = 100 * MS};
	struct target_info t = {.name = "luks2", .kind = "luks2-cipher_null"};
	struct attribution a, b;
	struct verdict v;

	(void)state;
	attribution(&b, "plain", EB_OP_READ, plain, 100);
	attribution(&a, "luks2", EB_OP_READ, ctl, 100);
	verdict_wait(&a, &b, &t, true, &v);
	assert_non_null(strstr(v.brief, "dm-crypt's work (cipher_null) "
					"3.00 ms (100 %)"));
	assert_null(strstr(v.brief, "decryption"));
	assert_null(strstr(v.brief, "cipher driver"));
}

static void test_headlines(void **state)
{
	struct verdict v[4] = {
		{.op = EB_OP_READ, .phase_ns = 400},
		{.op = EB_OP_WRITE, .phase_ns = 100},
		{.op = EB_OP_SYNC, .phase_ns = 400},
		{.op = EB_OP_CREATE, .phase_ns = 99},
	};

	(void)state;
	/* sync holds 400 of 999 (a quarter and more), create 10 %. */
	verdict_headlines(v, 4);
	assert_true(v[0].headline && v[1].headline && v[2].headline);
	assert_false(v[3].headline);
	/* A read with no time measured is no headline. */
	v[0].phase_ns = 0;
	v[2].phase_ns = 40;
	verdict_headlines(v, 4);
	assert_false(v[0].headline);
	assert_true(v[1].headline);
	assert_false(v[2].headline);
	/* A write that is a sliver of its phase (fio's own, in a read job:
	 * under 5 %) is no headline; at 5 % it is. */
	v[0].phase_ns = 2000;
	v[1].phase_ns = 100;
	v[2].phase_ns = 0;
	v[3].phase_ns = 0;
	verdict_headlines(v, 4);
	assert_true(v[0].headline);
	assert_false(v[1].headline);
	v[1].phase_ns = 106;
	verdict_headlines(v, 4);
	assert_true(v[1].headline);
	/* Reaping is no headline, nor in the sum the shares are of: the
	 * write's 106 stays 5 % of the phase beside 1000 of reaping. */
	v[3].op = EB_OP_REAP;
	v[3].phase_ns = 1000;
	verdict_headlines(v, 4);
	assert_true(v[0].headline && v[1].headline);
	assert_false(v[3].headline);
	v[3].op = EB_OP_CREATE;
	v[3].phase_ns = 0;
	/* A workload without reads or writes: its slow op stands alone. */
	v[0].op = v[1].op = EB_OP_CREATE;
	v[0].phase_ns = v[1].phase_ns = 1;
	v[2].phase_ns = 1000;
	verdict_headlines(v, 4);
	assert_true(v[2].headline);
	assert_false(v[0].headline || v[1].headline || v[3].headline);
	/* No wait decomposition at all: the reads and writes, by summary. */
	for (int i = 0; i < 4; i++)
		v[i].phase_ns = 0;
	v[0].op = EB_OP_READ;
	verdict_headlines(v, 4);
	assert_true(v[0].headline);
	assert_false(v[1].headline || v[2].headline || v[3].headline);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_added_causes_and_shares),
		cmocka_unit_test(test_saving_said),
		cmocka_unit_test(test_own_time),
		cmocka_unit_test(test_cipher_null),
		cmocka_unit_test(test_headlines),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
