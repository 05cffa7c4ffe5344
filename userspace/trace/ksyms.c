// SPDX-License-Identifier: MIT
/*
 * /proc/kallsyms loaded into one name-sorted array, so that a lookup is a
 * binary search followed by a walk over the symbols of the same name.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"

struct ksym {
	uint64_t addr;
	char *name; /* points into the owning ksyms' strings */
};

struct ksyms {
	struct ksym *syms;
	size_t nr, cap;
	char *strs;
	size_t strs_len, strs_cap;
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 4096;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

static int add(struct ksyms *ks, uint64_t addr, const char *name)
{
	size_t len = strlen(name) + 1;

	if (grow((void **)&ks->syms, &ks->cap, ks->nr + 1, sizeof(*ks->syms)) ||
	    grow((void **)&ks->strs, &ks->strs_cap, ks->strs_len + len, 1))
		return -ENOMEM;
	memcpy(ks->strs + ks->strs_len, name, len);
	/* Store the offset now: strs may still move. */
	ks->syms[ks->nr].name = (char *)(uintptr_t)ks->strs_len;
	ks->syms[ks->nr].addr = addr;
	ks->strs_len += len;
	ks->nr++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct ksyms *ksyms_load(const char *path)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));
	char line[512], name[256];
	uint64_t addr;
	FILE *f = NULL;
	int err = 0;
	char type;

	if (!ks)
		return NULL;
	f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!f) {
		err = -errno;
		goto fail;
	}
	/* "ffffffff81806e60 t decrypt_work" or "... t
	 * kcryptd_crypt\t[dm_crypt]": the module column is not needed, a name
	 * is looked up everywhere. */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) !=
		    3)
			continue;
		err = add(ks, addr, name);
		if (err)
			goto fail;
	}
	fclose(f);
	f = NULL;
	for (size_t i = 0; i < ks->nr; i++)
		ks->syms[i].name = ks->strs + (uintptr_t)ks->syms[i].name;
	qsort(ks->syms, ks->nr, sizeof(*ks->syms), by_name);
	return ks;
fail:
	if (f)
		fclose(f);
	ksyms_free(ks);
	errno = -err;
	return NULL;
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->strs);
	free(ks);
}

/* Index of the first symbol called name, or nr if none. */
static size_t first_of(const struct ksyms *ks, const char *name)
{
	size_t lo = 0, hi = ks->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ks->syms[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int ksyms_addrs(const struct ksyms *ks, const char *name, uint64_t *addrs,
		int max)
{
	int n = 0;

	if (!ks || !name)
		return 0;
	for (size_t i = first_of(ks, name);
	     i < ks->nr && strcmp(ks->syms[i].name, name) == 0; i++) {
		if (!ks->syms[i].addr)
			continue;
		if (n < max)
			addrs[n] = ks->syms[i].addr;
		n++;
	}
	return n;
}

bool ksyms_has(const struct ksyms *ks, const char *name)
{
	return ksyms_addrs(ks, name, NULL, 0) > 0;
}

bool ksyms_named(const struct ksyms *ks, const char *name)
{
	size_t i;

	if (!ks || !name)
		return false;
	i = first_of(ks, name);
	return i < ks->nr && strcmp(ks->syms[i].name, name) == 0;
}
