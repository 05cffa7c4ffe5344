// SPDX-License-Identifier: MIT
/* Reading an active dm-crypt mapping back through libcryptsetup. */
#include <errno.h>
#include <libcryptsetup.h>
#include <stdio.h>
#include <string.h>

#include "dmcrypt.h"

const struct dmcrypt_flag dmcrypt_flags[] = {
	{"no_read_workqueue", CRYPT_ACTIVATE_NO_READ_WORKQUEUE},
	{"no_write_workqueue", CRYPT_ACTIVATE_NO_WRITE_WORKQUEUE},
	{"same_cpu_crypt", CRYPT_ACTIVATE_SAME_CPU_CRYPT},
	{"submit_from_crypt_cpus", CRYPT_ACTIVATE_SUBMIT_FROM_CRYPT_CPUS},
	{NULL, 0},
};

int dmcrypt_parse_flags(const char *list, uint32_t *flags)
{
	char buf[256], *save = NULL, *tok;

	*flags = 0;
	if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
		return -1;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; dmcrypt_flags[i].name; i++)
			if (!strcmp(tok, dmcrypt_flags[i].name))
				break;
		if (!dmcrypt_flags[i].name)
			return -1;
		*flags |= dmcrypt_flags[i].bit;
	}
	return 0;
}

void dmcrypt_flag_names(uint32_t flags, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; dmcrypt_flags[i].name && n < len; i++)
		if (flags & dmcrypt_flags[i].bit)
			n += snprintf(buf + n, len - n, "%s%s", n ? "," : "",
				      dmcrypt_flags[i].name);
	if (!n)
		snprintf(buf, len, "none");
}

void dmcrypt_kernel_cipher(const char *cipher, const char *mode, char *buf,
			   size_t len)
{
	size_t m = strcspn(mode, "-");

	/* dm-crypt's "capi:" form already names the kernel algorithm. */
	if (!strncmp(cipher, "capi:", 5)) {
		snprintf(buf, len, "%.*s", (int)strcspn(cipher + 5, "-"),
			 cipher + 5);
		return;
	}
	snprintf(buf, len, "%.*s(%s)", (int)m, mode, cipher);
}

int dmcrypt_read_active(const char *dm_name, struct dmcrypt_params *p)
{
	struct crypt_active_device cad;
	struct crypt_device *cd = NULL;
	const char *cipher, *mode, *type;
	int err;

	memset(p, 0, sizeof(*p));
	err = crypt_init_by_name(&cd, dm_name);
	if (err < 0)
		return err;
	err = crypt_get_active_device(cd, dm_name, &cad);
	if (err < 0)
		goto cleanup;
	type = crypt_get_type(cd);
	cipher = crypt_get_cipher(cd);
	mode = crypt_get_cipher_mode(cd);
	if (!cipher || !mode) {
		err = -ENODATA;
		goto cleanup;
	}
	snprintf(p->type, sizeof(p->type), "%s", type ? type : "dm-crypt");
	snprintf(p->cipher, sizeof(p->cipher), "%s-%s", cipher, mode);
	dmcrypt_kernel_cipher(cipher, mode, p->kernel_cipher,
			      sizeof(p->kernel_cipher));
	p->key_bits = crypt_get_volume_key_size(cd) * 8;
	p->sector_size = crypt_get_sector_size(cd);
	/* The active table's offset, not the header's: the two agree for
	 * LUKS, and only the first exists for a headerless mapping. */
	p->data_offset = cad.offset * 512;
	p->flags = cad.flags;
cleanup:
	crypt_free(cd);
	return err;
}

void dmcrypt_describe(const struct dmcrypt_params *p, struct target_info *ti)
{
	snprintf(ti->encryption.scheme, NAME_LEN, "%s dm-crypt", p->type);
	snprintf(ti->encryption.contents_cipher, NAME_LEN, "%s",
		 p->kernel_cipher);
	ti->encryption.key_bits = p->key_bits;
	ti->encryption.sector_size = p->sector_size;
	dmcrypt_flag_names(p->flags, ti->encryption.flags,
			   sizeof(ti->encryption.flags));
	/* dm-crypt's null cipher (cipher_null-ecb, capi:ecb(cipher_null)):
	 * dm-crypt's whole path, no cipher work, plaintext on disk. Built
	 * as a control or found in a user's stack, it must not pass for
	 * encryption. */
	ti->null_cipher = strstr(p->kernel_cipher, "cipher_null") != NULL;
	if (ti->null_cipher && ti->nr_notes < MAX_NOTES)
		snprintf(ti->notes[ti->nr_notes++], DETAIL_LEN,
			 "NOT ENCRYPTED: %s is dm-crypt's null cipher, which stores plaintext; this is dm-crypt's path without cipher work",
			 p->cipher);
}
