// SPDX-License-Identifier: MIT
/*
 * fsmark: FS-Mark as Phoronix runs it, built in (Debian has no fs_mark),
 * following fs_mark's method: each file is created (O_CREAT|O_EXCL),
 * written in 16 KiB writes, fsync'ed and closed; `threads` processes
 * share the files, spread over `dirs` subfolders; the result is files per
 * second. Phoronix's cases: 1000 x 1 MB; 5000 x 1 MB, 4 threads; 4000 x
 * 1 MB in 32 subfolders.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

#define FSMARK_IO (16u << 10) /* fs_mark's default write size */

struct fsmark_params {
	long files, threads, dirs;
	uint64_t file_bytes;
};

struct fsmark_job {
	const struct fsmark_params *p;
	char dir[PATH_LEN + 32];
};

static void file_path(const struct fsmark_job *j, long i, char *buf, size_t len)
{
	snprintf(buf, len, "%s/d%ld/f%ld", j->dir, i % j->p->dirs, i);
}

/* Files i = worker, worker + threads, ...: create, write, fsync, close. */
static int fsmark_worker(const struct fsmark_job *j, long worker)
{
	static unsigned char buf[FSMARK_IO];
	char path[PATH_LEN + 96];

	if (getrandom(buf, sizeof(buf), 0) != sizeof(buf))
		return EIO;
	for (long i = worker; i < j->p->files && !workload_stop;
	     i += j->p->threads) {
		int fd;

		file_path(j, i, path, sizeof(path));
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			return errno;
		for (uint64_t off = 0; off < j->p->file_bytes;
		     off += FSMARK_IO) {
			size_t n = j->p->file_bytes - off < FSMARK_IO
					   ? j->p->file_bytes - off
					   : FSMARK_IO;

			if (write(fd, buf, n) != (ssize_t)n) {
				close(fd);
				return EIO;
			}
		}
		if (fsync(fd) || close(fd))
			return EIO;
	}
	return 0;
}

static int fsmark_all(void *arg, double *secs)
{
	const struct fsmark_job *j = arg;
	double t0 = now_s();
	int err = 0, status;

	for (long w = 0; w < j->p->threads; w++) {
		pid_t parent = getpid(), pid = fork();

		if (pid < 0)
			return -errno;
		if (pid == 0) {
			workload_die_with(parent);
			_exit(fsmark_worker(j, w));
		}
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			err = -EIO;
	*secs = now_s() - t0;
	return err;
}

static int fsmark_run_once(const struct workload_ctx *ctx, struct sample *out)
{
	const struct fsmark_params *p = ctx->params;
	struct fsmark_job j = {.p = p};
	char path[PATH_LEN + 96];
	int err = 0;

	workload_path(ctx, "fsmark", j.dir, sizeof(j.dir));
	if (mkdir(j.dir, 0700))
		return -errno;
	for (long d = 0; d < p->dirs && !err; d++) {
		snprintf(path, sizeof(path), "%s/d%ld", j.dir, d);
		if (mkdir(path, 0700))
			err = -errno;
	}
	if (!err)
		err = workload_spawn(ctx, fsmark_all, &j, out, 0);
	if (!err)
		out->values[0] =
			out->values[0] > 0 ? p->files / out->values[0] : 0;
	for (long i = 0; i < p->files; i++) {
		file_path(&j, i, path, sizeof(path));
		unlink(path);
	}
	for (long d = 0; d < p->dirs; d++) {
		snprintf(path, sizeof(path), "%s/d%ld", j.dir, d);
		rmdir(path);
	}
	rmdir(j.dir);
	return err;
}

static void fsmark_defaults(void *p)
{
	*(struct fsmark_params *)p = (struct fsmark_params){
		.files = 1000, .threads = 1, .dirs = 1, .file_bytes = 1 << 20};
}

static void fsmark_common(void *p, const struct workload_common *c)
{
	struct fsmark_params *f = p;

	f->files = workload_scaled(f->files, c->scale);
}

static int fsmark_set(void *p, const char *key, const char *value, char *why,
		      size_t len)
{
	struct fsmark_params *f = p;

	if (!strcmp(key, "files"))
		return workload_opt_count("fsmark", key, value, 1000000,
					  &f->files, why, len);
	if (!strcmp(key, "threads"))
		return workload_opt_count("fsmark", key, value, 64, &f->threads,
					  why, len);
	if (!strcmp(key, "dirs"))
		return workload_opt_count("fsmark", key, value, 4096, &f->dirs,
					  why, len);
	if (!strcmp(key, "file-size"))
		return workload_opt_size("fsmark", key, value, 1,
					 &f->file_bytes, why, len);
	return -1;
}

static uint64_t fsmark_space(const void *p)
{
	const struct fsmark_params *f = p;

	/* Whole blocks per file, and an inode each. */
	return (uint64_t)f->files *
	       (((f->file_bytes + 4095) & ~4095ULL) + 4096);
}

static int fsmark_metrics(const void *p, struct metric_def out[MAX_METRICS])
{
	(void)p;
	out[0] = (struct metric_def){"files_per_s", "files/s", true};
	return 1;
}

static void fsmark_describe(const void *p, struct param_list *out)
{
	const struct fsmark_params *f = p;

	param_int(out, "files", f->files);
	param_int(out, "file_bytes", (long long)f->file_bytes);
	param_int(out, "threads", f->threads);
	param_int(out, "dirs", f->dirs);
	param_int(out, "write_bytes", FSMARK_IO);
	param_bool(out, "fsync_per_file", true);
}

static const struct workload_key fsmark_keys[] = {
	{"files", "files per iteration (default 1000)"},
	{"file-size", "bytes per file (default 1M)"},
	{"threads", "processes sharing the files (Phoronix: 1 or 4)"},
	{"dirs", "subfolders the files spread over (Phoronix: 1 or 32)"},
	{0},
};

const struct workload_ops fsmark_workload_ops = {
	.name = "fsmark",
	.help = "create, write, fsync and close many 1 MB files; files/s",
	.follows = "fs_mark's method (built in), FS-Mark's Phoronix cases",
	.params_size = sizeof(struct fsmark_params),
	.defaults = fsmark_defaults,
	.common = fsmark_common,
	.set = fsmark_set,
	.keys = fsmark_keys,
	.space_needed = fsmark_space,
	.metrics = fsmark_metrics,
	.describe = fsmark_describe,
	.run_once = fsmark_run_once,
};
