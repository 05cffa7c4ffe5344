// SPDX-License-Identifier: MIT
/*
 * workload_own_pages: a timed child makes its own copy of the pages it
 * shares with its parent since fork (and gets a page for each one never
 * touched) before its clock starts, so that its timed part takes no
 * copy-on-write fault on them. Counted by the kernel: the child's minor
 * faults while it writes every page afterwards.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "workload/workload.h"

#define LEN (1u << 20)

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* In a child: the minor faults of writing every page of p (exit code,
 * capped), after workload_own_pages or not. */
static int faults_after_fork(unsigned char *p, bool own)
{
	long page = sysconf(_SC_PAGESIZE), before;
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (own)
			workload_own_pages(p, LEN);
		before = minflt();
		for (size_t off = 0; off < LEN; off += (size_t)page)
			p[off]++;
		before = minflt() - before;
		_exit(before > 250 ? 250 : (int)before);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_no_fault_after_owning(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *shared = NULL, *fresh = NULL;

	(void)state;
	assert_int_equal(posix_memalign((void **)&shared, page, LEN), 0);
	assert_int_equal(posix_memalign((void **)&fresh, page, LEN), 0);
	/* Touched by the parent: shared with the child, copied on write. */
	memset(shared, 7, LEN);
	/* The yardstick: without it, a fault on (nearly) every page. */
	assert_true(faults_after_fork(shared, false) >= 200);
	assert_true(faults_after_fork(fresh, false) >= 200);
	/* With it, none (a page or two of the stack and libc's own). */
	assert_true(faults_after_fork(shared, true) <= 4);
	assert_true(faults_after_fork(fresh, true) <= 4);
	/* The parent's data is the child's too: copied, not lost. */
	assert_int_equal(shared[LEN - 1], 7);
	free(shared);
	free(fresh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_fault_after_owning),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
