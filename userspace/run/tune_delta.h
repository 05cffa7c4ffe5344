/* SPDX-License-Identifier: MIT */
/*
 * A kind's sweep for `tune`: its table of axis values (struct tune_delta,
 * read by tune_plan.c) and the advice for its best variant. A new kind's
 * sweep is one new file with both (tune_zfs.c, tune_ecryptfs.c) plus one
 * entry in tune_plan.c's kinds[] and tune_advice.c's dispatch.
 */
#ifndef ENCBENCH_TUNE_DELTA_H
#define ENCBENCH_TUNE_DELTA_H

#include "tune.h"

/* One value of an axis: what it changes (0/NULL: nothing) and what it
 * needs of the kernel. */
struct tune_delta {
	const char *axis;
	const char *label;    /* the variant's name suffix */
	const char *settings; /* how it differs, for the table */
	/* luks2 */
	const char *cipher;
	int key_bits, sector_size;
	uint32_t flags;
	/* fscrypt */
	int block_size, log2_data_unit, contents_mode, filenames_mode;
	/* zfs: encryption=, recordsize= */
	const char *zfs_encryption, *recordsize;
	/* ecryptfs: ecryptfs_cipher=, ecryptfs_key_bytes= */
	const char *ecryptfs_cipher;
	int ecryptfs_key_bytes;
	const char *needs[2]; /* kernel ciphers it must find */
	/* dm-crypt flags: the kernel version they came with */
	int since_major, since_minor;
	bool high_priority; /* needs libcryptsetup 2.8 too */
	bool inlinecrypt;
};

/* Each table ends with a zeroed entry. */
extern const struct tune_delta zfs_deltas[];
extern const struct tune_delta ecryptfs_deltas[];

/* The command that gives o, and its caveat, into ad. */
void tune_zfs_advice(const struct run_target_opts *o, struct tune_advice *ad);
void tune_ecryptfs_advice(const struct run_target_opts *o,
			  struct tune_advice *ad);

#endif /* ENCBENCH_TUNE_DELTA_H */
