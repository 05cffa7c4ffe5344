// SPDX-License-Identifier: MIT
/*
 * The tracer's phases: each opens and closes its windows around the
 * workload's timed children, counts what the kernel counted meanwhile,
 * and hands back the phase's statistics as a snapshot; the run-time cost
 * of a stretch; the tracer's close. Opening it (the programs this kernel
 * can run, loaded and attached) is load.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace.h" /* first: the skeleton needs attrib.h's types */
#include "attrib.skel.h"
#include "common/bpf_ids.h"
#include "trace_priv.h"

void map_clear(struct bpf_map *map)
{
	int fd = bpf_map__fd(map);
	size_t max = 2 * (size_t)bpf_map__max_entries(map) + 16;
	char key[16];

	if (bpf_map__key_size(map) > sizeof(key))
		return;
	while (max-- && bpf_map_get_next_key(fd, NULL, key) == 0)
		bpf_map_delete_elem(fd, key);
}

/* Runs of our programs the kernel skipped because one was already
 * running on that CPU (recursion protection, since 5.12). */
static uint64_t recursion_misses(struct attrib_bpf *skel)
{
	struct bpf_program *prog;
	uint64_t n = 0;

	bpf_object__for_each_program(prog, skel->obj)
	{
		struct bpf_prog_info info = {0};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			n += info.recursion_misses;
	}
	return n;
}

/* The stats map holds stats[layer][op] at key layer * NR_OPS + op. */
static void stats_zero(struct bpf_map *m)
{
	struct layer_stat zero = {0};

	for (__u32 k = 0; k < NR_LAYERS * NR_OPS; k++)
		bpf_map__update_elem(m, &k, sizeof(k), &zero, sizeof(zero), 0);
}

static void stats_read(struct bpf_map *m, struct snapshot *snap)
{
	for (__u32 k = 0; k < NR_LAYERS * NR_OPS; k++)
		bpf_map__lookup_elem(m, &k, sizeof(k),
				     &snap->stats[k / NR_OPS][k % NR_OPS],
				     sizeof(snap->stats[0][0]), 0);
}

static uint64_t ts_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	/* bpf_ktime_get_ns() is CLOCK_MONOTONIC. */
	clock_gettime(CLOCK_MONOTONIC, &t);
	return ts_ns(&t);
}

/*
 * A phase is one or more windows (trace_resume .. trace_pause). New items
 * start only inside one; the kernel's counters are read inside it, so a
 * request completing at either edge is traced, never only counted, and
 * the device count stays >= the kernel's.
 */
static void window_open(struct tracer *tr)
{
	/* Detached, nothing would be seen: no window to count. */
	if (tr->window_open || !tr->attached)
		return;
	tr->opened_ns = now_ns();
	/* Bench-only, as ENCBENCH_BENCH_SKIP: every program attached but
	 * leaving at its first check, to tell the cost of being called at
	 * all from the cost of the programs' work. */
	if (!getenv("ENCBENCH_BENCH_IDLE") || !*getenv("ENCBENCH_BENCH_IDLE"))
		__atomic_store_n(&tr->skel->bss->tracing_on, 1,
				 __ATOMIC_SEQ_CST);
	if (tr->zc)
		zfscrypt_window(tr->zc, true);
	kernel_requests(&tr->filter, tr->kreq_begin, true);
	if (tr->filter.nr_zfs_objsets && tr->arc_ok)
		tr->arc_ok = arcstats_read(tr->arc_begin);
	tr->misses_begin = recursion_misses(tr->skel);
	tr->window_open = true;
}

static void window_close(struct tracer *tr)
{
	uint64_t kreq[NR_OPS];

	if (!tr->window_open)
		return;
	kernel_requests(&tr->filter, kreq, false);
	__atomic_store_n(&tr->skel->bss->tracing_on, 0, __ATOMIC_SEQ_CST);
	if (tr->zc)
		zfscrypt_window(tr->zc, false);
	for (int op = 0; op < NR_OPS; op++)
		if (kreq[op] > tr->kreq_begin[op])
			tr->kreq_acc[op] += kreq[op] - tr->kreq_begin[op];
	if (tr->filter.nr_zfs_objsets && tr->arc_ok) {
		uint64_t arc[NR_ARC_COUNTERS];

		tr->arc_ok = arcstats_read(arc);
		for (int i = 0; tr->arc_ok && i < NR_ARC_COUNTERS; i++)
			if (arc[i] > tr->arc_begin[i])
				tr->arc_acc[i] += arc[i] - tr->arc_begin[i];
	}
	tr->misses_acc += recursion_misses(tr->skel) - tr->misses_begin;
	tr->wall_acc_ns += now_ns() - tr->opened_ns;
	tr->window_open = false;
}

/* Process pid's syscalls count from now on; its bit first, so that the
 * programs never skip the entry (pid_bits in attrib.bpf.c). */
static int traced_add(struct tracer *tr, pid_t pid)
{
	__u32 key = pid;
	__u8 one = 1;

	pid_bits_mark(&tr->pid_bits, key, PID_TRACED);
	return bpf_map_update_elem(bpf_map__fd(tr->skel->maps.traced), &key,
				   &one, BPF_ANY);
}

/* The phase's counters from zero: the maps' (the ZFS program's with
 * them) and those kept here over its windows. The filter, the processes
 * followed and the stack table stay. */
static void counters_restart(struct tracer *tr)
{
	stats_zero(tr->skel->maps.stats);
	wait_restart(tr->skel);
	aio_restart(tr->skel);
	zfscrypt_restart(tr->zc);
	memset(tr->kreq_acc, 0, sizeof(tr->kreq_acc));
	memset(tr->arc_acc, 0, sizeof(tr->arc_acc));
	tr->arc_ok = true;
	tr->misses_acc = 0;
	tr->wall_acc_ns = 0;
}

int trace_begin(struct tracer *tr, const struct trace_filter *f)
{
	const char *bench_sched;
	struct attrib_bpf *skel;
	int fd, err = 0;

	if (!tr || !f || f->nr_devs < 0 || f->nr_devs > MAX_TARGET_DEVS)
		return -EINVAL;
	skel = tr->skel;
	/* Stop new items first; clearing the start maps then drops every
	 * item in flight (their ends find no entry), and only then are the
	 * counters they would have touched zeroed. */
	__atomic_store_n(&skel->bss->tracing_on, 0, __ATOMIC_SEQ_CST);
	tr->window_open = false;
	map_clear(skel->maps.bio_start);
	map_clear(skel->maps.rq_start);
	map_clear(skel->maps.cq_start);
	map_clear(skel->maps.cx_start);
	map_clear(skel->maps.enc_start);
	map_clear(skel->maps.dm_start);
	map_clear(skel->maps.dmx_start);
	map_clear(skel->maps.dmw_start);
	map_clear(skel->maps.flush_start);
	map_clear(skel->maps.ciph_depth);
	map_clear(skel->maps.dmio_times);
	map_clear(skel->maps.iou_start);
	map_clear(skel->maps.traced);
	map_clear(skel->maps.devs);
	wait_begin(&tr->wait, skel);
	aio_begin(skel);
	counters_restart(tr);

	fd = bpf_map__fd(skel->maps.devs);
	tr->filter_has_dm = false;
	for (int i = 0; i < f->nr_devs; i++) {
		__u32 key = KDEV(f->major[i], f->minor[i]), val = 1;

		if (bpf_map_update_elem(fd, &key, &val, BPF_ANY))
			err = -errno;
		if (tr->dm_major && f->major[i] == tr->dm_major)
			tr->filter_has_dm = true;
	}
	if (err)
		return err;
	if (tr->zc)
		err = zfscrypt_begin(tr->zc, f->zfs_objsets, f->nr_zfs_objsets);
	if (err)
		return err;
	tr->filter = *f;
	/* No device: a filter nothing passes (no dev_t is 0:0), not none. */
	skel->bss->filter_devs = f->nr_devs > 0 || f->no_devices;
	skel->bss->filter_dm = tr->filter_has_dm;
	skel->bss->root_tgid = f->parent_tgid;
	skel->bss->zfs_sample_workers = f->nr_zfs_objsets && !tr->zc;
	skel->bss->cgroup_id = f->cgroup_id;
	/* Bench-only, as ENCBENCH_BENCH_SKIP: `trace` as run's traced
	 * iterations of a fio job with a synchronous engine are, with
	 * ENCBENCH_BENCH_SKIP=sys_enter,sys_exit (bench/wait-overhead.sh's
	 * ours-sched; its own syscall layer stays empty). */
	bench_sched = getenv("ENCBENCH_BENCH_CALLS_BY_SCHED");
	skel->bss->calls_by_sched =
		f->calls_by_workload ||
		(bench_sched && *bench_sched && trace_calls_by_sched(tr));
	if (f->pid > 0 && traced_add(tr, f->pid))
		return -errno;
	window_open(tr);
	return 0;
}

/*
 * Items and threads in flight when the programs went away: their ends
 * will not be seen. Their starts are forgotten (a recycled key would pair
 * with one at the next attach, a followed server's syscall would span
 * the detached stretch), and the busy periods they held open end now.
 * So is the traced set: detached, no fork adds to it and no exit takes
 * from it (a pid of ours that exits may come back as anyone's), so the
 * processes to follow are followed again after the next attach
 * (trace_follow: run re-reads its servers' trees from /proc). The
 * phase's counters stay.
 */
static void forget_in_flight(struct tracer *tr)
{
	struct attrib_bpf *skel = tr->skel;
	struct bpf_map *starts[] = {
		skel->maps.bio_start,	skel->maps.rq_start,
		skel->maps.cq_start,	skel->maps.cx_start,
		skel->maps.enc_start,	skel->maps.dm_start,
		skel->maps.dmx_start,	skel->maps.dmw_start,
		skel->maps.flush_start, skel->maps.dmio_times,
		skel->maps.iou_start,	skel->maps.thr,
		skel->maps.work_io,	skel->maps.workers,
		skel->maps.traced,
	};
	uint64_t now = now_ns();

	for (size_t i = 0; i < sizeof(starts) / sizeof(*starts); i++)
		map_clear(starts[i]);
	aio_forget(skel);
	for (__u32 k = 0; k < NR_LAYERS * NR_OPS; k++) {
		struct layer_stat s;

		if (bpf_map__lookup_elem(skel->maps.stats, &k, sizeof(k), &s,
					 sizeof(s), 0) ||
		    s.inflight <= 0)
			continue;
		if (s.busy_start && now > s.busy_start)
			s.busy_ns += now - s.busy_start;
		s.inflight = 0;
		s.busy_start = 0;
		bpf_map__update_elem(skel->maps.stats, &k, sizeof(k), &s,
				     sizeof(s), 0);
	}
}

int trace_attach(struct tracer *tr)
{
	int err;

	if (!tr)
		return -EINVAL;
	if (tr->attached)
		return 0;
	err = attach_progs(tr);
	err = err ?: wait_attach(&tr->wait, tr->skel);
	err = err ?: zfscrypt_attach(tr->zc);
	tr->attached = true;
	if (err)
		trace_detach(tr);
	return err;
}

void trace_detach(struct tracer *tr)
{
	if (!tr || !tr->attached)
		return;
	window_close(tr);
	zfscrypt_detach(tr->zc);
	wait_detach(&tr->wait);
	detach_progs(tr);
	forget_links(tr);
	tr->attached = false;
	/* Before the starts go: a request the kernel completed where no
	 * program ran (rq_unseen) is in the window's kernel count, and is
	 * counted unseen only while its start is there to be swept. Swept
	 * detached, nothing races the sweep; one that completed since the
	 * window closed counts unseen too (the kernel count is a floor). */
	rq_sweep(tr->skel);
	forget_in_flight(tr);
}

/* The workload's syscalls counted so far, and the items the tables had
 * no room for, over every layer and op. */
static void stats_totals(struct tracer *tr, uint64_t *ops, uint64_t *dropped)
{
	*ops = *dropped = 0;
	for (__u32 k = 0; k < NR_LAYERS * NR_OPS; k++) {
		struct layer_stat s;

		if (bpf_map__lookup_elem(tr->skel->maps.stats, &k, sizeof(k),
					 &s, sizeof(s), 0))
			continue;
		if (k / NR_OPS == LAYER_SYSCALL)
			*ops += s.count;
		*dropped += s.dropped;
	}
}

int trace_cost_begin(struct tracer *tr)
{
	struct bpf_object *objs[] = {tr->skel->obj, zfscrypt_object(tr->zc)};

	stats_totals(tr, &tr->cost_ops, &tr->cost_dropped);
	tr->cost_wall_ns = tr->wall_acc_ns;
	return bpf_cost_begin(&tr->cost, objs, 2);
}

void trace_cost_end(struct tracer *tr, struct tracer_cost *out)
{
	uint64_t ops, dropped;

	window_close(tr);
	stats_totals(tr, &ops, &dropped);
	bpf_cost_end(&tr->cost, out);
	out->ops = ops - tr->cost_ops;
	out->dropped += dropped - tr->cost_dropped;
	out->wall_s = (double)(tr->wall_acc_ns - tr->cost_wall_ns) / 1e9;
}

int trace_pause(struct tracer *tr)
{
	if (!tr)
		return -EINVAL;
	window_close(tr);
	return 0;
}

int trace_resume(struct tracer *tr)
{
	if (!tr)
		return -EINVAL;
	window_open(tr);
	return 0;
}

int trace_follow(struct tracer *tr, pid_t pid)
{
	if (!tr || pid <= 0)
		return -EINVAL;
	return traced_add(tr, pid) ? -errno : 0;
}

void trace_filter_dmcrypt(struct trace_filter *f, const struct target_info *t)
{
	char flags[DETAIL_LEN], *save = NULL, *tok;

	f->dmcrypt = false;
	f->dmcrypt_no_write_thread = false;
	for (int i = 0; i < t->nr_devices && i < MAX_DEVICES; i++)
		f->dmcrypt |= !strcmp(t->devices[i].role, "crypt");
	if (!f->dmcrypt)
		return;
	snprintf(flags, sizeof(flags), "%s", t->encryption.flags);
	for (tok = strtok_r(flags, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, "no_write_workqueue"))
			f->dmcrypt_no_write_thread = true;
}

/* How the tracer was set up for this phase: what analysis needs to read
 * its figures (snapshot.h). */
static void tracer_facts(const struct tracer *tr, struct snapshot *snap)
{
	struct snap_tracer *f = &snap->tracer;

	f->btf = tr->btf;
	snprintf(f->write_enc, sizeof(f->write_enc), "%s",
		 enc_name(tr->write_enc));
	snprintf(f->dmx, sizeof(f->dmx), "%s", enc_name(tr->dmx));
	f->has_dm = tr->filter_has_dm;
	f->have_kcryptd = tr->cw.have_kcryptd;
	crypt_source(f->crypt_source_dm_write, sizeof(f->crypt_source_dm_write),
		     tr->btf, tr->enc, tr->enc_why, &tr->cw, true);
	f->dmcrypt = tr->filter.dmcrypt;
	f->dmcrypt_no_write_thread = tr->filter.dmcrypt_no_write_thread;
	f->no_devices = tr->filter.no_devices;
	f->nr_zfs_objsets = tr->filter.nr_zfs_objsets;
}

int trace_end(struct tracer *tr, struct snapshot *snap)
{
	uint64_t now;

	if (!tr || !snap)
		return -EINVAL;
	window_close(tr);
	rq_sweep(tr->skel);
	now = now_ns();
	memset(snap, 0, sizeof(*snap));
	snap->version = SNAPSHOT_VERSION;
	stats_read(tr->skel->maps.stats, snap);
	/* A busy period still open (async writeback in flight) counts up
	 * to now: it is part of the phase. */
	for (int l = 0; l < NR_LAYERS; l++)
		for (int op = 0; op < NR_OPS; op++) {
			struct layer_stat *s = &snap->stats[l][op];

			if (s->inflight > 0 && s->busy_start &&
			    now > s->busy_start)
				s->busy_ns += now - s->busy_start;
		}
	memcpy(snap->sources, tr->sources, sizeof(snap->sources));
	snap->states = tr->states;
	tracer_facts(tr, snap);
	memcpy(snap->kernel_requests, tr->kreq_acc, sizeof(tr->kreq_acc));
	snap->missed_events = tr->misses_acc;
	snap->wall_s = (double)tr->wall_acc_ns / 1e9;
	wait_read(&tr->wait, tr->skel, snap);
	aio_read(tr->skel,
		 bpf_program__autoload(tr->skel->progs.io_uring_complete_btf) ||
			 bpf_program__autoload(
				 tr->skel->progs.io_uring_complete_raw),
		 snap);
	snprintf(snap->zfs.why, sizeof(snap->zfs.why), "%s", tr->zfs_why);
	snap->zfs.probes = tr->zc != NULL;
	if (tr->zc && tr->filter.nr_zfs_objsets) {
		zfscrypt_end(tr->zc, snap->zfs.crypt, snap->zfs.workers);
		snprintf(snap->zfs.chain_why, sizeof(snap->zfs.chain_why), "%s",
			 zfscrypt_chain_why(tr->zc));
	}
	if (tr->filter.nr_zfs_objsets && tr->arc_ok) {
		snap->zfs.arc.measured = true;
		snap->zfs.arc.hits = tr->arc_acc[ARC_HITS];
		snap->zfs.arc.misses = tr->arc_acc[ARC_MISSES];
		snap->zfs.arc.data_hits = tr->arc_acc[ARC_DATA_HITS];
		snap->zfs.arc.data_misses = tr->arc_acc[ARC_DATA_MISSES];
	}
	counters_restart(tr);
	return 0;
}

int trace_bpf_ids(const struct tracer *tr, struct bpf_id *out, int max)
{
	for (int i = 0; i < tr->nr_ids && i < max; i++)
		out[i] = tr->ids[i];
	return tr->nr_ids;
}

int trace_map_fd(const struct tracer *tr, const char *name)
{
	struct bpf_map *m;

	if (!tr || !tr->skel)
		return -EINVAL;
	m = bpf_object__find_map_by_name(tr->skel->obj, name);
	return m ? bpf_map__fd(m) : -ENOENT;
}

void trace_close(struct tracer *tr)
{
	if (!tr)
		return;
	bpf_cost_cancel(&tr->cost);
	trace_detach(tr);
	wait_close(&tr->wait);
	zfscrypt_close(tr->zc);
	pid_bits_unmap(&tr->pid_bits);
	attrib_bpf__destroy(tr->skel);
	free(tr);
}
