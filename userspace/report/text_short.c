// SPDX-License-Identifier: MIT
/*
 * The first screen, for the reader who wants the answer (about 30 lines
 * for the default run): one header line (kernel, CPU, cipher drivers), one
 * line per target and per skipped kind, the results tables with penalties
 * and CIs and the ZFS report's sentences, the caveats, then one line per
 * headline verdict with its causes and their shares, and where the full
 * report is. Everything else is text.c's full report (report.txt).
 * It formats the model only: the verdicts' lines and which of them are
 * headlines come from the analysis (analysis/brief.c).
 */
#include <stdio.h>
#include <string.h>

#include "report_priv.h"
#include "report.h"

static void print_header(const struct results *r, FILE *out)
{
	const struct run_meta *m = &r->meta;

	fprintf(out,
		"encbench-trace %s on %s, kernel %s; CPU %s (AES instructions: %s)",
		m->tool_version, m->hostname, m->caps.kernel, m->cpu_model,
		m->caps.cpu_aes ? "yes" : "no");
	for (int i = 0; i < m->caps.nr_ciphers && i < MAX_CIPHERS; i++) {
		const struct cipher_info *c = &m->caps.ciphers[i];

		fprintf(out, "%s %s by %s (%s)",
			i ? "," : "; ciphers:", c->name,
			c->driver[0] ? c->driver : "no driver",
			c->hw_accel ? "hardware" : "software");
	}
	fprintf(out, "\n");
}

/* "fscrypt: fscrypt, ext4 on loop1; fscrypt v2 policy xts(aes) by
 * xts(ecb(aes-fixed-time)) (software); ciphertext on /dev/loop1". */
static void print_target(const struct target_info *t, bool baseline, FILE *out)
{
	fprintf(out, "  %s%s: %s, %s on", t->name,
		baseline ? " (baseline)" : "", t->kind, t->fs);
	for (int d = 0; d < t->nr_devices && d < MAX_DEVICES; d++)
		fprintf(out, "%s %s", d ? "," : "", t->devices[d].name);
	if (t->nr_devices <= 0)
		fprintf(out, " %s", t->mount);
	if (t->path[0])
		fprintf(out, " (your folder %s)", t->path);
	if (!t->encrypted)
		fprintf(out, "; not encrypted");
	else
		fprintf(out, "; %s %s by %s (%s)", t->encryption.scheme,
			t->encryption.contents_cipher,
			t->encryption.driver[0] ? t->encryption.driver
						: "an unknown driver",
			t->encryption.hw_accel ? "hardware" : "software");
	if (t->verification[0])
		fprintf(out, "; %s", t->verification);
	fprintf(out, "\n");
}

static void print_verdicts(const struct results *r, FILE *out, bool title)
{
	bool any = !title;

	for (int i = 0; i < r->nr_verdicts && i < MAX_ATTRIB; i++) {
		const struct verdict *v = &r->verdicts[i];

		if (!v->headline)
			continue;
		if (!any)
			fprintf(out, "\nVerdicts (the causes' shares: of the "
				     "time an op adds over the baseline, or of "
				     "its own)\n");
		any = true;
		/* A fio job traced apart is named: never one lumped "read". */
		fprintf(out, "%s%s, %s%s%s, %s: %s\n", title ? "  " : "",
			v->target, v->workload, v->job[0] ? " job " : "",
			v->job, op_name(v->op),
			v->brief[0] ? v->brief : v->summary);
	}
	if (title && !any && !r->meta.tracing)
		fprintf(out, "\nNo verdicts: attribution was off (%s)\n",
			r->meta.tracing_detail[0] ? r->meta.tracing_detail
						  : "--no-trace");
}

static void print_short(const struct results *r, FILE *out, const void *arg)
{
	const char *full_at = arg;

	print_header(r, out);
	report_print_observer_line(r, out);
	fprintf(out, "\nTargets\n");
	for (int i = 0; i < r->nr_targets && i < MAX_TARGETS; i++)
		print_target(&r->targets[i], i == 0, out);
	for (int i = 0; i < r->nr_skipped && i < MAX_TARGETS; i++)
		fprintf(out, "  %s: skipped: %s\n", r->skipped[i].kind,
			r->skipped[i].reason);
	/* tune: the ranking stands for the tables and the verdicts. */
	if (r->tune.on)
		report_print_tune(r, out);
	for (int w = 0; w < r->nr_workloads && w < MAX_WORKLOADS && !r->tune.on;
	     w++)
		report_print_workload(r, r->workloads[w].name, out, false);
	report_print_notes(r, "Caveats", out);
	if (!r->tune.on)
		print_verdicts(r, out, true);
	if (full_at && full_at[0])
		fprintf(out, "\nFull report: %s\n", full_at);
}

void report_print_short(const struct results *r, FILE *out, const char *full_at)
{
	report_print_safe(r, out, print_short, full_at);
}

void report_print_form(const struct results *r, FILE *out, bool full, bool hist,
		       const char *full_at)
{
	if (full || hist)
		report_print_text(r, out, hist);
	else
		report_print_short(r, out, full_at);
}

static void print_headlines(const struct results *r, FILE *out, const void *arg)
{
	(void)arg;
	print_verdicts(r, out, false);
}

void report_print_headlines(const struct results *r, FILE *out)
{
	report_print_safe(r, out, print_headlines, NULL);
}
