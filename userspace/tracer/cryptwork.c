// SPDX-License-Identifier: MIT
/*
 * Crypto work items on workqueues. The workqueue tracepoints give a work
 * item's function, so the work functions that decrypt are looked up by
 * name in /proc/kallsyms, and the BPF side recognises their items by
 * address. To count only the target's items it follows the work item to
 * its device: the item is embedded in a context struct that holds a bio or
 * a buffer_head. Where that pointer sits is read here from BTF rather than
 * relocated by CO-RE, since ext4 and f2fs both define a struct
 * bio_post_read_ctx (with different members) and a relocation against
 * that name can be ambiguous.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "ksyms.h"
#include "trace_priv.h"

/* ext4's (fs/ext4/readpage.c): f2fs has a namesake with other members. */
static const struct work_ctx_layout ext4_read_ctx = {
	.structs = {"bio_post_read_ctx"},
	.work = "work",
	.ptr = "bio",
	.exact = {"bio", "work", "cur_step", "enabled_steps"},
};

/* fs/buffer.c: decrypt_bh_ctx until v6.4 (fsverity support there renamed
 * it), postprocess_bh_ctx since. */
static const struct work_ctx_layout bh_ctx = {
	.structs = {"postprocess_bh_ctx", "decrypt_bh_ctx"},
	.work = "work",
	.ptr = "bh",
};

/* block/blk-crypto-fallback.c: work and bio share an anonymous union
 * with the original bi_private and bi_end_io. */
static const struct work_ctx_layout blk_crypto_ctx = {
	.structs = {"bio_fallback_crypt_ctx"},
	.work = "work",
	.ptr = "bio",
};

/* Work functions that do encryption work, by name. */
static const struct {
	const char *name;
	enum crypt_work_kind kind;
	const char *what; /* for the note when not filtered */
	/* NULL: its items are filtered otherwise (dm-crypt: CO-RE on the
	 * dm_crypt module's struct dm_crypt_io, which has no namesake). */
	const struct work_ctx_layout *ctx;
} crypt_table[] = {
	{"decrypt_work", CRYPT_WORK_FSCRYPT_READ, "fscrypt", &ext4_read_ctx},
	{"decrypt_bh", CRYPT_WORK_FSCRYPT_BH, "fscrypt", &bh_ctx},
	{"kcryptd_crypt", CRYPT_WORK_DMCRYPT, "dm-crypt", NULL},
	{"blk_crypto_fallback_decrypt_bio", CRYPT_WORK_BLK_CRYPTO, "blk-crypto",
	 &blk_crypto_ctx},
};
#define NR_CRYPT_TABLE (int)(sizeof(crypt_table) / sizeof(crypt_table[0]))

/* ---- BTF ------------------------------------------------------------ */

static const struct btf_type *skip_mods(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	return t;
}

/*
 * Bit offset of member `name` in struct or union t, looking into
 * anonymous struct and union members too (blk-crypto's union); -1 if
 * none. Its type in *type.
 */
static long member_bits(const struct btf *btf, const struct btf_type *t,
			const char *name, __u32 *type, int depth)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		const struct btf_type *mt;
		long off;

		if (mn && mn[0]) {
			if (strcmp(mn, name))
				continue;
			*type = m->type;
			return btf_member_bit_offset(t, i);
		}
		mt = skip_mods(btf, m->type);
		if (depth >= 4 || !mt || !btf_is_composite(mt))
			continue;
		off = member_bits(btf, mt, name, type, depth + 1);
		if (off >= 0)
			return btf_member_bit_offset(t, i) + off;
	}
	return -1;
}

/* Its members, in order, are exactly l->exact (and l->exact says some). */
static bool members_exact(const struct btf *btf, const struct btf_type *t,
			  const struct work_ctx_layout *l)
{
	const struct btf_member *m = btf_members(t);
	int i;

	if (!l->exact[0])
		return false;
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (i >= WORK_CTX_MAX_MEMBERS || !l->exact[i] ||
		    strcmp(btf__name_by_offset(btf, m->name_off), l->exact[i]))
			return false;
	return i == WORK_CTX_MAX_MEMBERS || !l->exact[i];
}

static bool name_is_one_of(const char *name, const char *const *names)
{
	for (int i = 0; i < WORK_CTX_MAX_NAMES && names[i]; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/*
 * Byte offset of l->ptr from l->work if struct t has both, with work a
 * struct work_struct and ptr a pointer, both byte-aligned; 0 if not.
 */
static long long ctx_delta_of(const struct btf *btf, const struct btf_type *t,
			      const struct work_ctx_layout *l)
{
	const struct btf_type *wt, *pt;
	__u32 wtype = 0, ptype = 0;
	long w, p;

	w = member_bits(btf, t, l->work, &wtype, 0);
	p = member_bits(btf, t, l->ptr, &ptype, 0);
	if (w < 0 || p < 0 || w % 8 || p % 8 || w == p)
		return 0;
	wt = skip_mods(btf, wtype);
	pt = skip_mods(btf, ptype);
	if (!wt || !btf_is_struct(wt) ||
	    strcmp(btf__name_by_offset(btf, wt->name_off), "work_struct") ||
	    !pt || !btf_is_ptr(pt))
		return 0;
	return (long long)(p - w) / 8;
}

long long work_ctx_delta(const struct btf *btf, const struct work_ctx_layout *l,
			 char *why, size_t len)
{
	long long delta = 0, exact = 0, d;
	int nr = 0, nr_exact = 0;
	bool differ = false, exact_differ = false;
	__u32 n = btf__type_cnt(btf);

	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!btf_is_struct(t) ||
		    !name_is_one_of(btf__name_by_offset(btf, t->name_off),
				    l->structs))
			continue;
		d = ctx_delta_of(btf, t, l);
		if (!d)
			continue;
		differ |= nr && d != delta;
		delta = d;
		nr++;
		if (members_exact(btf, t, l)) {
			exact_differ |= nr_exact && d != exact;
			exact = d;
			nr_exact++;
		}
	}
	if (nr && !differ)
		return delta;
	if (nr_exact && !exact_differ)
		return exact;
	if (!nr)
		snprintf(why, len, "no struct %s with members %s and %s",
			 l->structs[0], l->work, l->ptr);
	else
		snprintf(why, len,
			 "%d structs %s with members %s and %s differ, "
			 "and their other members do not tell which is meant",
			 nr, l->structs[0], l->work, l->ptr);
	return 0;
}

/*
 * The delta for a work function's context in the BTF of each module
 * (or the kernel image) it is in; 0 with why if any lacks it or they
 * disagree. *vmlinux is loaded on first use and kept.
 */
static long long func_delta(const struct ksyms *ks, const char *func,
			    const struct work_ctx_layout *l,
			    struct btf **vmlinux, char *why, size_t len)
{
	const char *mods[4];
	int n = ksyms_modules(ks, func, mods, 4);
	long long delta = 0, d;

	if (!*vmlinux) {
		*vmlinux = btf__load_vmlinux_btf();
		if (libbpf_get_error(*vmlinux)) {
			*vmlinux = NULL;
			snprintf(why, len, "cannot load the kernel's BTF: %s",
				 strerror(errno));
			return 0;
		}
	}
	for (int i = 0; i < n; i++) {
		struct btf *btf = *vmlinux;

		if (mods[i][0]) {
			btf = btf__load_module_btf(mods[i], *vmlinux);
			if (libbpf_get_error(btf)) {
				snprintf(why, len, "no BTF for module %s: %s",
					 mods[i], strerror(errno));
				return 0;
			}
		}
		d = work_ctx_delta(btf, l, why, len);
		if (btf != *vmlinux)
			btf__free(btf);
		if (!d)
			return 0;
		if (delta && d != delta) {
			snprintf(why, len,
				 "its struct %s differs between the modules "
				 "it is in",
				 l->structs[0]);
			return 0;
		}
		delta = d;
	}
	return delta;
}

/* ---- the plan --------------------------------------------------------- */

/* Register every address of crypt_table[i]; false if there is no room. */
static bool add_funcs(const struct ksyms *ks, int i, struct crypt_work_plan *p)
{
	uint64_t addrs[MAX_CRYPT_FUNCS];
	int n = ksyms_addrs(ks, crypt_table[i].name, addrs, MAX_CRYPT_FUNCS);

	if (n > MAX_CRYPT_FUNCS - p->nr_funcs)
		return false;
	for (int j = 0; j < n; j++) {
		p->addrs[p->nr_funcs] = addrs[j];
		p->kinds[p->nr_funcs++] = crypt_table[i].kind;
	}
	if (n && crypt_table[i].kind == CRYPT_WORK_DMCRYPT)
		p->have_kcryptd = true;
	return true;
}

/* Resolve where each registered kind finds its device; what cannot be
 * resolved is counted on every device, and the note says so. */
static void resolve_ctx(const struct ksyms *ks, struct crypt_work_plan *p)
{
	struct btf *vmlinux = NULL;
	size_t used = 0;

	for (int i = 0; i < NR_CRYPT_TABLE; i++) {
		const char *name = crypt_table[i].name;
		char why[DETAIL_LEN] = "";
		long long d;

		if (!crypt_table[i].ctx || !ksyms_has(ks, name))
			continue;
		d = func_delta(ks, name, crypt_table[i].ctx, &vmlinux, why,
			       sizeof(why));
		p->ctx_delta[crypt_table[i].kind] = d;
		if (d || used >= sizeof(p->note) - 1)
			continue;
		used += snprintf(p->note + used, sizeof(p->note) - used,
				 "%s%s work not filtered by device: %s: %s",
				 used ? "; " : "", crypt_table[i].what, name,
				 why);
	}
	btf__free(vmlinux);
}

void crypt_work_plan(const struct ksyms *ks, int ks_errno,
		     struct crypt_work_plan *p)
{
	bool hidden = false;

	memset(p, 0, sizeof(*p));
	if (!ks) {
		snprintf(p->why, sizeof(p->why),
			 "cannot read /proc/kallsyms: %s", strerror(ks_errno));
		return;
	}
	for (int i = 0; i < NR_CRYPT_TABLE; i++) {
		const char *name = crypt_table[i].name;

		if (!ksyms_has(ks, name)) {
			hidden |= ksyms_named(ks, name);
			continue;
		}
		if (!add_funcs(ks, i, p)) {
			snprintf(p->why, sizeof(p->why),
				 "more than %d crypto work functions in "
				 "/proc/kallsyms",
				 MAX_CRYPT_FUNCS);
			p->nr_funcs = 0;
			return;
		}
	}
	/* Without one work function, no crypto work item can be told from
	 * any other: zero counts would look like "no crypto". */
	if (!p->nr_funcs) {
		if (hidden)
			snprintf(p->why, sizeof(p->why),
				 "/proc/kallsyms hides kernel addresses "
				 "(kptr_restrict or lockdown), so crypto work "
				 "functions cannot be recognised");
		else
			snprintf(p->why, sizeof(p->why),
				 "no crypto work function (decrypt_work, "
				 "decrypt_bh, kcryptd_crypt, "
				 "blk_crypto_fallback_decrypt_bio) in "
				 "/proc/kallsyms");
		return;
	}
	resolve_ctx(ks, p);
}
