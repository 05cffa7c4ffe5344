// SPDX-License-Identifier: MIT
/*
 * `run`, `setup` and `teardown`: their command lines parsed (args.c for
 * run's and setup's options), then handed to run/, which builds, measures
 * and undoes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cmdline.h"
#include "commands.h"
#include "../common/state.h"
#include "../run/run.h"

int cmd_run(int argc, char **argv)
{
	struct run_config cfg;
	int rc;

	config_defaults(&cfg);
	rc = parse_run_args(argc, argv, &cfg);
	if (!rc)
		rc = run_benchmark(&cfg);
	else if (rc == 1) /* help was printed */
		rc = 0;
	else if (rc == RUN_TOOL_REFUSED) /* fio's own error, said */
		rc = 1;
	config_free(&cfg);
	return rc;
}

int cmd_setup(int argc, char **argv)
{
	struct run_config cfg;
	int rc;

	config_command = "setup";
	config_defaults(&cfg);
	rc = parse_setup_args(argc, argv, &cfg);
	if (!rc)
		rc = setup_targets_up(&cfg);
	else if (rc == 1) /* help was printed */
		rc = 0;
	config_free(&cfg);
	return rc;
}

enum { OPT_TEARDOWN_KEY_FILE = 0x100 };

static const struct argp_option teardown_options[] = {
	{"key-file", OPT_TEARDOWN_KEY_FILE, "FILE", 0,
	 "the key of a LUKS2 device of yours whose dm-crypt flags a killed `tune --target` changed (else its passphrase is asked on the terminal)",
	 0},
	CMD_HELP_OPTION,
	{0},
};

/* --key-file: read by libcryptsetup itself, when a record needs it. */
static error_t teardown_key(int key, char *arg, struct argp_state *state)
{
	const char **key_file = cmd_line_input(state);

	if (key != OPT_TEARDOWN_KEY_FILE)
		return cmd_line_key(key, arg, state);
	*key_file = arg;
	return 0;
}

/* Help text: one literal per phrase, never cut (clang-format would). */
// clang-format off
static const struct argp teardown_argp = {
	.options = teardown_options,
	.parser = teardown_key,
	.doc = "Remove what `setup` left up and what a killed `run` left behind: "
	       "every object recorded in the state files (" STATE_DIR_DEFAULT "/) "
	       "of processes that are gone, newest first, "
	       "each checked to be still the one recorded. "
	       "Nothing that was not recorded is touched; "
	       "the dm-crypt flags a killed `tune --target` changed on a device of yours are put back. "
	       "Running it again is harmless.\n"
	       "\v"
	       "EXAMPLES:\n"
	       "  sudo encbench-trace teardown\n"
	       "  sudo encbench-trace teardown --key-file /root/data.key\n",
};
// clang-format on

int cmd_teardown(int argc, char **argv)
{
	const char *key_file = NULL;
	struct cmd_line cl = {
		.cmd = "teardown", .input = &key_file, .no_args = true};
	int rc = cmd_line_parse(&cl, &teardown_argp, argc, argv);

	if (rc)
		return rc == 1 ? 0 : rc;
	if (key_file && access(key_file, R_OK) < 0) {
		fprintf(stderr, "encbench-trace: teardown: --key-file %s: %s\n",
			key_file, strerror(errno));
		return 2;
	}
	return teardown_dead(key_file);
}
