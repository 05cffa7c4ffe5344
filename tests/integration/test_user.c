// SPDX-License-Identifier: MIT
/*
 * User targets (--target NAME=PATH) on the host: the test makes two
 * folders of its own, on ext4 loop filesystems it mounts itself -- one
 * plain, one with an fscrypt v2 policy and its key -- runs the real
 * program on them, and checks the stack it detected, the verification,
 * the baseline, the tracer's device filter, and that nothing in the
 * folders but its own subfolder was touched. Then the bad inputs: each a
 * one-line error, exit 2, nothing created.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fscrypt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "file_text.h"
#include "leftovers.h"
#include "results_json.h"
#include "run_prog.h"

static char tmp[] = "/var/tmp/encbench-utest.XXXXXX";
static char scratch[PATH_MAX], out[PATH_MAX], ids_file[PATH_MAX];
static char state_dir_path[PATH_MAX];
static const char *bin;
static struct json_object *results;

/* The test's own filesystems: image, loop device, mount point. */
struct fixture {
	const char *name;
	char image[PATH_MAX], mnt[PATH_MAX], dir[PATH_MAX];
	char loop[64]; /* "/dev/loopN" */
	bool mounted;
};
static struct fixture plainfs = {.name = "plainfs"};
static struct fixture cryptfs = {.name = "cryptfs"};
static char tmpfs[PATH_MAX], ro[PATH_MAX];
static bool tmpfs_mounted, ro_mounted;

static int sh(const char *fmt, ...)
{
	char cmd[2 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* An ext4 image on a loop device of our own, mounted. */
static int make_fs(struct fixture *f, const char *features)
{
	FILE *p;

	snprintf(f->image, sizeof(f->image), "%s/%s.img", tmp, f->name);
	snprintf(f->mnt, sizeof(f->mnt), "%s/%s", tmp, f->name);
	if (sh("truncate -s 256M %s && mkfs.ext4 -q -F %s %s %s", f->image,
	       features ? "-O" : "", features ? features : "", f->image))
		return -1;
	snprintf(f->dir, sizeof(f->dir), "losetup -f --show %s", f->image);
	p = popen(f->dir, "r");
	if (!p || !fgets(f->loop, sizeof(f->loop), p)) {
		if (p)
			pclose(p);
		return -1;
	}
	pclose(p);
	f->loop[strcspn(f->loop, "\n")] = '\0';
	if (mkdir(f->mnt, 0755) || mount(f->loop, f->mnt, "ext4", 0, NULL))
		return -1;
	f->mounted = true;
	snprintf(f->dir, sizeof(f->dir), "%s/data", f->mnt);
	return mkdir(f->dir, 0755);
}

static void drop_fs(struct fixture *f)
{
	if (f->mounted)
		umount2(f->mnt, 0);
	f->mounted = false;
	if (f->loop[0])
		sh("losetup -d %s", f->loop);
}

/* A v2 policy with a random key on cryptfs's data folder. */
static int encrypt_dir(struct fixture *f)
{
	struct {
		struct fscrypt_add_key_arg arg;
		unsigned char raw[64];
	} k = {0};
	struct fscrypt_policy_v2 p = {
		.version = FSCRYPT_POLICY_V2,
		.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS,
		.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS,
		.flags = FSCRYPT_POLICY_FLAGS_PAD_32,
	};
	int fd = open(f->mnt, O_RDONLY | O_DIRECTORY), err = -1;

	k.arg.key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	k.arg.raw_size = 64;
	if (fd >= 0 && getrandom(k.raw, 64, 0) == 64 &&
	    ioctl(fd, FS_IOC_ADD_ENCRYPTION_KEY, &k.arg) == 0)
		err = 0;
	memcpy(p.master_key_identifier, k.arg.key_spec.u.identifier, 16);
	if (fd >= 0)
		close(fd);
	fd = open(f->dir, O_RDONLY | O_DIRECTORY);
	if (err || fd < 0 || ioctl(fd, FS_IOC_SET_ENCRYPTION_POLICY, &p))
		err = -1;
	if (fd >= 0)
		close(fd);
	return err;
}

/* Someone's file, which must stay as it is. */
static int put_keep(const char *dir)
{
	char path[PATH_MAX + 8];
	FILE *f;

	snprintf(path, sizeof(path), "%s/keep", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs("someone else's\n", f);
	return fclose(f);
}

static int run_prog(const char *const *argv)
{
	return run_reap(run_spawn(tmp, "run", NULL, NULL, argv));
}

static int setup(void **state)
{
	(void)state;

	bin = run_prog_bin();
	if (run_prog_begin(tmp))
		return -1;
	snprintf(scratch, sizeof(scratch), "%s/scratch", tmp);
	snprintf(out, sizeof(out), "%s/out", tmp);
	snprintf(state_dir_path, sizeof(state_dir_path), "%s/state", tmp);
	run_prog_record_ids(tmp, ids_file);
	/* State files of our own: other runs on the machine are not ours. */
	setenv("ENCBENCH_STATE_DIR", state_dir_path, 1);
	if (mkdir(scratch, 0755) || make_fs(&plainfs, NULL) ||
	    make_fs(&cryptfs, "encrypt") || encrypt_dir(&cryptfs) ||
	    put_keep(plainfs.dir) || put_keep(cryptfs.dir)) {
		fprintf(stderr, "# cannot make the test's folders\n");
		return -1;
	}
	/* The baseline is named, and is not the first given. */
	char t1[PATH_MAX + 16], t2[PATH_MAX + 16];
	snprintf(t1, sizeof(t1), "secret=%s", cryptfs.dir);
	snprintf(t2, sizeof(t2), "mine=%s", plainfs.dir);
	const char *argv[] = {
		bin,	     "run",   "--size",	    "16M",  "--runs",	"2",
		"--scratch", scratch, "--output",   out,    "--target", t1,
		"--target",  t2,      "--baseline", "mine", NULL};
	results = run_prog_results(tmp, "run", run_prog(argv), out);
	return results ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	json_object_put(results);
	if (ro_mounted)
		umount2(ro, 0);
	if (tmpfs_mounted)
		umount2(tmpfs, 0);
	drop_fs(&plainfs);
	drop_fs(&cryptfs);
	return remove_tree(tmp);
}

static const char *str(struct json_object *o, const char *k)
{
	return json_object_get_string(get(o, k));
}

static void assert_device_is(struct json_object *t, const struct fixture *f)
{
	struct json_object *d = json_object_array_get_idx(get(t, "devices"), 0);
	struct stat st;

	assert_int_equal(stat(f->loop, &st), 0);
	assert_string_equal(str(d, "name"), f->loop + strlen("/dev/"));
	assert_int_equal(json_object_get_int(get(d, "major")),
			 major(st.st_rdev));
	assert_int_equal(json_object_get_int(get(d, "minor")),
			 minor(st.st_rdev));
	assert_string_equal(str(d, "role"), "fs");
	assert_int_equal(json_object_array_length(get(t, "devices")), 1);
}

/* A plain folder: ext4 on our loop device, no encryption, and the probe
 * data found in plaintext on the device. */
static void test_plain_detected(void **state)
{
	struct json_object *t = target_of(results, "mine");
	char want[128];
	(void)state;

	assert_string_equal(str(t, "kind"), "user");
	assert_string_equal(str(t, "fs"), "ext4");
	assert_string_equal(str(t, "mount"), plainfs.mnt);
	assert_string_equal(str(t, "path"), plainfs.dir);
	assert_device_is(t, &plainfs);
	assert_true(json_object_is_type(get(t, "encryption"), json_type_null));
	assert_false(json_object_get_boolean(get(t, "verified_encrypted")));
	snprintf(want, sizeof(want), "plaintext on %s", plainfs.loop);
	assert_string_equal(str(t, "verification"), want);
}

/* An fscrypt folder: its policy read back, ciphertext on the device. */
static void test_fscrypt_detected(void **state)
{
	struct json_object *t = target_of(results, "secret");
	struct json_object *enc = get(t, "encryption");
	char want[128];
	(void)state;

	assert_string_equal(str(t, "kind"), "user");
	assert_string_equal(str(t, "fs"), "ext4");
	assert_device_is(t, &cryptfs);
	assert_string_equal(str(enc, "scheme"), "fscrypt v2 policy");
	assert_string_equal(str(enc, "contents_cipher"), "xts(aes)");
	assert_string_equal(str(enc, "names_cipher"), "cts(cbc(aes))");
	assert_int_equal(json_object_get_int(get(enc, "key_bits")), 512);
	assert_true(strlen(str(enc, "driver")) > 0);
	assert_true(json_object_get_boolean(get(t, "verified_encrypted")));
	snprintf(want, sizeof(want), "ciphertext on %s", cryptfs.loop);
	assert_string_equal(str(t, "verification"), want);
}

/* --baseline mine: first in the results, and what secret is compared
 * with; the text report says the same. */
static void test_baseline(void **state)
{
	struct json_object *cmp = get(results, "comparisons");
	const char *screen = run_output(tmp, "run", "stdout");
	char path[PATH_MAX + 16], *text;
	(void)state;

	/* The short form on the terminal, the full one in report.txt. */
	assert_non_null(strstr(screen, "mine (baseline): user, ext4"));
	snprintf(path, sizeof(path), "%s/report.txt", out);
	text = file_text(path);
	assert_non_null(text);

	assert_string_equal(
		str(json_object_array_get_idx(get(results, "targets"), 0),
		    "name"),
		"mine");
	assert_int_equal(json_object_array_length(cmp), 2);
	for (size_t i = 0; i < 2; i++) {
		struct json_object *c = json_object_array_get_idx(cmp, i);

		assert_string_equal(str(c, "baseline"), "mine");
		assert_string_equal(str(c, "target"), "secret");
	}
	assert_non_null(strstr(text, "mine (baseline): user, ext4"));
	assert_non_null(strstr(text, "verification: ciphertext on"));
	free(text);
}

/* The tracer filtered by the detected devices: the requests of the
 * reads on each folder's loop device were seen, as the kernel counted. */
static void test_traced_devices(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++) {
		const char *name = i ? "secret" : "mine";
		struct json_object *dev =
			layer_of(results, name, "read", "device");

		if (json_object_get_int64(get(dev, "count")) < 1 ||
		    json_object_get_int64(get(dev, "kernel_requests")) < 1)
			fail_msg("%s: read device count %lld, kernel %lld",
				 name,
				 (long long)json_object_get_int64(
					 get(dev, "count")),
				 (long long)json_object_get_int64(
					 get(dev, "kernel_requests")));
	}
	assert_true(json_object_get_int64(
			    get(layer_of(results, "secret", "read", "crypt"),
				"count")) > 0);
}

/* Only our own subfolder was made in each folder, and it is gone; the
 * file that was there is as it was; nothing is left in the scratch. */
static void test_folders_untouched(void **state)
{
	const struct fixture *fs[] = {&plainfs, &cryptfs};
	static struct bpf_id ids[4 * MAX_BPF_IDS];
	int n = bpf_ids_from_file(ids_file, ids, 4 * MAX_BPF_IDS);
	(void)state;

	for (int i = 0; i < 2; i++) {
		char path[PATH_MAX + 8], line[64] = "";
		FILE *f;
		int entries = 0;
		struct dirent *de;
		DIR *d = opendir(fs[i]->dir);

		while (d && (de = readdir(d)))
			entries += de->d_name[0] != '.';
		if (d)
			closedir(d);
		assert_int_equal(entries, 1);
		snprintf(path, sizeof(path), "%s/keep", fs[i]->dir);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_non_null(fgets(line, sizeof(line), f));
		fclose(f);
		assert_string_equal(line, "someone else's\n");
	}
	/* Our two filesystems, and no mount of the program's. */
	assert_int_equal(mounts_under(tmp), 2);
	assert_int_equal(leftovers(scratch, ids, n < 0 ? 0 : n), 0);
}

/* A bad input: exit 2, one line on stderr naming `what`, no output
 * folder, and nothing made in the folders. */
static void expect_bad(const char *what, ...)
{
	const char *argv[16] = {bin, "run", "--scratch", scratch, "--output"};
	char o[PATH_MAX];
	const char *err;
	int n = 6;
	va_list ap;

	snprintf(o, sizeof(o), "%s/bad-out", tmp);
	argv[5] = o;
	va_start(ap, what);
	while (n < 15 && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	assert_int_equal(run_prog(argv), 2);
	err = run_output(tmp, "run", "stderr");
	assert_int_equal(count_lines(err), 1);
	if (!strstr(err, what))
		fail_msg("stderr '%s' does not name '%s'", err, what);
	assert_int_not_equal(access(o, F_OK), 0);
	assert_int_equal(scratch_dirs_under(plainfs.dir), 0);
	assert_int_equal(scratch_dirs_under(cryptfs.dir), 0);
	assert_int_equal(scratch_dirs_under(scratch), 0);
}

static void test_bad_input(void **state)
{
	char missing[PATH_MAX + 16], file[PATH_MAX + 16], mine[PATH_MAX + 16];
	char other[PATH_MAX + 16], rot[PATH_MAX + 16], tmpt[PATH_MAX + 16];
	(void)state;

	snprintf(missing, sizeof(missing), "x=%s/nope", tmp);
	snprintf(file, sizeof(file), "x=%s/keep", plainfs.dir);
	snprintf(mine, sizeof(mine), "mine=%s", plainfs.dir);
	snprintf(other, sizeof(other), "mine=%s", cryptfs.dir);
	/* A read-only view of the plain folder; a tmpfs. */
	snprintf(ro, sizeof(ro), "%s/ro", tmp);
	snprintf(tmpfs, sizeof(tmpfs), "%s/tmpfs", tmp);
	assert_int_equal(mkdir(ro, 0755), 0);
	assert_int_equal(mkdir(tmpfs, 0755), 0);
	assert_int_equal(mount(plainfs.dir, ro, NULL, MS_BIND, NULL), 0);
	ro_mounted = true;
	assert_int_equal(
		mount(NULL, ro, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL),
		0);
	assert_int_equal(mount("encbench-utest", tmpfs, "tmpfs", 0, "size=1m"),
			 0);
	tmpfs_mounted = true;
	snprintf(rot, sizeof(rot), "x=%s", ro);
	snprintf(tmpt, sizeof(tmpt), "x=%s", tmpfs);

	expect_bad("No such file or directory", "--target", missing, NULL);
	expect_bad("not a folder", "--target", file, NULL);
	expect_bad("read-only", "--target", rot, NULL);
	expect_bad("does not fit", "--target", tmpt, NULL); /* 1 MiB */
	expect_bad("given twice", "--target", mine, "--target", other, NULL);
	expect_bad("target kind", "--target", "plain=/tmp", NULL);
	expect_bad("expected NAME=PATH", "--target", "mine", NULL);
	expect_bad("not one of the targets", "--target", mine, "--baseline",
		   "yours", NULL);
	assert_int_equal(scratch_dirs_under(ro), 0);
	assert_int_equal(scratch_dirs_under(tmpfs), 0);
}

/* A file system with no block device (the tmpfs of test_bad_input, made
 * larger) runs: device layers "not applicable", not verified, and the
 * syscall layer still timed. */
static void test_no_block_device(void **state)
{
	char t[PATH_MAX + 8], o[PATH_MAX];
	const char *argv[] = {
		bin, "run", "--scratch", scratch, "--output", o,    "--target",
		t,   "-s",  "4M",	 "-n",	  "1",	      "-q", NULL};
	struct json_object *doc, *tgt;
	(void)state;

	assert_true(tmpfs_mounted);
	assert_int_equal(mount(NULL, tmpfs, NULL, MS_REMOUNT, "size=128m"), 0);
	snprintf(t, sizeof(t), "t=%s", tmpfs);
	snprintf(o, sizeof(o), "%s/tmpfs-out", tmp);
	doc = run_prog_results(tmp, "run", run_prog(argv), o);
	assert_non_null(doc);
	tgt = target_of(doc, "t");
	assert_string_equal(str(tgt, "fs"), "tmpfs");
	assert_string_equal(
		str(tgt, "verification"),
		"not verified: tmpfs has no block device to read raw");
	for (const char *const *op =
		     (const char *const[]){"read", "write", NULL};
	     *op; op++) {
		assert_string_equal(
			str(layer_of(doc, "t", *op, "device"), "state"),
			"not applicable");
		assert_string_equal(
			str(layer_of(doc, "t", *op, "blk-queue"), "state"),
			"not applicable");
		assert_true(json_object_get_int64(
				    get(layer_of(doc, "t", *op, "syscall"),
					"count")) > 0);
	}
	json_object_put(doc);
	assert_int_equal(scratch_dirs_under(tmpfs), 0);
}

static void sigkill_then_teardown(const char *point)
{
	char t[PATH_MAX + 16], o[PATH_MAX], path[PATH_MAX + 8];
	const char *argv[] = {bin,	    "run", "--size",	"16M",
			      "--runs",	    "2",   "--scratch", scratch,
			      "--output",   o,	   "--target",	t,
			      "--no-trace", NULL};
	const char *td[] = {bin, "teardown", NULL};
	int status;
	pid_t pid;

	snprintf(t, sizeof(t), "mine=%s", plainfs.dir);
	snprintf(o, sizeof(o), "%s/kill-out-%s", tmp, point);
	setenv("ENCBENCH_PAUSE_AT", point, 1);
	pid = run_spawn(tmp, "kill", NULL, NULL, argv);
	unsetenv("ENCBENCH_PAUSE_AT");
	assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
	if (!WIFSTOPPED(status))
		fail_msg("never stopped at %s: %s", point,
			 run_output(tmp, "kill", "stderr"));
	kill(pid, SIGKILL);
	kill(pid, SIGCONT);
	assert_int_equal(run_reap(pid), 128 + SIGKILL);
	assert_int_equal(scratch_dirs_under(plainfs.dir), 1);
	assert_int_equal(run_reap(run_spawn(tmp, "td", NULL, NULL, td)), 0);
	assert_int_equal(scratch_dirs_under(plainfs.dir), 0);
	snprintf(path, sizeof(path), "%s/keep", plainfs.dir);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(leftovers(scratch, NULL, 0), 0);
}

/* SIGKILL while the workload runs in the user's folder, or right after
 * the work folder is made (its record still pending): the work folder
 * stays, recorded; `teardown` removes it with what the workload left in
 * it, and nothing else there. */
static void test_sigkill_then_teardown(void **state)
{
	static const char *const points[] = {"made:work-tree:mine",
					     "workload:mine:dd"};
	(void)state;

	for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++)
		sigkill_then_teardown(points[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_detected),
		cmocka_unit_test(test_fscrypt_detected),
		cmocka_unit_test(test_baseline),
		cmocka_unit_test(test_traced_devices),
		cmocka_unit_test(test_folders_untouched),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_no_block_device),
		cmocka_unit_test(test_sigkill_then_teardown),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
