// SPDX-License-Identifier: MIT
/*
 * A per-iteration CSV read back (`compare`): the shape csv.c writes and the
 * ZFS report's script wrote, "iteration,<metric>,..." then one row per
 * iteration. Trusted no more than results.json: a regular file under a
 * size cap, every cell a plain decimal number, every error one line naming
 * the file, the line and the column.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report_priv.h"
#include "report.h"
#include "../stats/stats.h"

/* MAX_METRICS columns of MAX_SAMPLES rows of "%.6f" figures fit in
 * less than a quarter of this. */
#define CSV_MAX_INPUT (4 << 20)

struct csv_pos {
	const char *path;
	int line, col; /* 1-based; col counts bytes */
};

static int csv_bad(const struct csv_pos *p, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "encbench-trace: %s:%d:%d: ", p->path, p->line, p->col);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

/* Cut line at commas into at most max fields (NUL-terminated in place);
 * col[k] is field k's 1-based byte column. -1 when there are more. */
static int split(char *line, char **field, int *col, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		char *comma = strchr(p, ',');

		if (n == max)
			return -1;
		field[n] = p;
		col[n++] = (int)(p - line) + 1;
		if (!comma)
			return n;
		*comma = '\0';
		p = comma + 1;
	}
}

/* [-+]digits[.digits][(e|E)[-+]digits], or .digits: what strtod takes
 * without its hex, inf, nan and leading blanks; finite. */
static bool plain_number(const char *s, double *v)
{
	char *end;

	if (!*s || strspn(s, "0123456789+-.eE") != strlen(s) ||
	    !strpbrk(s, "0123456789"))
		return false;
	errno = 0;
	*v = strtod(s, &end);
	return *end == '\0' && errno != ERANGE && isfinite(*v);
}

static bool plain_name(const char *s)
{
	if (!*s || strlen(s) >= NAME_LEN || isspace((unsigned char)*s) ||
	    isspace((unsigned char)s[strlen(s) - 1]))
		return false;
	for (; *s; s++)
		if (*s == '"' || !isprint((unsigned char)*s))
			return false;
	return true;
}

bool report_metric_higher_is_better(const char *name)
{
	static const char *const rates[] = {"iops", "tps",   "bps",
					    "mbps", "per_s", "_per_sec"};
	size_t n = strlen(name);

	if (strstr(name, "_per_"))
		return true;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		size_t k = strlen(rates[i]);

		if (n >= k && !strcasecmp(name + n - k, rates[i]))
			return true;
	}
	return false;
}

/* What a CSV does not say: the unit its name implies, as csv.c's names
 * carry it (write_s, create_us, files_per_s). */
static const char *unit_of(const char *name)
{
	static const char *const units[][2] = {
		{"_ns", "ns"}, {"_us", "us"}, {"_ms", "ms"}, {"_s", "s"}};
	size_t n = strlen(name);

	if (report_metric_higher_is_better(name))
		return "";
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t k = strlen(units[i][0]);

		if (n > k && !strcmp(name + n - k, units[i][0]))
			return units[i][1];
	}
	return "";
}

static int read_header(struct csv_pos *p, char *line, struct results *r)
{
	char *field[MAX_METRICS + 2];
	int col[MAX_METRICS + 2];
	int n = split(line, field, col, MAX_METRICS + 1);

	if (n < 0)
		return csv_bad(p, "more than %d metric columns", MAX_METRICS);
	if (strcasecmp(field[0], "iteration"))
		return csv_bad(
			p, "header must start with 'iteration', not '%.40s'",
			field[0]);
	if (n < 2)
		return csv_bad(p, "header names no metric column");
	for (int k = 1; k < n; k++) {
		struct result *m = &r->results[k - 1];

		p->col = col[k];
		if (!plain_name(field[k]))
			return csv_bad(
				p,
				"column %d has no usable name (printable, no quotes, < %d bytes)",
				k + 1, NAME_LEN);
		for (int j = 0; j < k - 1; j++)
			if (!strcmp(r->results[j].metric.name, field[k]))
				return csv_bad(p, "column '%s' appears twice",
					       field[k]);
		snprintf(m->metric.name, sizeof(m->metric.name), "%s",
			 field[k]);
		m->metric.higher_is_better =
			report_metric_higher_is_better(field[k]);
		snprintf(m->metric.unit, sizeof(m->metric.unit), "%s",
			 unit_of(field[k]));
	}
	r->nr_results = n - 1;
	return 0;
}

/* One row; a metric's cells may end early (csv.c leaves the cells of a
 * metric with fewer samples empty) but may not resume. */
static int read_row(struct csv_pos *p, char *line, struct results *r,
		    long *last_iter, bool *ended)
{
	char *field[MAX_METRICS + 2];
	int col[MAX_METRICS + 2];
	int n = split(line, field, col, r->nr_results + 1);
	double it;

	if (n != r->nr_results + 1)
		return csv_bad(p, "%s fields, the header has %d",
			       n < 0		       ? "more"
			       : n < r->nr_results + 1 ? "fewer"
						       : "more",
			       r->nr_results + 1);
	if (!plain_number(field[0], &it) || it != floor(it) ||
	    it <= (double)*last_iter || it > 1e9)
		return csv_bad(
			p,
			"iteration '%.40s' is not a whole number above the previous row's",
			field[0]);
	*last_iter = (long)it;
	for (int k = 1; k < n; k++) {
		struct result *m = &r->results[k - 1];
		double v;

		p->col = col[k];
		if (!*field[k]) {
			ended[k - 1] = true;
			continue;
		}
		if (ended[k - 1])
			return csv_bad(
				p, "column '%s' resumes after an empty cell",
				m->metric.name);
		if (!plain_number(field[k], &v))
			return csv_bad(p,
				       "'%.40s' is not a number (column '%s')",
				       field[k], m->metric.name);
		if (m->nr_samples >= MAX_SAMPLES)
			return csv_bad(p, "more than %d rows", MAX_SAMPLES);
		m->samples[m->nr_samples++] = v;
	}
	return 0;
}

static int parse_csv(const char *path, char *text, size_t len,
		     struct results *r)
{
	struct csv_pos p = {path, 0, 1};
	bool ended[MAX_METRICS] = {false};
	long last_iter = 0;
	char *line = text;
	int err = 0;

	if (strlen(text) != len) {
		p.line = 1;
		for (char *c = text; c < text + strlen(text); c++)
			p.line += *c == '\n';
		return csv_bad(&p, "a NUL byte: not a text file");
	}
	while (!err && *line) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		p.line++;
		p.col = 1;
		if (nl > line && nl[-1] == '\r')
			nl[-1] = '\0';
		if (!*line)
			err = csv_bad(&p, "empty line");
		else if (p.line == 1)
			err = read_header(&p, line, r);
		else
			err = read_row(&p, line, r, &last_iter, ended);
		if (!nl)
			break;
		line = nl + 1;
	}
	if (!err && p.line == 0)
		err = csv_bad(&(struct csv_pos){path, 1, 1}, "empty file");
	return err;
}

int report_read_csv(const char *path, const char *label, struct results *r)
{
	char *text = NULL;
	size_t len = 0;
	int err;

	memset(r, 0, sizeof(*r));
	err = report_read_file(path, CSV_MAX_INPUT, &text, &len);
	if (err)
		return err;
	err = parse_csv(path, text, len, r);
	free(text);
	if (err)
		return err;
	for (int k = 0; k < r->nr_results; k++) {
		struct result *m = &r->results[k];

		snprintf(m->target, sizeof(m->target), "%s", label);
		summarize(m->samples, m->nr_samples, &m->s);
	}
	return 0;
}
