/* SPDX-License-Identifier: MIT */
/* What fio.c (fio's own jobs) and fio_file.c (--fio-job) share. */
#ifndef ENCBENCH_WORKLOAD_FIO_PRIV_H
#define ENCBENCH_WORKLOAD_FIO_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "fio_jobfile.h"
#include "workload.h"

#define FIO_METRICS 6 /* per job side: mbps, iops, clat mean, p50, p99, p99.9  \
		       */
#define FIO_MAX_JOBS (MAX_METRICS / FIO_METRICS)
#define FIO_TEXT_MAX (64u << 10) /* a job file larger is not one */

struct fio_params {
	int nr_rw, nr_bs; /* nr_bs 0: 4k for random modes, 4m otherwise */
	char rw[FIO_MAX_JOBS][16];
	uint64_t bs[FIO_MAX_JOBS];
	uint64_t size_bytes;
	double runtime_s;
	long iodepth;
	char engine[32];
	/* Given by the user (--fio-size or --size, --fio-runtime), not
	 * defaults: a job file's own stay otherwise. */
	bool size_given, runtime_given;
	double scale;		     /* --scale; 0 when not given */
	char job_file[PATH_LEN];     /* --fio-job: run this instead, absolute */
	char job_text[FIO_TEXT_MAX]; /* its content, read when given */
};

/* One fio invocation: what the timed child runs. */
#define FIO_JOB_ARGS 16 /* the most fio_job_args adds per job */

struct fio_run {
	char *argv[2 + FIO_MAX_JOBS * FIO_JOB_ARGS + 1];
	char args[1 + FIO_MAX_JOBS * FIO_JOB_ARGS][96]; /* argv's strings */
	char filename[PATH_LEN + 16]; /* --filename=, or a job file's copy */
	int argc, nargs;	      /* argv and args used */
	const char *cwd;	      /* where fio runs */
	int out_fd, err_fd;
};

/* One job side the run reads from fio's JSON into metrics m..m+5. */
struct fio_side {
	const char *job; /* fio's jobname; NULL: the first job */
	bool read;
	int m;
	/* Its clat is the calls' time (fio_times_calls): into the
	 * sample's calls. */
	bool calls;
};

void run_arg(struct fio_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A fresh argv: "fio", and --parse-only when only checking options. */
void fio_argv(struct fio_run *r, const char *path, bool parse_only);
/* Run r's fio as the timed child; its sides' figures into out. */
int fio_measure(const struct workload_ctx *ctx, struct fio_run *r,
		const char *name, const struct fio_side *sides, int n,
		struct sample *out);
/* Run r's fio untimed (a layout, a check): 0, or -1 and fio's complaint
 * (or why fio cannot run) in why. */
int fio_untimed(struct fio_run *r, char *why, size_t len);
/* The six metrics of a job side named prefix, at out[0..5]. */
void fio_side_metrics(const char *prefix, struct metric_def *out);
/* "no direct I/O here" from statx(STATX_DIOALIGN) of a file in the
 * target's folder: 1 none, 0 there is, -1 not known (kernel < 6.1). */
int fio_no_direct_io(const struct target *t);

/* fio_file.c: --fio-job. */
int fio_file_set(struct fio_params *p, const char *value, char *why,
		 size_t len);
int fio_file_check(const struct fio_params *p, char *why, size_t len);
uint64_t fio_file_space(const struct fio_params *p);
int fio_file_metrics(const struct fio_params *p,
		     struct metric_def out[MAX_METRICS]);
int fio_file_phases(const struct fio_params *p);
void fio_file_phase(const struct fio_params *p, int i,
		    struct workload_phase *out);
void fio_file_describe(const struct fio_params *p, struct param_list *out);
int fio_file_setup(struct workload_ctx *ctx, char *dir);
int fio_file_run(const struct workload_ctx *ctx, struct fio_run *r,
		 struct sample *out);

#endif
