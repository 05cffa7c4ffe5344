// SPDX-License-Identifier: MIT
/* `probe`: print what this kernel supports, as text or JSON. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "../probe/probe.h"
#include "../report/report.h"

int cmd_probe(int argc, char **argv)
{
	struct capabilities caps;
	bool json = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "-h") ||
			   !strcmp(argv[i], "--help")) {
			printf("Usage: encbench-trace probe [--json]\n\n"
			       "Test each BPF attach method by loading and "
			       "attaching a trivial program,\nand report "
			       "storage stacks, cipher drivers and the source "
			       "each layer\nwould be traced from.\n\n"
			       "Examples:\n  sudo encbench-trace probe\n"
			       "  sudo encbench-trace probe --json | jq "
			       ".attach\n");
			return 0;
		} else {
			fprintf(stderr,
				"encbench-trace: probe: unknown option "
				"'%s' (see encbench-trace probe --help)\n",
				argv[i]);
			return 2;
		}
	}
	probe_all(&caps);
	if (json) {
		struct json_object *o = report_caps_json(&caps);

		if (!o)
			return 1;
		puts(json_object_to_json_string_ext(
			o, JSON_C_TO_STRING_PRETTY |
				   JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		report_print_caps(&caps, stdout);
	}
	probe_release();
	return 0;
}
