// SPDX-License-Identifier: MIT
/*
 * Runs INSIDE the VM guest (dm-crypt exists there): a user target on a
 * LUKS2 mount the test makes itself with the cryptsetup CLI, as a user
 * would have one (loop -> LUKS2 -> ext4), benchmarked beside a built
 * plain target. The program must detect the stack (dm-crypt over the loop
 * device, the cipher, key size, sector size and flags read back through
 * libcryptsetup), verify ciphertext on the loop device, trace the dm and
 * crypt layers of the detected devices, and leave the folder, the mount
 * and the mapping as it found them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "../results_json.h"
#include "vm_run.h"
#include "vm_shell.h"

static char tmp[] = "/var/tmp/encbench-vmuser.XXXXXX";
static char loop[64], map[64], mnt[sizeof(tmp) + 16], dir[sizeof(tmp) + 32];
static bool opened, mounted;
/* Where the guest has OpenZFS (6.1): an encrypted dataset of a pool the
 * test makes, as a second user target. */
static char pool[64], zdir[sizeof(tmp) + 32];
static bool zfs, pooled;
static json_object *results;

/* loop -> LUKS2 (aes-xts-plain64, 256-bit key, 4096-byte sectors,
 * same_cpu_crypt) -> ext4, mounted, with a folder and a file in it. */
static int make_luks_mount(void)
{
	char cmd[sizeof(tmp) + 64];

	snprintf(map, sizeof(map), "encbench-vmuser-%d", getpid());
	snprintf(mnt, sizeof(mnt), "%s/mnt", tmp);
	snprintf(dir, sizeof(dir), "%s/data", mnt);
	if (sh("truncate -s 160M %s/img && head -c 64 /dev/urandom > %s/key",
	       tmp, tmp))
		return -1;
	snprintf(cmd, sizeof(cmd), "losetup -f --show %s/img", tmp);
	if (sh_line(loop, sizeof(loop), cmd))
		return -1;
	if (sh("cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 "
	       "--pbkdf-force-iterations 1000 --cipher aes-xts-plain64 "
	       "--key-size 256 --sector-size 4096 --key-file %s/key %s",
	       tmp, loop) ||
	    sh("cryptsetup open --perf-same_cpu_crypt --key-file %s/key %s %s",
	       tmp, loop, map))
		return -1;
	opened = true;
	if (sh(MKFS_EXT4 " /dev/mapper/%s && mkdir %s && "
			 "mount /dev/mapper/%s %s",
	       map, mnt, map, mnt))
		return -1;
	mounted = true;
	return sh("mkdir %s && echo someone > %s/keep", dir, dir);
}

/* A pool on a file, an aes-256-gcm dataset with a raw key from a file,
 * and a folder in it. */
static int make_zfs_dataset(void)
{
	snprintf(pool, sizeof(pool), "encbench-vmuser-%d", getpid());
	snprintf(zdir, sizeof(zdir), "%s/zmnt/data", tmp);
	if (sh("truncate -s 256M %s/zvdev && head -c 32 /dev/urandom > "
	       "%s/zkey",
	       tmp, tmp))
		return -1;
	if (sh("zpool create -o cachefile=none -m none %s %s/zvdev", pool, tmp))
		return -1;
	pooled = true;
	return sh("zfs create -o encryption=aes-256-gcm -o keyformat=raw "
		  "-o keylocation=file://%s/zkey -o mountpoint=%s/zmnt %s/enc "
		  "&& mkdir %s",
		  tmp, tmp, pool, zdir);
}

static int teardown(void **state);

static int setup(void **state)
{
	char out[sizeof(tmp) + 16];
	char target[sizeof(dir) + 16], ztarget[sizeof(zdir) + 16];
	const char *args[] = {"--size",	 "8M",	      "--runs", "2",
			      "--quiet", "--targets", "plain",	"--target",
			      target,	 "--scratch", tmp,	"--output",
			      out,	 "--target",  ztarget,	NULL};

	(void)state;
	if (!mkdtemp(tmp))
		return -1;
	if (make_luks_mount()) {
		fprintf(stderr, "# cannot make the LUKS2 mount\n");
		teardown(NULL); /* the guest's later tests count loops */
		return -1;
	}
	if (zfs && make_zfs_dataset()) {
		fprintf(stderr, "# cannot make the ZFS dataset\n");
		teardown(NULL);
		return -1;
	}
	snprintf(out, sizeof(out), "%s/out", tmp);
	snprintf(target, sizeof(target), "luks=%s", dir);
	snprintf(ztarget, sizeof(ztarget), "zdir=%s", zdir);
	if (!zfs) /* the ZFS target is the last one given */
		args[sizeof(args) / sizeof(args[0]) - 3] = NULL;
	results = vm_run_json(out, args);
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
	if (mounted)
		sh("umount %s", mnt);
	if (opened)
		sh("cryptsetup close %s", map);
	if (loop[0])
		sh("losetup -d %s", loop);
	if (pooled)
		sh("zpool destroy -f %s", pool);
	mounted = opened = pooled = false;
	loop[0] = '\0';
	return sh("rm -rf %s", tmp) ? -1 : 0;
}

static const char *str(json_object *o, const char *k)
{
	return json_object_get_string(get(o, k));
}

static void device_is(json_object *d, const char *path, const char *role)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(json_object_get_int(get(d, "major")),
			 major(st.st_rdev));
	assert_int_equal(json_object_get_int(get(d, "minor")),
			 minor(st.st_rdev));
	assert_string_equal(str(d, "role"), role);
}

/* ext4 on the crypt mapping on the loop device, with the parameters the
 * test chose, read back from the active mapping. */
static void test_detected_stack(void **state)
{
	json_object *t = target_of(results, "luks");
	json_object *enc = get(t, "encryption"), *devs = get(t, "devices");
	char mapper[96];

	(void)state;
	assert_string_equal(str(t, "kind"), "user");
	assert_string_equal(str(t, "fs"), "ext4");
	assert_string_equal(str(t, "mount"), mnt);
	assert_int_equal(json_object_array_length(devs), 2);
	snprintf(mapper, sizeof(mapper), "/dev/mapper/%s", map);
	device_is(json_object_array_get_idx(devs, 0), mapper, "crypt");
	device_is(json_object_array_get_idx(devs, 1), loop, "backing");
	assert_string_equal(str(enc, "scheme"), "LUKS2 dm-crypt");
	assert_string_equal(str(enc, "contents_cipher"), "xts(aes)");
	assert_int_equal(json_object_get_int(get(enc, "key_bits")), 256);
	assert_int_equal(json_object_get_int(get(enc, "sector_size")), 4096);
	assert_string_equal(str(enc, "flags"), "same_cpu_crypt");
	assert_true(strlen(str(enc, "driver")) > 0);
}

/* The probe found as ciphertext on the loop device, past the header. */
static void test_verified(void **state)
{
	json_object *t = target_of(results, "luks");
	char want[96];

	(void)state;
	assert_true(json_object_get_boolean(get(t, "verified_encrypted")));
	snprintf(want, sizeof(want), "ciphertext on %s", loop);
	assert_string_equal(str(t, "verification"), want);
	assert_false(json_object_get_boolean(
		get(target_of(results, "plain"), "verified_encrypted")));
}

/* The tracer counted the detected devices: bios on the dm device (the
 * `dm` layer), kcryptd's work, requests on the loop device. */
static void test_traced(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++) {
		const char *op = i ? "write" : "read";
		const char *layers[] = {"dm", "crypt", "device"};

		for (int l = 0; l < 3; l++) {
			json_object *x =
				layer_of(results, "luks", op, layers[l]);

			if (json_object_get_int64(get(x, "count")) <= 0)
				fail_msg("luks %s %s count 0 (source %s)", op,
					 layers[l], str(x, "source"));
		}
	}
	assert_true(json_object_get_int64(get(
			    layer_of(results, "luks", "read", "crypt-queue"),
			    "count")) > 0);
	/* The baseline is the built plain target, as --targets came first. */
	assert_string_equal(
		str(json_object_array_get_idx(get(results, "comparisons"), 0),
		    "baseline"),
		"plain");
}

/* The folder holds what it held; the mapping and mount are still there. */
static void test_left_as_found(void **state)
{
	(void)state;
	assert_int_equal(sh("test \"$(ls -A %s)\" = keep", dir), 0);
	assert_int_equal(sh("grep -q '^someone$' %s/keep", dir), 0);
	assert_int_equal(sh("test -b /dev/mapper/%s", map), 0);
	assert_int_equal(sh("grep -q ' %s ' /proc/mounts", mnt), 0);
}

/* A folder on an encrypted ZFS dataset: the dataset's properties, no
 * block device, the O_DIRECT caveat, ZFS's crypt counted by its objset;
 * not verified, and saying why. */
static void test_zfs_dataset(void **state)
{
	json_object *t, *z, *notes;
	char dataset[96];
	bool caveat = false;

	(void)state;
	if (!zfs)
		skip();
	t = target_of(results, "zdir");
	z = get(t, "zfs");
	snprintf(dataset, sizeof(dataset), "%s/enc", pool);
	assert_string_equal(str(t, "fs"), "zfs");
	assert_string_equal(str(z, "dataset"), dataset);
	assert_string_equal(str(z, "encryption"), "aes-256-gcm");
	assert_string_equal(str(z, "keystatus"), "available");
	assert_string_equal(str(z, "keyformat"), "raw");
	assert_true(json_object_get_int64(get(z, "objset_id")) > 0);
	assert_string_equal(str(get(t, "encryption"), "scheme"),
			    "ZFS native encryption");
	assert_int_equal(json_object_array_length(get(t, "devices")), 0);
	assert_non_null(strstr(str(t, "verification"),
			       "not verified: ZFS has no FIEMAP"));
	assert_false(json_object_get_boolean(get(t, "verified_encrypted")));
	notes = get(t, "notes");
	for (size_t i = 0; i < json_object_array_length(notes); i++)
		caveat |= strstr(json_object_get_string(
					 json_object_array_get_idx(notes, i)),
				 "O_DIRECT") != NULL;
	assert_true(caveat);
	assert_true(json_object_get_int64(
			    get(layer_of(results, "zdir", "write", "crypt"),
				"count")) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detected_stack),
		cmocka_unit_test(test_verified),
		cmocka_unit_test(test_traced),
		cmocka_unit_test(test_left_as_found),
		cmocka_unit_test(test_zfs_dataset),
	};

	if (system("command -v cryptsetup >/dev/null")) {
		printf("1..0 # SKIP no cryptsetup CLI (install-deps-vm.sh "
		       "installs cryptsetup-bin)\n");
		return 0;
	}
	/* scripts/vm/run --zfs says when the guest has no OpenZFS. */
	zfs = !getenv("ENCBENCH_VM_ZFS_SKIP") &&
	      !system("command -v zpool >/dev/null");
	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
