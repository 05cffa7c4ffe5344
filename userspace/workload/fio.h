/* SPDX-License-Identifier: MIT */
/* fio's JSON output as the fio workload reads it (unit-tested alone). */
#ifndef ENCBENCH_WORKLOAD_FIO_H
#define ENCBENCH_WORKLOAD_FIO_H

#include <stdbool.h>
#include <stddef.h>

/* Slots of a log2 histogram of ns, as the tracer's (HIST_SLOTS). */
#define FIO_LOG2_SLOTS 40

/* One job's side (read or write) of `fio --output-format=json`. */
struct fio_figures {
	double mbps; /* bw_bytes / 10^6 */
	double iops;
	double io_bytes, runtime_s;
	/* completion latency (clat_ns), in microseconds */
	double clat_mean_us, clat_p50_us, clat_p99_us, clat_p999_us;
	/* The clat samples (clat_ns's N) and their sum in ns; with
	 * --output-format=json+, their histogram (fio's bins) in log2 slots
	 * of ns (all 0 from plain json). */
	double clat_n, clat_sum_ns;
	unsigned long long clat_log2[FIO_LOG2_SLOTS];
};

/* The first job of fio's JSON `text`, its read or write side: 0, or -1
 * with a one-line reason (not JSON, fio's job error, no I/O done, a
 * figure missing). */
int fio_parse_json(const char *text, bool read_side, struct fio_figures *out,
		   char *why, size_t len);

/* Job `name`'s side (its clones, numjobs, added up: MB/s, IOPS and
 * bytes summed, clat mean weighted by I/Os, the percentiles the highest
 * clone's; one clone, or fio's group_reporting, gives fio's own). NULL:
 * the first job. 0, or -1 and why. */
int fio_parse_job(const char *text, const char *name, bool read_side,
		  struct fio_figures *out, char *why, size_t len);

#endif
