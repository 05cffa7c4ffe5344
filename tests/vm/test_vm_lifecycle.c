// SPDX-License-Identifier: MIT
/*
 * Runs INSIDE the VM guest, where dm-crypt, eCryptfs and (with
 * scripts/vm/run --zfs, on 6.1) ZFS exist: what the host's
 * test_lifecycle cannot build. A run held by the test hook
 * (ENCBENCH_PAUSE_AT) as its last target's workload starts, with every
 * target up -- a LUKS2 dm map, an eCryptfs mount whose key was in the
 * killed process's keyring, a ZFS pool and its datasets -- is killed with
 * SIGKILL; all of it stays, and `teardown` removes all of it. SIGINT while
 * the dm map is active and nothing is on it yet leaves nothing and exits
 * 130.
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <linux/keyctl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "../leftovers.h"
#include "../run_prog.h"

static char tmp[] = "/var/tmp/encbench-vmlife.XXXXXX";
static char state[sizeof(tmp) + 16];
static const char *bin;

/* dm maps the program named for process pid ("encbench-<pid>-..."). */
static int dm_maps_of(pid_t pid)
{
	char prefix[32], name[128];
	glob_t g;
	int n = 0;

	snprintf(prefix, sizeof(prefix), "encbench-%d-", (int)pid);
	if (glob("/sys/block/dm-*/dm/name", 0, NULL, &g))
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");

		if (f && fgets(name, sizeof(name), f) &&
		    !strncmp(name, prefix, strlen(prefix)))
			n++;
		if (f)
			fclose(f);
	}
	globfree(&g);
	return n;
}

/* Objects of `type` in pid's state file; the serial or name of the last
 * one into *serial / name (may be NULL). */
static int recorded(pid_t pid, const char *type, long *serial, char *name,
		    size_t len)
{
	char path[sizeof(state) + 32];
	struct json_object *doc, *objs, *v;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%d.json", state, (int)pid);
	doc = json_object_from_file(path);
	if (!doc || !json_object_object_get_ex(doc, "objects", &objs)) {
		json_object_put(doc);
		return 0;
	}
	for (size_t i = 0; i < json_object_array_length(objs); i++) {
		struct json_object *o = json_object_array_get_idx(objs, i);

		if (!json_object_object_get_ex(o, "type", &v) ||
		    strcmp(json_object_get_string(v), type))
			continue;
		n++;
		if (serial && json_object_object_get_ex(o, "serial", &v))
			*serial = json_object_get_int64(v);
		if (name && json_object_object_get_ex(o, "name", &v))
			snprintf(name, len, "%s", json_object_get_string(v));
	}
	json_object_put(doc);
	return n;
}

static bool key_alive(long serial)
{
	char desc[256];

	return syscall(SYS_keyctl, KEYCTL_DESCRIBE, (int)serial, desc,
		       sizeof(desc)) >= 0;
}

static bool pool_imported(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "/proc/spl/kstat/zfs/%s", name);
	return access(path, F_OK) == 0;
}

/* `run` on `targets`, stopped by the hook at `point`. */
static pid_t run_to(const char *targets, const char *point)
{
	char out[sizeof(tmp) + 16];
	const char *argv[] = {bin,	    "run",     "--targets", targets,
			      "--size",	    "8M",      "--runs",    "1",
			      "--no-trace", "--quiet", "--scratch", tmp,
			      "--output",   out,       NULL};
	int status;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/out", tmp);
	remove_tree(out);
	setenv("ENCBENCH_PAUSE_AT", point, 1);
	pid = run_spawn(tmp, "run", NULL, NULL, argv);
	unsetenv("ENCBENCH_PAUSE_AT");
	assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
	if (!WIFSTOPPED(status))
		fail_msg("never stopped at %s: %s", point,
			 run_output(tmp, "run", "stderr"));
	return pid;
}

static int signal_and_reap(pid_t pid, int sig)
{
	kill(pid, sig);
	kill(pid, SIGCONT);
	return run_reap(pid);
}

/* leftovers() without its BPF half (this program has no libbpf); the
 * loop devices' autoclear may take a moment after the last unmount. */
static int nothing_left(pid_t pid)
{
	int n = 0;

	for (int i = 0; i < 50; i++) {
		n = mounts_under(tmp) + loops_under(tmp) +
		    scratch_dirs_under(tmp) + dm_maps_of(pid);
		if (!n)
			break;
		usleep(100000);
	}
	if (n)
		fprintf(stderr,
			"# left: %d mounts, %d loops, %d scratch, %d dm\n",
			mounts_under(tmp), loops_under(tmp),
			scratch_dirs_under(tmp), dm_maps_of(pid));
	return n;
}

static void test_sigkill_then_teardown(void **st)
{
	const char *teardown_argv[] = {bin, "teardown", NULL};
	bool zfs = getenv("ENCBENCH_VM_ZFS") != NULL;
	const char *targets = zfs ? "plain,luks2,ecryptfs,zfs-off,zfs"
				  : "plain,luks2,ecryptfs";
	char pool[128] = "";
	long serial = 0;
	pid_t pid;
	(void)st;

	printf("# targets %s\n", targets);
	/* Every target is built before the first workload starts; a later
	 * target's dd is no point to stop at: eCryptfs's is not applicable
	 * (no O_DIRECT), so it never reaches the hook (the 6.12 guest, with
	 * no ZFS, stopped nowhere). */
	pid = run_to(targets, "workload:plain:dd");
	assert_int_equal(signal_and_reap(pid, SIGKILL), 128 + SIGKILL);
	/* Everything stays after a SIGKILL, recorded. */
	assert_int_equal(dm_maps_of(pid), 1);
	assert_int_equal(recorded(pid, "dm", NULL, NULL, 0), 1);
	assert_int_equal(recorded(pid, "user-key", &serial, NULL, 0), 1);
	assert_true(key_alive(serial)); /* the eCryptfs mount holds it */
	assert_true(mounts_under(tmp) >= 3);
	if (zfs) {
		assert_int_equal(
			recorded(pid, "zpool", NULL, pool, sizeof(pool)), 1);
		assert_true(pool_imported(pool));
	}

	if (run_reap(run_spawn(tmp, "teardown", NULL, NULL, teardown_argv)))
		fail_msg("teardown failed: %s",
			 run_output(tmp, "teardown", "stderr"));
	assert_int_equal(nothing_left(pid), 0);
	assert_false(key_alive(serial));
	if (zfs)
		assert_false(pool_imported(pool));
	assert_int_equal(recorded(pid, "dm", NULL, NULL, 0), 0);
}

/* SIGINT with the dm map active and nothing on it yet. */
static void test_sigint_on_dm_map(void **st)
{
	pid_t pid = run_to("plain,luks2", "setup:luks2:dm-crypt");
	(void)st;

	assert_int_equal(dm_maps_of(pid), 1);
	assert_int_equal(signal_and_reap(pid, SIGINT), 130);
	assert_int_equal(nothing_left(pid), 0);
	assert_int_equal(recorded(pid, "dm", NULL, NULL, 0), 0);
}

static int setup(void **st)
{
	(void)st;
	bin = getenv("ENCBENCH_BIN") ?: "./encbench-trace";
	if (!mkdtemp(tmp))
		return -1;
	snprintf(state, sizeof(state), "%s/state", tmp);
	setenv("ENCBENCH_STATE_DIR", state, 1);
	return 0;
}

static int teardown(void **st)
{
	const char *argv[] = {bin, "teardown", NULL};
	(void)st;

	run_reap(run_spawn(tmp, "final", NULL, NULL, argv));
	return remove_tree(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sigkill_then_teardown),
		cmocka_unit_test(test_sigint_on_dm_map),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
