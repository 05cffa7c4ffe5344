// SPDX-License-Identifier: MIT
/*
 * One command-line style for every subcommand (issue 6): an unknown
 * option is refused in the same one line, "encbench-trace: CMD: unknown
 * option 'X' (see encbench-trace CMD --help)", with exit 2 and nothing on
 * stdout; and each --help ends with an EXAMPLES section of that command.
 * The subcommands are those `encbench-trace --help` lists, so a new one is
 * held to this without editing the test.
 *
 * Each --help lists every option of the command's table in the source
 * (<cmd>_options[], and target_options[] for run and setup) and `run
 * --help` every workload's own options, from the workload table, under the
 * workload's heading. run and setup refuse a missing and an empty value in
 * one line, exit 2, nothing created. And no help text in the source is cut
 * mid-phrase into string literals (as clang-format used to). --check-args
 * checks a line and does nothing.
 */
#include <ctype.h>
#include <dirent.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "file_text.h"
#include "run_prog.h"
#include "../userspace/storage/target.h"
#include "../userspace/workload/workload.h"

static char tmp[] = "/tmp/encbench-cli-style.XXXXXX";
static const char *bin;
static char commands[16][32];
static int nr_commands;

static int setup(void **state)
{
	const char *argv[3];
	const char *p;

	(void)state;
	bin = run_prog_bin();
	if (!mkdtemp(tmp))
		return -1;
	argv[0] = bin;
	argv[1] = "--help";
	argv[2] = NULL;
	if (run_reap(run_spawn(tmp, "top", NULL, NULL, argv)))
		return -1;
	/* "Commands:" then "  name  what it does" lines up to a blank one. */
	p = strstr(run_output(tmp, "top", "stdout"), "Commands:\n");
	if (!p)
		return -1;
	for (p = strchr(p, '\n') + 1; *p == ' ' && nr_commands < 16;
	     p = strchr(p, '\n') + 1)
		if (sscanf(p, " %31s", commands[nr_commands]) == 1)
			nr_commands++;
	return nr_commands >= 6 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return remove_tree(tmp);
}

static void test_unknown_option_one_line(void **state)
{
	static const char *const bad[] = {"--no-such-option", "-Z"};
	char want[256];

	(void)state;
	for (int i = 0; i < nr_commands; i++)
		for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			const char *argv[] = {bin, commands[i], bad[k], NULL};

			printf("# %s %s\n", commands[i], bad[k]);
			assert_int_equal(run_reap(run_spawn(tmp, "bad", NULL,
							    NULL, argv)),
					 2);
			snprintf(want, sizeof(want),
				 "encbench-trace: %s: unknown option '%s' (see "
				 "encbench-trace %s --help)\n",
				 commands[i], bad[k], commands[i]);
			assert_string_equal(run_output(tmp, "bad", "stderr"),
					    want);
			assert_string_equal(run_output(tmp, "bad", "stdout"),
					    "");
		}
}

/* An empty argument (a path, a command to run) is refused by name, not
 * passed on to fail later as "cannot read : No such file". */
static void test_empty_argument_one_line(void **state)
{
	static const char *const lines[][5] = {
		{"report", "", NULL},
		{"merge", "", NULL},
		{"compare", "", "", NULL},
		{"trace", "--path", "/", "--", ""},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		const char *argv[7] = {bin};
		char want[128];

		for (int k = 0; k < 5 && lines[i][k]; k++)
			argv[k + 1] = lines[i][k];
		printf("# %s with an empty argument\n", lines[i][0]);
		assert_int_equal(
			run_reap(run_spawn(tmp, "empty", NULL, NULL, argv)), 2);
		snprintf(want, sizeof(want),
			 "encbench-trace: %s: an argument is empty\n",
			 lines[i][0]);
		assert_string_equal(run_output(tmp, "empty", "stderr"), want);
		assert_string_equal(run_output(tmp, "empty", "stdout"), "");
	}
}

/* --check-args checks a command line as its command would and exits,
 * doing nothing: not even what looks at the machine (a --target folder,
 * a --pid, a results file) happens, and nothing is made, no state file
 * either. A bad line is refused as it would be. */
static void test_check_args(void **state)
{
	char never[PATH_MAX], states[PATH_MAX];
	static const char *const good[][10] = {
		{"run", "--output", "@never", "--size", "8M", "--target",
		 "x=/nonexistent/folder", "--baseline", "x", NULL},
		{"run", "--preset", "luks-cp", "--html", NULL},
		{"setup", "--targets", "plain", NULL},
		{"trace", "--path", "/nonexistent", "--pid", "999999999", "-q",
		 NULL},
		{"trace", "--dev", "/dev/nonexistent", "--", "cp", "a", "b",
		 NULL},
		{"report", "--full", "/nonexistent/run", NULL},
		{"compare", "a.csv", "b.csv", NULL},
		{"merge", "a", "b", NULL},
		{"probe", "--json", NULL},
		{"teardown", NULL},
	};
	static const char *const bad[][6] = {
		{"run", "--no-such-option", NULL},
		{"run", "--size", "banana", NULL},
		{"run", "--workloads", "nosuch", NULL},
		{"trace", "--path", "/", NULL},
		{"trace", "-q", "-v", "--path", "/", NULL},
		{"report", NULL},
		{"compare", "a.csv", NULL},
		{"nosuchcommand", NULL},
	};

	(void)state;
	snprintf(never, sizeof(never), "%s/never", tmp);
	snprintf(states, sizeof(states), "%s/states", tmp);
	assert_int_equal(mkdir(states, 0700), 0);
	setenv("ENCBENCH_STATE_DIR", states, 1);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const char *argv[13] = {bin, "--check-args"};

		for (int k = 0; good[i][k]; k++)
			argv[k + 2] = strcmp(good[i][k], "@never") ? good[i][k]
								   : never;
		printf("# --check-args %s ...: fine\n", good[i][0]);
		assert_int_equal(
			run_reap(run_spawn(tmp, "check", NULL, NULL, argv)), 0);
		assert_string_equal(run_output(tmp, "check", "stdout"), "");
		assert_string_equal(run_output(tmp, "check", "stderr"), "");
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *argv[9] = {bin, "--check-args"};

		for (int k = 0; bad[i][k]; k++)
			argv[k + 2] = bad[i][k];
		printf("# --check-args %s ...: refused\n", bad[i][0]);
		assert_int_equal(
			run_reap(run_spawn(tmp, "check", NULL, NULL, argv)), 2);
		assert_string_equal(run_output(tmp, "check", "stdout"), "");
		assert_int_equal(
			count_lines(run_output(tmp, "check", "stderr")), 1);
	}
	unsetenv("ENCBENCH_STATE_DIR");
	assert_int_not_equal(access(never, F_OK), 0);
	assert_int_equal(rmdir(states), 0); /* empty: no state file */
}

static void test_help_has_examples(void **state)
{
	char want[64];

	(void)state;
	for (int i = 0; i < nr_commands; i++) {
		const char *argv[] = {bin, commands[i], "--help", NULL};
		const char *out, *ex;

		printf("# %s --help\n", commands[i]);
		assert_int_equal(
			run_reap(run_spawn(tmp, "help", NULL, NULL, argv)), 0);
		assert_string_equal(run_output(tmp, "help", "stderr"), "");
		out = run_output(tmp, "help", "stdout");
		snprintf(want, sizeof(want), "Usage: encbench-trace %s ",
			 commands[i]);
		assert_true(!strncmp(out, want, strlen(want)));
		ex = strstr(out, "\nEXAMPLES:\n");
		assert_non_null(ex);
		/* Examples of this command, not another's. */
		snprintf(want, sizeof(want), "encbench-trace %s", commands[i]);
		ex = strstr(ex, want);
		assert_non_null(ex);
		assert_true(ex[strlen(want)] == ' ' ||
			    ex[strlen(want)] == '\n');
	}
}

/* An option of a table in the source. */
struct table_option {
	char name[64];
	bool takes_value; /* an argument name is given */
	bool optional;	  /* OPTION_ARG_OPTIONAL */
};

/* The entries of `static const struct argp_option <table>[] = {` in the
 * cli's sources, appended to out (n so far); -1 when there is no such
 * table. */
static int table_options(const char *table, struct table_option *out, int n,
			 int max)
{
	char head[96];
	glob_t g;
	int found = -1;

	snprintf(head, sizeof(head), "struct argp_option %s[] = {\n", table);
	assert_int_equal(glob("userspace/cli/*.c", 0, NULL, &g), 0);
	for (size_t f = 0; f < g.gl_pathc && found < 0; f++) {
		char *text = file_text(g.gl_pathv[f]);
		char *p = text ? strstr(text, head) : NULL;
		char *end = p ? strstr(p, "\n};") : NULL;

		for (p = p ? strchr(p, '\n') : NULL; p && p < end;
		     p = strchr(p + 1, '\n')) {
			const char *q = p + 1 + strspn(p + 1, "\t ");
			char *line_end = strchr(p + 1, '\n');
			struct table_option *o = &out[n];

			found = n;
			if (strncmp(q, "{\"", 2) || n >= max)
				continue;
			q += 2;
			snprintf(o->name, sizeof(o->name), "%.*s",
				 (int)strcspn(q, "\""), q);
			q = strchr(strchr(q, ',') + 1, ','); /* after the key */
			q += 1 + strspn(q + 1, " ");
			o->takes_value = *q == '"';
			*line_end = '\0';
			o->optional = strstr(q, "OPTION_ARG_OPTIONAL") != NULL;
			*line_end = '\n';
			n++;
		}
		free(text);
	}
	globfree(&g);
	return found < 0 ? -1 : n;
}

/* A command's options: its table, and the targets' for run and setup. */
static int command_options(const char *cmd, struct table_option *out, int max)
{
	char table[64];
	int n;

	snprintf(table, sizeof(table), "%s_options", cmd);
	n = table_options(table, out, 0, max);
	if (n < 0)
		fail_msg("no table %s[] in userspace/cli/*.c", table);
	if (!strcmp(cmd, "run") || !strcmp(cmd, "setup"))
		n = table_options("target_options", out, n, max);
	assert_true(n >= 0);
	return n;
}

/* "--name" in text as a whole option name, not the start of a longer. */
static const char *find_option(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; (p = strstr(p, "--")); p += 2) {
		char next = p[2 + n];

		if (!strncmp(p + 2, name, n) && !isalnum((unsigned char)next) &&
		    next != '-' && next != '_')
			return p;
	}
	return NULL;
}

static const char *help_of(const char *cmd)
{
	const char *argv[] = {bin, cmd, "--help", NULL};

	assert_int_equal(run_reap(run_spawn(tmp, "help", NULL, NULL, argv)), 0);
	return run_output(tmp, "help", "stdout");
}

static void test_help_lists_every_option(void **state)
{
	struct table_option opts[128];
	const char *help, *head, *next;
	char want[128];

	(void)state;
	for (int i = 0; i < nr_commands; i++) {
		int n = command_options(commands[i], opts, 128);

		help = help_of(commands[i]);
		for (int k = 0; k < n; k++)
			if (!find_option(help, opts[k].name))
				fail_msg("%s --help does not list --%s",
					 commands[i], opts[k].name);
	}
	/* The target kinds, for run and setup, from their table. */
	for (int c = 0; c < 2; c++) {
		help = help_of(c ? "setup" : "run");
		head = strstr(help, "\n Target kinds");
		assert_non_null(head);
		for (const struct target_kind *const *k = target_list(); *k;
		     k++) {
			snprintf(want, sizeof(want), "\n  %s ", (*k)->kind);
			if (!strstr(head, want))
				fail_msg("--help does not list target %s",
					 (*k)->kind);
		}
	}
	/* Each workload's heading, then its own options, before the next. */
	help = help_of("run");
	for (const struct workload_ops *const *w = workload_list(); *w; w++) {
		snprintf(want, sizeof(want), "\n Workload %s: ", (*w)->name);
		head = strstr(help, want);
		if (!head)
			fail_msg("run --help has no heading '%s'", want + 1);
		next = strstr(head + 1, "\n Workload ")
			       ?: strstr(head, "\n  -h, --help");
		assert_non_null(next);
		for (const struct workload_key *k = (*w)->keys; k && k->key;
		     k++) {
			const char *at;

			snprintf(want, sizeof(want), "%s-%s", (*w)->name,
				 k->key);
			at = find_option(head, want);
			if (!at || at > next)
				fail_msg("run --help does not list --%s under "
					 "workload %s",
					 want, (*w)->name);
		}
	}
}

/* Nothing in the working folder the refused command ran in. */
static void assert_folder_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			fail_msg("'%s' was created in %s", de->d_name, dir);
	closedir(d);
}

/* argv refused with exactly this line, exit 2, nothing on stdout, nothing
 * created where it ran. */
static void expect_refusal(const char *cwd, const char *const *argv,
			   const char *cmd, const char *why)
{
	char want[256];

	snprintf(want, sizeof(want), "encbench-trace: %s: %s\n", cmd, why);
	printf("# %s %s%s%s\n", cmd, argv[2], argv[3] ? " " : "",
	       argv[3] ? argv[3] : "");
	assert_int_equal(run_reap(run_spawn(tmp, "bad", cwd, NULL, argv)), 2);
	assert_string_equal(run_output(tmp, "bad", "stderr"), want);
	assert_string_equal(run_output(tmp, "bad", "stdout"), "");
	assert_folder_empty(cwd);
}

static void refuse_missing_and_empty(const char *cwd, const char *cmd,
				     const char *name, bool optional)
{
	char opt[96], eq[96], why[160];
	const char *missing[] = {bin, cmd, opt, NULL};
	const char *empty[] = {bin, cmd, opt, "", NULL};
	const char *empty_eq[] = {bin, cmd, eq, NULL};

	snprintf(opt, sizeof(opt), "--%s", name);
	snprintf(eq, sizeof(eq), "--%s=", name);
	snprintf(why, sizeof(why), "option '--%s' needs a value", name);
	if (!optional)
		expect_refusal(cwd, missing, cmd, why);
	snprintf(why, sizeof(why),
		 "option '--%s' needs a value, not an empty one", name);
	if (!optional)
		expect_refusal(cwd, empty, cmd, why);
	expect_refusal(cwd, empty_eq, cmd, why);
}

static void test_missing_and_empty_values(void **state)
{
	struct table_option opts[128];
	char cwd[sizeof(tmp) + 8], name[128];

	(void)state;
	snprintf(cwd, sizeof(cwd), "%s/cwd", tmp);
	assert_int_equal(mkdir(cwd, 0755), 0);
	for (int c = 0; c < nr_commands; c++) {
		int n = command_options(commands[c], opts, 128);

		for (int k = 0; k < n; k++)
			if (opts[k].takes_value)
				refuse_missing_and_empty(cwd, commands[c],
							 opts[k].name,
							 opts[k].optional);
	}
	for (const struct workload_ops *const *w = workload_list(); *w; w++)
		for (const struct workload_key *k = (*w)->keys; k && k->key;
		     k++) {
			snprintf(name, sizeof(name), "%s-%s", (*w)->name,
				 k->key);
			refuse_missing_and_empty(cwd, "run", name, false);
		}
}

/*
 * Help text split into literals only where a phrase ends: after a line
 * break, a comma, a stop, a colon, a semicolon or a closing parenthesis,
 * or before "(", "and"
 * or "or". Cut anywhere else ("... the " "same"), it cannot be found by
 * grepping for what the user sees.
 */
static bool phrase_boundary(const char *a_end, const char *b)
{
	static const char *const ends[] = {"\\n", "\\v", ", ", ". ",
					   ": ",  "; ",	 ") ", NULL};
	static const char *const starts[] = {"(", "and ", "or ", NULL};

	for (int i = 0; ends[i]; i++)
		if (!strncmp(a_end - strlen(ends[i]), ends[i], strlen(ends[i])))
			return true;
	for (int i = 0; starts[i]; i++)
		if (!strncmp(b, starts[i], strlen(starts[i])))
			return true;
	return false;
}

/* The literals of one help initializer, from p to its ';': 1 if one
 * was cut mid-phrase (said on stdout), else 0. */
static int check_help_literals(const char *file, const char *text,
			       const char *p)
{
	const char *a_start = NULL, *a_end = NULL;
	bool newline = false;
	int bad = 0;

	for (; *p && *p != ';'; p++) {
		if (*p == '\n')
			newline = true;
		else if (newline && *p == '.')
			break; /* the next field of a struct */
		else if (!isspace((unsigned char)*p) && *p != '"')
			a_end = NULL; /* not the next literal of a string */
		if (*p != '"')
			continue;
		if (a_end && newline && !phrase_boundary(a_end, p + 1)) {
			int line = 1;

			for (const char *q = text; q < a_end; q++)
				line += *q == '\n';
			printf("# %s:%d: help cut mid-phrase: \"%.*s\" \"%.*s\"\n",
			       file, line, (int)(a_end - a_start), a_start,
			       (int)strcspn(p + 1, "\""), p + 1);
			bad = 1;
		}
		a_start = ++p;
		while (*p && *p != '"')
			p += *p == '\\' ? 2 : 1;
		a_end = p;
		newline = false;
	}
	return bad;
}

static void test_help_not_cut_mid_phrase(void **state)
{
	static const char *const sources[] = {"userspace/cli/*.c",
					      "userspace/workload/*.c",
					      "userspace/storage/*.c", NULL};
	/* Where help text starts: argp docs and tables, the workloads'
	 * and targets' help, their options' help. */
	static const char *const starts[] = {".doc =",
					     "_doc[] =",
					     ".help =",
					     ".follows =",
					     "struct argp_option ",
					     "struct workload_key ",
					     "struct command ",
					     NULL};
	int bad = 0, files = 0;

	(void)state;
	for (int s = 0; sources[s]; s++) {
		glob_t g;

		assert_int_equal(glob(sources[s], 0, NULL, &g), 0);
		for (size_t f = 0; f < g.gl_pathc; f++) {
			char *text = file_text(g.gl_pathv[f]);

			assert_non_null(text);
			files++;
			for (int k = 0; starts[k]; k++)
				for (const char *p = text;
				     (p = strstr(p, starts[k])); p++)
					bad |= check_help_literals(
						g.gl_pathv[f], text, p);
			free(text);
		}
		globfree(&g);
	}
	assert_true(files > 20);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_option_one_line),
		cmocka_unit_test(test_help_has_examples),
		cmocka_unit_test(test_help_lists_every_option),
		cmocka_unit_test(test_missing_and_empty_values),
		cmocka_unit_test(test_empty_argument_one_line),
		cmocka_unit_test(test_check_args),
		cmocka_unit_test(test_help_not_cut_mid_phrase),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
