// SPDX-License-Identifier: MIT
/*
 * Runs INSIDE the VM guest (dm-crypt exists there): fio's QD4 random
 * 4 KiB reads with libaio and with io_uring on plain and LUKS2, attributed
 * per I/O (io_uring on 6.1 came out 22-25 % below fio's clat on plain
 * before its CQEs' wait to be reaped was counted; 2026-12-04: -1.2 % plain,
 * +4.0 % LUKS2, BENCHMARKS.md). On both
 * targets the layers' sum per I/O agrees with fio's own clat mean within 10 %;
 * LUKS2's verdict is on the completion latency it adds over plain and names
 * kcryptd's share (its queue and its work), and LUKS2's I/Os pass through
 * kcryptd (crypt-queue and crypt in their split).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "../results_json.h"

#define WHY_LEN 512

static char tmp[] = "/var/tmp/encbench-vmaio.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[sizeof(tmp) + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	return system(cmd) ? -1 : 0;
}

static double num(struct json_object *o, const char *k)
{
	return json_object_get_double(get(o, k));
}

static json_object *run_engine(const char *engine, int attempt)
{
	const char *bin = getenv("ENCBENCH_BIN") ?: "./encbench-trace";
	char out[sizeof(tmp) + 24], path[sizeof(tmp) + 40];
	const char *argv[] = {bin,	     "run",
			      "--quiet",     "--scratch",
			      tmp,	     "--output",
			      out,	     "--targets",
			      "plain,luks2", "-w",
			      "fio",	     "--runs",
			      "1",	     "--fio-rw",
			      "randread",    "--fio-bs",
			      "4k",	     "--fio-engine",
			      engine,	     "--fio-iodepth",
			      "4",	     "--fio-runtime",
			      "3",	     "--fio-size",
			      "32M",	     "--size",
			      "64M",	     NULL};
	pid_t pid;
	int status;

	snprintf(out, sizeof(out), "%s/%s-%d", tmp, engine, attempt);
	pid = fork();
	if (pid == 0) {
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	/* How it ended, for the failure's message: a 6.12 guest's io_uring
	 * runs failed twice with nothing on stderr (2026-12-06). */
	if (WIFSIGNALED(status))
		fprintf(stderr, "# run %s: killed by signal %d\n", engine,
			WTERMSIG(status));
	else if (WEXITSTATUS(status))
		fprintf(stderr, "# run %s: exit status %d\n", engine,
			WEXITSTATUS(status));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return NULL;
	snprintf(path, sizeof(path), "%s/results.json", out);
	return json_object_from_file(path);
}

/* Each check says what failed, in why, and returns false. */
static bool why(char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, WHY_LEN, fmt, ap);
	va_end(ap);
	return false;
}

static bool check_clat(json_object *doc, const char *target, const char *engine,
		       char *buf)
{
	json_object *aio = get(attrib_of(doc, target, "read"), "aio");

	fprintf(stderr,
		"# %s %s: %.0f I/Os (%.0f unlinked, %.0f in their call, "
		"%.0f dropped), layers %.1f us, fio's clat %.1f us "
		"(%+.1f %%)\n",
		target, engine, num(aio, "ios"), num(aio, "unlinked"),
		num(aio, "in_call"), num(aio, "dropped"),
		num(aio, "clat_ns") / 1e3, num(aio, "fio_clat_us"),
		num(aio, "fio_diff_pct"));
	if (num(aio, "ios") <= 100)
		return why(buf, "%s %s: %.0f I/Os followed", target, engine,
			   num(aio, "ios"));
	if (num(aio, "fio_clat_us") <= 0)
		return why(buf, "%s %s: no fio clat", target, engine);
	if (fabs(num(aio, "fio_diff_pct")) > 10)
		return why(buf,
			   "%s %s: layers %.1f us against fio's clat %.1f us",
			   target, engine, num(aio, "clat_ns") / 1e3,
			   num(aio, "fio_clat_us"));
	return true;
}

static bool engine_try(const char *engine, int attempt, char *buf)
{
	json_object *doc = run_engine(engine, attempt), *aio, *cl;
	const char *summary;
	bool ok = false;

	if (!doc)
		return why(buf, "run %s failed, or wrote no results.json",
			   engine);
	if (!check_clat(doc, "plain", engine, buf) ||
	    !check_clat(doc, "luks2", engine, buf))
		goto out;
	aio = get(attrib_of(doc, "luks2", "read"), "aio");
	cl = get(aio, "clat_layers_ns");
	/* Each read is decrypted by kcryptd after its device completes. */
	if (num(cl, "crypt") <= 0 || num(cl, "crypt-queue") <= 0) {
		why(buf, "luks2 %s: crypt %.0f ns, crypt-queue %.0f ns", engine,
		    num(cl, "crypt"), num(cl, "crypt-queue"));
		goto out;
	}
	summary = json_object_get_string(
		get(verdict_of(doc, "luks2", "read"), "summary"));
	fprintf(stderr, "# luks2 %s: %s\n", engine, summary);
	/* One untraced iteration each under TCG: on a host busy with other
	 * work plain's can come out the slower (seen 2026-12-02: 2.79 ms
	 * against luks2's 1.52), and then there is no added time to explain;
	 * the verdict must say so, and otherwise name kcryptd's parts. */
	if (!strstr(summary, "completion latency")) {
		why(buf, "luks2 %s verdict: %s", engine, summary);
		goto out;
	}
	if (strstr(summary, "less than plain's")) {
		double plain = num(get(attrib_of(doc, "plain", "read"), "aio"),
				   "clat_ns");

		if (plain < 0.9 * num(aio, "clat_ns")) {
			why(buf,
			    "luks2 %s: 'less than plain's' but %.0f ns "
			    "against plain's %.0f",
			    engine, num(aio, "clat_ns"), plain);
			goto out;
		}
	} else if (!strstr(summary, "more than plain's") ||
		   !strstr(summary, "kcryptd's queue") ||
		   !strstr(summary, "kcryptd's work")) {
		why(buf, "luks2 %s verdict: %s", engine, summary);
		goto out;
	}
	ok = true;
out:
	json_object_put(doc);
	return ok;
}

/*
 * Twice at most: under TCG on a shared host one 3-second traced pair can
 * miss a bound the other runs on record meet (CI, 2026-12-04, 6.1: one
 * failure, its message lost to CI's excerpt; LUKS2's libaio layers sit
 * +3 to +6 % over fio's clat in seven runs here). The first attempt's
 * failure is printed; the second must pass.
 */
static void engine_case(const char *engine)
{
	char buf[WHY_LEN];

	if (engine_try(engine, 1, buf))
		return;
	fprintf(stderr, "# first attempt failed: %s; once more\n", buf);
	if (!engine_try(engine, 2, buf))
		fail_msg("%s", buf);
}

static void test_libaio(void **state)
{
	(void)state;
	engine_case("libaio");
}

static void test_io_uring(void **state)
{
	(void)state;
	engine_case("io_uring");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libaio),
		cmocka_unit_test(test_io_uring),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
