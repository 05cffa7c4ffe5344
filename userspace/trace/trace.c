// SPDX-License-Identifier: MIT
/*
 * The tracer: opens attrib.bpf.c's skeleton, keeps exactly the programs
 * this kernel can run (tp_btf or raw_tp; fentry, kprobe or nothing for the
 * write-side crypto), fills its tables (syscall ops, crypto work functions
 * from /proc/kallsyms) and hands back one phase's statistics.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "trace.h" /* first: the skeleton needs attrib.h's types */
#include "attrib.skel.h"
#include "common/bpf_ids.h"
#include "ksyms.h"
#include "trace_priv.h"

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
	/* How dm-crypt's hand-off to its write thread is seen; why not. */
	enum enc_method dmw;
	char dmw_why[DETAIL_LEN];
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
	uint64_t misses_acc;
	uint64_t wall_acc_ns;
	/* Kernel ids of our programs and links (see common/bpf_ids.h). */
	int nr_ids;
	struct bpf_id ids[MAX_TRACER_IDS];
};

/* ---- libbpf messages: keep the first warning as the reason ---------- */

static char bpf_why[DETAIL_LEN];

static int capture_print(enum libbpf_print_level level, const char *fmt,
			 va_list ap)
{
	char line[DETAIL_LEN];
	size_t n;
	va_list aq;

	if (getenv("ENCBENCH_BPF_DEBUG")) {
		va_copy(aq, ap);
		vfprintf(stderr, fmt, aq);
		va_end(aq);
	}
	if (level != LIBBPF_WARN || bpf_why[0])
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
		line[--n] = '\0';
	if (n)
		snprintf(bpf_why, sizeof(bpf_why), "%s", line);
	return 0;
}

/* ---- tables --------------------------------------------------------- */

static int fill_crypt_funcs(struct tracer *tr)
{
	int fd = bpf_map__fd(tr->skel->maps.crypt_funcs);

	for (int i = 0; i < tr->cw.nr_funcs; i++) {
		__u64 key = tr->cw.addrs[i];
		__u32 val = tr->cw.kinds[i];

		if (bpf_map_update_elem(fd, &key, &val, BPF_ANY))
			return -errno;
	}
	return 0;
}

/*
 * Number of arguments of tracepoint `tp` from its BTF typedef
 * btf_trace_<tp> (a pointer to a func proto whose first parameter is the
 * tracepoint's void *__data), or -1 if BTF does not say.
 */
static int tp_nr_args(const struct btf *btf, const char *tp)
{
	const struct btf_type *t;
	char name[128];
	int id;

	if (!btf)
		return -1;
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!t || !btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return -1;
	return btf_vlen(t) - 1;
}

/* Index of the argument that is `nr_args - from_end`, clamped to what
 * attrib.bpf.c's ctx_arg() reads; the current layout when unknown. */
static int arg_index(const struct btf *btf, const char *tp, int from_end,
		     int current)
{
	int n = tp_nr_args(btf, tp), idx = n - from_end;

	if (n < 0 || idx < 0 || idx > 2)
		return current;
	return idx;
}

/*
 * a54895fa057c ("block: remove the request_queue to argument request
 * based tracepoints", v5.11) dropped the leading request_queue from
 * block_rq_issue/_merge/_requeue: (q, rq) -> (rq). The same v5.11 series did
 * the same to block_bio_queue, block_split and the bio merge tracepoints (which
 * also lost their request). The pointer we want is the last argument
 * (block_split: last but one), whichever layout BTF shows.
 */
static void set_arg_layout(struct attrib_bpf *skel)
{
	struct btf *btf = btf__load_vmlinux_btf();

	if (libbpf_get_error(btf))
		btf = NULL;
	skel->rodata->bio_queue_arg = arg_index(btf, "block_bio_queue", 1, 0);
	skel->rodata->bio_merge_arg =
		arg_index(btf, "block_bio_backmerge", 1, 0);
	skel->rodata->split_arg = arg_index(btf, "block_split", 2, 0);
	skel->rodata->rq_issue_arg = arg_index(btf, "block_rq_issue", 1, 0);
	skel->rodata->rq_merge_arg = arg_index(btf, "block_rq_merge", 1, 0);
	skel->rodata->rq_requeue_arg = arg_index(btf, "block_rq_requeue", 1, 0);
	btf__free(btf);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Keep only the programs this kernel runs: a program that cannot load
 * (fentry with EPERM here, kprobes without CONFIG_KPROBES) would fail the
 * whole skeleton. */
static void set_autoload(struct attrib_bpf *skel, bool btf, enum enc_method enc,
			 bool sample, enum enc_method dmx, enum enc_method dmw)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	struct bpf_program *prog;

	if (libbpf_get_error(vmlinux))
		vmlinux = NULL;

	bpf_object__for_each_program(prog, skel->obj)
	{
		const char *name = bpf_program__name(prog);
		bool load = false;

		if (ends_with(name, "_btf"))
			load = btf;
		else if (ends_with(name, "_raw"))
			load = !btf;
		else if (!strcmp(name, "enc_fentry") ||
			 !strcmp(name, "enc_fexit"))
			load = enc == ENC_FENTRY;
		else if (!strcmp(name, "enc_kprobe") ||
			 !strcmp(name, "enc_kretprobe"))
			load = enc == ENC_KPROBE;
		else if (!strncmp(name, "dmx_", 4))
			load = (dmx == ENC_FENTRY &&
				(ends_with(name, "_fentry") ||
				 ends_with(name, "_fexit"))) ||
			       (dmx == ENC_KPROBE &&
				(ends_with(name, "probe")));
		else if (!strcmp(name, "dmw_fentry"))
			load = dmw == ENC_FENTRY;
		else if (!strcmp(name, "dmw_kprobe"))
			load = dmw == ENC_KPROBE;
		else if (!strcmp(name, "wait_sample"))
			load = sample;
		else if (!strcmp(name, "rq_sweep"))
			load = true;
		/* wait.c attaches the sampler to a perf event per CPU;
		 * trace_end runs rq_sweep itself. */
		if (!strcmp(name, "wait_sample") || !strcmp(name, "rq_sweep"))
			bpf_program__set_autoattach(prog, false);
		if (load && !strncmp(name, "io_uring_", 9))
			load = iou_autoload(vmlinux, name);
		bpf_program__set_autoload(prog, load);
	}
	btf__free(vmlinux);
}

static void note_id(struct tracer *tr, enum bpf_id_kind kind, uint32_t id)
{
	if (id && tr->nr_ids < MAX_TRACER_IDS)
		tr->ids[tr->nr_ids++] = (struct bpf_id){.kind = kind, .id = id};
}

static int open_load(struct tracer *tr, bool btf, enum enc_method enc,
		     bool sample, char *why, size_t len)
{
	struct bpf_program *prog;
	int err;

	bpf_why[0] = '\0';
	tr->skel = attrib_bpf__open();
	if (!tr->skel) {
		err = -errno;
		snprintf(why, len, "opening the BPF skeleton: %s (%s)",
			 strerror(-err), bpf_why);
		return err;
	}
	set_autoload(tr->skel, btf, enc, sample, tr->dmx, tr->dmw);
	set_arg_layout(tr->skel);
	memcpy(tr->skel->rodata->ctx_delta, tr->cw.ctx_delta,
	       sizeof(tr->cw.ctx_delta));
	pid_bits_size(tr->skel->maps.pid_bits);
	err = attrib_bpf__load(tr->skel);
	if (err) {
		snprintf(why, len, "loading the BPF programs: %s (%s)",
			 strerror(-err), bpf_why);
		attrib_bpf__destroy(tr->skel);
		tr->skel = NULL;
		return err;
	}
	bpf_object__for_each_program(prog, tr->skel->obj)
	{
		if (bpf_program__autoload(prog))
			note_id(tr, BPF_ID_PROG, bpf_ids_add_prog(prog));
	}
	return 0;
}

/*
 * Bench-only: ENCBENCH_BENCH_SKIP lists programs, comma-separated and
 * without their _btf/_raw suffix (wait_sample: the CPU sampler), that are
 * loaded but left unattached, so that bench/wait-overhead.sh can measure
 * what each costs. Never set it in a real run: its layers would be wrong.
 */
bool bench_skipped(const char *prog)
{
	const char *list = getenv("ENCBENCH_BENCH_SKIP"), *p;
	size_t n = strlen(prog);

	if (ends_with(prog, "_btf") || ends_with(prog, "_raw"))
		n -= 4;
	for (p = list; p && *p; p += strcspn(p, ","), p += *p == ',')
		if (strcspn(p, ",") == n && !strncmp(p, prog, n))
			return true;
	return false;
}

/* attrib_bpf__attach, one program at a time so that each link's id is
 * recorded as soon as the link exists. */
static int attach_all(struct tracer *tr)
{
	const struct bpf_object_skeleton *s = tr->skel->skeleton;

	for (int i = 0; i < s->prog_cnt; i++) {
		struct bpf_program *prog = *s->progs[i].prog;
		struct bpf_link **link = s->progs[i].link;

		if (!bpf_program__autoload(prog) ||
		    !bpf_program__autoattach(prog) || *link ||
		    bench_skipped(bpf_program__name(prog)))
			continue;
		*link = bpf_program__attach(prog);
		if (!*link) {
			*link = NULL;
			return -errno;
		}
		note_id(tr, BPF_ID_LINK, bpf_ids_add_link(*link));
	}
	return 0;
}

/* Major number of "device-mapper" in /proc/devices, 0 if none. */
static unsigned int dm_major(void)
{
	FILE *f = fopen("/proc/devices", "re");
	char line[128], name[64];
	unsigned int major, found = 0;
	bool block = false;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Block devices:", 14) == 0)
			block = true;
		else if (block && sscanf(line, "%u %63s", &major, name) == 2 &&
			 strcmp(name, "device-mapper") == 0)
			found = major;
	}
	fclose(f);
	return found;
}

/* Optional: without it only ZFS targets lose `crypt`, with the reason. */
static void zfs_open(struct tracer *tr, const struct capabilities *caps,
		     const struct ksyms *ks)
{
	const char *why = zfscrypt_unavailable(caps, ks);
	struct zfs_shared_maps fds = {
		.threads = bpf_map__fd(tr->skel->maps.zfs_threads),
		.workers = bpf_map__fd(tr->skel->maps.workers),
		.worker_stats = bpf_map__fd(tr->skel->maps.worker_stats),
		.pid_bits = bpf_map__fd(tr->skel->maps.pid_bits),
	};

	if (why)
		snprintf(tr->zfs_why, sizeof(tr->zfs_why), "%s", why);
	else
		zfscrypt_open(&tr->zc, &fds, tr->zfs_why, sizeof(tr->zfs_why));
}

/*
 * Without the kprobes, ZFS's crypt from CPU samples: those of its
 * z_rd_*|z_wr_* taskq threads and of the callers in cipher code, times
 * the sampling period. CPU time only: no calls, no latencies.
 */
static void zfs_from_samples(struct tracer *tr, struct trace_snapshot *snap)
{
	const struct wait_snapshot *w = &snap->wait;
	char why[DETAIL_LEN];
	uint64_t n = 0;

	if (!w->sampled) {
		snprintf(why, sizeof(why),
			 "%.200s; no CPU samples either: %.200s", tr->zfs_why,
			 tr->wait.sample_why);
		snprintf(snap->sources[LAYER_CRYPT], DETAIL_LEN,
			 "unavailable: %s", why);
		layer_states_set(&snap->states, LAYER_CRYPT, -1,
				 LAYER_UNAVAILABLE, why);
		return;
	}
	snprintf(why, sizeof(why),
		 "%.200s: ZFS's CPU time in cipher code from CPU samples, no "
		 "per-call latencies",
		 tr->zfs_why);
	layer_states_set(&snap->states, LAYER_CRYPT, -1, LAYER_FALLBACK, why);
	for (int op = 0; op < NR_OPS; op++) {
		struct layer_stat *s = &snap->stats[LAYER_CRYPT][op];
		uint64_t k = w->zfs_crypt_samples[op] + w->crypt_samples[op];
		double ns = (double)k * 1e9 / w->sample_hz;

		n += k;
		s->sum_ns = (uint64_t)ns;
		/* Samples of several CPUs can outrun the wall clock. */
		s->busy_ns = ns < snap->wall_s * 1e9
				     ? (uint64_t)ns
				     : (uint64_t)(snap->wall_s * 1e9);
	}
	snprintf(snap->sources[LAYER_CRYPT], DETAIL_LEN,
		 "cpu samples: ZFS cipher code (ICP gcm_/ccm_/aes, zio_crypt_, "
		 "spa_do_crypt_) in z_rd_*/z_wr_* taskq threads and the "
		 "callers at %d Hz per CPU, %llu samples, times the period "
		 "(CPU time, not latency)",
		 w->sample_hz, (unsigned long long)n);
}

/* Say in the wait's source how wakeups by ZFS's taskq threads split. */
static void zfs_wait_source(const struct zfscrypt *zc, struct wait_snapshot *w)
{
	const char *chain = zfscrypt_chain_why(zc);
	size_t n = strlen(w->source);

	if (!chain[0])
		snprintf(w->source + n, sizeof(w->source) - n,
			 "; wakeups by ZFS taskq threads split by kprobes on "
			 "zio_execute, zio_{delay_,}interrupt, "
			 "vdev_{file,disk}_io_start "
			 "and spa_do_crypt_abd");
	else
		snprintf(w->source + n, sizeof(w->source) - n,
			 "; wakeups by ZFS taskq threads only partly followed "
			 "(%s)",
			 chain);
}

/* A ZFS target's crypt is ZFS's own, not the kernel crypto work the main
 * programs see (ZFS uses neither workqueues nor the crypto API). */
static void zfs_overlay(struct tracer *tr, struct trace_snapshot *snap)
{
	char who[NR_OPS][DETAIL_LEN / 2];

	snprintf(snap->sources[LAYER_CRYPT_QUEUE], DETAIL_LEN,
		 "not measured: ZFS queues its encryption in its own taskqs "
		 "(z_wr_iss, z_rd_int), not on a workqueue");
	layer_states_set(&snap->states, LAYER_CRYPT_QUEUE, -1,
			 LAYER_NOT_MEASURED,
			 "ZFS queues its encryption in its own taskqs");
	memset(snap->stats[LAYER_CRYPT_QUEUE], 0,
	       sizeof(snap->stats[LAYER_CRYPT_QUEUE]));
	memset(snap->stats[LAYER_CRYPT], 0, sizeof(snap->stats[LAYER_CRYPT]));
	if (!tr->zc) {
		zfs_from_samples(tr, snap);
		return;
	}
	zfscrypt_end(tr->zc, snap->stats[LAYER_CRYPT], who);
	zfs_wait_source(tr->zc, &snap->wait);
	layer_states_set(&snap->states, LAYER_CRYPT, -1, LAYER_MEASURED, "");
	snprintf(snap->sources[LAYER_CRYPT], DETAIL_LEN,
		 "kprobe:spa_do_crypt_abd (ZFS encryption, the target's "
		 "datasets%s%s%s%s)",
		 who[EB_OP_READ][0] ? "; read: " : "", who[EB_OP_READ],
		 who[EB_OP_WRITE][0] ? "; write: " : "", who[EB_OP_WRITE]);
}

int trace_open(const struct capabilities *caps, struct tracer **out, char *why,
	       size_t why_len)
{
	libbpf_print_fn_t old_print = libbpf_set_print(capture_print);
	char enc_why[DETAIL_LEN] = "", btf_why[DETAIL_LEN];
	struct tracer *tr = NULL;
	struct ksyms *ks = NULL;
	bool sample = caps->perf_event.ok;
	enum enc_method enc;
	bool btf;
	int err;

	*out = NULL;
	if (!caps->tp_btf.ok && !caps->raw_tp.ok) {
		snprintf(why, why_len,
			 "neither tp_btf (%s) nor raw_tp (%s) "
			 "works here",
			 caps->tp_btf.detail, caps->raw_tp.detail);
		err = -EOPNOTSUPP;
		goto out;
	}
	tr = calloc(1, sizeof(*tr));
	if (!tr) {
		err = -ENOMEM;
		snprintf(why, why_len, "out of memory");
		goto out;
	}
	/* Without kallsyms only the crypto layers are lost: go on. */
	ks = ksyms_load(NULL);
	crypt_work_plan(ks, errno, &tr->cw);
	enc = enc_choose(caps, ks, enc_why, sizeof(enc_why));
	btf = caps->tp_btf.ok;
	snprintf(btf_why, sizeof(btf_why), "%s", caps->tp_btf.detail);
	tr->dmx = dmx_choose(caps, ks);
	tr->dmw = dmw_choose(caps, ks, tr->dmw_why, sizeof(tr->dmw_why));
	err = open_load(tr, btf, enc, sample, why, why_len);
	if (err && tr->dmw != ENC_NONE) {
		/* No BTF for dm_crypt, or it went away since kallsyms was
		 * read: the write thread's stage goes unseen. */
		snprintf(tr->dmw_why, sizeof(tr->dmw_why),
			 "%s:" DMW_FUNC " failed to load: %s",
			 enc_name(tr->dmw), strerror(-err));
		tr->dmw = ENC_NONE;
		err = open_load(tr, btf, enc, sample, why, why_len);
	}
	if (err && tr->dmx != ENC_NONE) {
		/* dm_crypt unloaded since kallsyms was read, or no BTF for
		 * it: its inline crypto goes untimed, the rest is kept. */
		tr->dmx = ENC_NONE;
		err = open_load(tr, btf, enc, sample, why, why_len);
	}
	if (err && enc != ENC_NONE) {
		/* The optional write-side programs may be what failed (no
		 * BTF for the function, fentry refused): go on without. */
		snprintf(enc_why, sizeof(enc_why), "%s:%s failed to load: %s",
			 enc_name(enc), ENC_FUNC, strerror(-err));
		enc = ENC_NONE;
		err = open_load(tr, btf, enc, sample, why, why_len);
	}
	if (err && btf && caps->raw_tp.ok) {
		/* A tp_btf program the probe's trivial one did not cover
		 * may still be refused: raw_tp reads the same arguments. */
		char first[DETAIL_LEN];

		snprintf(first, sizeof(first), "%s", why);
		snprintf(btf_why, sizeof(btf_why), "%s", why);
		btf = false;
		err = open_load(tr, btf, enc, sample, why, why_len);
		if (err)
			snprintf(why, why_len, "%s", first);
	}
	if (err)
		goto out;
	/* Unmapped, the programs look every process up in `traced`. */
	tr->skel->bss->traced_bits =
		pid_bits_map(&tr->pid_bits, tr->skel->maps.pid_bits);
	err = fill_sys_ops(bpf_map__fd(tr->skel->maps.sys_ops));
	err = err ?: fill_crypt_funcs(tr);

	if (err) {
		snprintf(why, why_len, "filling the tracer's tables: %s",
			 strerror(-err));
		goto out;
	}
	bpf_why[0] = '\0';
	err = attach_all(tr);
	if (err) {
		snprintf(why, why_len, "attaching the BPF programs: %s (%s)",
			 strerror(-err), bpf_why);
		goto out;
	}
	err = wait_open(&tr->wait, tr->skel, ks, &tr->cw, sample);
	for (int i = 0; tr->wait.links && i < tr->wait.nr_cpus; i++)
		if (tr->wait.links[i])
			note_id(tr, BPF_ID_LINK,
				bpf_ids_add_link(tr->wait.links[i]));
	if (err) {
		snprintf(why, why_len, "filling the wait tables: %s",
			 strerror(-err));
		goto out;
	}
	tr->write_enc = enc_write_method(
		enc, tr->wait.sampling && tr->wait.writeback_workers);
	plan_sources(caps, btf, tr->write_enc, enc_why, &tr->cw, tr->sources);
	tr->btf = btf;
	tr->enc = enc;
	snprintf(tr->enc_why, sizeof(tr->enc_why), "%s", enc_why);
	plan_states(caps, btf, btf_why, tr->write_enc, enc_why, &tr->cw,
		    &tr->states);
	dmw_plan(caps, btf, tr->dmw, tr->dmw_why,
		 tr->sources[LAYER_DMCRYPT_WRITE], DETAIL_LEN, &tr->states);
	tr->dm_major = dm_major();
	zfs_open(tr, caps, ks);
	*out = tr;
	tr = NULL;
out:
	ksyms_free(ks);
	trace_close(tr);
	libbpf_set_print(old_print);
	return err;
}

/* ---- phases --------------------------------------------------------- */

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

static void stats_read(struct bpf_map *m, struct trace_snapshot *snap)
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
	if (tr->window_open)
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

int trace_begin(struct tracer *tr, const struct trace_filter *f)
{
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
	map_clear(skel->maps.sys_start);
	map_clear(skel->maps.bio_start);
	map_clear(skel->maps.rq_start);
	map_clear(skel->maps.cq_start);
	map_clear(skel->maps.cx_start);
	map_clear(skel->maps.enc_start);
	map_clear(skel->maps.dm_start);
	map_clear(skel->maps.dmx_start);
	map_clear(skel->maps.dmw_start);
	map_clear(skel->maps.dmio_times);
	map_clear(skel->maps.iou_start);
	map_clear(skel->maps.traced);
	map_clear(skel->maps.devs);
	stats_zero(skel->maps.stats);
	wait_begin(&tr->wait, skel);

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
	if (f->pid > 0 && traced_add(tr, f->pid))
		return -errno;
	memset(tr->kreq_acc, 0, sizeof(tr->kreq_acc));
	tr->misses_acc = 0;
	tr->wall_acc_ns = 0;
	window_open(tr);
	return 0;
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

/* dmcrypt-write exists only for a dm-crypt device whose writes go
 * through its write thread. */
static void dmw_applicable(const struct tracer *tr, struct trace_snapshot *snap)
{
	const char *why = NULL;
	int op = -1;

	if (!tr->filter_has_dm || !tr->filter.dmcrypt) {
		why = "no dm-crypt device in the target";
	} else if (tr->filter.dmcrypt_no_write_thread) {
		/* The other ops are not applicable already (dmw_plan). */
		op = EB_OP_WRITE;
		why = "no_write_workqueue is active: dm-crypt submits each "
		      "encrypted write itself, it never waits for the "
		      "dmcrypt_write thread";
	}
	if (!why)
		return;
	layer_states_set(&snap->states, LAYER_DMCRYPT_WRITE, op,
			 LAYER_NOT_APPLICABLE, why);
	snprintf(snap->sources[LAYER_DMCRYPT_WRITE], DETAIL_LEN,
		 "not applicable: %s", why);
}

/*
 * Neither fentry nor kprobe sees fscrypt's write-side encryption: crypt
 * for writes is the CPU time of the samples in cipher code, of the
 * callers (write, sync, copy) and of the kworkers writing the target back
 * (where fscrypt encrypts what the callers leave to writeback). CPU time
 * only: no calls, no latencies.
 */
static void write_crypt_from_samples(struct trace_snapshot *snap)
{
	struct layer_stat *s = &snap->stats[LAYER_CRYPT][EB_OP_WRITE];
	double ns = (double)wait_sampled_write_crypt_ns(&snap->wait);

	memset(s, 0, sizeof(*s));
	s->sum_ns = (uint64_t)ns;
	/* Samples of several CPUs can outrun the wall clock. */
	s->busy_ns = ns < snap->wall_s * 1e9 ? (uint64_t)ns
					     : (uint64_t)(snap->wall_s * 1e9);
}

int trace_end(struct tracer *tr, struct trace_snapshot *snap)
{
	bool dm_write = false;
	uint64_t now;

	if (!tr || !snap)
		return -EINVAL;
	window_close(tr);
	rq_sweep(tr->skel);
	now = now_ns();
	memset(snap, 0, sizeof(*snap));
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
	/* dm-crypt encrypts writes on its workqueue too: with a dm device
	 * in the target, crypt sees writes without fentry/kprobe. */
	if (tr->filter_has_dm && tr->cw.have_kcryptd &&
	    (snap->states.state[LAYER_CRYPT][EB_OP_WRITE] ==
		     LAYER_UNAVAILABLE ||
	     tr->write_enc == ENC_SAMPLES) &&
	    snap->states.state[LAYER_CRYPT][EB_OP_READ] != LAYER_UNAVAILABLE) {
		dm_write = true;
		layer_states_set(&snap->states, LAYER_CRYPT, EB_OP_WRITE,
				 snap->states.state[LAYER_CRYPT][EB_OP_READ],
				 snap->states.why[LAYER_CRYPT][EB_OP_READ]);
		crypt_source(snap->sources[LAYER_CRYPT], DETAIL_LEN, tr->btf,
			     tr->enc, tr->enc_why, &tr->cw, true);
	}
	if (!tr->filter_has_dm) {
		layer_states_set(&snap->states, LAYER_DM, -1,
				 LAYER_NOT_APPLICABLE,
				 "no device-mapper device in the target");
		snprintf(snap->sources[LAYER_DM], DETAIL_LEN,
			 "not applicable: %s", snap->states.why[LAYER_DM][0]);
	} else if (tr->dmx != ENC_NONE) {
		size_t n = strlen(snap->sources[LAYER_CRYPT]);

		snprintf(snap->sources[LAYER_CRYPT] + n, DETAIL_LEN - n,
			 "; %s:kcryptd_crypt_{read,write}_convert (dm-crypt "
			 "without workqueue)",
			 enc_name(tr->dmx));
	}
	dmw_applicable(tr, snap);
	if (tr->filter.no_devices)
		for (int l = LAYER_BLK_QUEUE; l <= LAYER_DEVICE; l++) {
			snprintf(snap->sources[l], DETAIL_LEN,
				 "not applicable: the target has no block "
				 "device of its own (its I/O goes through the "
				 "filesystem of a file)");
			layer_states_set(&snap->states, l, -1,
					 LAYER_NOT_APPLICABLE,
					 "the target has no block device of "
					 "its own");
		}
	memcpy(snap->kernel_requests, tr->kreq_acc, sizeof(tr->kreq_acc));
	wait_read(&tr->wait, tr->skel, &snap->wait);
	snap->wall_s = (double)tr->wall_acc_ns / 1e9;
	/* After wait_read and wall_s: the samples are the write side's only
	 * measure here. */
	if (tr->write_enc == ENC_SAMPLES && !dm_write)
		write_crypt_from_samples(snap);
	/* After wait_read: without kprobes, it has the samples. */
	if (tr->filter.nr_zfs_objsets)
		zfs_overlay(tr, snap);
	snap->missed_events = tr->misses_acc;
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
	wait_close(&tr->wait);
	zfscrypt_close(tr->zc);
	pid_bits_unmap(&tr->pid_bits);
	attrib_bpf__destroy(tr->skel);
	free(tr);
}
