/* SPDX-License-Identifier: MIT */
#ifndef ENCBENCH_VERIFY_H
#define ENCBENCH_VERIFY_H

struct target;

/*
 * Write a file of random bytes in the target's work folder, sync it, let
 * each layer from the top down move its location one level down (FIEMAP in
 * the filesystem, the data offset of a LUKS header, the lower file of an
 * eCryptfs mount) and read the lowest device raw there. Returns 1 if the
 * plaintext is on the medium, 0 if it is not (encrypted), negative errno
 * if the check could not be made.
 */
int verify_plaintext_on_device(struct target *t);

#endif
