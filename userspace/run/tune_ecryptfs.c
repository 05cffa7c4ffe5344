// SPDX-License-Identifier: MIT
/*
 * `tune --kind ecryptfs`: the mount's cipher and key size against plain,
 * and how to apply the best: the mount options (each file keeps the
 * cipher it was created with).
 */
#include <stdio.h>

#include "tune_delta.h"

/* eCryptfs's ciphers with 128-bit blocks (blowfish, cast5 and des3_ede
 * have 64-bit ones, too small a block for a disk's worth of data); the
 * reference is AES with a 32-byte key. eCryptfs runs them in CBC. */
const struct tune_delta ecryptfs_deltas[] = {
	{.axis = "key",
	 .label = "aes-128",
	 .settings = "ecryptfs_cipher=aes, ecryptfs_key_bytes=16",
	 .ecryptfs_cipher = "aes",
	 .ecryptfs_key_bytes = 16,
	 .needs = {"cbc(aes)"}},
	{.axis = "key",
	 .label = "aes-192",
	 .settings = "ecryptfs_cipher=aes, ecryptfs_key_bytes=24",
	 .ecryptfs_cipher = "aes",
	 .ecryptfs_key_bytes = 24,
	 .needs = {"cbc(aes)"}},
	{.axis = "cipher",
	 .label = "twofish-256",
	 .settings = "ecryptfs_cipher=twofish, ecryptfs_key_bytes=32",
	 .ecryptfs_cipher = "twofish",
	 .ecryptfs_key_bytes = 32,
	 .needs = {"cbc(twofish)"}},
	{.axis = "cipher",
	 .label = "cast6-256",
	 .settings = "ecryptfs_cipher=cast6, ecryptfs_key_bytes=32",
	 .ecryptfs_cipher = "cast6",
	 .ecryptfs_key_bytes = 32,
	 .needs = {"cbc(cast6)"}},
	{0},
};

void tune_ecryptfs_advice(const struct run_target_opts *o,
			  struct tune_advice *ad)
{
	snprintf(ad->command, sizeof(ad->command),
		 "mount -t ecryptfs with ecryptfs_cipher=%s,"
		 "ecryptfs_key_bytes=%d   (files created from then on; "
		 "ecryptfs-utils asks for both at mount time)",
		 o->ecryptfs.cipher, o->ecryptfs.key_bytes);
	snprintf(ad->caveat, DETAIL_LEN,
		 "each file keeps the cipher it was created with: copy files "
		 "anew to move them over; AES is the cipher hardware "
		 "accelerates and reviewers study most");
}
