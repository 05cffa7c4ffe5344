// SPDX-License-Identifier: MIT
/*
 * Why the writer blocked, checked against a truth the program did not
 * compute: while `run --targets fscrypt --workloads dd --size 128M --runs
 * 3` runs, this test samples dd's writer (the program's workload child)
 * every 2 ms from /proc
 * -- in which syscall it is (/proc/PID/syscall), whether it is blocked
 * (state S or D in /proc/PID/stat) and its kernel stack (/proc/PID/stack)
 * -- and tallies the blocked samples of its write() calls by the reason
 * the stack shows. The program's reasons (results.json wait.why_blocked,
 * from its own stacks taken at sched_switch in BPF) must give the same
 * largest reason, with a share within 10 points of the sampled one, and
 * the write verdict must then tell the wait for writeback and what
 * writeback spent its time on.
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "results_json.h"
#include "run_prog.h"
#include "workload_child.h"

/* The reasons this test tells apart by itself, from the stack's text. */
enum seen {
	SEEN_FREE_SPACE,
	SEEN_DIRTY,
	SEEN_FOLIO_WB,
	SEEN_JOURNAL,
	SEEN_WB_WORK,
	SEEN_OTHER,
	NR_SEEN
};

/* results.json's key of each. */
static const char *const seen_key[NR_SEEN] = {
	"free_space", "dirty_throttle", "folio_writeback",
	"journal",    "writeback_work", "other",
};

static char tmp[] = "/var/tmp/encbench-whytest.XXXXXX";
static struct json_object *doc;
/* Blocked samples of dd inside write(), by reason. */
static uint64_t seen[NR_SEEN], seen_all;

static enum seen reason_of(const char *stack)
{
	if (strstr(stack, "ext4_nonda_switch"))
		return SEEN_FREE_SPACE;
	if (strstr(stack, "balance_dirty_pages"))
		return SEEN_DIRTY;
	if (strstr(stack, "jbd2_log_wait_commit"))
		return SEEN_JOURNAL;
	if (strstr(stack, "folio_wait_writeback"))
		return SEEN_FOLIO_WB;
	if (strstr(stack, "wb_wait_for_completion"))
		return SEEN_WB_WORK;
	return SEEN_OTHER;
}

/* One look at dd: blocked inside write()? Then why. */
static void sample(pid_t dd)
{
	char path[64], buf[4096], *p;
	long nr;

	snprintf(path, sizeof(path), "/proc/%d/syscall", dd);
	if (!proc_read(path, buf, sizeof(buf)) || !isdigit(buf[0]))
		return;
	nr = strtol(buf, NULL, 10);
	if (nr != SYS_write)
		return;
	snprintf(path, sizeof(path), "/proc/%d/stat", dd);
	if (!proc_read(path, buf, sizeof(buf)) || !(p = strrchr(buf, ')')))
		return;
	if (p[2] != 'S' && p[2] != 'D')
		return;
	snprintf(path, sizeof(path), "/proc/%d/stack", dd);
	if (!proc_read(path, buf, sizeof(buf)))
		return;
	seen[reason_of(buf)]++;
	seen_all++;
}

static int setup(void **state)
{
	const char *bin = run_prog_bin();
	struct timespec nap = {0, 2000000};
	char out[PATH_MAX], path[PATH_MAX + 16], log[PATH_MAX + 16];
	pid_t pid, dd = 0;
	int status;

	(void)state;
	if (run_prog_begin(tmp))
		return -1;
	snprintf(out, sizeof(out), "%s/run", tmp);
	snprintf(log, sizeof(log), "%s.log", out);
	pid = fork();
	if (pid == 0) {
		if (!freopen(log, "w", stdout) || !freopen(log, "a", stderr))
			_exit(97);
		/* The room of the old sizing (128M x 1.25 + 64M), so that the
		 * writer does block (ext4's free-space path): the default room
		 * since 16d480d keeps write() from blocking at all, and there
		 * would be no reason to compare. */
		execl(bin, bin, "run", "--targets", "fscrypt", "--workloads",
		      "dd", "--size", "128M", "--room", "224M", "--runs", "3",
		      "--scratch", tmp, "--output", out, "-q", (char *)NULL);
		_exit(98);
	}
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		char p[64];

		snprintf(p, sizeof(p), "/proc/%d", dd);
		if (!dd || access(p, F_OK))
			dd = proc_workload_child(pid);
		if (dd)
			sample(dd);
		nanosleep(&nap, NULL);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "# run failed, see %s\n", log);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/results.json", out);
	doc = json_object_from_file(path);
	return doc ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	json_object_put(doc);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	return system(cmd) ? -1 : 0;
}

static uint64_t u64(struct json_object *o, const char *k)
{
	return json_object_get_uint64(get(o, k));
}

static void test_reasons_agree(void **state)
{
	struct json_object *why = get(
		get(attrib_of(doc, "fscrypt", "write"), "wait"), "why_blocked");
	struct json_object *ns = get(why, "ns");
	double prog[NR_SEEN] = {0}, all = 0, ind;
	int top_ind = 0, top_prog = 0;

	(void)state;
	json_object_object_foreach(ns, key, val)
	{
		int k = NR_SEEN - 1;

		for (int i = 0; i < NR_SEEN; i++)
			if (!strcmp(key, seen_key[i]))
				k = i;
		prog[k] += (double)json_object_get_uint64(val);
		all += (double)json_object_get_uint64(val);
	}
	all += (double)u64(why, "nostack_ns") + (double)u64(why, "short_ns");
	assert_true(all > 0);
	/* Enough samples for the shares to mean something: 100 give a
	 * binomial error under 5 points. */
	fprintf(stderr, "# %llu blocked samples of dd in write()\n",
		(unsigned long long)seen_all);
	assert_true(seen_all >= 100);
	for (int i = 0; i < NR_SEEN; i++) {
		fprintf(stderr,
			"# %-16s sampled %5.1f %%, the program %5.1f %%\n",
			seen_key[i], 100.0 * (double)seen[i] / (double)seen_all,
			100.0 * prog[i] / all);
		if (seen[i] > seen[top_ind])
			top_ind = i;
		if (prog[i] > prog[top_prog])
			top_prog = i;
	}
	assert_int_equal(top_prog, top_ind);
	ind = 100.0 * (double)seen[top_ind] / (double)seen_all;
	assert_true(100.0 * prog[top_prog] / all > ind - 10.0);
	assert_true(100.0 * prog[top_prog] / all < ind + 10.0);
}

/* Where the writer waits for writeback (ext4's free-space path, dirty
 * throttling), the verdict says so and what writeback did. */
static void test_write_verdict(void **state)
{
	struct json_object *vs = get(doc, "verdicts");
	const char *s = NULL;

	(void)state;
	if (seen[SEEN_FREE_SPACE] + seen[SEEN_DIRTY] + seen[SEEN_WB_WORK] <
	    seen_all / 2)
		skip();
	for (size_t i = 0; i < json_object_array_length(vs); i++) {
		struct json_object *v = json_object_array_get_idx(vs, i);

		if (!strcmp(json_object_get_string(get(v, "target")),
			    "fscrypt") &&
		    !strcmp(json_object_get_string(get(v, "op")), "write"))
			s = json_object_get_string(get(v, "summary"));
	}
	assert_non_null(s);
	fprintf(stderr, "# %s\n", s);
	assert_non_null(strstr(s, "for writeback"));
	assert_non_null(strstr(s, "of its time encrypting"));
	assert_null(strstr(s, "file system (page cache"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reasons_agree),
		cmocka_unit_test(test_write_verdict),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
