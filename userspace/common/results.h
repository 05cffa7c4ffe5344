/* SPDX-License-Identifier: MIT */
/*
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

#define NAME_LEN	 64
#define PATH_LEN	 4096
#define DETAIL_LEN	 256
#define MAX_TARGETS	 8
#define MAX_WORKLOADS	 16
#define MAX_METRICS	 64 /* fio: 6 per rw x block size */
#define MAX_SAMPLES	 1024
#define MAX_RAW_RUNS	 256 /* per-run rusage kept (run.log's raw section) */
#define MAX_DEVICES	 8
#define MAX_RESULTS	 1024
#define MAX_ATTRIB	 (MAX_TARGETS * MAX_WORKLOADS * NR_OPS)
#define MAX_CIPHERS	 8
#define MAX_EVIDENCE	 10
#define MAX_NOTES	 8
#define MAX_PARAMS	 24
#define MAX_USER_TARGETS 4 /* --target NAME=PATH */

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

struct result {
	char target[NAME_LEN];
	char workload[NAME_LEN];
	struct metric_def metric;
	int nr_samples;
	double samples[MAX_SAMPLES];
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
};

struct comparison {
	char baseline[NAME_LEN];
	char target[NAME_LEN];
	char workload[NAME_LEN];
	char metric[NAME_LEN];
	double diff_mean;
	double welch_ci95[2];
	double penalty_pct;
	double penalty_ci95_pct[2];
	bool significant;
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
};

/*
 * What the caller waited for: every traced syscall's wall time cut into
 * components that add up to it (trace/wait.c). Unlike layer_result's
 * per-item latencies, these are shares of the caller's time.
 */
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
	/* Bytes the target's devices completed for this op. */
	uint64_t dev_bytes;
	/* Wakeups by ZFS taskq threads in a zio (z_rd_int ending a read),
	 * and what they gave to ns[]: crypt, device (the vdev's I/O), and
	 * ZFS's pipeline, a part of ns[fs] (taskq and vdev queues,
	 * checksums, decompression). */
	uint64_t zfs_wakeups, zfs_crypt_ns, zfs_device_ns, zfs_pipeline_ns;
	/* Wakeups by dm-crypt's write thread itself, their time, and how
	 * many split along the chain of the clone it was submitting (the
	 * rest by its stack). */
	uint64_t dmw_wakeups, dmw_waker_ns, dmw_chained;
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
	/* The workers the caller waits on, over the whole phase (all ops):
	 * enum worker_kind. */
	struct {
		uint64_t items, runq_ns, runq_waits, oncpu_ns;
		uint64_t bytes, bytes_oncpu_ns;
	} workers[NR_WORKER_KINDS];
	int nr_cpus;
};

struct attribution {
	char target[NAME_LEN];
	char workload[NAME_LEN];
	int op; /* enum eb_op */
	uint64_t syscall_mean_ns;
	double closure_pct; /* sum of non-syscall layers' busy / syscall busy */
	struct layer_result layers[NR_LAYERS];
	/* Tracer runs the kernel skipped during the phase (a program firing
	 * while it already runs on that CPU, e.g. nested in an interrupt):
	 * each may have lost one event, so counts may be short by this. */
	uint64_t missed_events;
	struct wait_result wait;
};

struct verdict {
	char target[NAME_LEN];
	char workload[NAME_LEN];
	int op;
	char summary[512];
	int nr_evidence;
	char evidence[MAX_EVIDENCE][DETAIL_LEN];
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

struct results {
	struct run_meta meta;
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
};

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
int op_from_name(const char *name);
/* "read/pread/readv, ...": the calls an op groups. */
const char *op_calls_of(int op);
/* "reads", "syncs": for sentences. */
const char *op_plural(int op);

#endif /* ENCBENCH_RESULTS_H */
