// SPDX-License-Identifier: MIT
/*
 * The recorded stacks classified: each frame is a function name (the
 * tracer symbolized them), and a stack is crypto work when the first
 * frame of its own context that is crypto code or the tracer's is crypto
 * code. Done here, not in the tracer, so that a saved snapshot can be
 * classified anew by a later version.
 */
#include <stdio.h>
#include <string.h>

#include "analysis.h"

static bool has_prefix(const char *name, const char *const *prefixes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

#define HAS_PREFIX(name, list)                                                 \
	has_prefix((name), (list), sizeof(list) / sizeof((list)[0]))

/* Crypto code by name prefix: cipher implementations and templates, the
 * crypto API, and the fscrypt, dm-crypt and blk-crypto functions around
 * them; ZFS's own (its ICP's gcm_/ccm_, zio and spa crypt functions: a
 * reader decrypting a block from the ARC does it on its own CPU).
 * Prefixes, not substrings: "obj_exts" is no xts. */
static const char *const crypt_prefixes[] = {
	"aes",	      "_aes",	    "crypto_",	     "__crypto_",
	"fscrypt_",   "__fscrypt_", "xts_",	     "skcipher_",
	"lskcipher_", "gf128mul_",  "ecb_",	     "cbc_",
	"cipher_",    "chacha",	    "poly1305",	     "ghash",
	"crypt_",     "kcryptd_",   "blk_crypto_",   "decrypt_",
	"encrypt_",   "essiv_",	    "adiantum",	     "nhpoly1305",
	"serpent",    "twofish",    "sm4",	     "gcm_",
	"ccm_",	      "zio_crypt_", "zio_do_crypt_", "spa_do_crypt_",
};

bool crypt_symbol(const char *name)
{
	return HAS_PREFIX(name, crypt_prefixes);
}

/*
 * BPF code: JIT-compiled programs and the trampolines of fentry/fexit
 * ([bpf] in /proc/kallsyms), and the kernel's entry into them. fentry on
 * fscrypt_encrypt_pagecache_blocks runs its program from inside that
 * function, so a sample in the program has the function on its stack;
 * measured in the 6.1 guest under TCG, 9 % of the "crypt" samples of dd's
 * fsync were the tracer's own programs (clock reads, map updates).
 */
static const char *const tracer_prefixes[] = {
	"bpf_prog_",
	"bpf_trampoline_",
	"__bpf_prog_enter",
	"__bpf_prog_exit",
};

/*
 * Where an interrupt or a softirq begins on a stack: a hardware
 * interrupt's entry (asm_sysvec_*, asm_common_interrupt, their C halves)
 * and the softirq loop, run on irq exit or from local_bh_enable. Frames
 * inside it ran for the interrupt: a sample there did not catch the task
 * at its own work, and a wakeup from there is the interrupt's, whatever
 * the task under it was doing (a kworker deciphering for another disk).
 */
static const char *const irq_prefixes[] = {
	"asm_sysvec_",		"sysvec_",	    "__sysvec_",
	"asm_common_interrupt", "common_interrupt", "handle_softirqs",
	"__do_softirq",		"asm_exc_nmi",	    "exc_nmi",
};

/*
 * From the innermost frame out, the first frame that is crypto code or
 * the tracer's decides. fexit's trampoline calls the function it times,
 * so it is a frame above every cipher sample; a program it runs is below
 * the function, and its time is the tracer's. Only the frames of the
 * context in question count. A wakeup from an interrupt is the
 * interrupt's: a waker's frames end at the first interrupt entry (the
 * task under it, a kworker deciphering for another disk, woke no one). A
 * sample that caught an interrupt counts what the task under it was
 * doing: its frames begin after the last entry (an interrupt inside a
 * cipher is inside it, as fentry times it).
 */
bool frames_in_crypt(const char *const *frames, int n, bool waker,
		     bool *under_crypt)
{
	int from = 0, to = n;
	bool tracer = false;

	*under_crypt = false;
	for (int i = 0; i < n; i++) {
		if (crypt_symbol(frames[i]))
			*under_crypt = true;
		if (!HAS_PREFIX(frames[i], irq_prefixes))
			continue;
		if (!waker)
			from = i + 1;
		else if (to == n)
			to = i;
	}
	for (int i = from; i < to; i++) {
		if (crypt_symbol(frames[i]))
			return !tracer;
		if (HAS_PREFIX(frames[i], tracer_prefixes))
			tracer = true;
	}
	return false;
}

static void count_stack(const struct snapshot *s, const struct snap_stack *st,
			struct wait_counts *out)
{
	const char *frames[WAIT_STACK_DEPTH];
	int op = st->op, n = 0;
	uint64_t v = st->value;
	bool under, crypt;

	if (op >= NR_OPS)
		return;
	for (int i = 0; i < st->nr_frames && i < WAIT_STACK_DEPTH; i++)
		if ((int)st->frames[i] < s->wait.nr_syms)
			frames[n++] = s->wait.syms[st->frames[i]];
	crypt = frames_in_crypt(frames, n, st->use == STACK_WAKER_NS, &under);
	switch (st->use) {
	case STACK_ONCPU_SAMPLE:
		out->samples[op] += v;
		out->crypt_samples[op] += crypt ? v : 0;
		out->crypt_stack_samples[op] += under ? v : 0;
		break;
	case STACK_WAKER_NS:
		out->waker_crypt_ns[op] += crypt ? v : 0;
		if (!crypt && waker_says_nothing(frames, n))
			out->waker_silent_ns[op] += v;
		break;
	case STACK_BLOCKED_NS:
		out->why_stack_ns[op][block_reason_of(frames, n)] += v;
		break;
	case STACK_WB_SAMPLE:
		out->wb_samples[op] += v;
		out->wb_crypt_samples[op] += crypt ? v : 0;
		out->wb_crypt_stack_samples[op] += under ? v : 0;
		break;
	case STACK_ZFS_SAMPLE:
		out->zfs_samples[op] += v;
		out->zfs_crypt_samples[op] += crypt ? v : 0;
		break;
	}
}

/* How the wait was measured, as the reports print it. */
static void wait_source(const struct snapshot *s, char *buf, size_t len)
{
	const struct snap_wait *w = &s->wait;
	size_t n;

	if (w->sampled)
		snprintf(buf, len,
			 "sched_switch/sched_waking; on-CPU split by "
			 "cpu-clock samples at %d Hz%s",
			 w->sample_hz,
			 w->wb_sampled ? "; the target's writeback workers "
					 "(wb_workfn, jbd2) sampled apart"
				       : "");
	else
		snprintf(buf, len,
			 "sched_switch/sched_waking; on-CPU time all in fs: "
			 "%s",
			 w->sample_why);
	n = strlen(buf);
	if (w->journal == SNAP_JOURNAL_FOLLOWED)
		snprintf(buf + n, len - n, "; jbd2's commits followed");
	else if (w->journal == SNAP_JOURNAL_UNFOLLOWED)
		snprintf(buf + n, len - n,
			 "; jbd2's commits not followed (no BTF for "
			 "them, or the kernel refused their programs)");
	if (!s->tracer.nr_zfs_objsets || !s->zfs.probes)
		return;
	n = strlen(buf);
	if (!s->zfs.chain_why[0])
		snprintf(buf + n, len - n,
			 "; wakeups by ZFS taskq threads split by kprobes on "
			 "zio_execute, zio_{delay_,}interrupt, "
			 "vdev_{file,disk}_io_start "
			 "and spa_do_crypt_abd");
	else
		snprintf(buf + n, len - n,
			 "; wakeups by ZFS taskq threads only partly followed "
			 "(%s)",
			 s->zfs.chain_why);
}

void wait_counts_of(const struct snapshot *s, struct wait_counts *out)
{
	const struct snap_wait *w = &s->wait;

	memset(out, 0, sizeof(*out));
	out->available = w->available;
	if (!w->available)
		return;
	out->sampled = w->sampled;
	out->nr_cpus = w->nr_cpus;
	out->sample_hz = w->sample_hz;
	out->wb_sampled = w->wb_sampled;
	out->journal = w->journal;
	wait_source(s, out->source, sizeof(out->source));
	memcpy(out->ops, w->ops, sizeof(out->ops));
	memcpy(out->workers, w->workers, sizeof(out->workers));
	memcpy(out->holders, w->holders, sizeof(out->holders));
	memcpy(out->nr_holders, w->nr_holders, sizeof(out->nr_holders));
	for (int i = 0; i < w->nr_stacks; i++)
		count_stack(s, &w->stacks[i], out);
	out->arc.measured = s->zfs.arc.measured;
	out->arc.hits = s->zfs.arc.hits;
	out->arc.misses = s->zfs.arc.misses;
	out->arc.data_hits = s->zfs.arc.data_hits;
	out->arc.data_misses = s->zfs.arc.data_misses;
}
