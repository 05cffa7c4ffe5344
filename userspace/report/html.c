// SPDX-License-Identifier: MIT
/*
 * report.html: one page that opens offline and reads without the terminal.
 * Text sections (verdicts, penalties, CPU, parameters) are written here,
 * every string HTML-escaped; the charts are drawn in the browser by
 * Chart.js (Debian's libjs-chart.js, inlined) from the results.json
 * documents embedded as JSON data, '<', '>' and '&' escaped as \uXXXX so
 * that no string can end the script element. It formats the model only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_priv.h"
#include "report.h"

#define CHARTJS_PATH "/usr/share/javascript/chart.js/chart.min.js"

extern const char report_html_css[], report_html_js[]; /* html_assets.c */

void report_html_escape(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			/* Control characters have no place in the text. */
			if (c < 0x20 && c != '\n' && c != '\t')
				fputs("&#xFFFD;", out);
			else
				fputc(c, out);
		}
	}
}

/* out gets "<tag>escaped text</tag>". */
static void tag(FILE *out, const char *t, const char *text)
{
	fprintf(out, "<%s>", t);
	report_html_escape(out, text);
	fprintf(out, "</%s>", t);
}

/* JSON text inside <script type="application/json">: outside strings JSON
 * has none of these characters, inside them \uXXXX means the same. */
static void json_for_script(FILE *out, const char *json)
{
	for (; *json; json++) {
		if (*json == '<' || *json == '>' || *json == '&')
			fprintf(out, "\\u%04x", (unsigned char)*json);
		else
			fputc(*json, out);
	}
}

static int write_data(FILE *out, const struct results *const *runs, int n)
{
	struct json_object *a = json_object_new_array();
	int err = 0;

	for (int i = 0; a && i < n; i++)
		err |= jappend(a, report_results_json(runs[i]));
	if (!a || err) {
		json_object_put(a);
		return -ENOMEM;
	}
	fputs("<script type=\"application/json\" id=\"encbench-data\">", out);
	json_for_script(out,
			json_object_to_json_string_ext(
				a, JSON_C_TO_STRING_PLAIN |
					   JSON_C_TO_STRING_NOSLASHESCAPE));
	fputs("</script>\n", out);
	json_object_put(a);
	return 0;
}

/* Chart.js as Debian ships it, or NULL (the page then says so). */
static char *load_chartjs(void)
{
	FILE *f = fopen(CHARTJS_PATH, "re");
	char *text = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (text = malloc(len + 1))) {
		if (fread(text, 1, len, f) != (size_t)len) {
			free(text);
			text = NULL;
		} else {
			text[len] = '\0';
		}
	}
	fclose(f);
	/* It would end our script element early: refuse it. */
	if (text && strcasestr(text, "</script")) {
		free(text);
		text = NULL;
	}
	return text;
}

static void write_head(FILE *out, const struct results *const *runs, int n)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, "
	      "initial-scale=1\">\n<title>",
	      out);
	fputs("encbench-trace: ", out);
	for (int i = 0; i < n; i++) {
		fputs(i ? ", " : "", out);
		report_html_escape(out, runs[i]->meta.hostname);
	}
	fputs("</title>\n<style>\n", out);
	fputs(report_html_css, out);
	fputs("</style>\n</head>\n<body>\n", out);
}

static void write_header(FILE *out, const struct results *const *runs, int n)
{
	fputs("<header><h1>What disk encryption costs here</h1>\n", out);
	for (int i = 0; i < n; i++) {
		const struct run_meta *m = &runs[i]->meta;
		char buf[DETAIL_LEN * 2];

		snprintf(buf, sizeof(buf),
			 "%s, kernel %s, %s (AES instructions: %s); run "
			 "started %s, took %.0f s; encbench-trace %s",
			 m->hostname, m->caps.kernel, m->cpu_model,
			 m->caps.cpu_aes ? "yes" : "no", m->started,
			 m->duration_s, m->tool_version);
		tag(out, "p", buf);
		report_html_observer_warning(out, runs[i]);
	}
	fputs("</header>\n", out);
}

static void write_verdicts(FILE *out, const struct results *const *runs, int n)
{
	/* tune: one per variant and op would bury the ranking; the
	 * ranking's stacked wait split says why per variant. */
	if (n == 1 && runs[0]->tune.on)
		return;
	fputs("<section id=\"verdicts\"><h2>Verdicts</h2>\n", out);
	for (int i = 0; i < n; i++) {
		const struct results *r = runs[i];

		if (!r->meta.tracing) {
			fputs("<p class=\"off\">Attribution is off", out);
			if (n > 1) {
				fputs(" on ", out);
				report_html_escape(out, r->meta.hostname);
			}
			fputs(": ", out);
			report_html_escape(out, r->meta.tracing_detail);
			fputs(". The benchmark ran without it.</p>\n", out);
			continue;
		}
		fputs("<ul class=\"verdicts\">\n", out);
		for (int v = 0; v < r->nr_verdicts && v < MAX_ATTRIB; v++) {
			const struct verdict *vd = &r->verdicts[v];
			char who[NAME_LEN * 4 + 40];

			snprintf(who, sizeof(who), "%s%s%s, %s%s%s, %s",
				 n > 1 ? r->meta.hostname : "",
				 n > 1 ? " " : "", vd->target, vd->workload,
				 vd->job[0] ? " job " : "", vd->job,
				 op_name(vd->op));
			/* The baseline's own bounds are context: grey. */
			fputs(strcmp(vd->target, r->targets[0].name)
				      ? "<li>"
				      : "<li class=\"baseline\">",
			      out);
			tag(out, "strong", who);
			fputs(" <span class=\"summary\">", out);
			report_html_escape(out, vd->summary);
			/* The sentences are what a reader takes in first; the
			 * figures behind each open on a click. */
			fprintf(out,
				"</span>\n<details><summary>the evidence (%d)"
				"</summary><ul>",
				vd->nr_evidence);
			for (int e = 0; e < vd->nr_evidence && e < MAX_EVIDENCE;
			     e++)
				tag(out, "li", vd->evidence[e]);
			fputs("</ul></details></li>\n", out);
		}
		fputs("</ul>\n", out);
	}
	fputs("</section>\n", out);
}

static void write_chart_sections(FILE *out, bool charts)
{
	if (!charts)
		fputs("<p class=\"off\">No charts: Chart.js was not found "
		      "at " CHARTJS_PATH
		      " (Debian package libjs-chart.js). The "
		      "tables below and results.json hold every "
		      "figure.</p>\n",
		      out);
	fputs("<section id=\"tune\"><h2>Tune: the variants ranked</h2>\n"
	      "<p>One bar per variant: its penalty against plain on the "
	      "ranking score, the whisker its 95 % interval (Fieller); then "
	      "the time each adds per call, stacked by what the caller "
	      "waited for.</p>\n<div class=\"charts\" id=\"tune-charts\">"
	      "</div></section>\n",
	      out);
	fputs("<section id=\"comparison\"><h2>Comparison</h2>\n"
	      "<p>One bar per target: the mean of its iterations, the "
	      "whisker its 95 % confidence interval; the baseline is grey "
	      "(pale in its host's colour when hosts are merged). "
	      "Penalties are against the baseline, with the 95 % interval "
	      "of the ratio of the means (Fieller's: both means' errors in "
	      "it), unbounded where the baseline's mean is not told from "
	      "0.</p>\n<div class=\"charts\" id=\"cmp-charts\">"
	      "</div></section>\n"
	      "<section id=\"iterations\"><h2>Every iteration</h2>\n"
	      "<div class=\"charts\" id=\"iter-charts\"></div></section>\n"
	      "<section id=\"where\"><h2>Where the time goes</h2>\n"
	      "<div class=\"charts\" id=\"where-charts\"></div></section>\n"
	      "<section id=\"histograms\"><h2>Latency histograms</h2>\n"
	      "<p>Per layer, the share of items in each power-of-two "
	      "latency range.</p>\n"
	      "<div class=\"charts\" id=\"hist-charts\"></div></section>\n",
	      out);
}

static void cell_f(FILE *out, const char *fmt, double v)
{
	fprintf(out, "<td class=\"num\">");
	fprintf(out, fmt, v);
	fprintf(out, "</td>");
}

static void write_cpu(FILE *out, const struct results *const *runs, int n)
{
	fputs("<section id=\"cpu\"><h2>CPU usage</h2>\n"
	      "<p>Busy share of all CPUs while the timed process ran "
	      "(kworkers doing the encryption included), over the "
	      "iterations; elapsed, user and system time of the timed "
	      "process are per-iteration means.</p>\n<table>\n<tr>",
	      out);
	if (n > 1)
		fputs("<th>host</th>", out);
	fputs("<th>workload</th><th>metric</th><th>target</th>"
	      "<th>CPU min %</th><th>avg %</th><th>max %</th>"
	      "<th>elapsed s</th><th>user s</th><th>system s</th></tr>\n",
	      out);
	for (int i = 0; i < n; i++) {
		const struct results *r = runs[i];

		for (int k = 0; k < r->nr_results && k < MAX_RESULTS; k++) {
			const struct result *x = &r->results[k];

			fputs("<tr>", out);
			if (n > 1)
				tag(out, "td", r->meta.hostname);
			tag(out, "td", x->workload);
			tag(out, "td", x->metric.name);
			tag(out, "td", x->target);
			cell_f(out, "%.1f", x->cpu.min);
			cell_f(out, "%.1f", x->cpu.avg);
			cell_f(out, "%.1f", x->cpu.max);
			cell_f(out, "%.3f", x->rusage.real_s);
			cell_f(out, "%.3f", x->rusage.user_s);
			cell_f(out, "%.3f", x->rusage.sys_s);
			fputs("</tr>\n", out);
		}
	}
	fputs("</table></section>\n", out);
}

static void write_target(FILE *out, const struct target_info *t, bool base)
{
	char buf[DETAIL_LEN * 2];
	int k = 0;

	fputs("<tr>", out);
	snprintf(buf, sizeof(buf), "%s%s", t->name, base ? " (baseline)" : "");
	tag(out, "td", buf);
	tag(out, "td", t->kind);
	tag(out, "td", t->fs);
	buf[0] = '\0';
	for (int d = 0; d < t->nr_devices && d < MAX_DEVICES; d++)
		k += snprintf(buf + k, sizeof(buf) - k, "%s%s %u:%u (%s)",
			      d ? ", " : "", t->devices[d].name,
			      t->devices[d].major, t->devices[d].minor,
			      t->devices[d].role);
	tag(out, "td", buf);
	if (t->encrypted)
		snprintf(buf, sizeof(buf),
			 "%s, contents %s%s%s, %d-bit key; driver %s "
			 "(hardware: %s); verified on disk: %s",
			 t->encryption.scheme, t->encryption.contents_cipher,
			 t->encryption.names_cipher[0] ? ", names " : "",
			 t->encryption.names_cipher, t->encryption.key_bits,
			 t->encryption.driver[0] ? t->encryption.driver
						 : "unknown",
			 t->encryption.hw_accel ? "yes" : "no",
			 t->verified_encrypted ? "yes" : "no");
	else
		snprintf(buf, sizeof(buf), "none");
	tag(out, "td", buf);
	tag(out, "td", t->verification);
	fputs("</tr>\n", out);
}

static void write_run_params(FILE *out, const struct results *r, bool multi)
{
	const struct capabilities *c = &r->meta.caps;
	char options[2048];

	if (multi)
		tag(out, "h3", r->meta.hostname);
	fputs("<table class=\"kv\">\n<tr><th>options</th><td><code>", out);
	report_options_text(&r->meta.options, options, sizeof(options));
	report_html_escape(out, options);
	fputs("</code></td></tr>\n", out);
	for (int w = 0; w < r->nr_workloads && w < MAX_WORKLOADS; w++) {
		char params[2048];

		report_params_text(&r->workloads[w].params, params,
				   sizeof(params));
		fputs("<tr>", out);
		tag(out, "th", r->workloads[w].name);
		fputs("<td><code>", out);
		report_html_escape(out, params);
		fputs("</code></td></tr>\n", out);
	}
	fputs("<tr><th>kernel</th>", out);
	tag(out, "td", c->kernel);
	fputs("</tr>\n<tr><th>page cache dropped before reads</th>", out);
	tag(out, "td", r->meta.dropped_caches ? "yes" : "no");
	fputs("</tr>\n", out);
	for (int i = 0; i < c->nr_ciphers && i < MAX_CIPHERS; i++) {
		char buf[NAME_LEN * 2 + 64];

		snprintf(buf, sizeof(buf), "%s%s%s",
			 c->ciphers[i].driver[0] ? c->ciphers[i].driver
						 : "no driver",
			 c->ciphers[i].hw_accel ? ", hardware-accelerated" : "",
			 c->ciphers[i].predicted ? ", predicted" : "");
		fputs("<tr><th>cipher ", out);
		report_html_escape(out, c->ciphers[i].name);
		fputs("</th>", out);
		tag(out, "td", buf);
		fputs("</tr>\n", out);
	}
	for (int l = 0; l < NR_LAYERS; l++) {
		fputs("<tr><th>layer ", out);
		report_html_escape(out, layer_name(l));
		fputs("</th>", out);
		tag(out, "td", c->layer_sources[l]);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n<table>\n<tr><th>target</th><th>kind</th><th>fs</th>"
	      "<th>devices</th><th>encryption</th><th>verification</th></tr>\n",
	      out);
	for (int t = 0; t < r->nr_targets && t < MAX_TARGETS; t++)
		write_target(out, &r->targets[t], t == 0);
	fputs("</table>\n<ul class=\"notes\">", out);
	for (int t = 0; t < r->nr_targets && t < MAX_TARGETS; t++)
		for (int k = 0; k < r->targets[t].nr_notes && k < MAX_NOTES;
		     k++) {
			char buf[NAME_LEN + DETAIL_LEN + 8];

			snprintf(buf, sizeof(buf), "%s: %s", r->targets[t].name,
				 r->targets[t].notes[k]);
			tag(out, "li", buf);
		}
	fputs("</ul>\n", out);
}

static int write_page(FILE *out, const struct results *const *runs, int n)
{
	char *chartjs = load_chartjs();
	int err;

	if (!chartjs)
		fprintf(stderr,
			"encbench-trace: report.html has no charts: no usable " CHARTJS_PATH
			" (Debian package libjs-chart.js)\n");
	write_head(out, runs, n);
	write_header(out, runs, n);
	write_verdicts(out, runs, n);
	write_chart_sections(out, chartjs != NULL);
	write_cpu(out, runs, n);
	report_html_costs(out, runs, n);
	fputs("<section id=\"params\"><h2>Parameters, kernel, cipher "
	      "drivers and targets</h2>\n",
	      out);
	for (int i = 0; i < n; i++)
		write_run_params(out, runs[i], n > 1);
	fputs("</section>\n<footer>Written by encbench-trace; charts by "
	      "Chart.js (MIT), inlined: this page needs no network."
	      "</footer>\n",
	      out);
	err = write_data(out, runs, n);
	if (!err && chartjs) {
		fputs("<script>\n", out);
		fputs(chartjs, out);
		fputs("\n</script>\n<script>\n", out);
		fputs(report_html_js, out);
		fputs("</script>\n", out);
	}
	fputs("</body>\n</html>\n", out);
	free(chartjs);
	return err;
}

struct page {
	const struct results *const *runs;
	int n;
};

static int build_page(FILE *out, const void *arg)
{
	const struct page *p = arg;

	return write_page(out, p->runs, p->n);
}

int report_write_html(const struct results *const *runs, int n, const char *dir)
{
	const struct page p = {runs, n};

	return report_write_built(dir, "report.html", build_page, &p);
}
