// SPDX-License-Identifier: MIT
/*
 * `encbench-trace trace` as root on this kernel: a user's own command on
 * an ext4 file system on a loop device (set up here, torn down after) is
 * attributed as `run` would attribute it, components adding up to its
 * read time; on the program's own fscrypt target, buffered reads are
 * crypto-bound as in `run`; its exit status is passed through; the
 * screen gets the short report (-q the verdicts only, --verbose the full
 * one), --output DIR the full one in report.txt too; bad input is one
 * line, exit 2, and creates nothing.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "file_text.h"
#include "results_json.h"
#include "run_prog.h"
#include "storage/target.h"

static char tmp[] = "/var/tmp/encbench-tracecmd.XXXXXX";
static char dev[64];
static const char *bin;

static int sh(const char *fmt, ...)
{
	char cmd[PATH_MAX * 2];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `trace` with argv (after "trace"), stdout and stderr to tmp/out and
 * tmp/err; its exit status. */
static int trace(const char *const *args)
{
	const char *argv[32] = {bin, "trace"};
	char path[PATH_MAX];
	int n = 2, status;
	pid_t pid;

	while (*args && n < 31)
		argv[n++] = *args++;
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		snprintf(path, sizeof(path), "%s/out", tmp);
		if (!freopen(path, "w", stdout))
			_exit(97);
		snprintf(path, sizeof(path), "%s/err", tmp);
		if (!freopen(path, "w", stderr))
			_exit(97);
		execv(bin, (char *const *)argv);
		_exit(98);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int lines_of(const char *name)
{
	char path[PATH_MAX];
	FILE *f;
	int n = 0, c;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	f = fopen(path, "r");
	while (f && (c = fgetc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

static int setup(void **state)
{
	char cmd[PATH_MAX];
	FILE *p;
	(void)state;

	bin = run_prog_bin();
	if (run_prog_begin(tmp))
		return -1;
	if (sh("truncate -s 96M %s/img && mkdir %s/mnt", tmp, tmp))
		return -1;
	snprintf(cmd, sizeof(cmd), "losetup -f --show %s/img", tmp);
	p = popen(cmd, "r");
	if (!p || !fgets(dev, sizeof(dev), p)) {
		if (p)
			pclose(p);
		return -1;
	}
	pclose(p);
	dev[strcspn(dev, "\n")] = '\0';
	return sh("mkfs.ext4 -q %s && mount %s %s/mnt && "
		  "dd if=/dev/urandom of=%s/mnt/f bs=1M count=32 status=none "
		  "&& sync",
		  dev, dev, tmp, tmp)
		       ? -1
		       : 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("umount %s/mnt 2>/dev/null", tmp);
	if (dev[0])
		sh("losetup -d %s", dev);
	return sh("rm -rf %s", tmp) ? -1 : 0;
}

static void test_dd_on_loop_ext4(void **state)
{
	char mnt[PATH_MAX], out[PATH_MAX], file[PATH_MAX], inf[PATH_MAX + 8];
	char path[PATH_MAX + 16], *text;
	struct json_object *doc, *w, *ns;
	uint64_t sum = 0;
	(void)state;

	snprintf(mnt, sizeof(mnt), "%s/mnt", tmp);
	snprintf(out, sizeof(out), "%s/res", tmp);
	snprintf(file, sizeof(file), "%s/mnt/f", tmp);
	snprintf(inf, sizeof(inf), "if=%s", file);
	const char *args[] = {
		"--path",	mnt,  "-q", "-o",	    out,
		"--",		"dd", inf,  "of=/dev/null", "bs=1M",
		"iflag=direct", NULL};

	assert_int_equal(trace(args), 0);
	snprintf(path, sizeof(path), "%s/results.json", out);
	doc = json_object_from_file(path);
	assert_non_null(doc);
	w = get(attrib_of(doc, "trace", "read"), "wait");
	ns = get(w, "ns");
	/* dd's 32 reads of 1 MiB, the one that finds the end, and what
	 * it reads starting (the loader, locale files). */
	assert_true(json_object_get_int64(get(w, "syscalls")) >= 33);
	json_object_object_foreach(ns, k, v)
	{
		(void)k;
		sum += json_object_get_uint64(v);
	}
	assert_true(sum == json_object_get_uint64(get(w, "total_ns")));
	/* O_DIRECT reads of a loop device: the device is in the time. */
	assert_true(json_object_get_uint64(get(ns, "device")) > 0);
	assert_int_equal(json_object_get_uint64(get(ns, "crypt")), 0);
	assert_true(json_object_get_int64(
			    get(layer_of(doc, "trace", "read", "device"),
				"count")) >= 32);
	json_object_put(doc);
	/* -q: the verdicts only, a line each, the read's among them; the
	 * full report in report.txt. */
	snprintf(path, sizeof(path), "%s/out", tmp);
	text = file_text(path);
	assert_non_null(text);
	assert_non_null(strstr(text, "trace, dd, read: "));
	for (char *l = text; *l; l = strchr(l, '\n') + 1)
		if (strncmp(l, "trace, dd, ", 11))
			fail_msg("-q printed '%s'", l);
	free(text);
	snprintf(path, sizeof(path), "%s/report.txt", out);
	text = file_text(path);
	assert_non_null(text);
	assert_non_null(strstr(text, "\nWhere the time goes\n"));
	assert_non_null(strstr(text, "    - closure: the components add up"));
	assert_non_null(strstr(text, "distribution"));
	free(text);
}

/* Without -o or -q: the short report, ending with where the full one
 * is; with --verbose the full one, without histograms. */
static void test_screen_and_verbose(void **state)
{
	char mnt[PATH_MAX], inf[PATH_MAX + 8], path[PATH_MAX + 8], *text;
	const char *last;
	(void)state;

	snprintf(mnt, sizeof(mnt), "%s/mnt", tmp);
	snprintf(inf, sizeof(inf), "if=%s/f", mnt);
	snprintf(path, sizeof(path), "%s/out", tmp);
	const char *args[] = {
		"--path",	mnt,	 "--",		 "dd", inf,
		"of=/dev/null", "bs=1M", "iflag=direct", NULL};
	const char *verbose[] = {"--path",	 mnt, "--verbose",    "--",
				 "dd",		 inf, "of=/dev/null", "bs=1M",
				 "iflag=direct", NULL};

	assert_int_equal(trace(args), 0);
	text = file_text(path);
	assert_non_null(text);
	assert_true(count_lines(text) <= 40);
	assert_non_null(strstr(text, "\nVerdicts "));
	assert_non_null(strstr(text, "\n  trace, dd, read: "));
	assert_null(strstr(text, "distribution"));
	assert_null(strstr(text, "Where the time goes"));
	last = strstr(text, "\nFull report: --verbose prints it; --output "
			    "DIR keeps it in DIR/report.txt\n");
	assert_non_null(last);
	/* ... as its last line. */
	assert_string_equal(strchr(last + 1, '\n'), "\n");
	free(text);
	assert_int_equal(trace(verbose), 0);
	text = file_text(path);
	assert_non_null(text);
	assert_non_null(strstr(text, "\nWhere the time goes\n"));
	assert_non_null(strstr(text, "    - closure: the components add up"));
	assert_null(strstr(text, "distribution"));
	free(text);
}

/* The fscrypt target `run` builds, through the same storage code. */
static void test_dd_on_fscrypt(void **state)
{
	static const char *const others[] = {"fs", "blk-queue", "device",
					     "cpu-wait"};
	struct target_config tc = {.name = "fscrypt", .fs_bytes = 128 << 20};
	char out[PATH_MAX], file[PATH_MAX], inf[PATH_MAX + 8];
	char path[PATH_MAX + 16];
	struct json_object *doc, *ns, *w, *tj, *enc;
	static struct target t;
	double crypto;
	(void)state;

	tc.scratch = tmp;
	t.kind = target_find("fscrypt");
	assert_non_null(t.kind);
	snprintf(t.info.name, NAME_LEN, "fscrypt");
	assert_int_equal(target_setup(&t, &tc), 0);
	snprintf(file, sizeof(file), "%s/f", t.info.dir);
	snprintf(out, sizeof(out), "%s/res-fscrypt", tmp);
	snprintf(inf, sizeof(inf), "if=%s", file);
	const char *args[] = {
		"--path", t.info.dir, "-q",	      "-o",    out, "--",
		"dd",	  inf,	      "of=/dev/null", "bs=1M", NULL};
	/* Written, synced and out of the page cache: reads decrypt. */
	if (sh("dd if=/dev/urandom of=%s bs=1M count=32 status=none && "
	       "sync && echo 3 >/proc/sys/vm/drop_caches",
	       file) ||
	    trace(args)) {
		target_teardown(&t);
		fail_msg("setting up or tracing dd on fscrypt failed");
	}
	target_teardown(&t);
	snprintf(path, sizeof(path), "%s/results.json", out);
	doc = json_object_from_file(path);
	assert_non_null(doc);
	/* The stack under the path, detected as for `run --target`: the
	 * target's loop device and its fscrypt policy, with its driver. */
	tj = json_object_array_get_idx(get(doc, "targets"), 0);
	enc = get(tj, "encryption");
	assert_string_equal(json_object_get_string(get(enc, "scheme")),
			    "fscrypt v2 policy");
	assert_true(strlen(json_object_get_string(get(enc, "driver"))) > 0);
	assert_string_equal(
		json_object_get_string(
			get(json_object_array_get_idx(get(tj, "devices"), 0),
			    "name")),
		t.info.devices[0].name);
	w = get(attrib_of(doc, "trace", "read"), "wait");
	ns = get(w, "ns");
	crypto = (double)json_object_get_uint64(get(ns, "crypt")) +
		 (double)json_object_get_uint64(get(ns, "crypt-queue")) +
		 (double)json_object_get_uint64(
			 get(get(get(w, "cpu_wait_behind"), "crypt"), "ns"));
	fprintf(stderr,
		"# fscrypt: waiting for decryption %.0f %% of dd's "
		"read time\n",
		100 * crypto /
			(double)json_object_get_uint64(get(w, "total_ns")));
	/* Waiting for decryption is the largest part of dd's read time,
	 * as in `run`: more than any other component (cpu-wait without what
	 * it spent behind decrypt workers). */
	for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++) {
		double v = (double)json_object_get_uint64(get(ns, others[i]));

		if (!strcmp(others[i], "cpu-wait"))
			v -= (double)json_object_get_uint64(get(
				get(get(w, "cpu_wait_behind"), "crypt"), "ns"));
		if (v >= crypto)
			fail_msg("%s %.0f ns >= decryption %.0f ns", others[i],
				 v, crypto);
	}
	json_object_put(doc);
}

static void test_exit_status_passed(void **state)
{
	char mnt[PATH_MAX];
	(void)state;

	snprintf(mnt, sizeof(mnt), "%s/mnt", tmp);
	const char *seven[] = {"--path", mnt,  "-q",	 "--",
			       "sh",	 "-c", "exit 7", NULL};
	const char *no[] = {"--path", mnt, "-q", "--", "false", NULL};

	assert_int_equal(trace(seven), 7);
	assert_int_equal(trace(no), 1);
}

/*
 * `trace --pid` and `--cgroup` follow a process that is already running:
 * a shell that waits for tmp/go, then reads the file with two dds (a
 * child of the traced pid, in the traced cgroup). The trace stops itself
 * once attached (ENCBENCH_PAUSE_AT=tracing); then the shell may start.
 * --pid ends when the shell does; --cgroup on Ctrl-C, exit 130, with
 * what it gathered written. Nested: the traced shell runs a shell that
 * runs the one that reads, both started before the trace (found in /proc,
 * not followed from their fork).
 */
static void trace_running(const char *how, const char *cgroup_dir, bool nested)
{
	char mnt[PATH_MAX], out[PATH_MAX], go[PATH_MAX], script[PATH_MAX * 4];
	char path[PATH_MAX + 16], pidarg[16], ready[PATH_MAX];
	struct json_object *doc, *w;
	pid_t shell, tr;
	int status;

	snprintf(mnt, sizeof(mnt), "%s/mnt", tmp);
	snprintf(out, sizeof(out), "%s/res-%s%s", tmp, how + 2,
		 nested ? "-nested" : "");
	snprintf(go, sizeof(go), "%s/go", tmp);
	snprintf(ready, sizeof(ready), "%s/ready", tmp);
	unlink(go);
	unlink(ready);
	snprintf(script, sizeof(script),
		 "%s%s%s while [ ! -e %s ]; do sleep 0.05; done; "
		 "for i in 1 2; do dd if=%s/f of=/dev/null bs=1M iflag=direct "
		 "status=none; done",
		 cgroup_dir ? "echo $$ > " : "", cgroup_dir ?: "",
		 cgroup_dir ? "/cgroup.procs &&" : "", go, mnt);
	if (nested) {
		/* `; exit $?`: no shell may exec its last command instead. */
		assert_int_equal(sh("echo 'touch %s; %s' > %s/inner.sh && "
				    "echo 'sh %s/inner.sh; exit $?' > "
				    "%s/middle.sh",
				    ready, script, tmp, tmp, tmp),
				 0);
		snprintf(script, sizeof(script), "sh %s/middle.sh; exit $?",
			 tmp);
	}
	fflush(NULL); /* the children must not print our buffered lines */
	shell = fork();
	if (shell == 0) {
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(98);
	}
	assert_true(shell > 0);
	for (int i = 0; nested && i < 200 && access(ready, F_OK); i++)
		usleep(50000);
	assert_true(!nested || !access(ready, F_OK));
	snprintf(pidarg, sizeof(pidarg), "%d", shell);
	const char *args[] = {"--path",
			      mnt,
			      "-q",
			      "-o",
			      out,
			      how,
			      cgroup_dir ? cgroup_dir : pidarg,
			      NULL};
	const char *argv[16] = {bin, "trace"};

	for (int i = 0; args[i]; i++)
		argv[i + 2] = args[i];
	tr = fork();
	if (tr == 0) {
		setenv("ENCBENCH_PAUSE_AT", "tracing", 1);
		if (!freopen("/dev/null", "w", stdout))
			_exit(97);
		execv(bin, (char *const *)argv);
		_exit(98);
	}
	assert_true(tr > 0);
	assert_int_equal(waitpid(tr, &status, WUNTRACED), tr);
	assert_true(WIFSTOPPED(status));
	kill(tr, SIGCONT);
	assert_int_equal(sh("touch %s", go), 0);
	assert_int_equal(waitpid(shell, &status, 0), shell);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (cgroup_dir)
		kill(tr, SIGINT);
	assert_int_equal(waitpid(tr, &status, 0), tr);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), cgroup_dir ? 130 : 0);
	snprintf(path, sizeof(path), "%s/results.json", out);
	doc = json_object_from_file(path);
	assert_non_null(doc);
	w = get(attrib_of(doc, "trace", "read"), "wait");
	/* Two dds of 32 reads of 1 MiB each, and the reads that find the
	 * end: the traced process's children were followed. */
	printf("# %s: %lld read syscalls\n", how,
	       (long long)json_object_get_int64(get(w, "syscalls")));
	assert_true(json_object_get_int64(get(w, "syscalls")) >= 66);
	assert_true(json_object_get_uint64(get(get(w, "ns"), "device")) > 0);
	assert_true(json_object_get_int64(
			    get(layer_of(doc, "trace", "read", "device"),
				"count")) >= 64);
	json_object_put(doc);
}

static void test_pid_already_running(void **state)
{
	(void)state;
	trace_running("--pid", NULL, false);
}

/* Its descendants that were there before, at any depth, are followed. */
static void test_pid_descendants_already_running(void **state)
{
	(void)state;
	trace_running("--pid", NULL, true);
}

/* The cgroup v2 hierarchy's mount: /sys/fs/cgroup, or .../unified on a
 * hybrid host. */
static int cgroup2_root(char *root, size_t len)
{
	char dev[256], dir[PATH_MAX], type[64];
	FILE *f = fopen("/proc/self/mounts", "r");
	int err = -1;

	while (f && fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2")) {
			snprintf(root, len, "%s", dir);
			err = 0;
			break;
		}
	if (f)
		fclose(f);
	return err;
}

static void test_cgroup(void **state)
{
	char root[PATH_MAX], cg[PATH_MAX + 64], out[PATH_MAX];
	(void)state;

	if (cgroup2_root(root, sizeof(root)))
		skip();
	snprintf(cg, sizeof(cg), "%s/encbench-test.%d", root, getpid());
	assert_int_equal(mkdir(cg, 0755), 0);
	trace_running("--cgroup", cg, false);
	assert_int_equal(rmdir(cg), 0);

	/* A folder that is not in the v2 hierarchy (a v1 hierarchy's
	 * folders have cgroup.procs too), and one that does not exist. */
	snprintf(out, sizeof(out), "%s/never", tmp);
	const char *not_v2[] = {"--path", tmp,		"-o", out, "--cgroup",
				"/proc",  "--duration", "1",  NULL};
	const char *none[] = {"--path",	    tmp,	"-o",
			      out,	    "--cgroup", "no-such-cgroup.xyz",
			      "--duration", "1",	NULL};

	assert_int_equal(trace(not_v2), 2);
	assert_int_equal(lines_of("err"), 1);
	assert_int_equal(trace(none), 2);
	assert_int_equal(lines_of("err"), 1);
	assert_int_equal(access(out, F_OK), -1);
}

/* --json alone: the results document on stdout, the text on stderr. */
static void test_json_on_stdout(void **state)
{
	char mnt[PATH_MAX], inf[PATH_MAX + 8], path[PATH_MAX];
	struct json_object *doc, *w;
	(void)state;

	snprintf(mnt, sizeof(mnt), "%s/mnt", tmp);
	snprintf(inf, sizeof(inf), "if=%s/f", mnt);
	const char *args[] = {"--path",	      mnt, "--json",	   "--",
			      "dd",	      inf, "of=/dev/null", "bs=1M",
			      "iflag=direct", NULL};

	assert_int_equal(trace(args), 0);
	snprintf(path, sizeof(path), "%s/out", tmp);
	doc = json_object_from_file(path);
	assert_non_null(doc);
	w = get(attrib_of(doc, "trace", "read"), "wait");
	assert_true(json_object_get_int64(get(w, "syscalls")) >= 33);
	json_object_put(doc);
	assert_true(lines_of("err") > 3); /* the text report went there */
}

/* Exit 2, one line on stderr, no output folder. */
static void expect_bad(const char *const *args, const char *out)
{
	struct stat st;

	assert_int_equal(trace(args), 2);
	assert_int_equal(lines_of("err"), 1);
	assert_int_equal(stat(out, &st), -1);
}

static void test_bad_input(void **state)
{
	char mnt[PATH_MAX], out[PATH_MAX];
	(void)state;

	snprintf(mnt, sizeof(mnt), "%s/mnt", tmp);
	snprintf(out, sizeof(out), "%s/never", tmp);
	const char *tmpfs[] = {"--path", "/dev/shm", "-o", out,
			       "--",	 "true",     NULL};
	const char *nopid[] = {"--path", mnt,	      "-o", out,
			       "--pid",	 "999999999", NULL};
	const char *nocmd[] = {
		"--path", mnt, "-o", out, "--", "/nonexistent/command", NULL};
	const char *nothing[] = {"--path", mnt, "-o", out, NULL};
	const char *both[] = {"--path", mnt,  "--dev", dev, "-o",
			      out,	"--", "true",  NULL};
	const char *quiet_verbose[] = {"--path", mnt,  "-q",   "-v", "-o",
				       out,	 "--", "true", NULL};

	expect_bad(tmpfs, out);
	expect_bad(nopid, out);
	expect_bad(nocmd, out);
	expect_bad(nothing, out);
	expect_bad(both, out);
	expect_bad(quiet_verbose, out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dd_on_loop_ext4),
		cmocka_unit_test(test_dd_on_fscrypt),
		cmocka_unit_test(test_exit_status_passed),
		cmocka_unit_test(test_pid_already_running),
		cmocka_unit_test(test_pid_descendants_already_running),
		cmocka_unit_test(test_json_on_stdout),
		cmocka_unit_test(test_screen_and_verbose),
		cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_bad_input),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
