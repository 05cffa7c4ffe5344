// SPDX-License-Identifier: MIT
/*
 * The real program, as root, on this kernel: real loop devices, real ext4
 * and fscrypt, real BPF. Asserts the results contract, the attribution
 * (fscrypt reads spend time in `crypt`, plain reads none), the files, the
 * one-line errors, and that nothing is left behind, Ctrl-C included.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "file_text.h"
#include "leftovers.h"
#include "results_json.h"
#include "run_prog.h"

static char tmp[] = "/var/tmp/encbench-itest.XXXXXX";
static char out[PATH_MAX];
static const char *bin;
static struct json_object *results; /* of the one full run */
/* Every BPF id the runs recorded (ENCBENCH_IDS_FILE, see bpf_ids.h). */
static char ids_file[PATH_MAX];
/* A biolatency running through all the tests, and its links. */
static pid_t biolatency = -1;
static struct bpf_id bio_links[16];
static int nr_bio_links;

/* Run the program with argv, stdout/stderr to files; exit status. */
static int run_prog(const char *const *argv, const char *uid)
{
	return run_reap(run_spawn(tmp, "run", NULL, uid, argv));
}

static const char *slurp(const char *stream)
{
	return run_output(tmp, "run", stream);
}

static int64_t num(struct json_object *o, const char *k)
{
	return json_object_get_int64(get(o, k));
}

/* What the runs so far left: under tmp, and of the BPF ids they made. */
static int run_leftovers(void)
{
	return leftovers_recorded(tmp, ids_file);
}

static int setup(void **state)
{
	(void)state;

	bin = run_prog_bin();
	if (run_prog_begin(tmp))
		return -1;
	snprintf(out, sizeof(out), "%s/out", tmp);
	run_prog_record_ids(tmp, ids_file);
	biolatency = foreign_tracer_start(bio_links, 16, &nr_bio_links);
	if (biolatency < 0)
		return -1;
	const char *argv[] = {bin,	  "run", "--size",    "16M",
			      "--runs",	  "2",	 "--scratch", tmp,
			      "--output", out,	 NULL};
	results = run_prog_results(tmp, "run", run_prog(argv, NULL), out);
	return results ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;

	foreign_tracer_stop(biolatency);
	json_object_put(results);
	return remove_tree(tmp);
}

/* No --targets: every kind is either built or listed as skipped with
 * its reason (on this build machine: luks2 and ecryptfs, no dm-crypt or
 * eCryptfs in its kernel), never both, never neither. */
static void test_default_kinds(void **state)
{
	static const char *const kinds[] = {"plain", "fscrypt", "luks2",
					    "ecryptfs"};
	struct json_object *targets = get(results, "targets");
	struct json_object *skipped = get(results, "skipped_targets");
	(void)state;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		int built = 0, skip = 0;

		for (size_t i = 0; i < json_object_array_length(targets); i++)
			built += !strcmp(
				json_object_get_string(get(
					json_object_array_get_idx(targets, i),
					"kind")),
				kinds[k]);
		for (size_t i = 0; i < json_object_array_length(skipped); i++) {
			struct json_object *s =
				json_object_array_get_idx(skipped, i);

			if (strcmp(json_object_get_string(get(s, "kind")),
				   kinds[k]))
				continue;
			skip++;
			assert_true(strlen(json_object_get_string(
					    get(s, "reason"))) > 0);
		}
		if (built + skip != 1)
			fail_msg("kind %s: built %d times, skipped %d times",
				 kinds[k], built, skip);
	}
}

static void test_contract(void **state)
{
	struct json_object *targets = get(results, "targets");
	struct json_object *res = get(results, "results");
	int saw_plain = 0, saw_fscrypt = 0;
	(void)state;

	assert_string_equal(json_object_get_string(get(results, "schema")),
			    "encbench-trace/1");
	for (size_t i = 0; i < json_object_array_length(targets); i++) {
		struct json_object *t = json_object_array_get_idx(targets, i);
		const char *kind = json_object_get_string(get(t, "kind"));

		if (!strcmp(kind, "plain")) {
			saw_plain = 1;
			assert_false(json_object_get_boolean(
				get(t, "verified_encrypted")));
		} else if (!strcmp(kind, "fscrypt")) {
			saw_fscrypt = 1;
			assert_true(json_object_get_boolean(
				get(t, "verified_encrypted")));
		}
	}
	assert_true(saw_plain && saw_fscrypt);
	/* 2 targets x (write_s, read_s), 2 samples each. */
	assert_int_equal(json_object_array_length(res), 4);
	for (size_t i = 0; i < 4; i++) {
		struct json_object *r = json_object_array_get_idx(res, i);

		assert_int_equal(json_object_array_length(get(r, "samples")),
				 2);
	}
	assert_int_equal(json_object_array_length(get(results, "comparisons")),
			 2);
	assert_true(
		json_object_get_boolean(get(get(results, "meta"), "tracing")));
}

#define assert_ge(a, b)                                                        \
	do {                                                                   \
		int64_t a_ = (a), b_ = (b);                                    \
		if (a_ < b_)                                                   \
			fail_msg("%s = %lld < %s = %lld", #a, (long long)a_,   \
				 #b, (long long)b_);                           \
	} while (0)

static void test_attribution(void **state)
{
	struct json_object *crypt =
		layer_of(results, "fscrypt", "read", "crypt");
	struct json_object *dev = layer_of(results, "plain", "read", "device");
	struct json_object *fdev =
		layer_of(results, "fscrypt", "read", "device");
	struct json_object *plain_read = attrib_of(results, "plain", "read");
	struct json_object *fscrypt_read =
		attrib_of(results, "fscrypt", "read");
	(void)state;

	assert_ge(num(crypt, "count"), 1);
	assert_ge(num(crypt, "sum_ns"), 1);
	assert_int_equal(
		num(layer_of(results, "plain", "read", "crypt"), "count"), 0);
	/* Every 1 MiB O_DIRECT read on plain ext4 is at least one request;
	 * the kernel's own count of completed requests is the floor. */
	assert_ge(num(dev, "count"), 2 * 16);
	assert_ge(num(dev, "kernel_requests"), 1);
	/*
	 * The tracer accounts for every request the kernel completed inside
	 * the windows: timed (count), or counted as unseen where the kernel
	 * ran no BPF program at the completion (a softirq on top of the
	 * sandbox agent's thread on the build machine, block.bpf.h:
	 * rq_unseen), or skipped by the kernel and said so (missed_events);
	 * writes also as unissued: a data-less flush request (fsync's) is
	 * counted by the kernel as a write it never issued to the device.
	 */
	assert_ge(num(dev, "count") + num(dev, "unseen") +
			  num(plain_read, "missed_events"),
		  num(dev, "kernel_requests"));
	assert_ge(num(fdev, "kernel_requests"), 1);
	assert_ge(num(fdev, "count") + num(fdev, "unseen") +
			  num(fscrypt_read, "missed_events"),
		  num(fdev, "kernel_requests"));
	assert_ge(num(layer_of(results, "plain", "write", "device"), "count") +
			  num(layer_of(results, "plain", "write", "device"),
			      "unseen") +
			  num(layer_of(results, "plain", "write", "device"),
			      "unissued") +
			  num(attrib_of(results, "plain", "write"),
			      "missed_events"),
		  num(layer_of(results, "plain", "write", "device"),
		      "kernel_requests"));
	assert_ge(num(layer_of(results, "fscrypt", "read", "syscall"), "count"),
		  2 * 16);
	/* Exactly the workload's own calls, 2 runs of 16 MiB: 16 writes,
	 * an fsync and the open that creates the file; 16 reads and the
	 * read that finds end of file. Nothing of the harness (the parent,
	 * or how a child reports back). */
	assert_int_equal(
		num(layer_of(results, "plain", "write", "syscall"), "count"),
		2 * 16);
	assert_int_equal(
		num(layer_of(results, "plain", "sync", "syscall"), "count"), 2);
	assert_int_equal(
		num(layer_of(results, "plain", "create", "syscall"), "count"),
		2);
	assert_int_equal(
		num(layer_of(results, "plain", "read", "syscall"), "count"),
		2 * (16 + 1));
}

static void test_files(void **state)
{
	char path[PATH_MAX];
	struct stat st;
	FILE *f;
	char line[256];
	(void)state;

	snprintf(path, sizeof(path), "%s/plain-dd.csv", out);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "iteration,write_s,read_s\n");
	int rows = 0;
	while (fgets(line, sizeof(line), f))
		rows++;
	fclose(f);
	assert_int_equal(rows, 2);
	snprintf(path, sizeof(path), "%s/hist-fscrypt-dd-read-crypt.csv", out);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/run.log", out);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 0);
	/* report.txt holds the comparison, attribution and histograms
	 * (the terminal has the short form: test_screen). */
	snprintf(path, sizeof(path), "%s/report.txt", out);
	char *text = file_text(path);
	assert_non_null(text);
	assert_non_null(strstr(text, "fscrypt"));
	assert_non_null(strstr(text, "crypt"));
	assert_non_null(strstr(text, "distribution"));
	assert_non_null(strstr(text, "buffered"));
	free(text);
}

/* Regression (issue 6, item 8): with libbpf-tools' biolatency running,
 * whose programs have our programs' names, only our own ids count; and
 * biolatency keeps its links. */
static void test_nothing_left_beside_biolatency(void **state)
{
	struct bpf_id ids[MAX_BPF_IDS];
	int n = bpf_ids_from_file(ids_file, ids, MAX_BPF_IDS);
	(void)state;

	/* The run traced: it recorded programs and links, or this test
	 * would prove nothing. */
	assert_true(bpf_ids_count(ids, n, BPF_ID_PROG) > 0);
	assert_true(bpf_ids_count(ids, n, BPF_ID_LINK) > 0);
	assert_int_equal(run_leftovers(), 0);
	assert_true(foreign_tracer_intact(biolatency, bio_links, nr_bio_links));
}

/* A bad input: exit 2, one line on stderr naming `what`, nothing made. */
static void expect_bad(const char *const *argv, const char *uid,
		       const char *what)
{
	char path[PATH_MAX];
	const char *err;

	snprintf(path, sizeof(path), "%s/bad-out", tmp);
	assert_int_equal(run_prog(argv, uid), 2);
	err = slurp("stderr");
	assert_int_equal(count_lines(err), 1);
	if (!strstr(err, what))
		fail_msg("stderr '%s' does not name '%s'", err, what);
	assert_int_not_equal(access(path, F_OK), 0);
}

static void test_bad_input(void **state)
{
	char bad_out[PATH_MAX];
	(void)state;

	snprintf(bad_out, sizeof(bad_out), "%s/bad-out", tmp);
	const char *a1[] = {bin, "frobnicate", NULL};
	expect_bad(a1, NULL, "unknown command 'frobnicate'");
	const char *a2[] = {bin, "run", "--frob", NULL};
	expect_bad(a2, NULL, "unknown option '--frob'");
	const char *a3[] = {bin, "run", "-s", "lots", "-o", bad_out, NULL};
	expect_bad(a3, NULL, "invalid size 'lots'");
	const char *a4[] = {bin, "run", "-s",	 "900T", "--scratch",
			    tmp, "-o",	bad_out, NULL};
	expect_bad(a4, NULL, "does not fit");
	const char *a5[] = {bin, "run", "-o", "/proc/encbench/out", NULL};
	expect_bad(a5, NULL, "not writable");
	const char *a6[] = {bin, "run", "-o", bad_out, NULL};
	expect_bad(a6, "65534", "needs root");
	/* A long path must fail before mkdir -p made any of its parents. */
	char longp[PATH_MAX];
	int n = snprintf(longp, sizeof(longp), "%s/bad-out/", tmp);
	memset(longp + n, 'a', 300);
	longp[n + 300] = '\0';
	const char *a7[] = {bin, "run", "-o", longp, NULL};
	expect_bad(a7, NULL, "too long");
	assert_int_equal(run_leftovers(), 0);
}

/* An existing output folder that is not empty is refused untouched. */
static void test_output_not_empty(void **state)
{
	char dir[PATH_MAX], mine[PATH_MAX + 8];
	struct dirent *de;
	int entries = 0;
	DIR *d;
	(void)state;

	snprintf(dir, sizeof(dir), "%s/full-out", tmp);
	snprintf(mine, sizeof(mine), "%s/run.log", dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	FILE *f = fopen(mine, "w");
	assert_non_null(f);
	fputs("someone else's\n", f);
	fclose(f);
	const char *argv[] = {bin, "run", "-o", dir, NULL};
	assert_int_equal(run_prog(argv, NULL), 2);
	assert_non_null(strstr(slurp("stderr"), "not empty"));
	d = opendir(dir);
	while ((de = readdir(d)))
		entries += de->d_name[0] != '.';
	closedir(d);
	assert_int_equal(entries, 1);
	f = fopen(mine, "r");
	char line[64] = "";
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_string_equal(line, "someone else's\n");
}

/* Ctrl-C in the middle of the workloads: exit 130, nothing left. */
static void test_interrupt(void **state)
{
	char o[PATH_MAX];
	int status;
	pid_t pid;
	(void)state;

	snprintf(o, sizeof(o), "%s/int-out", tmp);
	pid = fork();
	if (pid == 0) {
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execl(bin, bin, "run", "--size", "256M", "--runs", "50",
		      "--scratch", tmp, "--output", o, NULL);
		_exit(98);
	}
	/* Wait until both targets are mounted and the workload runs. */
	for (int i = 0; i < 600 && mounts_under(tmp) < 2; i++)
		usleep(50000);
	assert_int_equal(mounts_under(tmp), 2);
	usleep(500000);
	kill(pid, SIGINT);
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 130);
	assert_int_equal(run_leftovers(), 0);
	assert_int_not_equal(access(o, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contract),
		cmocka_unit_test(test_default_kinds),
		cmocka_unit_test(test_attribution),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_nothing_left_beside_biolatency),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_output_not_empty),
		cmocka_unit_test(test_interrupt),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
