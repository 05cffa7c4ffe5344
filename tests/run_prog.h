/* SPDX-License-Identifier: MIT */
/*
 * Running the real program from an integration test: each run's stdout
 * and stderr go to <dir>/<tag>.stdout and <dir>/<tag>.stderr, where the
 * test reads them back. Header-only.
 */
#ifndef ENCBENCH_RUN_PROG_H
#define ENCBENCH_RUN_PROG_H

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

/* The program under test, as an absolute path (tests run it from other
 * folders: `make check` gives no ENCBENCH_BIN, and test_cli_style's
 * refusals in a folder of their own then failed to exec "./..."):
 * $ENCBENCH_BIN, else ./encbench-trace. */
static inline const char *run_prog_bin(void)
{
	static char path[PATH_MAX];
	const char *bin = getenv("ENCBENCH_BIN") ?: "./encbench-trace";

	if (!path[0] && !realpath(bin, path))
		snprintf(path, sizeof(path), "%s", bin);
	return path;
}

/* An integration test's start: root (said on stderr if not), and a new
 * folder of its own made from the template dir (mkdtemp). 0 or -1. */
static inline int run_prog_begin(char *dir)
{
	if (geteuid() != 0) {
		fprintf(stderr, "# integration tests need root\n");
		return -1;
	}
	return mkdtemp(dir) ? 0 : -1;
}

/* The BPF ids every run makes are recorded in <dir>/bpf-ids
 * (ENCBENCH_IDS_FILE), whose path goes to ids_file. */
static inline void run_prog_record_ids(const char *dir, char ids_file[PATH_MAX])
{
	snprintf(ids_file, PATH_MAX, "%s/bpf-ids", dir);
	setenv("ENCBENCH_IDS_FILE", ids_file, 1);
}

/* Start bin with argv in cwd (NULL: the test's), as uid (NULL: root). */
static inline pid_t run_spawn(const char *dir, const char *tag, const char *cwd,
			      const char *uid, const char *const *argv)
{
	char out[PATH_MAX], err[PATH_MAX];
	pid_t pid;

	/* Emptied before the fork, not in the child: a test that polls a
	 * reused tag's output right after run_spawn must not read the
	 * previous run's (test_servers sent its SIGINT on an old "1/3"). */
	snprintf(out, sizeof(out), "%s/%s.stdout", dir, tag);
	snprintf(err, sizeof(err), "%s/%s.stderr", dir, tag);
	for (const char *p = out; p; p = p == out ? err : NULL) {
		FILE *f = fopen(p, "w");

		if (f)
			fclose(f);
	}
	fflush(NULL); /* or the child writes the test's buffered lines too */
	pid = fork();
	if (pid == 0) {
		freopen(out, "w", stdout);
		freopen(err, "w", stderr);
		freopen("/dev/null", "r", stdin);
		if (cwd && chdir(cwd))
			_exit(97);
		if (uid && (setgid(atoi(uid)) || setuid(atoi(uid))))
			_exit(99);
		execv(argv[0], (char *const *)argv);
		_exit(98);
	}
	return pid;
}

/* Its exit status, 128 + signal when killed. */
static inline int run_reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* What run <tag> wrote to `stream` ("stdout", "stderr"); static buffer. */
static inline const char *run_output(const char *dir, const char *tag,
				     const char *stream)
{
	static char buf[1 << 16];
	char path[PATH_MAX];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.%s", dir, tag, stream);
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* The results document of run <tag> in dir, which exited with rc and
 * wrote into out: out/results.json parsed (json_object_put it), or NULL
 * when rc is not 0 (said on stderr, with the run's stderr) or the file
 * does not parse. */
static inline struct json_object *
run_prog_results(const char *dir, const char *tag, int rc, const char *out)
{
	char path[PATH_MAX + 16];

	if (rc) {
		fprintf(stderr, "# %s: exit %d:\n%s\n", tag, rc,
			run_output(dir, tag, "stderr"));
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/results.json", out);
	return json_object_from_file(path);
}

#define RUN_PROG_MAX_ARGS 32

/* `run --scratch dir --output out -q EXTRA...`, its output under the tag
 * "run" in dir: its exit status. */
static inline int run_prog_run(const char *dir, const char *out,
			       const char *const *extra, int n)
{
	const char *argv[RUN_PROG_MAX_ARGS + 8] = {
		run_prog_bin(), "run", "--scratch", dir, "--output", out, "-q"};
	int argc = 7;

	for (int i = 0; i < n && i < RUN_PROG_MAX_ARGS; i++)
		argv[argc++] = extra[i];
	argv[argc] = NULL;
	return run_reap(run_spawn(dir, "run", NULL, NULL, argv));
}

/* The test's folder, and everything in it: 0 when gone. */
static inline int remove_tree(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

/* How many files dir/snapshots/ holds (a run's output folder). */
static inline int snapshot_files(const char *dir)
{
	char path[PATH_MAX + 16];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "%s/snapshots", dir);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static inline int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

#endif
