// SPDX-License-Identifier: MIT
/*
 * A writer runnable behind the target's writeback workers, made so on
 * purpose: the writeback workqueue is held to CPU 0
 * (/sys/devices/virtual/workqueue/writeback/cpumask, put back after),
 * the program and its dd run on CPU 0 too, and a sync(2) every 20 ms
 * keeps the flusher encrypting while dd writes. CI's run of test_why had
 * it by chance (the flusher held dd's CPU for 5.81 ms of a 15.4 ms MiB)
 * and the write verdict named CPU contention instead of writeback.
 *
 * The checks:
 * - the share of write() time dd spent runnable, from the kernel's own
 *   run-queue delay (/proc/PID/schedstat) from the first look every 2 ms
 *   that saw dd write (/proc/PID/io) to the last, against the program's
 *   cpu-wait share of write time: within 15 points;
 * - of the program's cpu-wait behind other tasks, at least 80 % is told
 *   as behind the target's writeback workers (nothing else was put on
 *   CPU 0), and the write verdict's evidence says so.
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
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

#define WB_CPUMASK "/sys/devices/virtual/workqueue/writeback/cpumask"

static char tmp[] = "/var/tmp/encbench-wbbehind.XXXXXX";
/* The writeback workqueue's cpumask as found, to put back. */
static char saved_mask[64];

static bool write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");
	bool ok;

	if (!f)
		return false;
	ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok;
}

static void restore_mask(void)
{
	if (saved_mask[0] && write_text(WB_CPUMASK, saved_mask))
		saved_mask[0] = '\0';
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* dd's bytes written so far (/proc/PID/io wchar) and its run-queue
 * delay so far (/proc/PID/schedstat's second field). /proc/PID/syscall
 * cannot tell a runnable task's call: it says "running". */
static bool look(pid_t dd, uint64_t *wchar, uint64_t *delay)
{
	char path[64], buf[512], *p;
	unsigned long long run, wait, wc;

	snprintf(path, sizeof(path), "/proc/%d/io", dd);
	if (!proc_read(path, buf, sizeof(buf)) ||
	    !(p = strstr(buf, "wchar:")) || sscanf(p + 6, "%llu", &wc) != 1)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/schedstat", dd);
	if (!proc_read(path, buf, sizeof(buf)) ||
	    sscanf(buf, "%llu %llu", &run, &wait) != 2)
		return false;
	*wchar = wc;
	*delay = wait;
	return true;
}

/* One dd's writing: its first and last look that saw it write. */
struct phase {
	bool seen;
	uint64_t t0, d0, t1, d1;
};

static void phase_look(struct phase *ph, uint64_t t, uint64_t delay)
{
	if (!ph->seen) {
		ph->seen = true;
		ph->t0 = t;
		ph->d0 = delay;
	}
	ph->t1 = t;
	ph->d1 = delay;
}

static void phase_end(struct phase *ph, uint64_t *runq, uint64_t *span)
{
	if (ph->seen && ph->t1 > ph->t0 && ph->d1 >= ph->d0) {
		*runq += ph->d1 - ph->d0;
		*span += ph->t1 - ph->t0;
	}
	ph->seen = false;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	restore_mask();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	return system(cmd) ? -1 : 0;
}

static void test_writer_behind_the_flusher(void **state)
{
	const char *bin = run_prog_bin();
	struct timespec nap = {0, 2000000};
	char out[PATH_MAX], log[PATH_MAX + 16], path[PATH_MAX + 16];
	uint64_t delay, runq = 0, span = 0, wchar, last_wchar = 0;
	struct phase ph = {0};
	struct json_object *doc, *attr, *w = NULL, *vs;
	double sampled, prog, other, wb;
	bool said = false;
	pid_t pid, syncer, dd = 0, last_dd = 0;
	int status;

	(void)state;
	if (!proc_read(WB_CPUMASK, saved_mask, sizeof(saved_mask)))
		skip();
	assert_int_equal(run_prog_begin(tmp), 0);
	assert_true(write_text(WB_CPUMASK, "1"));
	snprintf(out, sizeof(out), "%s/run", tmp);
	snprintf(log, sizeof(log), "%s.log", out);
	syncer = fork();
	if (syncer == 0) {
		struct timespec t = {0, 20000000};

		for (;;) {
			sync();
			nanosleep(&t, NULL);
		}
	}
	pid = fork();
	if (pid == 0) {
		cpu_set_t cpu0;

		CPU_ZERO(&cpu0);
		CPU_SET(0, &cpu0);
		if (sched_setaffinity(0, sizeof(cpu0), &cpu0) ||
		    !freopen(log, "w", stdout) || !freopen(log, "a", stderr))
			_exit(97);
		execl(bin, bin, "run", "--targets", "fscrypt", "--workloads",
		      "dd", "--size", "256M", "--runs", "2", "--scratch", tmp,
		      "--output", out, "-q", (char *)NULL);
		_exit(98);
	}
	while (pid > 0 && waitpid(pid, &status, WNOHANG) == 0) {
		char p[64];
		uint64_t t = now_ns();

		snprintf(p, sizeof(p), "/proc/%d", dd);
		if (!dd || access(p, F_OK))
			dd = proc_workload_child(pid);
		/* Each dd's writing, from the first look that saw it write
		 * to the last: its run-queue delay over that time (dd writes
		 * back to back; its fsync and reads write nothing). The
		 * kernel adds a wait to the delay as it ends, so the ends
		 * are off by a wait at most. */
		if (dd && dd != last_dd) {
			phase_end(&ph, &runq, &span);
			last_dd = dd;
			last_wchar = 0;
		}
		if (dd && look(dd, &wchar, &delay)) {
			if (wchar > last_wchar)
				phase_look(&ph, t, delay);
			last_wchar = wchar;
		}
		nanosleep(&nap, NULL);
	}
	phase_end(&ph, &runq, &span);
	kill(syncer, SIGKILL);
	waitpid(syncer, NULL, 0);
	restore_mask();
	assert_true(pid > 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_msg("run failed, see %s", log);
	snprintf(path, sizeof(path), "%s/results.json", out);
	doc = json_object_from_file(path);
	assert_non_null(doc);
	attr = get(doc, "attribution");
	for (size_t i = 0; i < json_object_array_length(attr); i++) {
		struct json_object *a = json_object_array_get_idx(attr, i);

		if (!strcmp(json_object_get_string(get(a, "op")), "write"))
			w = get(a, "wait");
	}
	assert_non_null(w);
	assert_true(span > 0);
	sampled = 100.0 * (double)runq / (double)span;
	prog = 100.0 *
	       (double)json_object_get_uint64(get(get(w, "ns"), "cpu-wait")) /
	       (double)json_object_get_uint64(get(w, "total_ns"));
	other = (double)json_object_get_uint64(
		get(get(get(w, "cpu_wait_behind"), "other"), "ns"));
	wb = (double)json_object_get_uint64(
		get(get(w, "cpu_wait_behind_writeback"), "ns"));
	fprintf(stderr,
		"# write(): runnable %.1f %% by schedstat (%.2f of %.2f s "
		"sampled), %.1f %% by the program; behind writeback's workers "
		"%.0f of %.0f ms behind other tasks\n",
		sampled, (double)runq / 1e9, (double)span / 1e9, prog, wb / 1e6,
		other / 1e6);
	/* Waiting behind the flusher at all: the setting worked. */
	assert_true(sampled > 20.0);
	assert_true(prog > sampled - 15.0 && prog < sampled + 15.0);
	assert_true(wb >= 0.8 * other);
	vs = get(doc, "verdicts");
	for (size_t i = 0; i < json_object_array_length(vs); i++) {
		struct json_object *v = json_object_array_get_idx(vs, i);
		struct json_object *ev = get(v, "evidence");

		if (strcmp(json_object_get_string(get(v, "op")), "write"))
			continue;
		for (size_t k = 0; k < json_object_array_length(ev); k++) {
			struct json_object *e =
				json_object_array_get_idx(ev, k);

			said |= strstr(json_object_get_string(e),
				       "writeback's workers") != NULL;
		}
	}
	assert_true(said);
	json_object_put(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writer_behind_the_flusher),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, teardown);
}
