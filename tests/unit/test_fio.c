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
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "common/results.h"
#include "workload/fio.h"
#include "workload/fio_jobfile.h"
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

/* The calls fio timed: clat's N and mean make their count and sum; json+'s
 * bins (value in ns: count) fill log2 slots of ns as the tracer's, the
 * largest above the last slot clamped into it; plain json has none. */
static void test_calls_from_clat(void **state)
{
	struct json_object *root, *jobs, *rd, *clat, *bins;
	struct fio_figures f, two;
	char why[DETAIL_LEN] = "";
	char *text = fixture();
	unsigned long long n = 0;
	const char *plus;

	(void)state;
	assert_int_equal(fio_parse_json(text, true, &f, why, sizeof(why)), 0);
	assert_float_equal(f.clat_n, 19349, 1e-9);
	assert_float_equal(f.clat_sum_ns, 404140.560029 * 19349, 1);
	for (int i = 0; i < FIO_LOG2_SLOTS; i++)
		assert_int_equal(f.clat_log2[i], 0);
	root = json_tokener_parse(text);
	assert_true(json_object_object_get_ex(root, "jobs", &jobs));
	assert_true(json_object_object_get_ex(
		json_object_array_get_idx(jobs, 0), "read", &rd));
	assert_true(json_object_object_get_ex(rd, "clat_ns", &clat));
	bins = json_object_new_object();
	json_object_object_add(bins, "1000", json_object_new_int(3));
	json_object_object_add(bins, "1500", json_object_new_int(2));
	json_object_object_add(bins, "4096", json_object_new_int(5));
	json_object_object_add(bins, "2251799813685248", /* 2^51 */
			       json_object_new_int(1));
	json_object_object_add(clat, "bins", bins);
	plus = json_object_to_json_string(root);
	assert_int_equal(fio_parse_json(plus, true, &f, why, sizeof(why)), 0);
	assert_int_equal(f.clat_log2[9], 3);  /* [512, 1024) */
	assert_int_equal(f.clat_log2[10], 2); /* [1024, 2048) */
	assert_int_equal(f.clat_log2[12], 5); /* [4096, 8192) */
	assert_int_equal(f.clat_log2[FIO_LOG2_SLOTS - 1], 1);
	for (int i = 0; i < FIO_LOG2_SLOTS; i++)
		n += f.clat_log2[i];
	assert_int_equal(n, 11);
	/* Clones add up. */
	json_object_array_add(
		jobs, json_object_get(json_object_array_get_idx(jobs, 0)));
	plus = json_object_to_json_string(root);
	assert_int_equal(fio_parse_job(plus, "randread-4k", true, &two, why,
				       sizeof(why)),
			 0);
	assert_float_equal(two.clat_n, 2 * f.clat_n, 1e-9);
	assert_float_equal(two.clat_sum_ns, 2 * f.clat_sum_ns, 1);
	assert_int_equal(two.clat_log2[12], 10);
	json_object_put(root);
	free(text);
}

/* A job file shaped as fio-examples' ssd-test.fio: four jobs one after
 * the other on one shared file in a folder of the user's. */
static const char ssd_test[] =
	"; four jobs, one file\n"
	"[global]\nbs=4k\nioengine=libaio\niodepth=4\nsize=10g\ndirect=1\n"
	"runtime=60\ndirectory=/mount-point-of-ssd\nfilename=ssd.test.file\n"
	"\n[seq-read]\nrw=read\nstonewall\n\n[rand-read]\nrw=randread\n"
	"stonewall\n\n[seq-write]\nrw=write\nstonewall\n\n[rand-write]\n"
	"rw=randwrite\nstonewall\n";

/* ssd_test in a file of the test's own: its path. */
static const char *ssd_test_file(void)
{
	static char path[] = "/tmp/encbench-test-fio.XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, ssd_test, strlen(ssd_test)),
			 (ssize_t)strlen(ssd_test));
	close(fd);
	return path;
}

/* A job named: its clones (numjobs) added up as fio's group_reporting
 * would (rates summed, clat mean weighted by I/Os); a name fio did not
 * run is refused. */
static void test_job_by_name(void **state)
{
	struct json_object *root, *jobs;
	struct fio_figures one, two;
	char why[DETAIL_LEN] = "";
	char *text = fixture();
	const char *doubled;

	(void)state;
	assert_int_equal(fio_parse_job(text, "randread-4k", true, &one, why,
				       sizeof(why)),
			 0);
	assert_int_equal(
		fio_parse_job(text, "other", true, &two, why, sizeof(why)), -1);
	assert_string_equal(why, "fio's JSON has no job other");
	root = json_tokener_parse(text);
	assert_true(json_object_object_get_ex(root, "jobs", &jobs));
	json_object_array_add(
		jobs, json_object_get(json_object_array_get_idx(jobs, 0)));
	doubled = json_object_to_json_string(root);
	assert_int_equal(fio_parse_job(doubled, "randread-4k", true, &two, why,
				       sizeof(why)),
			 0);
	assert_float_equal(two.mbps, 2 * one.mbps, 1e-9);
	assert_float_equal(two.iops, 2 * one.iops, 1e-6);
	assert_float_equal(two.io_bytes, 2 * one.io_bytes, 0.5);
	assert_float_equal(two.clat_mean_us, one.clat_mean_us, 1e-9);
	assert_float_equal(two.clat_p99_us, one.clat_p99_us, 1e-9);
	json_object_put(root);
	free(text);
}

static void test_job_file_jobs(void **state)
{
	struct fio_rewrite rw = {.dir = "/t"};
	char why[DETAIL_LEN] = "";
	struct fio_jobs js;

	(void)state;
	assert_int_equal(fio_jobs_parse(ssd_test, &rw, &js, why, sizeof(why)),
			 0);
	assert_int_equal(js.n, 4);
	/* Each job waits for the one before: four groups, one job each. */
	assert_int_equal(js.nr_groups, 4);
	assert_string_equal(js.job[1].name, "rand-read");
	assert_string_equal(js.job[1].rw, "randread");
	assert_string_equal(js.job[1].bs, "4k");
	assert_string_equal(js.job[1].engine, "libaio");
	assert_int_equal(js.job[1].iodepth, 4);
	assert_int_equal(js.job[1].group, 1);
	assert_true(js.job[1].reads && !js.job[1].writes);
	assert_true(js.job[3].writes && !js.job[3].reads);
	/* One shared file of 10 GiB, not four. */
	assert_int_equal(fio_jobs_space(&js), 10ULL << 30);
	rw.size = 64 << 20;
	assert_int_equal(fio_jobs_parse(ssd_test, &rw, &js, why, sizeof(why)),
			 0);
	assert_int_equal(fio_jobs_space(&js), 64 << 20);
	/* --scale: the file's own sizes times it, at least 1 MiB. */
	rw = (struct fio_rewrite){.dir = "/t", .scale = 0.01};
	assert_int_equal(fio_jobs_parse(ssd_test, &rw, &js, why, sizeof(why)),
			 0);
	assert_int_equal(js.job[0].size, ((10ULL << 30) / 100) & ~4095ULL);
	/* Jobs that run at once share a group; clones without filename=
	 * have a file each; a mixed job has both sides. */
	rw.scale = 0;
	assert_int_equal(fio_jobs_parse("[a]\nrw=randrw\nsize=1m\nnumjobs=3\n"
					"[b]\nsize=2m\n",
					&rw, &js, why, sizeof(why)),
			 0);
	assert_int_equal(js.nr_groups, 1);
	assert_true(js.job[0].reads && js.job[0].writes);
	assert_string_equal(js.job[1].rw, "read");
	assert_int_equal(fio_jobs_space(&js), 3 * (1 << 20) + (2 << 20));
	/* Refused, naming the option that helps. */
	assert_int_equal(
		fio_jobs_parse("[a]\nrw=read\n", &rw, &js, why, sizeof(why)),
		-1);
	assert_non_null(strstr(why, "job a has no size="));
	assert_non_null(strstr(why, "--fio-size"));
	assert_int_equal(
		fio_jobs_parse("[a]\nsize=50%\n", &rw, &js, why, sizeof(why)),
		-1);
	assert_non_null(strstr(why, "size=50%"));
	assert_int_equal(fio_jobs_parse("[global]\nsize=1m\n", &rw, &js, why,
					sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "no job"));
}

/* The copy: directory= and filename= point into the folder, sizes and
 * runtimes as asked, every other line as it was. */
static void test_job_file_copy(void **state)
{
	struct fio_rewrite rw = {
		.dir = "/mnt/t/fio-job", .size = 64 << 20, .runtime_s = 1.5};
	char *copy = fio_jobs_rewrite(ssd_test, "ssd-test.fio", &rw);
	const char *src = ssd_test;
	char line[256];
	int kept = 0, lines = 0;

	(void)state;
	assert_non_null(copy);
	assert_non_null(strstr(copy, "a copy of ssd-test.fio"));
	assert_non_null(strstr(copy, "\n[global]\ndirectory=/mnt/t/fio-job\n"
				     "size=67108864\nruntime=1500ms\n"));
	assert_null(strstr(copy, "mount-point-of-ssd"));
	assert_null(strstr(copy, "size=10g"));
	assert_null(strstr(copy, "runtime=60"));
	assert_non_null(strstr(copy, "\nfilename=ssd.test.file\n"));
	while (*src) {
		size_t n = strcspn(src, "\n");

		snprintf(line, sizeof(line), "\n%.*s\n", (int)n, src);
		kept += strstr(copy, line) != NULL;
		lines++;
		src += n + (src[n] == '\n');
	}
	/* All but size=, runtime= and directory=. */
	assert_int_equal(kept, lines - 3);
	free(copy);
	/* An absolute filename= (a raw device) lands in the folder too. */
	rw = (struct fio_rewrite){.dir = "/d"};
	copy = fio_jobs_rewrite("[j]\nfilename=/dev/sdb:../x\nsize=1g\n", "f",
				&rw);
	assert_non_null(strstr(copy, "\nfilename=sdb:x\nsize=1g\n"));
	free(copy);
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
	struct workload_phase ph;
	const char *job;

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
	/* A job file: each job side its six metrics, each group a phase. */
	job = ssd_test_file();
	assert_int_equal(set(p, "job", job), 0);
	unlink(job);
	assert_int_equal(w->metrics(p, m), 24);
	assert_string_equal(m[0].name, "seq-read_mbps");
	assert_string_equal(m[6].name, "rand-read_mbps");
	assert_string_equal(m[23].name, "rand-write_clat_p999_us");
	assert_int_equal(w->phases(p), 4);
	w->phase(p, 2, &ph);
	assert_string_equal(ph.name, "seq-write");
	assert_int_equal(ph.first, 12);
	assert_int_equal(ph.n, 6);
	/* Its room from its size= (one shared file), or the user's. */
	assert_int_equal(w->space_needed(p), 16 << 20);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_side),
		cmocka_unit_test(test_job_by_name),
		cmocka_unit_test(test_calls_from_clat),
		cmocka_unit_test(test_job_file_jobs),
		cmocka_unit_test(test_job_file_copy),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_params),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
