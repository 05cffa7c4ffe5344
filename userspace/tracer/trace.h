/* SPDX-License-Identifier: MIT */
/*
 * The tracer: loads the attribution BPF skeleton, picks the best attach
 * point per layer for this kernel (recording which one), and hands back
 * one phase's snapshot (common/snapshot.h): the maps read once per phase,
 * no per-event traffic, and no analysis (that is userspace/analysis/).
 *
 * May include: common/, probe/'s capabilities, the ABI headers of bpf/,
 * libbpf and the skeletons. Never analysis/ or report/.
 */
#ifndef ENCBENCH_TRACE_H
#define ENCBENCH_TRACE_H

#include <stdbool.h>
#include <sys/types.h>

#include "../common/bpf_ids.h"
#include "../common/results.h"
#include "../common/snapshot.h"

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
	/* The workload times its own calls (workload_ops.times_calls):
	 * the raw syscall tracepoints stay detached, and the caller's call
	 * is read from its saved registers at each switch-out
	 * (calls_by_sched, bpf/wait_state.bpf.h). Set with trace_begin
	 * while detached; false on kernels without what it needs
	 * (trace_calls_by_sched). */
	bool calls_by_workload;
};

/* Whether this tracer can follow calls without the syscall tracepoints
 * (calls_by_workload): x86's saved registers, bpf_task_pt_regs (5.15). */
bool trace_calls_by_sched(struct tracer *tr);

/* The source each layer would come from given these capabilities (the
 * plan `probe` prints and the tracer follows). */
void trace_plan(const struct capabilities *caps,
		char sources[NR_LAYERS][DETAIL_LEN]);

/* Set f's dm-crypt facts from the target's description: a device of role
 * "crypt", and its flags as read back from the active mapping. */
void trace_filter_dmcrypt(struct trace_filter *f, const struct target_info *t);

/* Load (and attach once, to know it can be, then detach). On failure
 * returns negative errno and says why in `why`; the caller benchmarks
 * without attribution. */
int trace_open(const struct capabilities *caps, struct tracer **out, char *why,
	       size_t why_len);
/* Being attached is most of the tracer's cost (every syscall of every
 * thread takes the slow path, every context switch runs a program), so
 * the programs are attached only around what is traced: trace_attach
 * makes every link (their ids recorded, see bpf_ids.h), trace_detach
 * destroys them all and forgets what was in flight; the programs stay
 * loaded and the phase's counters stay. trace_close detaches too. */
int trace_attach(struct tracer *tr);
void trace_detach(struct tracer *tr);
/* Reset counters and set the filter: the start of one phase (its first
 * window opens if the tracer is attached). */
int trace_begin(struct tracer *tr, const struct trace_filter *f);
/* Leave out, and take back in, a stretch of the phase: nothing starts
 * while paused (untimed preparation such as dropping caches stays out of
 * the attribution); items already in flight still complete and count.
 * trace_begin opens the first window, trace_end closes the last; a window
 * opens only while attached, and trace_detach closes it. */
int trace_pause(struct tracer *tr);
int trace_resume(struct tracer *tr);
/* Count pid's syscalls (and its children's, forked from now on, also
 * while paused) until the phase ends or the tracer is detached (which
 * forgets every process: follow them again after trace_attach): a server
 * the workload started outside a window, whose processes do the work its
 * client asks for. Call it before pid forks (the server waits to be
 * released), or follow the children it has already (follow_running). */
int trace_follow(struct tracer *tr, pid_t pid);
/* What the programs cost from _begin to _end (call both while
 * attached, around one traced iteration): run counts and run times by
 * the kernel's statistics, on through a BPF_ENABLE_STATS fd meanwhile
 * (the kernel turns them off when it closes, even if we are killed),
 * the workload's syscalls traced and the events lost. _begin returns
 * negative errno if the statistics cannot be turned on (then _end says
 * why in out). */
int trace_cost_begin(struct tracer *tr);
void trace_cost_end(struct tracer *tr, struct tracer_cost *out);
/* The phase begun by trace_begin, since it or the last trace_end, into
 * *snap, raw (common/snapshot.h): the maps as they are, the plan, the
 * stacks symbolized, the tracer's facts; the caller adds the run's
 * (target, workload, seq, iteration). The counters then start again from
 * zero, the filter and the processes followed kept: called after each
 * traced iteration, each iteration's snapshot holds its own figures and
 * those of the phase's iterations add up to the phase's. Derives
 * nothing: userspace/analysis/ reads it. Free it with snapshot_free. */
int trace_end(struct tracer *tr, struct snapshot *snap);
/* The kernel ids of the tracer's programs and links, as recorded when
 * each was made: copies up to max, returns how many there are. */
int trace_bpf_ids(const struct tracer *tr, struct bpf_id *out, int max);
/* The fd of one of the tracer's maps by name (for the timeline, which
 * shares them), or negative errno. */
int trace_map_fd(const struct tracer *tr, const char *name);
/* Detach and free; leaves no link or program behind. NULL is fine. */
void trace_close(struct tracer *tr);

#endif /* ENCBENCH_TRACE_H */
