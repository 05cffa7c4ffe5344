// SPDX-License-Identifier: MIT
/*
 * One command-line style for every subcommand (issue 6): an unknown
 * option is refused in the same one line, "encbench-trace: CMD: unknown
 * option 'X' (see encbench-trace CMD --help)", with exit 2 and nothing on
 * stdout; and each --help ends with an EXAMPLES section of that command.
 * The subcommands are those `encbench-trace --help` lists, so a new one is
 * held to this without editing the test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run_prog.h"

static char tmp[] = "/tmp/encbench-cli-style.XXXXXX";
static const char *bin;
static char commands[16][32];
static int nr_commands;

static int setup(void **state)
{
	const char *argv[3];
	const char *p;

	(void)state;
	bin = getenv("ENCBENCH_BIN") ?: "./encbench-trace";
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_option_one_line),
		cmocka_unit_test(test_help_has_examples),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
