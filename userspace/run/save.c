// SPDX-License-Identifier: MIT
/*
 * The results of a finished run, kept whatever the output folder does:
 * written there; when a write there fails (the disk filled up during the
 * run, the folder was removed under it) written again, whole, into a new
 * folder of this run's own under /var/tmp or /run; when that fails too,
 * the document on stderr. What is said afterwards names only files that
 * were written, and the folder they are in.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_priv.h"
#include "../report/report.h"

enum saved_part {
	SAVED_JSON,
	SAVED_CSV,
	SAVED_HIST,
	SAVED_LOG,
	SAVED_TEXT,
	SAVED_SNAPSHOTS,
	SAVED_HTML,
	NR_SAVED_PARTS
};

/* As the closing line names them. */
static const char *const part_name[NR_SAVED_PARTS] = {
	[SAVED_JSON] = "results.json", [SAVED_CSV] = "per-iteration CSV",
	[SAVED_HIST] = "histograms",   [SAVED_LOG] = "run.log",
	[SAVED_TEXT] = "report.txt",   [SAVED_SNAPSHOTS] = "snapshots/",
	[SAVED_HTML] = "report.html",
};

/* Fallback folders, the one that survives a reboot first. */
static const char *const fallback_parent[] = {"/var/tmp", "/run"};

struct saved {
	bool part[NR_SAVED_PARTS];
	int err; /* the first write that failed, negative errno; 0 */
};

/* Every part into dir, in order, until one fails; `print` gets the
 * document (--json) whether or not the file could be written. */
static int save_into(const struct run_ctx *ctx, const char *dir, FILE *print,
		     struct saved *s)
{
	const struct results *r = ctx->r;
	int err;

	memset(s, 0, sizeof(*s));
	err = report_write_json(r, dir, print);
	s->part[SAVED_JSON] = !err;
	if (err && print) /* it printed nothing */
		report_write_json(r, NULL, print);
	if (!err) {
		err = report_write_csv(r, dir);
		s->part[SAVED_CSV] = !err;
	}
	if (!err) {
		err = report_write_histograms(r, dir);
		s->part[SAVED_HIST] = !err;
	}
	if (!err) {
		err = report_write_runlog(r, dir);
		s->part[SAVED_LOG] = !err;
	}
	if (!err) {
		err = report_write_text(r, dir);
		s->part[SAVED_TEXT] = !err;
	}
	if (!err && ctx->nr_snapshots) {
		err = report_write_snapshots(ctx->snapshots, ctx->nr_snapshots,
					     dir);
		s->part[SAVED_SNAPSHOTS] = !err;
	}
	if (!err && ctx->cfg->html) {
		err = report_write_html(&r, 1, dir);
		s->part[SAVED_HTML] = !err;
	}
	s->err = err;
	return err;
}

/* "results.json, per-iteration CSV, ..." of the parts written. */
static const char *saved_list(const struct saved *s, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < NR_SAVED_PARTS; i++)
		if (s->part[i] && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? ", " : "", part_name[i]);
	return buf;
}

static bool saved_any(const struct saved *s)
{
	for (int i = 0; i < NR_SAVED_PARTS; i++)
		if (s->part[i])
			return true;
	return false;
}

/* A folder this run made a moment ago with mkdtemp (0700: no one else
 * can have put anything in it), and what the writers left there (files,
 * and snapshots/ with its files). */
static void remove_own_folder(const char *dir)
{
	char path[PATH_LEN + NAME_MAX + 2];
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (de->d_type == DT_DIR && !strcmp(de->d_name, "snapshots"))
			remove_own_folder(path);
		else
			unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* Every part, whole, into a new folder under one of fallback_parent:
 * its path in out, or "" when none would take them. */
static void save_fallback(const struct run_ctx *ctx, char out[PATH_LEN],
			  struct saved *s)
{
	for (size_t i = 0;
	     i < sizeof(fallback_parent) / sizeof(fallback_parent[0]); i++) {
		snprintf(out, PATH_LEN, "%s/encbench-results.XXXXXX",
			 fallback_parent[i]);
		if (!mkdtemp(out))
			continue;
		if (!save_into(ctx, out, NULL, s)) {
			chmod(out, 0755); /* as the output folder would be */
			return;
		}
		remove_own_folder(out);
	}
	out[0] = '\0';
	memset(s, 0, sizeof(*s));
}

/* Nothing on disk: the document on stderr, unless --json put it on
 * stdout already. */
static void save_on_stderr(const struct run_ctx *ctx)
{
	if (ctx->cfg->json) {
		fprintf(stderr, "encbench-trace: no folder would take the "
				"results; results.json went to stdout "
				"(--json)\n");
		return;
	}
	fprintf(stderr, "encbench-trace: no folder would take the results; "
			"results.json follows here, on stderr:\n");
	report_write_json(ctx->r, NULL, stderr);
}

int run_report(struct run_ctx *ctx)
{
	const char *dir = ctx->cfg->output;
	FILE *text = ctx->cfg->json ? stderr : stdout;
	char fallback[PATH_LEN] = "", list[256], part[256];
	struct saved primary, other = {0};
	int err;

	snapshots_complete(ctx->snapshots, ctx->nr_snapshots, ctx->r);
	err = save_into(ctx, dir, ctx->cfg->json ? stdout : NULL, &primary);
	if (err)
		save_fallback(ctx, fallback, &other);
	if (err && !fallback[0])
		save_on_stderr(ctx);
	/* A file of its own, wherever the folder went. */
	if (ctx->cfg->prometheus[0] &&
	    report_write_prometheus(ctx->r, ctx->cfg->prometheus) && !err)
		err = -EIO;
	/* The short report unless --verbose; either way the closing line
	 * says where the full one, report.txt, went. */
	if (ctx->cfg->verbose)
		report_print_text(ctx->r, text, false);
	else
		report_print_short(ctx->r, text, NULL);
	if (!primary.err && ctx->cfg->verbose) {
		fprintf(text, "\nResults in %s/ (%s)\n", dir,
			saved_list(&primary, list, sizeof(list)));
		return err;
	}
	if (!primary.err) {
		fprintf(text,
			"\nFull report: %s/report.txt (--verbose prints it); "
			"in %s/: %s\n",
			dir, dir, saved_list(&primary, list, sizeof(list)));
		return err;
	}
	if (!ctx->cfg->verbose && other.part[SAVED_TEXT])
		fprintf(text, "\nFull report: %s/report.txt", fallback);
	if (fallback[0])
		fprintf(text,
			"\nResults in %s/ (%s): %s/ could not take them "
			"(%s)",
			fallback, saved_list(&other, list, sizeof(list)), dir,
			strerror(-primary.err));
	else
		fprintf(text,
			"\nResults on no disk: %s/ could not take them "
			"(%s), nor could %s or %s",
			dir, strerror(-primary.err), fallback_parent[0],
			fallback_parent[1]);
	if (saved_any(&primary))
		fprintf(text, "; %s/ has only %s", dir,
			saved_list(&primary, part, sizeof(part)));
	fputc('\n', text);
	return err;
}
