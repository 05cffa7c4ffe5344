/* SPDX-License-Identifier: MIT */
/*
 * What an active dm-crypt mapping says about itself, read back through
 * libcryptsetup (crypt_init_by_name): the same for a mapping we made and
 * for one a user's mount sits on.
 */
#ifndef ENCBENCH_DMCRYPT_H
#define ENCBENCH_DMCRYPT_H

#include <stdint.h>

#include "../common/results.h"

/* The dm-crypt performance flags, as --luks-flags names them. */
struct dmcrypt_flag {
	const char *name;
	uint32_t bit; /* CRYPT_ACTIVATE_* */
};
extern const struct dmcrypt_flag dmcrypt_flags[];

struct dmcrypt_params {
	char type[16];		      /* "LUKS2", "PLAIN", ... */
	char cipher[NAME_LEN];	      /* "aes-xts-plain64" */
	char kernel_cipher[NAME_LEN]; /* "xts(aes)": what /proc/crypto names */
	int key_bits;
	int sector_size;
	uint64_t data_offset; /* bytes into the backing device */
	uint32_t flags;	      /* CRYPT_ACTIVATE_* read from the active table */
};

/* "no_read_workqueue,same_cpu_crypt" -> bits; -1 on an unknown name. */
int dmcrypt_parse_flags(const char *list, uint32_t *flags);
/* Bits -> "no_read_workqueue,same_cpu_crypt" ("none" when 0). */
void dmcrypt_flag_names(uint32_t flags, char *buf, size_t len);
/* "aes" + "xts-plain64" -> "xts(aes)"; "capi:xts(aes)-plain64" too. */
void dmcrypt_kernel_cipher(const char *cipher, const char *mode, char *buf,
			   size_t len);
/* Read an active mapping's parameters: 0 or negative errno. */
int dmcrypt_read_active(const char *dm_name, struct dmcrypt_params *p);
/* Copy them into a target's description. */
void dmcrypt_describe(const struct dmcrypt_params *p, struct target_info *ti);

#endif
