/* SPDX-License-Identifier: MIT */
#ifndef ENCBENCH_VERIFY_H
#define ENCBENCH_VERIFY_H

#include <stdbool.h>

struct target;

/*
 * Write a file of random bytes in the target's work folder, sync it, find
 * its first block on the target's top block device (FIEMAP) and read that
 * block raw. Returns 1 if the plaintext is on the medium, 0 if it is not
 * (encrypted), negative errno if the check could not be made.
 */
int verify_plaintext_on_device(struct target *t);

/*
 * The check every target's verify_encrypted makes: the medium must hold
 * ciphertext when `encrypted`, and plaintext otherwise (for a plain
 * target, proof that the check can see data at all). Sets
 * info.verified_encrypted; 0, -EIO when the medium says otherwise, or
 * the check's own error.
 */
int verify_medium(struct target *t, bool encrypted);

#endif
