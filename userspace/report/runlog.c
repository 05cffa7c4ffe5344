// SPDX-License-Identifier: MIT
/*
 * run.log beside results.json: what a reader needs to repeat or judge the
 * run (parameters, kernel, cipher drivers, targets with their caveats) in
 * plain text.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

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
	return ferror(out) ? -ENOMEM : 0;
}

int report_write_runlog(const struct results *r, const char *dir)
{
	struct runlog arg = {r, dir};

	return report_write_built(dir, "run.log", build_runlog, &arg);
}
