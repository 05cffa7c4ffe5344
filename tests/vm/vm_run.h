/* SPDX-License-Identifier: MIT */
/*
 * The VM tests' way to run the real program in the guest and read its
 * results back. Header-only (the guest tests link nothing of the
 * program's).
 */
#ifndef ENCBENCH_VM_RUN_H
#define ENCBENCH_VM_RUN_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

/* Called at each stop of a run given pause points: where it stopped
 * (the point's name, from ENCBENCH_PAUSE_LOG), before it goes on. */
typedef void (*vm_stop_fn)(const char *where, void *arg);

/* The last line of path into buf ("" if none). */
static inline void vm_last_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[256];

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		snprintf(buf, len, "%s", line);
	}
	if (f)
		fclose(f);
}

/* `encbench-trace CMD ARGS...` (args NULL-terminated; they name out as
 * --output); out's results.json, or NULL with the reason on stderr.
 * With pause_at, it stops at those points (ENCBENCH_PAUSE_AT) and
 * on_stop is told where at each, before it goes on.
 * Debian's own kernels must load every program the tracer planned: a
 * source that says one "failed to load" is a regression (6.12's
 * verifier refused a jbd2 program, and the fallbacks dropped the write
 * thread's layer with it), so it fails here, whatever the test asks. */
static inline json_object *vm_cmd_json_stopping(const char *cmd,
						const char *out,
						const char *const *args,
						const char *pause_at,
						vm_stop_fn on_stop, void *arg)
{
	const char *bin = getenv("ENCBENCH_BIN") ?: "./encbench-trace";
	const char *argv[48] = {bin, cmd};
	const char *refused;
	char path[4096], log[4096], where[256];
	int status, n = 2;
	json_object *o;
	pid_t pid;

	for (; *args && n < 47; args++)
		argv[n++] = *args;
	/* Beside out, this call's own: made by the stops, removed after. */
	snprintf(log, sizeof(log), "%s.pauses", out);
	if (pause_at)
		unlink(log);
	pid = fork();
	if (pid == 0) {
		if (pause_at) {
			setenv("ENCBENCH_PAUSE_AT", pause_at, 1);
			setenv("ENCBENCH_PAUSE_LOG", log, 1);
		}
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &status, WUNTRACED) == pid &&
	       WIFSTOPPED(status)) {
		vm_last_line(log, where, sizeof(where));
		if (on_stop)
			on_stop(where, arg);
		kill(pid, SIGCONT);
	}
	if (pause_at)
		unlink(log);
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "# %s failed (status %d)\n", cmd, status);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/results.json", out);
	o = json_object_from_file(path);
	refused = o ? strstr(json_object_to_json_string(o), "failed to load")
		    : NULL;
	if (refused) {
		fprintf(stderr, "# %s: a program was refused: ...%.160s\n", cmd,
			refused > json_object_to_json_string(o) + 80
				? refused - 80
				: json_object_to_json_string(o));
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The same without stops. */
static inline json_object *vm_cmd_json(const char *cmd, const char *out,
				       const char *const *args)
{
	return vm_cmd_json_stopping(cmd, out, args, NULL, NULL, NULL);
}

/* `encbench-trace run ARGS...`, as vm_cmd_json. */
static inline json_object *vm_run_json(const char *out, const char *const *args)
{
	return vm_cmd_json("run", out, args);
}

/* mkdtemp(tmp), out = tmp/out, then vm_run_json(out, args). */
static inline json_object *vm_run_in(char *tmp, char *out, size_t out_len,
				     const char *const *args)
{
	if (!mkdtemp(tmp))
		return NULL;
	snprintf(out, out_len, "%s/out", tmp);
	return vm_run_json(out, args);
}

/* rm -rf of a test's own mkdtemp folder. */
static inline int vm_remove(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

#endif
