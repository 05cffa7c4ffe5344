/* SPDX-License-Identifier: MIT */
/*
 * The VM tests' way to run the real program in the guest and read its
 * results back. Header-only (the guest tests link nothing of the
 * program's).
 */
#ifndef ENCBENCH_VM_RUN_H
#define ENCBENCH_VM_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

/* `encbench-trace CMD ARGS...` (args NULL-terminated; they name out as
 * --output); out's results.json, or NULL with the reason on stderr.
 * Debian's own kernels must load every program the tracer planned: a
 * source that says one "failed to load" is a regression (6.12's
 * verifier refused a jbd2 program, and the fallbacks dropped the write
 * thread's layer with it), so it fails here, whatever the test asks. */
static inline json_object *vm_cmd_json(const char *cmd, const char *out,
				       const char *const *args)
{
	const char *bin = getenv("ENCBENCH_BIN") ?: "./encbench-trace";
	const char *argv[48] = {bin, cmd};
	const char *refused;
	char path[4096];
	int status, n = 2;
	json_object *o;
	pid_t pid;

	for (; *args && n < 47; args++)
		argv[n++] = *args;
	pid = fork();
	if (pid == 0) {
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
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
