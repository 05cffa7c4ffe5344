// SPDX-License-Identifier: MIT
/*
 * dd: the ZFS report's benchmark done properly. Write `size` bytes of
 * random data with O_DIRECT in 1 MiB blocks and fsync (so the data is on
 * the device, whatever the filesystem does with O_DIRECT), drop caches,
 * read it back with O_DIRECT. The random data is made before the clock
 * starts: `dd if=/dev/urandom` times the RNG along with the disk.
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
#include "../cli/config.h"
#include "../storage/target.h"

#define DD_BS	(1u << 20)
#define DD_POOL (8u << 20) /* random pool cycled through: incompressible */

struct dd_job {
	char path[PATH_LEN + 32];
	uint64_t size;
	unsigned char *pool; /* DD_POOL random bytes, DD_BS-aligned */
	unsigned char *buf;  /* one block for reads */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int dd_write(void *arg, double *secs)
{
	struct dd_job *j = arg;
	double t0 = now_s();
	int fd, err = 0;

	fd = open(j->path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return -errno;
	for (uint64_t off = 0; off < j->size && !workload_stop; off += DD_BS) {
		size_t n = j->size - off < DD_BS ? j->size - off : DD_BS;

		if (write(fd, j->pool + off % DD_POOL, n) != (ssize_t)n) {
			err = -errno ?: -EIO;
			break;
		}
	}
	if (!err && fsync(fd) < 0)
		err = -errno;
	close(fd);
	*secs = now_s() - t0;
	return err;
}

static int dd_read(void *arg, double *secs)
{
	struct dd_job *j = arg;
	double t0 = now_s();
	uint64_t total = 0;
	ssize_t n = 0;
	int fd, err = 0;

	fd = open(j->path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (!workload_stop && (n = read(fd, j->buf, DD_BS)) > 0)
		total += n;
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
	struct dd_job j = {.size = ctx->cfg->size_bytes};
	int err;

	snprintf(j.path, sizeof(j.path), "%s/dd-%d.dat", ctx->target->info.dir,
		 ctx->iteration);
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
	if (ctx->cfg->drop_caches) {
		err = drop_caches();
		if (err)
			goto cleanup;
	}
	err = workload_spawn(ctx, dd_read, &j, out, 1);
cleanup:
	if (err && err != -EINTR)
		fprintf(stderr, "encbench-trace: dd on %s: %s\n", j.path,
			strerror(-err));
	unlink(j.path);
	free(j.pool);
	free(j.buf);
	return err;
}

static const char *dd_caveat(const struct target *t)
{
	if (!strcmp(t->info.kind, "fscrypt"))
		return "O_DIRECT on fscrypt without inline encryption is "
		       "buffered I/O in disguise (the kernel falls back to "
		       "the page cache); the fsync makes writes reach the "
		       "device";
	return NULL;
}

static void dd_params(const struct run_config *cfg, char *buf, size_t len)
{
	snprintf(buf, len,
		 "{\"size_bytes\":%llu,\"block_bytes\":%u,\"direct\":true,"
		 "\"fsync\":true,\"drop_caches\":%s,\"runs\":%d}",
		 (unsigned long long)cfg->size_bytes, DD_BS,
		 cfg->drop_caches ? "true" : "false", cfg->runs);
}

const struct workload_ops dd_workload_ops = {
	.name = "dd",
	.help = "O_DIRECT write (1 MiB blocks, random data, fsync), drop "
		"caches, O_DIRECT read",
	.nr_metrics = 2,
	.metrics =
		{
			{.name = "write_s",
			 .unit = "s",
			 .higher_is_better = false},
			{.name = "read_s",
			 .unit = "s",
			 .higher_is_better = false},
		},
	.caveat = dd_caveat,
	.params_json = dd_params,
	.run_once = dd_run_once,
};
