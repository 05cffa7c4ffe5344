// SPDX-License-Identifier: MIT
/*
 * The server workloads (pgbench, nginx) through the real program, as
 * root, with real BPF, for a few seconds on plain and fscrypt: their
 * figures agree with each other (TPS with the transactions done in T
 * seconds and with the latency, requests/s with wrk's request count);
 * the tracer follows the servers' processes (the client is not traced);
 * and no server process, private folder, socket or port is left, whether
 * the run ends or is interrupted -- checked by the pids, folders and ports
 * the program recorded as it made them (ENCBENCH_SERVERS_FILE), never by
 * process name: other tests run servers too.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "leftovers.h"
#include "results_json.h"
#include "run_prog.h"

#define PG_SECONDS    2
#define PG_CLIENTS    2
#define NGINX_SECONDS 2

static char tmp[] = "/var/tmp/encbench-srvtest.XXXXXX";
static char ids_file[PATH_MAX], servers_file[PATH_MAX];
static const char *bin;
static struct json_object *results;

static int run_in(const char *out, const char *const *extra, int n)
{
	return run_prog_run(tmp, out, extra, n);
}

static int setup(void **state)
{
	static const char *const args[] = {
		"-w",
		"pgbench,nginx",
		"-t",
		"plain,fscrypt",
		"-n",
		"2",
		"--pgbench-seconds",
		"2", /* PG_SECONDS */
		"--pgbench-clients",
		"2", /* PG_CLIENTS */
		"--pgbench-threads",
		"1",
		"--nginx-seconds",
		"2", /* NGINX_SECONDS */
		"--nginx-files",
		"20",
		"--nginx-file-size",
		"8k",
	};
	char out[PATH_MAX];

	(void)state;
	if (run_prog_begin(tmp))
		return -1;
	/* The servers run as postgres and www-data: they must reach the
	 * targets mounted below (mkdtemp made it 0700). */
	chmod(tmp, 0711);
	bin = run_prog_bin();
	run_prog_record_ids(tmp, ids_file);
	snprintf(servers_file, sizeof(servers_file), "%s/servers", tmp);
	setenv("ENCBENCH_SERVERS_FILE", servers_file, 1);
	snprintf(out, sizeof(out), "%s/all", tmp);
	results = run_prog_results(
		tmp, "run", run_in(out, args, sizeof(args) / sizeof(args[0])),
		out);
	return results ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	json_object_put(results);
	return remove_tree(tmp);
}

static double sample(struct json_object *r, size_t k)
{
	struct json_object *s = get(r, "samples");

	assert_int_equal(json_object_array_length(s), 2);
	return json_object_get_double(json_object_array_get_idx(s, k));
}

static void assert_near(double a, double b, double rel)
{
	if (fabs(a - b) > rel * fabs(b))
		fail_msg("%g is not within %.0f %% of %g", a, 100 * rel, b);
}

/* The timed child's elapsed time of run k (rusage.runs in results.json). */
static double real_s(struct json_object *r, size_t k)
{
	struct json_object *runs = get(get(get(r, "rusage"), "runs"), "real_s");

	return json_object_get_double(json_object_array_get_idx(runs, k));
}

/* TPS > 0; pgbench's transactions over its run time give its TPS; with
 * every client always busy, latency = clients / TPS. Per run. */
static void test_pgbench_figures(void **state)
{
	static const char *const targets[] = {"plain", "fscrypt"};

	(void)state;
	for (size_t t = 0; t < 2; t++) {
		struct json_object *tps =
			result_of(results, targets[t], "pgbench", "tps");
		struct json_object *lat =
			result_of(results, targets[t], "pgbench", "latency_ms");
		struct json_object *txn = result_of(results, targets[t],
						    "pgbench", "transactions");

		assert_true(
			json_object_get_boolean(get(tps, "higher_is_better")));
		assert_false(
			json_object_get_boolean(get(lat, "higher_is_better")));
		for (size_t k = 0; k < 2; k++) {
			double n = sample(txn, k), v = sample(tps, k);

			assert_true(v > 0);
			assert_true(n >= 1);
			/* pgbench runs T seconds, at most the child's elapsed
			 * time, and its tps leaves out the clients' connection
			 * time (a fraction of T: 25 % allowed). */
			if (v < 0.99 * n / real_s(txn, k) ||
			    v > 1.25 * n / PG_SECONDS)
				fail_msg(
					"%g tps is not between %g transactions "
					"/ %g s and 1.25 x / %d s",
					v, n, real_s(txn, k), PG_SECONDS);
			assert_near(sample(tps, k) * sample(lat, k) / 1000.0,
				    PG_CLIENTS, 0.2);
		}
		assert_true(json_object_get_int(
				    get(get(tps, "cpu"), "samples")) >= 2);
	}
}

/* requests/s is wrk's request count over wrk's own run time, which is at
 * least -d and at most the timed child's elapsed time: per run, between
 * requests / elapsed and requests / -d (1 % for wrk's rounding). */
static void test_nginx_figures(void **state)
{
	static const char *const targets[] = {"plain", "fscrypt"};

	(void)state;
	for (size_t t = 0; t < 2; t++) {
		struct json_object *rps = result_of(results, targets[t],
						    "nginx", "requests_per_s");
		struct json_object *req =
			result_of(results, targets[t], "nginx", "requests");

		assert_true(
			json_object_get_boolean(get(rps, "higher_is_better")));
		for (size_t k = 0; k < 2; k++) {
			double n = sample(req, k), v = sample(rps, k);

			assert_true(n >= 1);
			if (v < 0.99 * n / real_s(req, k) ||
			    v > 1.01 * n / NGINX_SECONDS)
				fail_msg("%g requests/s is not between %g "
					 "requests / %g s and / %d s",
					 v, n, real_s(req, k), NGINX_SECONDS);
		}
	}
}

/* Syscalls of one workload's op on plain, as the tracer counted them. */
static uint64_t syscalls(const char *workload, const char *op)
{
	struct json_object *att = get(results, "attribution");

	for (size_t i = 0; i < json_object_array_length(att); i++) {
		struct json_object *a = json_object_array_get_idx(att, i);
		struct json_object *ls;

		if (strcmp(json_object_get_string(get(a, "target")), "plain") ||
		    strcmp(json_object_get_string(get(a, "workload")),
			   workload) ||
		    strcmp(json_object_get_string(get(a, "op")), op))
			continue;
		ls = get(a, "layers");
		for (size_t j = 0; j < json_object_array_length(ls); j++) {
			struct json_object *l =
				json_object_array_get_idx(ls, j);

			if (!strcmp(json_object_get_string(get(l, "layer")),
				    "syscall"))
				return json_object_get_int64(get(l, "count"));
		}
	}
	return 0;
}

/*
 * The clients are not traced, the servers are, in every traced iteration
 * (the tracer forgets every process when it detaches after one; run
 * follows the servers again, with what they forked meanwhile, at each
 * attach): PostgreSQL's backends
 * fsync (pgbench itself only talks to a socket, with send/recv, which
 * are not counted), nginx's workers sendfile (wrk never does), and wrk's
 * socket read() per response would outnumber the requests if it were
 * traced (nginx reads requests with recv).
 */
/* The requests wrk made in the traced iterations of nginx on target:
 * those whose syscalls the attribution counts. */
static double traced_requests(const char *target)
{
	struct json_object *t =
		get(result_of(results, target, "nginx", "requests"),
		    "traced_samples");
	double sum = 0;

	assert_true(json_object_array_length(t) > 0);
	for (size_t i = 0; i < json_object_array_length(t); i++)
		sum += json_object_get_double(json_object_array_get_idx(t, i));
	return sum;
}

static void test_servers_traced(void **state)
{
	double requests = traced_requests("plain");

	(void)state;
	fprintf(stderr,
		"# traced: pgbench sync %llu, write %llu; nginx copy %llu, "
		"read %llu for %.0f requests\n",
		(unsigned long long)syscalls("pgbench", "sync"),
		(unsigned long long)syscalls("pgbench", "write"),
		(unsigned long long)syscalls("nginx", "copy"),
		(unsigned long long)syscalls("nginx", "read"), requests);
	assert_true(syscalls("pgbench", "sync") > 0);
	assert_true(syscalls("pgbench", "write") > 0);
	assert_true(syscalls("nginx", "copy") > 0);
	assert_true((double)syscalls("nginx", "read") < requests / 10);
}

/* Does some process belong to session sid (a server's, or its children)? */
static bool session_alive(pid_t sid)
{
	struct dirent *de;
	DIR *d = opendir("/proc");
	bool found = false;

	while (d && !found && (de = readdir(d))) {
		char path[300], buf[1024], *p;
		int s = 0;
		FILE *f;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		/* pid (comm) state ppid pgrp session: comm may hold ')'. */
		if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) &&
		    sscanf(p + 1, " %*c %*d %*d %d", &s) == 1 && s == sid)
			found = true;
		fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

static bool port_listening(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool ok;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = !connect(fd, (struct sockaddr *)&a, sizeof(a));
	close(fd);
	return ok;
}

/* What the servers file names that still exists; how many servers it
 * names in *nr_pids. */
static int servers_left(const char *path, int *nr_pids)
{
	char what[16], value[PATH_MAX];
	int left = 0, pids = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fscanf(f, "%15s %4095s", what, value) == 2) {
		if (!strcmp(what, "pid")) {
			pids++;
			if (session_alive(atoi(value))) {
				fprintf(stderr, "# session %s alive\n", value);
				left++;
			}
		} else if (!strcmp(what, "dir") && !access(value, F_OK)) {
			fprintf(stderr, "# %s left\n", value);
			left++;
		} else if (!strcmp(what, "port") &&
			   port_listening(atoi(value))) {
			fprintf(stderr, "# port %s listening\n", value);
			left++;
		}
	}
	fclose(f);
	*nr_pids = pids;
	return left;
}

static void test_nothing_left(void **state)
{
	int pids = 0;

	(void)state;
	assert_int_equal(servers_left(servers_file, &pids), 0);
	/* A server per workload and target. */
	assert_int_equal(pids, 4);
	assert_int_equal(leftovers_recorded(tmp, ids_file), 0);
}

/* Ctrl-C while the workload's client runs: exit 130, nothing left. */
static void interrupt(const char *workload, const char *const *opts)
{
	char out[PATH_MAX], file[PATH_MAX], text[4096] = "";
	const char *argv[24] = {bin,  "run", "--scratch", tmp,	"--output",
				out,  "-t",  "plain",	  "-w", workload,
				"-n", "3",   "--verbose"};
	int argc = 13, pids = 0;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/int-%s", tmp, workload);
	snprintf(file, sizeof(file), "%s/servers-%s", tmp, workload);
	setenv("ENCBENCH_SERVERS_FILE", file, 1);
	for (int i = 0; opts[i]; i++)
		argv[argc++] = opts[i];
	argv[argc] = NULL;
	pid = run_spawn(tmp, "int", NULL, NULL, argv);
	/* Until the first iteration is reported (stderr, --verbose): of 5,
	 * the 3 untraced ones and --trace-runs' default 2 traced ones. */
	for (int i = 0; i < 1200 && !strstr(text, " 1/5:"); i++) {
		usleep(50000);
		snprintf(text, sizeof(text), "%s",
			 run_output(tmp, "int", "stderr"));
	}
	assert_non_null(strstr(text, " 1/5:"));
	usleep(500000); /* into the second */
	kill(pid, SIGINT);
	assert_int_equal(run_reap(pid), 130);
	assert_int_equal(servers_left(file, &pids), 0);
	assert_int_equal(pids, 1);
	assert_int_equal(mounts_under(tmp) + loops_under(tmp) +
				 scratch_dirs_under(tmp),
			 0);
	assert_int_not_equal(access(out, F_OK), 0);
}

static void test_interrupt_pgbench(void **state)
{
	static const char *const opts[] = {"--pgbench-seconds", "3", NULL};

	(void)state;
	interrupt("pgbench", opts);
}

static void test_interrupt_nginx(void **state)
{
	static const char *const opts[] = {"--nginx-seconds", "3", NULL};

	(void)state;
	interrupt("nginx", opts);
}

/* A server that cannot reach the target (a folder above it is 0700):
 * "not applicable" with the reason, the run goes on, nothing started. */
static void test_not_applicable(void **state)
{
	static const char *const w[] = {"pgbench", "nginx"};
	char closed[PATH_MAX], out[PATH_MAX], file[PATH_MAX];
	const char *argv[16] = {bin,	    "run", "--scratch", closed,
				"--output", out,   "-t",	"plain",
				"-w",	    NULL,  "--no-trace"};
	int pids = 0;

	(void)state;
	snprintf(closed, sizeof(closed), "%s/closed", tmp);
	assert_int_equal(mkdir(closed, 0700), 0);
	for (size_t i = 0; i < 2; i++) {
		const char *err;

		snprintf(out, sizeof(out), "%s/na-%s", tmp, w[i]);
		snprintf(file, sizeof(file), "%s/servers-na-%s", tmp, w[i]);
		setenv("ENCBENCH_SERVERS_FILE", file, 1);
		argv[9] = w[i];
		assert_int_equal(
			run_reap(run_spawn(tmp, "na", NULL, NULL, argv)), 0);
		err = run_output(tmp, "na", "stderr");
		if (!strstr(err, "not applicable: user ") ||
		    !strstr(err, "cannot reach"))
			fail_msg("%s: no reason given:\n%s", w[i], err);
		/* Nothing was started, so nothing recorded. */
		assert_int_equal(servers_left(file, &pids), -1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pgbench_figures),
		cmocka_unit_test(test_nginx_figures),
		cmocka_unit_test(test_servers_traced),
		cmocka_unit_test(test_nothing_left),
		cmocka_unit_test(test_interrupt_pgbench),
		cmocka_unit_test(test_interrupt_nginx),
		cmocka_unit_test(test_not_applicable),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
