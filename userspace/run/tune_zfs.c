// SPDX-License-Identifier: MIT
/*
 * `tune --kind zfs`: the encryption and the record size of a new dataset
 * against zfs-off on the same pool, and how to apply the best: zfs
 * create (encryption is fixed when a dataset is made) or zfs set
 * recordsize (files written from then on).
 */
#include <stdio.h>

#include "tune_delta.h"

/* ZFS's ciphers are its own (the ICP), in every OpenZFS with native
 * encryption: nothing to probe. The reference is aes-256-gcm and 128K
 * records; the baseline, zfs-off, keeps 128K records whatever the
 * variant's, so a recordsize variant's penalty includes what the record
 * size does to unencrypted ZFS too. */
const struct tune_delta zfs_deltas[] = {
	{.axis = "encryption",
	 .label = "aes-128-gcm",
	 .settings = "encryption=aes-128-gcm",
	 .zfs_encryption = "aes-128-gcm"},
	{.axis = "encryption",
	 .label = "aes-192-gcm",
	 .settings = "encryption=aes-192-gcm",
	 .zfs_encryption = "aes-192-gcm"},
	{.axis = "encryption",
	 .label = "aes-256-ccm",
	 .settings = "encryption=aes-256-ccm",
	 .zfs_encryption = "aes-256-ccm"},
	{.axis = "recordsize",
	 .label = "recordsize-16K",
	 .settings = "recordsize=16K (zfs-off keeps 128K)",
	 .recordsize = "16K"},
	{.axis = "recordsize",
	 .label = "recordsize-1M",
	 .settings = "recordsize=1M (zfs-off keeps 128K)",
	 .recordsize = "1M"},
	{0},
};

void tune_zfs_advice(const struct run_target_opts *o, struct tune_advice *ad)
{
	size_t len = sizeof(ad->command);

	if (o->zfs.recordsize[0]) {
		snprintf(ad->command, len,
			 "zfs set recordsize=%s POOL/DATASET   (files written "
			 "from then on)",
			 o->zfs.recordsize);
		snprintf(ad->caveat, DETAIL_LEN,
			 "existing files keep their record size until "
			 "rewritten; small records cost more metadata and "
			 "compress worse, large ones make small random "
			 "writes read and rewrite a whole record");
		return;
	}
	snprintf(ad->command, len,
		 "zfs create -o encryption=%s -o keyformat=passphrase "
		 "POOL/NEW   (encryption is set when a dataset is created: "
		 "copy the data over)",
		 o->zfs.encryption[0] ? o->zfs.encryption : "aes-256-gcm");
	snprintf(ad->caveat, DETAIL_LEN,
		 "a new dataset: the data moves over (zfs send -w keeps the "
		 "old cipher); a shorter AES key is a smaller margin, not a "
		 "broken cipher");
}
