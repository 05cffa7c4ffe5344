// SPDX-License-Identifier: MIT
/* `merge`: runs from several machines side by side (saved.h). */
#include <stdlib.h>

#include "saved.h"
#include "../report/report.h"

int merge_saved(char *const *args, int n, const char *dir, const char *html)
{
	struct results *runs[MAX_MERGE] = {NULL};
	char path[PATH_LEN + 16];
	int nr = 0, rc = 2;

	for (int i = 0; i < n && i < MAX_MERGE; i++) {
		runs[nr] = load_run(args[i], path, sizeof(path));
		if (!runs[nr])
			goto cleanup;
		nr++;
	}
	report_print_merged((const struct results *const *)runs, nr, stdout);
	rc = dir ? write_html_in("merge", (const struct results *const *)runs,
				 nr, dir, html)
		 : 0;
cleanup:
	for (int i = 0; i < nr; i++)
		free(runs[i]);
	return rc;
}
