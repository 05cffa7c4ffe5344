// SPDX-License-Identifier: MIT
/*
 * The timeline's document from made-up events, where the cases a short
 * real run may not show are certain: more requests in flight on a device
 * than it has lanes, two devices, a kworker whose tid is as small as a
 * lane's index, nanosecond spans, ties, an event from before the phase.
 * Every document must keep the importers' rules (trace_event_check.h);
 * the checker itself must refuse files that break them.
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
#include <linux/types.h> /* attrib.h's KDEV() */

#include "common/results.h"
#include "report/timeline_doc.h"
#include "trace_event_check.h"

#define T0   1000000000ull /* the phase's start, ns */
#define LOOP KDEV(7, 0)
#define DM   KDEV(253, 1)

static char dir[] = "/tmp/encbench-tldoc-XXXXXX";
static char path[sizeof(dir) + 16];

static struct tl_event ev(unsigned int kind, uint64_t ts, uint64_t key,
			  uint64_t arg, uint32_t tid, uint32_t dev)
{
	return (struct tl_event){.ts = T0 + ts,
				 .kind = kind,
				 .key = key,
				 .arg = arg,
				 .tgid = tid,
				 .tid = tid,
				 .dev = dev,
				 .bytes = 4096};
}

/* The document of ev[0..n), written where te_check reads it. */
static struct json_object *doc_of(struct tl_event *e, size_t n)
{
	struct timeline_phase p = {.target = "t",
				   .workload = "w",
				   .t0_ns = T0,
				   .end_ns = T0 + 10000000,
				   .window_s = 2};
	struct json_object *doc = timeline_doc(e, n, &p);

	assert_non_null(doc);
	assert_int_equal(
		json_object_to_file_ext(path, doc,
					JSON_C_TO_STRING_PLAIN |
						JSON_C_TO_STRING_NOSLASHESCAPE),
		0);
	return doc;
}

static int64_t other(struct json_object *doc, const char *k)
{
	struct json_object *o = te_get(te_get(doc, "otherData"), k);

	assert_non_null(o);
	/* Perfetto reads "metadata", not "otherData": the same counts. */
	assert_int_equal(
		json_object_get_int64(te_get(te_get(doc, "metadata"), k)),
		json_object_get_int64(o));
	return json_object_get_int64(o);
}

static void check(struct te_summary *sum)
{
	char why[256] = "";

	if (te_check(path, sum, why, sizeof(why)))
		fail_msg("%s", why);
}

/* 300 requests at once on one device: 256 lanes, the rest left out and
 * counted, never drawn over each other. */
static void test_more_requests_than_lanes(void **state)
{
	struct tl_event e[600];
	struct te_summary sum;
	struct json_object *doc;
	size_t n = 0;

	(void)state;
	for (int i = 0; i < 300; i++) {
		e[n++] = ev(TL_RQ_ISSUE, 1000 + i, 0x1000 + i, 0, 0, LOOP);
		e[n++] = ev(TL_RQ_COMPLETE, 900000 + i, 0x1000 + i, 0, 0, LOOP);
	}
	doc = doc_of(e, n);
	check(&sum);
	assert_int_equal(sum.spans, TIMELINE_MAX_LANES);
	assert_int_equal(sum.tracks, TIMELINE_MAX_LANES);
	assert_int_equal(other(doc, "unplaced"), 300 - TIMELINE_MAX_LANES);
	json_object_put(doc);
}

/* The pid/tid of the first X event of `name`. */
static void ids_of(struct json_object *doc, const char *name, int64_t *pid,
		   int64_t *tid, const char **ts)
{
	struct json_object *a = te_get(doc, "traceEvents");

	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *x = json_object_array_get_idx(a, i);

		if (strcmp(json_object_get_string(te_get(x, "name")), name))
			continue;
		*pid = json_object_get_int64(te_get(x, "pid"));
		*tid = json_object_get_int64(te_get(x, "tid"));
		*ts = json_object_to_json_string(te_get(x, "ts"));
		return;
	}
	fail_msg("no %s", name);
}

/* A kworker with tid 2, a bio and a request on each of two devices, a
 * syscall 1 ns long, a wakeup at the very start of a syscall, one event
 * from before the phase and one start with no end. */
static void test_threads_and_devices(void **state)
{
	struct tl_event e[] = {
		ev(TL_SYS_ENTER, -5ull, 0, 1, 500, 0), /* before the phase */
		ev(TL_SYS_ENTER, 1, 0, 1, 500, 0),
		ev(TL_SYS_EXIT, 2, 0, 0, 500, 0),
		ev(TL_SYS_ENTER, 10, 1, 2, 500, 0),
		ev(TL_WAKEUP, 10, 500, 500, 2, 0), /* of 500, by 2 */
		ev(TL_SYS_EXIT, 5000, 1, 4096, 500, 0),
		ev(TL_WORK_START, 20, 0xdead, CRYPT_WORK_DMCRYPT, 2, 0),
		ev(TL_WORK_END, 3000, 0xdead, 0, 2, 0),
		ev(TL_BIO_QUEUE, 30, 0xb10, 2, 500, DM),
		ev(TL_RQ_ISSUE, 40, 0x40, 0xb10, 0, DM),
		ev(TL_RQ_COMPLETE, 4000, 0x40, 0, 0, DM),
		ev(TL_BIO_QUEUE, 50, 0xb11, 2, 2, LOOP),
		ev(TL_RQ_ISSUE, 60, 0x41, 0xb11, 0, LOOP),
		ev(TL_RQ_COMPLETE, 2000, 0x41, 0, 0, LOOP),
		ev(TL_WORK_START, 4500, 0xbeef, CRYPT_WORK_DMCRYPT, 2, 0),
	};
	int64_t pid, tid, dm_pid, dm_tid;
	struct te_summary sum;
	struct json_object *doc;
	const char *ts;

	(void)state;
	e[0].ts = T0 - 5;
	doc = doc_of(e, sizeof(e) / sizeof(e[0]));
	check(&sum);
	/* read, write, dm-crypt, 2 bios, 2 requests; the wakeup. */
	assert_int_equal(sum.spans, 7);
	assert_int_equal(sum.instants, 1);
	assert_int_equal(other(doc, "unplaced"), 1);
	assert_int_equal(other(doc, "unpaired"), 1);
	/* Nanoseconds, exactly: 1 ns after the start, not 0.0010000001. */
	ids_of(doc, "read", &pid, &tid, &ts);
	assert_string_equal(ts, "0.001");
	assert_true(pid == 500 && tid == 500);
	ids_of(doc, "dm-crypt", &pid, &tid, &ts);
	assert_true(pid == 2 && tid == 2);
	/* Device lanes: ids no thread has, one process per device. */
	ids_of(doc, "request", &dm_pid, &dm_tid, &ts);
	ids_of(doc, "bio waits for its request", &pid, &tid, &ts);
	assert_true(dm_pid >= TIMELINE_SYNTH_ID_BASE && pid == dm_pid);
	assert_true(dm_tid > dm_pid && tid > pid && tid != dm_tid);
	json_object_put(doc);
}

/*
 * A completion the kernel ran no BPF program for (block.bpf.h:
 * rq_unseen): the same struct request is issued again and completes.
 * The timeline keeps no per-request state in the kernel, so nothing
 * leaks there; here the completion must pair with the later issue, and
 * the earlier one count as unpaired, not stretch into a span.
 */
static void test_unseen_completion(void **state)
{
	struct tl_event e[] = {
		ev(TL_RQ_ISSUE, 100, 0x50, 0, 0, LOOP),
		/* its completion unseen */
		ev(TL_RQ_ISSUE, 1000, 0x50, 0, 0, LOOP),
		ev(TL_RQ_COMPLETE, 1500, 0x50, 0, 0, LOOP),
	};
	struct te_summary sum;
	struct json_object *doc;
	int64_t pid, tid;
	const char *ts;

	(void)state;
	doc = doc_of(e, sizeof(e) / sizeof(e[0]));
	check(&sum);
	assert_int_equal(sum.spans, 1);
	assert_int_equal(other(doc, "unpaired"), 1);
	ids_of(doc, "request", &pid, &tid, &ts);
	assert_string_equal(ts, "1.000");
	json_object_put(doc);
}

/* The checker refuses what the importers would not take. */
static void test_checker_refuses(void **state)
{
	static const char head[] =
		"{\"traceEvents\":[{\"name\":\"process_name\",\"ph\":"
		"\"M\",\"pid\":9,\"tid\":9,\"args\":{\"name\":\"p\"}},"
		"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":9,"
		"\"tid\":9,\"args\":{\"name\":\"t\"}}";
	static const char *const bad[] = {
		/* overlapping, not nested */
		",{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":0,"
		"\"dur\":10,\"pid\":9,\"tid\":9},{\"name\":\"b\",\"cat\":"
		"\"c\",\"ph\":\"X\",\"ts\":5,\"dur\":10,\"pid\":9,"
		"\"tid\":9}]",
		/* same start, the shorter first: not nested either */
		",{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":0,"
		"\"dur\":5,\"pid\":9,\"tid\":9},{\"name\":\"b\",\"cat\":"
		"\"c\",\"ph\":\"X\",\"ts\":0,\"dur\":10,\"pid\":9,"
		"\"tid\":9}]",
		/* below the nanosecond */
		",{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":"
		"0.0001,\"dur\":1,\"pid\":9,\"tid\":9}]",
		/* a track without a name */
		",{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":0,"
		"\"dur\":1,\"pid\":9,\"tid\":8}]",
		/* a string pid */
		",{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":0,"
		"\"dur\":1,\"pid\":\"9\",\"tid\":9}]",
		/* an 'X' without dur */
		",{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":0,"
		"\"pid\":9,\"tid\":9}]",
	};
	static const char good[] =
		",{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":0,"
		"\"dur\":10,\"pid\":9,\"tid\":9},{\"name\":\"b\",\"cat\":"
		"\"c\",\"ph\":\"X\",\"ts\":0,\"dur\":10,\"pid\":9,"
		"\"tid\":9},{\"name\":\"c\",\"cat\":\"c\",\"ph\":\"X\","
		"\"ts\":10,\"dur\":1.5,\"pid\":9,\"tid\":9}]";
	struct te_summary sum;
	char why[256];
	FILE *f;

	(void)state;
	for (size_t i = 0; i <= sizeof(bad) / sizeof(bad[0]); i++) {
		bool ok = i == sizeof(bad) / sizeof(bad[0]);

		f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "%s%s,\"displayTimeUnit\":\"ns\"}", head,
			ok ? good : bad[i]);
		fclose(f);
		assert_int_equal(te_check(path, &sum, why, sizeof(why)),
				 ok ? 0 : -1);
	}
	assert_int_equal(sum.spans, 3);
	/* and a file without displayTimeUnit "ns" */
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s%s}", head, good);
	fclose(f);
	assert_int_equal(te_check(path, &sum, why, sizeof(why)), -1);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/t.json", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_more_requests_than_lanes),
		cmocka_unit_test(test_threads_and_devices),
		cmocka_unit_test(test_unseen_completion),
		cmocka_unit_test(test_checker_refuses),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
