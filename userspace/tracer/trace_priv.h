/* SPDX-License-Identifier: MIT */
/* Shared between the tracer's files; not part of the trace.h API. */
#ifndef ENCBENCH_TRACE_PRIV_H
#define ENCBENCH_TRACE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace.h"
#include "common/bpf_ids.h"

struct ksyms;
struct btf;

/* fscrypt encrypts page cache blocks synchronously in writeback. */
#define ENC_FUNC "fscrypt_encrypt_pagecache_blocks"

/* ENC_SAMPLES: neither fentry nor kprobe, so write crypt is the CPU
 * samples in cipher code of the callers and of the target's writeback
 * workers (trace_end; never chosen for loading). */
enum enc_method { ENC_NONE, ENC_FENTRY, ENC_KPROBE, ENC_SAMPLES };

/* The flusher's work function (fs/fs-writeback.c). */
#define WRITEBACK_FN "wb_workfn"

/* ENC_SAMPLES where enc is ENC_NONE and the callers and the writeback
 * workers are sampled, else enc. */
enum enc_method enc_write_method(enum enc_method enc, bool sampled);

/* The write half of crypt's source with ENC_SAMPLES. */
#define ENC_SAMPLES_SOURCE                                                     \
	"cpu samples: callers + writeback workers (wb_workfn of the "          \
	"target's device), their on-CPU time in the proportion of samples "    \
	"in cipher code: CPU time, no latencies"

/* cryptwork.c: crypto work items on workqueues. */

/* Which work functions do crypto here, and how their items are filtered. */
struct crypt_work_plan {
	/* For the BPF crypt_funcs map: address -> enum crypt_work_kind. */
	int nr_funcs;
	uint64_t addrs[MAX_CRYPT_FUNCS];
	uint32_t kinds[MAX_CRYPT_FUNCS];
	bool have_kcryptd; /* dm_crypt was loaded */
	/* Why crypt-queue and crypt's read side are unavailable; "" if they
	 * are available. */
	char why[DETAIL_LEN];
	/* filters.bpf.h's ctx_delta: 0 where unresolved. */
	long long ctx_delta[NR_CRYPT_WORK_KINDS];
	/* Which registered work is counted on every device, and why; "" if
	 * all of it is filtered like the block layers. */
	char note[DETAIL_LEN];
};

/* ks NULL: /proc/kallsyms could not be read, for reason ks_errno. */
void crypt_work_plan(const struct ksyms *ks, int ks_errno,
		     struct crypt_work_plan *p);

#define WORK_CTX_MAX_NAMES   3
#define WORK_CTX_MAX_MEMBERS 6

/* The struct a work item is embedded in, and the member that leads to
 * the device. */
struct work_ctx_layout {
	const char *structs[WORK_CTX_MAX_NAMES]; /* names, newest first */
	const char *work; /* its struct work_struct member */
	const char *ptr;  /* the pointer to read: bio, buffer_head */
	/* All of its members in order, to pick it among namesakes (other
	 * files' structs of the same name); may be left empty. */
	const char *exact[WORK_CTX_MAX_MEMBERS];
};

/* Byte offset of l->ptr from l->work in the struct of `btf` that fits l;
 * 0, and why, if none fits or the ones that fit disagree. */
long long work_ctx_delta(const struct btf *btf, const struct work_ctx_layout *l,
			 char *why, size_t len);

/* load.c: whether ENCBENCH_BENCH_SKIP (bench-only) names program prog. */
bool bench_skipped(const char *prog);

/* plan.c */
const char *enc_name(enum enc_method m);
/* How the write-side crypto is timed here; why not, in why. */
enum enc_method enc_choose(const struct capabilities *caps,
			   const struct ksyms *ks, char *why, size_t len);
/* How dm-crypt's inline crypto (kcryptd_crypt called without a work
 * item) is timed here: fentry, kprobe, or not at all. */
enum enc_method dmx_choose(const struct capabilities *caps,
			   const struct ksyms *ks);
/* How the cipher calls inside crypt items are counted (attrib.bpf.c:
 * ciph_*): fentry, kprobe, or not at all. */
enum enc_method ciph_choose(const struct capabilities *caps,
			    const struct ksyms *ks);
/* dm-crypt's hand-off of an encrypted write to its write thread. */
#define DMW_FUNC "kcryptd_crypt_write_io_submit"
/* How that hand-off is seen here (the dmcrypt-write layer); why not. */
enum enc_method dmw_choose(const struct capabilities *caps,
			   const struct ksyms *ks, char *why, size_t len);
/* dmcrypt-write's source and states (write only) for method m. */
void dmw_plan(const struct capabilities *caps, bool btf, enum enc_method m,
	      const char *why, char *src, size_t len, struct layer_states *ls);
void plan_sources(const struct capabilities *caps, bool btf,
		  enum enc_method enc, const char *enc_why,
		  const struct crypt_work_plan *cw,
		  char src[NR_LAYERS][DETAIL_LEN]);
/* What each layer's figures will be per op, as plan_sources says in
 * text; btf_why: why raw_tp replaces tp_btf when btf is false. */
void plan_states(const struct capabilities *caps, bool btf, const char *btf_why,
		 enum enc_method enc, const char *enc_why,
		 const struct crypt_work_plan *cw, struct layer_states *ls);
/* crypt's source; dm_write: dm-crypt's writes are seen on its workqueue. */
void crypt_source(char *buf, size_t len, bool btf, enum enc_method enc,
		  const char *enc_why, const struct crypt_work_plan *cw,
		  bool dm_write);

/* ops.c: the syscall table of attrib.bpf.c's sys_ops map, and whether
 * io_uring program `prog` has its tracepoint in this kernel. */
int fill_sys_ops(int map_fd);
bool iou_autoload(const struct btf *vmlinux, const char *prog);
bool jbd2_autoload(const struct btf *vmlinux);

/* trace.c: empty a hash map; entries may come and go under us, so
 * bounded. */
struct bpf_map;
void map_clear(struct bpf_map *map);
/* wait.c: entries 0..n-1 of an array map set to zero. */
void map_zero(struct bpf_map *m, __u32 n);

/* aio.c: per-I/O attribution of async I/O (bpf/aio_io.bpf.h). Before
 * load: the syscall numbers; trace_begin: counters zeroed; at detach: the
 * I/Os in flight forgotten; trace_end: the counters into snap, then zeroed
 * (aio_restart) for the phase's next traced iteration. */
struct attrib_bpf;
void aio_set_calls(struct attrib_bpf *skel);
void aio_begin(struct attrib_bpf *skel);
void aio_restart(struct attrib_bpf *skel);
void aio_forget(struct attrib_bpf *skel);
void aio_read(struct attrib_bpf *skel, bool iou_loaded, struct snapshot *snap);

/* pid_bits.c: attrib.bpf.c's pid_bits map, mapped. */
struct pid_bits {
	uint64_t *words;
	uint32_t nr_words;
	size_t len;
};

void pid_bits_size(struct bpf_map *map);
bool pid_bits_map(struct pid_bits *pb, struct bpf_map *map);
void pid_bits_mark(struct pid_bits *pb, uint32_t pid, uint64_t bits);
void pid_bits_unmap(struct pid_bits *pb);

/* wait.c: the wait decomposition's user-space half. */
struct attrib_bpf;
struct ksym_range;

struct wait_tracer {
	int nr_cpus;
	/* /proc/kallsyms as it is once attached (BPF programs included),
	 * read again at each attach: names the snapshot's frames. */
	struct ksyms *ks;
	bool sampling;
	char sample_why[DETAIL_LEN];
	int *pfds;
	struct bpf_link **links;
	bool device_workers;	/* loop's work functions were found */
	bool writeback_workers; /* the flusher's wb_workfn was found */
	bool journal_commits;	/* jbd2's commits are followed */
};

/* After load: fill the worker table, attach CPU sampling if `sample`
 * (sampling failing only leaves the on-CPU time unsplit). */
int wait_open(struct wait_tracer *w, struct attrib_bpf *skel,
	      const struct ksyms *ks, const struct crypt_work_plan *cw,
	      bool sample);
/* Around each traced stretch: the CPU sampler's perf events and links
 * (nothing when sampling is off); /proc/kallsyms is read again after
 * each attach. */
int wait_attach(struct wait_tracer *w, struct attrib_bpf *skel);
void wait_detach(struct wait_tracer *w);
void wait_begin(struct wait_tracer *w, struct attrib_bpf *skel);
/* The wait split's counters and the stacks' counts zeroed (the stack
 * tables, stacks and why_stacks, and the threads' states kept): the next
 * traced stretch of the same phase counts apart. wait_begin does it too. */
void wait_restart(struct attrib_bpf *skel);
void wait_read(const struct wait_tracer *w, struct attrib_bpf *skel,
	       struct snapshot *snap);
void wait_close(struct wait_tracer *w);
/* devstat.c: completed read/write requests on the filter's devices,
 * plus those in flight when `inflight`. */
void kernel_requests(const struct trace_filter *f, uint64_t out[NR_OPS],
		     bool inflight);
/* devstat.c: count the requests still in rq_start that are over as
 * unseen (block.bpf.h: rq_sweep). */
struct attrib_bpf;
void rq_sweep(struct attrib_bpf *skel);

/* devstat.c: ZFS's ARC counters, false where ZFS is not loaded. */
enum arc_counter {
	ARC_HITS,
	ARC_MISSES,
	ARC_DATA_HITS,
	ARC_DATA_MISSES,
	NR_ARC_COUNTERS
};
bool arcstats_read(uint64_t out[NR_ARC_COUNTERS]);

/* zfscrypt.c: ZFS's own encryption (kprobes on spa_do_crypt_abd). */
struct zfscrypt;

/* Why it cannot be traced here (ks may be NULL), or NULL if it can. */
const char *zfscrypt_unavailable(const struct capabilities *caps,
				 const struct ksyms *ks);
/* attrib.bpf.c's maps that zfscrypt.bpf.c shares: what the taskq threads
 * are doing (zfs_threads), and their enrolment as workers (pid_bits with
 * them). */
struct zfs_shared_maps {
	int threads, workers, worker_stats, pid_bits;
};
int zfscrypt_open(struct zfscrypt **out, const struct zfs_shared_maps *fds,
		  char *why, size_t len);
/* Which of the zio chain's kprobes did not attach, or "". */
const char *zfscrypt_chain_why(const struct zfscrypt *zc);
void zfscrypt_close(struct zfscrypt *zc);
/* Its kprobes, around each traced stretch as the tracer's; loaded and
 * attached once by zfscrypt_open to know they can be, then detached. */
int zfscrypt_attach(struct zfscrypt *zc);
void zfscrypt_detach(struct zfscrypt *zc);
/* A phase counting only the datasets of these objset ids (n 0: all). */
int zfscrypt_begin(struct zfscrypt *zc, const uint64_t *objsets, int n);
/* The crypt and thread counters zeroed, the datasets kept (as
 * wait_restart). NULL is fine. */
void zfscrypt_restart(struct zfscrypt *zc);
void zfscrypt_window(struct zfscrypt *zc, bool open);
/* The phase's crypt per op, and which threads ran it (spa_do_crypt_abd
 * calls by enum zfs_worker). */
void zfscrypt_end(struct zfscrypt *zc, struct layer_stat out[NR_OPS],
		  uint64_t workers[ZFS_NR_WORKERS][NR_OPS]);

/* cost.c: the programs' run counts and times over a stretch, with the
 * kernel's run-time statistics on through a BPF_ENABLE_STATS fd. */
struct bpf_object;
struct bpf_cost {
	int stats_fd; /* < 0: not on, err says why */
	int err;
	int nr;
	int fds[MAX_COST_PROGS];
	struct prog_cost base[MAX_COST_PROGS];
};

int bpf_cost_begin(struct bpf_cost *c, struct bpf_object *const *objs,
		   int nr_objs);
/* Fills out's measured, why, progs, runs, run_time_ns and (recursion
 * misses) dropped; closes the fd. */
void bpf_cost_end(struct bpf_cost *c, struct tracer_cost *out);
void bpf_cost_cancel(struct bpf_cost *c);
/* zfscrypt.c: its BPF object, for the cost; NULL without zc. */
struct bpf_object *zfscrypt_object(const struct zfscrypt *zc);

/* The tracer itself: load.c opens, loads and attaches it, trace.c runs
 * its phases. */
struct tracer {
	struct attrib_bpf *skel;
	char sources[NR_LAYERS][DETAIL_LEN];
	struct layer_states states;
	unsigned int dm_major; /* 0: no device-mapper in this kernel */
	bool filter_has_dm;
	/* What crypt's source is made of (see crypt_source). */
	bool btf;
	enum enc_method enc;
	/* enc, or ENC_SAMPLES where CPU samples stand in for it. */
	enum enc_method write_enc;
	char enc_why[DETAIL_LEN];
	/* How dm-crypt's inline crypto (no workqueue) is timed, if at all. */
	enum enc_method dmx;
	/* How the cipher calls inside crypt items are counted, if at all. */
	enum enc_method ciph;
	/* How dm-crypt's hand-off to its write thread is seen; why not. */
	enum enc_method dmw;
	char dmw_why[DETAIL_LEN];
	/* Optional programs left out because the kernel refused them. */
	bool no_jbd2, no_iou;
	struct crypt_work_plan cw;
	/* ZFS's encryption, where the zfs module is loaded (zfscrypt.c);
	 * NULL with the reason in zfs_why otherwise. */
	struct zfscrypt *zc;
	char zfs_why[DETAIL_LEN];
	struct trace_filter filter;
	struct wait_tracer wait;
	struct pid_bits pid_bits;
	/* The open window, and what the closed ones of this phase add up to
	 * (see window_open). */
	bool window_open;
	uint64_t opened_ns;
	uint64_t kreq_begin[NR_OPS];
	uint64_t misses_begin;
	uint64_t kreq_acc[NR_OPS];
	/* ZFS targets: the ARC's counters at the window's start, and what
	 * the windows added; arc_ok while every read of them worked. */
	uint64_t arc_begin[NR_ARC_COUNTERS], arc_acc[NR_ARC_COUNTERS];
	bool arc_ok;
	uint64_t misses_acc;
	uint64_t wall_acc_ns;
	/* The programs have links (trace_attach .. trace_detach). */
	bool attached;
	/* trace_cost_begin .. _end: the counters where it began. */
	struct bpf_cost cost;
	uint64_t cost_ops, cost_dropped, cost_wall_ns;
	/* trace_calls_by_sched's answer, probed once. */
	bool calls_sched_probed, calls_sched_ok;
	/* Kernel ids of our programs and links (see common/bpf_ids.h). */
	int nr_ids;
	struct bpf_id ids[MAX_TRACER_IDS];
};

/* load.c: each autoloaded program attached (its link's id recorded), and
 * detached; the links' ids forgotten once they are gone. */
int attach_progs(struct tracer *tr);
void detach_progs(struct tracer *tr);
void forget_links(struct tracer *tr);

#endif
