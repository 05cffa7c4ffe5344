// SPDX-License-Identifier: MIT
/*
 * `report --reanalyze`: a saved run's snapshots analysed again by this
 * version's analysis, printed, and with -o written as a new results
 * folder (the snapshots with it); the saved run's folder is only read.
 */
#include <stdio.h>
#include <stdlib.h>

#include "run.h"
#include "outdir.h"
#include "../analysis/analysis.h"
#include "../report/report.h"

/* r's files into the new folder out (claimed), the snapshots with them. */
static int write_folder(struct results *r, struct snapshot **snaps, int n,
			struct output_dir *out)
{
	int err = output_claim(out);

	if (err)
		return err;
	err = report_write_json(r, out->path, NULL);
	err = err ?: report_write_csv(r, out->path);
	err = err ?: report_write_histograms(r, out->path);
	err = err ?: report_write_runlog(r, out->path);
	err = err ?: report_write_text(r, out->path);
	err = err ?: report_write_snapshots(snaps, n, out->path);
	output_release(out, !err);
	return err ? 1 : 0;
}

int reanalyze_run(struct results *r, const char *dir, const char *arg,
		  const char *output, bool full, bool hist)
{
	char again[PATH_LEN + 64];
	struct output_dir out = {.lock_fd = -1};
	struct snapshot **snaps = NULL;
	int n = 0, rc = 0;

	if (output && output_check(output, &out))
		return 2;
	if (report_read_snapshots(dir, &snaps, &n))
		return 1;
	analyse_snapshots((const struct snapshot *const *)snaps, n, r);
	if (output)
		rc = write_folder(r, snaps, n, &out);
	printf("Analysed again from %d snapshots of %s/ by encbench-trace "
	       "%s (recorded by %s)\n\n",
	       n, dir, ENCBENCH_VERSION, r->meta.tool_version);
	snprintf(again, sizeof(again),
		 "encbench-trace report --reanalyze --full %s", arg);
	report_print_form(r, stdout, full, hist, again);
	if (output && !rc)
		printf("\nNew results in %s/\n", out.path);
	report_free_snapshots(snaps, n);
	return rc;
}
