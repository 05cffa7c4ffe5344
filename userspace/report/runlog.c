// SPDX-License-Identifier: MIT
/*
 * run.log beside results.json: what a reader needs to repeat or judge the
 * run (parameters, kernel, cipher drivers, targets with their caveats) in
 * plain text.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report_priv.h"
#include "report.h"

/* "key=value key=value": a workload's parameters as run.log and
 * report.html show them. */
void report_params_text(const struct param_list *l, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int k = 0; k < l->n && k < MAX_PARAMS && n < len; k++) {
		const struct param *p = &l->p[k];
		const char *sp = k ? " " : "";
		int w = 0;

		switch (p->kind) {
		case PARAM_INT:
			w = snprintf(buf + n, len - n, "%s%s=%lld", sp, p->key,
				     p->i);
			break;
		case PARAM_NUM:
			w = snprintf(buf + n, len - n, "%s%s=%g", sp, p->key,
				     p->num);
			break;
		case PARAM_BOOL:
			w = snprintf(buf + n, len - n, "%s%s=%s", sp, p->key,
				     p->i ? "yes" : "no");
			break;
		case PARAM_STR:
			w = snprintf(buf + n, len - n, "%s%s=%s", sp, p->key,
				     p->str);
			break;
		}
		n += w > 0 ? (size_t)w : 0;
	}
}

/* As bash's `time` prints it: 0m32.086s. */
static void print_time(FILE *out, const char *label, double s)
{
	int min = s > 0 ? (int)(s / 60) : 0;

	fprintf(out, "\t%-7s %dm%.3fs\n", label, min, s - 60.0 * min);
}

/* Did result b's runs come from the same timed children as a's (a
 * workload's metrics that share one child, as pgbench's)? */
static bool same_runs(const struct result *a, const struct result *b)
{
	size_t n = (size_t)a->rusage.nr_runs * sizeof(double);

	return a->rusage.nr_runs == b->rusage.nr_runs &&
	       !memcmp(a->rusage.run_real_s, b->rusage.run_real_s, n) &&
	       !memcmp(a->rusage.run_user_s, b->rusage.run_user_s, n) &&
	       !memcmp(a->rusage.run_sys_s, b->rusage.run_sys_s, n);
}

/* The LUKS report's "Raw Statistics": each run's real, user and system
 * time of the timed process, by workload and target. */
static void print_raw_runs(FILE *out, const struct results *r)
{
	fprintf(out, "\nraw per-run figures of the timed process (real, user, "
		     "sys as `time` shows them):\n");
	for (int w = 0; w < r->nr_workloads && w < MAX_WORKLOADS; w++) {
		const char *wl = r->workloads[w].name;

		for (int t = 0; t < r->nr_targets && t < MAX_TARGETS; t++) {
			const struct result *prev = NULL;

			for (int i = 0; i < r->nr_results && i < MAX_RESULTS;
			     i++) {
				const struct result *x = &r->results[i];
				int n = x->rusage.nr_runs;

				if (strcmp(x->workload, wl) ||
				    strcmp(x->target, r->targets[t].name) ||
				    n <= 0 || n > MAX_RAW_RUNS ||
				    (prev && same_runs(prev, x)))
					continue;
				prev = x;
				fprintf(out, "\n%s on %s (%s)\n", wl, x->target,
					x->metric.name);
				for (int k = 0; k < n; k++) {
					fprintf(out, "\nRun#%d\n", k + 1);
					print_time(out, "real",
						   x->rusage.run_real_s[k]);
					print_time(out, "user",
						   x->rusage.run_user_s[k]);
					print_time(out, "sys",
						   x->rusage.run_sys_s[k]);
				}
			}
		}
	}
}

struct runlog {
	const struct results *r;
	const char *dir;
};

static int build_runlog(FILE *out, const void *arg)
{
	const struct results *r = ((const struct runlog *)arg)->r;
	const char *dir = ((const struct runlog *)arg)->dir;
	const struct run_meta *m = &r->meta;
	const struct run_options *o = &m->options;
	char all[2048];

	fprintf(out, "encbench-trace run log\n\n");
	fprintf(out, "tool version:   %s\n", m->tool_version);
	fprintf(out, "started:        %s (took %.1f s)\n", m->started,
		m->duration_s);
	fprintf(out, "host:           %s\n", m->hostname);
	fprintf(out, "kernel:         %s (%s)\n", m->caps.kernel, m->caps.arch);
	fprintf(out, "cpu:            %s (AES instructions: %s)\n",
		m->cpu_model, m->caps.cpu_aes ? "yes" : "no");
	fprintf(out, "output folder:  %s\n", dir);
	fprintf(out, "scratch:        %s\n", o->scratch);
	fprintf(out, "file size:      %" PRIu64 " bytes\n", o->size_bytes);
	if (o->runs_auto)
		fprintf(out,
			"iterations:     auto (%d to %d, until every metric's "
			"standard error is under %g %%)\n",
			o->min_runs, o->max_runs, o->stable_pct);
	else
		fprintf(out, "iterations:     %d\n", o->runs);
	report_options_text(o, all, sizeof(all));
	fprintf(out, "all options:    %s\n", all);
	fprintf(out, "caches dropped: %s\n",
		m->dropped_caches ? "yes, before every read" : "no");
	fprintf(out, "tracing:        %s%s%s%s\n", m->tracing ? "on" : "off",
		m->tracing_detail[0] ? " (" : "", m->tracing_detail,
		m->tracing_detail[0] ? ")" : "");
	fprintf(out, "\ncipher drivers:\n");
	if (!m->caps.nr_ciphers)
		fprintf(out, "  (none found in /proc/crypto)\n");
	for (int i = 0; i < m->caps.nr_ciphers && i < MAX_CIPHERS; i++)
		fprintf(out, "  %-12s %-36s hardware: %s\n",
			m->caps.ciphers[i].name,
			m->caps.ciphers[i].driver[0] ? m->caps.ciphers[i].driver
						     : "(no driver)",
			m->caps.ciphers[i].hw_accel ? "yes" : "no");
	fprintf(out, "\ntargets (the first is the baseline):\n");
	for (int i = 0; i < r->nr_targets && i < MAX_TARGETS; i++)
		report_print_target(out, &r->targets[i], i == 0, true);
	fprintf(out, "\nworkloads:\n");
	for (int i = 0; i < r->nr_workloads && i < MAX_WORKLOADS; i++) {
		char text[2048];

		report_params_text(&r->workloads[i].params, text, sizeof(text));
		fprintf(out, "  %-12s %s\n", r->workloads[i].name, text);
	}
	print_raw_runs(out, r);
	return ferror(out) ? -ENOMEM : 0;
}

int report_write_runlog(const struct results *r, const char *dir)
{
	struct runlog arg = {r, dir};

	return report_write_built(dir, "run.log", build_runlog, &arg);
}
