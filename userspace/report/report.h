/* SPDX-License-Identifier: MIT */
/*
 * report/: the writers. May include: stats/, common/ and the ABI headers
 * of bpf/. Never the tracer or libbpf: a report is made from a saved run.
 *
 * Report writers: they format a finished struct results and compute
 * nothing. One JSON path (json-c) serves results.json, `probe --json` and
 * reading results back.
 */
#ifndef ENCBENCH_REPORT_H
#define ENCBENCH_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "../common/results.h"
#include "../common/snapshot.h"

/* results.json: one document, made once from r, written into dir (when
 * not NULL) whole or not at all, never over a file that exists (see
 * report_write_atomic), then the same text printed on `print` (when not
 * NULL: `--json`). 0 or negative errno (then nothing is printed). */
int report_write_json(const struct results *r, const char *dir, FILE *print);
/* Parse a results.json back into *r (for `report` and tests): a regular
 * file under the size cap, every member there and in range; else a
 * one-line error naming the file and the member, and negative errno. */
int report_read_json(const char *path, struct results *r);
/* The same for a document in memory (the fuzz target's way in). */
int report_parse_results(const char *name, const char *text, size_t len,
			 struct results *r);
/* A snapshot (common/snapshot.h) as dir/<report_snapshot_name>, whole
 * or not at all, never over a file that exists; 0 or negative errno. */
int report_write_snapshot(const struct snapshot *s, const char *dir);
/* Each of snaps[0..n) into dir/snapshots/ (made if missing). */
int report_write_snapshots(struct snapshot *const *snaps, int n,
			   const char *dir);
/* "01-plain-dd.json": seq, target, workload. */
void report_snapshot_name(const struct snapshot *s, char *buf, size_t len);
/* A snapshot file back into *s (free with snapshot_free, also after a
 * failure): a version this reader knows, every member there and in
 * range; else one line naming the file and the member (or the version),
 * and negative errno. */
int report_read_snapshot(const char *path, struct snapshot *s);
/* Every dir/snapshots/ *.json, by name, into *out (n of them; free with
 * report_free_snapshots); one line naming the file when one is not a
 * snapshot, or naming the folder when it holds none. 0 or negative errno. */
int report_read_snapshots(const char *dir, struct snapshot ***out, int *n);
void report_free_snapshots(struct snapshot **snaps, int n);
/* The same for a document in memory (the fuzz target's way in). */
int report_parse_snapshot(const char *name, const char *text, size_t len,
			  struct snapshot *s);
/* The capability object used both in results.json meta and `probe --json`. */
struct json_object *report_caps_json(const struct capabilities *caps);
int report_caps_from_json(struct json_object *o, struct capabilities *caps);

/* Per-iteration CSV per (target, workload): iteration,<metric>,... */
int report_write_csv(const struct results *r, const char *dir);
/* One CSV per (target, workload, op, layer): low_ns,high_ns,count. */
int report_write_histograms(const struct results *r, const char *dir);
/* run.log: parameters, kernel, cipher drivers, caveats. */
int report_write_runlog(const struct results *r, const char *dir);

/* report.html: one self-contained page (Chart.js inlined) for n runs:
 * one run, or several hosts' runs side by side (merge). */
int report_write_html(const struct results *const *runs, int n,
		      const char *dir);
/* s with & < > " ' as entities and control characters replaced. */
void report_html_escape(FILE *out, const char *s);
/* "key=value ...": a workload's parameters, as run.log shows them. */
void report_params_text(const struct param_list *l, char *buf, size_t len);

/* OpenMetrics text (node_exporter textfile collector) at path, written
 * to path.tmp and renamed. */
int report_write_prometheus(const struct results *r, const char *path);

/* --timeline: events ev[0..n) of one phase (sorted here, in place) as a
 * Chrome/Perfetto trace-event document dir/name (timeline_doc.c). */
struct timeline_phase;
struct tl_event;
int report_write_timeline(const char *dir, const char *name,
			  struct tl_event *ev, size_t n,
			  const struct timeline_phase *phase);

/* Any JSON document as dir/name, whole or not at all (a --timeline
 * trace, for one). */
int report_write_document(const char *dir, const char *name,
			  struct json_object *doc);

/* `probe --json`: the capabilities on out; 0 or -ENOMEM. */
int report_print_caps_json(const struct capabilities *caps, FILE *out);

/* The full report: comparison table, attribution table, histograms
 * (unless !histograms), verdicts with their evidence, and caveats. */
void report_print_text(const struct results *r, FILE *out, bool histograms);
/* The same, histograms included, as dir/report.txt (never replaced). */
int report_write_text(const struct results *r, const char *dir);
/* The first screen (text_short.c): a header line, a line per target, the
 * results tables and the ZFS report's sentences, the caveats, then one
 * line per headline verdict, and where the full report is (full_at). */
void report_print_short(const struct results *r, FILE *out,
			const char *full_at);
/* The short form (report_print_short, full_at saying how to get the
 * full one), or with full or hist the full text, hist with histograms. */
void report_print_form(const struct results *r, FILE *out, bool full, bool hist,
		       const char *full_at);
/* Its verdicts alone, a line each (`trace --quiet`). */
void report_print_headlines(const struct results *r, FILE *out);
/* n runs (from several hosts) in one table, one column per host. */
void report_print_merged(const struct results *const *runs, int n, FILE *out);
void report_print_caps(const struct capabilities *caps, FILE *out);

/*
 * `compare`. A per-iteration CSV (iteration,<metric>,...) read back into
 * r->results, one result per metric column, each with target = label,
 * its samples and their summary; one-line error naming file, line and
 * column. A metric's direction comes from its name: rates (..._per_...,
 * ...iops, ...tps, ...bps) are higher-is-better, the rest times.
 */
int report_read_csv(const char *path, const char *label, struct results *r);
bool report_metric_higher_is_better(const char *name);
/* cmp holds the pairs: results[2k] is BASE's side of comparisons[k],
 * results[2k + 1] OTHER's, each result's target its side's label. */
void report_print_compare(const struct results *cmp, FILE *out);
int report_print_compare_json(const struct results *cmp, const char *base,
			      const char *other, FILE *out);
/* The ZFS report's sentence for comparisons[k]: "reads on X are between
 * a % and b % slower than on Y (95 % CI)". */
void report_compare_sentence(const struct results *cmp, int k, char *buf,
			     size_t len);
/* The same for comparison c, whose baseline's result is b. */
void report_sentence(const struct comparison *c, const struct result *b,
		     char *buf, size_t len);
/* c's penalty has no interval: one run on a side, or no spread on
 * either, and welch_from_summary collapsed it to the point. */
bool report_no_ci(const struct comparison *c);
/* "cached" or "buffered" when c is not a disk figure (no penalty is
 * claimed for it), else NULL: the one word every table prints. */
const char *report_not_disk(const struct comparison *c);
/* Is metric an op timed in seconds ("read_s": said "reads")? */
bool report_metric_is_op(const char *metric);

#endif /* ENCBENCH_REPORT_H */
