// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

const char *config_command = "run";

void config_defaults(struct run_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->scratch, sizeof(cfg->scratch), "/var/tmp");
	cfg->size_bytes = 64ULL << 20;
	cfg->runs = 5;
	cfg->scale = 1.0;
	cfg->stable_pct = 3.5; /* the Phoronix suite's default */
	cfg->min_runs = 3;
	cfg->max_runs = 20;
	/* Every kind, baseline first; those this kernel cannot build are
	 * skipped with their reason (--targets makes that an error). */
	cfg->nr_targets = 0;
	for (const struct target_kind *const *k = target_list();
	     *k && cfg->nr_targets < MAX_TARGETS; k++)
		snprintf(cfg->targets[cfg->nr_targets++], NAME_LEN, "%s",
			 (*k)->kind);
	cfg->nr_workloads = 1;
	snprintf(cfg->workloads[0], NAME_LEN, "dd");
	cfg->trace = true;
	cfg->trace_runs = 2;
	cfg->drop_caches = true;
	snprintf(cfg->luks.cipher, sizeof(cfg->luks.cipher), "aes-xts-plain64");
	cfg->luks.key_bits = 512;
	cfg->luks.sector_size = 4096;
	cfg->budget_s = 20 * 60;
}

void config_free(struct run_config *cfg)
{
	for (int i = 0; i < MAX_WORKLOADS; i++) {
		free(cfg->wparams[i]);
		cfg->wparams[i] = NULL;
	}
}

int config_max_runs(const struct run_config *cfg)
{
	return cfg->runs_auto ? cfg->max_runs : cfg->runs;
}
