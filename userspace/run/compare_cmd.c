// SPDX-License-Identifier: MIT
/*
 * `compare`: two saved runs, or two per-iteration CSV files (the ZFS
 * report's situation), metric by metric: Welch's 95 % interval of the
 * difference, the penalty with its interval, and the report's sentence.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "saved.h"
#include "../analysis/cached.h"
#include "../common/parse.h" /* CMD_BAD */
#include "../report/report.h"
#include "../stats/stats.h"

/* One side: what was named, its label, and its metrics. */
struct side {
	const char *arg;
	char path[PATH_LEN + 16];
	char label[NAME_LEN / 2];
	bool csv;
	struct results *r;
};

bool saved_is_csv(const char *arg)
{
	size_t n = strlen(arg);

	return n > 4 && !strcmp(arg + n - 4, ".csv");
}

/* The CSV's name without .csv; a run's folder name (or the JSON file's
 * name without .json). */
static void label_of(struct side *s)
{
	char buf[PATH_LEN + 16], *base;
	size_t n;

	snprintf(buf, sizeof(buf), "%s", s->path);
	base = basename(buf);
	if (!s->csv && !strcmp(base, "results.json")) {
		folder_of(s->path, buf, sizeof(buf));
		base = basename(buf);
	}
	n = strlen(base);
	if (n > 4 && (!strcmp(base + n - 4, ".csv") ||
		      (n > 5 && !strcmp(base + n - 5, ".json"))))
		n -= base[n - 4] == '.' ? 4 : 5;
	snprintf(s->label, sizeof(s->label), "%.*s", (int)n, base);
}

static int load_side(struct side *s)
{
	s->csv = saved_is_csv(s->arg);
	if (!s->csv) {
		s->r = load_run(s->arg, s->path, sizeof(s->path));
		if (!s->r)
			return 2;
		label_of(s);
		return 0;
	}
	snprintf(s->path, sizeof(s->path), "%s", s->arg);
	label_of(s);
	s->r = calloc(1, sizeof(*s->r));
	if (!s->r) {
		fprintf(stderr, "encbench-trace: out of memory\n");
		return 1;
	}
	return report_read_csv(s->path, s->label, s->r) ? 2 : 0;
}

/* A CSV's columns pair by metric; a run's results by target, workload
 * and metric. */
static const struct result *partner(const struct side *o,
				    const struct result *b, bool csv)
{
	for (int i = 0; i < o->r->nr_results && i < MAX_RESULTS; i++) {
		const struct result *x = &o->r->results[i];

		if (!strcmp(x->metric.name, b->metric.name) &&
		    (csv || (!strcmp(x->target, b->target) &&
			     !strcmp(x->workload, b->workload))))
			return x;
	}
	return NULL;
}

/* Add the result as side's label (a run's: "<target>@<label>") to cmp,
 * and that name to cmp's targets for report.html. */
static void put_side(struct results *cmp, const struct side *s,
		     const struct result *x, char *name, size_t len)
{
	struct result *dst = &cmp->results[cmp->nr_results++];
	int t;

	*dst = *x;
	if (s->csv)
		snprintf(name, len, "%s", s->label);
	else
		snprintf(name, len, "%.*s@%s", NAME_LEN / 2 - 1, x->target,
			 s->label);
	snprintf(dst->target, sizeof(dst->target), "%s", name);
	for (t = 0; t < cmp->nr_targets; t++)
		if (!strcmp(cmp->targets[t].name, name))
			return;
	if (t < MAX_TARGETS)
		snprintf(cmp->targets[cmp->nr_targets++].name, NAME_LEN, "%s",
			 name);
}

static int enough_samples(const struct side *s, const struct result *x)
{
	if (x->nr_samples >= 2)
		return 0;
	fprintf(stderr,
		"encbench-trace: compare: %s: '%s' has %d sample%s; an "
		"interval needs at least 2\n",
		s->path, x->metric.name, x->nr_samples,
		x->nr_samples == 1 ? "" : "s");
	return 2;
}

static int pair_up(const struct side *b, const struct side *o,
		   struct results *cmp)
{
	for (int i = 0; i < b->r->nr_results && i < MAX_RESULTS; i++) {
		const struct result *x = &b->r->results[i];
		const struct result *y = partner(o, x, b->csv);
		struct comparison *c;

		if (!y)
			continue;
		if (x->metric.higher_is_better != y->metric.higher_is_better)
			CMD_BAD("compare",
				"'%s' is higher-is-better in one "
				"file and not in the other",
				x->metric.name);
		if (enough_samples(b, x) || enough_samples(o, y))
			return 2;
		if (cmp->nr_comparisons >= MAX_RESULTS / 2)
			CMD_BAD("compare", "more than %d metrics in common",
				MAX_RESULTS / 2);
		c = &cmp->comparisons[cmp->nr_comparisons++];
		put_side(cmp, b, x, c->baseline, sizeof(c->baseline));
		put_side(cmp, o, y, c->target, sizeof(c->target));
		snprintf(c->workload, sizeof(c->workload), "%s", x->workload);
		snprintf(c->metric, sizeof(c->metric), "%s", x->metric.name);
		welch_compare(x->samples, x->nr_samples, y->samples,
			      y->nr_samples, x->metric.higher_is_better, c);
		/* A saved run's figure served from the page cache, or its
		 * writes timed into it: not a disk figure (CSVs do not say,
		 * and claim a penalty as before). */
		comparison_mark_cached(c, x, y);
	}
	if (!cmp->nr_comparisons)
		CMD_BAD("compare",
			"%s and %s have no %s in common: different shapes",
			b->path, o->path,
			b->csv ? "metric column" : "target/workload/metric");
	return 0;
}

/* Metrics that only one side has: said, not silently dropped. */
static void print_unpaired(const struct side *s, const struct side *o)
{
	for (int i = 0; i < s->r->nr_results && i < MAX_RESULTS; i++) {
		const struct result *x = &s->r->results[i];

		if (partner(o, x, s->csv))
			continue;
		printf("not compared, only in %s: %s%s%s%s%s\n", s->path,
		       s->csv ? "" : x->target, s->csv ? "" : "/", x->workload,
		       x->workload[0] ? "/" : "", x->metric.name);
	}
}

static void describe(struct results *cmp, const struct side *b,
		     const struct side *o)
{
	snprintf(cmp->meta.tool_version, sizeof(cmp->meta.tool_version), "%s",
		 ENCBENCH_VERSION);
	snprintf(cmp->meta.hostname, sizeof(cmp->meta.hostname), "%s vs %s",
		 o->label, b->label);
	snprintf(cmp->meta.tracing_detail, sizeof(cmp->meta.tracing_detail),
		 "compare of saved figures: nothing was traced");
}

static int compare(struct side *b, struct side *o, bool json, const char *dir,
		   const char *html)
{
	struct results *cmp = calloc(1, sizeof(*cmp));
	int rc;

	if (!cmp) {
		fprintf(stderr, "encbench-trace: out of memory\n");
		return 1;
	}
	if (!strcmp(b->label, o->label)) {
		strncat(b->label, " (BASE)",
			sizeof(b->label) - 1 - strlen(b->label));
		strncat(o->label, " (OTHER)",
			sizeof(o->label) - 1 - strlen(o->label));
	}
	describe(cmp, b, o);
	rc = pair_up(b, o, cmp);
	if (!rc && json) {
		rc = report_print_compare_json(cmp, b->path, o->path, stdout)
			     ? 1
			     : 0;
	} else if (!rc) {
		printf("BASE  %s\nOTHER %s\n\n", b->path, o->path);
		report_print_compare(cmp, stdout);
		print_unpaired(b, o);
		print_unpaired(o, b);
	}
	if (!rc && dir) {
		const struct results *runs[] = {cmp};

		rc = write_html_in("compare", runs, 1, dir, html);
	}
	free(cmp);
	return rc;
}

int compare_saved(const char *base, const char *other, bool json,
		  const char *dir, const char *html)
{
	struct side sides[2] = {{.arg = base}, {.arg = other}};
	int rc = load_side(&sides[0]);

	if (!rc)
		rc = load_side(&sides[1]);
	if (!rc)
		rc = compare(&sides[0], &sides[1], json, dir, html);
	free(sides[0].r);
	free(sides[1].r);
	return rc;
}
