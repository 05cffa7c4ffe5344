// SPDX-License-Identifier: MIT
/*
 * The wait decomposition's user-space half (the BPF half is
 * bpf/wait.bpf.h): which work functions are workers the caller waits on,
 * the CPU-clock sampling that splits on-CPU time, and, at the end of a
 * phase, the counters and every recorded stack with its frames named
 * from /proc/kallsyms, for the snapshot. Which stacks are crypto work is
 * the analysis's to say (analysis/stacks.c).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace.h" /* first: the skeleton needs attrib.h's types */
#include "attrib.skel.h"
#include "ksyms.h"
#include "trace_priv.h"

/* Not a multiple of the scheduler tick, so samples do not lock onto it. */
#define WAIT_SAMPLE_HZ 997

/* Work functions of CPU-served devices' workers (drivers/block/loop.c). */
static const struct {
	const char *name;
	__u32 flavour;
} device_workers[] = {
	{"loop_rootcg_workfn", LOOP_ROOTCG},
	{"loop_workfn", LOOP_WORKER},
};

/* The flusher's work function: its CPU samples while it writes the
 * target back are where fscrypt encrypts the writes that the callers
 * leave to writeback. */
static int fill_writeback_funcs(struct wait_tracer *w, int fd,
				const struct ksyms *ks)
{
	uint64_t addrs[2];
	__u32 val = WORKER_WRITEBACK_FN;
	__u64 addr;
	int n = ksyms_addrs(ks, WRITEBACK_FN, addrs, 2);

	for (int j = 0; j < n && j < 2; j++) {
		addr = addrs[j];
		if (bpf_map_update_elem(fd, &addr, &val, BPF_ANY))
			return -errno;
		w->writeback_workers = true;
	}
	return 0;
}

static int fill_worker_funcs(struct wait_tracer *w, struct attrib_bpf *skel,
			     const struct ksyms *ks,
			     const struct crypt_work_plan *cw)
{
	int fd = bpf_map__fd(skel->maps.worker_funcs);
	__u32 val;
	__u64 addr;

	for (int i = 0; i < cw->nr_funcs; i++) {
		addr = cw->addrs[i];
		val = WORKER_CRYPT;
		if (bpf_map_update_elem(fd, &addr, &val, BPF_ANY))
			return -errno;
	}
	for (size_t i = 0; i < sizeof(device_workers) / sizeof(*device_workers);
	     i++) {
		uint64_t addrs[2];
		int n = ksyms_addrs(ks, device_workers[i].name, addrs, 2);

		for (int j = 0; j < n && j < 2; j++) {
			addr = addrs[j];
			val = WORKER_DEVICE | device_workers[i].flavour
						      << WORKER_FLAVOUR_SHIFT;
			if (bpf_map_update_elem(fd, &addr, &val, BPF_ANY))
				return -errno;
			w->device_workers = true;
		}
	}
	return fill_writeback_funcs(w, fd, ks);
}

static void detach_sampling(struct wait_tracer *w)
{
	for (int i = 0; i < w->nr_cpus; i++) {
		bpf_link__destroy(w->links ? w->links[i] : NULL);
		if (w->pfds && w->pfds[i] >= 0)
			close(w->pfds[i]);
	}
	free(w->links);
	free(w->pfds);
	w->links = NULL;
	w->pfds = NULL;
}

/* One CPU-clock sampling event per CPU, each running wait_sample. */
static int attach_sampling(struct wait_tracer *w, struct attrib_bpf *skel)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = WAIT_SAMPLE_HZ,
	};
	int err = 0;

	w->links = calloc(w->nr_cpus, sizeof(*w->links));
	w->pfds = malloc(w->nr_cpus * sizeof(*w->pfds));
	if (!w->links || !w->pfds)
		return -ENOMEM;
	for (int i = 0; i < w->nr_cpus; i++)
		w->pfds[i] = -1;
	for (int cpu = 0; cpu < w->nr_cpus; cpu++) {
		int fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1,
				 PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			/* An offline CPU: nothing runs there to sample. */
			if (errno == ENODEV)
				continue;
			err = -errno;
			break;
		}
		w->pfds[cpu] = fd;
		w->links[cpu] = bpf_program__attach_perf_event(
			skel->progs.wait_sample, fd);
		if (!w->links[cpu]) {
			err = -errno;
			break;
		}
	}
	return err;
}

int wait_open(struct wait_tracer *w, struct attrib_bpf *skel,
	      const struct ksyms *ks, const struct crypt_work_plan *cw,
	      bool sample)
{
	int err;

	w->nr_cpus = libbpf_num_possible_cpus();
	if (w->nr_cpus <= 0)
		w->nr_cpus = 1;
	err = fill_worker_funcs(w, skel, ks, cw);
	if (err)
		return err;
	w->journal_commits =
		bpf_program__autoload(skel->progs.jbd2_start_commit_btf) ||
		bpf_program__autoload(skel->progs.jbd2_start_commit_raw);
	if (!sample) {
		snprintf(w->sample_why, sizeof(w->sample_why),
			 "perf_event sampling does not work here");
	} else if (bench_skipped("wait_sample")) {
		snprintf(w->sample_why, sizeof(w->sample_why),
			 "left off by ENCBENCH_BENCH_SKIP");
	} else if (!ksyms_has(ks, "schedule")) {
		/* Stacks would be addresses no name is known for. */
		snprintf(w->sample_why, sizeof(w->sample_why),
			 "no function addresses in /proc/kallsyms");
	} else {
		/* Once to know it can be; wait_attach does it again. */
		err = attach_sampling(w, skel);
		if (err)
			snprintf(w->sample_why, sizeof(w->sample_why),
				 "attaching the CPU-clock sampler: %s",
				 strerror(-err));
		else
			w->sampling = true;
		detach_sampling(w);
	}
	return 0;
}

void wait_close(struct wait_tracer *w)
{
	detach_sampling(w);
	ksyms_free(w->ks);
	w->ks = NULL;
}

/* After each attach: the BPF programs and trampolines have their
 * symbols only then (a new attach may put a trampoline elsewhere), and a
 * sample in them is the tracer's own time, not the function it times.
 * These symbols name the snapshot's frames. */
static void read_symbols(struct wait_tracer *w)
{
	ksyms_free(w->ks);
	w->ks = ksyms_load(NULL);
}

/* The sampler exists only while the tracer is attached: its perf events
 * interrupt every CPU WAIT_SAMPLE_HZ times a second. */
int wait_attach(struct wait_tracer *w, struct attrib_bpf *skel)
{
	int err = 0;

	if (w->sampling)
		err = attach_sampling(w, skel);
	for (int i = 0; w->sampling && !err && i < w->nr_cpus; i++)
		if (w->links[i])
			bpf_ids_add_link(w->links[i]);
	if (err) {
		detach_sampling(w);
		return err;
	}
	read_symbols(w);
	return 0;
}

void wait_detach(struct wait_tracer *w)
{
	detach_sampling(w);
}

void map_zero(struct bpf_map *m, __u32 n)
{
	size_t sz = bpf_map__value_size(m);
	void *zero = calloc(1, sz);

	for (__u32 k = 0; zero && k < n; k++)
		bpf_map__update_elem(m, &k, sizeof(k), zero, sz, 0);
	free(zero);
}

void wait_restart(struct attrib_bpf *skel)
{
	map_clear(skel->maps.stack_counts);
	map_clear(skel->maps.cpu_holders);
	map_zero(skel->maps.wait_stats, NR_OPS);
	map_zero(skel->maps.worker_stats, NR_WORKER_KINDS);
}

void wait_begin(struct wait_tracer *w, struct attrib_bpf *skel)
{
	(void)w;
	map_clear(skel->maps.thr);
	map_clear(skel->maps.work_io);
	map_clear(skel->maps.workers);
	map_clear(skel->maps.stacks);
	map_clear(skel->maps.why_stacks);
	wait_restart(skel);
}

/* One stack_counts entry with its frames, as read. */
struct raw_stack {
	struct stack_key key;
	uint64_t value;
	uint64_t ips[WAIT_STACK_DEPTH];
};

static int by_u64(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The stacks into the snapshot, each frame by its function's name: every
 * distinct address named once (sorted, unique), then each frame is its
 * address's symbol. A frame no symbol covers is "?".
 */
static void symbolize(const struct wait_tracer *w, const struct raw_stack *rs,
		      int n, struct snapshot *raw)
{
	uint64_t *addrs = malloc((size_t)n * WAIT_STACK_DEPTH * sizeof(*addrs));
	const char **names = NULL;
	int *sym = NULL, nr = 0, u = 0;

	if (!addrs)
		return;
	for (int i = 0; i < n; i++)
		for (int f = 0; f < WAIT_STACK_DEPTH && rs[i].ips[f]; f++)
			addrs[nr++] = rs[i].ips[f];
	qsort(addrs, nr, sizeof(*addrs), by_u64);
	for (int i = 0; i < nr; i++)
		if (!u || addrs[u - 1] != addrs[i])
			addrs[u++] = addrs[i];
	names = calloc(u + 1, sizeof(*names));
	sym = calloc(u + 1, sizeof(*sym));
	if (!names || !sym || ksyms_symbolize(w->ks, addrs, u, names))
		goto cleanup;
	for (int i = 0; i < u; i++)
		sym[i] = snapshot_sym(raw, names[i] ? names[i] : "?");
	for (int i = 0; i < n; i++) {
		struct snap_stack st = {.op = rs[i].key.op,
					.use = rs[i].key.use,
					.value = rs[i].value};
		bool lost = false;

		for (int f = 0; f < WAIT_STACK_DEPTH && rs[i].ips[f]; f++) {
			uint64_t *a = bsearch(&rs[i].ips[f], addrs, u,
					      sizeof(*addrs), by_u64);

			lost |= sym[a - addrs] < 0;
			st.frames[st.nr_frames++] = (uint32_t)sym[a - addrs];
		}
		if (lost || snapshot_add_stack(raw, &st))
			raw->wait.stacks_lost++;
	}
cleanup:
	free(sym);
	free(names);
	free(addrs);
}

/* why_stacks, by id: its keys are the frames, its values the ids. */
struct why_table {
	struct why_frames *frames;
	__u32 *ids;
	int n;
};

static void why_table_read(struct attrib_bpf *skel, struct why_table *t)
{
	int fd = bpf_map__fd(skel->maps.why_stacks);
	__u32 max = bpf_map__max_entries(skel->maps.why_stacks);
	struct why_frames *prev = NULL, gone;

	t->n = 0;
	t->frames = calloc(max, sizeof(*t->frames));
	t->ids = calloc(max, sizeof(*t->ids));
	if (!t->frames || !t->ids)
		return;
	/* Bounded by steps like read_stacks' walk (see there); a key gone
	 * before its lookup is stepped over, not asked for again. */
	for (__u32 step = 0; step < max && (__u32)t->n < max; step++) {
		struct why_frames *k = &t->frames[t->n];

		if (bpf_map_get_next_key(fd, prev, k))
			break;
		if (bpf_map_lookup_elem(fd, k, &t->ids[t->n])) {
			gone = *k;
			prev = &gone;
			continue;
		}
		prev = &t->frames[t->n++];
	}
}

/* The frames of stack id, from the table it names; zero if none. A
 * linear search: it runs once per phase, for at most MAX_STACK_KEYS
 * (4096) ids in a table of at most MAX_WHY_STACKS (1024), 0.6 ms in all
 * at that worst (BENCHMARKS.md), not a path worth a hash. */
static void frames_of(int sfd, const struct why_table *t, __u32 id,
		      uint64_t *ips)
{
	if (id < WHY_STACK_ID0) {
		if (bpf_map_lookup_elem(sfd, &id, ips))
			memset(ips, 0, WAIT_STACK_DEPTH * sizeof(*ips));
		return;
	}
	for (int i = 0; i < t->n; i++)
		if (t->ids[i] == id) {
			memcpy(ips, t->frames[i].ips, sizeof(t->frames[i].ips));
			return;
		}
	memset(ips, 0, WAIT_STACK_DEPTH * sizeof(*ips));
}

/*
 * Walk stack_counts once, each key at most once. get_next_key was seen
 * (6.18, a map the tracer had stopped writing) to hand back the key it was
 * given, forever: the walk is bounded by max_entries and a key already seen
 * ends it, so a broken chain costs a partial split, never a hang.
 */
static void read_stacks(const struct wait_tracer *w, struct attrib_bpf *skel,
			struct snapshot *raw)
{
	struct why_table why = {0};
	int fd = bpf_map__fd(skel->maps.stack_counts);
	int sfd = bpf_map__fd(skel->maps.stacks);
	__u32 max = bpf_map__max_entries(skel->maps.stack_counts);
	struct stack_key *seen = calloc(max, sizeof(*seen));
	struct raw_stack *rs = calloc(max, sizeof(*rs));
	struct stack_key next, *prev = NULL;
	__u32 n = 0;
	int nr = 0;
	__u64 val;

	why_table_read(skel, &why);
	if (!seen || !rs || !why.frames || !why.ids)
		goto cleanup;
	while (n < max && bpf_map_get_next_key(fd, prev, &next) == 0) {
		struct raw_stack *r = &rs[nr];
		bool dup = false;

		for (__u32 i = 0; i < n && !dup; i++)
			dup = !memcmp(&seen[i], &next, sizeof(next));
		if (dup)
			break;
		seen[n] = next;
		prev = &seen[n++];
		if (bpf_map_lookup_elem(fd, &next, &val) || next.op >= NR_OPS)
			continue;
		r->key = next;
		r->value = val;
		/* A stack the kernel dropped still counts, frameless. */
		frames_of(sfd, &why, next.stackid, r->ips);
		nr++;
	}
	symbolize(w, rs, nr, raw);
cleanup:
	free(why.frames);
	free(why.ids);
	free(rs);
	free(seen);
}

/* Keep h in op's top list, most samples first. */
static void holder_rank(struct snap_wait *s, int op, const struct cpu_holder *h)
{
	struct cpu_holder *top = s->holders[op];
	int n = s->nr_holders[op], i;

	if (n == TOP_CPU_HOLDERS && top[n - 1].samples >= h->samples)
		return;
	if (n < TOP_CPU_HOLDERS)
		n++;
	for (i = n - 1; i > 0 && top[i - 1].samples < h->samples; i--)
		top[i] = top[i - 1];
	top[i] = *h;
	s->nr_holders[op] = n;
}

/* The tasks that held the CPUs while callers were runnable, per op. */
static void read_cpu_holders(struct attrib_bpf *skel, struct snap_wait *s)
{
	struct cpu_holder_key key, next, *prev = NULL;
	struct cpu_holder_val v;
	int fd = bpf_map__fd(skel->maps.cpu_holders);

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct cpu_holder h = {0};

		key = next;
		prev = &key;
		if (key.op >= NR_OPS || bpf_map_lookup_elem(fd, &key, &v))
			continue;
		memcpy(h.comm, v.comm, sizeof(h.comm));
		h.comm[sizeof(h.comm) - 1] = '\0';
		h.pid = key.tid;
		h.tgid = v.tgid;
		h.samples = v.samples;
		holder_rank(s, (int)key.op, &h);
	}
}

void wait_read(const struct wait_tracer *w, struct attrib_bpf *skel,
	       struct snapshot *snap)
{
	struct snap_wait *sw = &snap->wait;

	sw->available = true;
	sw->sampled = w->sampling;
	snprintf(sw->sample_why, sizeof(sw->sample_why), "%s", w->sample_why);
	sw->sample_hz = WAIT_SAMPLE_HZ;
	sw->wb_sampled = w->sampling && w->writeback_workers;
	sw->journal = w->journal_commits ? SNAP_JOURNAL_FOLLOWED
					 : SNAP_JOURNAL_UNFOLLOWED;
	sw->nr_cpus = w->nr_cpus;
	for (__u32 op = 0; op < NR_OPS; op++)
		bpf_map__lookup_elem(skel->maps.wait_stats, &op, sizeof(op),
				     &sw->ops[op], sizeof(sw->ops[op]), 0);
	for (__u32 k = 0; k < NR_WORKER_KINDS; k++)
		bpf_map__lookup_elem(skel->maps.worker_stats, &k, sizeof(k),
				     &sw->workers[k], sizeof(sw->workers[k]),
				     0);
	read_stacks(w, skel, snap);
	read_cpu_holders(skel, sw);
}
