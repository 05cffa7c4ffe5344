// SPDX-License-Identifier: MIT
/*
 * The terminal report, for a reader who has never seen the program:
 *  (a) per workload, the LUKS report's table: rows are metrics, columns
 *      each target's mean, then penalty % and its 95 % CI per target;
 *  (b) per target and op, where the time goes, layer by layer
 *      (text_attrib.c);
 *  (c) latency histograms (text_hist.c);
 *  (d) verdicts, then every caveat the targets recorded.
 * That is report.txt, and the screen's with --verbose; the first screen
 * is text_short.c's.
 * It formats the model only; the one arithmetic done here is turning
 * rusage means into a penalty for display.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_priv.h"
#include "report.h"
#include "../common/fmt_ci.h"

#define COL_METRIC  16
#define COL_TARGET  16
#define COL_PENALTY 11
#define COL_CI	    18

/* Benchmark values: 31.242, 0.031, 4521.3, 0.000123. */
static const char *fmt_val(double v, char *buf, size_t len)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, len, "n/a");
	else if (a >= 1000)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 100)
		snprintf(buf, len, "%.1f", v);
	else if (a >= 0.01 || a == 0)
		snprintf(buf, len, "%.3f", v);
	else
		snprintf(buf, len, "%.3g", v);
	return buf;
}

/* A busy share in %: 2.8, 21.3, 100. */
static const char *fmt_cpu(double v, char *buf, size_t len)
{
	snprintf(buf, len, isfinite(v) ? "%.1f" : "n/a", v);
	return buf;
}

/* Counts come from other stages: never index past the array. */
static int nr_targets(const struct results *r)
{
	if (r->nr_targets < 0)
		return 0;
	return r->nr_targets < MAX_TARGETS ? r->nr_targets : MAX_TARGETS;
}

static int width(const char *s, int min)
{
	int n = (int)strlen(s) + 2;

	return n > min ? n : min;
}

static const struct result *find_result(const struct results *r,
					const char *target,
					const char *workload,
					const char *metric)
{
	for (int i = 0; i < r->nr_results && i < MAX_RESULTS; i++) {
		const struct result *x = &r->results[i];

		if (!strcmp(x->target, target) &&
		    !strcmp(x->workload, workload) &&
		    !strcmp(x->metric.name, metric))
			return x;
	}
	return NULL;
}

static const struct comparison *find_cmp(const struct results *r,
					 const char *target,
					 const char *workload,
					 const char *metric)
{
	for (int i = 0; i < r->nr_comparisons && i < MAX_RESULTS; i++) {
		const struct comparison *c = &r->comparisons[i];

		if (!strcmp(c->target, target) &&
		    !strcmp(c->workload, workload) &&
		    !strcmp(c->metric, metric))
			return c;
	}
	return NULL;
}

/* Column layout of the results tables, the same for every workload. */
struct table {
	int nt;
	int w_target[MAX_TARGETS], w_pen[MAX_TARGETS], w_ci[MAX_TARGETS];
	char pen[MAX_TARGETS][NAME_LEN + 16], ci[MAX_TARGETS][NAME_LEN + 16];
};

/* A line built cell by cell, printed without trailing blanks. */
struct row {
	char s[1024];
	size_t n;
};

static const char *cpu_text(const struct result *x, char *buf, size_t len);

static void table_init(const struct results *r, struct table *t)
{
	char text[64];

	t->nt = nr_targets(r);
	for (int k = 0; k < t->nt; k++) {
		t->w_target[k] = width(r->targets[k].name, COL_TARGET);
		/* Wide enough for the CPU summary, "97.2 (94.4-100.0)". */
		for (int i = 0; i < r->nr_results && i < MAX_RESULTS; i++)
			if (!strcmp(r->results[i].target, r->targets[k].name))
				t->w_target[k] =
					width(cpu_text(&r->results[i], text,
						       sizeof(text)),
					      t->w_target[k]);
		/* One compared target: short labels, as in the LUKS report. */
		if (t->nt > 2) {
			snprintf(t->pen[k], sizeof(t->pen[k]), "%s %%",
				 r->targets[k].name);
			snprintf(t->ci[k], sizeof(t->ci[k]), "%s 95%% CI",
				 r->targets[k].name);
		} else {
			snprintf(t->pen[k], sizeof(t->pen[k]), "penalty");
			snprintf(t->ci[k], sizeof(t->ci[k]), "95%% CI");
		}
		t->w_pen[k] = width(t->pen[k], COL_PENALTY);
		t->w_ci[k] = width(t->ci[k], COL_CI);
	}
}

/* Padded to w, and never run into the next cell: at least one blank. */
static void cell(struct row *row, int w, const char *text)
{
	int n, len = (int)strlen(text);

	if (row->n >= sizeof(row->s))
		return;
	if (len >= w)
		w = len + 1;
	n = snprintf(row->s + row->n, sizeof(row->s) - row->n, "%-*s", w, text);
	row->n += n > 0 ? (size_t)n : 0;
	row->n = row->n < sizeof(row->s) ? row->n : sizeof(row->s) - 1;
}

static void row_end(struct row *row, FILE *out)
{
	while (row->n && row->s[row->n - 1] == ' ')
		row->n--;
	row->s[row->n] = '\0';
	fprintf(out, "%s\n", row->s);
	row->n = 0;
}

static void print_header(const struct results *r, const struct table *t,
			 FILE *out)
{
	struct row row = {.n = 0};

	cell(&row, COL_METRIC, "metric");
	for (int k = 0; k < t->nt; k++)
		cell(&row, t->w_target[k], r->targets[k].name);
	for (int k = 1; k < t->nt; k++) {
		cell(&row, t->w_pen[k], t->pen[k]);
		cell(&row, t->w_ci[k], t->ci[k]);
	}
	row_end(&row, out);
}

static void print_metric_row(const struct results *r, const struct table *t,
			     const char *wl, const char *metric, FILE *out)
{
	char a[32], b[32], text[80], ci[FMT_CI_LEN];
	struct row row = {.n = 0};

	cell(&row, COL_METRIC, metric);
	for (int k = 0; k < t->nt; k++) {
		const struct result *x =
			find_result(r, r->targets[k].name, wl, metric);

		snprintf(text, sizeof(text), "-");
		if (x)
			snprintf(text, sizeof(text), "%s +-%s",
				 fmt_val(x->s.mean, a, sizeof(a)),
				 fmt_val(x->s.sd, b, sizeof(b)));
		cell(&row, t->w_target[k], text);
	}
	for (int k = 1; k < t->nt; k++) {
		const struct comparison *c =
			find_cmp(r, r->targets[k].name, wl, metric);

		snprintf(text, sizeof(text), "-");
		if (c && report_not_disk(c))
			snprintf(text, sizeof(text), "%s:", report_not_disk(c));
		else if (c)
			snprintf(text, sizeof(text), "%s%+.1f %%",
				 c->significant ? "" : "~", c->penalty_pct);
		cell(&row, t->w_pen[k], text);
		/* Served from memory: neither a penalty nor a CI of the disk.
		 */
		if (c && c->cached)
			snprintf(text, sizeof(text),
				 "not a disk figure (%.0f %% from the page "
				 "cache)",
				 c->cached_pct);
		else if (c && c->buffered)
			snprintf(text, sizeof(text),
				 "not a disk figure (writes timed into the "
				 "page cache)");
		else if (c && report_no_ci(c))
			/* One run on a side: "[+x, +x]" is no interval. */
			snprintf(text, sizeof(text), "no CI (one run)");
		else if (c)
			snprintf(text, sizeof(text), "%s%s",
				 fmt_ci(ci, sizeof(ci), c->penalty_ci95_pct, 1,
					true),
				 c->penalty_unbounded ? "" : " %");
		cell(&row, t->w_ci[k], text);
	}
	row_end(&row, out);
}

static double rusage_of(const struct result *x, int i)
{
	if (!x)
		return NAN;
	switch (i) {
	case 0:
		return x->rusage.real_s;
	case 1:
		return x->rusage.user_s;
	case 2:
		return x->rusage.sys_s;
	default:
		return x->cpu.avg;
	}
}

/* Phoronix's "CPU Usage (Summary)": avg (min-max) of the samples. */
static const char *cpu_text(const struct result *x, char *buf, size_t len)
{
	char a[16], lo[16], hi[16];

	if (!x)
		return "n/a";
	snprintf(buf, len, "%s (%s-%s)", fmt_cpu(x->cpu.avg, a, sizeof(a)),
		 fmt_cpu(x->cpu.min, lo, sizeof(lo)),
		 fmt_cpu(x->cpu.max, hi, sizeof(hi)));
	return buf;
}

/* Do metrics a and b of this workload come from the same timed children
 * on every target (pgbench's TPS and latency)? Their rows are shown
 * once. */
static bool same_child(const struct results *r, const struct table *t,
		       const char *wl, const char *a, const char *b)
{
	for (int k = 0; k < t->nt; k++) {
		const struct result *x = find_result(r, r->targets[k].name, wl,
						     a),
				    *y = find_result(r, r->targets[k].name, wl,
						     b);

		if (!x || !y ||
		    memcmp(&x->rusage, &y->rusage, sizeof(x->rusage)) ||
		    memcmp(&x->cpu, &y->cpu, sizeof(x->cpu)))
			return false;
	}
	return true;
}

/* The LUKS report's Elapsed/User/System, beneath the metric they belong
 * to. Only a point penalty: rusage is kept as per-run means. */
static bool print_rusage_rows(const struct results *r, const struct table *t,
			      const char *wl, const char *metric, FILE *out)
{
	static const char *const label[4] = {"  elapsed (s)", "  user (s)",
					     "  system (s)", "  cpu all (%)"};
	const struct result *x[MAX_TARGETS] = {NULL};
	struct row row = {.n = 0};
	char text[32];
	bool any = false;

	for (int k = 0; k < t->nt; k++) {
		x[k] = find_result(r, r->targets[k].name, wl, metric);
		for (int i = 0; i < 4; i++)
			any |= rusage_of(x[k], i) > 0;
	}
	for (int i = 0; any && i < 4; i++) {
		double base = rusage_of(x[0], i);

		cell(&row, COL_METRIC, label[i]);
		for (int k = 0; k < t->nt; k++)
			cell(&row, t->w_target[k],
			     i == 3 ? cpu_text(x[k], text, sizeof(text))
				    : fmt_val(rusage_of(x[k], i), text,
					      sizeof(text)));
		for (int k = 1; k < t->nt; k++) {
			double v = rusage_of(x[k], i);

			snprintf(text, sizeof(text), "-");
			if (base > 0 && isfinite(v))
				snprintf(text, sizeof(text), "%+.1f %%",
					 100.0 * (v - base) / base);
			cell(&row, t->w_pen[k], text);
			cell(&row, t->w_ci[k], "-");
		}
		row_end(&row, out);
	}
	return any;
}

/* The ZFS report's sentence for each op a workload times (dd's reads
 * and writes, copy's copies): "... between a % and b % slower ...". */
static void print_sentences(const struct results *r, const char *wl,
			    const char *const *metrics, int nm, FILE *out)
{
	char line[1024];

	for (int m = 0; m < nm; m++) {
		if (!report_metric_is_op(metrics[m]))
			continue;
		for (int k = 1; k < nr_targets(r); k++) {
			const struct comparison *c =
				find_cmp(r, r->targets[k].name, wl, metrics[m]);
			const struct result *b =
				c ? find_result(r, c->baseline, wl, metrics[m])
				  : NULL;

			if (!b)
				continue;
			report_sentence(c, b, line, sizeof(line));
			fprintf(out, "%s\n", line);
		}
	}
}

/* Some comparison of wl is not a disk figure (cached, buffered). */
static bool any_not_disk(const struct results *r, const char *wl)
{
	for (int i = 0; i < r->nr_comparisons && i < MAX_RESULTS; i++)
		if (!strcmp(r->comparisons[i].workload, wl) &&
		    report_not_disk(&r->comparisons[i]))
			return true;
	return false;
}

/* The figures of wl are untraced iterations, traced ones apart. */
static bool traced_apart(const struct results *r, const char *wl)
{
	for (int i = 0; i < r->nr_results && i < MAX_RESULTS; i++)
		if (!strcmp(r->results[i].workload, wl) &&
		    r->results[i].nr_traced > 0)
			return true;
	return false;
}

/* Was x's split said already, by an earlier metric of its target and job
 * (they share the iterations)? */
static bool split_said(const struct results *r, int i)
{
	const struct result *x = &r->results[i];

	for (int k = 0; k < i; k++) {
		const struct result *y = &r->results[k];

		if (y->nr_cached > 0 && !strcmp(y->workload, x->workload) &&
		    !strcmp(y->target, x->target) && !strcmp(y->job, x->job))
			return true;
	}
	return false;
}

/* The iterations split off wl's read figures as cached
 * (result_split_cached), once per target and job: "fscrypt randread_4k:
 * iterations 4, 5 of 5 read over 10 % from the page cache: ...". The
 * job's verdict says it too, but a run without tracing has none. */
static void print_split(const struct results *r, const char *wl, FILE *out)
{
	for (int i = 0; i < r->nr_results && i < MAX_RESULTS; i++) {
		const struct result *x = &r->results[i];
		int n = x->nr_cached < MAX_CACHED_SAMPLES ? x->nr_cached
							  : MAX_CACHED_SAMPLES;
		char which[DETAIL_LEN] = "";

		if (x->nr_cached <= 0 || strcmp(x->workload, wl) ||
		    split_said(r, i))
			continue;
		for (int c = 0; c < n; c++) {
			size_t l = strlen(which);

			snprintf(which + l, sizeof(which) - l, "%s%d",
				 c ? ", " : "", x->cached_iteration[c]);
		}
		fprintf(out,
			"%s%s%s: iteration%s %s of %d read over %.0f %% from the "
			"page cache: not disk samples, left out of the "
			"figures\n",
			x->target, x->job[0] ? " " : "", x->job,
			x->nr_cached > 1 ? "s" : "", which,
			x->nr_cached + x->nr_samples, CACHED_PCT_MAX);
	}
}

void report_print_workload(const struct results *r, const char *wl, FILE *out,
			   bool full)
{
	const char *metrics[MAX_METRICS];
	int nm = 0, nmin = MAX_SAMPLES, nmax = 0;
	bool rusage = false;
	struct table t;

	for (int i = 0; i < r->nr_results && i < MAX_RESULTS; i++) {
		const struct result *x = &r->results[i];
		bool seen = false;

		if (strcmp(x->workload, wl))
			continue;
		nmin = x->nr_samples < nmin ? x->nr_samples : nmin;
		nmax = x->nr_samples > nmax ? x->nr_samples : nmax;
		for (int k = 0; k < nm && !seen; k++)
			seen = !strcmp(metrics[k], x->metric.name);
		if (!seen && nm < MAX_METRICS)
			metrics[nm++] = x->metric.name;
	}
	if (!nm)
		return;
	if (nmin == nmax)
		fprintf(out, "\n%s: mean +- sd of %d%s runs per target%s\n", wl,
			nmax, traced_apart(r, wl) ? " untraced" : "",
			traced_apart(r, wl) ? " (traced ones apart)" : "");
	else
		fprintf(out,
			"\n%s: mean +- sd of %d to %d%s runs per target%s\n",
			wl, nmin, nmax, traced_apart(r, wl) ? " untraced" : "",
			traced_apart(r, wl) ? " (traced ones apart)" : "");
	table_init(r, &t);
	print_header(r, &t, out);
	for (int k = 0; k < nm; k++) {
		print_metric_row(r, &t, wl, metrics[k], out);
		if (full &&
		    (!k || !same_child(r, &t, wl, metrics[k - 1], metrics[k])))
			rusage |= print_rusage_rows(r, &t, wl, metrics[k], out);
	}
	print_split(r, wl, out);
	if (nr_targets(r) < 2)
		return;
	if (!full) {
		fprintf(out,
			"penalty: how much worse than %s (positive = worse), "
			"95%% CI of the ratio of means (Fieller); ~ not "
			"significant (Welch's t-test)\n",
			r->targets[0].name);
		print_sentences(r, wl, metrics, nm, out);
		return;
	}
	fprintf(out,
		"penalty: how much worse than %s, positive = worse (more time,"
		" or less\nthroughput counted as more time per unit of work)."
		" 95%% CI: Fieller's for the ratio of\nthe means, both means' "
		"errors in it (Welch's df); unbounded where the baseline's\n"
		"mean is not told from 0. ~ marks a difference that is not "
		"significant\n(Welch's t-test: the CI includes 0).\n",
		r->targets[0].name);
	if (any_not_disk(r, wl))
		fprintf(out,
			"cached: more than %.0f %% of the bytes read came "
			"from the page cache; buffered: writes\ntimed into "
			"the page cache (no direct I/O on the target). "
			"Neither is a disk figure:\nno penalty is claimed "
			"(the job's verdict tells what it measured).\n",
			CACHED_PCT_MAX);
	if (rusage)
		fprintf(out, "elapsed/user/system: per-run means from "
			     "getrusage of the timed process, without a CI;\n"
			     "cpu all: busy share of all CPUs while it ran "
			     "(kworkers doing crypto included),\n"
			     "mean (min-max) of samples every 250 ms, as "
			     "Phoronix's CPU Usage (Summary).\n");
	print_sentences(r, wl, metrics, nm, out);
}

void report_print_target(FILE *out, const struct target_info *t, bool baseline,
			 bool notes)
{
	fprintf(out, "  %s%s: %s, %s on %s\n", t->name,
		baseline ? " (baseline)" : "", t->kind, t->fs, t->mount);
	if (t->path[0])
		fprintf(out, "    your folder %s (its stack detected)\n",
			t->path);
	if (t->dir[0] && strcmp(t->dir, t->mount))
		fprintf(out, "    files in %s\n", t->dir);
	fprintf(out, "    devices:");
	for (int d = 0; d < t->nr_devices && d < MAX_DEVICES; d++)
		fprintf(out, "%s %s %u:%u (%s)", d ? "," : "",
			t->devices[d].name, t->devices[d].major,
			t->devices[d].minor, t->devices[d].role);
	fprintf(out, "%s\n", t->nr_devices > 0 ? "" : " none recorded");
	if (!t->encrypted) {
		fprintf(out, "    encryption: none\n");
	} else {
		fprintf(out, "    encryption: %s, contents %s",
			t->encryption.scheme, t->encryption.contents_cipher);
		if (t->encryption.names_cipher[0])
			fprintf(out, ", names %s", t->encryption.names_cipher);
		fprintf(out, ", %d-bit key", t->encryption.key_bits);
		if (t->encryption.sector_size)
			fprintf(out, ", %d-byte sectors, flags %s",
				t->encryption.sector_size, t->encryption.flags);
		fprintf(out, "\n");
		fprintf(out,
			"    done by %s (hardware-accelerated: %s); verified "
			"encrypted on disk: %s\n",
			t->encryption.driver[0] ? t->encryption.driver
						: "an unknown driver",
			t->encryption.hw_accel ? "yes" : "no",
			t->verified_encrypted ? "yes" : "no");
	}
	if (t->verification[0])
		fprintf(out, "    verification: %s\n", t->verification);
	for (int i = 0; notes && i < t->nr_notes && i < MAX_NOTES; i++)
		fprintf(out, "    note: %s\n", t->notes[i]);
}

/* "fio", or "fio job seq-read (rw=read bs=4k iodepth=4 ...)": a part of
 * a workload traced apart, as its parameters describe it. */
static const char *workload_label(const struct results *r, const char *wl,
				  const char *job, char *buf, size_t len)
{
	const struct param *p;
	char key[NAME_LEN];

	snprintf(buf, len, "%s", wl);
	if (!job[0])
		return buf;
	snprintf(buf, len, "%s job %s", wl, job);
	snprintf(key, sizeof(key), "job %s", job);
	p = results_param(r, wl, key);
	if (p)
		snprintf(buf, len, "%s job %s (%s)", wl, job, p->str);
	return buf;
}

bool report_noted_before(const struct results *r, int target, const char *note)
{
	for (int i = 0; i < target; i++)
		for (int n = 0; n < r->targets[i].nr_notes && n < MAX_NOTES;
		     n++)
			if (!strcmp(r->targets[i].notes[n], note))
				return true;
	return false;
}

void report_print_notes(const struct results *r, const char *heading, FILE *out)
{
	bool any = false;

	for (int i = 0; i < r->nr_targets && i < MAX_TARGETS; i++) {
		const struct target_info *t = &r->targets[i];

		for (int n = 0; n < t->nr_notes && n < MAX_NOTES; n++) {
			if (r->tune.on &&
			    report_noted_before(r, i, t->notes[n]))
				continue;
			if (!any)
				fprintf(out, "\n%s\n", heading);
			any = true;
			fprintf(out, "  %s: %s\n", t->name, t->notes[n]);
		}
	}
}

static void print_closing(const struct results *r, FILE *out)
{
	char label[DETAIL_LEN + 2 * NAME_LEN];

	/* tune: the ranking says it per variant; results.json has them. */
	if (r->nr_verdicts > 0 && !r->tune.on)
		fprintf(out, "\nVerdicts\n");
	for (int i = 0; i < r->nr_verdicts && i < MAX_ATTRIB && !r->tune.on;
	     i++) {
		const struct verdict *v = &r->verdicts[i];

		fprintf(out, "  %s, %s, %s: %s\n", v->target,
			workload_label(r, v->workload, v->job, label,
				       sizeof(label)),
			op_name(v->op), v->summary);
		for (int e = 0; e < v->nr_evidence && e < MAX_EVIDENCE; e++)
			fprintf(out, "    - %s\n", v->evidence[e]);
	}
	report_print_notes(r, "Notes and caveats", out);
}

static void print_text(const struct results *r, FILE *out, bool histograms)
{
	const struct run_meta *m = &r->meta;

	fprintf(out, "encbench-trace %s on %s, kernel %s, started %s\n",
		m->tool_version, m->hostname, m->caps.kernel, m->started);
	fprintf(out, "CPU: %s (AES instructions: %s)\n", m->cpu_model,
		m->caps.cpu_aes ? "yes" : "no");
	fprintf(out, "Page cache dropped before reads: %s\n",
		m->dropped_caches ? "yes" : "no");
	report_print_observer_warning(r, out);
	fprintf(out, "\nTargets\n");
	for (int i = 0; i < r->nr_targets && i < MAX_TARGETS; i++)
		if (r->tune.on) /* one line each: run.log has the rest */
			fprintf(out, "  %s: %s%s%s\n", r->targets[i].name,
				r->targets[i].verification,
				r->targets[i].encryption.driver[0] ? ", by "
								   : "",
				r->targets[i].encryption.driver);
		else
			report_print_target(out, &r->targets[i], i == 0, false);
	for (int i = 0; i < r->nr_skipped && i < MAX_TARGETS; i++)
		fprintf(out, "  %s: skipped: %s\n", r->skipped[i].kind,
			r->skipped[i].reason);

	if (r->tune.on) {
		/* Per variant, the tables are in results.json and run.log. */
		report_print_tune(r, out);
		print_closing(r, out);
		return;
	}
	fprintf(out, "\nResults\n");
	for (int w = 0; w < r->nr_workloads && w < MAX_WORKLOADS; w++)
		report_print_workload(r, r->workloads[w].name, out, true);

	report_print_attribution(r, out);
	report_print_observer(r, out);
	report_print_costs(r, out);
	if (histograms)
		report_print_histograms(r, out);
	print_closing(r, out);
}

/* Every string may come from a file someone handed us: the whole text is
 * made first, then escaped on its way to the terminal. */
void report_print_safe(const struct results *r, FILE *out,
		       void (*print)(const struct results *r, FILE *out,
				     const void *arg),
		       const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return;
	print(r, mem, arg);
	if (fclose(mem) == 0)
		report_put_safe(out, text, len);
	free(text);
}

static void print_full(const struct results *r, FILE *out, const void *arg)
{
	print_text(r, out, *(const bool *)arg);
}

void report_print_text(const struct results *r, FILE *out, bool histograms)
{
	report_print_safe(r, out, print_full, &histograms);
}

static int build_text(FILE *out, const void *arg)
{
	report_print_text(arg, out, true);
	return ferror(out) ? -ENOMEM : 0;
}

int report_write_text(const struct results *r, const char *dir)
{
	return report_write_built(dir, "report.txt", build_text, r);
}
