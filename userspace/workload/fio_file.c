// SPDX-License-Identifier: MIT
/*
 * --fio-job FILE: a fio job file as users have it (Debian's fio-examples,
 * /usr/share/doc/fio/examples). The program runs a copy of it in a
 * folder of its own on each target (fio_jobfile.c writes it: directory=
 * and filename= point there, sizes and runtimes as the user asked,
 * nothing else changed), lays its files out untimed, and runs each group
 * of jobs that run at once (a job that waits for the ones before it,
 * stonewall, starts the next group) as a phase of its own: one fio with
 * --section for each of the group's jobs, traced apart. Each job side
 * (read, write) is reported as fio reports it; a group of one job adds
 * --group_reporting, so that its clones (numjobs) are fio's own sums.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fio_priv.h"
#include "../storage/target.h"

/* What the user's options change in the copy written into dir. */
static void rewrite_of(const struct fio_params *p, const char *dir,
		       struct fio_rewrite *rw)
{
	rw->dir = dir;
	rw->size = p->size_given ? p->size_bytes : 0;
	rw->runtime_s = p->runtime_given ? p->runtime_s : 0;
	rw->scale = p->scale;
}

static int jobs_of(const struct fio_params *p, struct fio_jobs *js, char *why,
		   size_t len)
{
	struct fio_rewrite rw;

	rewrite_of(p, "/", &rw);
	return fio_jobs_parse(p->job_text, &rw, js, why, len);
}

/* Job i's sides: read first, then write. */
static int nr_sides(const struct fio_job *j)
{
	return j->reads + j->writes;
}

/* The first metric of job i. */
static int first_metric(const struct fio_jobs *js, int i)
{
	int m = 0;

	for (int k = 0; k < i; k++)
		m += nr_sides(&js->job[k]) * FIO_METRICS;
	return m;
}

/* "seq-read", or "rand-rw_read" for a side of a job with two. */
static void side_prefix(const struct fio_job *j, bool read, char *buf,
			size_t len)
{
	snprintf(buf, len, "%s%s", j->name,
		 nr_sides(j) == 1 ? ""
		 : read		  ? "_read"
				  : "_write");
	for (char *c = buf; *c; c++)
		if (*c == ' ' || *c == ',' || *c == '"' || *c == '/')
			*c = '_';
}

int fio_file_set(struct fio_params *p, const char *value, char *why, size_t len)
{
	char *abs = realpath(value, NULL);
	struct stat st;
	ssize_t n = -1;
	int fd = -1, rc = -1;

	if (!abs)
		snprintf(why, len, "invalid --fio-job '%s': %s", value,
			 strerror(errno));
	else if (stat(abs, &st) || !S_ISREG(st.st_mode))
		snprintf(why, len, "invalid --fio-job '%s': not a regular file",
			 value);
	else if (strlen(abs) >= sizeof(p->job_file))
		snprintf(why, len, "invalid --fio-job '%s': path too long",
			 value);
	else if (st.st_size >= (off_t)sizeof(p->job_text))
		snprintf(why, len,
			 "invalid --fio-job '%s': larger than %zu KiB, not a "
			 "job file",
			 value, sizeof(p->job_text) >> 10);
	else if ((fd = open(abs, O_RDONLY | O_CLOEXEC)) < 0 ||
		 (n = read(fd, p->job_text, sizeof(p->job_text) - 1)) < 0)
		snprintf(why, len, "invalid --fio-job '%s': %s", value,
			 strerror(errno));
	else
		rc = 0;
	if (fd >= 0)
		close(fd);
	if (!rc) {
		p->job_text[n] = '\0';
		snprintf(p->job_file, sizeof(p->job_file), "%s", abs);
	}
	free(abs);
	return rc;
}

/* The copy that dir's jobs run, written to fd: 0 or negative errno. */
static int write_copy(const struct fio_params *p, const char *dir, int fd)
{
	struct fio_rewrite rw;
	char *copy;
	size_t n;
	int err = 0;

	rewrite_of(p, dir, &rw);
	copy = fio_jobs_rewrite(p->job_text, p->job_file, &rw);
	if (!copy)
		return -ENOMEM;
	n = strlen(copy);
	if (write(fd, copy, n) != (ssize_t)n)
		err = -errno ?: -EIO;
	free(copy);
	return err;
}

/* fio judges the copy it would run (in a folder that is one): 0, or -2
 * and fio's complaint, the job file's and not the options' (exit 1). */
static int fio_judges(const struct fio_params *p, char *why, size_t len)
{
	struct fio_run *r = calloc(1, sizeof(*r));
	int fd = memfd_create("encbench-fio-job", 0), rc = -1;

	if (!r || fd < 0 || write_copy(p, "/", fd)) {
		snprintf(why, len, "cannot check %s: %s", p->job_file,
			 strerror(errno ?: ENOMEM));
		goto cleanup;
	}
	fio_argv(r, "", true);
	snprintf(r->filename, sizeof(r->filename), "/proc/self/fd/%d", fd);
	r->argv[r->argc++] = r->filename;
	r->argv[r->argc] = NULL;
	rc = fio_untimed(r, why, len) ? -2 : 0;
cleanup:
	if (fd >= 0)
		close(fd);
	free(r);
	return rc;
}

int fio_file_check(const struct fio_params *p, char *why, size_t len)
{
	struct fio_jobs js;
	int sides = 0, rc = fio_judges(p, why, len);

	if (rc)
		return rc;
	if (jobs_of(p, &js, why, len))
		return -1;
	for (int i = 0; i < js.n; i++)
		sides += nr_sides(&js.job[i]);
	if (sides > FIO_MAX_JOBS) {
		snprintf(why, len,
			 "%s: its jobs have %d read and write sides, at most "
			 "%d are reported apart",
			 p->job_file, sides, FIO_MAX_JOBS);
		return -1;
	}
	return 0;
}

uint64_t fio_file_space(const struct fio_params *p)
{
	char why[DETAIL_LEN];
	struct fio_jobs js;

	return jobs_of(p, &js, why, sizeof(why)) ? 0 : fio_jobs_space(&js);
}

int fio_file_metrics(const struct fio_params *p,
		     struct metric_def out[MAX_METRICS])
{
	char why[DETAIL_LEN], prefix[NAME_LEN];
	struct fio_jobs js;
	int m = 0;

	if (jobs_of(p, &js, why, sizeof(why)))
		return 0;
	for (int i = 0; i < js.n; i++)
		for (int side = 1; side >= 0; side--) {
			const struct fio_job *j = &js.job[i];

			if (!(side ? j->reads : j->writes) ||
			    m + FIO_METRICS > MAX_METRICS)
				continue;
			side_prefix(j, side, prefix, sizeof(prefix));
			fio_side_metrics(prefix, &out[m]);
			m += FIO_METRICS;
		}
	return m;
}

int fio_file_phases(const struct fio_params *p)
{
	char why[DETAIL_LEN];
	struct fio_jobs js;

	return jobs_of(p, &js, why, sizeof(why)) ? 1 : js.nr_groups;
}

void fio_file_phase(const struct fio_params *p, int g,
		    struct workload_phase *out)
{
	char why[DETAIL_LEN];
	struct fio_jobs js;
	size_t len = 0;

	memset(out, 0, sizeof(*out));
	if (jobs_of(p, &js, why, sizeof(why)))
		return;
	out->first = -1;
	for (int i = 0; i < js.n; i++) {
		if (js.job[i].group != g)
			continue;
		if (out->first < 0)
			out->first = first_metric(&js, i);
		out->n += nr_sides(&js.job[i]) * FIO_METRICS;
		len += snprintf(out->name + len, sizeof(out->name) - len,
				"%s%s", len ? "+" : "", js.job[i].name);
		if (len >= sizeof(out->name))
			len = sizeof(out->name) - 1;
	}
	if (out->first < 0)
		out->first = 0;
}

/* results.json and run.log: the file, and each job as the report names
 * it (rw, bs, iodepth, engine, clones). */
void fio_file_describe(const struct fio_params *p, struct param_list *out)
{
	char why[DETAIL_LEN], key[NAME_LEN / 2], val[DETAIL_LEN];
	struct fio_jobs js;

	param_str(out, "job_file", p->job_file);
	if (jobs_of(p, &js, why, sizeof(why)))
		return;
	for (int i = 0; i < js.n; i++) {
		const struct fio_job *j = &js.job[i];

		snprintf(key, sizeof(key), "job %s", j->name);
		snprintf(val, sizeof(val),
			 "rw=%s bs=%s iodepth=%ld ioengine=%s size=%llu "
			 "numjobs=%ld",
			 j->rw, j->bs, j->iodepth, j->engine,
			 (unsigned long long)j->size, j->numjobs);
		param_str(out, key, val);
	}
}

/* The copy in dir, named after the file, and its files laid out untimed
 * (fio's create_only): a read job then reads a file that is there, and
 * the layout's writes are in no phase. */
int fio_file_setup(struct workload_ctx *ctx, char *dir)
{
	const struct fio_params *p = ctx->params;
	const char *base = strrchr(p->job_file, '/');
	struct fio_run *r = calloc(1, sizeof(*r));
	char why[DETAIL_LEN] = "";
	int fd, err;

	if (!r)
		return -ENOMEM;
	fio_argv(r, "", false);
	snprintf(r->filename, sizeof(r->filename), "%s/%s", dir,
		 base ? base + 1 : p->job_file);
	fd = open(r->filename, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	err = fd < 0 ? -errno : write_copy(p, dir, fd);
	if (fd >= 0 && close(fd) && !err)
		err = -errno;
	if (!err) {
		run_arg(r, "--create_only=1");
		r->argv[r->argc++] = r->filename;
		r->argv[r->argc] = NULL;
		if (fio_untimed(r, why, sizeof(why))) {
			fprintf(stderr, "encbench-trace: fio on %s: %s\n",
				ctx->target->info.name, why);
			err = -EIO;
		}
	}
	free(r);
	return err;
}

/* Group ctx->phase of the copy, timed: one fio, --section per job. */
int fio_file_run(const struct workload_ctx *ctx, struct fio_run *r,
		 struct sample *out)
{
	const struct fio_params *p = ctx->params;
	const char *base = strrchr(p->job_file, '/');
	struct fio_side sides[FIO_MAX_JOBS];
	struct workload_phase ph;
	char why[DETAIL_LEN];
	struct fio_jobs js;
	int n = 0, jobs = 0;

	if (jobs_of(p, &js, why, sizeof(why)))
		return -EINVAL;
	fio_argv(r, "", false);
	run_arg(r, "--output-format=json");
	run_arg(r, "--output=/proc/self/fd/1");
	for (int i = 0; i < js.n; i++)
		jobs += js.job[i].group == ctx->phase;
	if (jobs == 1)
		run_arg(r, "--group_reporting");
	for (int i = 0, m = 0; i < js.n;
	     m += nr_sides(&js.job[i]) * FIO_METRICS, i++) {
		const struct fio_job *j = &js.job[i];

		if (j->group != ctx->phase)
			continue;
		run_arg(r, "--section=%s", j->name);
		if (j->reads)
			sides[n++] = (struct fio_side){j->name, true, m, false};
		if (j->writes)
			sides[n++] = (struct fio_side){
				j->name, false,
				m + (j->reads ? FIO_METRICS : 0), false};
	}
	snprintf(r->filename, sizeof(r->filename), "%s/%s",
		 (const char *)ctx->state, base ? base + 1 : p->job_file);
	r->argv[r->argc++] = r->filename;
	r->argv[r->argc] = NULL;
	fio_file_phase(p, ctx->phase, &ph);
	return n ? fio_measure(ctx, r, ph.name, sides, n, out) : -EINVAL;
}
