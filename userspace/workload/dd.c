// SPDX-License-Identifier: MIT
/*
 * dd: the ZFS report's benchmark done properly. Write `size` bytes of
 * random data with O_DIRECT in 1 MiB blocks and fsync (so the data is on
 * the device, whatever the filesystem does with O_DIRECT), drop caches,
 * read it back with O_DIRECT. The random data is made before the clock
 * starts: `dd if=/dev/urandom` times the RNG along with the disk; and the
 * timed child owns its buffers' pages before it (workload_own_pages).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"
#include "../common/parse.h"
#include "../storage/target.h"
#include "../storage/zfs.h"

#define DD_BS	(1u << 20)
#define DD_POOL (8u << 20) /* random pool cycled through: incompressible */

struct dd_params {
	uint64_t size_bytes;
};

struct dd_job {
	char path[PATH_LEN + 32];
	uint64_t size;
	unsigned char *pool; /* DD_POOL random bytes, DD_BS-aligned */
	unsigned char *buf;  /* one block for reads */
	/* The timed children's own timing of each call the tracer would
	 * count (the open that creates, write, fsync, read), shared with
	 * the parent: dd_times_calls. */
	struct call_times *calls;
};

static int dd_write(void *arg, double *secs)
{
	struct dd_job *j = arg;
	double t0;
	uint64_t t;
	int fd, err = 0;

	workload_own_pages(j->pool, DD_POOL);
	t0 = now_s();
	t = call_start();
	fd = open(j->path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC,
		  0600);
	call_end(&j->calls[EB_OP_CREATE], t);
	if (fd < 0)
		return -errno;
	for (uint64_t off = 0; off < j->size && !workload_stop; off += DD_BS) {
		size_t n = j->size - off < DD_BS ? j->size - off : DD_BS;
		ssize_t done;

		t = call_start();
		done = write(fd, j->pool + off % DD_POOL, n);
		call_end(&j->calls[EB_OP_WRITE], t);
		if (done != (ssize_t)n) {
			err = -errno ?: -EIO;
			break;
		}
	}
	if (!err) {
		t = call_start();
		err = fsync(fd) < 0 ? -errno : 0;
		call_end(&j->calls[EB_OP_SYNC], t);
	}
	close(fd);
	*secs = now_s() - t0;
	return err;
}

static int dd_read(void *arg, double *secs)
{
	struct dd_job *j = arg;
	uint64_t total = 0;
	ssize_t n = 0;
	int fd, err = 0;
	double t0;
	uint64_t t;

	workload_own_pages(j->buf, DD_BS);
	t0 = now_s();
	fd = open(j->path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (!workload_stop) {
		t = call_start();
		n = read(fd, j->buf, DD_BS);
		call_end(&j->calls[EB_OP_READ], t);
		if (n <= 0)
			break;
		total += n;
	}
	if (n < 0)
		err = -errno;
	else if (!workload_stop && total != j->size)
		err = -EIO;
	close(fd);
	*secs = now_s() - t0;
	return err;
}

static int dd_run_once(const struct workload_ctx *ctx, struct sample *out)
{
	const struct dd_params *p = ctx->params;
	struct dd_job j = {.size = p->size_bytes};
	uint64_t dev0;
	int err;

	snprintf(j.path, sizeof(j.path), "%s/dd-%d.dat", ctx->target->info.dir,
		 ctx->iteration);
	j.calls = calls_share();
	if (!j.calls) {
		err = -errno;
		goto cleanup;
	}
	if (posix_memalign((void **)&j.pool, DD_BS, DD_POOL) ||
	    posix_memalign((void **)&j.buf, DD_BS, DD_BS)) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (getrandom(j.pool, DD_POOL, 0) != DD_POOL) {
		err = -EIO;
		goto cleanup;
	}
	err = workload_spawn(ctx, dd_write, &j, out, 0);
	if (err)
		goto cleanup;
	if (ctx->drop_caches) {
		err = drop_caches(ctx->target);
		if (err)
			goto cleanup;
	}
	dev0 = workload_dev_read_bytes(ctx->target);
	err = workload_spawn(ctx, dd_read, &j, out, 1);
	/* What the device did not deliver came from the page cache. */
	if (!err)
		sample_read(out, 1, (double)p->size_bytes, dev0,
			    workload_dev_read_bytes(ctx->target));
	if (!err)
		calls_take(out, j.calls, "dd's own clock around each call");
cleanup:
	if (err && err != -EINTR)
		fprintf(stderr, "encbench-trace: dd on %s: %s\n", j.path,
			strerror(-err));
	unlink(j.path);
	calls_unshare(j.calls);
	free(j.pool);
	free(j.buf);
	return err;
}

/* dd writes and reads with O_DIRECT: nothing to measure without it. */
static const char *dd_not_applicable(const struct target *t, const void *p)
{
	(void)p;
	return target_no_direct_io(t);
}

static const char *dd_caveat(const struct target *t, const void *p)
{
	(void)p;
	if (zfs_direct_caveat(&t->info.zfs))
		return zfs_direct_caveat(&t->info.zfs);
	if (!strcmp(t->info.kind, "fscrypt"))
		return "O_DIRECT on fscrypt without inline encryption is "
		       "buffered I/O in disguise (the kernel falls back to "
		       "the page cache); the fsync makes writes reach the "
		       "device";
	return NULL;
}

static void dd_defaults(void *p)
{
	((struct dd_params *)p)->size_bytes = 64ULL << 20;
}

static void dd_common(void *p, const struct workload_common *c)
{
	if (c->size_bytes)
		((struct dd_params *)p)->size_bytes = c->size_bytes;
}

static int dd_set(void *p, const char *key, const char *value, char *why,
		  size_t len)
{
	int64_t v = parse_size(value);

	if (strcmp(key, "size")) {
		snprintf(why, len, "dd has no option '%s'", key);
		return -1;
	}
	if (v <= 0 || v % 4096 || v > (1LL << 50)) {
		snprintf(why, len,
			 "invalid dd size '%s': a multiple of 4 KiB "
			 "(O_DIRECT), K/M/G",
			 value);
		return -1;
	}
	((struct dd_params *)p)->size_bytes = v;
	return 0;
}

static uint64_t dd_space(const void *p)
{
	return ((const struct dd_params *)p)->size_bytes;
}

static int dd_metrics(const void *p, struct metric_def out[MAX_METRICS])
{
	(void)p;
	out[0] = (struct metric_def){"write_s", "s", false};
	out[1] = (struct metric_def){"read_s", "s", false};
	return 2;
}

static void dd_describe(const void *p, struct param_list *out)
{
	const struct dd_params *d = p;

	param_int(out, "size_bytes", (long long)d->size_bytes);
	param_int(out, "block_bytes", DD_BS);
	param_bool(out, "direct", true);
	param_bool(out, "fsync", true);
}

static const struct workload_key dd_keys[] = {
	{"size",
	 "bytes written and read per iteration (default: --size, else 64M)"},
	{0},
};

const struct workload_ops dd_workload_ops = {
	.name = "dd",
	.help = "O_DIRECT write (1 MiB blocks, random data, fsync), drop caches, O_DIRECT read",
	.follows = "the ZFS report's dd loop, with the RNG out of the clock",
	.params_size = sizeof(struct dd_params),
	.defaults = dd_defaults,
	.common = dd_common,
	.set = dd_set,
	.keys = dd_keys,
	.space_needed = dd_space,
	.metrics = dd_metrics,
	.describe = dd_describe,
	.not_applicable = dd_not_applicable,
	.caveat = dd_caveat,
	.run_once = dd_run_once,
	/* The creating open, each write, the fsync, each read. */
	.times_calls = times_every_call,
};
