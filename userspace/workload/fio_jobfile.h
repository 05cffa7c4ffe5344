/* SPDX-License-Identifier: MIT */
/*
 * A fio job file as users have it (fio's examples): what its jobs are,
 * and the copy the fio workload runs, whose directory= and filename=
 * point into the target's folder and whose sizes and runtimes are the
 * user's (--fio-size, --fio-runtime, --scale). Nothing else changes.
 * Pure text in, text out: unit-tested without fio.
 */
#ifndef ENCBENCH_WORKLOAD_FIO_JOBFILE_H
#define ENCBENCH_WORKLOAD_FIO_JOBFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FIO_JOBS_MAX	 10 /* job sections of one file (MAX_METRICS / 6) */
#define FIO_JOB_NAME_LEN 48

/* One job section, with the [global] options before it applied. */
struct fio_job {
	char name[FIO_JOB_NAME_LEN]; /* its section, as fio's JSON names it */
	char rw[16];		     /* fio's rw=, without a ":N" suffix */
	char bs[32];
	char engine[32];
	long iodepth, numjobs;
	bool reads, writes; /* the sides fio reports for it */
	/* stonewall, new_group or wait_for_previous: it waits for the jobs
	 * before it, so it starts a group of its own. */
	bool waits;
	int group;     /* the jobs of one group run at once, in one fio */
	uint64_t size; /* bytes, after the user's size or scale; 0: none */
	char size_text[32];
	char filename[256]; /* as the copy names it; "" = fio's default */
};

struct fio_jobs {
	int n, nr_groups;
	struct fio_job job[FIO_JOBS_MAX];
};

/* What the copy changes: 0 / NULL leaves the file's own. */
struct fio_rewrite {
	const char *dir; /* directory= of every job: the target's folder */
	uint64_t size;	 /* size= of every job */
	double runtime_s;
	double scale; /* the file's own sizes and runtimes times this */
};

/* The jobs of job file `text` as `rw` changes them: 0, or -1 and a
 * one-line reason (no job, too many, a size= this cannot size a file
 * from, a job without size=). */
int fio_jobs_parse(const char *text, const struct fio_rewrite *rw,
		   struct fio_jobs *out, char *why, size_t len);

/* The copy of `text` (from file `src`) that `rw` makes, with a comment
 * line saying so first; malloc'ed, NULL when out of memory. */
char *fio_jobs_rewrite(const char *text, const char *src,
		       const struct fio_rewrite *rw);

/* Bytes of the files the jobs lay out at once: jobs that name the same
 * file share it, each clone (numjobs) of a job without filename= has
 * its own. */
uint64_t fio_jobs_space(const struct fio_jobs *j);

#endif
