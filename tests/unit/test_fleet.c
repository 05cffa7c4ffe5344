// SPDX-License-Identifier: MIT
/*
 * Results that leave the machine: the OpenMetrics file, read back by
 * Prometheus's own strict parser (promtool check metrics) and by us; and
 * `merge` of two runs from different hosts, one column per host, as text
 * and as one report.html.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/commands.h"
#include "file_text.h"
#include "report/report.h"
#include "results_fixture.h"

#define HIST "encbench_layer_latency_seconds"

static char dir[] = "/tmp/encbench-fleet-XXXXXX";
static char host_a[PATH_MAX], host_b[PATH_MAX]; /* two hosts' runs */

/* Two hosts' results.json files, as `run` writes them. */
static int write_hosts(char a[PATH_MAX], char b[PATH_MAX])
{
	struct results *r = fixture_results();
	int err = 0;

	snprintf(a, PATH_MAX, "%s/host-a", dir);
	snprintf(b, PATH_MAX, "%s/host-b", dir);
	mkdir(a, 0755);
	mkdir(b, 0755);
	snprintf(r->meta.hostname, NAME_LEN, "alpha");
	err |= report_write_json(r, a, NULL);
	snprintf(r->meta.hostname, NAME_LEN, "beta");
	r->results[3].s.mean = 0.777;
	r->comparisons[1].penalty_pct = 211.5;
	err |= report_write_json(r, b, NULL);
	free(r);
	return err;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	return write_hosts(host_a, host_b) ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

static void test_promtool_accepts(void **state)
{
	struct results *r = fixture_results();
	char path[PATH_MAX], cmd[PATH_MAX * 2];
	char *text;
	(void)state;

	/* A label value that must be escaped. */
	snprintf(r->targets[1].name, NAME_LEN, "lu\"ks\\2");
	snprintf(r->attrib[1].target, NAME_LEN, "lu\"ks\\2");
	snprintf(path, sizeof(path), "%s/run.prom", dir);
	assert_int_equal(report_write_prometheus(r, path), 0);
	free(r);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s > %s/lint 2>&1",
		 path, dir);
	if (system(cmd)) {
		snprintf(cmd, sizeof(cmd), "%s/lint", dir);
		fail_msg("promtool check metrics: %s", file_text(cmd));
	}
	text = file_text(path);
	assert_non_null(strstr(text, "target=\"lu\\\"ks\\\\2\""));
	assert_non_null(strstr(text, "# TYPE " HIST " histogram\n"));
	assert_non_null(strstr(text, "encbench_penalty_ratio{host=\"bench1\","
				     "kernel=\"6.1.0-28-amd64\""));
	assert_true(strlen(text) > 6 &&
		    !strcmp(text + strlen(text) - 6, "# EOF\n"));
	free(text);
}

/* Read the histogram of (target plain, op read, layer device) back: the
 * buckets never fall, +Inf is the count, and it is the fixture's total. */
static void test_histogram_reads_back(void **state)
{
	struct results *r = fixture_results();
	const char *want = "target=\"plain\",workload=\"dd\",op=\"read\","
			   "layer=\"device\"";
	char path[PATH_MAX], line[1024];
	unsigned long long prev = 0, v, inf = 0, count = 0, total = 0;
	int buckets = 0;
	FILE *f;
	(void)state;

	for (int s = 0; s < HIST_SLOTS; s++)
		total += r->attrib[0].layers[LAYER_DEVICE].slots[s];
	snprintf(path, sizeof(path), "%s/hist.prom", dir);
	assert_int_equal(report_write_prometheus(r, path), 0);
	free(r);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *val = strrchr(line, ' ');

		if (!strstr(line, want) || !val)
			continue;
		v = strtoull(val + 1, NULL, 10);
		if (!strncmp(line, HIST "_bucket", strlen(HIST "_bucket"))) {
			assert_true(v >= prev);
			prev = v;
			buckets++;
			if (strstr(line, "le=\"+Inf\""))
				inf = v;
		} else if (!strncmp(line, HIST "_count",
				    strlen(HIST "_count"))) {
			count = v;
		}
	}
	fclose(f);
	assert_int_equal(buckets, HIST_SLOTS);
	assert_int_equal(inf, total);
	assert_int_equal(count, total);
}

/* cmd_merge with stdout in file `save`; its exit code. */
static int merge(const char *save, const char **argv, int argc)
{
	int rc, fd = dup(STDOUT_FILENO);

	fflush(stdout);
	assert_non_null(freopen(save, "w", stdout));
	rc = cmd_merge(argc, (char **)argv);
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	close(fd);
	return rc;
}

static void test_merge_two_hosts(void **state)
{
	const char *a = host_a, *b = host_b;
	char html_dir[PATH_MAX], save[PATH_MAX], page[PATH_MAX];
	char *text, *hdr, *row;
	(void)state;

	snprintf(html_dir, sizeof(html_dir), "%s/fleet", dir);
	snprintf(save, sizeof(save), "%s/merge.out", dir);
	const char *argv[] = {"merge", "--html", html_dir, a, b};
	assert_int_equal(merge(save, argv, 5), 0);
	text = file_text(save);
	/* One column per host, in the order given, on one header line. */
	hdr = strstr(text, "metric target");
	assert_non_null(hdr);
	row = strchr(hdr, '\n');
	assert_non_null(strstr(hdr, "alpha"));
	assert_true(strstr(hdr, "alpha") < strstr(hdr, "beta"));
	assert_true(strstr(hdr, "beta") < row);
	/* Each host's own figures, side by side on the same row. */
	row = strstr(text, "read_s luks2");
	assert_non_null(row);
	assert_true(strstr(row, "0.449") < strstr(row, "0.777"));
	assert_true(strstr(row, "0.777") < strchr(row, '\n'));
	row = strstr(row, "penalty luks2");
	assert_non_null(row);
	assert_true(strstr(row, "+95.1 %") < strstr(row, "+211.5 %"));
	free(text);
	/* And one page for both hosts. */
	snprintf(page, sizeof(page), "%s/report.html", html_dir);
	text = file_text(page);
	assert_non_null(text);
	assert_non_null(strstr(text, "<title>encbench-trace: alpha, beta"));
	free(text);
	/* A second merge never replaces that page. */
	assert_int_equal(merge(save, argv, 5), 2);
}

static void test_merge_bad_input(void **state)
{
	const char *a = host_a, *b = host_b;
	char save[PATH_MAX];
	(void)state;

	snprintf(save, sizeof(save), "%s/merge.out", dir);
	const char *one[] = {"merge", a};
	assert_int_equal(merge(save, one, 2), 2);
	const char *missing[] = {"merge", a, "/nonexistent/results.json"};
	assert_int_equal(merge(save, missing, 3), 2);
	const char *opt[] = {"merge", "--frob", a, b};
	assert_int_equal(merge(save, opt, 4), 2);
}

/* The first b after the first a in text, or NULL. */
static const char *after(const char *text, const char *a, const char *b)
{
	const char *p = strstr(text, a);

	return p ? strstr(p, b) : NULL;
}

/* Whether s is on the line that starts at line (not NULL). */
static bool on_line(const char *line, const char *s)
{
	const char *p = line ? strstr(line, s) : NULL;

	return p && p < strchrnul(line, '\n');
}

/* Figures that are not disk figures claim no penalty in the merged table
 * (a cached read, a write timed into the page cache), nor a gauge in the
 * OpenMetrics file; the other host's penalty for the same row stays. */
static void test_not_disk_figures(void **state)
{
	struct results *r = fixture_results();
	char a[PATH_MAX], save[PATH_MAX], prom[PATH_MAX];
	const char *row;
	char *text;
	(void)state;

	snprintf(a, sizeof(a), "%s/host-cached", dir);
	mkdir(a, 0755);
	snprintf(r->meta.hostname, NAME_LEN, "gamma");
	r->comparisons[1].cached = true;
	r->comparisons[1].cached_pct = 80;
	r->comparisons[0].buffered = true;
	assert_int_equal(report_write_json(r, a, NULL), 0);
	snprintf(prom, sizeof(prom), "%s/cached.prom", dir);
	assert_int_equal(report_write_prometheus(r, prom), 0);
	free(r);
	text = file_text(prom);
	assert_non_null(text);
	assert_null(strstr(text, "encbench_penalty_ratio{"));
	free(text);
	snprintf(save, sizeof(save), "%s/merge-cached.out", dir);
	const char *argv[] = {"merge", host_a, a};
	assert_int_equal(merge(save, argv, 3), 0);
	text = file_text(save);
	row = after(text, "read_s luks2", "penalty luks2");
	assert_true(on_line(row, "+95.1 %"));
	assert_true(on_line(row, "cached: not a disk figure"));
	row = after(text, "write_s luks2", "penalty luks2");
	assert_true(on_line(row, "+7.4 %"));
	assert_true(on_line(row, "buffered: not a disk figure"));
	free(text);
}

/* `compare` of two saved runs whose read figure came from the page cache
 * on one side: no penalty in its table, nor in its sentence; the write
 * figure beside it keeps its penalty. */
static void test_compare_cached(void **state)
{
	struct results *r = fixture_results();
	char a[PATH_MAX], save[PATH_MAX];
	char *text, *row;
	int rc, fd = dup(STDOUT_FILENO);
	(void)state;

	snprintf(a, sizeof(a), "%s/run-cached", dir);
	mkdir(a, 0755);
	/* plain's read figure: 100 MB read, 10 MB from the device. */
	r->results[1].read_bytes = 100e6;
	r->results[1].dev_read_bytes = 10e6;
	r->results[1].dev_samples = r->results[1].nr_samples;
	assert_int_equal(report_write_json(r, a, NULL), 0);
	free(r);
	snprintf(save, sizeof(save), "%s/compare-cached.out", dir);
	const char *argv[] = {"compare", host_a, a};
	fflush(stdout);
	assert_non_null(freopen(save, "w", stdout));
	rc = cmd_compare(3, (char **)argv);
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	close(fd);
	assert_int_equal(rc, 0);
	text = file_text(save);
	assert_non_null(text);
	row = strstr(text, "read_s");
	assert_true(on_line(row, "cached: not a disk figure"));
	row = strstr(text, "write_s");
	assert_false(on_line(row, "not a disk figure"));
	assert_non_null(strstr(text, "not a disk figure (90 % of the bytes "
				     "read came from the page cache)"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_promtool_accepts),
		cmocka_unit_test(test_histogram_reads_back),
		cmocka_unit_test(test_merge_two_hosts),
		cmocka_unit_test(test_merge_bad_input),
		cmocka_unit_test(test_not_disk_figures),
		cmocka_unit_test(test_compare_cached),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
