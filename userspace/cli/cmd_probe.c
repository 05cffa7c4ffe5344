// SPDX-License-Identifier: MIT
/* `probe`: print what this kernel supports, as text or JSON. */
#include <stdbool.h>

#include "cmdline.h"
#include "commands.h"
#include "../run/run.h"

enum { OPT_JSON = 256 };

// clang-format off
static const struct argp_option probe_options[] = {
	{"json", OPT_JSON, 0, 0, "print JSON instead of text", 0},
	CMD_HELP_OPTION,
	{0},
};
// clang-format on

static error_t probe_key(int key, char *arg, struct argp_state *state)
{
	bool *json = cmd_line_input(state);

	if (key == OPT_JSON) {
		*json = true;
		return 0;
	}
	return cmd_line_key(key, arg, state);
}

/* Help text: one literal per phrase, never cut (clang-format would). */
// clang-format off
static const struct argp probe_argp = {
	.options = probe_options,
	.parser = probe_key,
	.doc = "Test each BPF attach method by loading and attaching a trivial program, "
	       "and report storage stacks, cipher drivers "
	       "and the source each layer would be traced from.\n"
	       "\v"
	       "EXAMPLES:\n"
	       "  sudo encbench-trace probe\n"
	       "  sudo encbench-trace probe --json | jq .attach\n",
};
// clang-format on

int cmd_probe(int argc, char **argv)
{
	bool json = false;
	struct cmd_line cl = {.cmd = "probe", .input = &json, .no_args = true};
	int rc = cmd_line_parse(&cl, &probe_argp, argc, argv);

	if (rc)
		return rc == 1 ? 0 : rc;
	return probe_print(json);
}
