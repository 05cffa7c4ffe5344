/* SPDX-License-Identifier: MIT */
/*
 * Stack detection: what storage a folder the user named is on, read from
 * the system and never changed. The mount table gives the filesystem, its
 * device (or an eCryptfs mount's lower folder, a ZFS mount's dataset);
 * sysfs `slaves` give the block devices below it (dm -> loop, partition ->
 * disk); libcryptsetup reads any dm-crypt mapping among them; the fscrypt
 * policy comes from FS_IOC_GET_ENCRYPTION_POLICY_EX on the folder.
 */
#ifndef ENCBENCH_DETECT_H
#define ENCBENCH_DETECT_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/results.h"
#include "dmcrypt.h"

struct detected_stack {
	char path[PATH_LEN];   /* the folder, resolved */
	char mnt[PATH_LEN];    /* mount point of its filesystem */
	char fs[NAME_LEN / 2]; /* "ext4", "ecryptfs", "zfs" */
	/* eCryptfs: the lower folder, its filesystem, cipher, key size. */
	bool ecryptfs;
	char lower[PATH_LEN];
	char lower_mnt[PATH_LEN];
	char lower_fs[NAME_LEN / 2];
	char ecryptfs_cipher[NAME_LEN / 2];
	int ecryptfs_key_bits;
	/* Block devices, top (the filesystem's) first, as the tracer and
	 * results.json want them. */
	int nr_devices;
	struct device_info devices[MAX_DEVICES];
	/* Index of the one device right below each (-1: none, the
	 * medium; -2: several, as a striped or mirrored map has). */
	int below[MAX_DEVICES];
	/* The first dm-crypt mapping of the chain, read back. */
	int crypt_index; /* in devices[], -1 if none */
	struct dmcrypt_params crypt;
	/* Some dm device of the chain is not dm-crypt (LVM, ...): its
	 * mapping is not followed by the verification. */
	char other_dm[NAME_LEN]; /* its name, or "" */
	/* fscrypt policy of the folder. */
	bool fscrypt;
	int fscrypt_version;
	char fscrypt_contents[NAME_LEN / 2];
	char fscrypt_names[NAME_LEN / 2];
	int fscrypt_key_bits;
	/* ZFS: the dataset's properties (dataset "" if not ZFS). */
	struct zfs_info zfs;
};

/* Detect what `dir` is on. 0, or negative errno with why (one phrase,
 * for "PATH: <why>") filled. */
int stack_detect(const char *dir, struct detected_stack *s, char *why,
		 size_t len);
/* The devices from block device ma:mi down (`trace --dev`): 0 or
 * negative errno. */
int stack_detect_device(unsigned int ma, unsigned int mi,
			struct detected_stack *s);
/* Copy the stack into a target's description: fs, devices with their
 * role, encryption (the first of eCryptfs, fscrypt, dm-crypt, ZFS from the
 * top: the layer the data meets first). */
void stack_describe(const struct detected_stack *s, struct target_info *ti);

#endif /* ENCBENCH_DETECT_H */
