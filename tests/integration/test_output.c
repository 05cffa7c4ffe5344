// SPDX-License-Identifier: MIT
/*
 * The output folder, as a hostile but honest user meets it (issue 6):
 * nothing that exists is overwritten, whatever path games the command line
 * plays; two runs on one folder never mix (one refuses, naming the other);
 * a signal while the results are written still gives whole files and exit
 * 130; a rejected command line leaves even the folders' mtimes alone; and
 * `report` refuses what is not a results file, in one line.
 * Short real runs without tracing (no BPF: nothing to count but what they
 * make under the test's folder).
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "leftovers.h"
#include "results_json.h"
#include "run_prog.h"

static char tmp[] = "/var/tmp/encbench-output.XXXXXX";
static const char *bin;

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmp, name);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static const char *read_file(const char *path)
{
	static char buf[4096];
	size_t n = 0;
	FILE *f = fopen(path, "r");

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* Entries of dir other than . and .., and how many start with a dot
 * (temp files, a lock) in *hidden. */
static int entries(const char *dir, int *hidden)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(dir);

	if (hidden)
		*hidden = 0;
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		if (hidden && de->d_name[0] == '.')
			(*hidden)++;
	}
	if (d)
		closedir(d);
	return n;
}

/* A short untraced run's command line into argv (14 slots). */
static void short_run(const char **argv, const char *out)
{
	const char *a[] = {bin,		"run", "--size",     "16M",
			   "--runs",	"1",   "--no-trace", "--quiet",
			   "--scratch", tmp,   "--output",   out,
			   NULL};

	memcpy(argv, a, sizeof(a));
}

/* A results folder that a finished run wrote whole: results.json parses
 * with every result, the CSV has its row, no temp file or lock is left. */
static void assert_whole(const char *dir)
{
	char path[PATH_MAX + 32], line[256];
	struct json_object *r;
	int hidden, rows = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/results.json", dir);
	r = json_object_from_file(path);
	if (!r)
		fail_msg("%s does not parse", path);
	assert_string_equal(json_object_get_string(get(r, "schema")),
			    "encbench-trace/1");
	/* 2 targets x (write_s, read_s). */
	assert_int_equal(json_object_array_length(get(r, "results")), 4);
	json_object_put(r);
	snprintf(path, sizeof(path), "%s/plain-dd.csv", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		rows++;
	fclose(f);
	assert_int_equal(rows, 2);
	snprintf(path, sizeof(path), "%s/run.log", dir);
	assert_int_equal(access(path, F_OK), 0);
	/* The full report, from its header on. */
	snprintf(path, sizeof(path), "%s/report.txt", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_int_equal(strncmp(line, "encbench-trace ", 15), 0);
	fclose(f);
	entries(dir, &hidden);
	assert_int_equal(hidden, 0);
}

static int setup(void **state)
{
	(void)state;
	bin = run_prog_bin();
	return bin && !run_prog_begin(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return remove_tree(tmp);
}

/* A bad command line: exit 2, one line naming `what`. */
static void expect_bad(const char *cwd, const char *const *argv,
		       const char *what)
{
	const char *err;

	assert_int_equal(run_reap(run_spawn(tmp, "bad", cwd, NULL, argv)), 2);
	err = run_output(tmp, "bad", "stderr");
	assert_int_equal(count_lines(err), 1);
	if (!strstr(err, what))
		fail_msg("stderr '%s' does not name '%s'", err, what);
}

/* Item 1: `mkdir victim; echo '{"mine":1}' > victim/results.json;
 * encbench-trace run --output victim/new/..` replaced victim's files. */
static void test_dotdot_keeps_victim(void **state)
{
	char victim[PATH_MAX], mine[PATH_MAX + 16], made[PATH_MAX + 8];
	(void)state;

	path_in(victim, sizeof(victim), "victim");
	snprintf(mine, sizeof(mine), "%s/results.json", victim);
	snprintf(made, sizeof(made), "%s/new", victim);
	assert_int_equal(mkdir(victim, 0755), 0);
	write_file(mine, "{\"mine\":1}\n");
	const char *argv[] = {bin, "run", "--output", "victim/new/..", NULL};
	expect_bad(tmp, argv, "'..' after a folder that does not exist");
	assert_string_equal(read_file(mine), "{\"mine\":1}\n");
	assert_int_equal(entries(victim, NULL), 1);
	assert_int_not_equal(access(made, F_OK), 0);
	/* Through an existing folder's "..", the same folder is refused. */
	assert_int_equal(mkdir(made, 0755), 0);
	const char *again[] = {bin, "run", "--output", "victim/new/..", NULL};
	expect_bad(tmp, again, "is not empty");
	assert_string_equal(read_file(mine), "{\"mine\":1}\n");
	rmdir(made);
}

/* Item 3: a dangling symbolic link as --output passed validation, the
 * benchmark ran, and only the writing failed (exit 1). */
static void test_dangling_symlink(void **state)
{
	char link[PATH_MAX], target[PATH_MAX];
	struct stat st;
	(void)state;

	path_in(link, sizeof(link), "dangling");
	path_in(target, sizeof(target), "nowhere");
	assert_int_equal(symlink(target, link), 0);
	const char *argv[] = {bin, "run", "--output", link, NULL};
	expect_bad(NULL, argv, "dangling symbolic link");
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_not_equal(access(target, F_OK), 0);
	unlink(link);
}

/* Item 7: a rejected command line costs nothing on disk, not even an
 * mtime (writability was probed by making and removing a folder). */
static void test_rejection_touches_nothing(void **state)
{
	char scratch[PATH_MAX], full[PATH_MAX], file[PATH_MAX + 8];
	struct stat s0, s1, f0, f1;
	(void)state;

	path_in(scratch, sizeof(scratch), "scr");
	path_in(full, sizeof(full), "full");
	snprintf(file, sizeof(file), "%s/x", full);
	assert_int_equal(mkdir(scratch, 0755), 0);
	assert_int_equal(mkdir(full, 0755), 0);
	write_file(file, "someone's\n");
	assert_int_equal(stat(scratch, &s0), 0);
	assert_int_equal(stat(full, &f0), 0);
	const char *argv[] = {bin,	  "run", "--scratch", scratch,
			      "--output", full,	 NULL};
	expect_bad(NULL, argv, "not empty");
	assert_int_equal(stat(scratch, &s1), 0);
	assert_int_equal(stat(full, &f1), 0);
	assert_int_equal(s0.st_mtim.tv_sec, s1.st_mtim.tv_sec);
	assert_int_equal(s0.st_mtim.tv_nsec, s1.st_mtim.tv_nsec);
	assert_int_equal(f0.st_mtim.tv_sec, f1.st_mtim.tv_sec);
	assert_int_equal(f0.st_mtim.tv_nsec, f1.st_mtim.tv_nsec);
}

/* Item 7: an empty value is an error, not the default; a file as
 * --scratch is "not a folder"; a scratch path too long for what the run
 * builds below it is refused before anything is made. */
static void test_bad_paths(void **state)
{
	char file[PATH_MAX], deep[PATH_MAX + 64], out[PATH_MAX], dflt[PATH_MAX];
	size_t n;
	(void)state;

	path_in(out, sizeof(out), "never");
	path_in(dflt, sizeof(dflt), "encbench-results");
	const char *a1[] = {bin, "run", "--output", "", NULL};
	expect_bad(tmp, a1, "'--output' needs a value, not an empty one");
	assert_int_not_equal(access(dflt, F_OK), 0);
	const char *a2[] = {bin, "run", "--scratch", "", "-o", out, NULL};
	expect_bad(NULL, a2, "'--scratch' needs a value, not an empty one");
	path_in(file, sizeof(file), "afile");
	write_file(file, "x\n");
	const char *a3[] = {bin, "run", "--scratch", file, "-o", out, NULL};
	expect_bad(NULL, a3, "is not a folder");
	/* An existing folder about 4050 characters deep. */
	n = (size_t)snprintf(deep, sizeof(deep), "%s", tmp);
	while (n < 4050 - 4) {
		n += (size_t)snprintf(deep + n, sizeof(deep) - n, "/ddd");
		assert_true(mkdir(deep, 0755) == 0 || errno == EEXIST);
	}
	const char *a4[] = {bin, "run", "--scratch", deep, "-o", out, NULL};
	expect_bad(NULL, a4, "too long");
	assert_int_not_equal(access(out, F_OK), 0);
	assert_int_equal(leftovers(tmp, NULL, 0), 0);
}

/*
 * Item 2: two runs with one --output lost data (a failed write, documents
 * spliced, results silently replaced). Now one claims the folder and the
 * other refuses with exit 2, naming the first's PID; the first's results
 * are whole.
 */
static void test_two_runs_one_output(void **state)
{
	char out[PATH_MAX], pidtext[32];
	const char *a[14];
	pid_t p1, p2;
	int s1, s2;
	(void)state;

	path_in(out, sizeof(out), "shared");
	short_run(a, out);
	p1 = run_spawn(tmp, "one", NULL, NULL, a);
	p2 = run_spawn(tmp, "two", NULL, NULL, a);
	s1 = run_reap(p1);
	s2 = run_reap(p2);
	if (!((s1 == 0 && s2 == 2) || (s1 == 2 && s2 == 0)))
		fail_msg("exits %d and %d: %s / %s", s1, s2,
			 run_output(tmp, "one", "stderr"),
			 run_output(tmp, "two", "stderr"));
	/* The refusal names the run that has the folder. */
	snprintf(pidtext, sizeof(pidtext), "(PID %d)", s1 ? p2 : p1);
	const char *err = run_output(tmp, s1 ? "one" : "two", "stderr");
	assert_int_equal(count_lines(err), 1);
	if (!strstr(err, "in use by another encbench-trace run") ||
	    !strstr(err, pidtext))
		fail_msg("refusal '%s' does not name %s", err, pidtext);
	assert_whole(out);
	assert_int_equal(leftovers(tmp, NULL, 0), 0);
}

/*
 * Hold the first open of a file whose name starts with `prefix` in the
 * watched folder (a fanotify permission event: the opener waits for our
 * answer), letting every other open through. Its fd, and the opener's PID
 * in *pid; -1 after 120 s.
 */
static int hold_open(int fan, const char *prefix, pid_t *pid)
{
	char buf[4096] __attribute__((aligned(8)));
	struct pollfd pfd = {.fd = fan, .events = POLLIN};

	while (poll(&pfd, 1, 120000) == 1) {
		ssize_t n = read(fan, buf, sizeof(buf));
		struct fanotify_event_metadata *m = (void *)buf;

		for (; n > 0 && FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
			char link[64], name[PATH_MAX] = "";
			struct fanotify_response allow = {m->fd, FAN_ALLOW};
			const char *base;
			ssize_t k;

			snprintf(link, sizeof(link), "/proc/self/fd/%d", m->fd);
			k = readlink(link, name, sizeof(name) - 1);
			name[k > 0 ? k : 0] = '\0';
			base = strrchr(name, '/');
			if (base &&
			    !strncmp(base + 1, prefix, strlen(prefix))) {
				*pid = m->pid;
				return m->fd;
			}
			write(fan, &allow, sizeof(allow));
			close(m->fd);
		}
	}
	return -1;
}

/*
 * Item 4: a signal while the report was written was ignored (exit 0).
 * SIGINT while results.json's temp file is being opened (held there by a
 * fanotify permission event, so the signal surely lands mid-report): the
 * run finishes writing (the measurements are done), says the results are
 * complete, and exits 130; every file is whole.
 */
static void test_signal_while_writing(void **state)
{
	struct fanotify_response allow = {.response = FAN_ALLOW};
	char out[PATH_MAX];
	const char *a[14], *err;
	pid_t pid, opener = 0;
	int fan;
	(void)state;

	path_in(out, sizeof(out), "late");
	assert_int_equal(mkdir(out, 0755), 0); /* empty: allowed */
	fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
	assert_true(fan >= 0);
	assert_int_equal(fanotify_mark(fan, FAN_MARK_ADD,
				       FAN_OPEN_PERM | FAN_EVENT_ON_CHILD,
				       AT_FDCWD, out),
			 0);
	short_run(a, out);
	pid = run_spawn(tmp, "late", NULL, NULL, a);
	allow.fd = hold_open(fan, ".results.json.", &opener);
	if (allow.fd < 0) {
		kill(pid, SIGKILL);
		run_reap(pid);
		fail_msg("results.json was never written");
	}
	assert_int_equal(opener, pid);
	assert_int_equal(kill(pid, SIGINT), 0);
	write(fan, &allow, sizeof(allow));
	close(allow.fd);
	close(fan); /* lets every later open through */
	assert_int_equal(run_reap(pid), 130);
	err = run_output(tmp, "late", "stderr");
	if (!strstr(err, "interrupted after the measurements were done; the "
			 "results in") ||
	    !strstr(err, "are complete"))
		fail_msg("stderr '%s' does not say the results are complete",
			 err);
	assert_whole(out);
	assert_int_equal(leftovers(tmp, NULL, 0), 0);
}

/* Valid UTF-8, by its encoding rules (no overlongs or surrogates needed
 * here: the writer escapes every byte that is not ASCII or valid). */
static bool utf8_valid(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t more = s[i] < 0x80	      ? 0
			      : (s[i] & 0xe0) == 0xc0 ? 1
			      : (s[i] & 0xf0) == 0xe0 ? 2
			      : (s[i] & 0xf8) == 0xf0 ? 3
						      : 9;

		if (more == 9 || (more && i + more >= n))
			return false;
		for (size_t k = 1; k <= more; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
		i += more + 1;
	}
	return true;
}

/* Item 7: a non-UTF-8 --output reached results.json raw (through options
 * kept as JSON text); strict readers then refused the file. */
static void test_non_utf8_output(void **state)
{
	char out[PATH_MAX], path[PATH_MAX + 16], *text;
	const char *argv[14];
	struct json_object *r;
	size_t n;
	FILE *f;
	(void)state;

	path_in(out, sizeof(out), "caf\xe9-\xff\xfe");
	short_run(argv, out);
	assert_int_equal(run_reap(run_spawn(tmp, "utf8", NULL, NULL, argv)), 0);
	snprintf(path, sizeof(path), "%s/results.json", out);
	f = fopen(path, "r");
	assert_non_null(f);
	text = malloc(1 << 20);
	assert_non_null(text);
	n = fread(text, 1, (1 << 20) - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_true(utf8_valid((const unsigned char *)text, n));
	free(text);
	r = json_object_from_file(path);
	assert_non_null(r);
	assert_non_null(
		strstr(json_object_get_string(
			       get(get(get(r, "meta"), "options"), "output")),
		       "caf\\xe9-\\xff\\xfe"));
	json_object_put(r);
	const char *report[] = {bin, "report", out, NULL};
	assert_int_equal(run_reap(run_spawn(tmp, "utf8r", NULL, NULL, report)),
			 0);
	assert_non_null(strstr(run_output(tmp, "utf8r", "stdout"), "plain"));
	assert_int_equal(leftovers(tmp, NULL, 0), 0);
}

/* Items 5 and 6 at the command line: `report` on a FIFO, /dev/zero, a
 * folder named results.json and a bare schema is exit 2 with one line
 * (the reader's corpus is tests/unit/test_report_input.c). */
static void test_report_bad_inputs(void **state)
{
	char fifo[PATH_MAX], folder[PATH_MAX + 16], bare[PATH_MAX];
	(void)state;

	path_in(fifo, sizeof(fifo), "fifo");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	const char *a1[] = {bin, "report", fifo, NULL};
	expect_bad(NULL, a1, "is a FIFO, not a results file");
	const char *a2[] = {bin, "report", "/dev/zero", NULL};
	expect_bad(NULL, a2, "is a character device");
	path_in(folder, sizeof(folder), "rdir");
	assert_int_equal(mkdir(folder, 0755), 0);
	strcat(folder, "/results.json");
	assert_int_equal(mkdir(folder, 0755), 0);
	folder[strlen(folder) - strlen("/results.json")] = '\0';
	const char *a3[] = {bin, "report", folder, NULL};
	expect_bad(NULL, a3, "is a folder, not a results file");
	path_in(bare, sizeof(bare), "bare.json");
	write_file(bare, "{\"schema\":\"encbench-trace/1\"}");
	const char *a4[] = {bin, "report", bare, NULL};
	expect_bad(NULL, a4, "member \"meta\" is missing");
}

/* Write into dir until its file system is full. */
static void fill_fs(const char *dir)
{
	static const char block[4096];
	char path[PATH_MAX + 8];
	int fd;

	snprintf(path, sizeof(path), "%s/fill", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	assert_true(fd >= 0);
	while (write(fd, block, sizeof(block)) > 0)
		;
	assert_int_equal(errno, ENOSPC);
	close(fd);
}

/* A tmpfs of `kib` KiB at dir, filled up to the last byte when `fill`. */
static void mount_small_fs(const char *dir, int kib, bool fill)
{
	char opts[32];

	snprintf(opts, sizeof(opts), "size=%dk", kib);
	assert_true(mkdir(dir, 0755) == 0 || errno == EEXIST);
	assert_int_equal(mount("tmpfs", dir, "tmpfs", 0, opts), 0);
	if (fill)
		fill_fs(dir);
}

/*
 * Issue 21 item 8: with the output folder on a full file system, a run
 * measured everything, failed to write, and then said "Results in
 * <folder>" over an empty folder. The room is checked before the first
 * target is built: exit 2, one line saying what is free, nothing made.
 */
static void test_full_disk_refused(void **state)
{
	char full[PATH_MAX], out[PATH_MAX + 8];
	const char *argv[14];
	(void)state;

	path_in(full, sizeof(full), "full");
	snprintf(out, sizeof(out), "%s/out", full);
	mount_small_fs(full, 64, true);
	short_run(argv, out);
	expect_bad(NULL, argv, "KiB free, the results need about");
	assert_int_equal(entries(full, NULL), 1); /* the filler alone */
	assert_int_equal(umount(full), 0);
	assert_int_equal(leftovers(tmp, NULL, 0), 0);
}

/* Run short_run into out, stopped before its first dd (all measurements
 * ahead); its PID. */
static pid_t run_stopped(const char *tag, const char *out)
{
	const char *argv[14];
	int status;
	pid_t pid;

	short_run(argv, out);
	setenv("ENCBENCH_PAUSE_AT", "workload:plain:dd", 1);
	pid = run_spawn(tmp, tag, NULL, NULL, argv);
	unsetenv("ENCBENCH_PAUSE_AT");
	assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
	if (!WIFSTOPPED(status))
		fail_msg("never stopped before dd: %s",
			 run_output(tmp, tag, "stderr"));
	return pid;
}

/*
 * The run's last line names the folder the results are in and what it
 * holds: that folder, and every file named there is whole (assert_whole);
 * `lost` is the output folder, which must be named as the one that could
 * not take them. The folder's path in `where`.
 */
static void assert_kept_elsewhere(const char *tag, const char *lost,
				  char where[PATH_MAX])
{
	const char *text = run_output(tmp, tag, "stdout");
	const char *line = strstr(text, "\nResults in ");
	char expect[PATH_MAX + 32];
	const char *slash;

	if (!line)
		fail_msg("no 'Results in' line: %s", text);
	line += strlen("\nResults in ");
	slash = strstr(line, "/ (");
	assert_non_null(slash);
	snprintf(where, PATH_MAX, "%.*s", (int)(slash - line), line);
	if (strncmp(where, "/var/tmp/encbench-results.", 26) &&
	    strncmp(where, "/run/encbench-results.", 22))
		fail_msg("results kept in '%s', not a fallback folder", where);
	static const char names[] = "/ (results.json, per-iteration CSV, "
				    "histograms, run.log, report.txt): ";

	if (strncmp(slash, names, strlen(names)))
		fail_msg("the line names '%.80s'", slash);
	snprintf(expect, sizeof(expect), "%s/ could not take them", lost);
	if (!strstr(slash, expect))
		fail_msg("the line does not say '%s': %s", expect, slash);
	assert_whole(where);
}

/* A full disk found only when the results are written (it filled up
 * during the run): every result is kept, whole, in a fallback folder the
 * last line names; nothing half-written stays in the output folder. */
static void test_disk_full_at_the_end(void **state)
{
	char full[PATH_MAX], out[PATH_MAX + 8], kept[PATH_MAX];
	int hidden;
	pid_t pid;
	(void)state;

	path_in(full, sizeof(full), "filling");
	snprintf(out, sizeof(out), "%s/out", full);
	mount_small_fs(full, 4096, false);
	pid = run_stopped("filling", out);
	fill_fs(full);
	kill(pid, SIGCONT);
	assert_int_equal(run_reap(pid), 1);
	if (!strstr(run_output(tmp, "filling", "stderr"),
		    "No space left on device"))
		fail_msg("stderr does not say why: %s",
			 run_output(tmp, "filling", "stderr"));
	assert_kept_elsewhere("filling", out, kept);
	/* Nothing was written there, so the empty folder it made went. */
	assert_int_not_equal(access(out, F_OK), 0);
	assert_int_equal(entries(full, &hidden), 1);
	assert_int_equal(hidden, 0);
	assert_int_equal(remove_tree(kept), 0);
	assert_int_equal(umount(full), 0);
	assert_int_equal(leftovers(tmp, NULL, 0), 0);
}

/* The output folder removed while the run measures: the results are
 * kept whole elsewhere, and said to be there. */
static void test_folder_removed_mid_run(void **state)
{
	char out[PATH_MAX], kept[PATH_MAX];
	pid_t pid;
	(void)state;

	path_in(out, sizeof(out), "removed");
	pid = run_stopped("removed", out);
	assert_int_equal(remove_tree(out), 0);
	kill(pid, SIGCONT);
	assert_int_equal(run_reap(pid), 1);
	assert_kept_elsewhere("removed", out, kept);
	assert_int_not_equal(access(out, F_OK), 0);
	assert_int_equal(remove_tree(kept), 0);
	assert_int_equal(leftovers(tmp, NULL, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dotdot_keeps_victim),
		cmocka_unit_test(test_dangling_symlink),
		cmocka_unit_test(test_rejection_touches_nothing),
		cmocka_unit_test(test_bad_paths),
		cmocka_unit_test(test_two_runs_one_output),
		cmocka_unit_test(test_signal_while_writing),
		cmocka_unit_test(test_report_bad_inputs),
		cmocka_unit_test(test_non_utf8_output),
		cmocka_unit_test(test_full_disk_refused),
		cmocka_unit_test(test_disk_full_at_the_end),
		cmocka_unit_test(test_folder_removed_mid_run),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
