/* SPDX-License-Identifier: MIT */
/* fio's JSON output as the fio workload reads it (unit-tested alone). */
#ifndef ENCBENCH_WORKLOAD_FIO_H
#define ENCBENCH_WORKLOAD_FIO_H

#include <stdbool.h>
#include <stddef.h>

/* One job's side (read or write) of `fio --output-format=json`. */
struct fio_figures {
	double mbps; /* bw_bytes / 10^6 */
	double iops;
	double io_bytes, runtime_s;
	/* completion latency (clat_ns), in microseconds */
	double clat_mean_us, clat_p50_us, clat_p99_us, clat_p999_us;
};

/* The first job of fio's JSON `text`, its read or write side: 0, or -1
 * with a one-line reason (not JSON, fio's job error, no I/O done, a
 * figure missing). */
int fio_parse_json(const char *text, bool read_side, struct fio_figures *out,
		   char *why, size_t len);

/* The sums of every job and side of a job file's run: MB/s, IOPS,
 * io_bytes, the longest runtime, and clat mean weighted by each side's
 * I/Os (no percentiles: they do not add up). 0, or -1 and why. */
int fio_parse_totals(const char *text, struct fio_figures *out, char *why,
		     size_t len);

#endif
