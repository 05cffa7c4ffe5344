// SPDX-License-Identifier: MIT
/*
 * Plain files beside results.json, in the shapes the ZFS report used so
 * that sort, awk and plotting tools take them as they are:
 *   <target>-<workload>.csv                 iteration,<metric>,...
 *   traced-<target>-<workload>.csv          the same, traced iterations
 *   hist-<target>-<workload>-<op>-<layer>.csv  low_ns,high_ns,count
 * (run.log, the other plain file, is runlog.c's.)
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_priv.h"
#include "report.h"
#include "../stats/stats.h"

/* Built in memory, written whole by report_write_atomic. */
struct out_file {
	FILE *f;
	char *text;
	size_t len;
	const char *dir;
	char name[NAME_MAX + 1];
};

static int fail(const char *path, int err)
{
	fprintf(stderr, "encbench-trace: cannot write %s: %s\n", path,
		strerror(err));
	return -err;
}

/* Names come from the command line: a '/' must not leave the folder. */
static void put_name(char *dst, const char *src)
{
	for (; *src; src++, dst++)
		*dst = *src == '/' ? '_' : *src;
	*dst = '\0';
}

/* dir/<parts joined by '-'>.<ext>; parts end with NULL. */
static int out_open(struct out_file *o, const char *dir, const char *ext,
		    const char *const *parts)
{
	size_t n = 0;

	o->dir = dir;
	for (int i = 0; parts[i]; i++) {
		if (n + strlen(parts[i]) + 2 >= sizeof(o->name))
			return fail(parts[i], ENAMETOOLONG);
		if (i)
			o->name[n++] = '-';
		put_name(o->name + n, parts[i]);
		n += strlen(parts[i]);
	}
	if (n + strlen(ext) + 2 >= sizeof(o->name))
		return fail(o->name, ENAMETOOLONG);
	snprintf(o->name + n, sizeof(o->name) - n, ".%s", ext);
	o->f = open_memstream(&o->text, &o->len);
	return o->f ? 0 : fail(o->name, errno);
}

/* Write errors stick in the stream: one check at the end covers them. */
static int out_close(struct out_file *o)
{
	int err = ferror(o->f) ? ENOMEM : 0;

	if (fclose(o->f) && !err)
		err = ENOMEM;
	o->f = NULL;
	if (!err)
		err = -report_write_atomic(o->dir, o->name, o->text);
	else
		fail(o->name, err);
	free(o->text);
	o->text = NULL;
	return -err;
}

static bool same_run(const struct result *a, const struct result *b)
{
	return !strcmp(a->target, b->target) &&
	       !strcmp(a->workload, b->workload);
}

/* A result's samples, untraced (the figures) or traced. */
static int nr_of(const struct result *x, bool traced)
{
	return traced ? x->nr_traced : x->nr_samples;
}

/*
 * All metrics of results[first]'s (target, workload), in result order:
 * <target>-<workload>.csv the untraced iterations, numbered 1..n as the
 * ZFS report did (what `compare` reads); traced-<target>-<workload>.csv
 * the traced ones, numbered by their place in the run (none: no file).
 */
static int write_one_csv(const struct results *r, int first, const char *dir,
			 bool traced)
{
	const struct result *m[MAX_METRICS];
	const char *parts[] = {
		traced ? "traced" : r->results[first].target,
		traced ? r->results[first].target : r->results[first].workload,
		traced ? r->results[first].workload : NULL, NULL};
	struct out_file o;
	int nm = 0, rows = 0, err;

	for (int i = first; i < r->nr_results && nm < MAX_METRICS; i++) {
		if (!same_run(&r->results[first], &r->results[i]))
			continue;
		m[nm++] = &r->results[i];
		if (nr_of(m[nm - 1], traced) > rows)
			rows = nr_of(m[nm - 1], traced);
	}
	if (traced && !rows)
		return 0;
	err = out_open(&o, dir, "csv", parts);
	if (err)
		return err;
	fputs("iteration", o.f);
	for (int k = 0; k < nm; k++)
		fprintf(o.f, ",%s", m[k]->metric.name);
	fputc('\n', o.f);
	for (int it = 0; it < rows && it < MAX_SAMPLES; it++) {
		fprintf(o.f, "%d",
			traced ? m[0]->traced_iteration[it] : it + 1);
		/* A metric with fewer samples leaves its cells empty. */
		for (int k = 0; k < nm; k++)
			if (it < nr_of(m[k], traced))
				fprintf(o.f, ",%.6f",
					traced ? m[k]->traced[it]
					       : m[k]->samples[it]);
			else
				fputc(',', o.f);
		fputc('\n', o.f);
	}
	return out_close(&o);
}

int report_write_csv(const struct results *r, const char *dir)
{
	for (int i = 0; i < r->nr_results && i < MAX_RESULTS; i++) {
		bool seen = false;
		int err;

		for (int j = 0; j < i && !seen; j++)
			seen = same_run(&r->results[j], &r->results[i]);
		if (seen)
			continue;
		err = write_one_csv(r, i, dir, false);
		err = err ?: write_one_csv(r, i, dir, true);
		if (err)
			return err;
	}
	return 0;
}

static int write_one_hist(const struct attribution *a,
			  const struct layer_result *l, const char *dir)
{
	/* A workload's parts traced apart (fio's jobs) each have theirs. */
	const char *parts[] = {"hist",
			       a->target,
			       a->workload,
			       a->job[0] ? a->job : op_name(a->op),
			       a->job[0] ? op_name(a->op)
					 : layer_name(l->layer),
			       a->job[0] ? layer_name(l->layer) : NULL,
			       NULL};
	int first = -1, last = -1, err;
	struct out_file o;

	for (int s = 0; s < HIST_SLOTS; s++)
		if (l->slots[s]) {
			first = first < 0 ? s : first;
			last = s;
		}
	if (first < 0)
		return 0;
	err = out_open(&o, dir, "csv", parts);
	if (err)
		return err;
	fputs("low_ns,high_ns,count\n", o.f);
	for (int s = first; s <= last; s++)
		fprintf(o.f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
			hist_slot_low(s), hist_slot_high(s), l->slots[s]);
	return out_close(&o);
}

int report_write_histograms(const struct results *r, const char *dir)
{
	for (int i = 0; i < r->nr_attrib && i < MAX_ATTRIB; i++)
		for (int l = 0; l < NR_LAYERS; l++) {
			int err = write_one_hist(&r->attrib[i],
						 &r->attrib[i].layers[l], dir);

			if (err)
				return err;
		}
	return 0;
}
