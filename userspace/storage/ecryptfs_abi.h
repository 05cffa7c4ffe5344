/* SPDX-License-Identifier: MIT */
/*
 * The auth token eCryptfs finds its mount key in (include/linux/ecryptfs.h,
 * which no uapi header has): the payload of a "user" key whose description
 * is the mount's ecryptfs_sig. Shared by the eCryptfs layer (ecryptfs.c)
 * and the guest test that mounts eCryptfs by hand (tests/vm/test_vm_truth.c).
 */
#ifndef ENCBENCH_ECRYPTFS_ABI_H
#define ENCBENCH_ECRYPTFS_ABI_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#define ECRYPTFS_VERSION			0x0004 /* major 0, minor 4 */
#define ECRYPTFS_PASSWORD			0
#define ECRYPTFS_SESSION_KEY_ENCRYPTION_KEY_SET 0x02
#define ECRYPTFS_MAX_KEY_BYTES			64
#define ECRYPTFS_SIG_HEX			16
#define PGP_DIGEST_ALGO_SHA512			10

struct ecryptfs_auth_tok_abi {
	uint16_t version;
	uint16_t token_type;
	uint32_t flags;
	struct {
		uint32_t flags, encrypted_key_size, decrypted_key_size;
		uint8_t encrypted_key[512];
		uint8_t decrypted_key[ECRYPTFS_MAX_KEY_BYTES];
	} session_key;
	uint8_t reserved[32];
	struct {
		uint32_t password_bytes;
		int32_t hash_algo;
		uint32_t hash_iterations;
		uint32_t session_key_encryption_key_bytes;
		uint32_t flags;
		uint8_t session_key_encryption_key[ECRYPTFS_MAX_KEY_BYTES];
		uint8_t signature[ECRYPTFS_SIG_HEX + 1];
		uint8_t salt[8];
	} password;
} __attribute__((packed));

/* A password token with a random 64-byte key and a random signature, its
 * hex in sig (the key's description and the mount's ecryptfs_sig); tok
 * zeroed first. 0, or -1 if the random bytes could not be had. */
static inline int ecryptfs_auth_tok_fill(struct ecryptfs_auth_tok_abi *tok,
					 char sig[ECRYPTFS_SIG_HEX + 1])
{
	unsigned char raw[ECRYPTFS_SIG_HEX / 2];

	memset(tok, 0, sizeof(*tok));
	tok->version = ECRYPTFS_VERSION;
	tok->token_type = ECRYPTFS_PASSWORD;
	tok->password.hash_algo = PGP_DIGEST_ALGO_SHA512;
	tok->password.flags = ECRYPTFS_SESSION_KEY_ENCRYPTION_KEY_SET;
	tok->password.session_key_encryption_key_bytes = ECRYPTFS_MAX_KEY_BYTES;
	if (getrandom(tok->password.session_key_encryption_key,
		      ECRYPTFS_MAX_KEY_BYTES, 0) != ECRYPTFS_MAX_KEY_BYTES ||
	    getrandom(raw, sizeof(raw), 0) != sizeof(raw))
		return -1;
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(sig + 2 * i, 3, "%02x", raw[i]);
	memcpy(tok->password.signature, sig, ECRYPTFS_SIG_HEX);
	return 0;
}

#endif
