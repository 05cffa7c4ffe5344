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
	char *mod;  /* likewise, "" for the kernel image */
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

/* Copy s into strs; its offset, as strs may still move. */
static int intern(struct ksyms *ks, const char *s, size_t *off)
{
	size_t len = strlen(s) + 1;

	if (grow((void **)&ks->strs, &ks->strs_cap, ks->strs_len + len, 1))
		return -ENOMEM;
	memcpy(ks->strs + ks->strs_len, s, len);
	*off = ks->strs_len;
	ks->strs_len += len;
	return 0;
}

/* mod_off: offset of the module name, shared by all of a module's
 * symbols (kallsyms lists them together). */
static int add(struct ksyms *ks, uint64_t addr, const char *name,
	       size_t mod_off)
{
	size_t off;

	if (grow((void **)&ks->syms, &ks->cap, ks->nr + 1, sizeof(*ks->syms)) ||
	    intern(ks, name, &off))
		return -ENOMEM;
	ks->syms[ks->nr].name = (char *)(uintptr_t)off;
	ks->syms[ks->nr].mod = (char *)(uintptr_t)mod_off;
	ks->syms[ks->nr].addr = addr;
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
	char line[512], name[256], mod[64], last[64] = "";
	size_t mod_off = 0, none = 0;
	uint64_t addr;
	FILE *f = NULL;
	int err = 0, n;
	char type;

	if (!ks)
		return NULL;
	f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!f) {
		err = -errno;
		goto fail;
	}
	err = intern(ks, "", &none);
	if (err)
		goto fail;
	/* "ffffffff81806e60 t decrypt_work" or "... t
	 * kcryptd_crypt\t[dm_crypt]": a name is looked up everywhere, the
	 * module says whose BTF describes the symbol's types. */
	while (fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%" SCNx64 " %c %255s [%63[^]]", &addr, &type,
			   name, mod);
		if (n < 3)
			continue;
		if (n == 3) {
			mod_off = none;
			last[0] = '\0';
		} else if (strcmp(mod, last)) {
			err = intern(ks, mod, &mod_off);
			if (err)
				goto fail;
			snprintf(last, sizeof(last), "%s", mod);
		}
		err = add(ks, addr, name, mod_off);
		if (err)
			goto fail;
	}
	fclose(f);
	f = NULL;
	for (size_t i = 0; i < ks->nr; i++) {
		ks->syms[i].name = ks->strs + (uintptr_t)ks->syms[i].name;
		ks->syms[i].mod = ks->strs + (uintptr_t)ks->syms[i].mod;
	}
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

/* The symbols called name are [returned index, *end); none if ks is NULL. */
static size_t named(const struct ksyms *ks, const char *name, size_t *end)
{
	size_t first, i;

	*end = 0;
	if (!ks || !name)
		return 0;
	first = i = first_of(ks, name);
	while (i < ks->nr && strcmp(ks->syms[i].name, name) == 0)
		i++;
	*end = i;
	return first;
}

int ksyms_addrs(const struct ksyms *ks, const char *name, uint64_t *addrs,
		int max)
{
	size_t end;
	int n = 0;

	for (size_t i = named(ks, name, &end); i < end; i++) {
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
	size_t end;

	return named(ks, name, &end) < end;
}

int ksyms_modules(const struct ksyms *ks, const char *name, const char **mods,
		  int max)
{
	size_t end;
	int n = 0, j;

	for (size_t i = named(ks, name, &end); i < end; i++) {
		if (!ks->syms[i].addr)
			continue;
		for (j = 0; j < n && strcmp(mods[j], ks->syms[i].mod); j++)
			;
		if (j == n && n < max)
			mods[n++] = ks->syms[i].mod;
	}
	return n;
}

/* By address, then by name: the first of several names at one address
 * is the same on every load. */
static int by_addr_name(const void *a, const void *b)
{
	const struct ksym *x = *(const struct ksym *const *)a;
	const struct ksym *y = *(const struct ksym *const *)b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

int ksyms_symbolize(const struct ksyms *ks, const uint64_t *addrs, int n,
		    const char **names)
{
	const struct ksym **by = NULL;
	size_t nr = 0;

	for (int i = 0; i < n; i++)
		names[i] = NULL;
	if (!ks || !ks->nr)
		return 0;
	by = malloc(ks->nr * sizeof(*by));
	if (!by)
		return -ENOMEM;
	for (size_t i = 0; i < ks->nr; i++)
		if (ks->syms[i].addr)
			by[nr++] = &ks->syms[i];
	qsort(by, nr, sizeof(*by), by_addr_name);
	for (int i = 0; i < n; i++) {
		size_t lo = 0, hi = nr;

		/* The last symbol at or below the address... */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (by[mid]->addr <= addrs[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo)
			continue;
		/* ...and of several at that address, the first by name. */
		lo--;
		while (lo && by[lo - 1]->addr == by[lo]->addr)
			lo--;
		names[i] = by[lo]->name;
	}
	free(by);
	return 0;
}
