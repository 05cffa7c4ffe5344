// SPDX-License-Identifier: MIT
/*
 * Async I/O attributed per I/O, through the real program on real loop
 * devices: fio's QD4 random 4 KiB reads with libaio and with io_uring on
 * plain and fscrypt. The
 * I/Os' mean completion latency must agree with fio's own (clat mean of the
 * traced iterations) within 10 %: the followed I/Os' layers, which close at
 * their latency by construction (layers + reaping), with the page cache hits
 * that had no bio (fscrypt's O_DIRECT is buffered here, and once the 64 MiB
 * file is cached most reads are hits: their latency is their reaping). On
 * plain the verdict must be on the completion latency and name the device.
 *
 * The test runs the program at a real-time priority (SCHED_FIFO, which
 * fio inherits): on a machine shared with other work, fio's own wait for
 * a CPU before it sees a completion would otherwise be what the verdict
 * names, and the device share it checks would be the load's.
 */
#include <math.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "leftovers.h"
#include "results_json.h"
#include "run_prog.h"

static char tmp[] = "/var/tmp/encbench-aio.XXXXXX";
static char ids_file[PATH_MAX];
static const char *const layers[] = {
	"fs", "crypt-queue", "crypt",  "dmcrypt-write",
	"dm", "blk-queue",   "device", "cpu-wait"};

static int setup(void **state)
{
	struct sched_param sp = {.sched_priority = 10};

	(void)state;
	if (run_prog_begin(tmp))
		return -1;
	run_prog_record_ids(tmp, ids_file);
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		perror("# sched_setscheduler(SCHED_FIFO)");
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return remove_tree(tmp);
}

static double num(struct json_object *o, const char *k)
{
	return json_object_get_double(get(o, k));
}

/* The I/Os fio completed in the traced iterations of target's read job
 * (its clat mean's traced_mean_n, added up). */
static double fio_traced_ios(struct json_object *doc, const char *target)
{
	static const char clat[] = "_clat_mean_us";
	struct json_object *res = get(doc, "results"), *n;
	double ios = 0;

	for (size_t i = 0; i < json_object_array_length(res); i++) {
		struct json_object *r = json_object_array_get_idx(res, i);
		const char *m = json_object_get_string(get(r, "metric"));
		size_t lm = strlen(m), lc = sizeof(clat) - 1;

		if (strcmp(json_object_get_string(get(r, "target")), target) ||
		    lm < lc || strcmp(m + lm - lc, clat))
			continue;
		n = get(r, "traced_mean_n");
		for (size_t k = 0; k < json_object_array_length(n); k++)
			ios += json_object_get_double(
				json_object_array_get_idx(n, k));
		return ios;
	}
	fail_msg("no clat mean on %s", target);
	return 0;
}

/* The per-I/O figures of (target, read) agree with fio's own clat. */
static void check_clat(struct json_object *doc, const char *target,
		       const char *engine)
{
	struct json_object *aio = get(attrib_of(doc, target, "read"), "aio");
	struct json_object *cl = get(aio, "clat_layers_ns");
	double sum = num(aio, "reap_ns"), fio_ios = fio_traced_ios(doc, target);
	double seen =
		num(aio, "ios") + num(aio, "unlinked") + num(aio, "dropped");

	for (size_t i = 0; i < sizeof(layers) / sizeof(*layers); i++)
		sum += num(cl, layers[i]);
	fprintf(stderr,
		"# %s %s: %.0f I/Os followed, layers %.1f us; with %.0f "
		"unfollowed %.1f us, fio's clat %.1f us (%+.1f %%)\n",
		target, engine, num(aio, "ios"), num(aio, "clat_ns") / 1e3,
		num(aio, "unlinked"), num(aio, "all_clat_ns") / 1e3,
		num(aio, "fio_clat_us"), num(aio, "fio_diff_pct"));
	fprintf(stderr, "# %s %s: %.0f I/Os seen, fio completed %.0f\n", target,
		engine, seen, fio_ios);
	/* Every I/O fio completed in the traced iterations was seen, timed
	 * or counted as not (2026-12-06: short by 0-71 of 7486-2850924, the
	 * I/Os in flight as the window closed). */
	assert_true(fio_ios > 0);
	if (fabs(seen - fio_ios) > 0.005 * fio_ios + 64)
		fail_msg("%s %s: %.0f I/Os seen, fio completed %.0f", target,
			 engine, seen, fio_ios);
	/* Enough I/Os, and some followed (a 1 MiB file's 256 blocks give at
	 * most 256 misses an iteration, fewer where readahead came first). */
	assert_true(num(aio, "ios") + num(aio, "unlinked") > 1000);
	assert_true(num(aio, "ios") >= 100);
	if (!strcmp(engine, "io_uring"))
		assert_true(num(aio, "iouring") == num(aio, "ios"));
	else
		assert_true(num(aio, "iouring") == 0);
	/* The layers and the reaping make up the latency. */
	assert_true(fabs(sum - num(aio, "clat_ns")) <=
		    0.001 * num(aio, "clat_ns"));
	assert_true(num(aio, "fio_clat_us") > 0);
	if (fabs(num(aio, "fio_diff_pct")) > 10)
		fail_msg("%s %s: I/Os' mean %.1f us against fio's clat "
			 "%.1f us",
			 target, engine, num(aio, "all_clat_ns") / 1e3,
			 num(aio, "fio_clat_us"));
}

/* The program's run of fio's QD4 random reads of bs with engine on
 * targets, of a file of fio_size, `runtime` seconds an iteration, into
 * tmp/dir: its results.json. */
static struct json_object *fio_run(const char *dir, const char *targets,
				   const char *engine, const char *bs,
				   const char *fio_size, const char *runtime)
{
	char out[PATH_MAX];
	const char *args[] = {"-w",
			      "fio",
			      "-t",
			      targets,
			      "-n",
			      "1",
			      "--fio-rw",
			      "randread",
			      "--fio-bs",
			      bs,
			      "--fio-engine",
			      engine,
			      "--fio-iodepth",
			      "4",
			      "--fio-runtime",
			      runtime,
			      "--fio-size",
			      fio_size,
			      "--size",
			      "128M"};
	struct json_object *doc;

	snprintf(out, sizeof(out), "%s/%s", tmp, dir);
	doc = run_prog_results(
		tmp, "run",
		run_prog_run(tmp, out, args, sizeof(args) / sizeof(args[0])),
		out);
	assert_non_null(doc);
	return doc;
}

static void engine_run(const char *engine)
{
	struct json_object *doc =
		fio_run(engine, "plain,fscrypt", engine, "4k", "64M", "3");
	struct json_object *v, *w;
	const char *summary;

	check_clat(doc, "plain", engine);
	check_clat(doc, "fscrypt", engine);
	v = verdict_of(doc, "plain", "read");
	summary = json_object_get_string(get(v, "summary"));
	fprintf(stderr, "# plain %s: %s\n", engine, summary);
	if (!strstr(summary, "device-bound") ||
	    !strstr(summary, "completion latency is the device"))
		fail_msg("plain %s verdict: %s", engine, summary);
	/* The caller's own wait in its reaping calls (io_getevents, or
	 * io_uring_enter with min_complete), split by what woke it as a
	 * blocking call's: all of their time, most of it the device's at
	 * QD4 on plain, and in the read verdict's evidence. */
	w = wait_checked(get(attrib_of(doc, "plain", "reap"), "wait"));
	assert_true(json_object_get_uint64(get(w, "syscalls")) > 100);
	assert_true(json_object_get_uint64(get(get(w, "ns"), "device")) >
		    json_object_get_uint64(get(w, "total_ns")) / 2);
	summary = json_object_get_string(
		get(verdict_of(doc, "plain", "reap"), "summary"));
	fprintf(stderr, "# plain %s reaping: %s\n", engine, summary);
	if (!strstr(summary, "reaps are device-bound"))
		fail_msg("plain %s reaping: %s", engine, summary);
	assert_non_null(strstr(json_object_to_json_string(get(v, "evidence")),
			       "in its reaping calls: reaps are device-bound"));
	json_object_put(doc);
	assert_int_equal(leftovers_recorded(tmp, ids_file), 0);
}

static void test_libaio(void **state)
{
	(void)state;
	engine_run("libaio");
}

static void test_io_uring(void **state)
{
	(void)state;
	engine_run("io_uring");
}

/*
 * fscrypt's reads of a 1 MiB file, 256 blocks: past the first pass most
 * reads are page cache hits, whatever the machine's load (the run that
 * failed CI at 9a36b76 had the 64 MiB file cached on a quiet machine: the
 * followed misses alone came to +126 % of fio's clat). io_uring serves a
 * hit inside the submitting call and fio reads its CQE from the ring
 * later, when its queue is full: timed submission to CQE, hits came to
 * -85 % of fio's clat (2.6 us against 17.7).
 */
static void page_cache_hits(const char *engine)
{
	char dir[32];
	struct json_object *doc, *aio;

	snprintf(dir, sizeof(dir), "cached-%s", engine);
	doc = fio_run(dir, "fscrypt", engine, "4k", "1M", "3");
	aio = get(attrib_of(doc, "fscrypt", "read"), "aio");
	check_clat(doc, "fscrypt", engine);
	/* The hits are what is checked: more of them than misses. */
	if (num(aio, "unlinked") <= num(aio, "ios"))
		fail_msg("fscrypt %s 1M: %.0f hits, %.0f followed", engine,
			 num(aio, "unlinked"), num(aio, "ios"));
	json_object_put(doc);
	assert_int_equal(leftovers_recorded(tmp, ids_file), 0);
}

static void test_libaio_page_cache_hits(void **state)
{
	(void)state;
	page_cache_hits("libaio");
}

static void test_io_uring_page_cache_hits(void **state)
{
	(void)state;
	page_cache_hits("io_uring");
}

/*
 * An I/O of several bios: 2 MiB reads on plain, which no loop device here
 * takes in one request (max_sectors_kb 1280; iomap also cuts a bio at 256
 * pages), so each I/O is a top bio and parts split off it or queued
 * beside it, completing in any order (libaio's I/O ends with its top bio,
 * the rest of its wait in its reaping; io_uring's leaves the device with
 * the last part; 1 MiB reads were split in two only when fio's buffer was not
 * contiguous enough). The same agreement with fio's clat is asserted,
 * and that the I/Os had more than one request each; 5 s an iteration,
 * for the thousand I/Os check_clat asks of 11 ms ones.
 */
static void multi_bio_run(const char *engine)
{
	char dir[32];
	struct json_object *doc;
	const char *summary;
	double reqs, ios;

	snprintf(dir, sizeof(dir), "%s-2m", engine);
	doc = fio_run(dir, "plain", engine, "2m", "64M", "5");
	check_clat(doc, "plain", engine);
	ios = num(get(attrib_of(doc, "plain", "read"), "aio"), "ios");
	reqs = num(layer_of(doc, "plain", "read", "device"), "count");
	fprintf(stderr, "# plain %s 2m: %.0f requests for %.0f I/Os\n", engine,
		reqs, ios);
	assert_true(reqs >= 1.9 * ios);
	summary = json_object_get_string(
		get(verdict_of(doc, "plain", "read"), "summary"));
	fprintf(stderr, "# plain %s 2m: %s\n", engine, summary);
	if (!strstr(summary, "completion latency is the device"))
		fail_msg("plain %s 2m verdict: %s", engine, summary);
	json_object_put(doc);
	assert_int_equal(leftovers_recorded(tmp, ids_file), 0);
}

static void test_multi_bio(void **state)
{
	(void)state;
	multi_bio_run("libaio");
	multi_bio_run("io_uring");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libaio),
		cmocka_unit_test(test_io_uring),
		cmocka_unit_test(test_libaio_page_cache_hits),
		cmocka_unit_test(test_io_uring_page_cache_hits),
		cmocka_unit_test(test_multi_bio),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
