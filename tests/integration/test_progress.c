// SPDX-License-Identifier: MIT
/*
 * The progress line of `run`: drawn in place on a terminal (a pty, made
 * by script(1)), never when stderr is a pipe, nor with --quiet or --json
 * on a terminal; --quiet drops the log lines of each stage too, not the
 * warnings or the report. Short real runs without tracing: what is
 * asserted is what reaches the terminal or the pipe.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "leftovers.h"
#include "run_prog.h"

#define ERASE "\r\033[K"

static char tmp[] = "/var/tmp/encbench-progress.XXXXXX";
static const char *bin;
static int nth; /* output folders: one per run */

/* Read everything from fd into a malloc'ed string. */
static char *drain(int fd)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	ssize_t n;

	while (buf && (n = read(fd, buf + len, cap - len - 1)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		len += n;
		if (cap - len < 4096)
			buf = realloc(buf, cap *= 2);
	}
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* The command line of a short run, with extra options appended. */
static void run_args(char *cmd, size_t len, const char *extra)
{
	snprintf(cmd, len,
		 "%s run --size 4M --runs 2 --no-trace --scratch %s "
		 "--output %s/out%d %s",
		 bin, tmp, tmp, ++nth, extra);
}

/*
 * Run it and capture what a reader would see. On a pty: script(1) copies
 * everything the terminal showed (stdout and stderr) to its own stdout,
 * which we read through a pipe. Else stderr goes into a pipe and stdout to
 * /dev/null, as in a CI log.
 */
static char *run_captured(const char *extra, bool pty, int *status)
{
	char cmd[PATH_MAX * 2];
	int fd[2];
	char *text;
	pid_t pid;

	run_args(cmd, sizeof(cmd), extra);
	assert_int_equal(pipe(fd), 0);
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], pty ? STDOUT_FILENO : STDERR_FILENO);
		close(fd[0]);
		close(fd[1]);
		freopen("/dev/null", "r", stdin);
		if (pty) {
			execlp("script", "script", "-qec", cmd, "/dev/null",
			       NULL);
		} else {
			freopen("/dev/null", "w", stdout);
			execl("/bin/sh", "sh", "-c", cmd, NULL);
		}
		_exit(98);
	}
	close(fd[1]);
	text = drain(fd[0]);
	close(fd[0]);
	waitpid(pid, status, 0);
	return text;
}

/* The runs do not trace: only what they make under tmp can be left, and
 * BPF links (other tests' at the same time) are not ours to count. */
static int left_under(const char *dir)
{
	int n;

	/* Loop autoclear runs as the last reference goes: two seconds. */
	for (int i = 0; i < 20; i++) {
		n = mounts_under(dir) + loops_under(dir) +
		    scratch_dirs_under(dir);
		if (!n)
			break;
		usleep(100000);
	}
	return n;
}

static int setup(void **state)
{
	(void)state;
	bin = run_prog_bin();
	return run_prog_begin(tmp);
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	return system(cmd) ? -1 : 0;
}

static void test_terminal_shows_progress(void **state)
{
	int status;
	char *s = run_captured("--verbose", true, &status);

	(void)state;
	assert_non_null(s);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* Each stage, and the iterations of the second target with an
	 * estimate from the first target's finished iterations. */
	assert_non_null(strstr(s, ERASE "setup plain"));
	assert_non_null(strstr(s, ERASE "setup fscrypt"));
	assert_non_null(strstr(s, ERASE "run plain dd iteration 1/2"));
	assert_non_null(
		strstr(s, ERASE "run fscrypt dd iteration 2/2, about "));
	assert_non_null(strstr(s, " left"));
	/* Log lines (each iteration's with --verbose) still come whole,
	 * above the progress line. */
	assert_non_null(strstr(s, ERASE "[fscrypt] dd 2/2: write_s"));
	/* Erased before the report: the table starts on a clean line. */
	assert_non_null(strstr(s, ERASE "teardown" ERASE "encbench-trace "));
	free(s);
	assert_int_equal(left_under(tmp), 0);
}

static void assert_no_progress(const char *s)
{
	assert_non_null(s);
	assert_null(strchr(s, '\033'));
	assert_null(strstr(s, "iteration 1/2"));
}

static void test_pipe_has_none(void **state)
{
	int status;
	char *s = run_captured("", false, &status);

	(void)state;
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_no_progress(s);
	assert_null(strchr(s, '\r'));
	/* The stages' log lines are there; each iteration's only with
	 * --verbose (the report has them, and a terminal its progress
	 * line). */
	assert_non_null(strstr(s, "[fscrypt] setting up: "));
	assert_null(strstr(s, "dd 1/2:"));
	assert_null(strstr(s, "dd 2/2:"));
	free(s);
	s = run_captured("--verbose", false, &status);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_no_progress(s);
	assert_non_null(strstr(s, "[plain] dd 1/2: write_s"));
	assert_non_null(strstr(s, "[fscrypt] dd 2/2: write_s"));
	free(s);
}

static void test_quiet_and_json_have_none(void **state)
{
	int status;
	char *s;

	(void)state;
	s = run_captured("--quiet --verbose", true, &status);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_no_progress(s);
	/* Quiet is no progress at all: no line of a stage or an iteration
	 * (their news is in the report; --verbose does not bring them
	 * back), but the warnings, and the report, here the full one. */
	assert_null(strstr(s, "[plain]"));
	assert_null(strstr(s, "[fscrypt]"));
	assert_non_null(strstr(s, "encbench-trace: attribution is off"));
	assert_non_null(strstr(s, "verified encrypted on disk: yes"));
	assert_non_null(strstr(s, "\nResults in "));
	free(s);
	/* Quiet alone: the short report. */
	s = run_captured("--quiet", true, &status);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_no_progress(s);
	assert_null(strstr(s, "[fscrypt]"));
	assert_non_null(strstr(s, "encbench-trace: attribution is off"));
	assert_non_null(strstr(s, "; ciphertext on /dev/"));
	assert_non_null(strstr(s, "\nFull report: "));
	free(s);
	s = run_captured("--json", true, &status);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_no_progress(s);
	assert_non_null(strstr(s, "\"schema\""));
	free(s);
	assert_int_equal(left_under(tmp), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_terminal_shows_progress),
		cmocka_unit_test(test_pipe_has_none),
		cmocka_unit_test(test_quiet_and_json_have_none),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
