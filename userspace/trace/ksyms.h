/* SPDX-License-Identifier: MIT */
/*
 * /proc/kallsyms, read once: the tracer resolves work function addresses
 * (crypto work items are recognised by their function) and checks that a
 * function exists before it attaches to it.
 */
#ifndef ENCBENCH_KSYMS_H
#define ENCBENCH_KSYMS_H

#include <stdbool.h>
#include <stdint.h>

struct ksyms;

/* Load a kallsyms-format file (path NULL: /proc/kallsyms). NULL with
 * errno set on failure. All-zero addresses (kptr_restrict, not root)
 * load fine but resolve to nothing. */
struct ksyms *ksyms_load(const char *path);
void ksyms_free(struct ksyms *ks);

/* Addresses of every symbol called `name` (static functions of one name
 * can exist in several files or modules), at most `max`; returns how many
 * there are, which may exceed max. Zero addresses are not reported. */
int ksyms_addrs(const struct ksyms *ks, const char *name, uint64_t *addrs,
		int max);
bool ksyms_has(const struct ksyms *ks, const char *name);
/* Whether `name` is listed at all, address or not: with addresses hidden
 * (kptr_restrict, lockdown) a function still exists for fentry/kprobe. */
bool ksyms_named(const struct ksyms *ks, const char *name);
/* The distinct modules ("" for the kernel image) of the symbols called
 * `name` that have an address, at most `max`; how many. The strings live
 * as long as ks. */
int ksyms_modules(const struct ksyms *ks, const char *name, const char **mods,
		  int max);

/* [start, end): a function's text, up to the next symbol. */
struct ksym_range {
	uint64_t start, end;
};

/* The ranges of the functions whose names `match`, sorted by address, in
 * *out (free() it); how many, or -ENOMEM. */
int ksyms_ranges(const struct ksyms *ks, bool (*match)(const char *name),
		 struct ksym_range **out);
/* Whether addr lies in one of n sorted ranges. */
bool ksym_in_ranges(const struct ksym_range *r, int n, uint64_t addr);

#endif /* ENCBENCH_KSYMS_H */
