// SPDX-License-Identifier: MIT
/* The one duration formatter: units, rounding, and the unit boundaries. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/fmt_time.h"

static void expect(double ns, const char *want)
{
	char buf[FMT_NS_LEN];

	assert_string_equal(fmt_ns(buf, sizeof(buf), ns), want);
}

static void test_units(void **state)
{
	(void)state;
	expect(0, "0 ns");
	expect(850, "850 ns");
	expect(12345, "12.3 us");
	expect(1.9e6, "1.90 ms");
	expect(2.31e9, "2.31 s");
	expect(1234.5e9, "1235 s"); /* seconds keep their units */
	expect(-6.5e6, "-6.50 ms");
	expect(-0.4, "0 ns"); /* no "-0" */
	expect(NAN, "-");
	expect(INFINITY, "10000000000 s"); /* clamped, not undefined */
}

/* Rounded to the ns, then half up to three digits; the unit is chosen
 * after rounding, so no "1000 us" and no four-digit "100.0 us". */
static void test_boundaries(void **state)
{
	(void)state;
	expect(999, "999 ns");
	expect(999.4, "999 ns");
	expect(999.5, "1.00 us");
	expect(1000, "1.00 us");
	expect(1004, "1.00 us");
	expect(1005, "1.01 us");
	expect(9994, "9.99 us");
	expect(9995, "10.0 us");
	expect(99949, "99.9 us");
	expect(99950, "100 us");
	expect(999499, "999 us");
	expect(999500, "1.00 ms");
	expect(999499999, "999 ms");
	expect(999500000, "1.00 s");
	expect(1e9 - 1, "1.00 s");
}

/* A short buffer truncates, never overflows. */
static void test_short_buffer(void **state)
{
	char buf[4];

	(void)state;
	assert_string_equal(fmt_ns(buf, sizeof(buf), 12345), "12.");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_boundaries),
		cmocka_unit_test(test_short_buffer),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
