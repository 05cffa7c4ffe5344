// SPDX-License-Identifier: MIT
/*
 * The wait decomposition's user-space half (the BPF half is
 * bpf/wait.bpf.h): which work functions are workers the caller waits on,
 * the CPU-clock sampling that splits on-CPU time, and, at the end of a
 * phase, the counters with every sampled stack classified as crypto code
 * or not from the addresses of the crypto functions in /proc/kallsyms.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace.h" /* first: the skeleton needs attrib.h's types */
#include "attrib.skel.h"
#include "ksyms.h"
#include "trace_priv.h"

/* Not a multiple of the scheduler tick, so samples do not lock onto it. */
#define WAIT_SAMPLE_HZ 997

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

static bool crypt_symbol(const char *name)
{
	for (size_t i = 0; i < sizeof(crypt_prefixes) / sizeof(*crypt_prefixes);
	     i++)
		if (!strncmp(name, crypt_prefixes[i],
			     strlen(crypt_prefixes[i])))
			return true;
	return false;
}

/*
 * BPF code: JIT-compiled programs and the trampolines of fentry/fexit
 * ([bpf] in /proc/kallsyms), and the kernel's entry into them. fentry on
 * fscrypt_encrypt_pagecache_blocks runs its program from inside that
 * function, so a sample in the program has the function on its stack;
 * measured in the 6.1 guest under TCG, 9 % of the "crypt" samples of dd's
 * fsync were the tracer's own programs (clock reads, map updates).
 */
static bool tracer_symbol(const char *name)
{
	return !strncmp(name, "bpf_prog_", 9) ||
	       !strncmp(name, "bpf_trampoline_", 15) ||
	       !strncmp(name, "__bpf_prog_enter", 16) ||
	       !strncmp(name, "__bpf_prog_exit", 15);
}

/*
 * Where an interrupt or a softirq begins on a stack: a hardware
 * interrupt's entry (asm_sysvec_*, asm_common_interrupt, their C halves)
 * and the softirq loop, run on irq exit or from local_bh_enable. Frames
 * inside it ran for the interrupt: a sample there did not catch the task
 * at its own work, and a wakeup from there is the interrupt's, whatever
 * the task under it was doing (a kworker deciphering for another disk).
 */
static bool irq_symbol(const char *name)
{
	static const char *const irq_prefixes[] = {
		"asm_sysvec_",		"sysvec_",	    "__sysvec_",
		"asm_common_interrupt", "common_interrupt", "handle_softirqs",
		"__do_softirq",		"asm_exc_nmi",	    "exc_nmi",
	};

	for (size_t i = 0; i < sizeof(irq_prefixes) / sizeof(*irq_prefixes);
	     i++)
		if (!strncmp(name, irq_prefixes[i], strlen(irq_prefixes[i])))
			return true;
	return false;
}

/* Work functions of CPU-served devices' workers (drivers/block/loop.c). */
static const struct {
	const char *name;
	__u32 flavour;
} device_workers[] = {
	{"loop_rootcg_workfn", LOOP_ROOTCG},
	{"loop_workfn", LOOP_WORKER},
};

/* The flusher's work function: its CPU samples while it writes the
 * target back are where fscrypt encrypts the writes that the callers
 * leave to writeback. */
static int fill_writeback_funcs(struct wait_tracer *w, int fd,
				const struct ksyms *ks)
{
	uint64_t addrs[2];
	__u32 val = WORKER_WRITEBACK_FN;
	__u64 addr;
	int n = ksyms_addrs(ks, WRITEBACK_FN, addrs, 2);

	for (int j = 0; j < n && j < 2; j++) {
		addr = addrs[j];
		if (bpf_map_update_elem(fd, &addr, &val, BPF_ANY))
			return -errno;
		w->writeback_workers = true;
	}
	return 0;
}

static int fill_worker_funcs(struct wait_tracer *w, struct attrib_bpf *skel,
			     const struct ksyms *ks,
			     const struct crypt_work_plan *cw)
{
	int fd = bpf_map__fd(skel->maps.worker_funcs);
	__u32 val;
	__u64 addr;

	for (int i = 0; i < cw->nr_funcs; i++) {
		addr = cw->addrs[i];
		val = WORKER_CRYPT;
		if (bpf_map_update_elem(fd, &addr, &val, BPF_ANY))
			return -errno;
	}
	for (size_t i = 0; i < sizeof(device_workers) / sizeof(*device_workers);
	     i++) {
		uint64_t addrs[2];
		int n = ksyms_addrs(ks, device_workers[i].name, addrs, 2);

		for (int j = 0; j < n && j < 2; j++) {
			addr = addrs[j];
			val = WORKER_DEVICE | device_workers[i].flavour
						      << WORKER_FLAVOUR_SHIFT;
			if (bpf_map_update_elem(fd, &addr, &val, BPF_ANY))
				return -errno;
			w->device_workers = true;
		}
	}
	return fill_writeback_funcs(w, fd, ks);
}

static void detach_sampling(struct wait_tracer *w)
{
	for (int i = 0; i < w->nr_cpus; i++) {
		bpf_link__destroy(w->links ? w->links[i] : NULL);
		if (w->pfds && w->pfds[i] >= 0)
			close(w->pfds[i]);
	}
	free(w->links);
	free(w->pfds);
	w->links = NULL;
	w->pfds = NULL;
}

/* One CPU-clock sampling event per CPU, each running wait_sample. */
static int attach_sampling(struct wait_tracer *w, struct attrib_bpf *skel)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = WAIT_SAMPLE_HZ,
	};
	int err = 0;

	w->links = calloc(w->nr_cpus, sizeof(*w->links));
	w->pfds = malloc(w->nr_cpus * sizeof(*w->pfds));
	if (!w->links || !w->pfds)
		return -ENOMEM;
	for (int i = 0; i < w->nr_cpus; i++)
		w->pfds[i] = -1;
	for (int cpu = 0; cpu < w->nr_cpus; cpu++) {
		int fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1,
				 PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			/* An offline CPU: nothing runs there to sample. */
			if (errno == ENODEV)
				continue;
			err = -errno;
			break;
		}
		w->pfds[cpu] = fd;
		w->links[cpu] = bpf_program__attach_perf_event(
			skel->progs.wait_sample, fd);
		if (!w->links[cpu]) {
			err = -errno;
			break;
		}
	}
	return err;
}

int wait_open(struct wait_tracer *w, struct attrib_bpf *skel,
	      const struct ksyms *ks, const struct crypt_work_plan *cw,
	      bool sample)
{
	int err, n;

	w->nr_cpus = libbpf_num_possible_cpus();
	if (w->nr_cpus <= 0)
		w->nr_cpus = 1;
	err = fill_worker_funcs(w, skel, ks, cw);
	if (err)
		return err;
	n = ksyms_ranges(ks, crypt_symbol, &w->crypt_ranges);
	w->nr_crypt_ranges = n > 0 ? n : 0;
	n = ksyms_ranges(ks, irq_symbol, &w->irq_ranges);
	w->nr_irq_ranges = n > 0 ? n : 0;
	if (!sample) {
		snprintf(w->sample_why, sizeof(w->sample_why),
			 "perf_event sampling does not work here");
	} else if (bench_skipped("wait_sample")) {
		snprintf(w->sample_why, sizeof(w->sample_why),
			 "left off by ENCBENCH_BENCH_SKIP");
	} else if (!w->nr_crypt_ranges) {
		snprintf(w->sample_why, sizeof(w->sample_why),
			 "no crypto function addresses in /proc/kallsyms");
	} else {
		err = attach_sampling(w, skel);
		if (err) {
			snprintf(w->sample_why, sizeof(w->sample_why),
				 "attaching the CPU-clock sampler: %s",
				 strerror(-err));
			detach_sampling(w);
		} else {
			w->sampling = true;
		}
	}
	return 0;
}

void wait_close(struct wait_tracer *w)
{
	detach_sampling(w);
	free(w->crypt_ranges);
	w->crypt_ranges = NULL;
	free(w->tracer_ranges);
	w->tracer_ranges = NULL;
	free(w->irq_ranges);
	w->irq_ranges = NULL;
}

/* Once, after attach: the trampolines exist only then. Without them a
 * sample in the tracer may count as crypt, as before. */
static void read_tracer_ranges(struct wait_tracer *w)
{
	struct ksyms *ks;
	int n;

	if (w->tracer_ranges_read || !w->sampling)
		return;
	w->tracer_ranges_read = true;
	ks = ksyms_load(NULL);
	n = ksyms_ranges(ks, tracer_symbol, &w->tracer_ranges);
	w->nr_tracer_ranges = n > 0 ? n : 0;
	ksyms_free(ks);
}

static void map_zero(struct bpf_map *m, __u32 n)
{
	size_t sz = bpf_map__value_size(m);
	void *zero = calloc(1, sz);

	for (__u32 k = 0; zero && k < n; k++)
		bpf_map__update_elem(m, &k, sizeof(k), zero, sz, 0);
	free(zero);
}

void wait_begin(struct wait_tracer *w, struct attrib_bpf *skel)
{
	read_tracer_ranges(w);
	map_clear(skel->maps.thr);
	map_clear(skel->maps.work_io);
	map_clear(skel->maps.workers);
	map_clear(skel->maps.stack_counts);
	map_clear(skel->maps.stacks);
	map_zero(skel->maps.wait_stats, NR_OPS);
	map_zero(skel->maps.worker_stats, NR_WORKER_KINDS);
}

/*
 * A stack in crypto code: from the innermost frame out, the first frame
 * that is crypto code or the tracer's decides. fexit's trampoline calls
 * the function it times, so it is a frame above every cipher sample; a
 * program it runs is below the function, and its time is the tracer's.
 * Only the frames of the context in question count. A wakeup from an
 * interrupt is the interrupt's: a waker's frames end at the first
 * interrupt entry (the task under it, a kworker deciphering for another
 * disk, woke no one). A sample that caught an interrupt counts what the
 * task under it was doing: its frames begin after the last entry (an
 * interrupt inside a cipher is inside it, as fentry times it).
 * *under_crypt: crypto code anywhere on the stack.
 */
bool wait_frames_in_crypt(const struct wait_tracer *w, const uint64_t *ips,
			  int n, bool waker, bool *under_crypt)
{
	int from = 0, to = n;
	bool tracer = false;

	*under_crypt = false;
	for (int i = 0; i < n && ips[i]; i++) {
		if (ksym_in_ranges(w->crypt_ranges, w->nr_crypt_ranges, ips[i]))
			*under_crypt = true;
		if (!ksym_in_ranges(w->irq_ranges, w->nr_irq_ranges, ips[i]))
			continue;
		if (!waker)
			from = i + 1;
		else if (to == n)
			to = i;
	}
	for (int i = from; i < to && ips[i]; i++) {
		if (ksym_in_ranges(w->crypt_ranges, w->nr_crypt_ranges, ips[i]))
			return !tracer;
		if (ksym_in_ranges(w->tracer_ranges, w->nr_tracer_ranges,
				   ips[i]))
			tracer = true;
	}
	return false;
}

static bool stack_in_crypt(const struct wait_tracer *w, int fd, __u32 id,
			   bool waker, bool *under_crypt)
{
	uint64_t ips[WAIT_STACK_DEPTH] = {0};

	*under_crypt = false;
	if (bpf_map_lookup_elem(fd, &id, ips))
		return false;
	return wait_frames_in_crypt(w, ips, WAIT_STACK_DEPTH, waker,
				    under_crypt);
}

/*
 * Walk stack_counts once, each key at most once. get_next_key was seen
 * (6.18, a map the tracer had stopped writing) to hand back the key it was
 * given, forever: the walk is bounded by max_entries and a key already seen
 * ends it, so a broken chain costs a partial split, never a hang.
 */
static void read_stacks(const struct wait_tracer *w, struct attrib_bpf *skel,
			struct wait_snapshot *s)
{
	int fd = bpf_map__fd(skel->maps.stack_counts);
	int sfd = bpf_map__fd(skel->maps.stacks);
	__u32 max = bpf_map__max_entries(skel->maps.stack_counts);
	struct stack_key *seen = calloc(max, sizeof(*seen));
	struct stack_key next, *prev = NULL;
	__u32 n = 0;
	__u64 val;

	if (!seen)
		return;
	while (n < max && bpf_map_get_next_key(fd, prev, &next) == 0) {
		bool dup = false;

		for (__u32 i = 0; i < n && !dup; i++)
			dup = !memcmp(&seen[i], &next, sizeof(next));
		if (dup)
			break;
		seen[n] = next;
		prev = &seen[n++];
		if (bpf_map_lookup_elem(fd, &next, &val) || next.op >= NR_OPS)
			continue;
		bool under, crypt = stack_in_crypt(w, sfd, next.stackid,
						   next.use == STACK_WAKER_NS,
						   &under);

		if (next.use == STACK_ONCPU_SAMPLE) {
			s->samples[next.op] += val;
			if (crypt)
				s->crypt_samples[next.op] += val;
			if (under)
				s->crypt_stack_samples[next.op] += val;
		} else if (next.use == STACK_WAKER_NS && crypt) {
			s->waker_crypt_ns[next.op] += val;
		} else if (next.use == STACK_WB_SAMPLE) {
			s->wb_samples[next.op] += val;
			if (crypt)
				s->wb_crypt_samples[next.op] += val;
			if (under)
				s->wb_crypt_stack_samples[next.op] += val;
		} else if (next.use == STACK_ZFS_SAMPLE) {
			s->zfs_samples[next.op] += val;
			if (crypt)
				s->zfs_crypt_samples[next.op] += val;
		}
	}
	free(seen);
}

void wait_read(const struct wait_tracer *w, struct attrib_bpf *skel,
	       struct wait_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	s->available = true;
	s->sampled = w->sampling;
	s->nr_cpus = w->nr_cpus;
	s->sample_hz = WAIT_SAMPLE_HZ;
	s->wb_sampled = w->sampling && w->writeback_workers;
	if (w->sampling)
		snprintf(s->source, sizeof(s->source),
			 "sched_switch/sched_waking; on-CPU split by "
			 "cpu-clock samples at %d Hz%s",
			 WAIT_SAMPLE_HZ,
			 s->wb_sampled ? "; the target's writeback workers "
					 "(wb_workfn) sampled apart"
				       : "");
	else
		snprintf(s->source, sizeof(s->source),
			 "sched_switch/sched_waking; on-CPU time all in fs: "
			 "%s",
			 w->sample_why);
	for (__u32 op = 0; op < NR_OPS; op++)
		bpf_map__lookup_elem(skel->maps.wait_stats, &op, sizeof(op),
				     &s->ops[op], sizeof(s->ops[op]), 0);
	for (__u32 k = 0; k < NR_WORKER_KINDS; k++)
		bpf_map__lookup_elem(skel->maps.worker_stats, &k, sizeof(k),
				     &s->workers[k], sizeof(s->workers[k]), 0);
	read_stacks(w, skel, s);
}
