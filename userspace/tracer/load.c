// SPDX-License-Identifier: MIT
/*
 * The tracer's opening: attrib.bpf.c's skeleton with exactly the programs
 * this kernel can run (tp_btf or raw_tp; fentry, kprobe or nothing for the
 * write-side crypto), its tables filled (syscall ops, crypto work
 * functions from /proc/kallsyms, the tracepoints' argument layouts), each
 * program attached and detached with its id recorded. The phases are in
 * trace.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "trace.h" /* first: the skeleton needs attrib.h's types */
#include "attrib.skel.h"
#include "common/bpf_ids.h"
#include "ksyms.h"
#include "trace_priv.h"

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
int attach_progs(struct tracer *tr)
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

void detach_progs(struct tracer *tr)
{
	const struct bpf_object_skeleton *s = tr->skel->skeleton;

	for (int i = 0; i < s->prog_cnt; i++) {
		bpf_link__destroy(*s->progs[i].link);
		*s->progs[i].link = NULL;
	}
}

/* The links are gone: only the programs' ids stay recorded. */
void forget_links(struct tracer *tr)
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
