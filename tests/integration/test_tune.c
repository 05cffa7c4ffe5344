// SPDX-License-Identifier: MIT
/*
 * `tune --kind fscrypt` on this host, for real: loop devices, ext4,
 * fscrypt policies, BPF. Within a small budget it ranks what it could
 * build, and the ranking is checked against Welch's interval computed
 * here from the samples in results.json: a variant shares the best's
 * rank exactly when no interval separates it from the best. What the
 * kernel lacks is skipped with a reason, bad input is one line and exit
 * 2, and Ctrl-C (ranking what finished) or SIGKILL then teardown leave
 * nothing behind.
 */
#include <math.h>
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
#include <unistd.h>

#include <cmocka.h>

#include "leftovers.h"
#include "results_json.h"
#include "run_prog.h"
#include "stats/stats.h"

#define BUDGET_S 150

static char tmp[] = "/var/tmp/encbench-tune.XXXXXX";
static char state[PATH_MAX], ids_file[PATH_MAX];
static const char *bin;
static int nr_runs;

/* `tune --kind fscrypt -s 16M` plus extra, as tag; its pid. */
static pid_t tune_spawn(const char *tag, const char *out, const char *budget,
			const char *const *extra, int n)
{
	const char *argv[RUN_PROG_MAX_ARGS + 16] = {
		bin,	    "tune",	"--kind", "fscrypt",   "-s",
		"16M",	    "--budget", budget,	  "--scratch", tmp,
		"--output", out,	"-q"};
	int argc = 13;

	for (int i = 0; i < n && i < RUN_PROG_MAX_ARGS; i++)
		argv[argc++] = extra[i];
	argv[argc] = NULL;
	return run_spawn(tmp, tag, NULL, NULL, argv);
}

/* The per-iteration score (write_s + read_s) of target, into out. */
static int score_of(struct json_object *doc, const char *target, double *out)
{
	struct json_object *w =
		get(result_of(doc, target, "dd", "write_s"), "samples");
	struct json_object *r =
		get(result_of(doc, target, "dd", "read_s"), "samples");
	int n = (int)json_object_array_length(w);

	assert_int_equal(n, (int)json_object_array_length(r));
	for (int i = 0; i < n && i < MAX_SAMPLES; i++)
		out[i] =
			json_object_get_double(
				json_object_array_get_idx(w, i)) +
			json_object_get_double(json_object_array_get_idx(r, i));
	return n;
}

static const char *str(struct json_object *o, const char *k)
{
	return json_object_get_string(get(o, k));
}

/* The whole of file path (free it), or NULL. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 &&
	    !fseek(f, 0, SEEK_SET)) {
		buf = calloc(1, (size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

/* The value of prom's series `family` whose target label is name; NAN
 * when it has none. */
static double prom_value(const char *prom, const char *family, const char *name)
{
	char target[NAME_LEN + 16], line[1024];
	size_t lf = strlen(family);

	snprintf(target, sizeof(target), ",target=\"%s\",", name);
	for (const char *l = prom; l && *l;) {
		const char *end = strchr(l, '\n'), *close;
		size_t n = end ? (size_t)(end - l) : strlen(l);

		snprintf(line, sizeof(line), "%.*s", (int)n, l);
		close = strstr(line, "} ");
		if (!strncmp(line, family, lf) && line[lf] == '{' && close &&
		    strstr(line, target))
			return strtod(close + 2, NULL);
		l = end ? end + 1 : NULL;
	}
	return NAN;
}

/* --prometheus and --html show each ranked variant as results.json has
 * it: its rank and penalty in the series, its name in the page's tune
 * section. */
static void check_tune_outputs(struct json_object *vs, const char *prom_path,
			       const char *html_path)
{
	char *prom = slurp(prom_path), *html = slurp(html_path);

	assert_non_null(prom);
	assert_non_null(html);
	assert_non_null(strstr(html, "<section id=\"tune\">"));
	for (size_t i = 0; i < json_object_array_length(vs); i++) {
		struct json_object *v = json_object_array_get_idx(vs, i);
		const char *name = str(v, "name");
		double rank = prom_value(prom, "encbench_tune_rank", name);
		double pen =
			prom_value(prom, "encbench_tune_penalty_ratio", name);

		if (!json_object_get_boolean(get(v, "ranked"))) {
			assert_true(isnan(rank));
			continue;
		}
		if (rank != json_object_get_int(get(v, "rank")))
			fail_msg("%s: rank %g in the series, %d in results",
				 name, rank,
				 json_object_get_int(get(v, "rank")));
		if (fabs(pen * 100 -
			 json_object_get_double(get(v, "penalty_pct"))) > 1e-6)
			fail_msg("%s: penalty %g in the series, %g %% in "
				 "results",
				 name, pen,
				 json_object_get_double(get(v, "penalty_pct")));
		assert_non_null(strstr(html, name));
	}
	free(prom);
	free(html);
}

static void test_fscrypt_sweep_ranked(void **st)
{
	static double best_s[MAX_SAMPLES], v_s[MAX_SAMPLES];
	char out[PATH_MAX], prom[PATH_MAX + 16], html[PATH_MAX + 16];
	const char *extra[] = {"--html", "--prometheus", prom};
	struct json_object *doc, *tune, *vs, *best = NULL;
	int rc, ranked = 0, nb;
	struct stat sb;

	(void)st;
	snprintf(out, sizeof(out), "%s/ranked", tmp);
	snprintf(prom, sizeof(prom), "%s/tune.prom", tmp);
	rc = run_reap(tune_spawn("ranked", out, "150s", extra, 3));
	doc = run_prog_results(tmp, "ranked", rc, out);
	assert_non_null(doc);
	tune = get(doc, "tune");
	assert_string_equal(str(tune, "kind"), "fscrypt");
	assert_string_equal(str(tune, "score"), "write_s + read_s");
	vs = get(tune, "variants");
	/* The best: the lowest penalty against plain among the ranked. */
	for (size_t i = 0; i < json_object_array_length(vs); i++) {
		struct json_object *v = json_object_array_get_idx(vs, i);

		if (!json_object_get_boolean(get(v, "ranked"))) {
			/* Not ranked: said why, one way or the other. */
			assert_true(strlen(str(v, "skipped")) > 10 ||
				    json_object_get_int(get(v, "runs")) < 2);
			continue;
		}
		ranked++;
		if (!best ||
		    json_object_get_double(get(v, "penalty_pct")) <
			    json_object_get_double(get(best, "penalty_pct")))
			best = v;
	}
	/* The defaults and at least the data unit or block size axis ran. */
	assert_true(ranked >= 3);
	assert_non_null(best);
	assert_int_equal(json_object_get_int(get(best, "rank")), 1);
	nb = score_of(doc, str(best, "name"), best_s);
	for (size_t i = 0; i < json_object_array_length(vs); i++) {
		struct json_object *v = json_object_array_get_idx(vs, i);
		struct comparison c;
		int n;

		if (!json_object_get_boolean(get(v, "ranked")) || v == best)
			continue;
		n = score_of(doc, str(v, "name"), v_s);
		welch_compare(best_s, nb, v_s, n, 0, &c);
		/* Tied with the best exactly when no interval parts them. */
		if (json_object_get_boolean(get(v, "tied_best")) ==
		    (c.significant && c.penalty_pct > 0))
			fail_msg("%s: tied_best %d, but against the best %s "
				 "[%.1f, %.1f] %%",
				 str(v, "name"),
				 json_object_get_boolean(get(v, "tied_best")),
				 str(best, "name"), c.penalty_ci95_pct[0],
				 c.penalty_ci95_pct[1]);
		if (json_object_get_boolean(get(v, "tied_best")) !=
		    (json_object_get_int(get(v, "rank")) == 1))
			fail_msg("%s: tied but not ranked first",
				 str(v, "name"));
	}
	/* The budget: no iteration starts after it; the last one and a
	 * teardown may run over by a little. */
	if (json_object_get_double(get(tune, "spent_s")) > BUDGET_S + 30)
		fail_msg("spent %.0f s of a %d s budget",
			 json_object_get_double(get(tune, "spent_s")),
			 BUDGET_S);
	/* The host's kernel lacks these: skipped, with the cipher named. */
	for (size_t i = 0; i < json_object_array_length(vs); i++) {
		struct json_object *v = json_object_array_get_idx(vs, i);

		if (!strcmp(str(v, "name"), "fscrypt-adiantum") &&
		    !json_object_get_boolean(get(v, "ranked")))
			assert_non_null(strstr(str(v, "skipped"), "adiantum"));
	}
	assert_non_null(strstr(run_output(tmp, "ranked", "stdout"),
			       "Recommendation: "));
	assert_non_null(strstr(run_output(tmp, "ranked", "stdout"),
			       "penalty vs plain"));
	snprintf(html, sizeof(html), "%s/report.html", out);
	assert_int_equal(stat(html, &sb), 0);
	snprintf(prom, sizeof(prom), "%s/tune.prom", tmp);
	assert_int_equal(stat(prom, &sb), 0);
	check_tune_outputs(vs, prom, html);
	json_object_put(doc);
	assert_int_equal(leftovers_recorded(tmp, ids_file), 0);
}

/* One line on stderr, the exit code, and nothing made. */
static void refused(const char *const *args, int n, int want_rc,
		    const char *want)
{
	char out[PATH_MAX], tag[32];
	const char *err;
	struct stat sb;
	int rc;

	snprintf(out, sizeof(out), "%s/refused-%d", tmp, nr_runs);
	snprintf(tag, sizeof(tag), "refused-%d", nr_runs++);
	rc = run_reap(tune_spawn(tag, out, "60s", args, n));
	err = run_output(tmp, tag, "stderr");
	if (rc != want_rc || count_lines(err) != 1 || !strstr(err, want))
		fail_msg("%s: exit %d, stderr: %s", args[0], rc, err);
	assert_int_not_equal(stat(out, &sb), 0);
}

static void test_bad_input(void **st)
{
	const char *cross[] = {"--cross", "block,sector"};
	const char *one[] = {"--cross", "block"};
	const char *targets[] = {"--targets", "plain,fscrypt"};
	const char *budget[] = {"--budget", "1s"};
	const char *kind[] = {"--kind", "btrfs"};
	/* Known, but this kernel has no ZFS (KERNEL.md): one line, exit 1. */
	const char *zfs[] = {"--kind", "zfs"};
	const char *ecryptfs_dd[] = {"--kind", "ecryptfs", "-w", "dd"};
	const char *device[] = {"--target", "mine=/var/tmp"};
	const char *key[] = {"--key-file", "/etc/hostname"};
	const char *device_kind[] = {"--target", "mine=/var/tmp",
				     "--allow-refresh"};

	(void)st;
	refused(cross, 2, 2, "no axis 'sector'");
	refused(one, 2, 2, "expected two axes");
	refused(targets, 2, 2, "--targets");
	refused(budget, 2, 2, "--budget");
	refused(kind, 2, 2, "luks2, fscrypt, zfs or ecryptfs");
	refused(zfs, 2, 1, "zfs is not available here");
	refused(ecryptfs_dd, 4, 2, "dd, the ranking workload, needs O_DIRECT");
	/* A device of the user's: only with --allow-refresh, only flags. */
	refused(device, 2, 2, "add --allow-refresh");
	refused(key, 2, 2, "only with --target");
	refused(device_kind, 3, 2, "(--kind luks2), not fscrypt");
	assert_int_equal(leftovers_recorded(tmp, ids_file), 0);
}

/* Stopped at a variant's workload by the test hook; its pid. */
static pid_t tune_to(const char *tag, const char *out, const char *point)
{
	int status;
	pid_t pid;

	setenv("ENCBENCH_PAUSE_AT", point, 1);
	pid = tune_spawn(tag, out, "120s", NULL, 0);
	unsetenv("ENCBENCH_PAUSE_AT");
	assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
	if (!WIFSTOPPED(status))
		fail_msg("never stopped at %s: %s", point,
			 run_output(tmp, tag, "stderr"));
	return pid;
}

static void test_sigint_ranks_what_finished(void **st)
{
	char out[PATH_MAX];
	const char *text;
	pid_t pid;

	(void)st;
	snprintf(out, sizeof(out), "%s/sigint", tmp);
	pid = tune_to("sigint", out, "workload:fscrypt-block-2048:dd");
	kill(pid, SIGINT);
	kill(pid, SIGCONT);
	assert_int_equal(run_reap(pid), 130);
	text = run_output(tmp, "sigint", "stdout");
	/* plain and the defaults had finished: they are ranked. */
	assert_non_null(strstr(text, "interrupted: what finished is ranked"));
	assert_non_null(strstr(text, "fscrypt-default (ref)"));
	assert_int_equal(leftovers_recorded(tmp, ids_file), 0);
}

static void test_sigkill_then_teardown(void **st)
{
	const char *argv[] = {bin, "teardown", NULL};
	char out[PATH_MAX];
	pid_t pid;

	(void)st;
	snprintf(out, sizeof(out), "%s/sigkill", tmp);
	pid = tune_to("sigkill", out, "workload:fscrypt-block-1024:dd");
	kill(pid, SIGKILL);
	kill(pid, SIGCONT);
	assert_int_equal(run_reap(pid), 128 + SIGKILL);
	assert_int_equal(run_reap(run_spawn(tmp, "teardown", NULL, NULL, argv)),
			 0);
	assert_int_equal(leftovers_recorded(tmp, ids_file), 0);
}

static int setup(void **st)
{
	(void)st;
	bin = run_prog_bin();
	if (run_prog_begin(tmp))
		return -1;
	snprintf(state, sizeof(state), "%s/state", tmp);
	setenv("ENCBENCH_STATE_DIR", state, 1);
	run_prog_record_ids(tmp, ids_file);
	return 0;
}

static int teardown(void **st)
{
	const char *argv[] = {bin, "teardown", NULL};

	(void)st;
	run_reap(run_spawn(tmp, "final-teardown", NULL, NULL, argv));
	return remove_tree(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_sigint_ranks_what_finished),
		cmocka_unit_test(test_sigkill_then_teardown),
		cmocka_unit_test(test_fscrypt_sweep_ranked),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
