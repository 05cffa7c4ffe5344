// SPDX-License-Identifier: MIT
/* CSV, histogram files, run.log and the terminal text, on a small model. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "report/report.h"
#include "report/report_priv.h" /* the observer warning */
#include "results_fixture.h"

struct fx {
	char dir[64];
	struct results *r;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/encbench-report-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	f->r = fixture_results();
	*state = f;
	return f->r ? 0 : -1;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	DIR *d = opendir(f->dir);
	struct dirent *e;
	char p[400];

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(p, sizeof(p), "%s/%s", f->dir, e->d_name);
			unlink(p);
		}
	if (d)
		closedir(d);
	rmdir(f->dir);
	free(f->r);
	free(f);
	return 0;
}

/* The whole file, NUL-terminated; test fails when it is missing. */
static char *slurp(const char *dir, const char *name)
{
	static char buf[1 << 16];
	char p[400];
	FILE *fp;
	size_t n;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fp = fopen(p, "r");
	if (!fp)
		fail_msg("%s: %s", p, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static int count_files(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("missing \"%s\"", needle);
}

static void test_csv(void **state)
{
	struct fx *f = *state;

	/* A metric with fewer samples leaves its cells empty. */
	f->r->results[3].nr_samples = 2;
	assert_int_equal(report_write_csv(f->r, f->dir), 0);
	assert_string_equal(slurp(f->dir, "plain-dd.csv"),
			    "iteration,write_s,read_s\n"
			    "1,4.500000,0.250000\n"
			    "2,4.750000,0.263000\n"
			    "3,5.000000,0.276000\n");
	assert_string_equal(slurp(f->dir, "luks2-dd.csv"),
			    "iteration,write_s,read_s\n"
			    "1,5.000000,0.500000\n"
			    "2,5.100000,0.513000\n"
			    "3,5.200000,\n");
	assert_int_equal(count_files(f->dir, ""), 2 + 2); /* with . and .. */
	assert_int_equal(report_write_csv(f->r, "/nonexistent/x"), -ENOENT);
}

static void test_histograms(void **state)
{
	struct fx *f = *state;

	assert_int_equal(report_write_histograms(f->r, f->dir), 0);
	/* 2 targets x 8 layers, minus the empty crypt-queue of each. */
	assert_int_equal(count_files(f->dir, "hist-"), 14);
	assert_int_equal(count_files(f->dir, "hist-luks2-dd-read-crypt-queue"),
			 0);
	assert_string_equal(slurp(f->dir, "hist-plain-dd-read-syscall.csv"),
			    "low_ns,high_ns,count\n"
			    "1024,2048,60\n"
			    "2048,4096,0\n"
			    "4096,8192,40\n");
	assert_contains(slurp(f->dir, "hist-luks2-dd-read-device.csv"),
			"low_ns,high_ns,count\n131072,262144,60\n");
	assert_contains(slurp(f->dir, "hist-luks2-dd-read-device.csv"),
			"549755813888,18446744073709551615,1\n");
	assert_true(report_write_histograms(f->r, "/nonexistent/x") < 0);
}

static void test_runlog(void **state)
{
	struct fx *f = *state;
	const char *log;

	assert_int_equal(report_write_runlog(f->r, f->dir), 0);
	log = slurp(f->dir, "run.log");
	assert_contains(log, f->dir);
	assert_contains(log, "scratch:        /var/tmp\n");
	assert_contains(log, "file size:      67108864 bytes\n");
	assert_contains(log, "iterations:     3\n");
	assert_contains(log, "2025-01-02T03:04:05Z");
	assert_contains(log, "6.1.0-28-amd64");
	assert_contains(log, "tool version:   0.1.0\n");
	assert_contains(log, "xts(ecb(aes-generic))");
	assert_contains(log, "hardware: no\n");
	assert_contains(log, "hardware: yes\n");
	assert_contains(log, "caches dropped: yes");
	assert_contains(log, "tracing:        on (tp_btf and raw_tp attached)");
	assert_contains(log, "dm-0 254:0 (crypt), loop4 7:4 (backing)");
	assert_contains(log, "LUKS2 dm-crypt, contents aes-xts-plain64");
	assert_contains(log, "encryption: none");
	assert_contains(log, "note: loop device on tmpfs \"scratch\"\n");
	assert_contains(log, "note: no AES instructions: software AES\n");
	assert_true(report_write_runlog(f->r, "/nonexistent/x") < 0);
}

/* report_print_text into a string. */
static char *render(const struct results *r, size_t *len)
{
	char *text = NULL;
	FILE *fp = open_memstream(&text, len);

	assert_non_null(fp);
	report_print_text(r, fp, true);
	assert_int_equal(fclose(fp), 0);
	return text;
}

static void test_text(void **state)
{
	struct fx *f = *state;
	uint64_t *fs = f->r->attrib[0].layers[LAYER_FS].slots;
	size_t len;
	char *t;

	/* Nanosecond slots print exact inclusive bounds, as biolatency. */
	memset(fs, 0, sizeof(uint64_t) * HIST_SLOTS);
	fs[0] = 5;
	fs[1] = 3;
	t = render(f->r, &len);
	/* (a) the comparison table */
	/* Target columns as wide as the CPU summary, 33.3 (12.5-99.9). */
	assert_contains(t, "metric          plain             luks2");
	assert_contains(t, "4.750 +-0.714");
	assert_contains(t, "+7.4 %");
	assert_contains(t, "[+4.2, +13.3] %");
	assert_contains(t, "~+95.1 %");
	assert_contains(t, "[-4.7, +120.4] %");
	assert_contains(t, "3 runs per target");
	assert_contains(t,
			"  elapsed (s)   0.263             0.513             "
			"+95.1 %");
	assert_contains(t,
			"  cpu all (%)   33.3 (12.5-99.9)  33.3 (12.5-99.9)");
	assert_contains(t, "  system (s)");
	/* (b) attribution, every layer, the unavailable one with reason */
	for (int l = 0; l < NR_LAYERS; l++)
		assert_contains(t, layer_name(l));
	assert_contains(t, "  crypt-queue          -          -          -"
			   "       -  unavailable: no workqueue tracepoints");
	assert_contains(t, "  device             107     128 us     512 us"
			   "     0.8  tp_btf:layer7");
	/* The longest layer name keeps its columns. */
	assert_contains(t, "  dmcrypt-write      104    16.0 us    64.0 us"
			   "     6.2  tp_btf:layer4");
	assert_contains(t, "cover 97.2 %");
	assert_contains(t, "residue 2.8 %");
	assert_contains(t, "  dropped: device 5 items the tracer could not "
			   "follow");
	/* (c) histograms */
	assert_contains(t, "luks2, dd, read, layer syscall (usecs):\n"
			   "     usecs               : count    distribution\n"
			   "      1.02 -> 2.05       : 60       |"
			   "****************************************|\n"
			   "      2.05 -> 4.10       : 0        |"
			   "                                        |\n"
			   "      4.10 -> 8.19       : 40       |"
			   "**************************              |\n");
	assert_contains(t, "plain, dd, read, layer fs (nsecs):\n"
			   "     nsecs               : count    distribution\n"
			   "         0 -> 1          : 5        |"
			   "****************************************|\n"
			   "         2 -> 3          : 3        |"
			   "************************                |\n\n");
	assert_contains(t, "layer crypt (usecs)");
	assert_contains(t, "      8.19 -> 16.4       : 60");
	/* (d) verdicts and caveats */
	assert_contains(t,
			"Reads wait for decryption in the kcryptd workqueue.");
	assert_contains(t, "    - crypt: 61 % of syscall time");
	assert_contains(t, "  luks2: loop device on tmpfs \"scratch\"");
	/* No line ends in a blank. */
	assert_null(strstr(t, " \n"));
	free(t);
}

/* One run on a side: the table says there is no interval instead of
 * printing the point twice as one. */
static void test_text_one_run(void **state)
{
	struct fx *f = *state;
	struct comparison *c = &f->r->comparisons[0];
	size_t len;
	char *t;

	c->significant = false;
	c->penalty_ci95_pct[0] = c->penalty_ci95_pct[1] = c->penalty_pct;
	t = render(f->r, &len);
	assert_contains(t, "no CI (one run)");
	assert_null(strstr(t, "[+7.4, +7.4]"));
	free(t);
}

/* Not disk figures: the rows say which and why, claim no penalty, and
 * the legend explains both marks once; without them it says nothing. */
static void test_text_not_disk_figures(void **state)
{
	struct fx *f = *state;
	size_t len;
	char *t;

	t = render(f->r, &len);
	assert_null(strstr(t, "Neither is a disk figure"));
	free(t);
	f->r->comparisons[0].buffered = true;
	f->r->comparisons[1].cached = true;
	f->r->comparisons[1].cached_pct = 64;
	t = render(f->r, &len);
	assert_contains(t, "buffered:  not a disk figure (writes timed into "
			   "the page cache)");
	assert_contains(t, "cached:    not a disk figure (64 % from the page "
			   "cache)");
	/* The interval the table and the sentence gave before. */
	assert_null(strstr(t, "[+4.2, +13.3] %"));
	assert_null(strstr(t, "between 4.2 % and 13.3 %"));
	assert_contains(t, "no penalty claimed");
	assert_contains(t, "cached: more than 10 % of the bytes read came "
			   "from the page cache; buffered: writes\ntimed into "
			   "the page cache");
	free(t);
}

/* Iterations split off a read figure as cached are said under the
 * table, once per target and job (its metrics share them), also where no
 * verdict says it (a run without tracing); nothing where none were. */
static void test_text_split_iterations(void **state)
{
	struct fx *f = *state;
	const char *line = "luks2 randread_4k: iterations 4, 6 of 5 read over "
			   "10 % from the page cache: not disk samples, left "
			   "out of the figures\n";
	size_t len;
	char *t, *p;

	t = render(f->r, &len);
	assert_null(strstr(t, "from the page cache: not disk samples"));
	free(t);
	f->r->meta.tracing = false;
	for (int i = 0; i < f->r->nr_results; i++) {
		struct result *x = &f->r->results[i];

		if (strcmp(x->target, "luks2"))
			continue;
		snprintf(x->job, sizeof(x->job), "randread_4k");
		x->nr_cached = 2;
		x->cached[0] = 26780;
		x->cached[1] = 9948;
		x->cached_iteration[0] = 4;
		x->cached_iteration[1] = 6;
	}
	t = render(f->r, &len);
	p = strstr(t, line);
	if (!p)
		fail_msg("missing \"%s\" in\n%s", line, t);
	/* Once, though the job has more than one metric. */
	assert_null(strstr(p + 1, line));
	free(t);
}

/* Issue 6, item 7: cells as wide as their column ran together
 * ("0.022 +-0.0002340.179 +-0.00242"). */
static void test_text_cells_apart(void **state)
{
	struct fx *f = *state;
	size_t len;
	char *t;

	for (int i = 0; i < f->r->nr_results; i++) {
		struct result *x = &f->r->results[i];
		bool plain = !strcmp(x->target, "plain");

		x->s.mean = plain ? 0.022 : 0.179;
		x->s.sd = plain ? 0.000234 : 0.00242;
		/* A CPU summary narrower than the column: it keeps its
		 * 16 characters, as wide as these cells. */
		x->cpu.min = x->cpu.avg = x->cpu.max = 0;
	}
	t = render(f->r, &len);
	assert_contains(t, "0.022 +-0.000234 0.179 +-0.00242");
	assert_null(strstr(t, "0.0002340.179"));
	free(t);
}

static void test_text_tracing_off(void **state)
{
	struct fx *f = *state;
	size_t len;
	char *t;

	f->r->meta.tracing = false;
	snprintf(f->r->meta.tracing_detail, DETAIL_LEN,
		 "not root: BPF needs CAP_BPF and CAP_PERFMON");
	t = render(f->r, &len);
	assert_contains(t, "attribution is off: not root: BPF needs CAP_BPF");
	assert_null(strstr(t, "distribution"));
	assert_null(strstr(t, "closure"));
	free(t);
}

/* The first screen: the answer, in a few lines, and where the rest is. */
static void test_text_short(void **state)
{
	struct fx *f = *state;
	struct verdict *v = &f->r->verdicts[0];
	char *t = NULL;
	size_t len;
	FILE *fp;

	v->brief[0] = '\0';
	f->r->nr_skipped = 1;
	snprintf(f->r->skipped[0].kind, sizeof(f->r->skipped[0].kind),
		 "ecryptfs");
	snprintf(f->r->skipped[0].reason, DETAIL_LEN, "no ecryptfs module");
	fp = open_memstream(&t, &len);
	assert_non_null(fp);
	report_print_short(f->r, fp, "/tmp/out/report.txt");
	assert_int_equal(fclose(fp), 0);
	/* One header line: kernel, CPU, cipher drivers. */
	assert_contains(t, "encbench-trace 0.1.0 on bench1, kernel "
			   "6.1.0-28-amd64; CPU Intel(R) Core(TM) i5-3320M "
			   "CPU @ 2.60GHz (AES instructions: no); ciphers: "
			   "xts(aes) by xts(ecb(aes-generic)) (software), "
			   "gcm(aes) by gcm_base(ctr(aes-aesni)) (hardware)\n");
	/* A line per target, skipped ones with the reason. */
	assert_contains(t, "\n  plain (baseline): plain, ext4 on ");
	assert_contains(t, "\n  ecryptfs: skipped: no ecryptfs module\n");
	/* The table with penalties and CIs, without the rusage rows. */
	assert_contains(t, "4.750 +-0.714");
	assert_contains(t, "[+4.2, +13.3] %");
	assert_null(strstr(t, "elapsed (s)"));
	/* No layer tables, evidence or histograms. */
	assert_null(strstr(t, "distribution"));
	assert_null(strstr(t, "closure"));
	assert_null(strstr(t, "    - crypt: 61 %"));
	/* A verdict without a line of its own has its summary; then it
	 * ends with where the full report is. */
	assert_contains(t, "\n  luks2, dd, read: Reads wait for decryption in "
			   "the kcryptd workqueue.\n\nFull report: "
			   "/tmp/out/report.txt\n");
	assert_int_equal(t[len - 1], '\n');
	assert_true(strstr(t, "Full report:") +
			    strlen("Full report: "
				   "/tmp/out/report.txt\n") ==
		    t + len);
	assert_true(count_lines(t) <= 40);
	free(t);
	/* Its own line when it has one; none when it is no headline. */
	snprintf(v->brief, sizeof(v->brief), "25 %% slower than plain");
	fp = open_memstream(&t, &len);
	report_print_headlines(f->r, fp);
	assert_int_equal(fclose(fp), 0);
	assert_string_equal(t, "luks2, dd, read: 25 % slower than plain\n");
	free(t);
	v->headline = false;
	fp = open_memstream(&t, &len);
	report_print_headlines(f->r, fp);
	assert_int_equal(fclose(fp), 0);
	assert_string_equal(t, "");
	free(t);
}

/* The first screen warns of tracing's cost only where it is more than
 * 10 % and significant: two traced iterations' interval that spans zero
 * warns of nothing, the details still list it. */
static void test_observer_warning(void **state)
{
	struct fx *f = *state;
	struct result *x = &f->r->results[0];
	char *t = NULL;
	size_t len;
	FILE *fp;

	x->obs = (struct observer){.measured = true,
				   .ratio = 1.467,
				   .added_pct = 46.7,
				   .added_ci95_pct = {-533.2, 626.7},
				   .significant = false};
	fp = open_memstream(&t, &len);
	assert_non_null(fp);
	report_print_observer_warning(f->r, fp);
	report_print_observer_line(f->r, fp);
	assert_int_equal(fclose(fp), 0);
	assert_string_equal(t, "");
	free(t);
	x->obs.added_ci95_pct[0] = 21.0;
	x->obs.added_ci95_pct[1] = 72.4;
	x->obs.significant = true;
	fp = open_memstream(&t, &len);
	assert_non_null(fp);
	report_print_observer_line(f->r, fp);
	assert_int_equal(fclose(fp), 0);
	assert_contains(t, "WARNING: tracing added more than 10 % to 1 metric");
	assert_contains(t, "+46.7 % [+21.0, +72.4]");
	free(t);
	x->obs.added_pct = 8.0;
	fp = open_memstream(&t, &len);
	assert_non_null(fp);
	report_print_observer_warning(f->r, fp);
	assert_int_equal(fclose(fp), 0);
	assert_string_equal(t, "");
	free(t);
}

/* report.txt is the full report, histograms included. */
static void test_report_txt(void **state)
{
	struct fx *f = *state;
	size_t len;
	char *t = render(f->r, &len);

	assert_int_equal(report_write_text(f->r, f->dir), 0);
	assert_string_equal(slurp(f->dir, "report.txt"), t);
	assert_contains(t, "distribution");
	/* Never over a file that exists. */
	assert_true(report_write_text(f->r, f->dir) < 0);
	free(t);
}

static void test_caps_text(void **state)
{
	struct fx *f = *state;
	char *t = NULL;
	size_t len;
	FILE *fp = open_memstream(&t, &len);

	assert_non_null(fp);
	report_print_caps(&f->r->meta.caps, fp);
	assert_int_equal(fclose(fp), 0);
	assert_contains(t, "\n  fentry        no   load failed: Operation not "
			   "permitted (EPERM)\n");
	assert_contains(t, "\n  btf           yes  /sys/kernel/btf/vmlinux\n");
	assert_contains(t, "\n  zfs           no   zfs module not loaded\n");
	assert_contains(t, "\n  io_uring      yes  io_uring_setup ok\n");
	assert_contains(t, "AES instructions in this CPU: no");
	assert_contains(t, "  gcm(aes)      gcm_base(ctr(aes-aesni))");
	assert_contains(t, "hardware: yes (template, built on first use)\n");
	assert_contains(t,
			"xts(ecb(aes-generic))                hardware: no\n");
	assert_contains(t, "\n  fs            derived\n");
	assert_contains(t, "\n  crypt-queue   tp:source-2\n");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_csv, setup, teardown),
		cmocka_unit_test_setup_teardown(test_histograms, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_runlog, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_one_run, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_text_not_disk_figures,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_split_iterations,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_cells_apart, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_text_tracing_off, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_text_short, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_observer_warning, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_report_txt, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_caps_text, setup,
						teardown),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
