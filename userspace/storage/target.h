/* SPDX-License-Identifier: MIT */
/*
 * storage/: the targets. May include: common/.
 *
 * Storage targets: a target kind is a recipe of layers (layer.h), built
 * bottom up and undone top down. A target knows its mount point, its
 * block-device chain and its encryption parameters, all described by its
 * layers. A new target kind is one new file plus one entry in kind_table
 * (target.c).
 */
#ifndef ENCBENCH_TARGET_H
#define ENCBENCH_TARGET_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "../common/results.h"
#include "layer.h"

#define MAX_LAYERS 6

/* LUKS2 choices (--luks-*), used by the dm-crypt layer. */
struct luks_options {
	char cipher[NAME_LEN]; /* dm-crypt form: "aes-xts-plain64" */
	int key_bits;
	int sector_size;
	uint32_t flags; /* CRYPT_ACTIVATE_* performance flags */
};

/* ZFS choices (--zfs-*), used by the dataset layer; "" for the report's:
 * aes-256-gcm, a raw key, lz4. */
struct zfs_options {
	char encryption[NAME_LEN / 2];	/* of the encrypted dataset */
	char keyformat[NAME_LEN / 2];	/* raw | passphrase */
	char compression[NAME_LEN / 2]; /* of both datasets */
	char recordsize[NAME_LEN / 4];	/* of the encrypted one ("16K") */
};

/* eCryptfs choices (tune's variants); "" and 0 for AES, 32-byte keys. */
struct ecryptfs_options {
	char cipher[NAME_LEN / 4]; /* ecryptfs_cipher: aes, twofish, cast6 */
	int key_bytes;		   /* ecryptfs_key_bytes */
};

/* fscrypt choices (tune's variants); zero for the defaults: AES-256-XTS
 * contents, AES-256-CTS names, data units of the block size. */
struct fscrypt_options {
	int contents_mode, filenames_mode; /* FSCRYPT_MODE_*, 0: default */
	int log2_data_unit;		   /* 0: the file system's block size */
};

struct target_config {
	const char *name;    /* target name as shown in reports */
	const char *scratch; /* our private scratch folder (already created) */
	uint64_t fs_bytes;   /* filesystem size to create */
	const char *path;    /* user targets: the existing directory */
	/* Set by a signal handler: setup stops after the current layer. */
	const volatile sig_atomic_t *stop;
	struct luks_options luks;
	struct zfs_options zfs;
	struct fscrypt_options fscrypt;
	struct ecryptfs_options ecryptfs;
	int ext4_block_size; /* mkfs.ext4 -b, 0: its default */
};

struct target_kind {
	const char *kind;
	const char *help;
	/* NULL if usable here, else the reason it is not. */
	const char *(*unavailable)(const struct capabilities *caps);
	const struct layer_step *recipe; /* bottom first, ends with .ops NULL */
	bool encrypted;			 /* what the verification must find */
	/* Why O_DIRECT cannot work here, or NULL: workloads that need it
	 * are "not applicable" on this kind. */
	const char *no_direct_io;
	/* The kind this one is compared with when both are in a run (the
	 * same stack without encryption), or NULL: the run's first target. */
	const char *baseline;
	/* Not built but found (user.c): what its layers describe, the
	 * encryption included, is what was detected, and the verification
	 * reports what it saw instead of failing the target. */
	bool detected;
};

struct target {
	const struct target_kind *kind;
	struct target_info info;
	int nr_layers; /* set up or being set up: teardown covers these */
	struct stack_layer layers[MAX_LAYERS];
};

/* The folders a user names (--target NAME=PATH): not in the table of
 * kinds a run builds. */
extern const struct target_kind user_target;

const struct target_kind *target_find(const char *kind);
const struct target_kind *const *target_list(void);

/* Build every layer of t->kind in order; on failure the layers made so far
 * stay in t for target_teardown. Fills t->info from the layers. -EINVAL
 * means a layer refused the user's options (bad input, exit 2), -EINTR
 * that cfg->stop was set. */
int target_setup(struct target *t, const struct target_config *cfg);
/* Confirm the data is ciphertext on the lowest device (or plaintext, for
 * an unencrypted kind); sets info.verified_encrypted and
 * info.verification. A detected kind's check only reports: 0 whatever
 * it found, or could not find. */
int target_verify(struct target *t);
/* The kernel's name of an fscrypt mode ("xts(aes)"), or NULL (fscrypt.c). */
const char *fscrypt_mode_cipher(int mode);
/* Why O_DIRECT cannot work on t, or NULL. */
const char *target_no_direct_io(const struct target *t);
/* Can `path` be a user target (a writable folder on a block device or a
 * ZFS dataset)? 0, or negative errno with why filled (user.c). */
int user_target_check(const char *path, char *why, size_t len);
/* Remove a user target's work folder and everything in it (all of it is
 * ours: the folder did not exist before the run made it), never crossing
 * into a mount: 0 once it is gone, or -ENOTEMPTY. */
int user_work_remove(const char *path);
/* Undo the layers, top first. Safe on a half-built target. */
void target_teardown(struct target *t);
/* Leave what the layers made up (`setup`: the state file has it for
 * `teardown`); only their private state goes, wiped. */
void target_release(struct target *t);

#endif /* ENCBENCH_TARGET_H */
