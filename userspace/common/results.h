/* SPDX-License-Identifier: MIT */
/*
 * common/: small helpers every stage shares (parsing, formatting,
 * mountinfo, the state file, snapshots) and the results model below.
 * May include: the ABI headers of bpf/ and libbpf (bpf_ids.c only: no
 * header here includes it, so the analysis stays free of it).
 *
 * The results model: what every stage hands to the next. Stages fill it in
 * data-flow order (probe -> targets -> workloads -> trace -> stats ->
 * report); report writers only format it. Field names follow the
 * results.json contract in ARCHITECTURE.md.
 */
#ifndef ENCBENCH_RESULTS_H
#define ENCBENCH_RESULTS_H

#include <stdbool.h>
#include <stdint.h>

#include "../../bpf/attrib.h"

#define NAME_LEN	   64
#define PATH_LEN	   4096
#define DETAIL_LEN	   256
#define MAX_TARGETS	   16 /* tune: plain and up to 15 variants */
#define MAX_WORKLOADS	   16
#define MAX_METRICS	   64 /* fio: 6 per rw x block size */
#define MAX_SAMPLES	   1024
#define MAX_RAW_RUNS	   256 /* per-run rusage kept (run.log's raw section) */
#define MAX_DEVICES	   8
#define MAX_RESULTS	   1024
#define MAX_ATTRIB	   (MAX_TARGETS * MAX_WORKLOADS * NR_OPS)
#define MAX_CIPHERS	   8
/* A verdict's evidence lines: 10 dropped the last of fio's fscrypt
 * verdicts (the per-item latency note, the observer effect's line, most
 * of a write phase's write() lines) before 2026-12-06. */
#define MAX_EVIDENCE	   16
#define MAX_NOTES	   8
#define MAX_PARAMS	   24
#define MAX_USER_TARGETS   4  /* --target NAME=PATH */
#define MAX_TRACED_SAMPLES 64 /* --trace-runs */
#define MAX_CACHED_SAMPLES 64 /* iterations split off as cached */
#define MAX_COST_PROGS	   64 /* programs whose cost a run records */

/* A capability: does it work here, and the one-line reason either way. */
struct cap {
	bool ok;
	char detail[DETAIL_LEN];
};

struct cipher_info {
	char name[NAME_LEN];   /* "xts(aes)" */
	char driver[NAME_LEN]; /* "xts(ecb(aes-fixed-time))" or "" if none */
	bool hw_accel;
	/* Not in /proc/crypto yet (templates appear on first use): driver is
	 * what the kernel's template lookup would build from what is there. */
	bool predicted;
};

struct capabilities {
	char kernel[NAME_LEN];
	char arch[NAME_LEN / 2];
	bool root;
	struct cap btf, tracefs, bpffs;
	struct cap tp_btf, raw_tp, fentry, kprobe, perf_event;
	struct cap loop, dm_crypt, fscrypt, ecryptfs, zfs;
	struct cap io_uring;
	bool cpu_aes;
	int nr_ciphers;
	struct cipher_info ciphers[MAX_CIPHERS];
	/* The source the tracer would use per layer on this kernel. */
	char layer_sources[NR_LAYERS][DETAIL_LEN];
};

struct device_info {
	char name[NAME_LEN]; /* "loop3", "dm-0" */
	unsigned int major, minor;
	char role[NAME_LEN / 2]; /* "fs" (top), "crypt", "backing" */
};

/* A ZFS dataset, as `zfs get` reports it (zfs.c); dataset "" if not ZFS. */
struct zfs_info {
	char dataset[DETAIL_LEN];
	uint64_t objset_id; /* the kstat objset-0x<id>, zbookmark's zb_objset */
	char encryption[NAME_LEN / 2]; /* "aes-256-gcm", "off" */
	char keystatus[NAME_LEN / 2];  /* "available", "-" when unencrypted */
	char keyformat[NAME_LEN / 2];
	char compression[NAME_LEN / 2];
	uint64_t recordsize;
	char version[NAME_LEN / 2]; /* the loaded module's, /sys/module/zfs */
	char direct[NAME_LEN / 2];  /* OpenZFS >= 2.3; "" where absent */
};

struct target_info {
	char name[NAME_LEN];
	char kind[NAME_LEN / 2]; /* plain|luks2|fscrypt|ecryptfs|zfs|user */
	char mount[PATH_LEN];	 /* mount point of the filesystem */
	char dir[PATH_LEN];	 /* where workloads put their files */
	char fs[NAME_LEN / 2];
	int nr_devices;
	struct device_info devices[MAX_DEVICES];
	bool encrypted;
	/* dm-crypt with cipher_null, asked for as a control: dm-crypt's
	 * path without cipher work, plaintext on disk. Not encrypted; kind
	 * and notes say so in results.json. */
	bool null_cipher;
	/* Only meaningful when encrypted. */
	struct {
		char scheme[NAME_LEN]; /* "fscrypt v2", "LUKS2 dm-crypt" */
		char contents_cipher[NAME_LEN];
		char names_cipher[NAME_LEN];
		int key_bits;
		int sector_size;	/* dm-crypt: bytes per crypt sector */
		char flags[DETAIL_LEN]; /* dm-crypt: active flags, read back */
		char driver[NAME_LEN];	/* kernel driver that does the work */
		bool hw_accel;
	} encryption;
	bool verified_encrypted;
	/* What the verification saw: "ciphertext on /dev/X", "plaintext on
	 * /dev/X", or "not verified: <why>"; "" if it was not made. */
	char verification[DETAIL_LEN];
	char path[PATH_LEN]; /* user targets: the folder given, else "" */
	struct zfs_info zfs;
	int nr_notes;
	char notes[MAX_NOTES][DETAIL_LEN]; /* caveats the output must state */
};

struct metric_def {
	char name[NAME_LEN]; /* "write_s" */
	char unit[NAME_LEN / 2];
	bool higher_is_better;
};

struct summary {
	double mean, sd, min, max, median;
	double ci95[2];
};

/*
 * The observer effect on one metric: the traced iterations against the
 * untraced ones of the same target and workload (Welch, stats/).
 */
struct observer {
	bool measured; /* at least 2 samples on each side */
	double ratio;  /* traced mean / untraced mean */
	double ratio_ci95[2];
	/* What tracing added to the metric's cost, in % of the untraced
	 * mean: positive when the traced iterations were slower (longer
	 * times, lower throughputs); with its 95 % interval. */
	double added_pct;
	double added_ci95_pct[2];
	bool significant;
	/* The traced mean lies beyond the untraced 95 % interval on the
	 * slow side. */
	bool beyond_ci;
};

struct result {
	char target[NAME_LEN];
	char workload[NAME_LEN];
	/* The part of the workload it is of (a fio job), as
	 * attribution.job; "" when the workload is one part. */
	char job[NAME_LEN];
	struct metric_def metric;
	/* The untraced iterations: the figures. iteration[] is each one's
	 * place in the run's order, traced ones counted (0: unknown, a file
	 * from before traced iterations were apart). */
	int nr_samples;
	double samples[MAX_SAMPLES];
	int iteration[MAX_SAMPLES];
	/* The traced iterations (attribution only), likewise. */
	int nr_traced;
	double traced[MAX_TRACED_SAMPLES];
	int traced_iteration[MAX_TRACED_SAMPLES];
	/* A mean metric's observations in each traced iteration (sample's
	 * mean_n; all 0: not known, as in files from before them). */
	double traced_mean_n[MAX_TRACED_SAMPLES];
	struct observer obs;
	struct summary s;
	/* Busy share of all CPUs, sampled from /proc/stat every
	 * CPU_SAMPLE_MS while the timed children ran (Phoronix's "CPU Usage
	 * (Summary)"): min, mean and max over those samples. */
	struct {
		double min, avg, max;
		int samples;
	} cpu;
	struct {
		double real_s, user_s, sys_s; /* per-sample means */
		/* Each run's, as `time` shows them (the LUKS report's raw
		 * section in run.log): the first MAX_RAW_RUNS runs. */
		int nr_runs;
		double run_real_s[MAX_RAW_RUNS], run_user_s[MAX_RAW_RUNS],
			run_sys_s[MAX_RAW_RUNS];
	} rusage;
	/* A read-side figure: the bytes the workload read over its samples
	 * and the bytes the target's device delivered meanwhile (0: not a
	 * read-side figure, or not known). What the device did not deliver
	 * came from the page cache. dev_samples: the samples whose device
	 * bytes were counted. */
	double read_bytes, dev_read_bytes;
	int dev_samples;
	/* A write-side figure timed into the page cache: the kernel does no
	 * direct I/O there (fscrypt without inline encryption; eCryptfs runs
	 * fio buffered by design), so fio's latencies are copies into memory
	 * and its bandwidth counts rewrites of pages that never reach the
	 * device (only the end fsync, in fio's runtime, writes what is
	 * left). Not a disk figure. */
	bool page_cache_writes;
	/*
	 * Untraced iterations of a read-side figure that read more than
	 * CACHED_PCT_MAX % of their bytes from the page cache, where at least
	 * two others did not: not disk samples (result_split_cached moves
	 * them here out of samples[], with their places in the run). fio's
	 * random map reads every block once before any twice, so a job that
	 * outruns its file starts a second pass from memory where the kernel
	 * does no direct I/O: such a job beside a busy loop crossed it in 0
	 * to 2 of 5 iterations, and its figure was disk or cached by that.
	 */
	int nr_cached;
	double cached[MAX_CACHED_SAMPLES];
	int cached_iteration[MAX_CACHED_SAMPLES];
	/* While recording: which samples[] those are (past
	 * MAX_CACHED_SAMPLES: too many to split off), and their bytes. */
	int nr_cached_at;
	int cached_at[MAX_CACHED_SAMPLES];
	double cached_read_bytes, cached_dev_read_bytes;
};

/* Past this share of the bytes read from the page cache, a read-side
 * figure is not a disk figure. */
#define CACHED_PCT_MAX 10.0

/* The share (%) of res's bytes read that came from the page cache, or
 * -1 when not known. */
double result_cached_pct(const struct result *res);

/* Whether one iteration that read read_bytes, of which the device
 * delivered dev_bytes, read more than CACHED_PCT_MAX % from the cache. */
bool iteration_cached(double read_bytes, double dev_bytes);

/* The cached iterations recorded (nr_cached_at) out of samples[] into
 * cached[], their bytes out of the figure's, when at least two iterations
 * were not cached; otherwise nothing moves and the figure stays cached
 * (or disk) as a whole. Before the statistics. */
void result_split_cached(struct result *res);
/* The samples res's figure keeps once result_split_cached has run (the
 * cached iterations out where they will be split off, else all), into
 * out[] (room for res->nr_samples); their count. What --runs auto judges
 * while recording. */
int result_disk_samples(const struct result *res, double *out);

struct comparison {
	char baseline[NAME_LEN];
	char target[NAME_LEN];
	char workload[NAME_LEN];
	char metric[NAME_LEN];
	double diff_mean;
	double welch_ci95[2];
	double penalty_pct;
	/* Fieller's interval of the ratio of means (stats/ratio.c); both
	 * ends NaN and penalty_unbounded where the ratio's denominator (the
	 * baseline's mean time, the target's mean rate) is not told from 0. */
	double penalty_ci95_pct[2];
	bool penalty_unbounded;
	bool significant;
	/* The target's (or the baseline's) read figure came more than
	 * CACHED_PCT_MAX % from the page cache: not a disk figure, no
	 * penalty is claimed. cached_pct: the larger share of the two, -1
	 * when not known. */
	bool cached;
	double cached_pct;
	/* The target's or the baseline's write figure was timed into the
	 * page cache (struct result: page_cache_writes): not a disk figure,
	 * no penalty is claimed. */
	bool buffered;
};

/*
 * What a layer's figures are, for one target and op. results.json writes
 * layer_state_name()'s text and the reader maps it back, so the text is
 * stable; code tests the enum, never the source text.
 */
enum layer_state {
	/* 0: a zeroed result (a layer missing from a file) claims nothing. */
	LAYER_UNAVAILABLE,    /* cannot be traced here (reason: why) */
	LAYER_MEASURED,	      /* traced at its preferred attach point */
	LAYER_FALLBACK,	      /* traced, at a fallback point (reason: why) */
	LAYER_DERIVED,	      /* computed from other layers (fs) */
	LAYER_NOT_MEASURED,   /* no items of its own by design */
	LAYER_NOT_APPLICABLE, /* the target has none (no dm device) */
	NR_LAYER_STATES,
};

struct layer_result {
	int layer; /* enum layer */
	enum layer_state state;
	char source[DETAIL_LEN]; /* the plan: "tp_btf:block_rq_issue->...",
				    "unavailable: ..." */
	char reason[DETAIL_LEN]; /* why not measured (or a fallback) for
				    this op; "" when measured */
	uint64_t count, sum_ns, busy_ns;
	uint64_t mean_ns, p50_ns, p99_ns;
	uint64_t slots[HIST_SLOTS];
	/* device layer: the kernel's own count of completed requests
	 * (/sys/block/<dev>/stat) over the phase, a cross-check of count. */
	uint64_t kernel_requests;
	/* Items the tracer could not follow (its table of items in flight
	 * was full): count, sums and busy time are short by these. */
	uint64_t dropped;
	/* device: requests that ended where no BPF program ran, found over
	 * later; in kernel_requests, not in count or sums. */
	uint64_t unseen;
	/* device, writes: data-less flush requests the kernel ended without
	 * issuing them; in kernel_requests, never timed. */
	uint64_t unissued;
	/* crypt: the cipher calls its items made, one per crypto sector or
	 * data unit (0: not counted here, no fentry or kprobes). */
	uint64_t calls;
};

/*
 * What the caller waited for: every traced syscall's wall time cut into
 * components that add up to it (trace/wait.c). Unlike layer_result's
 * per-item latencies, these are shares of the caller's time.
 */
/* Why a caller blocked, from its own kernel stack as it blocked
 * (analysis/block_reason.c: function name -> reason). */
enum block_reason {
	WHY_FREE_SPACE,	    /* ext4_nonda_switch: ext4 near full */
	WHY_DIRTY_THROTTLE, /* balance_dirty_pages */
	WHY_WRITEBACK_WORK, /* wb_wait_for_completion: sync, writeback_inodes */
	WHY_FOLIO_WRITEBACK, /* folio_wait_writeback: a folio being written */
	WHY_JOURNAL,	     /* jbd2_log_wait_commit and the journal's locks */
	WHY_OWN_BIO,	/* submit_bio_wait, direct I/O: a bio it submitted */
	WHY_FOLIO_LOCK, /* a folio lock: a read in flight, another holder */
	WHY_ZFS_TXG,	/* txg_wait_synced/open: ZFS's transaction group */
	WHY_ZFS_ZIO,	/* zio_wait, zil_commit: a ZFS I/O of its own */
	WHY_LOCK,	/* a mutex or rwsem (the inode's lock) */
	WHY_OTHER,
	NR_BLOCK_REASONS,
};
#define TOP_CPU_HOLDERS 3

struct wait_result {
	bool available;
	char source[DETAIL_LEN];
	uint64_t syscalls;
	uint64_t total_ns; /* the syscalls' wall time, summed */
	/* By enum layer (syscall unused); they add up to total_ns. fs and
	 * crypt include the on-CPU time split by CPU samples. */
	uint64_t ns[NR_LAYERS];
	uint64_t oncpu_ns, oncpu_crypt_ns;
	uint64_t samples, crypt_samples;
	/* Samples taken in a call whose stack was not kept (the stack map
	 * full, a collision in it): in no split, so said. */
	uint64_t samples_nostack;
	/* Samples with a crypto function anywhere on the stack, crypto work
	 * or not (the tracer's programs run inside what fentry times):
	 * what a timer of the function's wall time would count on a CPU. */
	uint64_t crypt_stack_samples;
	/* One standard deviation of oncpu_crypt_ns from sampling. */
	uint64_t sampling_err_ns;
	/* Part of ns[fs] whose waker could not be followed. */
	uint64_t unresolved_ns;
	/* ns[cpu-wait] by whom the caller waited behind, from CPU samples
	 * of the other tasks while it was runnable: enum worker_kind
	 * (crypto workers, the loop worker, dm-crypt's write thread, ZFS's
	 * taskq threads), any other task last. */
	uint64_t behind_samples[NR_WORKER_KINDS + 1];
	uint64_t cpu_wait_behind_ns[NR_WORKER_KINDS + 1];
	/* The rest of the caller's own ns[cpu-wait]: woken onto an idle
	 * CPU, it waited for that CPU to wake (the wakeup's IPI, an idle
	 * state's exit, under a VM the host running the vCPU), behind no
	 * task: no contention. */
	uint64_t cpu_wait_idle_ns;
	/* Of cpu_wait_behind_ns[NR_WORKER_KINDS] (another task), the part
	 * behind the target's writeback workers (the flusher, jbd2
	 * committing), by their share of its samples: a writer runnable
	 * behind the writeback it waits for. Absent from older
	 * results.json: 0. */
	uint64_t behind_wb_samples, cpu_wait_wb_ns;
	/* Bytes the target's devices completed for this op. */
	uint64_t dev_bytes;
	/* The tasks that held the CPUs while the caller was runnable: the
	 * top TOP_CPU_HOLDERS by CPU samples (others' samples while it was
	 * runnable), each with its samples' time (samples x the period). */
	int nr_cpu_holders;
	struct cpu_holder {
		char comm[16];
		uint32_t pid, tgid;
		uint64_t samples, ns;
	} cpu_holders[TOP_CPU_HOLDERS];
	/* Wakeups by ZFS taskq threads in a zio (z_rd_int ending a read),
	 * and what they gave to ns[]: crypt, device (the vdev's I/O), and
	 * ZFS's pipeline, a part of ns[fs] (taskq and vdev queues,
	 * checksums, decompression). */
	uint64_t zfs_wakeups, zfs_crypt_ns, zfs_device_ns, zfs_pipeline_ns;
	/* Wakeups by dm-crypt's write thread itself, their time, and how
	 * many split along the chain of the clone it was submitting (the
	 * rest by its stack). */
	uint64_t dmw_wakeups, dmw_waker_ns, dmw_chained;
	/* Flush requests the target's devices completed over the phase,
	 * and their time from issue to end: device time outside the device
	 * items (no data), which a loop worker's run-queue wait is also a
	 * part of. Absent from older results.json: 0. */
	uint64_t flush_reqs, flush_ns;
	/* The target's writeback workers (kworkers running wb_workfn for
	 * its device), op write: their CPU samples, those in cipher code,
	 * those whose stack was lost, their time on a CPU (oncpu_ns) and
	 * runnable (runq_ns) while writing the target back, and the on-CPU
	 * time split by the samples into cipher code (crypt_ns) and the file
	 * system's own writeback work (fs_ns). Not in ns[]: the caller did not
	 * wait for them unless it blocked on writeback, and then that wait is
	 * in ns[] already. sampled: they were sampled (absent from older
	 * results.json); crypt_stack_samples as the caller's. */
	struct {
		bool sampled;
		uint64_t samples, crypt_samples, samples_nostack;
		uint64_t crypt_stack_samples;
		uint64_t oncpu_ns, runq_ns;
		uint64_t crypt_ns, fs_ns;
	} writeback;
	/* Why the caller blocked (enum block_reason): blocked intervals of
	 * at least 20 us by the caller's own stack; those whose stack was
	 * not taken, and the shorter ones. The same blocked time as ns[],
	 * seen from the blocked side. */
	uint64_t why_ns[NR_BLOCK_REASONS];
	uint64_t why_nostack_ns, why_short_ns;
	/* Blocked time with no useful waker -- the flusher ending the work
	 * the caller waited for (flusher_ns), jbd2 ending the journal
	 * commit it waited for (journal_ns), a timer or a writeback
	 * completion of no request of ours (other_ns) -- shared out in ns[]
	 * by what the target's writeback workers did over the phase: cipher
	 * code (crypt_ns), the file system (fs_ns), runnable (runq_ns, in
	 * cpu-wait), blocked (blocked_ns, by layer as their own blocked
	 * time was split by its wakers' chains; device_ns its device part,
	 * where what no chain told goes). shared: the workers were seen,
	 * else all of it is in fs. blocked_ns absent from older
	 * results.json: all device_ns. journal_by_jbd2: journal_ns was
	 * shared out by jbd2's own time alone (its part kept apart). */
	struct {
		bool shared, journal_by_jbd2;
		uint64_t flusher_ns, journal_ns, other_ns;
		uint64_t crypt_ns, fs_ns, runq_ns, device_ns;
		uint64_t blocked_ns[NR_LAYERS];
	} unwoken;
	/* ZFS's ARC over the phase (arcstats), where ZFS is: demand data
	 * reads that hit and missed it. */
	struct {
		bool measured;
		uint64_t hits, misses;
		uint64_t data_hits, data_misses;
	} arc;
	/* The workers the caller waits on, over the whole phase (all ops):
	 * enum worker_kind. */
	struct {
		uint64_t items, runq_ns, runq_waits, oncpu_ns;
		uint64_t bytes, bytes_oncpu_ns;
		/* Part of runq_ns waiting for an idle CPU to wake. */
		uint64_t runq_idle_ns;
	} workers[NR_WORKER_KINDS];
	int nr_cpus;
};

/*
 * Asynchronous I/O followed one by one (bpf/attrib.h, analysis/aio.c): per
 * I/O means in ns, as fio splits its latency: inside the submitting call
 * (fio's slat) and from its return until the completion was reaped (fio's
 * clat), the latter by layer plus the reaping, which add up to clat_ns.
 */
struct aio_result {
	bool available;
	char source[DETAIL_LEN];
	uint64_t ios, iouring, in_call, reaped, unlinked, dropped;
	/* Of dropped: let go because the request was submitted anew before
	 * the I/O's completion was seen, not for the tracer's room. Absent
	 * from older results.json: 0. */
	uint64_t dropped_stale;
	double sub_ns, clat_ns, reap_ns;
	double layer_ns[NR_LAYERS], sub_layer_ns[NR_LAYERS];
	/* fio's own clat mean over the traced iterations' I/Os in us (each
	 * iteration's mean weighed by its IOPS; 0: not known), and
	 * all_clat_ns's difference from it in % of it. */
	double fio_clat_us, fio_diff_pct;
	/* The mean over every I/O fio counts: the followed ones' clat_ns
	 * with the unlinked ones' (io_uring: submission to completion;
	 * libaio: io_submit's return to the reaping). */
	double all_clat_ns;
	/* libaio's unlinked I/Os' mean time inside io_submit (0: none
	 * seen, or an older file). */
	double unlinked_sub_ns;
	/* What the job's I/Os are, "random 4 KiB reads at QD4" (aio_job.c;
	 * "" when the run's parameters do not say). */
	char job_words[NAME_LEN];
	char job_engine[NAME_LEN / 2]; /* its ioengine= ("" likewise) */
};

struct attribution {
	char target[NAME_LEN];
	char workload[NAME_LEN];
	/* The part of the workload traced apart (a fio job, "seq-read";
	 * several at once "a+b"), "" when it is the whole workload. */
	char job[NAME_LEN];
	int op; /* enum eb_op */
	/* EB_OP_REAP: the op of the I/Os reaped (EB_OP_READ unless the
	 * phase's async I/Os are mostly writes). */
	int reap_side;
	uint64_t syscall_mean_ns;
	double closure_pct; /* sum of non-syscall layers' busy / syscall busy */
	struct layer_result layers[NR_LAYERS];
	/* Tracer runs the kernel skipped during the phase (a program firing
	 * while it already runs on that CPU, e.g. nested in an interrupt):
	 * each may have lost one event, so counts may be short by this. */
	uint64_t missed_events;
	struct wait_result wait;
	/* The attribution is the traced iterations'; the figures are the
	 * untraced ones'. untraced_scale: the untraced iterations' time
	 * over the traced ones' for this op, from the observer effect on
	 * metric `observed` (0: not known, times stay the traced ones');
	 * traced_slower: the traced mean beyond the untraced 95 % CI. */
	double untraced_scale;
	char observed[NAME_LEN];
	bool traced_slower;
	/* The target it is compared with ("": none, it is a baseline). */
	char baseline[NAME_LEN];
	struct aio_result aio;
};

/* One BPF program's share of one traced iteration (BPF_ENABLE_STATS). */
struct prog_cost {
	char name[NAME_LEN / 2];
	uint64_t run_cnt, run_time_ns;
	uint64_t misses; /* runs the kernel skipped (recursion) */
};

/*
 * What the tracer cost in one traced iteration of a target and workload:
 * the kernel's own run counts and run times of each program, while a
 * BPF_ENABLE_STATS file descriptor was open.
 */
struct tracer_cost {
	char target[NAME_LEN];
	char workload[NAME_LEN];
	char job[NAME_LEN]; /* the fio job traced apart, or "" */
	bool measured;
	char why[DETAIL_LEN];	    /* why not, when not measured */
	int iteration;		    /* its place in the run's order */
	double wall_s;		    /* the iteration's traced windows */
	uint64_t ops;		    /* the workload's syscalls traced in them */
	uint64_t runs, run_time_ns; /* all programs together */
	/* Events lost: runs the kernel skipped and items the tracer's
	 * tables had no room for. */
	uint64_t dropped;
	int nr_progs;
	struct prog_cost progs[MAX_COST_PROGS];
};

struct verdict {
	char target[NAME_LEN];
	char workload[NAME_LEN];
	char job[NAME_LEN]; /* as attribution.job */
	int op;
	char summary[1024];
	int nr_evidence;
	char evidence[MAX_EVIDENCE][DETAIL_LEN];
	/* The short report's line (analysis/brief.c): the op against its
	 * baseline or on its own time, with its largest causes and their
	 * shares; "" where none was made (then the summary stands in). */
	char brief[DETAIL_LEN];
	/* The time the verdict is on over the whole phase (per call times
	 * the calls), in ns: which ops are the slow ones. */
	double phase_ns;
	/* Shown in the short report: the reads and writes, and any other op
	 * holding a large part of the phase's time (brief.c). */
	bool headline;
};

/* One parameter of a workload, typed: report writers format it. */
enum param_kind { PARAM_INT, PARAM_NUM, PARAM_BOOL, PARAM_STR };

struct param {
	char key[NAME_LEN / 2];
	enum param_kind kind;
	long long i; /* PARAM_INT, PARAM_BOOL */
	double num;  /* PARAM_NUM */
	char str[DETAIL_LEN];
};

struct param_list {
	int n;
	struct param p[MAX_PARAMS];
};

void param_int(struct param_list *l, const char *key, long long v);
void param_num(struct param_list *l, const char *key, double v);
void param_bool(struct param_list *l, const char *key, bool v);
void param_str(struct param_list *l, const char *key, const char *v);

struct workload_info {
	char name[NAME_LEN];
	struct param_list params;
};

/* `run`'s options as results.json's meta.options records them: kept as
 * this struct until report/json.c writes them. */
struct run_options {
	uint64_t size_bytes;
	bool runs_auto; /* repeat until stable: stable_pct, min/max_runs */
	int runs;
	double stable_pct;
	int min_runs, max_runs;
	double scale;
	char preset[NAME_LEN]; /* "" when none */
	char scratch[PATH_LEN];
	char output[PATH_LEN];
	bool trace, drop_caches, html;
	int trace_runs; /* traced iterations per workload and target */
	bool syscall_tracepoints; /* --syscall-tracepoints */
	int nr_targets;
	char targets[MAX_TARGETS][NAME_LEN];
	int nr_workloads;
	char workloads[MAX_WORKLOADS][NAME_LEN];
	char luks_cipher[NAME_LEN];
	int luks_key_bits, luks_sector_size;
	/* --target NAME=PATH and --baseline ("" when not given). */
	int nr_user_targets;
	char user_names[MAX_USER_TARGETS][NAME_LEN];
	char user_paths[MAX_USER_TARGETS][PATH_LEN];
	char baseline[NAME_LEN];
};

struct run_meta {
	char tool_version[NAME_LEN / 2];
	char hostname[NAME_LEN];
	char cpu_model[128];
	char started[NAME_LEN]; /* ISO 8601 UTC */
	double duration_s;
	struct run_options options;
	bool tracing;
	char tracing_detail[DETAIL_LEN]; /* why attribution is off, if it is */
	bool dropped_caches;
	struct capabilities caps;
};

/* A default target kind this kernel cannot build, and why. */
struct skipped_target {
	char kind[NAME_LEN / 2];
	char reason[DETAIL_LEN];
};

/*
 * `tune`: the variants of one kind, each a target of the run (plain is the
 * baseline), ranked by the penalty of one score against plain. Filled by
 * run/tune.c (the plan and what ran) and analysis/tune_rank.c (the rest).
 */
#define MAX_VARIANTS	(MAX_TARGETS - 1)
#define TUNE_WAIT_PARTS 3 /* components named per op, largest first */
#define TUNE_OPS	3 /* ops whose added time is split */

struct tune_added_op {
	int op;				 /* enum eb_op */
	double added_ns;		 /* per call, variant minus plain */
	double layer_ns[NR_LAYERS];	 /* the same, per wait component */
	double items_per_mib[NR_LAYERS]; /* layer items per MiB moved */
	/* The cipher calls crypt's items made per MiB (one per crypto
	 * sector or data unit); 0 where they were not counted. */
	double cipher_calls_per_mib;
};

struct tune_variant {
	char name[NAME_LEN];	   /* its target's name: "luks2-sector-512" */
	char axis[NAME_LEN / 2];   /* "cipher", "sector size", "flags", ... */
	char settings[DETAIL_LEN]; /* what differs from the reference */
	char skipped[DETAIL_LEN];  /* "" if it ran, else why not */
	/* "" if its score is a disk figure, else why not (tune_rank.c):
	 * then it is not ranked, its speed being the page cache's. */
	char not_disk[DETAIL_LEN];
	bool reference;		   /* the tool's defaults */
	bool stopped_early;	   /* its CI separated from the best's */
	bool cut_by_budget;	   /* its share of the budget ran out */
	bool finished;		   /* every workload ran to its stop */
	int runs;		   /* iterations of the ranking workload */
	double seconds;		   /* its wall time, setup to teardown */
	/* analysis: the score's penalty against plain (Welch). */
	bool ranked;
	int rank;	/* 1 = best; tied variants share the best's */
	bool tied_best; /* not separable from the best */
	double penalty_pct, penalty_ci95_pct[2];
	double score_mean; /* the score's mean, its unit */
	int nr_ops;
	struct tune_added_op ops[TUNE_OPS];
};

struct tune_advice {
	bool have;	  /* a best variant other than the reference */
	int variant;	  /* index of the best */
	bool significant; /* the gain's interval excludes 0 */
	double gain_pct, gain_ci95_pct[2]; /* over the reference, > 0 better */
	char command[512];
	char caveat[DETAIL_LEN];
	char summary[DETAIL_LEN];
};

struct tune_result {
	bool on;
	char kind[NAME_LEN / 2];
	char workload[NAME_LEN]; /* the ranking workload */
	char score[DETAIL_LEN];	 /* "write_s + read_s per iteration" */
	char score_unit[NAME_LEN / 2];
	bool score_higher_is_better;
	char cross[2][NAME_LEN / 2]; /* --cross axes, "" when one at a time */
	/* --target NAME=PATH: the user's open LUKS2 mapping whose flags
	 * were tried, and the flags it had (and has again); "" otherwise */
	char device[NAME_LEN];
	char device_flags[NAME_LEN];
	/* it allows discards: a refresh not passing --allow-discards would
	 * stop them (the advice passes it on) */
	bool device_discards;
	double budget_s, spent_s;
	bool interrupted, budget_out;
	int nr_variants;
	struct tune_variant v[MAX_VARIANTS];
	struct tune_advice advice;
};

struct results {
	struct run_meta meta;
	struct tune_result tune; /* on only for `tune` */
	int nr_skipped;
	struct skipped_target skipped[MAX_TARGETS];
	int nr_targets;
	struct target_info targets[MAX_TARGETS];
	int nr_workloads;
	struct workload_info workloads[MAX_WORKLOADS];
	int nr_results;
	struct result results[MAX_RESULTS];
	int nr_comparisons;
	struct comparison comparisons[MAX_RESULTS];
	int nr_attrib;
	struct attribution attrib[MAX_ATTRIB];
	int nr_verdicts;
	struct verdict verdicts[MAX_ATTRIB];
	int nr_costs;
	struct tracer_cost costs[MAX_TARGETS * MAX_WORKLOADS];
};

/* Workload wl's parameter `key` as r records it, or NULL. */
const struct param *results_param(const struct results *r, const char *wl,
				  const char *key);

const char *layer_name(int layer);
int layer_from_name(const char *name);
/* "measured", "not applicable", ...; -1 for a name that is none. */
const char *layer_state_name(enum layer_state s);
int layer_state_from_name(const char *name);
/* The layer has figures (counts, times) for its op. */
static inline bool layer_has_figures(const struct layer_result *l)
{
	return l->state == LAYER_MEASURED || l->state == LAYER_FALLBACK ||
	       l->state == LAYER_DERIVED;
}
const char *op_name(int op);
/* enum block_reason: "ext4's free-space writeback (ext4_nonda_switch)",
 * ...; its results.json key ("free_space", ...), and back (-1: none). */
const char *block_reason_name(int why);
const char *block_reason_key(int why);
int block_reason_from_key(const char *key);
int op_from_name(const char *name);
/* "read/pread/readv, ...": the calls an op groups. */
const char *op_calls_of(int op);
/* "reads", "syncs": for sentences. */
const char *op_plural(int op);

#endif /* ENCBENCH_RESULTS_H */
