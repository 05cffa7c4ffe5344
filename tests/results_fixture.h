/* SPDX-License-Identifier: MIT */
/*
 * A small but complete results model for the report tests: two targets
 * (plain baseline, LUKS2), one dd workload with write_s and read_s, their
 * comparisons, read attribution with histograms, a verdict and full
 * capabilities. Values are chosen to be awkward for formatting (thirds,
 * tiny and large magnitudes).
 */
#ifndef ENCBENCH_RESULTS_FIXTURE_H
#define ENCBENCH_RESULTS_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/results.h"

#define FIX_N 3

static inline void fixture_cap(struct cap *c, bool ok, const char *detail)
{
	c->ok = ok;
	snprintf(c->detail, sizeof(c->detail), "%s", detail);
}

static inline void fixture_caps(struct capabilities *c)
{
	snprintf(c->kernel, sizeof(c->kernel), "6.1.0-28-amd64");
	snprintf(c->arch, sizeof(c->arch), "x86_64");
	c->root = true;
	fixture_cap(&c->btf, true, "/sys/kernel/btf/vmlinux");
	fixture_cap(&c->tracefs, true, "/sys/kernel/tracing");
	fixture_cap(&c->bpffs, true, "/sys/fs/bpf");
	fixture_cap(&c->tp_btf, true, "attached block_rq_issue");
	fixture_cap(&c->raw_tp, true, "attached");
	fixture_cap(&c->fentry, false,
		    "load failed: Operation not permitted "
		    "(EPERM)");
	fixture_cap(&c->kprobe, false, "CONFIG_KPROBES is not set");
	fixture_cap(&c->perf_event, true, "cpu-clock");
	fixture_cap(&c->loop, true, "/dev/loop-control");
	fixture_cap(&c->dm_crypt, true, "dm-crypt 1.23.0");
	fixture_cap(&c->fscrypt, true, "ext4 encrypt feature");
	fixture_cap(&c->ecryptfs, false, "module not found");
	fixture_cap(&c->zfs, false, "zfs module not loaded");
	fixture_cap(&c->io_uring, true, "io_uring_setup ok");
	c->cpu_aes = false;
	c->nr_ciphers = 2;
	snprintf(c->ciphers[0].name, NAME_LEN, "xts(aes)");
	snprintf(c->ciphers[0].driver, NAME_LEN, "xts(ecb(aes-generic))");
	snprintf(c->ciphers[1].name, NAME_LEN, "gcm(aes)");
	snprintf(c->ciphers[1].driver, NAME_LEN, "gcm_base(ctr(aes-aesni))");
	c->ciphers[1].hw_accel = true;
	c->ciphers[1].predicted = true;
	for (int l = 0; l < NR_LAYERS; l++)
		snprintf(c->layer_sources[l], DETAIL_LEN, "tp:source-%d", l);
	snprintf(c->layer_sources[LAYER_FS], DETAIL_LEN, "derived");
}

static inline void fixture_result(struct result *r, const char *target,
				  const char *metric, const double *x)
{
	snprintf(r->target, sizeof(r->target), "%s", target);
	snprintf(r->workload, sizeof(r->workload), "dd");
	snprintf(r->metric.name, sizeof(r->metric.name), "%s", metric);
	snprintf(r->metric.unit, sizeof(r->metric.unit), "s");
	r->nr_samples = FIX_N;
	memcpy(r->samples, x, sizeof(double) * FIX_N);
	r->s.mean = (x[0] + x[1] + x[2]) / 3;
	r->s.sd = x[2] / 7;
	r->s.min = x[0];
	r->s.max = x[2];
	r->s.median = x[1];
	r->s.ci95[0] = r->s.mean - 1.0 / 3;
	r->s.ci95[1] = r->s.mean + 1.0 / 3;
	r->cpu.min = 12.5;
	r->cpu.avg = 33.3333333333;
	r->cpu.max = 99.9;
	r->cpu.samples = 7;
	r->rusage.real_s = x[1];
	r->rusage.user_s = 0.031;
	r->rusage.sys_s = 3.76;
}

static inline void fixture_attrib(struct attribution *a, const char *target)
{
	snprintf(a->target, sizeof(a->target), "%s", target);
	snprintf(a->workload, sizeof(a->workload), "dd");
	a->op = EB_OP_READ;
	a->syscall_mean_ns = 2500000;
	a->missed_events = 3;
	a->closure_pct = 97.25;
	for (int l = 0; l < NR_LAYERS; l++) {
		struct layer_result *lr = &a->layers[l];

		lr->layer = l;
		lr->state = l == LAYER_FS	? LAYER_DERIVED
			    : l == LAYER_DEVICE ? LAYER_FALLBACK
						: LAYER_MEASURED;
		if (l == LAYER_DEVICE)
			snprintf(lr->reason, sizeof(lr->reason),
				 "tp_btf: EINVAL");
		snprintf(lr->source, sizeof(lr->source), "tp_btf:layer%d", l);
		lr->count = 100 + l;
		lr->mean_ns = 1000ULL << l;
		lr->sum_ns = lr->count * lr->mean_ns;
		lr->busy_ns = 250000000ULL >> l;
		lr->p50_ns = 900ULL << l;
		lr->p99_ns = 4000ULL << l;
		lr->kernel_requests = 7 + l;
		lr->dropped = l == LAYER_DEVICE ? 5 : 0;
		lr->slots[10 + l] = 60;
		lr->slots[12 + l] = 40 + l;
	}
	/* A huge count: u64 beyond INT64_MAX must survive JSON. */
	a->layers[LAYER_DEVICE].sum_ns = 18446744073709551000ULL;
	a->layers[LAYER_DEVICE].slots[HIST_SLOTS - 1] = 1;
	a->layers[LAYER_CRYPT_QUEUE].state = LAYER_UNAVAILABLE;
	snprintf(a->layers[LAYER_CRYPT_QUEUE].reason, DETAIL_LEN,
		 "no workqueue tracepoints");
	a->layers[LAYER_CRYPT_QUEUE].count = 0;
	a->layers[LAYER_CRYPT_QUEUE].busy_ns = 0;
	memset(a->layers[LAYER_CRYPT_QUEUE].slots, 0,
	       sizeof(a->layers[0].slots));
	snprintf(a->layers[LAYER_CRYPT_QUEUE].source, DETAIL_LEN,
		 "unavailable: no workqueue tracepoints");
	/* cpu-wait is a wait component only: no items, as the tracer
	 * reports it. */
	memset(&a->layers[LAYER_CPU_WAIT], 0, sizeof(a->layers[0]));
	a->layers[LAYER_CPU_WAIT].layer = LAYER_CPU_WAIT;
	a->layers[LAYER_CPU_WAIT].state = LAYER_NOT_MEASURED;
	snprintf(a->layers[LAYER_CPU_WAIT].source, DETAIL_LEN,
		 "no items: a share of the wait decomposition only");
	/* The decomposition: components adding up to total_ns. */
	a->wait.available = true;
	snprintf(a->wait.source, DETAIL_LEN, "sched_switch/sched_waking");
	a->wait.syscalls = 100;
	a->wait.ns[LAYER_FS] = 20000000;
	a->wait.ns[LAYER_CRYPT] = 200000000;
	a->wait.ns[LAYER_DEVICE] = 25000000;
	a->wait.ns[LAYER_CPU_WAIT] = 5000000;
	a->wait.total_ns = 250000000;
	a->wait.oncpu_ns = 9000000;
	a->wait.oncpu_crypt_ns = 1000000;
	a->wait.samples = 9;
	a->wait.crypt_samples = 1;
	a->wait.sampling_err_ns = 2800000;
	a->wait.dev_bytes = 18446744073709551000ULL;
	a->wait.workers[WORKER_CRYPT].items = 90;
	a->wait.workers[WORKER_CRYPT].runq_ns = 4500000;
	a->wait.workers[WORKER_DEVICE].bytes_oncpu_ns = 77;
	a->wait.nr_cpus = 2;
	a->wait.behind_samples[WORKER_CRYPT] = 30;
	a->wait.behind_samples[NR_WORKER_KINDS] = 10;
	a->wait.cpu_wait_behind_ns[WORKER_CRYPT] = 3750000;
	a->wait.cpu_wait_behind_ns[NR_WORKER_KINDS] = 1245000;
	a->wait.nr_cpu_holders = 2;
	a->wait.cpu_holders[0] =
		(struct cpu_holder){"stress", 4242, 4240, 9, 9000000};
	a->wait.cpu_holders[1] =
		(struct cpu_holder){"kworker/0:1", 12, 12, 1, 1000000};
	a->wait.zfs_wakeups = 12;
	a->wait.zfs_crypt_ns = 40000000;
	a->wait.zfs_device_ns = 3000000;
	a->wait.zfs_pipeline_ns = 700000;
	a->wait.dmw_wakeups = 3;
	a->wait.dmw_waker_ns = 90000;
	a->wait.dmw_chained = 2;
	a->wait.workers[WORKER_ZFS_TASKQ].runq_waits = 40;
	a->wait.workers[WORKER_ZFS_TASKQ].runq_ns = 2000000;
	a->wait.cpu_wait_behind_ns[WORKER_ZFS_TASKQ] = 5000;
	a->wait.writeback.sampled = true;
	a->wait.writeback.samples = 640;
	a->wait.writeback.crypt_samples = 620;
	a->wait.writeback.samples_nostack = 3;
	a->wait.writeback.crypt_stack_samples = 660;
	a->wait.writeback.oncpu_ns = 641925778;
	a->wait.writeback.runq_ns = 12000000;
	a->wait.writeback.crypt_ns = 621865597;
	a->wait.writeback.fs_ns = 20060181;
}

/* calloc'ed; free() it. */
static inline struct results *fixture_results(void)
{
	static const double pw[FIX_N] = {4.5, 4.75, 5.0};
	static const double pr[FIX_N] = {0.25, 0.263, 0.276};
	static const double lw[FIX_N] = {5.0, 5.1, 5.2};
	static const double lr[FIX_N] = {0.5, 0.513, 1.0 / 3};
	struct results *r = calloc(1, sizeof(*r));
	struct target_info *t;
	struct comparison *c;
	struct verdict *v;

	if (!r)
		return NULL;
	snprintf(r->meta.tool_version, sizeof(r->meta.tool_version), "0.1.0");
	snprintf(r->meta.hostname, sizeof(r->meta.hostname), "bench1");
	snprintf(r->meta.cpu_model, sizeof(r->meta.cpu_model),
		 "Intel(R) Core(TM) i5-3320M CPU @ 2.60GHz");
	snprintf(r->meta.started, sizeof(r->meta.started),
		 "2025-01-02T03:04:05Z");
	r->meta.duration_s = 123.456789;
	r->meta.options.size_bytes = 67108864;
	r->meta.options.runs = 3;
	r->meta.options.scale = 0.25;
	snprintf(r->meta.options.scratch, PATH_LEN, "/var/tmp");
	snprintf(r->meta.options.output, PATH_LEN, "/tmp/out");
	r->meta.options.trace = r->meta.options.drop_caches = true;
	r->meta.options.nr_targets = 2;
	snprintf(r->meta.options.targets[0], NAME_LEN, "plain");
	snprintf(r->meta.options.targets[1], NAME_LEN, "luks2");
	r->meta.options.nr_workloads = 1;
	snprintf(r->meta.options.workloads[0], NAME_LEN, "dd");
	snprintf(r->meta.options.luks_cipher, NAME_LEN, "aes-xts-plain64");
	r->meta.options.luks_key_bits = 512;
	r->meta.options.luks_sector_size = 4096;
	r->meta.options.nr_user_targets = 1;
	snprintf(r->meta.options.user_names[0], NAME_LEN, "data1");
	snprintf(r->meta.options.user_paths[0], PATH_LEN, "/data1");
	snprintf(r->meta.options.baseline, NAME_LEN, "plain");
	r->meta.tracing = true;
	snprintf(r->meta.tracing_detail, sizeof(r->meta.tracing_detail),
		 "tp_btf and raw_tp attached");
	r->meta.dropped_caches = true;
	fixture_caps(&r->meta.caps);

	r->nr_targets = 2;
	t = &r->targets[0];
	snprintf(t->name, NAME_LEN, "plain");
	snprintf(t->kind, sizeof(t->kind), "plain");
	snprintf(t->mount, PATH_LEN, "/var/tmp/encbench/plain");
	snprintf(t->dir, PATH_LEN, "/var/tmp/encbench/plain/work");
	snprintf(t->fs, sizeof(t->fs), "ext4");
	t->nr_devices = 1;
	snprintf(t->devices[0].name, NAME_LEN, "loop3");
	t->devices[0].major = 7;
	t->devices[0].minor = 3;
	snprintf(t->devices[0].role, sizeof(t->devices[0].role), "fs");
	t = &r->targets[1];
	snprintf(t->name, NAME_LEN, "luks2");
	snprintf(t->kind, sizeof(t->kind), "luks2");
	snprintf(t->mount, PATH_LEN, "/var/tmp/encbench/luks2");
	snprintf(t->dir, PATH_LEN, "/var/tmp/encbench/luks2/work");
	snprintf(t->fs, sizeof(t->fs), "ext4");
	t->nr_devices = 2;
	snprintf(t->devices[0].name, NAME_LEN, "dm-0");
	t->devices[0].major = 254;
	t->devices[0].minor = 0;
	snprintf(t->devices[0].role, sizeof(t->devices[0].role), "crypt");
	snprintf(t->devices[1].name, NAME_LEN, "loop4");
	t->devices[1].major = 7;
	t->devices[1].minor = 4;
	snprintf(t->devices[1].role, sizeof(t->devices[1].role), "backing");
	t->encrypted = true;
	snprintf(t->encryption.scheme, NAME_LEN, "LUKS2 dm-crypt");
	snprintf(t->encryption.contents_cipher, NAME_LEN, "aes-xts-plain64");
	t->encryption.key_bits = 512;
	t->encryption.sector_size = 4096;
	snprintf(t->encryption.flags, DETAIL_LEN, "no_read_workqueue");
	snprintf(t->encryption.driver, NAME_LEN, "xts(ecb(aes-generic))");
	t->verified_encrypted = true;
	t->nr_notes = 2;
	snprintf(t->notes[0], DETAIL_LEN, "no AES instructions: software AES");
	snprintf(t->notes[1], DETAIL_LEN, "loop device on tmpfs \"scratch\"");

	r->nr_workloads = 1;
	snprintf(r->workloads[0].name, NAME_LEN, "dd");
	param_int(&r->workloads[0].params, "size_bytes", 64 << 20);
	param_num(&r->workloads[0].params, "scale", 0.5);
	param_bool(&r->workloads[0].params, "direct", true);
	param_str(&r->workloads[0].params, "engine", "psync");

	r->nr_results = 4;
	fixture_result(&r->results[0], "plain", "write_s", pw);
	fixture_result(&r->results[1], "plain", "read_s", pr);
	fixture_result(&r->results[2], "luks2", "write_s", lw);
	fixture_result(&r->results[3], "luks2", "read_s", lr);

	r->nr_comparisons = 2;
	for (int i = 0; i < 2; i++) {
		c = &r->comparisons[i];
		snprintf(c->baseline, NAME_LEN, "plain");
		snprintf(c->target, NAME_LEN, "luks2");
		snprintf(c->workload, NAME_LEN, "dd");
		snprintf(c->metric, NAME_LEN, "%s", i ? "read_s" : "write_s");
	}
	c = &r->comparisons[0];
	c->diff_mean = 0.35;
	c->welch_ci95[0] = 0.198;
	c->welch_ci95[1] = 0.625;
	c->penalty_pct = 7.368421052631579;
	c->penalty_ci95_pct[0] = 4.2;
	c->penalty_ci95_pct[1] = 13.3;
	c->significant = true;
	c = &r->comparisons[1];
	c->diff_mean = 0.250;
	c->welch_ci95[0] = -0.0123;
	c->welch_ci95[1] = 0.317;
	c->penalty_pct = 95.05703422053232;
	c->penalty_ci95_pct[0] = -4.7;
	c->penalty_ci95_pct[1] = 120.4;
	c->significant = false;

	r->nr_attrib = 2;
	fixture_attrib(&r->attrib[0], "plain");
	fixture_attrib(&r->attrib[1], "luks2");

	r->nr_verdicts = 1;
	v = &r->verdicts[0];
	snprintf(v->target, NAME_LEN, "luks2");
	snprintf(v->workload, NAME_LEN, "dd");
	v->op = EB_OP_READ;
	snprintf(v->summary, sizeof(v->summary),
		 "Reads wait for decryption in the kcryptd workqueue.");
	v->nr_evidence = 2;
	snprintf(v->evidence[0], DETAIL_LEN, "crypt: 61 %% of syscall time");
	snprintf(v->evidence[1], DETAIL_LEN, "device: 12 %% of syscall time");
	snprintf(v->brief, sizeof(v->brief),
		 "95 %% slower than plain (+250 us per read): decryption "
		 "200 us (80 %%)");
	v->phase_ns = 25000.5;
	v->headline = true;
	r->nr_skipped = 1;
	snprintf(r->skipped[0].kind, sizeof(r->skipped[0].kind), "zfs");
	snprintf(r->skipped[0].reason, DETAIL_LEN, "no zfs module");
	return r;
}

#endif /* ENCBENCH_RESULTS_FIXTURE_H */
