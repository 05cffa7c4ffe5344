// SPDX-License-Identifier: MIT
/*
 * copy: the LUKS report's benchmark. A `size` file of random data is made
 * once per target (untimed); each iteration drops caches, then times the
 * system's `cp src copy` as its own child (real, user and system time
 * from its rusage, as `time cp` showed them), checks that exactly `size`
 * bytes arrived, and removes the copy untimed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workload.h"

struct copy_params {
	uint64_t size_bytes;
};

struct copy_job {
	char src[PATH_LEN + 32], dst[PATH_LEN + 32];
};

static int copy_setup(struct workload_ctx *ctx)
{
	const struct copy_params *p = ctx->params;
	struct copy_job *j = calloc(1, sizeof(*j));
	int err;

	if (!j)
		return -ENOMEM;
	workload_path(ctx, "copy-src.dat", j->src, sizeof(j->src));
	workload_path(ctx, "copy-dst.dat", j->dst, sizeof(j->dst));
	err = workload_random_file(j->src, p->size_bytes);
	if (err) {
		unlink(j->src);
		free(j);
		return err;
	}
	ctx->state = j;
	return 0;
}

static void copy_teardown(struct workload_ctx *ctx)
{
	struct copy_job *j = ctx->state;

	if (!j)
		return;
	unlink(j->dst);
	unlink(j->src);
	free(j);
	ctx->state = NULL;
}

/* In the timed child: cp's rusage is counted in ours. */
static int run_cp(void *arg, double *secs)
{
	struct copy_job *j = arg;
	char *argv[] = {"cp", j->src, j->dst, NULL};
	double t0 = now_s();
	int err = workload_exec(argv, -1, -1);

	*secs = now_s() - t0;
	return err;
}

static int copy_run_once(const struct workload_ctx *ctx, struct sample *out)
{
	const struct copy_params *p = ctx->params;
	struct copy_job *j = ctx->state;
	struct stat st;
	int err = 0;

	if (ctx->drop_caches)
		err = drop_caches(ctx->target);
	if (!err)
		err = workload_spawn(ctx, run_cp, j, out, 0);
	if (!err &&
	    (stat(j->dst, &st) || (uint64_t)st.st_size != p->size_bytes))
		err = -EIO; /* cp must have copied exactly `size` bytes */
	if (err && err != -EINTR)
		fprintf(stderr, "encbench-trace: cp %s %s: %s\n", j->src,
			j->dst, strerror(-err));
	unlink(j->dst);
	return err;
}

static void copy_defaults(void *p)
{
	((struct copy_params *)p)->size_bytes = 64ULL << 20;
}

static void copy_common(void *p, const struct workload_common *c)
{
	if (c->size_bytes)
		((struct copy_params *)p)->size_bytes = c->size_bytes;
}

static int copy_set(void *p, const char *key, const char *value, char *why,
		    size_t len)
{
	if (strcmp(key, "size"))
		return -1;
	return workload_opt_size("copy", key, value, 1,
				 &((struct copy_params *)p)->size_bytes, why,
				 len);
}

static uint64_t copy_space(const void *p)
{
	return 2 * ((const struct copy_params *)p)->size_bytes;
}

static int copy_metrics(const void *p, struct metric_def out[MAX_METRICS])
{
	(void)p;
	out[0] = (struct metric_def){"copy_s", "s", false};
	return 1;
}

static void copy_describe(const void *p, struct param_list *out)
{
	param_int(out, "size_bytes",
		  (long long)((const struct copy_params *)p)->size_bytes);
	param_str(out, "command", "cp src copy");
}

static const struct workload_key copy_keys[] = {
	{"size", "bytes of the file copied (default: --size, else 64M)"},
	{0},
};

const struct workload_ops copy_workload_ops = {
	.name = "copy",
	.help = "time the system's `cp` of a random file, caches dropped",
	.follows = "the LUKS report (`time cp testfile.dat testfile-copy.dat`)",
	.params_size = sizeof(struct copy_params),
	.defaults = copy_defaults,
	.common = copy_common,
	.set = copy_set,
	.keys = copy_keys,
	.space_needed = copy_space,
	.metrics = copy_metrics,
	.describe = copy_describe,
	.setup = copy_setup,
	.teardown = copy_teardown,
	.run_once = copy_run_once,
};
