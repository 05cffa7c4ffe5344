// SPDX-License-Identifier: MIT
/*
 * fio's JSON output (`fio --output-format=json`, fio 3.x), read with
 * json-c for the fio workload: one job's read or write side, or the
 * totals of every job a job file ran.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "fio.h"

static bool num_at(struct json_object *o, const char *k, double *out)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v) ||
	    (!json_object_is_type(v, json_type_int) &&
	     !json_object_is_type(v, json_type_double)))
		return false;
	*out = json_object_get_double(v);
	return true;
}

/* fio's bins ({"ns": count}, its own log-linear buckets) into log2 slots
 * of ns; slot i holds [2^i, 2^(i+1)), the last everything above. */
static void bins_into(struct json_object *bins, unsigned long long *slots)
{
	json_object_object_foreach(bins, key, val)
	{
		unsigned long long ns = strtoull(key, NULL, 10);
		int64_t n = json_object_get_int64(val);
		int slot = ns ? 63 - __builtin_clzll(ns) : 0;

		if (n <= 0)
			continue;
		if (slot >= FIO_LOG2_SLOTS)
			slot = FIO_LOG2_SLOTS - 1;
		slots[slot] += (unsigned long long)n;
	}
}

/* root's "jobs" array, every job without error: 0, or -1 and why. */
static int fio_jobs(const char *text, struct json_object **root,
		    struct json_object **jobs, char *why, size_t len)
{
	double err = 0;

	*root = json_tokener_parse(text);
	if (!*root || !json_object_object_get_ex(*root, "jobs", jobs) ||
	    !json_object_is_type(*jobs, json_type_array) ||
	    !json_object_array_length(*jobs)) {
		snprintf(why, len, "fio's output is not its JSON (no jobs)");
		return -1;
	}
	for (size_t i = 0; i < json_object_array_length(*jobs); i++)
		if (num_at(json_object_array_get_idx(*jobs, i), "error",
			   &err) &&
		    err) {
			snprintf(why, len, "fio's job failed: error %d",
				 (int)err);
			return -1;
		}
	return 0;
}

/* One job entry's side into f: 1 when it did I/O, 0 when none, -1 when
 * a figure is missing. */
static int side_figures(struct json_object *job, const char *side,
			struct fio_figures *f, double *ios)
{
	struct json_object *s, *clat, *pct, *bins;
	double bw = 0, runtime_ms = 0;

	memset(f, 0, sizeof(*f));
	if (!json_object_object_get_ex(job, side, &s) ||
	    !num_at(s, "io_bytes", &f->io_bytes) ||
	    !num_at(s, "runtime", &runtime_ms))
		return -1;
	if (f->io_bytes <= 0 || runtime_ms <= 0)
		return 0;
	if (!json_object_object_get_ex(s, "clat_ns", &clat) ||
	    !json_object_object_get_ex(clat, "percentile", &pct) ||
	    !num_at(s, "bw_bytes", &bw) || !num_at(s, "iops", &f->iops) ||
	    !num_at(s, "total_ios", ios) ||
	    !num_at(clat, "mean", &f->clat_mean_us) ||
	    !num_at(pct, "50.000000", &f->clat_p50_us) ||
	    !num_at(pct, "99.000000", &f->clat_p99_us) ||
	    !num_at(pct, "99.900000", &f->clat_p999_us) ||
	    !num_at(clat, "N", &f->clat_n))
		return -1;
	f->clat_sum_ns = f->clat_mean_us * f->clat_n;
	if (json_object_object_get_ex(clat, "bins", &bins) &&
	    json_object_is_type(bins, json_type_object))
		bins_into(bins, f->clat_log2);
	f->mbps = bw / 1e6;
	f->runtime_s = runtime_ms / 1e3;
	f->clat_mean_us /= 1e3;
	f->clat_p50_us /= 1e3;
	f->clat_p99_us /= 1e3;
	f->clat_p999_us /= 1e3;
	return 1;
}

static double most(double a, double b)
{
	return a > b ? a : b;
}

/* Add clone c (ios I/Os) to the job's figures so far, out (n I/Os). */
static void add_clone(struct fio_figures *out, double n,
		      const struct fio_figures *c, double ios)
{
	out->clat_mean_us =
		n + ios > 0 ? (out->clat_mean_us * n + c->clat_mean_us * ios) /
				      (n + ios)
			    : 0;
	out->clat_n += c->clat_n;
	out->clat_sum_ns += c->clat_sum_ns;
	for (int i = 0; i < FIO_LOG2_SLOTS; i++)
		out->clat_log2[i] += c->clat_log2[i];
	out->mbps += c->mbps;
	out->iops += c->iops;
	out->io_bytes += c->io_bytes;
	out->runtime_s = most(out->runtime_s, c->runtime_s);
	out->clat_p50_us = most(out->clat_p50_us, c->clat_p50_us);
	out->clat_p99_us = most(out->clat_p99_us, c->clat_p99_us);
	out->clat_p999_us = most(out->clat_p999_us, c->clat_p999_us);
}

int fio_parse_job(const char *text, const char *name, bool read_side,
		  struct fio_figures *out, char *why, size_t len)
{
	const char *side = read_side ? "read" : "write";
	struct json_object *root = NULL, *jobs, *n;
	double ios_sum = 0;
	int rc = -1, found = 0;

	memset(out, 0, sizeof(*out));
	if (fio_jobs(text, &root, &jobs, why, len))
		goto cleanup;
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		struct json_object *job = json_object_array_get_idx(jobs, i);
		struct fio_figures c;
		double ios = 0;
		int got;

		if (name && (!json_object_object_get_ex(job, "jobname", &n) ||
			     strcmp(json_object_get_string(n), name)))
			continue;
		if (!name && i)
			break;
		found++;
		got = side_figures(job, side, &c, &ios);
		if (got < 0) {
			snprintf(why, len, "fio's JSON lacks the %s figures",
				 side);
			goto cleanup;
		}
		if (got)
			add_clone(out, ios_sum, &c, ios);
		ios_sum += ios;
	}
	if (!found) {
		snprintf(why, len, "fio's JSON has no job %s", name);
		goto cleanup;
	}
	if (out->io_bytes <= 0) {
		snprintf(why, len, "fio did no %s I/O", side);
		goto cleanup;
	}
	rc = 0;
cleanup:
	json_object_put(root);
	return rc;
}

int fio_parse_json(const char *text, bool read_side, struct fio_figures *out,
		   char *why, size_t len)
{
	return fio_parse_job(text, NULL, read_side, out, why, len);
}
