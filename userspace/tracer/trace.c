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

/* ---- libbpf messages: keep the first warning as the reason ---------- */

static char bpf_why[DETAIL_LEN];

/*
 * The program the last load failed on, from libbpf's first warning
 * ("prog 'NAME': BPF program load failed: ..."); "" if not told. Each
 * fallback below drops only what that program belongs to: a refused
 * jbd2 program must not cost the write thread's layer.
 */
static char failed_prog[64];

static bool failed_in(const char *prefix)
{
	return !failed_prog[0] || !strncmp(failed_prog, prefix, strlen(prefix));
}

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
 * block.bpf.h's ctx_arg() reads; the current layout when unknown. */
static int arg_index(const struct btf *btf, const char *tp, int from_end,
		     int current)
{
	int n = tp_nr_args(btf, tp), idx = n - from_end;

	if (n < 0 || idx < 0 || idx > 2)
		return current;
	return idx;
}

/* The value of enumerator `name` in any enum of btf, named or not;
 * dflt when there is none (the flag was a #define). */
static __u32 enumerator(const struct btf *btf, const char *name, __u32 dflt)
{
	int n = btf ? (int)btf__type_cnt(btf) : 0;

	for (int id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;

		if (!btf_is_enum(t))
			continue;
		e = btf_enum(t);
		for (int i = 0; i < btf_vlen(t); i++, e++)
			if (!strcmp(btf__name_by_offset(btf, e->name_off),
				    name))
				return (__u32)e->val;
	}
	return dflt;
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
	skel->rodata->rqf_flush_seq_bit = enumerator(btf, "__RQF_FLUSH_SEQ", 4);
	btf__free(btf);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Is name one of method m's programs (*_fentry and *_fexit, or
 * *_kprobe and *_kretprobe)? */
static bool method_prog(const char *name, enum enc_method m)
{
	if (m == ENC_FENTRY)
		return ends_with(name, "_fentry") || ends_with(name, "_fexit");
	return m == ENC_KPROBE && ends_with(name, "probe");
}

/* Keep only the programs this kernel runs: a program that cannot load
 * (fentry with EPERM here, kprobes without CONFIG_KPROBES) would fail the
 * whole skeleton. */
static void set_autoload(const struct tracer *tr, bool btf, enum enc_method enc,
			 bool sample)
{
	struct attrib_bpf *skel = tr->skel;
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
			load = method_prog(name, tr->dmx);
		else if (!strncmp(name, "ciph_", 5))
			load = method_prog(name, tr->ciph);
		else if (!strcmp(name, "dmw_fentry"))
			load = tr->dmw == ENC_FENTRY;
		else if (!strcmp(name, "dmw_kprobe"))
			load = tr->dmw == ENC_KPROBE;
		else if (!strcmp(name, "wait_sample"))
			load = sample;
		else if (!strcmp(name, "rq_sweep"))
			load = true;
		/* wait.c attaches the sampler to a perf event per CPU;
		 * trace_end runs rq_sweep itself. */
		if (!strcmp(name, "wait_sample") || !strcmp(name, "rq_sweep"))
			bpf_program__set_autoattach(prog, false);
		if (load && !strncmp(name, "io_uring_", 9))
			load = !tr->no_iou && iou_autoload(vmlinux, name);
		if (load && !strncmp(name, "jbd2_", 5))
			load = !tr->no_jbd2 && jbd2_autoload(vmlinux);
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
	failed_prog[0] = '\0';
	tr->skel = attrib_bpf__open();
	if (!tr->skel) {
		err = -errno;
		snprintf(why, len, "opening the BPF skeleton: %s (%s)",
			 strerror(-err), bpf_why);
		return err;
	}
	set_autoload(tr, btf, enc, sample);
	set_arg_layout(tr->skel);
	aio_set_calls(tr->skel);
	memcpy(tr->skel->rodata->ctx_delta, tr->cw.ctx_delta,
	       sizeof(tr->cw.ctx_delta));
	pid_bits_size(tr->skel->maps.pid_bits);
	err = attrib_bpf__load(tr->skel);
	if (err) {
		if (sscanf(bpf_why, "prog '%63[^']'", failed_prog) != 1)
			failed_prog[0] = '\0';
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
 * what each costs ("*": every one). Never set it in a real run: its
 * layers would be wrong.
 */
bool bench_skipped(const char *prog)
{
	const char *list = getenv("ENCBENCH_BENCH_SKIP"), *p;
	size_t n = strlen(prog);

	/* "*": none attached, the tracer's own process alone. */
	if (list && !strcmp(list, "*"))
		return true;

	if (ends_with(prog, "_btf") || ends_with(prog, "_raw"))
		n -= 4;
	for (p = list; p && *p; p += strcspn(p, ","), p += *p == ',')
		if (strcspn(p, ",") == n && !strncmp(p, prog, n))
			return true;
	return false;
}

/* The raw syscall tracepoints' programs (both flavours). */
static bool is_syscall_tp(const char *prog)
{
	return !strncmp(prog, "sys_enter_", 10) ||
	       !strncmp(prog, "sys_exit_", 9);
}

/* bpf_task_pt_regs came with dd6e10fbd9fb ("bpf: Add bpf_task_pt_regs()
 * helper", v5.15); the saved syscall number is read as x86's orig_ax. */
bool trace_calls_by_sched(struct tracer *tr)
{
#if defined(__x86_64__)
	if (tr && !tr->calls_sched_probed) {
		tr->calls_sched_ok = libbpf_probe_bpf_helper(
					     BPF_PROG_TYPE_PERF_EVENT,
					     BPF_FUNC_task_pt_regs, NULL) > 0;
		tr->calls_sched_probed = true;
	}
	return tr && tr->calls_sched_ok;
#else
	(void)tr;
	return false;
#endif
}

/* attrib_bpf__attach, one program at a time so that each link's id is
 * recorded as soon as the link exists. */
static int attach_progs(struct tracer *tr)
{
	const struct bpf_object_skeleton *s = tr->skel->skeleton;

	for (int i = 0; i < s->prog_cnt; i++) {
		struct bpf_program *prog = *s->progs[i].prog;
		struct bpf_link **link = s->progs[i].link;

		if (!bpf_program__autoload(prog) ||
		    !bpf_program__autoattach(prog) || *link ||
		    bench_skipped(bpf_program__name(prog)) ||
		    (tr->filter.calls_by_workload &&
		     is_syscall_tp(bpf_program__name(prog))))
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

static void detach_progs(struct tracer *tr)
{
	const struct bpf_object_skeleton *s = tr->skel->skeleton;

	for (int i = 0; i < s->prog_cnt; i++) {
		bpf_link__destroy(*s->progs[i].link);
		*s->progs[i].link = NULL;
	}
}

/* The links are gone: only the programs' ids stay recorded. */
static void forget_links(struct tracer *tr)
{
	int n = 0;

	for (int i = 0; i < tr->nr_ids; i++)
		if (tr->ids[i].kind != BPF_ID_LINK)
			tr->ids[n++] = tr->ids[i];
	tr->nr_ids = n;
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
	tr->cost.stats_fd = -1;
	/* Without kallsyms only the crypto layers are lost: go on. */
	ks = ksyms_load(NULL);
	crypt_work_plan(ks, errno, &tr->cw);
	enc = enc_choose(caps, ks, enc_why, sizeof(enc_why));
	btf = caps->tp_btf.ok;
	snprintf(btf_why, sizeof(btf_why), "%s", caps->tp_btf.detail);
	tr->dmx = dmx_choose(caps, ks);
	tr->dmw = dmw_choose(caps, ks, tr->dmw_why, sizeof(tr->dmw_why));
	tr->ciph = ciph_choose(caps, ks);
	err = open_load(tr, btf, enc, sample, why, why_len);
	if (err && failed_prog[0] && !strncmp(failed_prog, "jbd2_", 5)) {
		/* Refused: a caller's wait for a commit stays the file
		 * system's, as where jbd2 has no BTF. */
		tr->no_jbd2 = true;
		err = open_load(tr, btf, enc, sample, why, why_len);
	}
	if (err && failed_prog[0] && !strncmp(failed_prog, "io_uring_", 9)) {
		/* io_uring requests go untraced, as without the layout. */
		tr->no_iou = true;
		err = open_load(tr, btf, enc, sample, why, why_len);
	}
	if (err && tr->dmw != ENC_NONE && failed_in("dmw_")) {
		/* No BTF for dm_crypt, or it went away since kallsyms was
		 * read: the write thread's stage goes unseen. */
		snprintf(tr->dmw_why, sizeof(tr->dmw_why),
			 "%s:" DMW_FUNC " failed to load: %s",
			 enc_name(tr->dmw), strerror(-err));
		tr->dmw = ENC_NONE;
		err = open_load(tr, btf, enc, sample, why, why_len);
	}
	if (err && tr->ciph != ENC_NONE && failed_in("ciph_")) {
		/* Refused on the cipher entry points: the calls go uncounted,
		 * the crypt items are still timed. */
		tr->ciph = ENC_NONE;
		err = open_load(tr, btf, enc, sample, why, why_len);
	}
	if (err && tr->dmx != ENC_NONE && failed_in("dmx_")) {
		/* dm_crypt unloaded since kallsyms was read, or no BTF for
		 * it: its inline crypto goes untimed, the rest is kept. */
		tr->dmx = ENC_NONE;
		err = open_load(tr, btf, enc, sample, why, why_len);
	}
	if (err && enc != ENC_NONE && failed_in("enc_")) {
		/* The optional write-side programs may be what failed (no
		 * BTF for the function, fentry refused): go on without. */
		snprintf(enc_why, sizeof(enc_why), "%s:%s failed to load: %s",
			 enc_name(enc), ENC_FUNC, strerror(-err));
		enc = ENC_NONE;
		err = open_load(tr, btf, enc, sample, why, why_len);
	}
	if (err && btf && caps->raw_tp.ok &&
	    (!failed_prog[0] || ends_with(failed_prog, "_btf"))) {
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
	/* Attached once to know that it can be, then detached: being
	 * attached is what costs, so only traced iterations are. */
	bpf_why[0] = '\0';
	err = attach_progs(tr);
	detach_progs(tr);
	forget_links(tr);
	if (err) {
		snprintf(why, why_len, "attaching the BPF programs: %s (%s)",
			 strerror(-err), bpf_why);
		goto out;
	}
	err = wait_open(&tr->wait, tr->skel, ks, &tr->cw, sample);
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
