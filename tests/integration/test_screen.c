// SPDX-License-Identifier: MIT
/*
 * One screen by default. The default run (`run`, nothing but where its
 * files go) on a terminal: everything the terminal shows, stdout and
 * stderr, fits 40 lines, and stdout ends with the verdicts (the read and
 * write phase of every target) and where the full report is; no
 * per-iteration line, no histogram. report.txt holds the full report,
 * histograms included; `report DIR` prints the short form again from the
 * saved run, `report --full DIR` the long one without histograms,
 * `report --hist DIR` report.txt itself. A short run with --verbose puts
 * the full report (without histograms) and a line per iteration on the
 * screen.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "file_text.h"
#include "leftovers.h"
#include "run_prog.h"

#define MAX_SCREEN 40

static char tmp[] = "/var/tmp/encbench-screen.XXXXXX";
static const char *bin;
static char out[PATH_MAX];
static char *screen; /* what the terminal showed of the default run */

/* The same command as a terminal runs it: script(1) gives it a pty and
 * copies everything it showed to our pipe. The exit status in *status. */
static char *on_a_terminal(const char *cmd, int *status)
{
	int fd[2];
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	pid_t pid;
	char buf[4096];
	ssize_t n;

	if (pipe(fd))
		return NULL;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		freopen("/dev/null", "r", stdin);
		execlp("script", "script", "-qec", cmd, "/dev/null", NULL);
		_exit(98);
	}
	close(fd[1]);
	mem = open_memstream(&text, &len);
	while (mem && ((n = read(fd[0], buf, sizeof(buf))) > 0 ||
		       (n < 0 && errno == EINTR)))
		if (n > 0)
			fwrite(buf, 1, n, mem);
	close(fd[0]);
	if (mem)
		fclose(mem);
	waitpid(pid, status, 0);
	return text;
}

/* The terminal's text as a reader sees it at the end: each line the last
 * version drawn on it (the progress line is redrawn after "\r\033[K"),
 * CRs of the pty's line ends dropped. */
static char *as_seen(const char *raw)
{
	char *text = NULL, line[4096];
	size_t len = 0, n = 0;
	FILE *mem = open_memstream(&text, &len);

	for (const char *p = raw; mem && *p; p++) {
		if (!strncmp(p, "\r\033[K", 4)) {
			n = 0;
			p += 3;
		} else if (*p == '\r') {
			continue;
		} else if (*p == '\n') {
			fprintf(mem, "%.*s\n", (int)n, line);
			n = 0;
		} else if (n < sizeof(line) - 1) {
			line[n++] = *p;
		}
	}
	if (mem)
		fclose(mem);
	return text;
}

/* `encbench-trace ARGS...` with stdout to a string; its exit status. */
static int report(const char *const *args, char **stdout_text)
{
	const char *argv[16] = {bin, "report"};
	int n = 2, rc;

	while (*args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	rc = run_reap(run_spawn(tmp, "report", NULL, NULL, argv));
	*stdout_text = strdup(run_output(tmp, "report", "stdout"));
	return rc;
}

static int setup(void **state)
{
	char cmd[PATH_MAX * 3];
	char *raw;
	int status;

	(void)state;
	bin = run_prog_bin();
	if (run_prog_begin(tmp))
		return -1;
	snprintf(out, sizeof(out), "%s/out", tmp);
	/* The default run: every option at its default, but where its
	 * scratch and its results go (this test's own folder). */
	snprintf(cmd, sizeof(cmd), "%s run --scratch %s --output %s", bin, tmp,
		 out);
	raw = on_a_terminal(cmd, &status);
	if (!raw || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "# the default run failed:\n%s\n",
			raw ? raw : "");
		free(raw);
		return -1;
	}
	screen = as_seen(raw);
	free(raw);
	return screen ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(screen);
	return remove_tree(tmp);
}

/* text's lines, split in place: their number (at most max); a text
 * ending in a newline ends in an empty one. */
static int split_lines(char *text, char **line, int max)
{
	int n = 0;

	for (char *p = text, *l; n < max && (l = strsep(&p, "\n"));)
		line[n++] = l;
	return n;
}

static void test_default_run_fits_one_screen(void **state)
{
	char *copy = strdup(screen), *line[256], want[PATH_MAX + 32];
	int n, last, verdicts = 0;

	(void)state;
	if (count_lines(screen) > MAX_SCREEN)
		fail_msg("%d lines on the terminal:\n%s", count_lines(screen),
			 screen);
	/* No histogram, no layer table, no per-iteration line. */
	assert_null(strstr(screen, "distribution"));
	assert_null(strstr(screen, "per-item latencies"));
	assert_null(strstr(screen, "] dd 1/5:"));
	/* It ends with where the full report is, after the verdicts: the
	 * read and the write phase of both targets. */
	snprintf(want, sizeof(want), "Full report: %s/report.txt ", out);
	n = split_lines(copy, line, 256);
	assert_true(n >= 8);
	assert_string_equal(line[n - 1], "");
	last = n - 2;
	if (strncmp(line[last], want, strlen(want)))
		fail_msg("the last line is '%s'", line[last]);
	assert_string_equal(line[last - 1], "");
	while (last - 2 - verdicts > 0 &&
	       !strncmp(line[last - 2 - verdicts], "  ", 2))
		verdicts++;
	assert_true(verdicts >= 4);
	assert_int_equal(strncmp(line[last - 2 - verdicts], "Verdicts", 8), 0);
	for (const char *const *w =
		     (const char *const[]){
			     "  plain, dd, read: ", "  plain, dd, write: ",
			     "  fscrypt, dd, read: ", "  fscrypt, dd, write: ",
			     NULL};
	     *w; w++) {
		bool found = false;

		for (int i = last - 1 - verdicts; i < last - 1; i++)
			found |= !strncmp(line[i], *w, strlen(*w));
		if (!found)
			fail_msg("no verdict line '%s' in:\n%s", *w, screen);
	}
	/* fscrypt's read verdict against plain, with its causes' shares. */
	assert_non_null(strstr(screen, "  fscrypt, dd, read: "));
	assert_non_null(strstr(strstr(screen, "  fscrypt, dd, read: "),
			       "% slower than plain (+"));
	/* The header, the targets, the table with its CI, the sentences. */
	assert_non_null(strstr(screen, "encbench-trace "));
	assert_non_null(strstr(screen, ", kernel "));
	assert_non_null(strstr(screen, "  plain (baseline): plain, ext4 on "));
	assert_non_null(strstr(screen, "; ciphertext on /dev/"));
	assert_non_null(strstr(screen, "95% CI"));
	assert_non_null(strstr(screen, "dd reads on fscrypt are between "));
	free(copy);
}

static void test_report_txt_is_the_full_report(void **state)
{
	char path[PATH_MAX + 16], *full, *txt;
	const char *hist[] = {"--hist", out, NULL};

	(void)state;
	snprintf(path, sizeof(path), "%s/report.txt", out);
	txt = file_text(path);
	assert_non_null(txt);
	/* Everything the long form prints: layers, waits, histograms,
	 * verdicts with their evidence, caveats. */
	assert_non_null(strstr(txt, "\nWhere the time goes\n"));
	assert_non_null(strstr(txt, "what the caller waited for"));
	assert_non_null(strstr(txt, "  elapsed (s)"));
	assert_non_null(strstr(txt, "distribution"));
	assert_non_null(strstr(txt, "\nVerdicts\n"));
	assert_non_null(strstr(txt, "    - closure: the components add up"));
	assert_non_null(strstr(txt, "\nNotes and caveats\n"));
	/* report --hist of the saved run prints it again, to the byte. */
	assert_int_equal(report(hist, &full), 0);
	assert_string_equal(full, txt);
	free(full);
	free(txt);
}

static void test_report_short_and_full(void **state)
{
	const char *plain[] = {out, NULL}, *full[] = {"--full", out, NULL};
	const char *both[] = {"--full", "--html", out, NULL};
	char *text, *live, *cut;

	(void)state;
	/* The short form from the saved run: what the run showed, up to the
	 * line saying where the full report is. */
	assert_int_equal(report(plain, &text), 0);
	live = strstr(screen, "encbench-trace 0.1.0 on ");
	assert_non_null(live);
	cut = strstr(text, "\nFull report: encbench-trace report --full ");
	assert_non_null(cut);
	assert_int_equal(strncmp(live, text, cut - text + 1), 0);
	assert_true(count_lines(text) <= MAX_SCREEN);
	free(text);
	/* --full: the long form, without histograms. */
	assert_int_equal(report(full, &text), 0);
	assert_non_null(strstr(text, "\nWhere the time goes\n"));
	assert_non_null(strstr(text, "    - closure: the components add up"));
	assert_null(strstr(text, "distribution"));
	free(text);
	/* Printing and writing a file at once: refused, nothing written. */
	assert_int_equal(report(both, &text), 2);
	assert_string_equal(text, "");
	assert_int_equal(count_lines(run_output(tmp, "report", "stderr")), 1);
	free(text);
}

/* --verbose: the full report and a line per iteration; not a terminal
 * here, so stdout and stderr apart. */
static void test_verbose(void **state)
{
	char vout[PATH_MAX + 8], path[PATH_MAX + 16];
	const char *argv[] = {bin,	  "run", "--size",    "8M",
			      "--runs",	  "2",	 "--scratch", tmp,
			      "--output", vout,	 "--verbose", NULL};
	const char *text, *err;
	char *txt;

	(void)state;
	snprintf(vout, sizeof(vout), "%s/verbose", tmp);
	assert_int_equal(run_reap(run_spawn(tmp, "verbose", NULL, NULL, argv)),
			 0);
	text = run_output(tmp, "verbose", "stdout");
	assert_non_null(strstr(text, "\nWhere the time goes\n"));
	assert_non_null(strstr(text, "    - closure: the components add up"));
	assert_non_null(strstr(text, "  elapsed (s)"));
	assert_null(strstr(text, "distribution"));
	assert_non_null(strstr(text, "\nResults in "));
	/* The same report as report.txt, but its histograms. */
	snprintf(path, sizeof(path), "%s/report.txt", vout);
	txt = file_text(path);
	assert_non_null(txt);
	assert_non_null(strstr(txt, "distribution"));
	assert_int_equal(
		strncmp(txt, text, strstr(txt, "\nLatency histograms") - txt),
		0);
	free(txt);
	err = run_output(tmp, "verbose", "stderr");
	/* Two untraced iterations and two traced ones apart (issue 20),
	 * interleaved: untraced, traced, untraced, traced. */
	assert_non_null(strstr(err, "[plain] dd 1/4: write_s "));
	assert_non_null(strstr(err, "[fscrypt] dd 2/4 (traced): write_s "));
	assert_non_null(strstr(err, "[fscrypt] dd 3/4: write_s "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_run_fits_one_screen),
		cmocka_unit_test(test_report_txt_is_the_full_report),
		cmocka_unit_test(test_report_short_and_full),
		cmocka_unit_test(test_verbose),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
