// SPDX-License-Identifier: MIT
/* `probe`: what this kernel supports, printed as text or JSON. */
#include <stdio.h>
#include <unistd.h>

#include "run.h"
#include "../common/state.h"
#include "../probe/probe.h"
#include "../report/report.h"

int probe_print(bool json)
{
	struct capabilities caps;
	int rc = 0;

	/* Probe may mount tracefs: recorded, for `teardown`. */
	if (geteuid() == 0 && state_open("probe"))
		return 1;
	run_probe(&caps);
	if (json)
		rc = report_print_caps_json(&caps, stdout) ? 1 : 0;
	else
		report_print_caps(&caps, stdout);
	probe_release();
	return state_close() ? 1 : rc;
}
