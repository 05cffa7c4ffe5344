/* SPDX-License-Identifier: MIT */
/*
 * What this kernel and machine support. Every attach method is tested by a
 * real load and attach of a trivial program, never guessed from a version.
 */
#ifndef ENCBENCH_PROBE_H
#define ENCBENCH_PROBE_H

#include "../common/results.h"

/* Fill *caps. Mounts tracefs/bpffs when missing. Never fails: each
 * capability records its own ok/detail. */
void probe_all(struct capabilities *caps);

/* Only the storage kinds' capabilities (loop, dm-crypt, fscrypt,
 * eCryptfs, ZFS): no BPF, nothing mounted. Part of probe_all. */
void probe_storage(struct capabilities *caps);

/* Unmount what probe_all mounted (after the tracer is closed). */
void probe_release(void);

/* The driver the kernel uses for algorithm `name` ("cbc(aes)"), read from
 * /proc/crypto: true and driver filled (NAME_LEN) if it is there. */
bool probe_cipher_driver(const char *name, char *driver);
/* Re-read /proc/crypto (cipher templates appear once first used). */
void probe_ciphers(struct capabilities *caps);

/* The driver serving a target's contents cipher, and whether it is
 * hardware-accelerated, into ti->encryption (read after first use:
 * templates appear in /proc/crypto only then). */
void probe_target_driver(struct capabilities *caps, struct target_info *ti);

/* Classify a /proc/crypto driver name: true when the innermost cipher is
 * a hardware-accelerated implementation (aesni, vaes, arm64 ce, ...). */
bool cipher_driver_is_hw(const char *driver);

#endif /* ENCBENCH_PROBE_H */
