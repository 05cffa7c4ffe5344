/* SPDX-License-Identifier: MIT */
/*
 * The snapshot: everything the kernel told the tracer about one traced
 * phase (one target x workload), raw, plus the facts an analysis needs to
 * read it (kernel, BTF, how each layer was attached, the target's devices
 * and encryption, ZFS probes, the workload's own figures). The tracer
 * fills it and derives nothing; userspace/analysis/ computes every state
 * override, attribution, wait split and verdict from it, so a saved
 * snapshot (snapshots/ in a results folder, report/json_snapshot.c) can be
 * analysed again by a later version (`report --reanalyze`).
 *
 * Sampled and waker stacks are kept per stack with their frames
 * symbolized (function names: addresses move with KASLR), so that a later
 * analysis can classify them anew. docs/snapshot.md describes the file.
 */
#ifndef ENCBENCH_SNAPSHOT_H
#define ENCBENCH_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/types.h> /* bpf/zfscrypt.h's __u64 */

#include "results.h"
#include "../../bpf/zfscrypt.h"

/* The version this program writes; the reader takes it and older ones
 * it knows how to upgrade (report/json_snapshot.c). */
#define SNAPSHOT_VERSION 2

/* A function name as /proc/kallsyms lists it (KSYM_NAME_LEN is 512, real
 * names are far shorter; a longer one is cut, said with a '~' at its end). */
#define SNAP_SYM_LEN 64
/* attrib.bpf.c's stack_counts (wait.bpf.h: MAX_STACK_KEYS). */
#define SNAP_MAX_STACKS	 4096
#define SNAP_MAX_SYMS	 16384
#define SNAP_MAX_METRICS MAX_METRICS

/* What each layer's figures are per op, and why when not measured at
 * the preferred point: the tracer's plan, which analysis adjusts to the
 * phase (analysis/phase.c). */
struct layer_states {
	enum layer_state state[NR_LAYERS][NR_OPS];
	char why[NR_LAYERS][NR_OPS][DETAIL_LEN];
};

/* Set layer's state and reason for op, or for every op when op < 0. */
void layer_states_set(struct layer_states *ls, int layer, int op,
		      enum layer_state state, const char *why);

/* One kernel stack of stack_counts: its use (enum stack_use) and op, its
 * value (samples, or ns of blocked time for STACK_WAKER_NS) and its frames,
 * innermost first, as indices into the snapshot's symbol table. */
struct snap_stack {
	uint16_t op, use;
	uint64_t value;
	int nr_frames;
	uint32_t frames[WAIT_STACK_DEPTH];
};

/* How the tracer was set up for this phase: what analysis needs to turn
 * the raw figures into per-layer states and sources. */
struct snap_tracer {
	bool btf; /* tp_btf (else raw_tp) */
	/* How the write-side crypto was timed: "fentry", "kprobe",
	 * "cpu samples" (neither: CPU samples stand in) or "none". */
	char write_enc[NAME_LEN / 2];
	/* dm-crypt's inline crypto (no workqueue): "fentry", "kprobe",
	 * "none". */
	char dmx[NAME_LEN / 2];
	/* The kernel has dm and the filter holds a dm device; dm_crypt's
	 * kcryptd work function was found. */
	bool has_dm, have_kcryptd;
	/* crypt's source as the plan words it when dm-crypt's writes are
	 * seen on its workqueue. */
	char crypt_source_dm_write[DETAIL_LEN];
	/* The filter: a dm-crypt device, its writes bypassing the write
	 * thread; no block device of its own; ZFS datasets followed. */
	bool dmcrypt, dmcrypt_no_write_thread, no_devices;
	int nr_zfs_objsets;
	/* What timed the calls, when the workload did ("fio's clat, psync
	 * engine"): the raw syscall tracepoints stayed detached, and the
	 * syscall layer's items (stats[LAYER_SYSCALL]) and the wait
	 * split's syscalls and total_ns are the workload's own figures,
	 * put there by the run (run/series.c); the wait split's on-CPU
	 * time is left for the analysis to derive. "": the tracepoints
	 * timed them, as in every snapshot before this field. */
	char calls_by[DETAIL_LEN];
};

/* The wait decomposition's raw counters (bpf/attrib.h) and stacks. */
struct snap_wait {
	bool available;
	bool sampled;		     /* the CPU-clock sampler ran */
	char sample_why[DETAIL_LEN]; /* why not, when not */
	int sample_hz;
	bool wb_sampled; /* the writeback workers were sampled */
	/* jbd2 committing the target's journal was a writeback worker
	 * (its tracepoints loaded); unknown in older snapshots. */
	enum snap_journal {
		SNAP_JOURNAL_UNKNOWN,
		SNAP_JOURNAL_FOLLOWED,
		SNAP_JOURNAL_UNFOLLOWED
	} journal;
	int nr_cpus;
	struct wait_stat ops[NR_OPS];
	struct worker_stat workers[NR_WORKER_KINDS];
	/* Per op: the tasks sampled most while its callers were runnable
	 * (the cpu_holders map), most first; their ns not set. */
	struct cpu_holder holders[NR_OPS][TOP_CPU_HOLDERS];
	int nr_holders[NR_OPS];
	int nr_stacks, stacks_cap; /* cap: room allocated */
	struct snap_stack *stacks;
	int nr_syms, syms_cap;
	char (*syms)[SNAP_SYM_LEN];
	/* Stacks not kept (no room, a symbol table full): their values are
	 * missing from stacks[]. */
	uint64_t stacks_lost;
};

/* ZFS's own encryption (zfscrypt.bpf.c), where its kprobes attached. */
struct snap_zfs {
	bool probes;		    /* kprobes on spa_do_crypt_abd attached */
	char why[DETAIL_LEN];	    /* why not, or why only samples */
	char chain_why[DETAIL_LEN]; /* zio chain kprobes missing, or "" */
	struct layer_stat crypt[NR_OPS];
	/* spa_do_crypt_abd calls by thread kind (enum zfs_worker). */
	uint64_t workers[ZFS_NR_WORKERS][NR_OPS];
	/* The ARC's counters over the phase (/proc/spl/kstat/zfs/arcstats:
	 * hits, misses, demand_data_hits, demand_data_misses); measured:
	 * every read of them worked. */
	struct {
		bool measured;
		uint64_t hits, misses, data_hits, data_misses;
	} arc;
};

/* The workload's own figure of one metric over the phase. */
struct snap_metric {
	char name[NAME_LEN];
	char unit[NAME_LEN / 2];
	bool higher_is_better;
	int nr_samples;
	double mean;
};

/* Asynchronous I/O followed one by one (bpf/attrib.h): per op. */
struct snap_aio {
	bool available;
	/* Where each I/O is taken to start and end on this kernel, and what
	 * is not seen (the report's source line). */
	char source[DETAIL_LEN];
	struct aio_stat ops[NR_OPS];
};

struct snapshot {
	int version;
	/* Order of the phase in the run (from 1): analysis compares a
	 * target with its baseline's earlier phase. */
	int seq;
	/* The traced iteration of the phase it holds, numbered as the
	 * phase's iterations are (results.json's traced_iterations), each
	 * one a snapshot of its own; 0: the phase's traced iterations as
	 * one (version 1's files, `trace`'s phase, a combination). The
	 * analysis adds a phase's iterations up (snapshot_combine). */
	int iteration;
	char tool_version[NAME_LEN / 2];
	char kernel[NAME_LEN];
	struct cap btf;
	bool cpu_aes;
	char workload[NAME_LEN];
	/* The part of the workload traced apart (a fio job), "" for the
	 * whole workload: attribution and verdicts carry it. */
	char job[NAME_LEN];
	/* The baseline target the verdicts compare with ("" for none). */
	char baseline[NAME_LEN];
	struct target_info target;
	int nr_metrics;
	struct snap_metric metrics[SNAP_MAX_METRICS];
	struct snap_tracer tracer;
	double wall_s;
	/* By layer and op, as the maps held them at the phase's end (a busy
	 * period still open counted up to then). */
	struct layer_stat stats[NR_LAYERS][NR_OPS];
	char sources[NR_LAYERS][DETAIL_LEN]; /* the plan */
	struct layer_states states;	     /* the plan */
	/* Completed requests per op on the target's devices
	 * (/sys/block/<dev>/stat), and BPF program runs the kernel skipped
	 * (recursion_misses), over the phase. */
	uint64_t kernel_requests[NR_OPS];
	uint64_t missed_events;
	struct snap_wait wait;
	struct snap_zfs zfs;
	struct snap_aio aio;
};

/* Frees the stacks and symbols (not s itself); s is empty after. */
void snapshot_free(struct snapshot *s);
/* The index of name in s's symbol table, added if new; -1 when full or
 * out of memory. */
int snapshot_sym(struct snapshot *s, const char *name);
/* Append a stack; its frames are symbol indices. -1 when full. */
int snapshot_add_stack(struct snapshot *s, const struct snap_stack *st);
/* Whether a and b are parts of one phase (seq, target, workload, job). */
bool snapshot_same_phase(const struct snapshot *a, const struct snapshot *b);

#endif /* ENCBENCH_SNAPSHOT_H */
