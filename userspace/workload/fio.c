// SPDX-License-Identifier: MIT
/*
 * fio: the Flexible I/O Tester (Debian's fio) as Phoronix runs it, one fio
 * job per (rw mode, block size): by default 4 KiB random read, 4 KiB
 * random write, 4 MiB sequential read, 4 MiB sequential write, each for a
 * fixed runtime over one file. The file is laid out untimed in setup (in
 * a read job, fio's own layout would be writes inside the timed window).
 * Each job is its own timed child, fio and the job process it forks
 * below it (the tracer follows both); fio's --output-format=json is read
 * with json-c: MB/s and IOPS (higher is better), completion latency mean,
 * p50, p99 and p99.9.
 *
 * Engine: POSIX AIO, as Phoronix runs it: glibc serves it with helper
 * threads doing pread/pwrite, syscalls the tracer sorts into ops.
 * --fio-engine io_uring (requests timed one by one) and psync work too;
 * libaio's io_submit is not an op the tracer sorts.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fio.h"
#include "workload.h"
#include "../common/parse.h"
#include "../storage/target.h"
#include "../storage/zfs.h"

#define FIO_METRICS	     6 /* per job: mbps, iops, clat mean, p50, p99, p99.9 */
#define FIO_JOB_FILE_METRICS 3 /* a job file's totals: mbps, iops, clat mean   \
				*/
#define FIO_MAX_JOBS (MAX_METRICS / FIO_METRICS)
#define FIO_OUT_MAX  (4u << 20) /* more JSON than this is not fio's */

struct fio_params {
	int nr_rw, nr_bs; /* nr_bs 0: 4k for random modes, 4m otherwise */
	char rw[FIO_MAX_JOBS][16];
	uint64_t bs[FIO_MAX_JOBS];
	uint64_t size_bytes;
	double runtime_s;
	long iodepth;
	char engine[32];
	char job_file[PATH_LEN]; /* --fio-job: run this instead, absolute */
};

/* One fio invocation: what the timed child runs. */
#define FIO_JOB_ARGS 16 /* the most fio_job_args adds per job */

struct fio_run {
	char *argv[2 + FIO_MAX_JOBS * FIO_JOB_ARGS + 1];
	char args[1 + FIO_MAX_JOBS * FIO_JOB_ARGS][96]; /* argv's strings */
	char filename[PATH_LEN + 16];
	int argc, nargs; /* argv and args used */
	const char *cwd; /* where fio runs (a job file's relative paths) */
	int out_fd, err_fd;
};

static const char *const fio_modes[] = {"randread", "randwrite", "read",
					"write", NULL};

static bool is_read(const char *rw)
{
	return !strcmp(rw, "read") || !strcmp(rw, "randread");
}

static uint64_t job_bs(const struct fio_params *p, int i)
{
	if (!p->nr_bs)
		return strncmp(p->rw[i], "rand", 4) ? 4ULL << 20 : 4096;
	return p->bs[p->nr_bs == 1 ? 0 : i];
}

/* "randread_4k": the job's name and its metrics' prefix. */
static void job_name(const struct fio_params *p, int i, char *buf, size_t len)
{
	uint64_t bs = job_bs(p, i);

	if (!(bs % (1 << 20)))
		snprintf(buf, len, "%s_%llum", p->rw[i],
			 (unsigned long long)(bs >> 20));
	else if (!(bs % 1024))
		snprintf(buf, len, "%s_%lluk", p->rw[i],
			 (unsigned long long)(bs >> 10));
	else
		snprintf(buf, len, "%s_%llu", p->rw[i], (unsigned long long)bs);
}

/* ---- running fio --------------------------------------------------- */

/* What a program wrote to memfd fd, NUL-terminated (free() it), or NULL. */
static char *memfd_text(int fd)
{
	struct stat st;
	char *buf;
	ssize_t n;

	if (fstat(fd, &st) || st.st_size > FIO_OUT_MAX)
		return NULL;
	buf = calloc(1, st.st_size + 1);
	if (!buf)
		return NULL;
	n = pread(fd, buf, st.st_size, 0);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* Empty memfd fd for the next program, its offset back at 0 (it is
 * shared with the program's stdout, which writes at the offset). */
static int memfd_reset(int fd)
{
	if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	return 0;
}

/* fio's first own complaint ("fio: engine x not loadable"), one line. */
static void fio_complaint(int err_fd, char *why, size_t len)
{
	char *text = memfd_text(err_fd), *line, *save = NULL;
	const char *pick = NULL;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && !pick;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "fio: ", 5) &&
		    strncmp(line, "fio: file:", 10))
			pick = line;
	snprintf(why, len, "%s", pick ? pick : "fio failed (no message)");
	free(text);
}

static void run_arg(struct fio_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void run_arg(struct fio_run *r, const char *fmt, ...)
{
	char *arg = r->args[r->nargs++];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(arg, sizeof(r->args[0]), fmt, ap);
	va_end(ap);
	r->argv[r->argc++] = arg;
	r->argv[r->argc] = NULL;
}

/* A fresh argv: "fio", and --parse-only when only checking options. */
static void fio_argv(struct fio_run *r, const char *path, bool parse_only)
{
	r->argc = 1;
	r->nargs = 0;
	r->argv[0] = "fio";
	r->argv[1] = NULL;
	if (parse_only)
		run_arg(r, "--parse-only");
	snprintf(r->filename, sizeof(r->filename), "--filename=%s", path);
}

/* Job i's options; direct 0 or 1; end_fsync when writes would otherwise
 * stay in the page cache. */
static void fio_job_args(struct fio_run *r, const struct fio_params *p, int i,
			 bool direct, bool end_fsync)
{
	char name[NAME_LEN];

	job_name(p, i, name, sizeof(name));
	run_arg(r, "--name=%s", name);
	r->argv[r->argc++] = r->filename;
	run_arg(r, "--rw=%s", p->rw[i]);
	run_arg(r, "--bs=%llu", (unsigned long long)job_bs(p, i));
	run_arg(r, "--size=%llu", (unsigned long long)p->size_bytes);
	run_arg(r, "--runtime=%lldms", (long long)(p->runtime_s * 1e3 + 0.5));
	run_arg(r, "--time_based");
	run_arg(r, "--ioengine=%s", p->engine);
	run_arg(r, "--iodepth=%ld", p->iodepth);
	run_arg(r, "--direct=%d", direct);
	/* The file is ours, laid out already: fio must not make it. */
	run_arg(r, "--allow_file_create=0");
	run_arg(r, "--output-format=json");
	/* Through a stream of fio's own (stdout is our memfd): 3 writes
	 * where fio's stdout logging made one per line, ~110 writes the
	 * tracer would count as the job's. */
	run_arg(r, "--output=/dev/stdout");
	if (end_fsync && !is_read(p->rw[i]))
		run_arg(r, "--end_fsync=1");
}

static int fio_child(void *arg, double *secs)
{
	struct fio_run *r = arg;
	double t0 = now_s();
	int err = r->cwd && chdir(r->cwd) ? -errno : 0;

	err = err ?: workload_exec(r->argv, r->out_fd, r->err_fd);
	*secs = now_s() - t0;
	return err;
}

/* O_DIRECT is refused (eCryptfs) or accepted and served from the page
 * cache (fscrypt without inline encryption): writes then end in fsync. */
static bool buffered_in_disguise(const struct target *t)
{
	return (t->kind && t->kind->no_direct_io) ||
	       !strcmp(t->info.kind, "fscrypt");
}

static int remove_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

/* The file the jobs share, laid out untimed; with --fio-job, a folder
 * for whatever the job file makes (fio's default file names are
 * relative). Either is ctx->state, a path. */
static int fio_setup(struct workload_ctx *ctx)
{
	const struct fio_params *p = ctx->params;
	char *path = malloc(PATH_LEN + 32);
	int err;

	if (!path)
		return -ENOMEM;
	workload_path(ctx, p->job_file[0] ? "fio-job" : "fio.dat", path,
		      PATH_LEN + 32);
	if (p->job_file[0])
		err = mkdir(path, 0700) ? -errno : 0;
	else if ((err = workload_random_file(path, p->size_bytes)))
		unlink(path);
	if (err) {
		free(path);
		return err;
	}
	ctx->state = path;
	return 0;
}

static void fio_teardown(struct workload_ctx *ctx)
{
	const struct fio_params *p = ctx->params;

	if (!ctx->state)
		return;
	if (p->job_file[0])
		nftw(ctx->state, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	else
		unlink(ctx->state);
	free(ctx->state);
	ctx->state = NULL;
}

/* Run r's fio as the timed child for metrics m..: per job side (read
 * or write: 6 metrics) or the totals of a job file (-1: 3 metrics). */
static int fio_measure(const struct workload_ctx *ctx, struct fio_run *r, int m,
		       const char *name, int side, struct sample *out)
{
	const char *tname = ctx->target->info.name;
	char why[DETAIL_LEN] = "no output";
	struct fio_figures f;
	int err, n = side < 0 ? FIO_JOB_FILE_METRICS : FIO_METRICS;
	char *text;

	if (ctx->drop_caches && (err = drop_caches()))
		return err;
	err = workload_spawn(ctx, fio_child, r, out, m);
	if (err == -EINTR)
		return err;
	if (err) {
		fio_complaint(r->err_fd, why, sizeof(why));
		fprintf(stderr, "encbench-trace: fio %s on %s: %s\n", name,
			tname, why);
		return err;
	}
	text = memfd_text(r->out_fd);
	if (!text)
		err = -1;
	else if (side < 0)
		err = fio_parse_totals(text, &f, why, sizeof(why));
	else
		err = fio_parse_json(text, side, &f, why, sizeof(why));
	free(text);
	if (err) {
		fprintf(stderr, "encbench-trace: fio %s on %s: %s\n", name,
			tname, why);
		return -EIO;
	}
	out->values[m] = f.mbps;
	out->values[m + 1] = f.iops;
	out->values[m + 2] = f.clat_mean_us;
	if (side >= 0) {
		out->values[m + 3] = f.clat_p50_us;
		out->values[m + 4] = f.clat_p99_us;
		out->values[m + 5] = f.clat_p999_us;
	}
	for (int k = 1; k < n; k++)
		sample_share(out, m, m + k);
	return 0;
}

static int fio_one_job(const struct workload_ctx *ctx, int i, struct fio_run *r,
		       struct sample *out)
{
	const struct fio_params *p = ctx->params;
	const struct target *t = ctx->target;
	char name[NAME_LEN];

	fio_argv(r, ctx->state, false);
	fio_job_args(r, p, i, !(t->kind && t->kind->no_direct_io),
		     buffered_in_disguise(t));
	job_name(p, i, name, sizeof(name));
	return fio_measure(ctx, r, i * FIO_METRICS, name, is_read(p->rw[i]),
			   out);
}

/* --fio-job: fio runs the job file in a folder of ours on the target. */
static int fio_job_file(const struct workload_ctx *ctx, struct fio_run *r,
			struct sample *out)
{
	const struct fio_params *p = ctx->params;

	fio_argv(r, "", false);
	run_arg(r, "--output-format=json");
	run_arg(r, "--output=/dev/stdout");
	r->argv[r->argc++] = (char *)p->job_file;
	r->argv[r->argc] = NULL;
	r->cwd = ctx->state;
	return fio_measure(ctx, r, 0, "job file", -1, out);
}

static int fio_run_once(const struct workload_ctx *ctx, struct sample *out)
{
	const struct fio_params *p = ctx->params;
	struct fio_run *r = calloc(1, sizeof(*r));
	int err = 0;

	if (!r)
		return -ENOMEM;
	/* fio's output goes to memory the parent reads: no file to leave. */
	r->out_fd = memfd_create("encbench-fio-out", MFD_CLOEXEC);
	r->err_fd = memfd_create("encbench-fio-err", MFD_CLOEXEC);
	if (r->out_fd < 0 || r->err_fd < 0)
		err = -errno;
	for (int i = 0; i < p->nr_rw && !err && !p->job_file[0]; i++) {
		err = memfd_reset(r->out_fd) ?: memfd_reset(r->err_fd);
		err = err ?: fio_one_job(ctx, i, r, out);
	}
	if (!err && p->job_file[0])
		err = fio_job_file(ctx, r, out);
	if (r->out_fd >= 0)
		close(r->out_fd);
	if (r->err_fd >= 0)
		close(r->err_fd);
	free(r);
	return err;
}

/* `fio --parse-only` of --fio-job's file: 0, or -1 and fio's complaint
 * (or why fio cannot run) in why. */
static int fio_parse_only(struct fio_run *r, char *why, size_t len)
{
	int err;

	r->out_fd = memfd_create("encbench-fio-check", MFD_CLOEXEC);
	if (r->out_fd < 0) {
		snprintf(why, len, "memfd_create: %s", strerror(errno));
		return -1;
	}
	err = workload_exec(r->argv, r->out_fd, r->out_fd);
	if (err == -EIO)
		fio_complaint(r->out_fd, why, len);
	else if (err)
		snprintf(why, len, "cannot run fio (%s): install Debian's fio",
			 strerror(-err));
	close(r->out_fd);
	return err ? -1 : 0;
}

static int fio_check_job_file(const struct fio_params *p, char *why, size_t len)
{
	struct fio_run *r = calloc(1, sizeof(*r));
	int err;

	if (!r)
		return -1;
	fio_argv(r, "", true);
	r->argv[r->argc++] = (char *)p->job_file;
	r->argv[r->argc] = NULL;
	err = fio_parse_only(r, why, len);
	free(r);
	return err;
}

/* Before anything is made: fio is there and takes every job as given
 * (the engine above all), by `fio --parse-only`. */
static int fio_check(const void *vp, char *why, size_t len)
{
	const struct fio_params *p = vp;
	struct fio_run *r;
	int err;

	if (p->job_file[0])
		return fio_check_job_file(p, why, len);
	if (p->nr_bs > 1 && p->nr_bs != p->nr_rw) {
		snprintf(why, len,
			 "--fio-bs has %d sizes for %d --fio-rw modes: give "
			 "one, or one per mode",
			 p->nr_bs, p->nr_rw);
		return -1;
	}
	for (int i = 0; i < p->nr_rw; i++)
		if (job_bs(p, i) > p->size_bytes) {
			snprintf(why, len,
				 "fio's block size %llu is larger than its "
				 "file (--fio-size %llu)",
				 (unsigned long long)job_bs(p, i),
				 (unsigned long long)p->size_bytes);
			return -1;
		}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -1;
	/* All jobs in one fio: its start-up takes a while on a busy host. */
	fio_argv(r, "/nonexistent/fio.dat", true);
	for (int i = 0; i < p->nr_rw; i++)
		fio_job_args(r, p, i, true, false);
	err = fio_parse_only(r, why, len);
	free(r);
	return err;
}

/* ---- parameters ---------------------------------------------------- */

static void fio_defaults(void *vp)
{
	struct fio_params *p = vp;

	*p = (struct fio_params){.nr_rw = 4,
				 .size_bytes = 256ULL << 20,
				 .runtime_s = 10,
				 .iodepth = 16};
	for (int i = 0; fio_modes[i]; i++)
		snprintf(p->rw[i], sizeof(p->rw[i]), "%s", fio_modes[i]);
	snprintf(p->engine, sizeof(p->engine), "%s", "posixaio");
}

static void fio_common(void *vp, const struct workload_common *c)
{
	struct fio_params *p = vp;

	if (c->size_bytes)
		p->size_bytes = c->size_bytes;
	if (c->scale > 0)
		p->runtime_s = p->runtime_s * c->scale < 0.1
				       ? 0.1
				       : p->runtime_s * c->scale;
}

/* A comma-separated list: each item through one(), at most `max`. */
static int each_item(const char *value, int max, char *why, size_t len,
		     int (*one)(void *p, int i, const char *item, char *why,
				size_t len),
		     void *p)
{
	char buf[PATH_LEN], *save = NULL, *item;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", value);
	for (item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		if (n == max) {
			snprintf(why, len, "more than %d fio jobs", max);
			return -1;
		}
		if (one(p, n++, item, why, len))
			return -1;
	}
	if (!n)
		snprintf(why, len, "an empty fio list");
	return n ? n : -1;
}

static int one_rw(void *vp, int i, const char *item, char *why, size_t len)
{
	struct fio_params *p = vp;

	for (int k = 0; fio_modes[k]; k++)
		if (!strcmp(item, fio_modes[k])) {
			snprintf(p->rw[i], sizeof(p->rw[i]), "%s", item);
			return 0;
		}
	snprintf(why, len,
		 "invalid --fio-rw '%s': randread, randwrite, read or write",
		 item);
	return -1;
}

static int one_bs(void *vp, int i, const char *item, char *why, size_t len)
{
	return workload_opt_size("fio", "bs", item, 512,
				 &((struct fio_params *)vp)->bs[i], why, len);
}

/* --fio-job FILE: a regular file, kept as an absolute path (fio runs
 * in the target's folder). Its content is fio's to judge (check). */
static int set_job_file(struct fio_params *p, const char *value, char *why,
			size_t len)
{
	char *abs = realpath(value, NULL);
	struct stat st;
	int rc = -1;

	if (!abs)
		snprintf(why, len, "invalid --fio-job '%s': %s", value,
			 strerror(errno));
	else if (stat(abs, &st) || !S_ISREG(st.st_mode))
		snprintf(why, len, "invalid --fio-job '%s': not a regular file",
			 value);
	else if (strlen(abs) >= sizeof(p->job_file))
		snprintf(why, len, "invalid --fio-job '%s': path too long",
			 value);
	else
		rc = 0;
	if (!rc)
		snprintf(p->job_file, sizeof(p->job_file), "%s", abs);
	free(abs);
	return rc;
}

static int fio_set(void *vp, const char *key, const char *value, char *why,
		   size_t len)
{
	struct fio_params *p = vp;
	double d;
	int n;

	if (!strcmp(key, "rw")) {
		n = each_item(value, FIO_MAX_JOBS, why, len, one_rw, p);
		return n < 0 ? -1 : (p->nr_rw = n, 0);
	}
	if (!strcmp(key, "bs")) {
		n = each_item(value, FIO_MAX_JOBS, why, len, one_bs, p);
		return n < 0 ? -1 : (p->nr_bs = n, 0);
	}
	if (!strcmp(key, "size"))
		return workload_opt_size("fio", key, value, 4096,
					 &p->size_bytes, why, len);
	if (!strcmp(key, "iodepth"))
		return workload_opt_count("fio", key, value, 4096, &p->iodepth,
					  why, len);
	if (!strcmp(key, "runtime")) {
		d = parse_duration(value);
		if (d < 0.1) {
			snprintf(why, len,
				 "invalid --fio-runtime '%s': a duration of "
				 "at least 100ms (\"10\", \"500ms\", \"2m\")",
				 value);
			return -1;
		}
		p->runtime_s = d;
		return 0;
	}
	if (!strcmp(key, "job"))
		return set_job_file(p, value, why, len);
	if (!strcmp(key, "engine")) {
		if (!*value || strlen(value) >= sizeof(p->engine) ||
		    strpbrk(value, " \t\n/")) {
			snprintf(why, len, "invalid --fio-engine '%s'", value);
			return -1;
		}
		snprintf(p->engine, sizeof(p->engine), "%s", value);
		return 0;
	}
	return -1;
}

static uint64_t fio_space(const void *p)
{
	return ((const struct fio_params *)p)->size_bytes;
}

static int fio_metrics(const void *vp, struct metric_def out[MAX_METRICS])
{
	static const struct {
		const char *suffix, *unit;
		bool higher;
	} kinds[FIO_METRICS] = {
		{"mbps", "MB/s", true},	       {"iops", "IOPS", true},
		{"clat_mean_us", "us", false}, {"clat_p50_us", "us", false},
		{"clat_p99_us", "us", false},  {"clat_p999_us", "us", false},
	};
	const struct fio_params *p = vp;
	char name[NAME_LEN];

	if (p->job_file[0]) {
		out[0] = (struct metric_def){"job_mbps", "MB/s", true};
		out[1] = (struct metric_def){"job_iops", "IOPS", true};
		out[2] = (struct metric_def){"job_clat_mean_us", "us", false};
		return FIO_JOB_FILE_METRICS;
	}
	for (int i = 0; i < p->nr_rw; i++) {
		job_name(p, i, name, sizeof(name));
		for (int k = 0; k < FIO_METRICS; k++) {
			struct metric_def *d = &out[i * FIO_METRICS + k];

			snprintf(d->name, sizeof(d->name), "%s_%s", name,
				 kinds[k].suffix);
			snprintf(d->unit, sizeof(d->unit), "%s", kinds[k].unit);
			d->higher_is_better = kinds[k].higher;
		}
	}
	return p->nr_rw * FIO_METRICS;
}

static void fio_describe(const void *vp, struct param_list *out)
{
	const struct fio_params *p = vp;
	char jobs[FIO_MAX_JOBS * NAME_LEN] = "", name[NAME_LEN];

	if (p->job_file[0]) {
		param_str(out, "job_file", p->job_file);
		return;
	}
	for (int i = 0; i < p->nr_rw; i++) {
		job_name(p, i, name, sizeof(name));
		snprintf(jobs + strlen(jobs), sizeof(jobs) - strlen(jobs),
			 "%s%s", i ? "," : "", name);
	}
	param_str(out, "jobs", jobs);
	param_int(out, "size_bytes", (long long)p->size_bytes);
	param_num(out, "runtime_s", p->runtime_s);
	param_int(out, "iodepth", p->iodepth);
	param_str(out, "ioengine", p->engine);
	param_str(out, "direct", "1, 0 where O_DIRECT is refused (eCryptfs)");
}

static const char *fio_caveat(const struct target *t, const void *vp)
{
	if (((const struct fio_params *)vp)->job_file[0])
		return NULL; /* its direct= and engine are the job file's */
	if (zfs_direct_caveat(&t->info.zfs))
		return zfs_direct_caveat(&t->info.zfs);
	if (t->kind && t->kind->no_direct_io)
		return "no O_DIRECT here: fio runs buffered (direct=0), its "
		       "write jobs end in an fsync (end_fsync)";
	if (!strcmp(t->info.kind, "fscrypt"))
		return "O_DIRECT on fscrypt without inline encryption is "
		       "buffered I/O in disguise; fio's write jobs end in an "
		       "fsync (end_fsync) so the data reaches the device";
	return NULL;
}

static const struct workload_key fio_keys[] = {
	{"rw", "jobs' modes: randread,randwrite,read,write (the default)"},
	{"bs",
	 "block size, one or one per mode (default 4k random, 4m sequential)"},
	{"size", "bytes of the file the jobs use (default 256M)"},
	{"runtime", "each job's runtime (default 10 s)"},
	{"iodepth", "I/Os in flight (default 16)"},
	{"engine", "fio's ioengine (default posixaio, as Phoronix)"},
	{"job", "a fio job file to run instead, in a folder on each target: "
		"totals of its jobs"},
	{0},
};

const struct workload_ops fio_workload_ops = {
	.name = "fio",
	.help = "fio jobs: 4k random read/write, 4M sequential read/write; "
		"MB/s, IOPS, clat",
	.follows = "Phoronix's Flexible IO Tester (Debian's fio, JSON output)",
	.params_size = sizeof(struct fio_params),
	.defaults = fio_defaults,
	.common = fio_common,
	.set = fio_set,
	.keys = fio_keys,
	.check = fio_check,
	.space_needed = fio_space,
	.metrics = fio_metrics,
	.describe = fio_describe,
	.caveat = fio_caveat,
	.setup = fio_setup,
	.teardown = fio_teardown,
	.run_once = fio_run_once,
};
