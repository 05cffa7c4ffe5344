// SPDX-License-Identifier: MIT
/*
 * The wait decomposition in results.json: an attribution's "wait" object,
 * written and read back by the one JSON path. Components are keyed by
 * layer name under "ns"; workers by kind under "workers".
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "report_priv.h"
#include "report.h"

static const char *const worker_names[NR_WORKER_KINDS] = {
	[WORKER_CRYPT] = "crypt",
	[WORKER_DEVICE] = "device",
	[WORKER_DMCRYPT_WRITE] = "dmcrypt-write",
	[WORKER_ZFS_TASKQ] = "zfs-taskq",
};

/* The write thread and ZFS's taskq threads came later: absent from older
 * files, whose readers keep them 0. */
static bool worker_later(int k, struct json_object *o, const char *name)
{
	return k >= WORKER_DMCRYPT_WRITE && k < NR_WORKER_KINDS &&
	       !jhas(o, name);
}

static struct json_object *workers_json(const struct wait_result *w)
{
	struct json_object *o = json_object_new_object();
	int err = !o;

	for (int k = 0; !err && k < NR_WORKER_KINDS; k++) {
		struct json_object *e = json_object_new_object();

		err |= !e;
		err |= jadd_u64(e, "items", w->workers[k].items);
		err |= jadd_u64(e, "runq_ns", w->workers[k].runq_ns);
		err |= jadd_u64(e, "runq_waits", w->workers[k].runq_waits);
		err |= jadd_u64(e, "oncpu_ns", w->workers[k].oncpu_ns);
		err |= jadd_u64(e, "bytes", w->workers[k].bytes);
		err |= jadd_u64(e, "bytes_oncpu_ns",
				w->workers[k].bytes_oncpu_ns);
		err |= jadd_u64(e, "runq_idle_ns", w->workers[k].runq_idle_ns);
		err |= jadd(o, worker_names[k], e);
	}
	return jbuilt(o, err);
}

/* cpu-wait by whom the caller waited behind: the workers, then "other". */
static const char *behind_name(int k)
{
	return k < NR_WORKER_KINDS ? worker_names[k] : "other";
}

static struct json_object *behind_json(const struct wait_result *w)
{
	struct json_object *o = json_object_new_object();
	int err = !o;

	for (int k = 0; !err && k <= NR_WORKER_KINDS; k++) {
		struct json_object *e = json_object_new_object();

		err |= !e;
		err |= jadd_u64(e, "ns", w->cpu_wait_behind_ns[k]);
		err |= jadd_u64(e, "samples", w->behind_samples[k]);
		err |= jadd(o, behind_name(k), e);
	}
	return jbuilt(o, err);
}

/* The tasks that held the CPUs while the caller was runnable. */
static struct json_object *holders_json(const struct wait_result *w)
{
	struct json_object *a = json_object_new_array();
	int err = !a;

	for (int i = 0; !err && i < w->nr_cpu_holders; i++) {
		const struct cpu_holder *h = &w->cpu_holders[i];
		struct json_object *e = json_object_new_object();

		err |= !e;
		err |= jadd_str(e, "comm", h->comm);
		err |= jadd_u64(e, "pid", h->pid);
		err |= jadd_u64(e, "tgid", h->tgid);
		err |= jadd_u64(e, "samples", h->samples);
		err |= jadd_u64(e, "ns", h->ns);
		err |= jappend(a, e);
	}
	return jbuilt(a, err);
}

/* Wakeups by ZFS taskq threads and what they gave to each component. */
static struct json_object *zfs_json(const struct wait_result *w)
{
	struct json_object *o = json_object_new_object();
	int err = !o;

	err |= jadd_u64(o, "wakeups", w->zfs_wakeups);
	err |= jadd_u64(o, "crypt_ns", w->zfs_crypt_ns);
	err |= jadd_u64(o, "device_ns", w->zfs_device_ns);
	err |= jadd_u64(o, "pipeline_ns", w->zfs_pipeline_ns);
	return jbuilt(o, err);
}

/* Wakeups by dm-crypt's write thread itself: all, and those split along
 * its clone's chain. */
static struct json_object *dmw_json(const struct wait_result *w)
{
	struct json_object *o = json_object_new_object();
	int err = !o;

	err |= jadd_u64(o, "wakeups", w->dmw_wakeups);
	err |= jadd_u64(o, "ns", w->dmw_waker_ns);
	err |= jadd_u64(o, "chained", w->dmw_chained);
	return jbuilt(o, err);
}

/* The flush requests the target's devices completed. */
static struct json_object *flush_json(const struct wait_result *w)
{
	struct json_object *o = json_object_new_object();
	int err = !o;

	err |= jadd_u64(o, "requests", w->flush_reqs);
	err |= jadd_u64(o, "ns", w->flush_ns);
	return jbuilt(o, err);
}

/* The target's writeback workers' CPU samples (op write). */
static struct json_object *writeback_json(const struct wait_result *w)
{
	struct json_object *o = json_object_new_object();
	int err = !o;

	err |= jadd_bool(o, "sampled", w->writeback.sampled);
	err |= jadd_u64(o, "samples", w->writeback.samples);
	err |= jadd_u64(o, "crypt_samples", w->writeback.crypt_samples);
	err |= jadd_u64(o, "samples_nostack", w->writeback.samples_nostack);
	err |= jadd_u64(o, "crypt_stack_samples",
			w->writeback.crypt_stack_samples);
	err |= jadd_u64(o, "oncpu_ns", w->writeback.oncpu_ns);
	err |= jadd_u64(o, "runq_ns", w->writeback.runq_ns);
	err |= jadd_u64(o, "crypt_ns", w->writeback.crypt_ns);
	err |= jadd_u64(o, "fs_ns", w->writeback.fs_ns);
	return jbuilt(o, err);
}

struct json_object *report_wait_json(const struct wait_result *w)
{
	struct json_object *o = json_object_new_object();
	struct json_object *ns = json_object_new_object();
	int err = !o || !ns;

	for (int l = LAYER_FS; !err && l < NR_LAYERS; l++)
		err |= jadd_u64(ns, layer_name(l), w->ns[l]);
	err |= jadd_bool(o, "available", w->available);
	err |= jadd_str(o, "source", w->source);
	err |= jadd_u64(o, "syscalls", w->syscalls);
	err |= jadd_u64(o, "total_ns", w->total_ns);
	err |= jadd(o, "ns", ns);
	ns = NULL;
	err |= jadd_u64(o, "oncpu_ns", w->oncpu_ns);
	err |= jadd_u64(o, "oncpu_crypt_ns", w->oncpu_crypt_ns);
	err |= jadd_u64(o, "samples", w->samples);
	err |= jadd_u64(o, "crypt_samples", w->crypt_samples);
	err |= jadd_u64(o, "crypt_stack_samples", w->crypt_stack_samples);
	err |= jadd_u64(o, "samples_nostack", w->samples_nostack);
	err |= jadd_u64(o, "sampling_err_ns", w->sampling_err_ns);
	err |= jadd_u64(o, "unresolved_ns", w->unresolved_ns);
	err |= jadd_u64(o, "dev_bytes", w->dev_bytes);
	err |= jadd_int(o, "nr_cpus", w->nr_cpus);
	err |= jadd(o, "cpu_wait_behind", behind_json(w));
	err |= jadd_u64(o, "cpu_wait_idle_ns", w->cpu_wait_idle_ns);
	/* Written where a writeback worker held the caller's CPU, so that
	 * recordings from before it replay to the same file. */
	if (w->behind_wb_samples) {
		struct json_object *e = json_object_new_object();

		err |= !e;
		err |= jadd_u64(e, "ns", w->cpu_wait_wb_ns);
		err |= jadd_u64(e, "samples", w->behind_wb_samples);
		err |= jadd(o, "cpu_wait_behind_writeback", e);
	}
	err |= jadd(o, "cpu_holders", holders_json(w));
	err |= jadd(o, "workers", workers_json(w));
	err |= jadd(o, "zfs_taskq_wakers", zfs_json(w));
	err |= jadd(o, "dmcrypt_write_wakers", dmw_json(w));
	err |= jadd(o, "flushes", flush_json(w));
	err |= jadd(o, "writeback_workers", writeback_json(w));
	err |= o ? report_why_json(o, w) : 1;
	if (err) {
		json_object_put(ns);
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* Absent in results.json from before the decomposition: not available. */
static void holders_read(int *err, struct json_object *o, struct wait_result *w)
{
	struct json_object *a;
	size_t n = jget_array(err, o, "cpu_holders", TOP_CPU_HOLDERS, &a);

	w->nr_cpu_holders = (int)n;
	for (size_t i = 0; a && i < n; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);
		struct cpu_holder *h = &w->cpu_holders[i];

		jctx_push("cpu_holders", (long)i);
		jget_str(err, e, "comm", h->comm, sizeof(h->comm));
		jget_uint(err, e, "pid", &h->pid);
		jget_uint(err, e, "tgid", &h->tgid);
		jget_u64(err, e, "samples", &h->samples);
		jget_u64(err, e, "ns", &h->ns);
		jctx_pop();
	}
}

void report_wait_from(int *err, struct json_object *parent,
		      struct wait_result *w)
{
	struct json_object *o = jget_object(err, parent, "wait"), *ns, *ks;

	memset(w, 0, sizeof(*w));
	if (!o)
		return;
	jget_bool(err, o, "available", &w->available);
	jget_str(err, o, "source", w->source, sizeof(w->source));
	jget_u64(err, o, "syscalls", &w->syscalls);
	jget_u64(err, o, "total_ns", &w->total_ns);
	ns = jget_object(err, o, "ns");
	/* dmcrypt-write came later: absent from older files. */
	for (int l = LAYER_FS; ns && l < NR_LAYERS; l++)
		if (l != LAYER_DMCRYPT_WRITE || jhas(ns, layer_name(l)))
			jget_u64(err, ns, layer_name(l), &w->ns[l]);
	jget_u64(err, o, "oncpu_ns", &w->oncpu_ns);
	jget_u64(err, o, "oncpu_crypt_ns", &w->oncpu_crypt_ns);
	jget_u64(err, o, "samples", &w->samples);
	jget_u64(err, o, "crypt_samples", &w->crypt_samples);
	/* Newer than the decomposition: absent is 0. */
	if (json_object_object_get_ex(o, "crypt_stack_samples", NULL))
		jget_u64(err, o, "crypt_stack_samples",
			 &w->crypt_stack_samples);
	if (json_object_object_get_ex(o, "samples_nostack", NULL))
		jget_u64(err, o, "samples_nostack", &w->samples_nostack);
	jget_u64(err, o, "sampling_err_ns", &w->sampling_err_ns);
	jget_u64(err, o, "unresolved_ns", &w->unresolved_ns);
	jget_u64(err, o, "dev_bytes", &w->dev_bytes);
	jget_int(err, o, "nr_cpus", &w->nr_cpus);
	ks = jget_object(err, o, "cpu_wait_behind");
	for (int k = 0; ks && k <= NR_WORKER_KINDS; k++) {
		struct json_object *e;

		if (worker_later(k, ks, behind_name(k)))
			continue;
		e = jget_object(err, ks, behind_name(k));

		jget_u64(err, e, "ns", &w->cpu_wait_behind_ns[k]);
		jget_u64(err, e, "samples", &w->behind_samples[k]);
	}
	/* Absent from results.json before it was told apart (2026-12-06):
	 * 0, all of cpu-wait behind tasks as it was read then. */
	if (jhas(o, "cpu_wait_idle_ns"))
		jget_u64(err, o, "cpu_wait_idle_ns", &w->cpu_wait_idle_ns);
	/* Absent before it was told apart (2026-12-06), and where no
	 * writeback worker held the caller's CPU: 0. A part of "other". */
	if (jhas(o, "cpu_wait_behind_writeback")) {
		struct json_object *e =
			jget_object(err, o, "cpu_wait_behind_writeback");

		jget_u64(err, e, "ns", &w->cpu_wait_wb_ns);
		jget_u64(err, e, "samples", &w->behind_wb_samples);
		if (!*err &&
		    (w->cpu_wait_wb_ns >
			     w->cpu_wait_behind_ns[NR_WORKER_KINDS] ||
		     w->behind_wb_samples > w->behind_samples[NR_WORKER_KINDS]))
			jget_fail(err, -EINVAL, "cpu_wait_behind_writeback",
				  "more than the other tasks' part it is of");
	}
	/* Absent from results.json before they were recorded. */
	if (jhas(o, "cpu_holders"))
		holders_read(err, o, w);
	/* Absent from results.json before the ZFS taskq chain. */
	ks = jhas(o, "zfs_taskq_wakers")
		     ? jget_object(err, o, "zfs_taskq_wakers")
		     : NULL;
	if (ks) {
		jget_u64(err, ks, "wakeups", &w->zfs_wakeups);
		jget_u64(err, ks, "crypt_ns", &w->zfs_crypt_ns);
		jget_u64(err, ks, "device_ns", &w->zfs_device_ns);
		jget_u64(err, ks, "pipeline_ns", &w->zfs_pipeline_ns);
	}
	/* Absent from results.json before they were counted. */
	ks = jhas(o, "dmcrypt_write_wakers")
		     ? jget_object(err, o, "dmcrypt_write_wakers")
		     : NULL;
	if (ks) {
		jget_u64(err, ks, "wakeups", &w->dmw_wakeups);
		jget_u64(err, ks, "ns", &w->dmw_waker_ns);
		jget_u64(err, ks, "chained", &w->dmw_chained);
	}
	/* Absent from results.json before flushes were timed. */
	ks = jhas(o, "flushes") ? jget_object(err, o, "flushes") : NULL;
	if (ks) {
		jget_u64(err, ks, "requests", &w->flush_reqs);
		jget_u64(err, ks, "ns", &w->flush_ns);
	}
	/* Absent from results.json before the writeback workers were
	 * sampled: not sampled. */
	ks = jhas(o, "writeback_workers")
		     ? jget_object(err, o, "writeback_workers")
		     : NULL;
	if (ks) {
		jget_bool(err, ks, "sampled", &w->writeback.sampled);
		jget_u64(err, ks, "samples", &w->writeback.samples);
		jget_u64(err, ks, "crypt_samples", &w->writeback.crypt_samples);
		jget_u64(err, ks, "samples_nostack",
			 &w->writeback.samples_nostack);
		jget_u64(err, ks, "crypt_stack_samples",
			 &w->writeback.crypt_stack_samples);
		jget_u64(err, ks, "oncpu_ns", &w->writeback.oncpu_ns);
		jget_u64(err, ks, "runq_ns", &w->writeback.runq_ns);
		jget_u64(err, ks, "crypt_ns", &w->writeback.crypt_ns);
		jget_u64(err, ks, "fs_ns", &w->writeback.fs_ns);
	}
	report_why_from(err, o, w);
	ks = jget_object(err, o, "workers");
	for (int k = 0; ks && k < NR_WORKER_KINDS; k++) {
		struct json_object *e;

		if (worker_later(k, ks, worker_names[k]))
			continue;
		e = jget_object(err, ks, worker_names[k]);
		if (!e)
			continue;
		jget_u64(err, e, "items", &w->workers[k].items);
		jget_u64(err, e, "runq_ns", &w->workers[k].runq_ns);
		jget_u64(err, e, "runq_waits", &w->workers[k].runq_waits);
		jget_u64(err, e, "oncpu_ns", &w->workers[k].oncpu_ns);
		jget_u64(err, e, "bytes", &w->workers[k].bytes);
		jget_u64(err, e, "bytes_oncpu_ns",
			 &w->workers[k].bytes_oncpu_ns);
		if (jhas(e, "runq_idle_ns"))
			jget_u64(err, e, "runq_idle_ns",
				 &w->workers[k].runq_idle_ns);
	}
}
