// SPDX-License-Identifier: MIT
/*
 * fio's JSON output (`fio --output-format=json`, fio 3.x), read with
 * json-c for the fio workload: one job's read or write side, or the
 * totals of every job a job file ran.
 */
#include <stdio.h>
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

int fio_parse_json(const char *text, bool read_side, struct fio_figures *out,
		   char *why, size_t len)
{
	const char *side = read_side ? "read" : "write";
	struct json_object *root = NULL, *jobs, *job, *s, *clat, *pct;
	double bw = 0, runtime_ms = 0;
	int rc = -1;

	if (fio_jobs(text, &root, &jobs, why, len))
		goto cleanup;
	job = json_object_array_get_idx(jobs, 0);
	if (!json_object_object_get_ex(job, side, &s) ||
	    !num_at(s, "io_bytes", &out->io_bytes) ||
	    !num_at(s, "runtime", &runtime_ms)) {
		snprintf(why, len, "fio's JSON has no %s side", side);
		goto cleanup;
	}
	if (out->io_bytes <= 0 || runtime_ms <= 0) {
		snprintf(why, len, "fio did no %s I/O", side);
		goto cleanup;
	}
	if (!json_object_object_get_ex(s, "clat_ns", &clat) ||
	    !json_object_object_get_ex(clat, "percentile", &pct) ||
	    !num_at(s, "bw_bytes", &bw) || !num_at(s, "iops", &out->iops) ||
	    !num_at(clat, "mean", &out->clat_mean_us) ||
	    !num_at(pct, "50.000000", &out->clat_p50_us) ||
	    !num_at(pct, "99.000000", &out->clat_p99_us) ||
	    !num_at(pct, "99.900000", &out->clat_p999_us)) {
		snprintf(why, len, "fio's JSON lacks the %s figures", side);
		goto cleanup;
	}
	out->mbps = bw / 1e6;
	out->runtime_s = runtime_ms / 1e3;
	out->clat_mean_us /= 1e3;
	out->clat_p50_us /= 1e3;
	out->clat_p99_us /= 1e3;
	out->clat_p999_us /= 1e3;
	rc = 0;
cleanup:
	json_object_put(root);
	return rc;
}

int fio_parse_totals(const char *text, struct fio_figures *out, char *why,
		     size_t len)
{
	static const char *const sides[] = {"read", "write", "trim"};
	struct json_object *root = NULL, *jobs, *s, *clat;
	double ios = 0, clat_sum = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (fio_jobs(text, &root, &jobs, why, len))
		goto cleanup;
	for (size_t i = 0; i < json_object_array_length(jobs); i++)
		for (size_t k = 0; k < 3; k++) {
			struct json_object *job =
				json_object_array_get_idx(jobs, i);
			double v[6] = {0};

			/* io_bytes, bw_bytes, iops, total_ios, runtime, mean */
			if (!json_object_object_get_ex(job, sides[k], &s))
				continue;
			if (!num_at(s, "io_bytes", &v[0]) || !v[0])
				continue;
			if (!num_at(s, "bw_bytes", &v[1]) ||
			    !num_at(s, "iops", &v[2]) ||
			    !num_at(s, "total_ios", &v[3]) ||
			    !num_at(s, "runtime", &v[4]) ||
			    !json_object_object_get_ex(s, "clat_ns", &clat) ||
			    !num_at(clat, "mean", &v[5])) {
				snprintf(why, len,
					 "fio's JSON lacks a job's %s figures",
					 sides[k]);
				goto cleanup;
			}
			out->io_bytes += v[0];
			out->mbps += v[1] / 1e6;
			out->iops += v[2];
			ios += v[3];
			if (v[4] / 1e3 > out->runtime_s)
				out->runtime_s = v[4] / 1e3;
			clat_sum += v[5] / 1e3 * v[3];
		}
	if (out->io_bytes <= 0 || ios <= 0) {
		snprintf(why, len, "fio's jobs did no I/O");
		goto cleanup;
	}
	out->clat_mean_us = clat_sum / ios;
	rc = 0;
cleanup:
	json_object_put(root);
	return rc;
}
