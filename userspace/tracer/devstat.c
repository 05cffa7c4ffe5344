// SPDX-License-Identifier: MIT
/* The kernel's own per-device request counters, to cross-check `device`. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "trace.h" /* first: the skeleton needs attrib.h's types */
#include "attrib.skel.h"
#include "trace_priv.h"

static bool sysfs_dev_has(unsigned int major, unsigned int minor,
			  const char *what)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s", major, minor,
		 what);
	return access(path, F_OK) == 0;
}

static bool filter_has(const struct trace_filter *f, unsigned int major,
		       unsigned int minor)
{
	for (int i = 0; i < f->nr_devs; i++)
		if (f->major[i] == major && f->minor[i] == minor)
			return true;
	return false;
}

/* Add the two numbers of a sysfs file that starts "reads writes". */
static void add_pair(const char *path, int skip, uint64_t out[NR_OPS])
{
	unsigned long long v[5];
	FILE *s = fopen(path, "re");

	if (!s)
		return;
	if (fscanf(s, "%llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4]) >= skip + 2) {
		out[EB_OP_READ] += v[0];
		out[EB_OP_WRITE] += v[skip + 1];
	}
	fclose(s);
}

/*
 * The kernel's completed read and write requests (/sys/block/<dev>/stat
 * fields 1 and 5) summed over the filter's request-based devices: dm
 * devices count bios, not requests, and a partition whose disk is also
 * in the filter is already in the disk's figures. With `inflight`, the
 * requests in flight (/sys/block/<dev>/inflight) are added: taken at the
 * start of a phase, they complete inside it without having been issued
 * in it (ext4 prefetches block bitmaps in the background, for one), and
 * the tracer, which times requests from their issue, rightly skips them.
 */
void kernel_requests(const struct trace_filter *f, uint64_t out[NR_OPS],
		     bool inflight)
{
	/* The kernel counts reads and writes only: every other op stays 0. */
	memset(out, 0, NR_OPS * sizeof(out[0]));
	for (int i = 0; i < f->nr_devs; i++) {
		unsigned int pmaj, pmin;
		char path[PATH_MAX];
		FILE *s;

		if (sysfs_dev_has(f->major[i], f->minor[i], "dm"))
			continue;
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../dev",
			 f->major[i], f->minor[i]);
		if (sysfs_dev_has(f->major[i], f->minor[i], "partition") &&
		    (s = fopen(path, "re"))) {
			bool dup = fscanf(s, "%u:%u", &pmaj, &pmin) == 2 &&
				   filter_has(f, pmaj, pmin);

			fclose(s);
			if (dup)
				continue;
		}
		/* In flight first: one completing between the two reads is
		 * then in both, which errs on the safe side (a lower count). */
		if (inflight) {
			snprintf(path, sizeof(path),
				 "/sys/dev/block/%u:%u/inflight", f->major[i],
				 f->minor[i]);
			add_pair(path, 0, out);
		}
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/stat",
			 f->major[i], f->minor[i]);
		add_pair(path, 3, out);
	}
}

/*
 * A request whose end no BPF program saw stays in rq_start (block.bpf.h:
 * rq_unseen says where that happens): its reissue finds it, but one not
 * reissued before the tracer detaches (which forgets every start) or the
 * phase ends would keep `device` busy and be missing from every count.
 * Ask the kernel about each one left, through rq_sweep.
 * Keys are taken first, as the sweep deletes; the walk is bounded (see
 * wait.c: get_next_key can hand back its own key).
 */
void rq_sweep(struct attrib_bpf *skel)
{
	int map = bpf_map__fd(skel->maps.rq_start);
	int prog = bpf_program__fd(skel->progs.rq_sweep);
	size_t max = bpf_map__max_entries(skel->maps.rq_start), n = 0;
	__u64 *keys, *prev = NULL;

	if (prog < 0)
		return;
	keys = calloc(max, sizeof(*keys));
	if (!keys)
		return;
	while (n < max && bpf_map_get_next_key(map, prev, &keys[n]) == 0) {
		if (prev && keys[n] == *prev)
			break;
		prev = &keys[n++];
	}
	for (size_t i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, run, .ctx_in = &keys[i],
			    .ctx_size_in = sizeof(keys[i]));

		bpf_prog_test_run_opts(prog, &run);
	}
	free(keys);
}

/*
 * ZFS's ARC counters (the spl kstat arcstats: "name type data" lines),
 * in enum arc_counter order; false if ZFS is not loaded. Whether reads hit
 * the ARC decides where an encrypted dataset decrypts: the ARC keeps the
 * blocks encrypted, so a hit decrypts in the reader's own context.
 */
bool arcstats_read(uint64_t out[NR_ARC_COUNTERS])
{
	static const char *const names[NR_ARC_COUNTERS] = {
		"hits", "misses", "demand_data_hits", "demand_data_misses"};
	char line[256], name[64];
	unsigned long long v;
	unsigned int type;
	int found = 0;
	FILE *s = fopen("/proc/spl/kstat/zfs/arcstats", "re");

	if (!s)
		return false;
	/* Two header lines, then "name type data", one counter a line. */
	while (fgets(line, sizeof(line), s)) {
		if (sscanf(line, "%63s %u %llu", name, &type, &v) != 3)
			continue;
		for (int i = 0; i < NR_ARC_COUNTERS; i++)
			if (!strcmp(name, names[i])) {
				out[i] = v;
				found |= 1 << i;
			}
	}
	fclose(s);
	return found == (1 << NR_ARC_COUNTERS) - 1;
}
