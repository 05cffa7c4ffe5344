/* SPDX-License-Identifier: MIT */
#ifndef ENCBENCH_VERIFY_H
#define ENCBENCH_VERIFY_H

struct target;

/*
 * Write a file of random bytes in the target's work folder, sync it, find
 * its first block on the target's top block device (FIEMAP) and read that
 * block raw. Returns 1 if the plaintext is on the medium, 0 if it is not
 * (encrypted), negative errno if the check could not be made.
 */
int verify_plaintext_on_device(struct target *t);

#endif
