// SPDX-License-Identifier: MIT
/*
 * Runs INSIDE the VM guest: writes to LUKS2 on a RAM disk (brd), where
 * dm-crypt's write thread wakes the writer itself. The thread only
 * submits encrypted clones (dmcrypt_write -> kcryptd_io_write); a device
 * below that completes bios inside submit_bio, as brd does, ends the
 * clone and its dm bio there, so the writer's wakeup runs in the thread.
 * On a loop device (the targets `run` builds) the loop worker completes
 * them and the thread never wakes a writer. The writer's wait must split
 * along the clone's chain -- dm, crypt-queue, crypt, dmcrypt-write, and
 * the RAM disk's copy as device -- not by the thread's stack into fs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "../results_json.h"
#include "vm_run.h"
#include "vm_shell.h"

static char tmp[] = "/var/tmp/encbench-vmdmw.XXXXXX";
static char map[64], mnt[sizeof(tmp) + 16];
static bool brd_ours, opened, mounted;
static json_object *results;

/* /dev/ram0 (64 MiB) -> LUKS2 (aes-xts-plain64, 4096-byte sectors) ->
 * ext4, mounted. brd must not be loaded already: its disks would be
 * someone else's. */
static int make_luks_on_brd(void)
{
	if (!access("/sys/module/brd", F_OK)) {
		fprintf(stderr, "# brd is loaded already: not ours to use\n");
		return -1;
	}
	if (sh("modprobe brd rd_nr=1 rd_size=65536"))
		return -1;
	brd_ours = true;
	snprintf(map, sizeof(map), "encbench-vmdmw-%d", getpid());
	snprintf(mnt, sizeof(mnt), "%s/mnt", tmp);
	if (sh("head -c 64 /dev/urandom > %s/key", tmp) ||
	    sh("cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 "
	       "--pbkdf-force-iterations 1000 --cipher aes-xts-plain64 "
	       "--key-size 256 --sector-size 4096 --key-file %s/key "
	       "/dev/ram0",
	       tmp) ||
	    sh("cryptsetup open --key-file %s/key /dev/ram0 %s", tmp, map))
		return -1;
	opened = true;
	if (sh(MKFS_EXT4 " /dev/mapper/%s && mkdir %s && "
			 "mount /dev/mapper/%s %s",
	       map, mnt, map, mnt))
		return -1;
	mounted = true;
	return 0;
}

static int teardown(void **state);

/* `trace` of 24 MiB of O_DIRECT writes and an fsync on the mount. */
static int setup(void **state)
{
	char out[sizeof(tmp) + 16], of[sizeof(mnt) + 16];
	const char *args[] = {"--path",	    mnt,     "-q",	 "-o",
			      out,	    "--",    "dd",	 "if=/dev/zero",
			      of,	    "bs=1M", "count=24", "oflag=direct",
			      "conv=fsync", NULL};

	(void)state;
	if (!mkdtemp(tmp))
		return -1;
	if (make_luks_on_brd()) {
		fprintf(stderr, "# cannot make LUKS2 on brd\n");
		teardown(NULL);
		return -1;
	}
	snprintf(out, sizeof(out), "%s/out", tmp);
	snprintf(of, sizeof(of), "of=%s/f", mnt);
	results = vm_cmd_json("trace", out, args);
	if (!results)
		teardown(NULL);
	return results ? 0 : -1;
}

/* Idempotent: called by setup when it fails, and by cmocka. */
static int teardown(void **state)
{
	(void)state;
	json_object_put(results);
	results = NULL;
	if (mounted && !sh("umount %s", mnt))
		mounted = false;
	if (opened && !sh("cryptsetup close %s", map))
		opened = false;
	if (brd_ours && !sh("rmmod brd"))
		brd_ours = false;
	return vm_remove(tmp) || mounted || opened || brd_ours ? -1 : 0;
}

static uint64_t u64(json_object *o, const char *k)
{
	return json_object_get_uint64(get(o, k));
}

/* The writes' wait: woken by the write thread itself, split along its
 * clone's chain, and still adding up to the syscalls' time. */
static void test_writes_follow_the_write_thread(void **state)
{
	json_object *w = get(attrib_of(results, "trace", "write"), "wait");
	json_object *ns = get(w, "ns"), *d = get(w, "dmcrypt_write_wakers");
	uint64_t all = 0;

	(void)state;
	json_object_object_foreach(ns, k, v)
	{
		fprintf(stderr, "# write wait: %s %.2f ms\n", k,
			json_object_get_uint64(v) / 1e6);
		all += json_object_get_uint64(v);
	}
	fprintf(stderr,
		"# %llu syscalls, %.2f ms; woken by the write thread %llu "
		"times (%.2f ms), %llu along its clone's chain\n",
		(unsigned long long)u64(w, "syscalls"),
		u64(w, "total_ns") / 1e6, (unsigned long long)u64(d, "wakeups"),
		u64(d, "ns") / 1e6, (unsigned long long)u64(d, "chained"));
	assert_true(u64(w, "syscalls") >= 24);
	assert_true(all == u64(w, "total_ns"));
	assert_true(u64(d, "wakeups") > 0);
	assert_true(u64(d, "chained") > 0);
	/* By the thread's stack, those waits were fs. */
	assert_true(u64(ns, "fs") < u64(d, "ns"));
	/* No request below: device time comes only from that chain (the
	 * RAM disk's copy inside the thread's submission). */
	assert_true(u64(ns, "device") > 0);
	assert_true(u64(ns, "dmcrypt-write") > 0);
	assert_true(u64(ns, "crypt") > 0);
}

/* Nothing of the test's stack is left. */
static void test_nothing_left(void **state)
{
	(void)state;
	assert_int_equal(teardown(NULL), 0);
	assert_int_equal(access("/sys/module/brd", F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writes_follow_the_write_thread),
		cmocka_unit_test(test_nothing_left),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
