// SPDX-License-Identifier: MIT
/*
 * compilebench's and build's parameters without running them: the tree
 * compilebench plans is the same every time and kernel-like, the space
 * each asks for covers what it describes, --scale shrinks them, and bad
 * values are refused with a one-line reason.
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
#include "workload/workload.h"

static int set(const char *wl, void *p, const char *key, const char *value)
{
	char why[DETAIL_LEN] = "";
	int rc = workload_find(wl)->set(p, key, value, why, sizeof(why));

	if (rc)
		assert_true(why[0] && !strchr(why, '\n'));
	return rc;
}

static long long described(const struct workload_ops *w, const void *p,
			   const char *key)
{
	struct param_list l = {0};

	w->describe(p, &l);
	for (int i = 0; i < l.n; i++)
		if (!strcmp(l.p[i].key, key))
			return l.p[i].i;
	fail_msg("%s does not describe %s", w->name, key);
	return -1;
}

static void test_compilebench(void **state)
{
	const struct workload_ops *w = workload_find("compilebench");
	struct workload_common half = {.scale = 0.5};
	struct metric_def m[MAX_METRICS];
	void *p = workload_params_new(w);
	long long src, obj;

	(void)state;
	assert_int_equal(w->metrics(p, m), 3);
	for (int i = 0; i < 3; i++)
		assert_true(m[i].higher_is_better);
	assert_int_equal(set("compilebench", p, "files", "1000"), 0);
	src = described(w, p, "source_bytes");
	obj = described(w, p, "object_bytes");
	/* The same tree every time: targets and iterations compare. */
	assert_int_equal(described(w, p, "source_bytes"), src);
	assert_int_equal(described(w, p, "files"), 1000);
	/* About 60 % .c files, 16 files a folder, a kernel-like mean. */
	assert_in_range(described(w, p, "objects"), 500, 700);
	assert_int_equal(described(w, p, "dirs"), 63);
	assert_in_range(src / 1000, 8 << 10, 20 << 10);
	/* Objects are 1.5 times their sources. */
	assert_in_range(obj, src / 2, src);
	assert_true(w->space_needed(p) >= (uint64_t)(src + obj));
	w->common(p, &half);
	assert_int_equal(described(w, p, "files"), 500);
	assert_int_equal(set("compilebench", p, "files", "0"), -1);
	assert_int_equal(set("compilebench", p, "files", "many"), -1);
	free(p);
}

static void test_build(void **state)
{
	const struct workload_ops *w = workload_find("build");
	struct metric_def m[MAX_METRICS];
	void *p = workload_params_new(w);

	(void)state;
	assert_int_equal(w->metrics(p, m), 1);
	assert_string_equal(m[0].name, "build_s");
	assert_false(m[0].higher_is_better);
	assert_true(described(w, p, "jobs") >= 1);
	assert_int_equal(set("build", p, "units", "5"), 0);
	assert_int_equal(set("build", p, "jobs", "3"), 0);
	assert_int_equal(described(w, p, "units"), 5);
	assert_int_equal(described(w, p, "jobs"), 3);
	assert_int_equal(set("build", p, "cc", "clang"), 0);
	assert_int_equal(set("build", p, "cc", "gcc -O0"), -1);
	assert_int_equal(set("build", p, "cc", ""), -1);
	assert_int_equal(set("build", p, "units", "0"), -1);
	assert_int_equal(set("build", p, "functions", "1.5"), -1);
	assert_int_equal(set("build", p, "jobs", "-1"), -1);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compilebench),
		cmocka_unit_test(test_build),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
