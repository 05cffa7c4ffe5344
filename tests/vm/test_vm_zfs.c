// SPDX-License-Identifier: MIT
/*
 * Runs INSIDE the VM guest, where scripts/vm/run --zfs loaded OpenZFS
 * (ENCBENCH_VM_ZFS=<version>; on kernels it does not support,
 * ENCBENCH_VM_ZFS_SKIP says why and this program skips). One real run of
 * the ZFS dd report's benchmark: `--targets zfs` builds both datasets on
 * one pool, the unencrypted one is the baseline, the encrypted one must be
 * verified as ciphertext on the raw vdev, and ZFS's own encryption must
 * be attributed to `crypt` on the encrypted dataset only.
 */
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
#include <json-c/json.h>

#include "../results_json.h"

#define RUNS 3

static char tmp[] = "/var/tmp/encbench-vmzfs.XXXXXX";
static char out[sizeof(tmp) + 16];
static json_object *results;

static int setup(void **state)
{
	const char *bin = getenv("ENCBENCH_BIN") ?: "./encbench-trace";
	char path[sizeof(out) + 32], runs[8];
	int status;
	pid_t pid;

	(void)state;
	if (!mkdtemp(tmp))
		return -1;
	snprintf(out, sizeof(out), "%s/out", tmp);
	snprintf(runs, sizeof(runs), "%d", RUNS);
	pid = fork();
	if (pid == 0) {
		execl(bin, bin, "run", "--targets", "zfs", "--workloads", "dd",
		      "--size", "8M", "--runs", runs, "--quiet", "--scratch",
		      tmp, "--output", out, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
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

static const char *str(json_object *o, const char *k)
{
	return json_object_get_string(get(o, k));
}

/* Both datasets, baseline first, same compression; the encrypted one's
 * raw vdev lacked the probe's plaintext, the other one's had it. */
static void test_datasets(void **state)
{
	json_object *off = target_of(results, "zfs-off"),
		    *enc = target_of(results, "zfs");
	json_object *zoff = get(off, "zfs"), *zenc = get(enc, "zfs");

	(void)state;
	assert_string_equal(
		str(json_object_array_get_idx(get(results, "targets"), 0),
		    "name"),
		"zfs-off");
	assert_string_equal(str(zenc, "encryption"), "aes-256-gcm");
	assert_string_equal(str(zenc, "keystatus"), "available");
	assert_string_equal(str(zoff, "encryption"), "off");
	assert_string_equal(str(zenc, "compression"), "lz4");
	assert_string_equal(str(zoff, "compression"), "lz4");
	assert_true(json_object_get_int64(get(zenc, "objset_id")) > 0);
	assert_true(json_object_get_int64(get(zenc, "objset_id")) !=
		    json_object_get_int64(get(zoff, "objset_id")));
	assert_string_equal(str(enc, "fs"), "zfs");
	assert_true(json_object_get_boolean(get(enc, "verified_encrypted")));
	assert_false(json_object_get_boolean(get(off, "verified_encrypted")));
	if (!strstr(str(get(enc, "encryption"), "driver"), "ICP"))
		fail_msg("driver '%s' is not ZFS's ICP",
			 str(get(enc, "encryption"), "driver"));
}

/* The report's shape: per-iteration CSV, run log, and for both metrics a
 * comparison of zfs against zfs-off with a Welch interval. */
static void test_comparison(void **state)
{
	json_object *cmp = get(results, "comparisons");
	char path[sizeof(out) + 32], line[256];
	int found = 0, rows = 0;
	FILE *f;

	(void)state;
	for (size_t i = 0; i < json_object_array_length(cmp); i++) {
		json_object *c = json_object_array_get_idx(cmp, i);
		json_object *ci = get(c, "welch_ci95");

		if (strcmp(str(c, "target"), "zfs"))
			continue;
		assert_string_equal(str(c, "baseline"), "zfs-off");
		assert_int_equal(json_object_array_length(ci), 2);
		assert_true(json_object_get_double(
				    json_object_array_get_idx(ci, 0)) <=
			    json_object_get_double(
				    json_object_array_get_idx(ci, 1)));
		found++;
	}
	assert_int_equal(found, 2); /* write_s and read_s */
	snprintf(path, sizeof(path), "%s/zfs-dd.csv", out);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		rows++;
	fclose(f);
	assert_int_equal(rows, 1 + RUNS);
	snprintf(path, sizeof(path), "%s/run.log", out);
	assert_int_equal(access(path, R_OK), 0);
}

/* ZFS's own encryption, kprobed: on the encrypted dataset, writes are
 * encrypted (always: every written block is); never on the other one. */
static void test_crypt_layer(void **state)
{
	json_object *w = layer_of(results, "zfs", "write", "crypt");
	const char *src = str(w, "source");

	(void)state;
	if (!strstr(src, "kprobe:spa_do_crypt_abd"))
		fail_msg("zfs crypt source '%s'", src);
	assert_true(json_object_get_boolean(get(w, "available")));
	assert_true(json_object_get_int64(get(w, "count")) > 0);
	assert_true(json_object_get_int64(get(w, "sum_ns")) > 0);
	for (int op = 0; op < 2; op++) {
		json_object *l = layer_of(results, "zfs-off",
					  op ? "write" : "read", "crypt");

		assert_int_equal(json_object_get_int64(get(l, "count")), 0);
	}
}

/* O_DIRECT on OpenZFS 2.1 goes through the ARC: the output says so. */
static void test_direct_caveat(void **state)
{
	char path[sizeof(out) + 32], cmd[sizeof(path) + 64];

	(void)state;
	snprintf(path, sizeof(path), "%s/run.log", out);
	snprintf(cmd, sizeof(cmd),
		 "grep -q 'serves O_DIRECT through the ARC' %s", path);
	assert_int_equal(system(cmd), 0);
}

/* The pool is gone: nothing of ours is left imported. */
static void test_no_pool_left(void **state)
{
	(void)state;
	assert_int_equal(system("zpool list -H -o name | grep -q '^encbench-'"),
			 256); /* grep: no match */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_datasets),
		cmocka_unit_test(test_comparison),
		cmocka_unit_test(test_crypt_layer),
		cmocka_unit_test(test_direct_caveat),
		cmocka_unit_test(test_no_pool_left),
	};
	const char *skip = getenv("ENCBENCH_VM_ZFS_SKIP");

	if (!getenv("ENCBENCH_VM_ZFS")) {
		/* TAP's plan-level skip, with the harness's reason. */
		printf("1..0 # SKIP %s\n",
		       skip
			       ?: "no OpenZFS in this guest (scripts/vm/run "
				  "without --zfs)");
		return 0;
	}
	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
