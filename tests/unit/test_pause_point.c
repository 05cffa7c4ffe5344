// SPDX-License-Identifier: MIT
/*
 * The test hook the integration and VM tests stop the program with: a
 * child stops at the points named in ENCBENCH_PAUSE_AT and nowhere else,
 * and with ENCBENCH_PAUSE_LOG says at which, in order, before each stop.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../userspace/common/pause_point.h"
#include "../vm/vm_run.h" /* vm_last_line, as the VM tests read it */

static char dir[] = "/tmp/encbench-pause.XXXXXX";
static char log_path[sizeof(dir) + 8];

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(log_path, sizeof(log_path), "%s/log", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(log_path);
	return rmdir(dir);
}

static void test_stops_where_asked_and_says_where(void **state)
{
	char seen[4][64];
	int status, stops = 0;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("ENCBENCH_PAUSE_AT", "iteration:plain:dd,detached:*", 1);
		setenv("ENCBENCH_PAUSE_LOG", log_path, 1);
		pause_point("iteration:%s:%s", "plain", "dd");
		pause_point("iteration:%s:%s", "fscrypt", "dd"); /* not asked */
		pause_point("detached:%s:%s", "plain", "dd");
		pause_point("iteration:%s:%s", "plain", "dd");
		_exit(0);
	}
	while (waitpid(pid, &status, WUNTRACED) == pid && WIFSTOPPED(status)) {
		assert_true(stops < 4);
		vm_last_line(log_path, seen[stops], sizeof(seen[stops]));
		stops++;
		kill(pid, SIGCONT);
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(stops, 3);
	assert_string_equal(seen[0], "iteration:plain:dd");
	assert_string_equal(seen[1], "detached:plain:dd");
	assert_string_equal(seen[2], "iteration:plain:dd");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stops_where_asked_and_says_where),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
