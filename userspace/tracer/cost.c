// SPDX-License-Identifier: MIT
/*
 * What the tracer's programs cost over one stretch, by the kernel's own
 * count: run_cnt and run_time_ns of each program (bpf_prog_info), which
 * the kernel keeps only while run-time statistics are on. They are turned
 * on through a BPF_ENABLE_STATS file descriptor (as bpftool prog profile
 * does), never the global kernel.bpf_stats_enabled sysctl: the kernel
 * turns them off again when the last such fd closes, also when this
 * process is killed, so a crash cannot leave every BPF program of the
 * machine paying for the clock reads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace_priv.h"

static int prog_info(int fd, struct bpf_prog_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	return bpf_obj_get_info_by_fd(fd, info, &len) ? -errno : 0;
}

int bpf_cost_begin(struct bpf_cost *c, struct bpf_object *const *objs,
		   int nr_objs)
{
	struct bpf_program *prog;

	memset(c, 0, sizeof(*c));
	/* Bench-only, as ENCBENCH_BENCH_SKIP: no run-time statistics, which
	 * add two clock reads to every run of every BPF program of the
	 * machine while on. run keeps them on for one traced iteration of
	 * each workload, `trace` throughout; bench/wait-overhead.sh sets this
	 * to compare the rest with biolatency, which keeps none. */
	if (getenv("ENCBENCH_BENCH_NO_COST") &&
	    *getenv("ENCBENCH_BENCH_NO_COST")) {
		c->stats_fd = -1;
		c->err = -ECANCELED;
		return c->err;
	}
	c->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (c->stats_fd < 0) {
		c->err = -errno;
		return c->err;
	}
	for (int i = 0; i < nr_objs; i++) {
		if (!objs[i])
			continue;
		bpf_object__for_each_program(prog, objs[i])
		{
			struct bpf_prog_info info;
			struct prog_cost *p = &c->base[c->nr];
			int fd = bpf_program__fd(prog);

			if (c->nr >= MAX_COST_PROGS || fd < 0 ||
			    prog_info(fd, &info))
				continue;
			c->fds[c->nr++] = fd;
			snprintf(p->name, sizeof(p->name), "%s",
				 bpf_program__name(prog));
			p->run_cnt = info.run_cnt;
			p->run_time_ns = info.run_time_ns;
			p->misses = info.recursion_misses;
		}
	}
	return 0;
}

/* Each program's runs since bpf_cost_begin, the busiest first; the fd
 * closes, and with it the statistics (unless someone else keeps them). */
void bpf_cost_end(struct bpf_cost *c, struct tracer_cost *out)
{
	out->measured = c->stats_fd >= 0;
	if (!out->measured) {
		if (c->err == -ECANCELED)
			snprintf(out->why, sizeof(out->why),
				 "left off by ENCBENCH_BENCH_NO_COST");
		else
			snprintf(out->why, sizeof(out->why),
				 "BPF_ENABLE_STATS refused: %s",
				 strerror(-c->err));
		return;
	}
	out->nr_progs = 0;
	for (int i = 0; i < c->nr; i++) {
		struct prog_cost *p = &out->progs[out->nr_progs];
		struct bpf_prog_info info;
		int k;

		if (prog_info(c->fds[i], &info))
			continue;
		*p = c->base[i];
		p->run_cnt = info.run_cnt - c->base[i].run_cnt;
		p->run_time_ns = info.run_time_ns - c->base[i].run_time_ns;
		p->misses = info.recursion_misses - c->base[i].misses;
		out->runs += p->run_cnt;
		out->run_time_ns += p->run_time_ns;
		out->dropped += p->misses;
		/* Insertion by run time: a few dozen programs. */
		for (k = out->nr_progs;
		     k > 0 && out->progs[k - 1].run_time_ns < p->run_time_ns;
		     k--)
			;
		if (k < out->nr_progs) {
			struct prog_cost t = *p;

			memmove(&out->progs[k + 1], &out->progs[k],
				(out->nr_progs - k) * sizeof(*p));
			out->progs[k] = t;
		}
		out->nr_progs++;
	}
	close(c->stats_fd);
	c->stats_fd = -1;
}

void bpf_cost_cancel(struct bpf_cost *c)
{
	if (c->stats_fd >= 0)
		close(c->stats_fd);
	c->stats_fd = -1;
}
