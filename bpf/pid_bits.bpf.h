/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pid_bits map and its helpers (enum pid_bit in attrib.h), included by
 * every BPF object that makes entries in the maps it stands for.
 */
#ifndef __PID_BITS_BPF_H
#define __PID_BITS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "attrib.h"

/*
 * PID_BITS_PER_WORD pids per word, a nibble each (enum pid_bit): a clear
 * bit says the hash map it stands for has no entry for that pid, so the
 * programs that run for every syscall, context switch, wakeup and CPU
 * sample on the machine leave after one lookup in this array, which the
 * verifier inlines, instead of one hash lookup or more. A set bit only
 * sends them on to the hash map. Bits are set before the entry is made
 * and cleared after it is gone, so they cover every entry. User space
 * sizes the map from pid_max (a pid beyond it is always looked up) and
 * sets PID_TRACED through its mmap of the map, atomically as the
 * programs do (a plain update could undo another pid's bit).
 * attrib.bpf.c creates it; zfscrypt.bpf.c reuses it (its taskq threads
 * are workers).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, PID_BITS_MAX_PIDS / PID_BITS_PER_WORD);
	__type(key, __u32);
	__type(value, __u64);
} pid_bits SEC(".maps");

static __always_inline __u64 *pid_word(__u32 pid)
{
	__u32 key = pid / PID_BITS_PER_WORD;

	return bpf_map_lookup_elem(&pid_bits, &key);
}

/* Whether pid may have an entry in one of the maps of `bits`. */
static __always_inline bool pid_may(__u32 pid, __u64 bits)
{
	__u64 *w = pid_word(pid);

	return !w || (*w >> PID_BITS_SHIFT(pid) & bits);
}

static __always_inline void pid_mark(__u32 pid, __u64 bits)
{
	__u64 *w = pid_word(pid);

	if (w && !(*w >> PID_BITS_SHIFT(pid) & bits))
		__sync_fetch_and_or(w, bits << PID_BITS_SHIFT(pid));
}

static __always_inline void pid_unmark(__u32 pid, __u64 bits)
{
	__u64 *w = pid_word(pid);

	if (w && (*w >> PID_BITS_SHIFT(pid) & bits))
		__sync_fetch_and_and(w, ~(bits << PID_BITS_SHIFT(pid)));
}

#endif /* __PID_BITS_BPF_H */
