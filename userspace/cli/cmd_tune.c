// SPDX-License-Identifier: MIT
/* `tune`: its command line parsed (args.c), then handed to run/. */
#include "args.h"
#include "commands.h"
#include "../run/run.h"

int cmd_tune(int argc, char **argv)
{
	struct run_config cfg;
	int rc;

	config_command = "tune";
	config_defaults(&cfg);
	rc = parse_tune_args(argc, argv, &cfg);
	if (!rc)
		rc = tune_benchmark(&cfg);
	else if (rc == 1) /* help was printed */
		rc = 0;
	config_free(&cfg);
	return rc;
}
