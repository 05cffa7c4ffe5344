// SPDX-License-Identifier: MIT
/* Argument parsing: sizes, durations, lists, and one-line errors (exit 2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli/args.h"
#include "common/parse.h"
#include "workload/workload.h"

static void test_parse_size(void **state)
{
	(void)state;
	assert_int_equal(parse_size("4096"), 4096);
	assert_int_equal(parse_size("64M"), 64LL << 20);
	assert_int_equal(parse_size("64m"), 64LL << 20);
	assert_int_equal(parse_size("64MiB"), 64LL << 20);
	assert_int_equal(parse_size("2G"), 2LL << 30);
	assert_int_equal(parse_size("512k"), 512LL << 10);
	assert_int_equal(parse_size(""), -1);
	assert_int_equal(parse_size("abc"), -1);
	assert_int_equal(parse_size("-5M"), -1);
	assert_int_equal(parse_size("12Q"), -1);
	assert_int_equal(parse_size("1.5G"), -1);
	assert_int_equal(parse_size("64Mx"), -1);
	assert_int_equal(parse_size("99999999999999999999"), -1);
	assert_int_equal(parse_size("9999999999T"), -1); /* overflows */
}

static void test_parse_duration(void **state)
{
	(void)state;
	assert_true(parse_duration("90") == 90);
	assert_true(parse_duration("1.5s") == 1.5);
	assert_true(parse_duration("500ms") == 0.5);
	assert_true(parse_duration("2m") == 120);
	assert_true(parse_duration("1h") == 3600);
	assert_true(parse_duration("") == -1);
	assert_true(parse_duration("0") == -1);
	assert_true(parse_duration("-1") == -1);
	assert_true(parse_duration("nan") == -1);
	assert_true(parse_duration("inf") == -1);
	assert_true(parse_duration("1e400") == -1);
	assert_true(parse_duration("5x") == -1);
	assert_true(parse_duration("1e7") == 1e7);
	assert_true(parse_duration("1e7s") == 1e7);
	assert_true(parse_duration("10000000.1") == -1);
	assert_true(parse_duration("3000h") == -1); /* over 1e7 s */
}

static void test_parse_list(void **state)
{
	char out[4][NAME_LEN];
	int n;

	(void)state;
	assert_int_equal(parse_list("plain,fscrypt", out, 4, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(out[0], "plain");
	assert_string_equal(out[1], "fscrypt");
	assert_int_equal(parse_list("a", out, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(parse_list("", out, 4, &n), -1);
	assert_int_equal(parse_list("a,,b", out, 4, &n), -1);
	assert_int_equal(parse_list("a,", out, 4, &n), -1);
	assert_int_equal(parse_list("a,b,c,d,e", out, 4, &n), -1);
}

static int parse(struct run_config *cfg, int argc, const char **argv)
{
	config_defaults(cfg);
	return parse_run_args(argc, (char **)argv, cfg);
}

static void test_defaults(void **state)
{
	struct run_config cfg;
	const char *argv[] = {"run"};

	(void)state;
	assert_int_equal(parse(&cfg, 1, argv), 0);
	assert_int_equal(cfg.size_bytes, 64ULL << 20);
	assert_int_equal(cfg.runs, 5);
	assert_int_equal(cfg.trace_runs, 2);
	/* Every kind, in table order, the baseline first; setup skips the
	 * ones this kernel cannot build (they were not named). */
	assert_false(cfg.targets_given);
	assert_string_equal(cfg.targets[0], "plain");
	int n = 0;
	for (const struct target_kind *const *k = target_list(); *k; k++, n++)
		assert_string_equal(cfg.targets[n], (*k)->kind);
	assert_int_equal(cfg.nr_targets, n);
	assert_true(n >= 4); /* plain, fscrypt, luks2, ecryptfs at least */
	assert_string_equal(cfg.workloads[0], "dd");
	assert_string_equal(cfg.scratch, "/var/tmp");
	assert_true(cfg.trace);
	assert_true(cfg.drop_caches);
	config_free(&cfg);
}

static void test_options(void **state)
{
	struct run_config cfg;
	const char *argv[] = {"run",	   "-s",
			      "16M",	   "--runs",
			      "3",	   "--targets",
			      "fscrypt",   "--no-trace",
			      "--scratch", "/tmp",
			      "-o",	   "/tmp/out",
			      "--json",	   "--no-drop-caches",
			      "-q"};

	(void)state;
	assert_int_equal(parse(&cfg, 15, argv), 0);
	assert_int_equal(cfg.size_bytes, 16ULL << 20);
	assert_int_equal(cfg.runs, 3);
	assert_int_equal(cfg.nr_targets, 1);
	assert_string_equal(cfg.targets[0], "fscrypt");
	assert_false(cfg.trace);
	assert_false(cfg.drop_caches);
	assert_true(cfg.json);
	assert_true(cfg.quiet);
	assert_string_equal(cfg.scratch, "/tmp");
	assert_string_equal(cfg.output, "/tmp/out");
	config_free(&cfg);
}

/* --trace-runs reaches the run's configuration (it was refused as an
 * unknown option until the parser dispatched it); not with --no-trace. */
static void test_trace_runs(void **state)
{
	struct run_config cfg;
	const char *argv[] = {"run", "--runs", "1", "--trace-runs", "3"};
	const char *untraced[] = {"run", "--trace-runs", "3", "--no-trace"};

	(void)state;
	assert_int_equal(parse(&cfg, 5, argv), 0);
	assert_int_equal(cfg.runs, 1);
	assert_int_equal(cfg.trace_runs, 3);
	assert_true(cfg.trace);
	config_free(&cfg);
	assert_int_equal(parse(&cfg, 4, untraced), 2);
	config_free(&cfg);
}

static void test_bad_input(void **state)
{
	static const char *const bad[][3] = {
		{"run", "--bogus", NULL},
		{"run", "-s", "abc"},
		{"run", "-s", "0"},
		{"run", "-s", "1000"},
		{"run", "-n", "0"},
		{"run", "-n", "x"},
		{"run", "-t", "nosuch"},
		{"run", "-t", "plain,plain"},
		{"run", "-w", "nosuch"},
		{"run", "extra", NULL},
		{"run", "--size", NULL},
		{"run", "-n", "4294967297"},
		{"run", "-n", ""},
		{"run", "-w", "dd,dd"},
		{"run", "-s", "7378697629483819008"},
		{"run", "--preset", "nosuch"},
		{"run", "--scale", "0"},
		{"run", "--scale", "x"},
		{"run", "--stable", "100"},
		{"run", "--min-runs", "1"},
		{"run", "--trace-runs", "0"},
		{"run", "--trace-runs", "x"},
		{"run", "-n", "autox"},
		{"run", "--dd-size", "12k3"},
		{"run", "--dd-size", "1000"},
		{"run", "--dd-bogus", "1"},
		{"run", "--dd-size", NULL},
	};
	struct run_config cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int argc = bad[i][2] ? 3 : 2;

		if (parse(&cfg, argc, (const char **)bad[i]) != 2)
			fail_msg("'%s %s' was accepted", bad[i][1],
				 bad[i][2] ? bad[i][2] : "");
		config_free(&cfg);
	}
}

/* Each workload's own options land in its own struct; --size and a
 * preset reach it too; --runs auto takes its bounds. */
static void test_workload_params(void **state)
{
	struct run_config cfg;
	const char *argv[] = {"run", "--runs",	  "auto", "--min-runs",
			      "4",   "--stable",  "2.5",  "-w",
			      "dd",  "--dd-size", "8M",	  "--scale",
			      "0.5"};
	const char *preset[] = {"run", "--preset", "zfs-dd", "-s", "16M"};
	struct param_list l = {0};

	(void)state;
	assert_int_equal(parse(&cfg, 13, argv), 0);
	assert_true(cfg.runs_auto);
	assert_int_equal(cfg.min_runs, 4);
	assert_true(cfg.stable_pct == 2.5);
	assert_true(cfg.scale == 0.5);
	assert_int_equal(config_max_runs(&cfg), 20);
	assert_non_null(cfg.wparams[0]);
	workload_find("dd")->describe(cfg.wparams[0], &l);
	assert_string_equal(l.p[0].key, "size_bytes");
	assert_int_equal(l.p[0].i, 8 << 20);
	assert_int_equal(workload_find("dd")->space_needed(cfg.wparams[0]),
			 8 << 20);
	config_free(&cfg);

	/* The ZFS report's preset, shrunk by --size: dd, 100 runs. */
	assert_int_equal(parse(&cfg, 5, preset), 0);
	assert_string_equal(cfg.workloads[0], "dd");
	assert_int_equal(cfg.runs, 100);
	assert_false(cfg.runs_auto);
	l.n = 0;
	workload_find("dd")->describe(cfg.wparams[0], &l);
	assert_int_equal(l.p[0].i, 16 << 20);
	config_free(&cfg);
}

/* A parameter of a workload's description, by key. */
static const struct param *param_of(const struct param_list *l, const char *key)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->p[i].key, key))
			return &l->p[i];
	fail_msg("no parameter %s", key);
	return NULL;
}

/* The server workloads: their options in their structs, --scale on
 * their durations (and pgbench's scale factor), the space for them, and
 * their bad values refused. */
static void test_server_params(void **state)
{
	const char *argv[] = {"run",
			      "-w",
			      "pgbench,nginx",
			      "--pgbench-clients",
			      "8",
			      "--pgbench-threads",
			      "4",
			      "--pgbench-scale",
			      "3",
			      "--nginx-files",
			      "50",
			      "--nginx-file-size",
			      "64k",
			      "--nginx-connections",
			      "32",
			      "--scale",
			      "0.5"};
	static const char *const bad[][5] = {
		{"run", "-w", "pgbench", "--pgbench-clients", "0"},
		{"run", "-w", "pgbench", "--pgbench-threads", "3x"},
		{"run", "-w", "pgbench", "--pgbench-bogus", "1"},
		{"run", "-w", "pgbench", "--pgbench-threads", "5"}, /* > 4 */
		{"run", "-w", "nginx", "--nginx-file-size", "65M"},
		{"run", "-w", "nginx", "--nginx-seconds", "-1"},
		{"run", "-w", "nginx", "--nginx-threads", "17"}, /* > 16 */
		{"run", "-w", "dd", "--nginx-files", "1"},
	};
	struct param_list pg = {0}, ng = {0};
	struct run_config cfg;

	(void)state;
	assert_int_equal(parse(&cfg, 17, argv), 0);
	workload_find("pgbench")->describe(cfg.wparams[0], &pg);
	workload_find("nginx")->describe(cfg.wparams[1], &ng);
	assert_int_equal(param_of(&pg, "clients")->i, 8);
	assert_int_equal(param_of(&pg, "threads")->i, 4);
	/* --scale 0.5 halves the defaults (10 s -> 5 s); an option given
	 * is taken as it is. */
	assert_int_equal(param_of(&pg, "scale")->i, 3);
	assert_int_equal(param_of(&pg, "seconds")->i, 5);
	assert_int_equal(param_of(&ng, "files")->i, 50);
	assert_int_equal(param_of(&ng, "file_bytes")->i, 64 << 10);
	assert_int_equal(param_of(&ng, "connections")->i, 32);
	assert_int_equal(param_of(&ng, "seconds")->i, 5);
	/* 50 files of 64 KiB and a MiB to spare. */
	assert_int_equal(workload_find("nginx")->space_needed(cfg.wparams[1]),
			 50 * (64 << 10) + (1 << 20));
	assert_true(workload_find("pgbench")->space_needed(cfg.wparams[0]) >
		    (100ULL << 20));
	config_free(&cfg);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(&cfg, 5, (const char **)bad[i]) != 2)
			fail_msg("'%s %s' was accepted", bad[i][3], bad[i][4]);
		config_free(&cfg);
	}
}

/* zfs brings its own baseline, zfs-off, right before it; ZFS options
 * take ZFS's values only. */
static void test_zfs_options(void **state)
{
	struct run_config cfg;
	const char *one[] = {"run", "-t", "zfs"};
	const char *both[] = {"run", "-t", "plain,zfs-off,zfs"};
	const char *opts[] = {"run",	     "-t",
			      "plain,zfs",   "--zfs-encryption",
			      "aes-128-ccm", "--zfs-keyformat",
			      "passphrase",  "--zfs-compression",
			      "zstd-3"};
	const char *bad_enc[] = {"run", "--zfs-encryption", "aes-256-xts"};
	const char *bad_fmt[] = {"run", "--zfs-keyformat", "hex"};
	const char *bad_comp[] = {"run", "--zfs-compression", "gzip-10"};
	const char *bad_comp2[] = {"run", "--zfs-compression", "lz4x"};

	(void)state;
	assert_int_equal(parse(&cfg, 3, one), 0);
	assert_int_equal(cfg.nr_targets, 2);
	assert_string_equal(cfg.targets[0], "zfs-off");
	assert_string_equal(cfg.targets[1], "zfs");
	assert_string_equal(cfg.zfs.encryption, ""); /* ZFS's default */
	config_free(&cfg);

	assert_int_equal(parse(&cfg, 3, both), 0);
	assert_int_equal(cfg.nr_targets, 3); /* nothing added twice */
	config_free(&cfg);

	assert_int_equal(parse(&cfg, 9, opts), 0);
	assert_int_equal(cfg.nr_targets, 3);
	assert_string_equal(cfg.targets[0], "plain");
	assert_string_equal(cfg.targets[1], "zfs-off");
	assert_string_equal(cfg.targets[2], "zfs");
	assert_string_equal(cfg.zfs.encryption, "aes-128-ccm");
	assert_string_equal(cfg.zfs.keyformat, "passphrase");
	assert_string_equal(cfg.zfs.compression, "zstd-3");
	config_free(&cfg);

	assert_int_equal(parse(&cfg, 3, bad_enc), 2);
	config_free(&cfg);
	assert_int_equal(parse(&cfg, 3, bad_fmt), 2);
	config_free(&cfg);
	assert_int_equal(parse(&cfg, 3, bad_comp), 2);
	config_free(&cfg);
	assert_int_equal(parse(&cfg, 3, bad_comp2), 2);
	config_free(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_parse_list),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_trace_runs),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_workload_params),
		cmocka_unit_test(test_server_params),
		cmocka_unit_test(test_zfs_options),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
