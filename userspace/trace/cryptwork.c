// SPDX-License-Identifier: MIT
/*
 * Crypto work items on workqueues. The workqueue tracepoints give a work
 * item's function, so the work functions that decrypt are looked up by
 * name in /proc/kallsyms, and the BPF side recognises their items by
 * address.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ksyms.h"
#include "trace_priv.h"

/* Work functions that do encryption work, by name. */
static const struct {
	const char *name;
	enum crypt_work_kind kind;
} crypt_table[] = {
	/* fscrypt reads: ext4's static decrypt_work, and decrypt_bh for
	 * buffer heads; several files may have one, all count. */
	{"decrypt_work", CRYPT_WORK_FSCRYPT_READ},
	{"decrypt_bh", CRYPT_WORK_FSCRYPT_READ},
	{"kcryptd_crypt", CRYPT_WORK_DMCRYPT},
	{"blk_crypto_fallback_decrypt_bio", CRYPT_WORK_BLK_CRYPTO},
};
#define NR_CRYPT_TABLE (int)(sizeof(crypt_table) / sizeof(crypt_table[0]))

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
	}
}
