// SPDX-License-Identifier: MIT
/*
 * The snapshot file (report/json_snapshot*.c): a recorded snapshot read,
 * written and read again is the same snapshot; a version this reader does
 * not know, a frame naming no symbol or a member missing is refused with
 * one line. Links without libbpf (Makefile: PURE_TESTS).
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

#include "report/report.h"

#define RECORDED "tests/data/host-fscrypt-default/snapshots/02-fscrypt-dd.json"

static char tmp[] = "/tmp/encbench-snap-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[sizeof(tmp) + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	return system(cmd) ? -1 : 0;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, n + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, n, f), n);
	fclose(f);
	return text;
}

/* Everything but the pointers and their room, and the tables. */
static void assert_same(const struct snapshot *a, const struct snapshot *b)
{
	struct snapshot x = *a, y = *b;

	x.wait.stacks = y.wait.stacks = NULL;
	x.wait.syms = y.wait.syms = NULL;
	x.wait.stacks_cap = y.wait.stacks_cap = 0;
	x.wait.syms_cap = y.wait.syms_cap = 0;
	assert_memory_equal(&x, &y, sizeof(x));
	assert_memory_equal(a->wait.syms, b->wait.syms,
			    a->wait.nr_syms * sizeof(*a->wait.syms));
	assert_memory_equal(a->wait.stacks, b->wait.stacks,
			    a->wait.nr_stacks * sizeof(*a->wait.stacks));
}

static void test_round_trip(void **state)
{
	static struct snapshot a, b;
	char name[128], path[sizeof(tmp) + 160];
	(void)state;

	/* Zeroed whole, padding included, as the reader's memset leaves. */
	assert_int_equal(report_read_snapshot(RECORDED, &a), 0);
	assert_int_equal(a.version, SNAPSHOT_VERSION);
	assert_true(a.wait.nr_stacks > 0 && a.wait.nr_syms > 0);
	assert_string_equal(a.target.name, "fscrypt");
	assert_int_equal(report_write_snapshot(&a, tmp), 0);
	/* Never over a file that exists. */
	assert_int_not_equal(report_write_snapshot(&a, tmp), 0);
	report_snapshot_name(&a, name, sizeof(name));
	assert_string_equal(name, "02-fscrypt-dd.json");
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	assert_int_equal(report_read_snapshot(path, &b), 0);
	assert_same(&a, &b);
	snapshot_free(&a);
	snapshot_free(&b);
}

/* jbd2's part of the writeback workers' time, newer than the recording:
 * written where there is any, read back the same. */
static void test_jbd2_part(void **state)
{
	static struct snapshot a, b;
	char name[128], path[sizeof(tmp) + 160], *text;
	struct wait_stat *w;

	(void)state;
	assert_int_equal(report_read_snapshot(RECORDED, &a), 0);
	w = &a.wait.ops[EB_OP_WRITE];
	assert_int_equal(w->jbd2_blocked_ns, 0);
	w->jbd2_oncpu_ns = 11;
	w->jbd2_runq_ns = 12;
	w->jbd2_blocked_ns = 13;
	w->jbd2_blocked_layer_ns[LAYER_DM] = 7;
	w->jbd2_blocked_layer_ns[LAYER_DEVICE] = 5;
	snprintf(a.target.name, sizeof(a.target.name), "jbd2part");
	assert_int_equal(report_write_snapshot(&a, tmp), 0);
	report_snapshot_name(&a, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	assert_int_equal(report_read_snapshot(path, &b), 0);
	assert_same(&a, &b);
	/* Only op write has any: the others' objects leave the keys out. */
	text = slurp(path);
	assert_null(strstr(strstr(text, "\"jbd2_oncpu_ns\"") + 1,
			   "\"jbd2_oncpu_ns\""));
	assert_null(strstr(strstr(text, "\"jbd2_blocked_ns\"") + 1,
			   "\"jbd2_blocked_ns\""));
	assert_non_null(strstr(text, "\"jbd2_blocked_layer_ns\""));
	assert_null(strstr(strstr(text, "\"jbd2_blocked_layer_ns\"") + 1,
			   "\"jbd2_blocked_layer_ns\""));
	free(text);
	snapshot_free(&a);
	snapshot_free(&b);
}

/* The text of file `path` with `from` replaced by `to`, parsed into *s
 * (freed by the caller). */
static int parse_file_edited(const char *path, const char *from, const char *to,
			     struct snapshot *s)
{
	char *text = slurp(path), *at = strstr(text, from), *edited;
	size_t n = strlen(text) + strlen(to) + 1;
	int err;

	assert_non_null(at);
	edited = calloc(1, n);
	assert_non_null(edited);
	memcpy(edited, text, at - text);
	strcat(edited, to);
	strcat(edited, at + strlen(from));
	err = report_parse_snapshot("edited", edited, strlen(edited), s);
	free(edited);
	free(text);
	return err;
}

/* The recorded text with `from` replaced by `to`, parsed. */
static int parse_edited(const char *from, const char *to)
{
	static struct snapshot s;
	int err = parse_file_edited(RECORDED, from, to, &s);

	snapshot_free(&s);
	return err;
}

static void test_refused(void **state)
{
	(void)state;
	assert_int_equal(parse_edited("\"version\":1", "\"version\":1"), 0);
	/* A later version: refused, by its number. */
	assert_int_not_equal(parse_edited("\"version\":1", "\"version\":3"), 0);
	assert_int_not_equal(parse_edited("\"version\":1", "\"version\":0"), 0);
	assert_int_not_equal(
		parse_edited("\"encbench-trace-snapshot\"", "\"other\""), 0);
	/* A frame that names no symbol of the file. */
	assert_int_not_equal(parse_edited("\"frames\":[", "\"frames\":[99999,"),
			     0);
	assert_int_not_equal(parse_edited("\"use\":\"", "\"use\":\"x"), 0);
	assert_int_not_equal(parse_edited("\"wall_s\":", "\"wall_t\":"), 0);
}

/* Every stack use the tracer may record has a name the reader takes. */
static void test_every_stack_use(void **state)
{
	static struct snapshot a, b;
	char path[sizeof(tmp) + 160], name[128];
	(void)state;

	assert_int_equal(report_read_snapshot(RECORDED, &a), 0);
	a.seq = 99;
	for (int use = 0; use < NR_STACK_USES; use++) {
		struct snap_stack st = {.op = EB_OP_READ,
					.use = use,
					.value = 1 + use,
					.nr_frames = 1};

		assert_int_equal(snapshot_add_stack(&a, &st), 0);
	}
	assert_int_equal(report_write_snapshot(&a, tmp), 0);
	report_snapshot_name(&a, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	assert_int_equal(report_read_snapshot(path, &b), 0);
	assert_same(&a, &b);
	snapshot_free(&a);
	snapshot_free(&b);
}

/*
 * Version 1 (one file per phase, its traced iterations counted as one,
 * as tests/data holds) is upgraded: iteration 0, named as before. Version
 * 2 says its iteration, which names the file; without it, or below 0, it
 * is refused.
 */
static void test_versions(void **state)
{
	static struct snapshot a, b;
	char name[128], path[sizeof(tmp) + 160], *text = slurp(RECORDED);
	(void)state;

	assert_non_null(strstr(text, "\"version\":1,"));
	free(text);
	assert_int_equal(report_read_snapshot(RECORDED, &a), 0);
	assert_int_equal(a.version, 2);
	assert_int_equal(a.iteration, 0);
	a.iteration = 3;
	report_snapshot_name(&a, name, sizeof(name));
	assert_string_equal(name, "02-fscrypt-dd.iteration-3.json");
	assert_int_equal(report_write_snapshot(&a, tmp), 0);
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	assert_int_equal(report_read_snapshot(path, &b), 0);
	assert_int_equal(b.iteration, 3);
	assert_same(&a, &b);
	snapshot_free(&b);
	assert_int_not_equal(parse_file_edited(path, "\"iteration\":3",
					       "\"iteratio\":3", &b),
			     0);
	snapshot_free(&b);
	assert_int_not_equal(parse_file_edited(path, "\"iteration\":3",
					       "\"iteration\":-1", &b),
			     0);
	snapshot_free(&b);
	assert_int_equal(parse_file_edited(path, "\"iteration\":3",
					   "\"iteration\":4", &b),
			 0);
	assert_int_equal(b.iteration, 4);
	snapshot_free(&b);
	snapshot_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_jbd2_part),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_every_stack_use),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
