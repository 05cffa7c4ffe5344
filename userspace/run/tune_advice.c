// SPDX-License-Identifier: MIT
/*
 * What to type to get the best variant, and what it costs besides time:
 * dm-crypt's flags change at run time (cryptsetup refresh), a cipher or
 * sector size needs the data rewritten (cryptsetup reencrypt, or a new
 * format), fscrypt's choices are made when a file system or a folder's
 * policy is new, ZFS's encryption when a dataset is created (its record
 * size applies to files written after a change), and eCryptfs's cipher
 * per file as it is created, from the mount's options.
 */
#include <linux/fscrypt.h>
#include <stdio.h>
#include <string.h>

#include <libcryptsetup.h>

#include "tune_delta.h"
#include "../storage/dmcrypt.h"

/* " --perf-a --perf-b" for flags into buf: its length */
static size_t perf_args(char *buf, size_t len, uint32_t flags)
{
	size_t n = 0;

	buf[0] = '\0';
	for (const struct dmcrypt_flag *f = dmcrypt_flags; f->name; f++)
		if (flags & f->bit && n < len)
			n += (size_t)snprintf(buf + n, len - n, " --perf-%s",
					      f->name);
	return n;
}

/* device: the user's mapping the flags were tried on, or "";
 * discards: it allows discards */
static void luks2_advice(const struct run_target_opts *ref,
			 const struct run_target_opts *o, const char *device,
			 bool discards, struct tune_advice *ad)
{
	size_t n = 0, len = sizeof(ad->command);
	char perf[160];

	perf_args(perf, sizeof(perf), o->luks.flags);
	if (!strcmp(o->luks.cipher, ref->luks.cipher) &&
	    o->luks.key_bits == ref->luks.key_bits &&
	    o->luks.sector_size == ref->luks.sector_size) {
		/* Only flags: a refresh sets the whole set, so name them all.
		 */
		n += (size_t)snprintf(ad->command, len, "cryptsetup refresh%s",
				      perf);
		if (n < len && device[0])
			snprintf(ad->command + n, len - n,
				 "%s [--persistent] %s   (flags not named are "
				 "cleared)",
				 discards ? " --allow-discards" : "", device);
		else if (n < len)
			snprintf(ad->command + n, len - n,
				 " [--persistent] NAME   (an open LUKS2 "
				 "device; flags not named are cleared: add "
				 "--allow-discards if it has them)");
		snprintf(ad->caveat, DETAIL_LEN,
			 "the cipher then runs in the submitting or completing "
			 "context instead of kcryptd's per-CPU workers: less "
			 "queueing, less CPU locality; since Linux 6.8 reads "
			 "completing in hard-IRQ context still go to a "
			 "workqueue");
		return;
	}
	n = (size_t)snprintf(ad->command, len,
			     "cryptsetup reencrypt --cipher %s --key-size %d "
			     "--sector-size %d DEVICE   (or luksFormat --type "
			     "luks2 with the same options for a new one)",
			     o->luks.cipher, o->luks.key_bits,
			     o->luks.sector_size);
	/* Crossed with the flags: those too, once it is open. */
	if (perf[0] && n < len)
		snprintf(ad->command + n, len - n,
			 "; then cryptsetup refresh%s [--persistent] NAME",
			 perf);
	snprintf(ad->caveat, DETAIL_LEN, "%s",
		 strstr(o->luks.cipher, "adiantum")
			 ? "Adiantum rests on XChaCha and a hash, a different "
			   "security argument than AES-XTS, meant for CPUs "
			   "without AES instructions; reencryption rewrites "
			   "every sector: back up the header and the data "
			   "first"
			 : "reencryption rewrites every sector (hours on a "
			   "large disk) and an interruption needs the header "
			   "to resume: back up the header and the data first");
}

static void fscrypt_advice(const struct run_target_opts *o,
			   struct tune_advice *ad)
{
	size_t len = sizeof(ad->command);

	if (o->ext4_block_size) {
		snprintf(ad->command, len,
			 "mkfs.ext4 -O encrypt -b %d DEVICE, then fscrypt "
			 "encrypt DIR   (a new file system)",
			 o->ext4_block_size);
		snprintf(ad->caveat, DETAIL_LEN,
			 "a new file system: the data moves over; smaller "
			 "blocks mean more metadata and fewer large "
			 "extents");
	} else if (o->fscrypt.log2_data_unit) {
		snprintf(ad->command, len,
			 "a v2 policy with log2_data_unit_size=%d on a new "
			 "empty folder (FS_IOC_SET_ENCRYPTION_POLICY; Linux "
			 "6.7+)",
			 o->fscrypt.log2_data_unit);
		snprintf(ad->caveat, DETAIL_LEN,
			 "only for new folders (a policy cannot change); "
			 "smaller data units mean more cipher calls per "
			 "block");
	} else {
		snprintf(ad->command, len,
			 "fscrypt encrypt DIR with \"contents\": \"%s\" in "
			 "/etc/fscrypt.conf's options   (a new empty folder)",
			 o->fscrypt.contents_mode == FSCRYPT_MODE_ADIANTUM
				 ? "Adiantum"
				 : "AES_128_CBC");
		snprintf(ad->caveat, DETAIL_LEN,
			 "only for new folders; Adiantum rests on XChaCha "
			 "and a hash, a different security argument than "
			 "AES-XTS, meant for CPUs without AES instructions");
	}
}

void tune_advice(struct results *r, const struct tune_plan *plan)
{
	struct tune_advice *ad = &r->tune.advice;
	int ref = 0;

	if (!ad->have)
		return;
	for (int i = 0; i < r->tune.nr_variants; i++)
		if (r->tune.v[i].reference)
			ref = i;
	if (!strcmp(r->tune.kind, "luks2"))
		luks2_advice(&plan->set[ref], &plan->set[ad->variant],
			     r->tune.device, r->tune.device_discards, ad);
	else if (!strcmp(r->tune.kind, "zfs"))
		tune_zfs_advice(&plan->set[ad->variant], ad);
	else if (!strcmp(r->tune.kind, "ecryptfs"))
		tune_ecryptfs_advice(&plan->set[ad->variant], ad);
	else
		fscrypt_advice(&plan->set[ad->variant], ad);
}
