/* SPDX-License-Identifier: MIT */
/*
 * /proc/kallsyms, read once: the tracer resolves work function addresses
 * (crypto work items are recognised by their function), checks that a
 * function exists before it attaches to it, and names the frames of the
 * stacks a phase recorded.
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

/* names[i]: the function addrs[i] lies in (the last symbol at or below
 * it; of several at one address the first by name), NULL if none; the
 * strings live as long as ks. 0 or -ENOMEM. */
int ksyms_symbolize(const struct ksyms *ks, const uint64_t *addrs, int n,
		    const char **names);

#endif /* ENCBENCH_KSYMS_H */
