/* SPDX-License-Identifier: MIT */
/*
 * probe/: what this kernel and machine support -- BTF, attach points,
 * dm-crypt, fscrypt, eCryptfs, ZFS, cipher drivers and their hardware
 * acceleration. Every attach method is tested by a real load and attach of
 * a trivial program, never guessed from a version. Which source each
 * layer is traced from is the tracer's to say (run/'s run_probe).
 *
 * May include: common/, libbpf and its own skeleton. Never the tracer.
 */
#ifndef ENCBENCH_PROBE_H
#define ENCBENCH_PROBE_H

#include <stddef.h>

#include "../common/results.h"

/* Fill *caps. Mounts tracefs when missing (bpffs is only looked at).
 * Never fails: each capability records its own ok/detail. The layers'
 * sources (caps->layer_sources) are the tracer's to fill: run_probe()
 * does. */
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

/* Can the kernel run cipher `name` ("adiantum(xchacha12,aes)"), asked
 * of it where it can be (cipher_usable.c)? why says how it was found. */
bool probe_cipher_usable(const char *name, char *why, size_t len);

/* Classify a /proc/crypto driver name: true when the innermost cipher is
 * a hardware-accelerated implementation (aesni, vaes, arm64 ce, ...). */
bool cipher_driver_is_hw(const char *driver);

#endif /* ENCBENCH_PROBE_H */
