// SPDX-License-Identifier: MIT
/*
 * A traced iteration that something else disturbed is set aside and
 * traced again (userspace/run/disturbed.c). The real program on a real
 * loop device: `run -w dd` with one traced iteration; the test stops that
 * iteration's timed child (the write phase's) for a few seconds, as a
 * stall of the machine would, at the program's test hook "timing:plain"
 * (ENCBENCH_PAUSE_AT: the program stops itself with its child just forked
 * and running). The run must say so, keep only the iteration traced
 * again, and leave nothing behind.
 */
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
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

#include "leftovers.h"
#include "results_json.h"
#include "run_prog.h"

#define STALL_S 3

static char tmp[] = "/var/tmp/encbench-disturbed.XXXXXX";
static char out[PATH_MAX], ids_file[PATH_MAX];
static struct json_object *doc;
static int stops;

/* The last child any thread of pid has forked: the timed one. */
static pid_t child_of(pid_t pid)
{
	char path[64], buf[256];
	pid_t last = -1;
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		FILE *f;
		char p[128];

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "/proc/%d/task/%s/children", pid,
			 e->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		while (fscanf(f, "%255s", buf) == 1)
			last = atoi(buf);
		fclose(f);
	}
	if (d)
		closedir(d);
	return last;
}

/*
 * Whether pid has started its timed part: dd times from before its first
 * write(), so a write made means the clock runs (a child stopped before
 * it first runs would keep the stall out of its time). Polled for up to
 * 5 s; false if it exited first.
 */
static bool timing(pid_t pid)
{
	char path[64], key[32];
	unsigned long long v;

	snprintf(path, sizeof(path), "/proc/%d/io", pid);
	for (int i = 0; i < 5000; i++) {
		FILE *f = fopen(path, "r");
		bool wrote = false;

		if (!f)
			return false;
		while (fscanf(f, "%31s %llu", key, &v) == 2)
			wrote |= !strcmp(key, "syscw:") && v > 0;
		fclose(f);
		if (wrote)
			return true;
		usleep(1000);
	}
	return false;
}

static int setup(void **state)
{
	const char *const argv[] = {
		run_prog_bin(), "run", "--targets",    "plain",
		"-w",		"dd",  "-s",	       "128M",
		"-n",		"2",   "--trace-runs", "1",
		"--scratch",	tmp,   "--output",     out,
		"-q",		NULL};
	int status;
	pid_t pid;

	(void)state;
	if (run_prog_begin(tmp))
		return -1;
	run_prog_record_ids(tmp, ids_file);
	snprintf(out, sizeof(out), "%s/out", tmp);
	setenv("ENCBENCH_PAUSE_AT", "timing:plain", 1);
	pid = run_spawn(tmp, "run", NULL, NULL, argv);
	unsetenv("ENCBENCH_PAUSE_AT");
	while (waitpid(pid, &status, WUNTRACED) == pid && WIFSTOPPED(status)) {
		/* The first traced iteration's first timed child: stalled
		 * while it times itself. */
		if (!stops++) {
			pid_t c = child_of(pid);

			/* 128M: its write takes a while, it is still
			 * writing. */
			if (c <= 0 || !timing(c) || kill(c, SIGSTOP))
				fprintf(stderr, "# no timed child to stop\n");
			sleep(STALL_S);
			kill(c, SIGCONT);
		}
		kill(pid, SIGCONT);
	}
	doc = run_prog_results(
		tmp, "run", WIFEXITED(status) ? WEXITSTATUS(status) : 128, out);
	return doc ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	json_object_put(doc);
	/* After a failure too: nothing mounted under what is removed. */
	if (mounts_under(tmp) || loops_under(tmp))
		return -1;
	return remove_tree(tmp);
}

static double max_of(json_object *a)
{
	double m = 0;

	for (size_t i = 0; i < json_object_array_length(a); i++) {
		double v =
			json_object_get_double(json_object_array_get_idx(a, i));

		m = v > m ? v : m;
	}
	return m;
}

/* Two traced iterations ran, each stopping at both phases' children
 * (the write's, then the read's). */
static void test_traced_again(void **state)
{
	json_object *w = result_of(doc, "plain", "dd", "write_s");
	json_object *ti = get(w, "traced_iterations");

	(void)state;
	fprintf(stderr, "# write_s untraced %s, traced %s (iterations %s)\n",
		json_object_to_json_string(get(w, "samples")),
		json_object_to_json_string(get(w, "traced_samples")),
		json_object_to_json_string(ti));
	assert_int_equal(stops, 4);
	/* The untraced 1 and 4 are the figures; 3 is the traced one kept. */
	assert_int_equal(json_object_array_length(get(w, "iterations")), 2);
	assert_int_equal(json_object_array_length(ti), 1);
	assert_int_equal(json_object_get_int(json_object_array_get_idx(ti, 0)),
			 3);
	/* The stalled one is not what was kept. */
	assert_true(max_of(get(w, "traced_samples")) <
		    max_of(get(w, "samples")) + STALL_S / 2.0);
}

static void test_said(void **state)
{
	(void)state;
	assert_int_equal(notes_with(doc, "dd: traced iteration 2 took"), 1);
	assert_int_equal(notes_with(doc, "the worst untraced one's write_s"),
			 1);
	assert_int_equal(notes_with(doc, "set aside and traced again"), 1);
	assert_int_equal(notes_with(doc, "kept, as the one set aside"), 0);
	assert_non_null(strstr(run_output(tmp, "run", "stderr"),
			       "[plain] dd: traced iteration 2 took"));
}

/* One snapshot, the kept iteration's; one cost entry. */
static void test_one_snapshot(void **state)
{
	(void)state;
	assert_int_equal(snapshot_files(out), 1);
	assert_int_equal(json_object_array_length(get(doc, "tracer_costs")), 1);
}

static void test_nothing_left(void **state)
{
	struct bpf_id ids[MAX_BPF_IDS];
	int n = bpf_ids_from_file(ids_file, ids, MAX_BPF_IDS);

	(void)state;
	assert_true(n > 0);
	assert_int_equal(leftovers(tmp, ids, n), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_traced_again),
		cmocka_unit_test(test_said),
		cmocka_unit_test(test_one_snapshot),
		cmocka_unit_test(test_nothing_left),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	if (geteuid()) {
		printf("1..0 # SKIP needs root\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
