// SPDX-License-Identifier: MIT
/*
 * Runs INSIDE the VM guest (dm-crypt exists there): `tune --target
 * NAME=PATH --allow-refresh` on a LUKS2 device the test makes with the
 * cryptsetup CLI as a user would have one (loop -> LUKS2 opened with
 * allow_discards and same_cpu_crypt -> ext4, mounted). Only the runtime
 * flags are tried, each by a refresh; the device's table options (read
 * with `dmsetup table`) must be as they were after the sweep, after a
 * Ctrl-C, and after a SIGKILL once `teardown` has run (there with no key
 * file: tune and teardown ask the passphrase on a terminal, a pty, with
 * echo off; a wrong one is refused in one line before anything changes);
 * while a variant runs they must be that variant's. The folder is as it
 * was.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
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

#include "../leftovers.h"
#include "../pty.h"
#include "../results_json.h"
#include "../run_prog.h"
#include "vm_shell.h"

static char tmp[] = "/var/tmp/encbench-vmtunedev.XXXXXX";
static char loop[64], map[64], mnt[sizeof(tmp) + 16], key[sizeof(tmp) + 16];
static char target[sizeof(mnt) + 16], state[PATH_MAX], ids_file[PATH_MAX];
static char scratch[PATH_MAX]; /* tune's: the user's device is beside it */
static char original[512];     /* the table's options as the user opened it */
static bool opened, mounted;
/* A second key slot's passphrase, typed on the pty (the first is the
 * binary key file's). */
static const char passphrase[] = "encbench pty passphrase 7";

/* The dm-crypt table's optional parameters (after the 8 fixed fields:
 * start, length, "crypt", cipher, key, iv offset, device, offset). */
static int table_options(char *out, size_t len)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd),
		 "dmsetup table %s | cut -d' ' -f9- | sed 's/^$/none/'", map);
	return sh_line(out, len, cmd);
}

static void assert_table_is_original(const char *when)
{
	char now[512];

	assert_int_equal(table_options(now, sizeof(now)), 0);
	if (strcmp(now, original))
		fail_msg("%s: the table's options are '%s', not the user's "
			 "'%s'",
			 when, now, original);
}

/* loop -> LUKS2 -> ext4, as a user's own device. */
static int make_user_device(void)
{
	char cmd[sizeof(tmp) + 64];

	snprintf(map, sizeof(map), "encbench-vmtunedev-%d", getpid());
	snprintf(mnt, sizeof(mnt), "%s/mnt", tmp);
	snprintf(key, sizeof(key), "%s/key", tmp);
	if (sh("truncate -s 200M %s/img && head -c 64 /dev/urandom > %s", tmp,
	       key))
		return -1;
	snprintf(cmd, sizeof(cmd), "losetup -f --show %s/img", tmp);
	if (sh_line(loop, sizeof(loop), cmd))
		return -1;
	if (sh("cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 "
	       "--pbkdf-force-iterations 1000 --key-file %s %s",
	       key, loop) ||
	    sh("printf %%s '%s' > %s/pass && cryptsetup luksAddKey -q --pbkdf "
	       "pbkdf2 --pbkdf-force-iterations 1000 --key-file %s %s %s/pass",
	       passphrase, tmp, key, loop, tmp) ||
	    sh("cryptsetup open --allow-discards --perf-same_cpu_crypt "
	       "--key-file %s %s %s",
	       key, loop, map))
		return -1;
	opened = true;
	if (sh(MKFS_EXT4 " /dev/mapper/%s && mkdir %s && "
			 "mount /dev/mapper/%s %s && echo mine > %s/keep",
	       map, mnt, map, mnt, mnt))
		return -1;
	mounted = true;
	return table_options(original, sizeof(original));
}

/* tune's command line on the user's device, into argv (24 slots): with
 * --key-file KEY, or without (the passphrase is asked on the terminal). */
static void tune_argv(const char **argv, const char *out, bool with_key)
{
	const char *const common[] = {run_prog_bin(),
				      "tune",
				      "--target",
				      target,
				      "--allow-refresh",
				      "-w",
				      "dd",
				      "-s",
				      "4M",
				      "--budget",
				      "150s",
				      "--max-runs",
				      "3",
				      "--scratch",
				      scratch,
				      "--output",
				      out,
				      "-q"};
	size_t n = 0;

	for (; n < sizeof(common) / sizeof(common[0]); n++)
		argv[n] = common[n];
	if (with_key) {
		argv[n++] = "--key-file";
		argv[n++] = key;
	}
	argv[n] = NULL;
}

/* `tune --target mine=MNT --allow-refresh --key-file KEY` plus a pause
 * point (NULL: none), as tag; its pid. */
static pid_t tune_spawn(const char *tag, const char *out, const char *pause)
{
	const char *argv[24];
	int status;
	pid_t pid;

	tune_argv(argv, out, true);
	if (pause)
		setenv("ENCBENCH_PAUSE_AT", pause, 1);
	pid = run_spawn(tmp, tag, NULL, NULL, argv);
	unsetenv("ENCBENCH_PAUSE_AT");
	if (!pause)
		return pid;
	assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
	if (!WIFSTOPPED(status))
		fail_msg("never stopped at %s: %s", pause,
			 run_output(tmp, tag, "stderr"));
	return pid;
}

/* `tune --target mine=MNT --allow-refresh` with no key file on a pty of
 * its own, the passphrase typed once it asks (pause: as tune_spawn's,
 * then it is stopped there on return). */
static void tune_on_pty(struct pty_run *p, const char *out, const char *pause,
			const char *typed)
{
	const char *argv[24];
	int status;

	tune_argv(argv, out, false);
	if (pause)
		setenv("ENCBENCH_PAUSE_AT", pause, 1);
	assert_int_equal(pty_spawn(p, argv), 0);
	unsetenv("ENCBENCH_PAUSE_AT");
	if (!pty_expect(p, "Passphrase of ", 60))
		fail_msg("tune never asked for the passphrase: '%s'", p->seen);
	assert_int_equal(pty_type(p, typed), 0);
	if (!pause)
		return;
	assert_int_equal(waitpid(p->pid, &status, WUNTRACED), p->pid);
	if (!WIFSTOPPED(status))
		fail_msg("never stopped at %s: %s", pause, p->seen);
}

/* What was typed must not show: echo was off. */
static void assert_not_echoed(const struct pty_run *p, const char *typed)
{
	if (strstr(p->seen, typed))
		fail_msg("the passphrase was echoed: '%s'", p->seen);
}

/* The key is never stored: not in the run's folder, not in the state
 * file that records the device's flags (checked while that record is
 * there, after a SIGKILL, when nothing was wiped). */
static void assert_key_nowhere(const char *out)
{
	if (sh("! grep -rqaF '%s' %s %s", passphrase, out, state))
		fail_msg("the passphrase is stored in %s or %s", out, state);
}

static const char *str(struct json_object *o, const char *k)
{
	return json_object_get_string(get(o, k));
}

/* Nothing of ours on the user's file system, nothing else left. */
static void assert_nothing_left(void)
{
	assert_int_equal(sh("test -z \"$(ls %s | grep -v -e keep -e "
			    "lost+found)\"",
			    mnt),
			 0);
	assert_int_equal(sh("grep -qx mine %s/keep", mnt), 0);
	assert_int_equal(leftovers_recorded(scratch, ids_file), 0);
	assert_int_equal(sh("test -z \"$(ls %s | grep json)\"", state), 0);
}

static void test_bad_input(void **st)
{
	const char *no_allow[] = {run_prog_bin(), "tune", "--target", target,
				  NULL};
	char out[PATH_MAX];
	const char *not_luks[] = {run_prog_bin(),
				  "tune",
				  "--target",
				  "t=/var/tmp",
				  "--allow-refresh",
				  "--scratch",
				  scratch,
				  "--output",
				  out,
				  NULL};
	const char *text;

	(void)st;
	snprintf(out, sizeof(out), "%s/notluks", tmp);
	assert_int_equal(
		run_reap(run_spawn(tmp, "noallow", NULL, NULL, no_allow)), 2);
	text = run_output(tmp, "noallow", "stderr");
	assert_int_equal(count_lines(text), 1);
	assert_non_null(strstr(text, "--allow-refresh"));
	assert_int_equal(
		run_reap(run_spawn(tmp, "notluks", NULL, NULL, not_luks)), 2);
	text = run_output(tmp, "notluks", "stderr");
	assert_int_equal(count_lines(text), 1);
	assert_non_null(strstr(text, "no LUKS2"));
	assert_table_is_original("after the refusals");
}

static void test_sweep_restores_flags(void **st)
{
	char out[PATH_MAX];
	struct json_object *doc, *tune, *nrwq;
	const char *cmd;
	int rc;

	(void)st;
	snprintf(out, sizeof(out), "%s/sweep", tmp);
	rc = run_reap(tune_spawn("sweep", out, NULL));
	doc = run_prog_results(tmp, "sweep", rc, out);
	assert_non_null(doc);
	tune = get(doc, "tune");
	assert_string_equal(str(tune, "device"), map);
	assert_string_equal(str(tune, "device_flags"), "same_cpu_crypt");
	assert_true(json_object_get_boolean(
		get(variant_of(tune, "mine-as-is"), "reference")));
	nrwq = variant_of(tune, "mine-no_read_workqueue");
	assert_true(json_object_get_int(get(nrwq, "runs")) >= 2);
	assert_non_null(
		strstr(str(variant_of(tune, "mine-same_cpu_crypt"), "skipped"),
		       "already"));
	assert_non_null(
		strstr(str(variant_of(tune, "mine-high_priority"), "skipped"),
		       "libcryptsetup 2.8"));
	assert_non_null(
		strstr(run_output(tmp, "sweep", "stdout"), "Recommendation: "));
	/* A refresh to apply it keeps the device's discards (a refresh
	 * clears every flag it is not given). */
	cmd = str(get(tune, "recommendation"), "command");
	fprintf(stderr, "# recommended: %s\n", cmd ? cmd : "(none)");
	if (cmd && strstr(cmd, "cryptsetup refresh"))
		assert_non_null(strstr(cmd, " --allow-discards "));
	json_object_put(doc);
	assert_table_is_original("after the sweep");
	assert_nothing_left();
}

static void test_sigint_restores_flags(void **st)
{
	char out[PATH_MAX], now[512];
	pid_t pid;

	(void)st;
	snprintf(out, sizeof(out), "%s/sigint", tmp);
	pid = tune_spawn("sigint", out, "workload:mine-no_read_workqueue:dd");
	/* Stopped while the variant runs: its flags are the table's. */
	assert_int_equal(table_options(now, sizeof(now)), 0);
	if (!strstr(now, "no_read_workqueue") || !strstr(now, "allow_discards"))
		fail_msg("while no_read_workqueue runs the table says '%s'",
			 now);
	kill(pid, SIGINT);
	kill(pid, SIGCONT);
	assert_int_equal(run_reap(pid), 130);
	assert_table_is_original("after Ctrl-C");
	assert_nothing_left();
}

/* A wrong passphrase on the terminal: one line, exit 1, no change. */
static void test_wrong_passphrase_on_terminal(void **st)
{
	char out[PATH_MAX];
	struct pty_run p;

	(void)st;
	snprintf(out, sizeof(out), "%s/wrong", tmp);
	tune_on_pty(&p, out, NULL, "not the passphrase");
	pty_drain(&p, 60);
	assert_int_equal(run_reap(p.pid), 1);
	close(p.fd);
	assert_not_echoed(&p, "not the passphrase");
	assert_non_null(strstr(p.seen, "the passphrase opens no key slot"));
	assert_table_is_original("after a wrong passphrase");
	assert_nothing_left();
}

/* Killed in a variant after the passphrase was typed into tune; then
 * teardown, with no key file, asks it again and puts the flags back. */
static void test_sigkill_then_teardown(void **st)
{
	const char *argv[] = {run_prog_bin(), "teardown", NULL};
	char out[PATH_MAX], now[512];
	struct pty_run p, td;

	(void)st;
	snprintf(out, sizeof(out), "%s/sigkill", tmp);
	tune_on_pty(&p, out, "workload:mine-no_read_workqueue:dd", passphrase);
	kill(p.pid, SIGKILL);
	kill(p.pid, SIGCONT);
	assert_int_equal(run_reap(p.pid), 128 + SIGKILL);
	pty_drain(&p, 5);
	close(p.fd);
	assert_not_echoed(&p, passphrase);
	assert_key_nowhere(out);
	assert_int_equal(table_options(now, sizeof(now)), 0);
	if (!strstr(now, "no_read_workqueue"))
		fail_msg("killed during no_read_workqueue, the table says '%s'",
			 now);
	assert_int_equal(pty_spawn(&td, argv), 0);
	if (!pty_expect(&td, "to restore its dm-crypt flags", 60))
		fail_msg("teardown never asked for the passphrase: '%s'",
			 td.seen);
	assert_int_equal(pty_type(&td, passphrase), 0);
	pty_drain(&td, 60);
	assert_int_equal(run_reap(td.pid), 0);
	close(td.fd);
	assert_not_echoed(&td, passphrase);
	assert_non_null(strstr(td.seen, "restored dm-flags"));
	assert_table_is_original("after SIGKILL and teardown");
	assert_nothing_left();
}

static int teardown(void **st);

static int setup(void **st)
{
	(void)st;
	if (run_prog_begin(tmp))
		return -1;
	snprintf(state, sizeof(state), "%s/state", tmp);
	setenv("ENCBENCH_STATE_DIR", state, 1);
	snprintf(scratch, sizeof(scratch), "%s/scratch", tmp);
	if (mkdir(scratch, 0700))
		return -1;
	run_prog_record_ids(tmp, ids_file);
	if (make_user_device()) {
		fprintf(stderr, "# cannot make the user's LUKS2 device\n");
		teardown(NULL);
		return -1;
	}
	snprintf(target, sizeof(target), "mine=%s", mnt);
	printf("# the user's device opened with: %s\n", original);
	return 0;
}

/* Idempotent: called by setup when it fails, and by cmocka. */
static int teardown(void **st)
{
	const char *argv[] = {run_prog_bin(), "teardown", "--key-file", key,
			      NULL};

	(void)st;
	run_reap(run_spawn(tmp, "final-teardown", NULL, NULL, argv));
	if (mounted)
		sh("umount %s", mnt);
	if (opened)
		sh("cryptsetup close %s", map);
	if (loop[0])
		sh("losetup -d %s", loop);
	mounted = opened = false;
	loop[0] = '\0';
	return remove_tree(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_wrong_passphrase_on_terminal),
		cmocka_unit_test(test_sweep_restores_flags),
		cmocka_unit_test(test_sigint_restores_flags),
		cmocka_unit_test(test_sigkill_then_teardown),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
