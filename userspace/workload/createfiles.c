// SPDX-License-Identifier: MIT
/*
 * createfiles: OSBench's "Create Files". The timed child creates `files`
 * empty files in one new folder (open O_CREAT|O_EXCL, close) and the
 * result is microseconds per file; the parent removes them untimed. On
 * fscrypt every name is encrypted: the Phoronix run's 15.6 -> 23.8 us.
 * The child times each creating open itself (workload_ops.times_calls):
 * 20000 calls per iteration, each of which the syscall tracepoints would
 * put on the slow path.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workload.h"

struct createfiles_params {
	long files;
};

struct createfiles_job {
	char dir[PATH_LEN + 32];
	long files;
	struct call_times *calls; /* shared with the parent: calls_share */
};

static int create_all(void *arg, double *secs)
{
	struct createfiles_job *j = arg;
	char path[PATH_LEN + 64];
	double t0 = now_s();

	for (long i = 0; i < j->files && !workload_stop; i++) {
		int fd;

		uint64_t t;

		snprintf(path, sizeof(path), "%s/f%ld", j->dir, i);
		t = call_start();
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		call_end(&j->calls[EB_OP_CREATE], t);
		if (fd < 0)
			return -errno;
		close(fd);
	}
	*secs = now_s() - t0;
	return 0;
}

static int createfiles_run_once(const struct workload_ctx *ctx,
				struct sample *out)
{
	const struct createfiles_params *p = ctx->params;
	struct createfiles_job j = {.files = p->files};
	char path[PATH_LEN + 64];
	int err;

	workload_path(ctx, "createfiles", j.dir, sizeof(j.dir));
	j.calls = calls_share();
	if (!j.calls)
		return -errno;
	if (mkdir(j.dir, 0700)) {
		err = -errno;
		calls_unshare(j.calls);
		return err;
	}
	err = workload_spawn(ctx, create_all, &j, out, 0);
	out->values[0] = 1e6 * out->values[0] / j.files;
	if (!err)
		calls_take(out, j.calls,
			   "createfiles' own clock around each creating open");
	calls_unshare(j.calls);
	for (long i = 0; i < j.files; i++) {
		snprintf(path, sizeof(path), "%s/f%ld", j.dir, i);
		unlink(path);
	}
	rmdir(j.dir);
	return err;
}

static void createfiles_defaults(void *p)
{
	((struct createfiles_params *)p)->files = 20000;
}

static void createfiles_common(void *p, const struct workload_common *c)
{
	struct createfiles_params *cp = p;

	cp->files = workload_scaled(cp->files, c->scale);
}

static int createfiles_set(void *p, const char *key, const char *value,
			   char *why, size_t len)
{
	if (strcmp(key, "files"))
		return -1;
	return workload_opt_count("createfiles", key, value, 10000000,
				  &((struct createfiles_params *)p)->files, why,
				  len);
}

static uint64_t createfiles_space(const void *p)
{
	/* Empty files: an inode each, and mke2fs gives a small file system
	 * one inode per 4 KiB. */
	return (uint64_t)((const struct createfiles_params *)p)->files * 4096;
}

static int createfiles_metrics(const void *p,
			       struct metric_def out[MAX_METRICS])
{
	(void)p;
	out[0] = (struct metric_def){"create_us", "us/file", false};
	return 1;
}

static void createfiles_describe(const void *p, struct param_list *out)
{
	param_int(out, "files", ((const struct createfiles_params *)p)->files);
}

static const struct workload_key createfiles_keys[] = {
	{"files", "empty files created per iteration (default 20000)"},
	{0},
};

const struct workload_ops createfiles_workload_ops = {
	.name = "createfiles",
	.help = "create many empty files in one folder; us per file",
	.follows = "OSBench's Create Files (Phoronix)",
	.params_size = sizeof(struct createfiles_params),
	.defaults = createfiles_defaults,
	.common = createfiles_common,
	.set = createfiles_set,
	.keys = createfiles_keys,
	.space_needed = createfiles_space,
	.metrics = createfiles_metrics,
	.describe = createfiles_describe,
	.run_once = createfiles_run_once,
	/* Its only calls the tracer counts are the creating opens (close
	 * is no op of the tracer's). */
	.times_calls = times_every_call,
};
