// SPDX-License-Identifier: MIT
/*
 * The lifecycle of what the program makes, on the host (plain, fscrypt):
 * a signal at each stage -- after each layer of each target is built, as
 * a workload starts, before each layer is undone -- held there by the
 * program's test hook (ENCBENCH_PAUSE_AT: it stops itself, the test sends
 * the signal, then SIGCONT). SIGINT leaves no loop device, mount (and so
 * no fscrypt key: they live in the filesystem's keyring), scratch file,
 * BPF program or link, and exits 130; SIGKILL leaves them recorded in the
 * state file, `run` refuses to start over it, and `teardown` removes them,
 * never an object that merely looks like one of them. `setup` leaves its
 * targets up until `teardown`. The state files live in the test's own
 * folder (ENCBENCH_STATE_DIR): other runs on the machine are not ours.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "leftovers.h"
#include "run_prog.h"

static char tmp[] = "/var/tmp/encbench-lifecycle.XXXXXX";
static char state[PATH_MAX], ids_file[PATH_MAX];
static const char *bin;
static int nr_runs;

/* State files (<pid>.json) in our state folder. */
static int state_files(void)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(state);

	while (d && (de = readdir(d)))
		n += strstr(de->d_name, ".json") != NULL &&
		     de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static int run_leftovers(void)
{
	return leftovers_recorded(tmp, ids_file);
}

/* `run` on plain and fscrypt, stopped by the hook at `point`. Its pid,
 * stopped; the test fails if it never got there. */
static pid_t run_to(const char *point, bool trace)
{
	char out[PATH_MAX], tag[32];
	const char *argv[] = {bin,
			      "run",
			      "--targets",
			      "plain,fscrypt",
			      "--size",
			      "16M",
			      "--runs",
			      "2",
			      "--scratch",
			      tmp,
			      "--output",
			      out,
			      trace ? NULL : "--no-trace",
			      NULL};
	int status;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/out-%d", tmp, nr_runs);
	snprintf(tag, sizeof(tag), "run-%d", nr_runs++);
	setenv("ENCBENCH_PAUSE_AT", point, 1);
	pid = run_spawn(tmp, tag, NULL, NULL, argv);
	unsetenv("ENCBENCH_PAUSE_AT");
	assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
	if (!WIFSTOPPED(status))
		fail_msg("never stopped at %s (exit %d): %s", point,
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1,
			 run_output(tmp, tag, "stderr"));
	return pid;
}

static int signal_and_reap(pid_t pid, int sig)
{
	kill(pid, sig);
	kill(pid, SIGCONT);
	return run_reap(pid);
}

static int teardown_cmd(const char *tag)
{
	const char *argv[] = {bin, "teardown", NULL};

	return run_reap(run_spawn(tmp, tag, NULL, NULL, argv));
}

static int setup(void **st)
{
	(void)st;
	bin = run_prog_bin();
	if (run_prog_begin(tmp))
		return -1;
	snprintf(state, sizeof(state), "%s/state", tmp);
	setenv("ENCBENCH_STATE_DIR", state, 1);
	run_prog_record_ids(tmp, ids_file);
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	teardown_cmd("final-teardown");
	return remove_tree(tmp);
}

/* SIGINT at every stage: exit 130, nothing left, no state file. */
static void test_sigint_each_stage(void **st)
{
	static const char *const points[] = {
		"setup:plain:loop",	 "setup:plain:ext4",
		"setup:fscrypt:loop",	 "setup:fscrypt:ext4",
		"setup:fscrypt:fscrypt", "workload:plain:dd",
		"workload:fscrypt:dd",	 "teardown:fscrypt:fscrypt",
		"teardown:fscrypt:ext4", "teardown:fscrypt:loop",
		"teardown:plain:ext4",	 "teardown:plain:loop",
	};
	(void)st;

	for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
		bool workload = !strncmp(points[i], "workload:", 9);
		pid_t pid = run_to(points[i], workload);
		int rc = signal_and_reap(pid, SIGINT);

		if (rc != 130)
			fail_msg("SIGINT at %s: exit %d, not 130", points[i],
				 rc);
		if (run_leftovers())
			fail_msg("SIGINT at %s left objects behind", points[i]);
		if (state_files())
			fail_msg("SIGINT at %s left its state file", points[i]);
	}
}

/* SIGKILL: the objects stay, recorded; `run` refuses, naming teardown;
 * `teardown` removes them all, and a second one finds nothing. */
static void test_sigkill_then_teardown(void **st)
{
	static const char *const points[] = {
		"setup:fscrypt:ext4",
		"setup:fscrypt:fscrypt",
		"workload:fscrypt:dd",
		"teardown:fscrypt:ext4",
	};
	(void)st;

	for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
		pid_t pid = run_to(points[i], false);
		const char *again[] = {bin,	    "run",
				       "--targets", "plain",
				       "--size",    "16M",
				       "--scratch", tmp,
				       "--output",  "/nonexistent-never-made",
				       NULL};
		const char *err;

		assert_int_equal(signal_and_reap(pid, SIGKILL), 128 + SIGKILL);
		assert_true(mounts_under(tmp) > 0);
		assert_int_equal(state_files(), 1);
		assert_int_equal(
			run_reap(run_spawn(tmp, "refused", NULL, NULL, again)),
			2);
		err = run_output(tmp, "refused", "stderr");
		if (!strstr(err, "encbench-trace teardown") ||
		    count_lines(err) != 1)
			fail_msg("refusal over stale state: '%s'", err);
		if (teardown_cmd("teardown") != 0)
			fail_msg("teardown after SIGKILL at %s failed: %s",
				 points[i],
				 run_output(tmp, "teardown", "stderr"));
		if (run_leftovers() || state_files())
			fail_msg("teardown after SIGKILL at %s left objects",
				 points[i]);
		assert_int_equal(teardown_cmd("again"), 0);
		assert_non_null(strstr(run_output(tmp, "again", "stdout"),
				       "nothing to tear down"));
	}
}

/* SIGKILL while a workload's child writes on a mount: the child dies with
 * the run (else it would keep the mount busy and teardown could not
 * unmount it), and teardown removes everything at once. */
static void test_sigkill_mid_workload(void **st)
{
	char out[PATH_MAX];
	const char *argv[] = {
		bin,	"run",	    "--targets", "plain",      "--size",
		"256M", "--runs",   "50",	 "--no-trace", "--scratch",
		tmp,	"--output", out,	 NULL};
	pid_t pid;
	(void)st;

	snprintf(out, sizeof(out), "%s/out-mid", tmp);
	pid = run_spawn(tmp, "mid", NULL, NULL, argv);
	for (int i = 0; i < 600 && mounts_under(tmp) < 1; i++)
		usleep(50000);
	assert_int_equal(mounts_under(tmp), 1);
	usleep(1500000); /* into the first iteration's writes */
	kill(pid, SIGKILL);
	assert_int_equal(run_reap(pid), 128 + SIGKILL);
	if (teardown_cmd("mid-teardown") != 0)
		fail_msg("teardown right after SIGKILL mid-workload: %s",
			 run_output(tmp, "mid-teardown", "stderr"));
	assert_int_equal(run_leftovers(), 0);
	assert_int_equal(state_files(), 0);
}

/* A run that is alive (held, not killed) is not teardown's: its state
 * file and its objects stay, and the run itself undoes them after. */
static void test_live_run_untouched(void **st)
{
	pid_t pid = run_to("setup:plain:ext4", false);
	(void)st;

	assert_int_equal(teardown_cmd("live"), 0);
	assert_non_null(strstr(run_output(tmp, "live", "stdout"),
			       "nothing to tear down"));
	assert_int_equal(mounts_under(tmp), 1);
	assert_int_equal(loops_under(tmp), 1);
	assert_int_equal(state_files(), 1);
	assert_int_equal(signal_and_reap(pid, SIGINT), 130);
	assert_int_equal(run_leftovers(), 0);
	assert_int_equal(state_files(), 0);
}

/* The loop device over path, /dev/loopN into dev: 0 or -1. */
static int losetup(const char *path, char *dev, size_t len)
{
	char cmd[PATH_MAX + 32];
	FILE *p;
	int ok;

	snprintf(cmd, sizeof(cmd), "losetup -f --show '%s'", path);
	p = popen(cmd, "r");
	ok = p && fgets(dev, len, p);
	if (p)
		pclose(p);
	dev[strcspn(dev, "\n")] = '\0';
	return ok ? 0 : -1;
}

static void loop_detach(const char *dev)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		ioctl(fd, LOOP_CLR_FD);
		close(fd);
	}
}

/* The folder of the one scratch folder under tmp, into buf. */
static void scratch_of(char *buf, size_t len)
{
	struct dirent *de;
	DIR *d = opendir(tmp);

	buf[0] = '\0';
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "encbench-trace.", 15))
			snprintf(buf, len, "%s/%s", tmp, de->d_name);
	if (d)
		closedir(d);
	assert_true(buf[0] != '\0');
}

/* The object a pause at `point` has just made, found by what this test
 * owns (its own folder), never by counting the machine's: does it exist? */
static bool made_at(const char *point)
{
	char scratch[PATH_MAX], path[PATH_MAX + 16];

	if (!strcmp(point, "made:scratch:*"))
		return scratch_dirs_under(tmp) == 1;
	if (!strcmp(point, "made:loop:*"))
		return loops_under(tmp) == 1;
	if (!strcmp(point, "made:fscrypt-key:fscrypt"))
		return mounts_under(tmp) == 2; /* the key is in the 2nd's */
	scratch_of(scratch, sizeof(scratch));
	snprintf(path, sizeof(path), "%s/%s", scratch, strrchr(point, ':') + 1);
	return access(path, F_OK) == 0;
}

/* SIGKILL between making an object and completing its record (scratch
 * folder, image, loop device, mount point: recorded pending first; the
 * fscrypt key: in the keyring of a recorded mount): `teardown` leaves
 * nothing. */
static void test_sigkill_in_each_window(void **st)
{
	static const char *const points[] = {
		"made:scratch:*",     "made:file:plain.img",	  "made:loop:*",
		"made:dir:mnt-plain", "made:fscrypt-key:fscrypt",
	};
	(void)st;

	for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
		pid_t pid = run_to(points[i], false);

		if (!made_at(points[i]))
			fail_msg("at %s the object is not there", points[i]);
		assert_int_equal(signal_and_reap(pid, SIGKILL), 128 + SIGKILL);
		assert_int_equal(state_files(), 1);
		if (teardown_cmd("window") != 0)
			fail_msg("teardown after SIGKILL at %s failed: %s",
				 points[i],
				 run_output(tmp, "window", "stderr"));
		if (run_leftovers() || state_files())
			fail_msg("teardown after SIGKILL at %s left objects",
				 points[i]);
	}
}

/*
 * A file or folder already at a name the run then tries to make (put
 * there while the run is held before it): the run's mkdir/open fails,
 * and a SIGKILL before it drops its pending record leaves that record
 * naming the other's object. `teardown` leaves it alone (it was born
 * before the record), so it cannot remove the scratch folder either and
 * says so (exit 1); once the object's owner removes it, teardown ends.
 */
static void test_existing_never_removed(void **st)
{
	static const struct {
		const char *hold, *failed, *name;
		bool dir;
	} cases[] = {
		{"made:scratch:*", "failed:file:plain.img", "plain.img", false},
		{"setup:plain:loop", "failed:dir:mnt-plain", "mnt-plain", true},
	};
	(void)st;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char scratch[PATH_MAX], path[PATH_MAX + 16];
		struct stat before, after;
		char points[128];
		int status;
		pid_t pid;

		snprintf(points, sizeof(points), "%s,%s", cases[i].hold,
			 cases[i].failed);
		pid = run_to(points, false);
		scratch_of(scratch, sizeof(scratch));
		snprintf(path, sizeof(path), "%s/%s", scratch, cases[i].name);
		if (cases[i].dir)
			assert_int_equal(mkdir(path, 0700), 0);
		else
			close(open(path, O_WRONLY | O_CREAT | O_EXCL, 0600));
		assert_int_equal(stat(path, &before), 0);
		/* On to the failed make, and held there. */
		kill(pid, SIGCONT);
		assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
		if (!WIFSTOPPED(status))
			fail_msg("never stopped at %s", cases[i].failed);
		assert_int_equal(signal_and_reap(pid, SIGKILL), 128 + SIGKILL);
		if (teardown_cmd("existing") != 1)
			fail_msg("teardown over %s: %s", cases[i].name,
				 run_output(tmp, "existing", "stderr"));
		assert_non_null(strstr(run_output(tmp, "existing", "stdout"),
				       "left alone"));
		assert_int_equal(stat(path, &after), 0);
		assert_int_equal(after.st_ino, before.st_ino);
		assert_int_equal(cases[i].dir ? rmdir(path) : unlink(path), 0);
		if (teardown_cmd("existing2") != 0)
			fail_msg("teardown: %s",
				 run_output(tmp, "existing2", "stderr"));
		assert_int_equal(run_leftovers(), 0);
		assert_int_equal(state_files(), 0);
	}
}

/*
 * After a SIGKILL, the test puts look-alikes where the run's objects
 * were: a new image at the same path (another inode) on a loop device
 * (likely the same number), and a tmpfs on the same mount point.
 * `teardown` leaves every one of them alone, says why it could not
 * finish (exit 1), and finishes once they are gone.
 */
static void test_lookalikes_left_alone(void **st)
{
	char scratch[PATH_MAX], img[PATH_MAX + 16], mnt[PATH_MAX + 16];
	char dev[64], type[64] = "";
	pid_t pid = run_to("setup:plain:ext4", false);
	struct stat before, after;
	int fd;
	(void)st;

	assert_int_equal(signal_and_reap(pid, SIGKILL), 128 + SIGKILL);
	scratch_of(scratch, sizeof(scratch));
	snprintf(img, sizeof(img), "%s/plain.img", scratch);
	snprintf(mnt, sizeof(mnt), "%s/mnt-plain", scratch);
	/* Take the run's own objects away (autoclear detaches its loop
	 * device), then make the look-alikes. */
	assert_int_equal(umount2(mnt, 0), 0);
	assert_int_equal(unlink(img), 0);
	fd = open(img, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 8 << 20), 0);
	close(fd);
	assert_int_equal(stat(img, &before), 0);
	for (int i = 0; i < 50 && loops_under(tmp); i++)
		usleep(100000); /* autoclear runs as the last user goes */
	assert_int_equal(losetup(img, dev, sizeof(dev)), 0);
	assert_int_equal(mount("none", mnt, "tmpfs", 0, "size=1m"), 0);

	if (teardown_cmd("lookalike") != 1)
		fail_msg("teardown over look-alikes: %s",
			 run_output(tmp, "lookalike", "stderr"));
	assert_int_equal(stat(img, &after), 0);
	assert_int_equal(after.st_ino, before.st_ino);
	assert_int_equal(loops_under(tmp), 1);
	assert_int_equal(mounts_under(tmp), 1);
	{
		FILE *f = fopen("/proc/self/mounts", "r");
		char line[PATH_MAX + 256], point[PATH_MAX];

		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "%*s %4095s %63s", point, type) == 2 &&
			    !strcmp(point, mnt))
				break;
		if (f)
			fclose(f);
		assert_string_equal(type, "tmpfs");
	}
	assert_int_equal(state_files(), 1);

	/* Ours gone: teardown finishes, and the rest of the run's records
	 * (mount point, scratch folder) go. */
	assert_int_equal(umount2(mnt, 0), 0);
	loop_detach(dev);
	assert_int_equal(unlink(img), 0);
	if (teardown_cmd("lookalike2") != 0)
		fail_msg("teardown: %s",
			 run_output(tmp, "lookalike2", "stderr"));
	assert_int_equal(run_leftovers(), 0);
	assert_int_equal(state_files(), 0);
}

/* `setup` leaves its targets up (the fscrypt folder encrypted, its key
 * loaded) after it exits; `run` is not refused over it; `teardown`
 * removes them. */
static void test_setup_then_teardown(void **st)
{
	const char *argv[] = {bin,	"setup", "--targets", "plain,fscrypt",
			      "--size", "16M",	 "--scratch", tmp,
			      NULL};
	char name[64], path[PATH_MAX], file[PATH_MAX + 8];
	const char *out;
	int n = 0, off = 0, used;
	(void)st;

	assert_int_equal(run_reap(run_spawn(tmp, "setup", NULL, NULL, argv)),
			 0);
	out = run_output(tmp, "setup", "stdout");
	while (sscanf(out + off, "%63s %4095s%n", name, path, &used) == 2) {
		struct stat sb;
		int fd;

		off += used;
		n++;
		assert_int_equal(stat(path, &sb), 0);
		assert_true(S_ISDIR(sb.st_mode));
		/* Usable by the user's own tools. */
		snprintf(file, sizeof(file), "%s/f", path);
		fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0600);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, "x", 1), 1);
		close(fd);
	}
	assert_int_equal(n, 2);
	assert_int_equal(mounts_under(tmp), 2);
	assert_int_equal(state_files(), 1);
	assert_int_equal(teardown_cmd("setup-teardown"), 0);
	assert_non_null(strstr(run_output(tmp, "setup-teardown", "stdout"),
			       "removed mount"));
	assert_int_equal(run_leftovers(), 0);
	assert_int_equal(state_files(), 0);
}

/*
 * The free-space check counts only the kinds that will be built: on a
 * 200 MiB scratch file system, the default kinds (six, most of which a
 * host kernel skips) at 105 MiB each would be refused (16 MiB of data
 * + a quarter + 64 MiB, and a sixteenth of the 336 MiB sparse room for
 * mkfs). Either setup
 * builds them all (each printed), or it refuses naming fewer targets
 * than there are kinds, whose space really does not fit.
 */
static void test_space_counts_built_kinds(void **st)
{
	char small[PATH_MAX];
	const char *argv[] = {bin,	   "setup", "--size", "16M",
			      "--scratch", small,   NULL};
	const char *err;
	int rc, need_targets;
	(void)st;

	snprintf(small, sizeof(small), "%s/small", tmp);
	assert_int_equal(mkdir(small, 0700), 0);
	assert_int_equal(mount("none", small, "tmpfs", 0, "size=200m"), 0);
	rc = run_reap(run_spawn(tmp, "space", NULL, NULL, argv));
	err = run_output(tmp, "space", "stderr");
	if (rc == 0) {
		int n = count_lines(run_output(tmp, "space", "stdout"));

		assert_true(n >= 1 && n * 105 <= 200);
		assert_int_equal(teardown_cmd("space-teardown"), 0);
	} else {
		if (sscanf(strstr(err, "does not fit: ") ?: "",
			   "does not fit: %d targets", &need_targets) != 1)
			fail_msg("setup on 200 MiB: exit %d: %s", rc, err);
		assert_true(need_targets * 105 > 200 && need_targets < 6);
	}
	assert_int_equal(umount2(small, 0), 0);
	assert_int_equal(run_leftovers(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sigint_each_stage),
		cmocka_unit_test(test_sigkill_then_teardown),
		cmocka_unit_test(test_sigkill_mid_workload),
		cmocka_unit_test(test_live_run_untouched),
		cmocka_unit_test(test_sigkill_in_each_window),
		cmocka_unit_test(test_existing_never_removed),
		cmocka_unit_test(test_lookalikes_left_alone),
		cmocka_unit_test(test_setup_then_teardown),
		cmocka_unit_test(test_space_counts_built_kinds),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
