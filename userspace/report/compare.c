// SPDX-License-Identifier: MIT
/*
 * `compare`: two saved runs' metrics side by side with Welch's interval
 * of the difference and the penalty's (Fieller's, stats/), as a
 * table, one sentence per metric in the ZFS report's words, or one JSON
 * document. The pairs come made: results[2k] is BASE's side of
 * comparisons[k] and results[2k + 1] OTHER's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_priv.h"
#include "report.h"
#include "../common/fmt_ci.h"
#include "../stats/stats.h"

/* "reads" for read_s (a dd op timed in seconds), else the metric's name;
 * true when that is a plural. */
static bool what_of(const char *metric, char *buf, size_t len)
{
	char op[NAME_LEN];
	size_t n = strlen(metric);

	if (n > 2 && !strcmp(metric + n - 2, "_s")) {
		snprintf(op, sizeof(op), "%.*s", (int)(n - 2), metric);
		if (op_from_name(op) >= 0) {
			snprintf(buf, len, "%s", op_plural(op_from_name(op)));
			return true;
		}
	}
	snprintf(buf, len, "%s", metric);
	return false;
}

/* "between a % and b % <worse>", or <better> for a negative interval, or
 * both words when it holds 0. */
static void between(char *buf, size_t len, double lo, double hi,
		    const char *worse, const char *better)
{
	if (lo > 0.0)
		snprintf(buf, len, "between %.1f %% and %.1f %% %s", lo, hi,
			 worse);
	else if (hi < 0.0)
		snprintf(buf, len, "between %.1f %% and %.1f %% %s", -hi, -lo,
			 better);
	else
		snprintf(buf, len, "between %.1f %% %s and %.1f %% %s", -lo,
			 better, hi, worse);
}

const char *report_not_disk(const struct comparison *c)
{
	return c->cached ? "cached" : c->buffered ? "buffered" : NULL;
}

bool report_no_ci(const struct comparison *c)
{
	return !c->significant && !c->penalty_unbounded &&
	       c->penalty_ci95_pct[0] == c->penalty_ci95_pct[1];
}

bool report_metric_is_op(const char *metric)
{
	char what[NAME_LEN + 8];

	return what_of(metric, what, sizeof(what));
}

void report_compare_sentence(const struct results *cmp, int k, char *buf,
			     size_t len)
{
	report_sentence(&cmp->comparisons[k], &cmp->results[2 * k], buf, len);
}

void report_sentence(const struct comparison *c, const struct result *b,
		     char *buf, size_t len)
{
	char what[NAME_LEN + 8], span[128], wl[NAME_LEN + 2] = "";
	double rate[2];
	bool plural = what_of(c->metric, what, sizeof(what));
	const char *tail = c->significant ? "" : ": no significant difference";

	if (c->workload[0])
		snprintf(wl, sizeof(wl), "%s ", c->workload);
	/* Not a disk figure: the table claims no penalty, nor does this. */
	if (report_not_disk(c)) {
		if (c->cached)
			snprintf(span, sizeof(span),
				 "%.0f %% of the bytes read came from the page "
				 "cache",
				 c->cached_pct);
		else
			snprintf(span, sizeof(span),
				 "writes timed into the page cache, not on the "
				 "device");
		snprintf(buf, len,
			 "%s%s on %s against %s: not a disk figure (%s), no "
			 "penalty claimed",
			 wl, what, c->target, c->baseline, span);
		return;
	}
	/* A rate's own change: the reciprocals of its cost's interval,
	 * unbounded where the baseline's rate is not told from 0; its cost's
	 * interval is unbounded where the target's is not. */
	if (c->penalty_unbounded ||
	    (b->metric.higher_is_better &&
	     !ratio_ci95_reciprocal_pct(c->penalty_ci95_pct, rate))) {
		snprintf(buf, len,
			 "%s%s on %s against %s: no bounded 95 %% CI, the "
			 "mean of %s is not told from 0%s",
			 wl, what, c->target, c->baseline,
			 b->metric.higher_is_better && c->penalty_unbounded
				 ? c->target
				 : c->baseline,
			 c->significant ? "" : "; no significant difference");
		return;
	}
	/* No interval: "between X and X" would pass the point off as a
	 * result. A rate's change is rate[], the point as its interval. */
	if (report_no_ci(c)) {
		double p = b->metric.higher_is_better ? rate[0]
						      : c->penalty_pct;

		snprintf(buf, len,
			 "%s%s on %s %s %.1f %% %s than on %s: no 95 %% CI "
			 "(one run on a side, or no spread), no significance "
			 "claimed",
			 wl, what, c->target, plural ? "are" : "is", fabs(p),
			 b->metric.higher_is_better
				 ? (p < 0 ? "lower" : "higher")
				 : (p < 0 ? "faster" : "slower"),
			 c->baseline);
		return;
	}
	if (!b->metric.higher_is_better) {
		between(span, sizeof(span), c->penalty_ci95_pct[0],
			c->penalty_ci95_pct[1], "slower", "faster");
		snprintf(buf, len, "%s%s on %s %s %s than on %s (95 %% CI)%s",
			 wl, what, c->target, plural ? "are" : "is", span,
			 c->baseline, tail);
		return;
	}
	/* A rate: said as the rate's own change relative to BASE, then as
	 * the penalty (time per unit of work) the table shows. */
	between(span, sizeof(span), rate[0], rate[1], "higher", "lower");
	snprintf(buf, len,
		 "%s%s on %s %s %s than on %s (95 %% CI)%s; per unit of work "
		 "that is %+.1f %% to %+.1f %% time",
		 wl, what, c->target, plural ? "are" : "is", span, c->baseline,
		 tail, c->penalty_ci95_pct[0], c->penalty_ci95_pct[1]);
}

/* "OTHER vs BASE" above each run of comparisons between the same two. */
static void print_sides(const struct results *cmp, int k, FILE *out)
{
	const struct comparison *c = &cmp->comparisons[k], *prev = c - 1;
	char line[2 * NAME_LEN + 16];

	if (k && !strcmp(prev->target, c->target) &&
	    !strcmp(prev->baseline, c->baseline))
		return;
	snprintf(line, sizeof(line), "%s%s vs %s\n", k ? "\n" : "", c->target,
		 c->baseline);
	report_put_safe(out, line, strlen(line));
}

void report_print_compare(const struct results *cmp, FILE *out)
{
	char line[1024];

	fprintf(out, "%-20s %-13s %5s %11s %10s %5s %11s %10s  %-26s %s\n",
		"metric", "direction", "n", "base mean", "sd", "n",
		"other mean", "sd", "diff [95 % CI]", "penalty % [95 % CI]");
	for (int k = 0; k < cmp->nr_comparisons; k++) {
		const struct comparison *c = &cmp->comparisons[k];
		const struct result *b = &cmp->results[2 * k],
				    *o = &cmp->results[2 * k + 1];
		char name[2 * NAME_LEN + 2], diff[80], ci[FMT_CI_LEN], pen[64];

		print_sides(cmp, k, out);
		snprintf(name, sizeof(name), "%s%s%s", c->workload,
			 c->workload[0] ? "/" : "", c->metric);
		snprintf(diff, sizeof(diff), "%+.4g [%+.4g, %+.4g]",
			 c->diff_mean, c->welch_ci95[0], c->welch_ci95[1]);
		/* Not a disk figure on a side: no penalty claimed (text.c). */
		if (report_not_disk(c))
			snprintf(pen, sizeof(pen), "%s: not a disk figure",
				 report_not_disk(c));
		else
			snprintf(pen, sizeof(pen), "%+.1f %s%s", c->penalty_pct,
				 fmt_ci(ci, sizeof(ci), c->penalty_ci95_pct, 1,
					true),
				 c->significant ? " *" : "");
		snprintf(line, sizeof(line),
			 "%-20s %-13s %5d %11.4g %10.4g %5d %11.4g %10.4g  "
			 "%-26s %s",
			 name,
			 b->metric.higher_is_better ? "higher=better"
						    : "lower=better",
			 b->nr_samples, b->s.mean, b->s.sd, o->nr_samples,
			 o->s.mean, o->s.sd, diff, pen);
		report_put_safe(out, line, strlen(line));
		fputc('\n', out);
	}
	fputs("(* significant: Welch's interval of diff excludes 0; penalty > "
	      "0: OTHER worse;\n its interval is Fieller's for the ratio of "
	      "the means, unbounded where the\n denominator's mean is not "
	      "told from 0)\n\n",
	      out);
	for (int k = 0; k < cmp->nr_comparisons; k++) {
		report_compare_sentence(cmp, k, line, sizeof(line));
		report_put_safe(out, line, strlen(line));
		fputs(".\n", out);
	}
}

static struct json_object *side_json(const struct result *r)
{
	struct json_object *o = json_object_new_object();
	int err;

	if (!o)
		return NULL;
	err = jadd_str(o, "label", r->target);
	err |= jadd_int(o, "n", r->nr_samples);
	err |= jadd_double(o, "mean", r->s.mean);
	err |= jadd_double(o, "sd", r->s.sd);
	err |= jadd(o, "ci95", jdouble_array(r->s.ci95, 2));
	return jbuilt(o, err);
}

/* results.json's comparison, and what compare adds: each side's figures
 * and the sentence. */
static struct json_object *comparison_json(const struct results *cmp, int k)
{
	const struct result *b = &cmp->results[2 * k];
	struct json_object *o = report_comparison_json(&cmp->comparisons[k]);
	char sentence[1024];
	int err;

	if (!o)
		return NULL;
	report_compare_sentence(cmp, k, sentence, sizeof(sentence));
	err = jadd_str(o, "unit", b->metric.unit);
	err |= jadd_bool(o, "higher_is_better", b->metric.higher_is_better);
	err |= jadd(o, "base", side_json(b));
	err |= jadd(o, "other", side_json(&cmp->results[2 * k + 1]));
	err |= jadd_str(o, "sentence", sentence);
	return jbuilt(o, err);
}

int report_print_compare_json(const struct results *cmp, const char *base,
			      const char *other, FILE *out)
{
	struct json_object *doc = json_object_new_object();
	struct json_object *a = json_object_new_array();
	int err = !doc || !a;

	if (!err) {
		err |= jadd_str(doc, "schema", RESULTS_SCHEMA "/compare");
		err |= jadd_str(doc, "base", base);
		err |= jadd_str(doc, "other", other);
		err |= jadd(doc, "comparisons", a);
		a = NULL;
	}
	for (int k = 0; !err && k < cmp->nr_comparisons; k++)
		err |= jappend(json_object_object_get(doc, "comparisons"),
			       comparison_json(cmp, k));
	if (!err)
		fprintf(out, "%s\n",
			json_object_to_json_string_ext(
				doc, JSON_C_TO_STRING_PRETTY |
					     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(a);
	json_object_put(doc);
	return err ? -ENOMEM : 0;
}
