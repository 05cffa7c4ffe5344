// SPDX-License-Identifier: MIT
/* log2 latency histogram: slot boundaries and percentiles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "stats/stats.h"

static void test_slot_boundaries(void **state)
{
	(void)state;
	assert_int_equal(hist_slot(0), 0);
	assert_int_equal(hist_slot(1), 0);
	assert_int_equal(hist_slot(2), 1);
	assert_int_equal(hist_slot(3), 1);
	assert_int_equal(hist_slot(4), 2);
	assert_int_equal(hist_slot(1023), 9);
	assert_int_equal(hist_slot(1024), 10);
	assert_int_equal(hist_slot(1025), 10);
	assert_int_equal(hist_slot((1ULL << 39) - 1), 38);
	assert_int_equal(hist_slot(1ULL << 39), HIST_SLOTS - 1);
	/* Everything past the last slot lands in it. */
	assert_int_equal(hist_slot(1ULL << 40), HIST_SLOTS - 1);
	assert_int_equal(hist_slot(UINT64_MAX), HIST_SLOTS - 1);
}

static void test_slot_bounds(void **state)
{
	(void)state;
	assert_true(hist_slot_low(0) == 0);
	assert_true(hist_slot_high(0) == 2);
	assert_true(hist_slot_low(1) == 2);
	assert_true(hist_slot_high(1) == 4);
	assert_true(hist_slot_low(10) == 1024);
	assert_true(hist_slot_high(10) == 2048);
	assert_true(hist_slot_low(HIST_SLOTS - 1) == 1ULL << 39);
	assert_true(hist_slot_high(HIST_SLOTS - 1) == UINT64_MAX);
	assert_true(hist_slot_high(-1) == 0);
	assert_true(hist_slot_low(HIST_SLOTS) == 0);
	/* Every value lies inside the bounds of its slot. */
	for (uint64_t v = 0; v < 5000; v += 7) {
		int s = hist_slot(v);

		assert_true(hist_slot_low(s) <= v && v < hist_slot_high(s));
	}
}

static void test_percentile_single_slot(void **state)
{
	uint64_t h[HIST_SLOTS] = {0};

	(void)state;
	assert_true(hist_percentile(h, HIST_SLOTS, 50) == 0);
	h[10] = 4; /* [1024, 2048) */
	assert_true(hist_percentile(h, HIST_SLOTS, 0) == 1024);
	assert_true(hist_percentile(h, HIST_SLOTS, 50) == 1536);
	assert_true(hist_percentile(h, HIST_SLOTS, 25) == 1280);
	/* Never past the slot: its high bound is exclusive. */
	assert_true(hist_percentile(h, HIST_SLOTS, 100) == 2047);
	assert_true(hist_percentile(h, HIST_SLOTS, 250) == 2047);
	assert_true(hist_percentile(h, HIST_SLOTS, -5) == 1024);
}

static void test_percentile_spread(void **state)
{
	uint64_t h[HIST_SLOTS] = {0};

	(void)state;
	h[0] = 50;  /* [0, 2) */
	h[10] = 40; /* [1024, 2048) */
	h[20] = 10; /* [1 Mi, 2 Mi) */
	assert_true(hist_percentile(h, HIST_SLOTS, 25) == 1);
	assert_true(hist_percentile(h, HIST_SLOTS, 50) == 1);
	assert_true(hist_percentile(h, HIST_SLOTS, 70) == 1024 + 512);
	assert_true(hist_percentile(h, HIST_SLOTS, 95) ==
		    (1ULL << 20) + (1ULL << 19));
	assert_true(hist_percentile(h, HIST_SLOTS, 99) ==
		    (1ULL << 20) + (uint64_t)(0.9 * (1ULL << 20)));
	/* A shorter view of the same array ignores the slots past it. */
	assert_true(hist_percentile(h, 11, 99) < 2048);
}

static void test_percentile_last_slot(void **state)
{
	uint64_t h[HIST_SLOTS] = {0};

	(void)state;
	h[HIST_SLOTS - 1] = 2;
	/* Interpolated over its nominal width [2^39, 2^40). */
	assert_true(hist_percentile(h, HIST_SLOTS, 50) ==
		    (1ULL << 39) + (1ULL << 38));
	assert_true(hist_percentile(h, HIST_SLOTS, 100) == (1ULL << 40) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_boundaries),
		cmocka_unit_test(test_slot_bounds),
		cmocka_unit_test(test_percentile_single_slot),
		cmocka_unit_test(test_percentile_spread),
		cmocka_unit_test(test_percentile_last_slot),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
