/* SPDX-License-Identifier: MIT */
/*
 * The tracer: loads the attribution BPF skeleton, picks the best attach
 * point per layer for this kernel (recording which one), and hands back the
 * per-(layer, op) statistics of one phase. Histograms live in BPF global
 * data; user space reads them once per phase, no per-event traffic.
 */
#ifndef ENCBENCH_TRACE_H
#define ENCBENCH_TRACE_H

#include <stdbool.h>
#include <sys/types.h>

#include "../common/bpf_ids.h"
#include "../common/results.h"

/* Every program and link of the tracer, with room to spare. */
#define MAX_TRACER_IDS 128

struct tracer;

struct trace_filter {
	/* Block devices of the target, every layer (fs device, dm, backing). */
	int nr_devs;
	unsigned int major[MAX_TARGET_DEVS], minor[MAX_TARGET_DEVS];
	/* Syscalls are counted for every descendant process of this tgid
	 * (the workload's children), never for the tgid itself. */
	pid_t parent_tgid;
	/* `trace`: a process counted itself, with its descendants (0:
	 * none), and a cgroup v2 id whose tasks count (0: none). */
	pid_t pid;
	uint64_t cgroup_id;
	/* The target has no block device of its own (a ZFS pool on a
	 * file): the block layers count nothing and say why. */
	bool no_devices;
	/* A dm-crypt device is in the stack; its writes bypass the
	 * dmcrypt_write thread (no_write_workqueue active): then the
	 * dmcrypt-write stage is not applicable. */
	bool dmcrypt;
	bool dmcrypt_no_write_thread;
	/* ZFS targets: the objset ids of their datasets, whose encryption
	 * is the `crypt` layer (ZFS encrypts in its own pipeline). */
	int nr_zfs_objsets;
	uint64_t zfs_objsets[MAX_TARGET_DEVS];
};

/* The wait decomposition's raw counters (trace/wait.c). */
struct wait_snapshot {
	bool available;
	char source[DETAIL_LEN];
	bool sampled; /* CPU samples split the on-CPU time */
	struct wait_stat ops[NR_OPS];
	/* CPU samples in a syscall, and those in crypto code. */
	uint64_t samples[NR_OPS], crypt_samples[NR_OPS];
	/* Samples with a crypto function anywhere on the stack, the
	 * tracer's programs under it included. */
	uint64_t crypt_stack_samples[NR_OPS];
	/* waker_stack_ns whose waker's stack was in crypto code. */
	uint64_t waker_crypt_ns[NR_OPS];
	/* CPU samples of ZFS's z_rd_*|z_wr_* taskq threads (reads, writes)
	 * and those in cipher code: kept only where ZFS's crypt comes from
	 * them (its kprobes cannot attach). */
	uint64_t zfs_samples[NR_OPS], zfs_crypt_samples[NR_OPS];
	/* CPU samples of kworkers while they wrote the target back
	 * (wb_workfn for its device; op write), and those in cipher code;
	 * wb_sampled: they were taken. Not in the callers' wait. */
	uint64_t wb_samples[NR_OPS], wb_crypt_samples[NR_OPS];
	uint64_t wb_crypt_stack_samples[NR_OPS]; /* as crypt_stack_samples */
	bool wb_sampled;
	/* The sampling rate, per CPU. */
	int sample_hz;
	struct worker_stat workers[NR_WORKER_KINDS];
	int nr_cpus;
};

/* What each layer's figures are per op, and why when not measured at
 * the preferred point (plan.c sets them, trace_end adjusts them). */
struct layer_states {
	enum layer_state state[NR_LAYERS][NR_OPS];
	char why[NR_LAYERS][NR_OPS][DETAIL_LEN];
};

/* Set layer's state and reason for op, or for every op when op < 0. */
void layer_states_set(struct layer_states *ls, int layer, int op,
		      enum layer_state state, const char *why);

struct trace_snapshot {
	struct layer_stat stats[NR_LAYERS][NR_OPS];
	/* Which attach point each layer came from, or "unavailable: why". */
	char sources[NR_LAYERS][DETAIL_LEN];
	struct layer_states states;
	double wall_s;
	/* Completed requests per op on the filtered devices, as the kernel
	 * counts them (/sys/block/<dev>/stat), over the phase. */
	uint64_t kernel_requests[NR_OPS];
	/* BPF program runs skipped by the kernel's recursion protection
	 * over the phase (bpf_prog_info.recursion_misses). */
	uint64_t missed_events;
	struct wait_snapshot wait;
};

/* The source each layer would come from given these capabilities (the
 * plan `probe` prints and the tracer follows). */
void trace_plan(const struct capabilities *caps,
		char sources[NR_LAYERS][DETAIL_LEN]);

/* Set f's dm-crypt facts from the target's description: a device of role
 * "crypt", and its flags as read back from the active mapping. */
void trace_filter_dmcrypt(struct trace_filter *f, const struct target_info *t);

/* Load and attach. On failure returns negative errno and says why in
 * `why`; the caller benchmarks without attribution. */
int trace_open(const struct capabilities *caps, struct tracer **out, char *why,
	       size_t why_len);
/* Reset counters and set the filter: the start of one phase. */
int trace_begin(struct tracer *tr, const struct trace_filter *f);
/* Leave out, and take back in, a stretch of the phase: nothing starts
 * while paused (untimed preparation such as dropping caches stays out of
 * the attribution); items already in flight still complete and count.
 * trace_begin opens the first window, trace_end closes the last. */
int trace_pause(struct tracer *tr);
int trace_resume(struct tracer *tr);
/* Count pid's syscalls (and its children's, forked from now on, also
 * while paused) until the phase ends: a server the workload started
 * outside a window, whose processes do the work its client asks for.
 * Call it before pid forks (the server waits to be released). */
int trace_follow(struct tracer *tr, pid_t pid);
/* Copy out the counters of the phase begun by trace_begin. */
int trace_end(struct tracer *tr, struct trace_snapshot *snap);
/* The kernel ids of the tracer's programs and links, as recorded when
 * each was made: copies up to max, returns how many there are. */
int trace_bpf_ids(const struct tracer *tr, struct bpf_id *out, int max);
/* The fd of one of the tracer's maps by name (for the timeline, which
 * shares them), or negative errno. */
int trace_map_fd(const struct tracer *tr, const char *name);
/* Detach and free; leaves no link or program behind. NULL is fine. */
void trace_close(struct tracer *tr);

/* Snapshot -> per-op attribution for one (target, workload): fills layer
 * results, derives `fs`, computes closure. Returns the number of ops
 * filled into out[] (ops with no syscalls are left out). */
int attribute(const struct trace_snapshot *snap, const char *target,
	      const char *workload, struct attribution out[NR_OPS]);

/* One-sentence verdict with evidence for an attribution, using the
 * target's encryption facts (driver, hardware acceleration). */
void verdict_for(const struct attribution *a, const struct target_info *t,
		 struct verdict *out);

/* wait_split.c: the wait decomposition of op from a phase's counters. */
void wait_result_from(const struct wait_snapshot *ws, int op,
		      struct wait_result *out);
/* Write-side encryption on a CPU from the samples alone (no fentry or
 * kprobe): the callers' crypt in the ops that write data (write, sync,
 * copy) plus the target's writeback workers', each on-CPU time in the
 * proportion of its samples in cipher code; in ns. */
uint64_t wait_sampled_write_crypt_ns(const struct wait_snapshot *ws);
/* What the components add up to (== total_ns by construction). */
uint64_t wait_sum_ns(const struct wait_result *w);
/* Per-syscall time t adds over base (NULL: t's own), by component into
 * added[] (by enum layer); returns the added total per syscall, in ns. */
double wait_added(const struct wait_result *t, const struct wait_result *base,
		  double added[NR_LAYERS]);

/* The same for the part of cpu-wait spent behind workers of `kind`. */
double wait_added_behind(const struct wait_result *t,
			 const struct wait_result *base, int kind);

/* verdict.c. Components grouped as a verdict names them: crypto (crypt +
 * crypt-queue), device, blk-queue, dm, fs, cpu-wait. Index of the largest
 * group of ns[] (by enum layer), its sums in group[]; -1 if all are 0. */
#define NR_WAIT_GROUPS 6
/* cpu-wait behind crypto workers (cpu_crypt, a part of ns[cpu-wait]) is
 * waiting for encryption work: it counts in the crypto group. */
/* Append one evidence line to v (dropped past MAX_EVIDENCE): the one
 * writer of evidence for both verdicts. */
void verdict_add_evidence(struct verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

int wait_dominant(const double ns[NR_LAYERS], double cpu_crypt,
		  double group[NR_WAIT_GROUPS]);
/* The verdict from a's wait decomposition: on the time it adds over the
 * baseline b (same workload and op) when b is given and a is slower,
 * else on its own time. cpu_aes: the CPU has AES instructions. */
void verdict_wait(const struct attribution *a, const struct attribution *b,
		  const struct target_info *t, bool cpu_aes,
		  struct verdict *out);

#endif /* ENCBENCH_TRACE_H */
