// SPDX-License-Identifier: MIT
/*
 * Runs INSIDE the VM guest (dm-crypt exists there): LUKS2 built through
 * libcryptsetup with --luks-flags must report the flags read back from the
 * active mapping, and a cipher the kernel refuses must be a one-line error,
 * exit 2, with no dm map, loop device or mount left behind.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "../results_json.h"

static char tmp[] = "/var/tmp/encbench-vmluks.XXXXXX";
static json_object *results;

/* Run the program with extra arguments; its pid in *pid, status back. */
static int run(const char *out, const char *const extra[], pid_t *pid)
{
	const char *bin = getenv("ENCBENCH_BIN") ?: "./encbench-trace";
	const char *argv[32] = {bin,	  "run",      "--size",	 "8M",
				"--runs", "1",	      "--quiet", "--scratch",
				tmp,	  "--output", out};
	int n = 11, status;

	for (int i = 0; extra[i]; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	*pid = fork();
	if (*pid == 0) {
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	waitpid(*pid, &status, 0);
	return status;
}

static int setup(void **state)
{
	static const char *const extra[] = {
		"--targets", "plain,luks2", "--luks-flags",
		"no_read_workqueue,no_write_workqueue", NULL};
	char out[sizeof(tmp) + 16], path[sizeof(tmp) + 32];
	pid_t pid;
	int status;

	(void)state;
	if (!mkdtemp(tmp))
		return -1;
	snprintf(out, sizeof(out), "%s/out", tmp);
	status = run(out, extra, &pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "# run failed (status %d)\n", status);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/results.json", out);
	results = json_object_from_file(path);
	return results ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[sizeof(tmp) + 16];

	(void)state;
	json_object_put(results);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	return system(cmd) ? -1 : 0;
}

static json_object *target(const char *name)
{
	json_object *ts = get(results, "targets");

	for (size_t i = 0; i < json_object_array_length(ts); i++) {
		json_object *t = json_object_array_get_idx(ts, i);

		if (!strcmp(json_object_get_string(get(t, "name")), name))
			return t;
	}
	fail_msg("no target %s", name);
	return NULL;
}

/* Flags as the kernel's table has them, and the rest of the description. */
static void test_flags_read_back(void **state)
{
	json_object *t = target("luks2"), *enc = get(t, "encryption");
	json_object *devs = get(t, "devices");

	(void)state;
	assert_string_equal(json_object_get_string(get(enc, "flags")),
			    "no_read_workqueue,no_write_workqueue");
	assert_int_equal(json_object_get_int(get(enc, "sector_size")), 4096);
	assert_int_equal(json_object_get_int(get(enc, "key_bits")), 512);
	assert_string_equal(json_object_get_string(get(enc, "contents_cipher")),
			    "xts(aes)");
	assert_true(strlen(json_object_get_string(get(enc, "driver"))) > 0);
	assert_true(json_object_get_boolean(get(t, "verified_encrypted")));
	assert_int_equal(json_object_array_length(devs), 2);
	assert_string_equal(
		json_object_get_string(
			get(json_object_array_get_idx(devs, 0), "role")),
		"crypt");
	assert_string_equal(
		json_object_get_string(
			get(json_object_array_get_idx(devs, 1), "role")),
		"backing");
}

/* The throwaway PBKDF is stated in the output. */
static void test_pbkdf_note(void **state)
{
	json_object *notes = get(target("luks2"), "notes");
	bool found = false;

	(void)state;
	for (size_t i = 0; i < json_object_array_length(notes); i++)
		found |= strstr(json_object_get_string(
					json_object_array_get_idx(notes, i)),
				"PBKDF2") != NULL;
	assert_true(found);
}

/* no_read_workqueue: decryption runs where the read completes, so no
 * work item waits on a queue, but crypt is still counted there (fentry
 * or kprobe on kcryptd_crypt); the same for writes. */
static void test_no_read_queue(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++) {
		const char *op = i ? "write" : "read";
		json_object *c = layer_of(results, "luks2", op, "crypt");

		if (json_object_get_int64(get(c, "count")) <= 0)
			fail_msg("luks2 %s crypt count 0 (source %s)", op,
				 json_object_get_string(get(c, "source")));
	}
	assert_int_equal(
		json_object_get_int64(
			get(layer_of(results, "luks2", "read", "crypt-queue"),
			    "count")),
		0);
}

/* no_write_workqueue: dm-crypt submits each encrypted write itself, so
 * its write thread's stage does not apply (and says why), while the
 * writes' encryption is still counted (test_no_read_queue). */
static void test_no_write_thread(void **state)
{
	json_object *w = layer_of(results, "luks2", "write", "dmcrypt-write");

	(void)state;
	assert_string_equal(json_object_get_string(get(w, "state")),
			    "not applicable");
	assert_false(json_object_get_boolean(get(w, "available")));
	assert_non_null(strstr(json_object_get_string(get(w, "reason")),
			       "no_write_workqueue"));
	assert_string_equal(
		json_object_get_string(get(
			layer_of(results, "plain", "write", "dmcrypt-write"),
			"state")),
		"not applicable");
}

/* A cipher the kernel does not have: exit 2, nothing left behind. */
static void test_refused_cipher(void **state)
{
	static const char *const extra[] = {"--targets", "plain,luks2",
					    "--luks-cipher",
					    "aes-nosuch-plain64", NULL};
	char out[sizeof(tmp) + 16], map[64];
	struct stat st;
	pid_t pid;
	int status;

	(void)state;
	snprintf(out, sizeof(out), "%s/out-bad", tmp);
	status = run(out, extra, &pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 2);
	snprintf(map, sizeof(map), "/dev/mapper/encbench-%d-luks2", pid);
	assert_int_not_equal(stat(map, &st), 0);
	assert_int_not_equal(stat(out, &st), 0);
	/* The guest runs nothing else: no loop device may be bound. */
	assert_int_not_equal(system("losetup -a | grep -q ."), 0);
	assert_int_not_equal(system("grep -q encbench /proc/mounts"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flags_read_back),
		cmocka_unit_test(test_pbkdf_note),
		cmocka_unit_test(test_no_read_queue),
		cmocka_unit_test(test_no_write_thread),
		cmocka_unit_test(test_refused_cipher),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
