/* SPDX-License-Identifier: MIT */
/*
 * `tune`: the variants of one target kind, each a target configuration
 * built next to the plain baseline and run with the same workloads, one
 * axis at a time from the tool's defaults (the reference), or two axes
 * crossed. The plan (tune_plan.c) is a pure function of the kind and of
 * what was probed, so its skips and their reasons are unit-tested.
 */
#ifndef ENCBENCH_TUNE_H
#define ENCBENCH_TUNE_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/results.h"
#include "run_priv.h"

/* What the plan needs to know about this machine (tune.c probes it). */
struct tune_facts {
	int kernel_major, kernel_minor;
	/* libcryptsetup knows CRYPT_ACTIVATE_HIGH_PRIORITY (2.8+) */
	bool cryptsetup_high_priority;
	/* The blk-crypto fallback (-o inlinecrypt without hardware). */
	bool blk_crypto_fallback;
	/* Is a kernel cipher ("adiantum(xchacha12,aes)") usable? why says
	 * how that was found either way. */
	bool (*cipher_usable)(const char *name, char *why, size_t len);
};

struct tune_plan {
	struct tune_result *out; /* variants: names, axes, skips */
	struct run_target_opts set[MAX_VARIANTS]; /* each variant's */
};

/* Fill plan->out's variants for kind from the reference (the tool's
 * defaults): the reference first, then each axis's values, or with
 * cross[0] and cross[1] set, their product. 0, or 2 after a one-line
 * error (an unknown axis, too many variants). */
int tune_plan_make(const char *kind, const struct luks_options *ref_luks,
		   const char cross[2][NAME_LEN / 2],
		   const struct tune_facts *facts, struct tune_plan *plan);
/* Keep only the reference and the variants of the nr axes named: 0, or
 * 2 after a one-line error naming an axis the kind has not. */
int tune_plan_only(const char *kind, char axes[][NAME_LEN], int nr,
		   struct tune_plan *plan);

/* The variants for the user's own open LUKS2 device (--target): the
 * reference is the device as it is, its performance flags perf_now; each
 * other adds one value of the flags axis. Only bits of perf_mask may be
 * refreshed; high_priority and what the kernel lacks are skipped with
 * the reason, as is a flag the device has already. */
int tune_plan_device(const char *name, uint32_t perf_now, uint32_t perf_mask,
		     const struct tune_facts *facts, struct tune_plan *plan);

/* The sweep (tune.c): plain, then each variant within the budget, then
 * statistics, ranking and advice. 0, 1 on failure, 2 on bad input;
 * *measured when there is a ranking to report (after a signal too). */
int tune_run(struct run_ctx *ctx, bool *measured);
/* The command that applies the best variant, and its caveat, into
 * r->tune.advice (tune_advice.c). */
void tune_advice(struct results *r, const struct tune_plan *plan);

#endif /* ENCBENCH_TUNE_H */
