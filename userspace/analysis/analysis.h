/* SPDX-License-Identifier: MIT */
/*
 * The analysis: pure functions of snapshots (common/snapshot.h). From
 * what the tracer recorded of one phase it derives each layer's state and
 * figures (phase.c), classifies the recorded stacks by their function
 * names (stacks.c), splits the callers' wait (wait_split.c), attributes
 * time to layers (attribute.c) and words the verdicts (verdict.c).
 *
 * May include: common/, stats/, and the plain-C ABI headers of bpf/.
 * Never the tracer, libbpf or a skeleton: the analysis unit tests link
 * without them, so a reach into the tracer fails the build.
 */
#ifndef ENCBENCH_ANALYSIS_H
#define ENCBENCH_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/results.h"
#include "../common/snapshot.h"

/* The wait decomposition's counters with the stacks classified
 * (stacks.c): samples in crypto code, blocked time whose waker was. */
struct wait_counts {
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
	/* waker_stack_ns whose waker said nothing of what the caller
	 * waited for (a timer, a writeback completion: waker_says_nothing),
	 * its waker not in crypto code. */
	uint64_t waker_silent_ns[NR_OPS];
	/* STACK_BLOCKED_NS by why the caller blocked (block_reason_of). */
	uint64_t why_stack_ns[NR_OPS][NR_BLOCK_REASONS];
	/* ZFS's ARC over the phase (snap_zfs.arc). */
	struct {
		bool measured;
		uint64_t hits, misses, data_hits, data_misses;
	} arc;
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
	/* As snap_wait's: jbd2's commits were followed. */
	enum snap_journal journal;
	/* The sampling rate, per CPU. */
	int sample_hz;
	/* As snap_wait's: who held the CPUs while op's callers were
	 * runnable. */
	struct cpu_holder holders[NR_OPS][TOP_CPU_HOLDERS];
	int nr_holders[NR_OPS];
	struct worker_stat workers[NR_WORKER_KINDS];
	int nr_cpus;
};

/* One phase's figures as the analysis reads them (phase.c): the layer
 * states and sources of the plan adjusted to the target, the layers
 * that come from elsewhere (ZFS's crypt, write crypt from samples). */
struct phase_figures {
	struct layer_stat stats[NR_LAYERS][NR_OPS];
	/* Which attach point each layer came from, or "unavailable: why". */
	char sources[NR_LAYERS][DETAIL_LEN];
	struct layer_states states;
	double wall_s;
	uint64_t kernel_requests[NR_OPS];
	uint64_t missed_events;
	struct wait_counts wait;
};

/* phase.c: snapshot -> figures. */
void phase_figures_of(const struct snapshot *s, struct phase_figures *out);

/* stacks.c. Whether the n frames (function names, innermost first) of a
 * waker's stack (`waker`) or of a sampled task are crypto work of that
 * context; *under_crypt: crypto code anywhere on the stack. */
bool frames_in_crypt(const char *const *frames, int n, bool waker,
		     bool *under_crypt);
/* Is name crypto code (cipher, crypto API, fscrypt, dm-crypt, ZFS's)? */
bool crypt_symbol(const char *name);
/* The wait counters of s with its stacks classified, and the wait's
 * source text. */
void wait_counts_of(const struct snapshot *s, struct wait_counts *out);

/* block_reason.c: why a caller blocked (enum block_reason), from the n
 * function names of its stack as it blocked, innermost first; whether a
 * waker's frames say nothing of what the caller waited for (a timer, a
 * writeback completion). */
int block_reason_of(const char *const *frames, int n);
bool waker_says_nothing(const char *const *frames, int n);

/* attribute.c. Figures -> per-op attribution for one (target, workload):
 * fills layer results, derives `fs`, computes closure. Returns the number
 * of ops filled into out[] (ops with no syscalls are left out). */
int attribute(const struct phase_figures *f, const char *target,
	      const char *workload, struct attribution out[NR_OPS]);
/* The same straight from a snapshot (its target and workload). */
int attribute_snapshot(const struct snapshot *s,
		       struct attribution out[NR_OPS]);

/* The op whose cipher direction a's waits are on: a reaping call's is
 * the I/Os it reaps (reap_side, analyse_verdicts), any other op its own. */
static inline int attrib_side(const struct attribution *a)
{
	return a->op == EB_OP_REAP ? a->reap_side : a->op;
}

static inline bool attrib_reads(const struct attribution *a)
{
	return attrib_side(a) == EB_OP_READ;
}

/* aio.c. Op's per-I/O means of async I/O from a snapshot's counters;
 * whether a's op is mostly async I/O (then its verdict is verdict_aio's);
 * fio's own clat mean of a's job beside a's (r: the run's results); the
 * verdict on each I/O's completion latency, against baseline b (NULL:
 * none). */
void aio_result_of(const struct snap_aio *s, int op, struct aio_result *out);
bool aio_dominant(const struct attribution *a);
void aio_fio_clat(const struct results *r, struct attribution *a);
/* aio_job.c: a->aio.job_words from the parameters r records. */
void aio_job_words(const struct results *r, struct attribution *a);
void verdict_aio(const struct attribution *a, const struct attribution *b,
		 const struct target_info *t, struct verdict *out);

/* One-sentence verdict with evidence for an attribution, using the
 * target's encryption facts (driver, hardware acceleration). */
void verdict_for(const struct attribution *a, const struct target_info *t,
		 struct verdict *out);

/* wait_split.c: the wait decomposition of op from a phase's counters. */
void wait_result_from(const struct wait_counts *ws, int op,
		      struct wait_result *out);
/* Write-side encryption on a CPU from the samples alone (no fentry or
 * kprobe): the callers' crypt in the ops that write data (write, sync,
 * copy) plus the target's writeback workers', each on-CPU time in the
 * proportion of its samples in cipher code; in ns. */
uint64_t wait_sampled_write_crypt_ns(const struct wait_counts *ws);
/* What the components add up to (== total_ns by construction). */
uint64_t wait_sum_ns(const struct wait_result *w);
/* ns per call of w (per what w counts as its calls: a write phase's MiB,
 * verdict_phase.c); 0 for a NULL w or one without calls. */
double wait_per_call(const struct wait_result *w, uint64_t ns);
/* Per-syscall time t adds over base (NULL: t's own), by component into
 * added[] (by enum layer); returns the added total per syscall, in ns. */
double wait_added(const struct wait_result *t, const struct wait_result *base,
		  double added[NR_LAYERS]);

/* The same for the part of cpu-wait spent behind workers of `kind`. */
double wait_added_behind(const struct wait_result *t,
			 const struct wait_result *base, int kind);
/* The same for the part of cpu-wait spent while crypto work held the
 * CPUs: behind the crypto workers, and behind the target's writeback
 * workers (fscrypt's flusher encrypts) in their cipher code's share. */
double wait_added_crypt_held(const struct wait_result *t,
			     const struct wait_result *base);
/* The same for the part of cpu-wait spent waiting for an idle CPU to
 * wake (results.h: cpu_wait_idle_ns). */
double wait_added_idle(const struct wait_result *t,
		       const struct wait_result *base);
/* Workers of `kind`'s run-queue wait behind other tasks: runq_ns less
 * the part waiting for an idle CPU to wake. */
uint64_t wait_runq_busy(const struct wait_result *w, int kind);

/* verdict.c. Components grouped as a verdict names them: crypto (crypt +
 * crypt-queue), device, blk-queue, dm, fs, cpu-wait behind tasks (CPU
 * contention), cpu-wait for an idle CPU to wake. Index of the largest
 * group of ns[] (by enum layer), its sums in group[]; -1 if all are 0. */
#define NR_WAIT_GROUPS 7
/* cpu-wait while crypto work held the CPUs (cpu_crypt, a part of
 * ns[cpu-wait]: wait_added_crypt_held) is waiting for encryption work:
 * it counts in the crypto group; cpu_idle, another part, is its own
 * group. */
/* Append one evidence line to v (dropped past MAX_EVIDENCE): the one
 * writer of evidence for both verdicts. */
void verdict_add_evidence(struct verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

int wait_dominant(const double ns[NR_LAYERS], double cpu_crypt, double cpu_idle,
		  double group[NR_WAIT_GROUPS]);
/* What a verdict's figures are per: one op's call ("read", "reads",
 * "read time"), or a MiB of a whole phase. per_call: an op's own, where
 * why the caller blocked can be told (verdict_why.c). */
struct verdict_unit {
	const char *one, *plural, *time;
	bool per_call;
};
/* The summary of a's verdict, per u, and its components lines: on the
 * time it adds over *b (set to NULL when a is not slower), else on its
 * own. false when no time was measured (said in the summary). */
bool verdict_headline(const struct attribution *a, const struct attribution **b,
		      const struct target_info *t, bool cpu_aes,
		      const struct verdict_unit *u, struct verdict *out);
/* verdict_phase.c. The write phase (the workload's write() and fsync()
 * calls together, per MiB reaching the device) as the headline of the
 * write verdict v: the penalty moves between the calls with the room a
 * file system has (ext4 makes a writer wait in write() when free space
 * is short, else the fsync pays), the phase's does not. v's summary
 * becomes the phase's, the per-call one its first detail. bw, bs: the
 * baseline's (NULL: none). Leaves v alone when either call or the
 * bytes are missing. */
void verdict_write_phase(const struct attribution *w,
			 const struct attribution *s,
			 const struct attribution *bw,
			 const struct attribution *bs,
			 const struct target_info *t, bool cpu_aes,
			 struct verdict *v);
/* The verdict from a's wait decomposition: on the time it adds over the
 * baseline b (same workload and op) when b is given and a is slower,
 * else on its own time. cpu_aes: the CPU has AES instructions. */
void verdict_wait(const struct attribution *a, const struct attribution *b,
		  const struct target_info *t, bool cpu_aes,
		  struct verdict *out);
/* brief.c: out's line for the short report and its phase_ns, on the time
 * verdict_wait judged (b: the baseline it was judged against, or NULL). */
void verdict_brief(const struct attribution *a, const struct attribution *b,
		   const struct target_info *t, bool cpu_aes,
		   struct verdict *out);
/* untraced.c: "N % slower on A than on B (+D per OPN untraced, +T
 * traced)" into buf (names false: "than B"), T the traced time a adds
 * per call (total; per OPN, a's wait.syscalls counting OPNs), N and D
 * the untraced iterations' where both know their untraced/traced ratio,
 * the traced ones' otherwise. snprintf's return. */
int verdict_slower(char *buf, size_t len, const struct attribution *a,
		   const struct attribution *b, double total, const char *opn,
		   bool names);
/* What scales the traced time a adds over b per call (total) and its
 * causes' to the untraced iterations' (the shares stay): 1 where that
 * is not known or the untraced ones add none. */
double verdict_untraced_factor(const struct attribution *a,
			       const struct attribution *b, double total);
/* Evidence that a's traced iterations were slower than the untraced
 * ones' 95 % interval on x, its observed metric (nothing otherwise). */
void verdict_observer_evidence(const struct attribution *a,
			       const struct result *x, struct verdict *v);
/* Mark which of the n verdicts of one target and workload the short
 * report shows: reads and writes, others holding a quarter of the time. */
void verdict_headlines(struct verdict *v, int n);

/* combine.c. A phase's traced iterations parts[0..n) (one snapshot each,
 * in order) as one snapshot into *out, as a tracer counting the whole
 * phase would have read it: counters added, stacks of the same frames
 * merged, the CPU holders merged by task, the facts the last one's.
 * n == 1 copies. Free out with snapshot_free; 0 or negative errno. */
int snapshot_combine(const struct snapshot *const *parts, int n,
		     struct snapshot *out);
/* verdict_phase.c: h into top (n of TOP_CPU_HOLDERS kept, most samples
 * first), the same task adding up; the new n. */
int holder_merge(struct cpu_holder *top, int n, const struct cpu_holder *h);

/* analyse.c. The attribution of one phase appended to r (each entry
 * knowing its baseline, s->baseline). */
void analyse_phase(const struct snapshot *s, struct results *r);
/* The same for a phase of n traced iterations, one snapshot each
 * (snapshot_combine): what the run and --reanalyze both do. 0, or
 * negative errno (nothing appended). */
int analyse_iterations(const struct snapshot *const *parts, int n,
		       struct results *r);
/* r's verdicts, made anew from its attribution once the statistics are
 * done: each compared with its baseline's attribution of the same
 * workload and op if r holds it; their times the untraced iterations'
 * where r's results have an observer effect (traced against untraced)
 * for the target, workload and op, the traced ones' otherwise. */
void analyse_verdicts(struct results *r);
/* The attribution and verdicts of n snapshots (a saved
 * run's, in any order) into r, which holds the run's targets: each
 * phase in order of seq, its traced iterations combined (in order of
 * iteration) as the run combined them, each compared with its
 * baseline's phase of the same workload, job and op, as the run did,
 * and the page cache named (cached.h). r's attribution and verdicts are
 * replaced. */
void analyse_snapshots(const struct snapshot *const *snaps, int n,
		       struct results *r);

/* verdict_why.c. The summary when why the caller blocked says more
 * than what it waited for -- a write that waited for writeback (and what
 * writeback spent its time on), crypto on the caller's own CPU (ZFS
 * reads from the ARC) -- into out; false to leave it to the default.
 * total: the time told (added, or the op's own), crypto: the crypto
 * group's part of it, crypto_dominates: the largest group; cipher: the
 * cipher's clause. */
bool verdict_why_summary(const struct attribution *a,
			 const struct attribution *b, double total,
			 double crypto, bool crypto_dominates,
			 const struct target_info *t, const char *cipher,
			 struct verdict *out);
/* Evidence: why the caller blocked, the unwoken time's share-out. */
void verdict_why_lines(const struct attribution *a, struct verdict *out);

#endif /* ENCBENCH_ANALYSIS_H */
