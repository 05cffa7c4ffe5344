// SPDX-License-Identifier: MIT
/*
 * The fio workload without running fio: its reading of a captured
 * `fio --output-format=json` (fio 3.33, 4 KiB random read, io_uring,
 * tests/unit/fio-randread-4k.json), per job side and as a job file's
 * totals, and its parameters: the jobs, their
 * metrics and directions, and bad values refused with a reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/results.h"
#include "workload/fio.h"
#include "workload/workload.h"

#define FIXTURE "tests/unit/fio-randread-4k.json"

static char *fixture(void)
{
	FILE *f = fopen(FIXTURE, "r");
	char *buf = calloc(1, 1 << 16);
	size_t n;

	assert_non_null(f);
	assert_non_null(buf);
	n = fread(buf, 1, (1 << 16) - 1, f);
	fclose(f);
	assert_true(n > 1000);
	return buf;
}

/* Replace the first `from` in text by `to` (no longer than from). */
static void edit(char *text, const char *from, const char *to)
{
	char *at = strstr(text, from);

	assert_non_null(at);
	assert_true(strlen(to) <= strlen(from));
	memmove(at + strlen(to), at + strlen(from),
		strlen(at + strlen(from)) + 1);
	memcpy(at, to, strlen(to));
}

static void test_read_side(void **state)
{
	struct fio_figures f;
	char why[DETAIL_LEN] = "";
	char *text = fixture();

	(void)state;
	assert_int_equal(fio_parse_json(text, true, &f, why, sizeof(why)), 0);
	/* The capture's own figures: bw_bytes 154490261, iops, clat in ns. */
	assert_float_equal(f.mbps, 154.490261, 1e-9);
	assert_float_equal(f.iops, 37717.348928, 1e-6);
	assert_float_equal(f.io_bytes, 79253504, 0.5);
	assert_float_equal(f.runtime_s, 0.513, 1e-9);
	assert_float_equal(f.clat_p50_us, 150.528, 1e-9);
	assert_float_equal(f.clat_p99_us, 4554.752, 1e-9);
	assert_float_equal(f.clat_p999_us, 20316.16, 1e-9);
	assert_true(f.clat_mean_us > f.clat_p50_us); /* a long tail */
	/* Bandwidth is bytes over time, and IOPS times 4 KiB. */
	assert_float_equal(f.mbps * 1e6 * f.runtime_s, f.io_bytes,
			   0.01 * f.io_bytes);
	assert_float_equal(f.iops * 4096, f.mbps * 1e6, 0.01 * f.mbps * 1e6);
	free(text);
}

/* A job file's totals: here one job of reads, so the read side. */
static void test_totals(void **state)
{
	struct fio_figures side, all;
	char why[DETAIL_LEN] = "";
	char *text = fixture();

	(void)state;
	assert_int_equal(fio_parse_json(text, true, &side, why, sizeof(why)),
			 0);
	assert_int_equal(fio_parse_totals(text, &all, why, sizeof(why)), 0);
	assert_float_equal(all.mbps, side.mbps, 1e-9);
	assert_float_equal(all.iops, side.iops, 1e-9);
	assert_float_equal(all.io_bytes, side.io_bytes, 0.5);
	assert_float_equal(all.clat_mean_us, side.clat_mean_us, 1e-9);
	assert_float_equal(all.runtime_s, 0.513, 1e-9);
	edit(text, "\"io_bytes\" : 79253504", "\"io_bytes\" : 0");
	assert_int_equal(fio_parse_totals(text, &all, why, sizeof(why)), -1);
	assert_string_equal(why, "fio's jobs did no I/O");
	free(text);
}

static void test_refusals(void **state)
{
	struct fio_figures f;
	char why[DETAIL_LEN];
	char *text = fixture();

	(void)state;
	/* A read job did no writes. */
	assert_int_equal(fio_parse_json(text, false, &f, why, sizeof(why)), -1);
	assert_string_equal(why, "fio did no write I/O");
	assert_int_equal(fio_parse_json("fio: engine x not loadable", true, &f,
					why, sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "not its JSON"));
	edit(text, "\"99.900000\"", "\"99.9\"");
	assert_int_equal(fio_parse_json(text, true, &f, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "lacks the read figures"));
	edit(text, "\"error\" : 0", "\"error\" : 5");
	assert_int_equal(fio_parse_json(text, true, &f, why, sizeof(why)), -1);
	assert_string_equal(why, "fio's job failed: error 5");
	free(text);
}

static int set(void *p, const char *key, const char *value)
{
	char why[DETAIL_LEN] = "";
	int rc = workload_find("fio")->set(p, key, value, why, sizeof(why));

	if (rc)
		assert_true(why[0] && !strchr(why, '\n'));
	return rc;
}

static void test_params(void **state)
{
	const struct workload_ops *w = workload_find("fio");
	struct metric_def m[MAX_METRICS];
	void *p = workload_params_new(w);

	(void)state;
	assert_non_null(p);
	/* The Phoronix set: 4 jobs of 6 metrics, rates higher-is-better. */
	assert_int_equal(w->metrics(p, m), 24);
	assert_string_equal(m[0].name, "randread_4k_mbps");
	assert_true(m[0].higher_is_better);
	assert_string_equal(m[1].name, "randread_4k_iops");
	assert_true(m[1].higher_is_better);
	assert_string_equal(m[8].name, "randwrite_4k_clat_mean_us");
	assert_false(m[8].higher_is_better);
	assert_string_equal(m[23].name, "write_4m_clat_p999_us");
	assert_false(m[23].higher_is_better);
	/* Block sizes follow the modes until given, then pair with them. */
	assert_int_equal(set(p, "rw", "read,randwrite"), 0);
	assert_int_equal(w->metrics(p, m), 12);
	assert_string_equal(m[0].name, "read_4m_mbps");
	assert_string_equal(m[6].name, "randwrite_4k_mbps");
	assert_int_equal(set(p, "bs", "64k"), 0);
	w->metrics(p, m);
	assert_string_equal(m[6].name, "randwrite_64k_mbps");
	assert_int_equal(set(p, "bs", "1m,8k"), 0);
	w->metrics(p, m);
	assert_string_equal(m[0].name, "read_1m_mbps");
	assert_string_equal(m[6].name, "randwrite_8k_mbps");
	assert_int_equal(set(p, "size", "16M"), 0);
	assert_int_equal(w->space_needed(p), 16 << 20);
	/* Refused, with a one-line reason. */
	assert_int_equal(set(p, "rw", "randrw"), -1);
	assert_int_equal(set(p, "rw", ""), -1);
	assert_int_equal(set(p, "bs", "1000"), -1);
	assert_int_equal(set(p, "runtime", "50ms"), -1);
	assert_int_equal(set(p, "runtime", "ten"), -1);
	assert_int_equal(set(p, "iodepth", "0"), -1);
	assert_int_equal(set(p, "engine", "../x"), -1);
	assert_int_equal(set(p, "rw",
			     "read,read,read,read,read,read,read,read,"
			     "read,read,read"),
			 -1);
	assert_int_equal(set(p, "job", "tests/unit/no-such.fio"), -1);
	assert_int_equal(set(p, "job", "tests/unit"), -1);
	/* A job file (any regular file here: fio judges it in check()). */
	assert_int_equal(set(p, "job", FIXTURE), 0);
	assert_int_equal(w->metrics(p, m), 3);
	assert_string_equal(m[0].name, "job_mbps");
	assert_true(m[1].higher_is_better);
	assert_false(m[2].higher_is_better);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_side),
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_params),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
