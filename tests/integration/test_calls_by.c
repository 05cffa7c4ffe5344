// SPDX-License-Identifier: MIT
/*
 * fio's own clat in place of the syscall tracepoints (issue 20: their
 * slow path costs every thread of the machine while attached). A fio job
 * with a synchronous engine times each call itself, so run's traced
 * iterations of it leave sys_enter and sys_exit detached: the call a
 * caller blocks in is read from its saved registers at each context
 * switch, and the calls' count and time are fio's. Through the real
 * program on a real loop device, 4 KiB random reads and writes at QD1
 * (psync, direct), once so and once with --syscall-tracepoints, the
 * reference:
 * - the syscall programs never ran in the first, and did in the second;
 * - createfiles, which times its creating opens itself, has as many in
 *   its syscall layer as it made files in its traced iterations;
 * - the syscall layer is fio's, and the block layer's requests, which
 *   the tracer counted itself, are one per call fio counted;
 * - the wait split adds up to fio's time with a positive on-CPU part,
 *   and the caller's wait for the device per call is what the device's own
 *   items say one request takes, as it is with the tracepoints (blocked
 *   time given to the wrong op, or lost, would leave it short).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "results_json.h"
#include "run_prog.h"

static char tmp[] = "/var/tmp/encbench-callsby.XXXXXX";
static char ids_file[PATH_MAX];
/* [0]: fio's clat (the default), [1]: --syscall-tracepoints,
 * [2]: createfiles. */
static struct json_object *doc[3];
#define FILES 400

static int one_run(int i)
{
	const char *args[] = {"-t",
			      "plain",
			      "-w",
			      "fio",
			      "--fio-rw",
			      "randread,randwrite",
			      "--fio-bs",
			      "4k",
			      "--fio-engine",
			      "psync",
			      "--fio-iodepth",
			      "1",
			      "--fio-size",
			      "32M",
			      "--fio-runtime",
			      "1s",
			      "-n",
			      "2",
			      "--syscall-tracepoints"};
	const char *files[] = {"-t",
			       "plain",
			       "-w",
			       "createfiles",
			       "--createfiles-files",
			       "400", /* FILES */
			       "-n",
			       "1",
			       "--trace-runs",
			       "2"};
	char out[PATH_MAX];
	int n = sizeof(args) / sizeof(args[0]) - (i ? 0 : 1), rc;

	snprintf(out, sizeof(out), "%s/out%d", tmp, i);
	if (i == 2)
		rc = run_prog_run(tmp, out, files,
				  sizeof(files) / sizeof(files[0]));
	else
		rc = run_prog_run(tmp, out, args, n);
	doc[i] = run_prog_results(tmp, "run", rc, out);
	return doc[i] ? 0 : -1;
}

static int setup(void **state)
{
	(void)state;
	if (run_prog_begin(tmp))
		return -1;
	run_prog_record_ids(tmp, ids_file);
	return one_run(0) || one_run(1) || one_run(2) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < 3; i++)
		if (doc[i])
			json_object_put(doc[i]);
	return remove_tree(tmp);
}

static uint64_t u64(struct json_object *o, const char *k)
{
	return json_object_get_uint64(get(o, k));
}

/* Runs of the syscall programs over each phase's costed iteration (of
 * `phases`). */
static uint64_t syscall_runs(struct json_object *d, size_t phases)
{
	struct json_object *costs = get(d, "tracer_costs");
	uint64_t runs = 0;

	assert_int_equal(json_object_array_length(costs), phases);
	for (size_t i = 0; i < json_object_array_length(costs); i++) {
		struct json_object *c = json_object_array_get_idx(costs, i);
		struct json_object *p = get(c, "programs");

		if (!json_object_get_boolean(get(c, "measured")))
			fail_msg("a cost not measured: %s",
				 json_object_get_string(get(c, "why")));
		/* The calls the workload timed, or the tracepoints did. */
		if (u64(c, "ops") <= 100)
			fail_msg("%s %s iteration %d: %llu calls in %.2f s "
				 "traced",
				 json_object_get_string(get(c, "workload")),
				 json_object_get_string(get(c, "job")),
				 json_object_get_int(get(c, "iteration")),
				 (unsigned long long)u64(c, "ops"),
				 json_object_get_double(get(c, "wall_s")));
		for (size_t k = 0; k < json_object_array_length(p); k++) {
			struct json_object *g = json_object_array_get_idx(p, k);
			const char *name =
				json_object_get_string(get(g, "name"));

			if (!strncmp(name, "sys_enter", 9) ||
			    !strncmp(name, "sys_exit", 8))
				runs += u64(g, "run_cnt");
		}
	}
	return runs;
}

static void test_no_syscall_tracepoints(void **state)
{
	(void)state;
	assert_false(json_object_get_boolean(get(
		get(get(doc[0], "meta"), "options"), "syscall_tracepoints")));
	assert_true(json_object_get_boolean(get(
		get(get(doc[1], "meta"), "options"), "syscall_tracepoints")));
	assert_int_equal(syscall_runs(doc[0], 2), 0);
	assert_int_equal(syscall_runs(doc[2], 1), 0);
	/* Every syscall of the machine ran them: fio's at least. */
	assert_true(syscall_runs(doc[1], 2) > 100);
}

/* Job's op in run i: its calls are fio's (or the tracepoints'), one
 * device request each, and its wait split is sound. */
static void check_job(int i, const char *job, const char *op)
{
	struct json_object *a = attrib_find(doc[i], "plain", job, op), *w, *sc,
			   *dev;
	const char *src;
	double per_call, ratio;

	assert_non_null(a);
	sc = layer_in(a, "syscall");
	src = json_object_get_string(get(sc, "source"));
	if (i == 0) {
		assert_non_null(strstr(src, "fio's clat of each call (psync"));
		assert_non_null(strstr(src, "no syscall tracepoint attached"));
	} else {
		assert_null(strstr(src, "fio's clat"));
	}
	assert_true(u64(sc, "count") > 100);
	/* One 4 KiB direct I/O, one request: the block tracepoints' count
	 * against fio's, within 2 %; sys_exit's also counts fio's own
	 * writes of its output, a few % more. */
	dev = layer_in(a, "device");
	assert_in_range(u64(dev, "count") * 100,
			u64(sc, "count") * (i ? 90 : 98),
			u64(sc, "count") * 102);
	w = wait_checked(get(a, "wait"));
	assert_int_equal(u64(w, "syscalls"), u64(sc, "count"));
	assert_true(u64(w, "oncpu_ns") > 0);
	/* QD1: the caller waits out its one request, give or take the issue
	 * before it blocks (in its own context) and the wakeup after the
	 * completion: 0.87-1.02 of the request's device time seen. */
	per_call = (double)u64(get(w, "ns"), "device") /
		   (double)u64(w, "syscalls");
	ratio = per_call / (double)u64(dev, "mean_ns");
	fprintf(stderr,
		"# %s %s %s: %llu calls of %.1f us, device wait %.1f us per "
		"call, device item %.1f us (%.2f), on a CPU %.1f us\n",
		i ? "tracepoints" : "fio's clat", job, op,
		(unsigned long long)u64(sc, "count"),
		u64(a, "syscall_mean_ns") / 1e3, per_call / 1e3,
		u64(dev, "mean_ns") / 1e3, ratio,
		u64(w, "oncpu_ns") / 1e3 / (double)u64(w, "syscalls"));
	assert_true(ratio >= 0.6 && ratio <= 1.1);
}

static void test_calls_are_fios(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++) {
		check_job(i, "randread_4k", "read");
		check_job(i, "randwrite_4k", "write");
	}
}

/* Its two traced iterations' creating opens, each one timed by the
 * child that made it, and no syscall tracepoint. */
static void test_createfiles(void **state)
{
	struct json_object *a, *sc, *costs;

	(void)state;
	a = attrib_of(doc[2], "plain", "create");
	sc = layer_in(a, "syscall");
	assert_non_null(strstr(json_object_get_string(get(sc, "source")),
			       "createfiles' own clock"));
	assert_int_equal(u64(sc, "count"), 2 * FILES);
	assert_int_equal(u64(wait_checked(get(a, "wait")), "syscalls"),
			 2 * FILES);
	/* The costed iteration, one of the two. */
	costs = get(doc[2], "tracer_costs");
	assert_int_equal(u64(json_object_array_get_idx(costs, 0), "ops"),
			 FILES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_syscall_tracepoints),
		cmocka_unit_test(test_calls_are_fios),
		cmocka_unit_test(test_createfiles),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
