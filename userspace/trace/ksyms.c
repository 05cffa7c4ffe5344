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

static int by_addr(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int ksyms_ranges(const struct ksyms *ks, bool (*match)(const char *name),
		 struct ksym_range **out)
{
	uint64_t *addrs = NULL;
	struct ksym_range *r = NULL;
	size_t n = 0, nr = 0;

	*out = NULL;
	if (!ks)
		return 0;
	addrs = malloc((ks->nr + 1) * sizeof(*addrs));
	r = malloc((ks->nr + 1) * sizeof(*r));
	if (!addrs || !r)
		goto fail;
	for (size_t i = 0; i < ks->nr; i++)
		if (ks->syms[i].addr)
			addrs[n++] = ks->syms[i].addr;
	qsort(addrs, n, sizeof(*addrs), by_addr);
	for (size_t i = 0; i < ks->nr; i++) {
		uint64_t a = ks->syms[i].addr;
		size_t lo = 0, hi = n;

		if (!a || !match(ks->syms[i].name))
			continue;
		/* The range ends at the next higher address of any symbol. */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (addrs[mid] <= a)
				lo = mid + 1;
			else
				hi = mid;
		}
		r[nr].start = a;
		r[nr].end = lo < n ? addrs[lo] : a + 1;
		nr++;
	}
	free(addrs);
	qsort(r, nr, sizeof(*r), by_addr); /* start is the first member */
	*out = r;
	return (int)nr;
fail:
	free(addrs);
	free(r);
	return -ENOMEM;
}

bool ksym_in_ranges(const struct ksym_range *r, int n, uint64_t addr)
{
	int lo = 0, hi = n;

	/* The last range starting at or below addr. */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && addr < r[lo - 1].end;
}
