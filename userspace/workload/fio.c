// SPDX-License-Identifier: MIT
/*
 * fio: the Flexible I/O Tester (Debian's fio) as Phoronix runs it, one fio
 * job per (rw mode, block size): by default 4 KiB random read, 4 KiB
 * random write, 4 MiB sequential read, 4 MiB sequential write, each for a
 * fixed runtime over one file. The file is laid out untimed in setup (in
 * a read job, fio's own layout would be writes inside the timed window).
 * Each job is its own timed child, fio and the job process it forks
 * below it (the tracer follows both); fio's --output-format=json+ is read
 * with json-c: MB/s and IOPS (higher is better), completion latency mean,
 * p50, p99 and p99.9.
 *
 * Engine: POSIX AIO, as Phoronix runs it: glibc serves it with helper
 * threads doing pread/pwrite, syscalls the tracer sorts into ops.
 * --fio-engine io_uring (requests timed one by one) and psync work too;
 * libaio's io_submit is not an op the tracer sorts.
 *
 * Each job is a phase of its own (workload_ops.phases): all its
 * iterations in a row, traced apart, so that it gets its own attribution
 * and verdict. --fio-job runs a job file instead: a copy of it whose
 * directory= and filename= point into the target's folder
 * (fio_jobfile.c), one phase per group of jobs that run at once, each
 * job side (read, write) reported as fio reports it.
 *
 * Read sides count the bytes fio read and those the target's device
 * delivered meanwhile: the rest came from the page cache.
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
#include "fio_priv.h"
#include "../common/parse.h"
#include "../storage/target.h"
#include "../storage/zfs.h"

#define FIO_OUT_MAX (4u << 20) /* more JSON than this is not fio's */

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

/* Is this line of fio's stderr its complaint? Not its debug trail
 * ("fio: file:..."), nor the consequence ("fio: job j dropped"), nor a
 * note ("note: both iodepth >= 1 and synchronous I/O engine ..."). */
static bool is_complaint(const char *line)
{
	size_t n = strlen(line);

	return n && strncmp(line, "fio: file:", 10) &&
	       strncmp(line, "note:", 5) &&
	       !(n > 8 && !strcmp(line + n - 8, " dropped"));
}

/* fio's first own complaint ("fio: engine x not loadable", "Bad option
 * <x=1>"), one line: a "fio: " line first, any other after. */
static void fio_complaint(int err_fd, char *why, size_t len)
{
	char *text = memfd_text(err_fd), *line, *save = NULL;
	const char *pick = NULL, *other = NULL;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && !pick;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!is_complaint(line))
			continue;
		if (!strncmp(line, "fio: ", 5))
			pick = line;
		else if (!other)
			other = line;
	}
	pick = pick ?: other;
	snprintf(why, len, "%s", pick ? pick : "fio failed (no message)");
	free(text);
}

void run_arg(struct fio_run *r, const char *fmt, ...)
{
	char *arg = r->args[r->nargs++];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(arg, sizeof(r->args[0]), fmt, ap);
	va_end(ap);
	r->argv[r->argc++] = arg;
	r->argv[r->argc] = NULL;
}

void fio_argv(struct fio_run *r, const char *path, bool parse_only)
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
	/* json+: json with each clat histogram's bins (fio_times_calls). */
	run_arg(r, "--output-format=json+");
	/* Through a stream of fio's own (stdout is our memfd): 3 writes
	 * where fio's stdout logging made one per line, ~110 writes the
	 * tracer would count as the job's. /proc's name for it, not
	 * /dev/stdout: a system without udev's symlinks (the test guests)
	 * has none, and fio then wrote no JSON at all. */
	run_arg(r, "--output=/proc/self/fd/1");
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

int fio_no_direct_io(const struct target *t)
{
#ifdef STATX_DIOALIGN
	char path[PATH_LEN + 32];
	struct statx stx;
	int fd, rc = -1;

	/* A file of our own, made and removed at once: STATX_DIOALIGN
	 * answers for regular files, not folders. */
	snprintf(path, sizeof(path), "%s/.encbench-dio-probe", t->info.dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (!statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) &&
	    (stx.stx_mask & STATX_DIOALIGN))
		rc = stx.stx_dio_offset_align == 0;
	close(fd);
	unlink(path);
	return rc;
#else
	(void)t;
	return -1;
#endif
}

/* O_DIRECT is refused (eCryptfs) or accepted and served from the page
 * cache (fscrypt without inline encryption, as statx says): writes then
 * end in fsync. */
static bool buffered_in_disguise(const struct target *t)
{
	int none = fio_no_direct_io(t);

	if (t->kind && t->kind->no_direct_io)
		return true;
	return none < 0 ? !strcmp(t->info.kind, "fscrypt") : none;
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
 * for the job file's copy and what it makes, laid out untimed too.
 * Either is ctx->state, a path. */
static void fio_teardown(struct workload_ctx *ctx);

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
	err = p->job_file[0] ? fio_file_setup(ctx, path) : 0;
	if (err) /* run_on_target calls teardown only after a setup */
		fio_teardown(ctx);
	return err;
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

/* fio's figures of one side into metrics s->m.. of out. */
static int side_into(const char *text, const struct fio_side *s,
		     struct sample *out, char *why, size_t len)
{
	struct fio_figures f;
	int m = s->m;

	if (fio_parse_job(text, s->job, s->read, &f, why, len))
		return -1;
	out->values[m] = f.mbps;
	out->values[m + 1] = f.iops;
	out->values[m + 2] = f.clat_mean_us;
	out->mean_n[m + 2] = f.clat_n;
	out->values[m + 3] = f.clat_p50_us;
	out->values[m + 4] = f.clat_p99_us;
	out->values[m + 5] = f.clat_p999_us;
	if (s->read)
		out->read_bytes[m] = f.io_bytes;
	if (s->calls) {
		struct call_times *c =
			&out->calls[s->read ? EB_OP_READ : EB_OP_WRITE];

		c->count += (uint64_t)(f.clat_n + 0.5);
		c->sum_ns += (uint64_t)(f.clat_sum_ns + 0.5);
		/* One job, one thread: one call at a time. */
		c->busy_ns = c->sum_ns;
		for (int i = 0; i < FIO_LOG2_SLOTS; i++)
			c->slots[i] += f.clat_log2[i];
	}
	return 0;
}

/* The device's bytes over sides that ran at once, in proportion to what
 * each read (counted: known), and every side's figures on its six
 * metrics; all share the one child's rusage and CPU figures. */
static void spread_dev_bytes(const struct fio_side *sides, int n, bool counted,
			     uint64_t dev, struct sample *out)
{
	double read = 0;
	int m0 = sides[0].m;

	for (int i = 0; i < n; i++)
		read += out->read_bytes[sides[i].m];
	for (int i = 0; i < n; i++) {
		int m = sides[i].m;

		if (out->read_bytes[m] > 0 && counted) {
			out->dev_read_bytes[m] =
				(double)dev * out->read_bytes[m] / read;
			out->dev_counted[m] = true;
		}
		for (int k = 0; k < FIO_METRICS; k++) {
			out->read_bytes[m + k] = out->read_bytes[m];
			out->dev_read_bytes[m + k] = out->dev_read_bytes[m];
			out->dev_counted[m + k] = out->dev_counted[m];
			if (m + k != m0)
				sample_share(out, m0, m + k);
		}
	}
}

int fio_measure(const struct workload_ctx *ctx, struct fio_run *r,
		const char *name, const struct fio_side *sides, int n,
		struct sample *out)
{
	const struct target *t = ctx->target;
	char why[DETAIL_LEN] = "no output";
	uint64_t dev0, dev1;
	int err, m0 = sides[0].m;
	bool counted;
	char *text;

	if (ctx->drop_caches && (err = drop_caches(ctx->target)))
		return err;
	dev0 = workload_dev_read_bytes(t);
	err = workload_spawn(ctx, fio_child, r, out, m0);
	dev1 = workload_dev_read_bytes(t);
	if (err == -EINTR)
		return err;
	if (err) {
		fio_complaint(r->err_fd, why, sizeof(why));
		fprintf(stderr, "encbench-trace: fio %s on %s: %s\n", name,
			t->info.name, why);
		return err;
	}
	text = memfd_text(r->out_fd);
	err = text ? 0 : -1;
	for (int i = 0; i < n && !err; i++)
		err = side_into(text, &sides[i], out, why, sizeof(why));
	free(text);
	if (err) {
		fprintf(stderr, "encbench-trace: fio %s on %s: %s\n", name,
			t->info.name, why);
		return -EIO;
	}
	counted = dev0 && dev1 >= dev0;
	spread_dev_bytes(sides, n, counted, counted ? dev1 - dev0 : 0, out);
	/* Where the kernel does no direct I/O (or fio runs buffered by
	 * design), whatever a job asked its writes went to the page cache:
	 * fio's latencies are copies into memory, its bandwidth counts
	 * rewrites that never reach the device. Not disk figures. */
	if (buffered_in_disguise(t))
		for (int i = 0; i < n; i++)
			for (int k = 0; k < FIO_METRICS && !sides[i].read; k++)
				out->page_cache_writes[sides[i].m + k] = true;
	return 0;
}

_Static_assert(FIO_LOG2_SLOTS == HIST_SLOTS,
	       "fio's log2 slots are the tracer's");

/*
 * Whether job i's clat is the time of every call its verdicts are about:
 * with a synchronous engine, fio times each pread or pwrite around the
 * call itself, one call per I/O (numjobs 1: one at a time). Not for a job
 * file (engines, files and jobs of its own), nor for a write job that
 * ends in an fsync (buffered in disguise), which fio does not time.
 */
static bool job_times_calls(const struct fio_params *p, int i, bool disguise)
{
	static const char *const sync_engines[] = {"psync",   "sync",  "pvsync",
						   "pvsync2", "vsync", NULL};
	bool sync = false;

	if (p->job_file[0] || i < 0 || i >= p->nr_rw)
		return false;
	for (int k = 0; sync_engines[k]; k++)
		sync |= !strcmp(p->engine, sync_engines[k]);
	return sync && (is_read(p->rw[i]) || !disguise);
}

static bool fio_times_calls(const void *vp, int i, const struct target *t)
{
	return job_times_calls(vp, i, buffered_in_disguise(t));
}

static int fio_one_job(const struct workload_ctx *ctx, int i, struct fio_run *r,
		       struct sample *out)
{
	const struct fio_params *p = ctx->params;
	const struct target *t = ctx->target;
	bool disguise = buffered_in_disguise(t);
	struct fio_side side = {NULL, is_read(p->rw[i]), i * FIO_METRICS,
				job_times_calls(p, i, disguise)};
	char name[NAME_LEN];

	if (side.calls)
		snprintf(out->calls_by, sizeof(out->calls_by),
			 "fio's clat of each call (%s engine)", p->engine);
	fio_argv(r, ctx->state, false);
	fio_job_args(r, p, i, !(t->kind && t->kind->no_direct_io), disguise);
	job_name(p, i, name, sizeof(name));
	return fio_measure(ctx, r, name, &side, 1, out);
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
	err = err ?: memfd_reset(r->out_fd) ?: memfd_reset(r->err_fd);
	if (!err && p->job_file[0])
		err = fio_file_run(ctx, r, out);
	else if (!err)
		err = fio_one_job(ctx, ctx->phase, r, out);
	if (r->out_fd >= 0)
		close(r->out_fd);
	if (r->err_fd >= 0)
		close(r->err_fd);
	free(r);
	return err;
}

int fio_untimed(struct fio_run *r, char *why, size_t len)
{
	int fd = memfd_create("encbench-fio-check", MFD_CLOEXEC);
	int err;

	if (fd < 0) {
		snprintf(why, len, "memfd_create: %s", strerror(errno));
		return -1;
	}
	err = workload_exec(r->argv, fd, fd);
	if (err == -EIO)
		fio_complaint(fd, why, len);
	else if (err)
		snprintf(why, len, "cannot run fio (%s): install Debian's fio",
			 strerror(-err));
	close(fd);
	return err ? -1 : 0;
}

/* Before anything is made: fio is there and takes every job as given
 * (the engine above all), by `fio --parse-only`. */
static int fio_check(const void *vp, char *why, size_t len)
{
	const struct fio_params *p = vp;
	struct fio_run *r;
	int err;

	if (p->job_file[0])
		return fio_file_check(p, why, len);
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
	err = fio_untimed(r, why, len);
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

	if (c->size_bytes) {
		p->size_bytes = c->size_bytes;
		p->size_given = true;
	}
	if (c->scale > 0) {
		p->scale = c->scale;
		p->runtime_s = p->runtime_s * c->scale < 0.1
				       ? 0.1
				       : p->runtime_s * c->scale;
	}
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
	if (!strcmp(key, "size")) {
		p->size_given = true;
		return workload_opt_size("fio", key, value, 4096,
					 &p->size_bytes, why, len);
	}
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
		p->runtime_given = true;
		return 0;
	}
	if (!strcmp(key, "job"))
		return fio_file_set(p, value, why, len);
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

static uint64_t fio_space(const void *vp)
{
	const struct fio_params *p = vp;

	return p->job_file[0] ? fio_file_space(p) : p->size_bytes;
}

void fio_side_metrics(const char *prefix, struct metric_def *out)
{
	static const struct {
		const char *suffix, *unit;
		bool higher;
	} kinds[FIO_METRICS] = {
		{"mbps", "MB/s", true},	       {"iops", "IOPS", true},
		{"clat_mean_us", "us", false}, {"clat_p50_us", "us", false},
		{"clat_p99_us", "us", false},  {"clat_p999_us", "us", false},
	};

	for (int k = 0; k < FIO_METRICS; k++) {
		snprintf(out[k].name, sizeof(out[k].name), "%s_%s", prefix,
			 kinds[k].suffix);
		snprintf(out[k].unit, sizeof(out[k].unit), "%s", kinds[k].unit);
		out[k].higher_is_better = kinds[k].higher;
	}
}

static int fio_metrics(const void *vp, struct metric_def out[MAX_METRICS])
{
	const struct fio_params *p = vp;
	char name[NAME_LEN];

	if (p->job_file[0])
		return fio_file_metrics(p, out);
	for (int i = 0; i < p->nr_rw; i++) {
		job_name(p, i, name, sizeof(name));
		fio_side_metrics(name, &out[i * FIO_METRICS]);
	}
	return p->nr_rw * FIO_METRICS;
}

static int fio_phases(const void *vp)
{
	const struct fio_params *p = vp;

	return p->job_file[0] ? fio_file_phases(p) : p->nr_rw;
}

static void fio_phase(const void *vp, int i, struct workload_phase *out)
{
	const struct fio_params *p = vp;

	if (p->job_file[0]) {
		fio_file_phase(p, i, out);
		return;
	}
	job_name(p, i, out->name, sizeof(out->name));
	out->first = i * FIO_METRICS;
	out->n = FIO_METRICS;
}

static void fio_describe(const void *vp, struct param_list *out)
{
	const struct fio_params *p = vp;
	char jobs[FIO_MAX_JOBS * NAME_LEN] = "", name[NAME_LEN];

	if (p->job_file[0]) {
		fio_file_describe(p, out);
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

/* What fio's figures here are: made for the target, from statx where
 * the kernel says whether it does direct I/O (in a buffer of its own:
 * one target at a time asks). */
static const char *fio_caveat(const struct target *t, const void *vp)
{
	static char buf[DETAIL_LEN];
	const struct fio_params *p = vp;
	int none = fio_no_direct_io(t);

	if (p->job_file[0]) {
		const char *base = strrchr(p->job_file, '/');

		/* The file's own name (its path is in the parameters): the
		 * note fits in DETAIL_LEN beside a long target folder. */
		snprintf(buf, sizeof(buf),
			 "runs a copy of %s whose directory= and filename= "
			 "point into %s/fio-job%s",
			 base ? base + 1 : p->job_file, t->info.dir,
			 none == 1 ? "; no direct I/O here (STATX_DIOALIGN 0): "
				     "direct=1 is buffered, re-reads are "
				     "cached"
				   : "");
		return buf;
	}
	if (zfs_direct_caveat(&t->info.zfs))
		return zfs_direct_caveat(&t->info.zfs);
	if (t->kind && t->kind->no_direct_io)
		return "no O_DIRECT here: fio runs buffered (direct=0), its "
		       "write jobs end in an fsync (end_fsync); re-reads come "
		       "from the page cache";
	if (none == 1 || (none < 0 && !strcmp(t->info.kind, "fscrypt")))
		return none == 1
			       ? "no direct I/O here (statx: STATX_DIOALIGN 0; "
				 "fscrypt needs -o inlinecrypt and blk-crypto): "
				 "O_DIRECT is buffered I/O in disguise, re-reads "
				 "come from the page cache; fio's write jobs end "
				 "in an fsync (end_fsync)"
			       : "O_DIRECT on fscrypt without inline encryption "
				 "is buffered I/O in disguise; fio's write jobs "
				 "end in an fsync (end_fsync) so the data "
				 "reaches the device";
	return NULL;
}

static const struct workload_key fio_keys[] = {
	{"rw", "jobs' modes: randread,randwrite,read,write (the default)"},
	{"bs",
	 "block size, one or one per mode (default 4k random, 4m sequential)"},
	{"size", "bytes of the file the jobs use (default: --size, else 256M)"},
	{"runtime", "each job's runtime (default 10 s)"},
	{"iodepth", "I/Os in flight (default 16)"},
	{"engine", "fio's ioengine (default posixaio, as Phoronix)"},
	{"job", "a fio job file to run instead (fio's examples as they are): "
		"a copy pointed into each target's folder, "
		"each job reported apart"},
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
	.shrink = "--fio-size, --fio-runtime or --scale",
	.phases = fio_phases,
	.phase = fio_phase,
	.metrics = fio_metrics,
	.describe = fio_describe,
	.caveat = fio_caveat,
	.setup = fio_setup,
	.teardown = fio_teardown,
	.run_once = fio_run_once,
	.times_calls = fio_times_calls,
};
