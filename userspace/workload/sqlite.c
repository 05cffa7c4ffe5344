// SPDX-License-Identifier: MIT
/*
 * sqlite: Phoronix's "Timed SQLite Insertions" with libsqlite3. A new
 * database on the target gets `inserts` rows, each insert its own
 * transaction (autocommit, synchronous=FULL: a journal write and fsyncs
 * per row); the result is seconds. The database is removed untimed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "workload.h"

struct sqlite_params {
	long inserts;
};

struct sqlite_job {
	char path[PATH_LEN + 32];
	long inserts;
};

static int insert_all(void *arg, double *secs)
{
	struct sqlite_job *j = arg;
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL;
	double t0;
	int err = -EIO;

	if (sqlite3_open(j->path, &db) != SQLITE_OK ||
	    sqlite3_exec(db,
			 "PRAGMA synchronous=FULL;"
			 "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, "
			 "b TEXT);",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO t (a, b) VALUES (?, ?)", -1,
			       &st, NULL) != SQLITE_OK)
		goto cleanup;
	t0 = now_s();
	for (long i = 0; i < j->inserts && !workload_stop; i++) {
		sqlite3_bind_int64(st, 1, i);
		sqlite3_bind_text(st, 2, "encbench-trace sqlite row", -1,
				  SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto cleanup;
		sqlite3_reset(st);
	}
	*secs = now_s() - t0;
	err = 0;
cleanup:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return err;
}

static int sqlite_run_once(const struct workload_ctx *ctx, struct sample *out)
{
	const struct sqlite_params *p = ctx->params;
	struct sqlite_job j = {.inserts = p->inserts};
	char journal[PATH_LEN + 48];
	int err;

	workload_path(ctx, "sqlite.db", j.path, sizeof(j.path));
	err = workload_spawn(ctx, insert_all, &j, out, 0);
	snprintf(journal, sizeof(journal), "%s-journal", j.path);
	unlink(journal);
	unlink(j.path);
	return err;
}

static void sqlite_defaults(void *p)
{
	((struct sqlite_params *)p)->inserts = 1000;
}

static void sqlite_common(void *p, const struct workload_common *c)
{
	struct sqlite_params *s = p;

	s->inserts = workload_scaled(s->inserts, c->scale);
}

static int sqlite_set(void *p, const char *key, const char *value, char *why,
		      size_t len)
{
	if (strcmp(key, "inserts"))
		return -1;
	return workload_opt_count("sqlite", key, value, 100000000,
				  &((struct sqlite_params *)p)->inserts, why,
				  len);
}

static uint64_t sqlite_space(const void *p)
{
	return 64ULL * ((const struct sqlite_params *)p)->inserts + (1 << 20);
}

static int sqlite_metrics(const void *p, struct metric_def out[MAX_METRICS])
{
	(void)p;
	out[0] = (struct metric_def){"insert_s", "s", false};
	return 1;
}

static void sqlite_describe(const void *p, struct param_list *out)
{
	param_int(out, "inserts", ((const struct sqlite_params *)p)->inserts);
	param_str(out, "synchronous", "FULL");
	param_str(out, "sqlite_version", sqlite3_libversion());
}

static const struct workload_key sqlite_keys[] = {
	{"inserts", "rows inserted, one transaction each (default 1000)"},
	{0},
};

const struct workload_ops sqlite_workload_ops = {
	.name = "sqlite",
	.help = "timed SQLite insertions, one transaction each; seconds",
	.follows = "Phoronix's Timed SQLite Insertions (libsqlite3)",
	.params_size = sizeof(struct sqlite_params),
	.defaults = sqlite_defaults,
	.common = sqlite_common,
	.set = sqlite_set,
	.keys = sqlite_keys,
	.space_needed = sqlite_space,
	.metrics = sqlite_metrics,
	.describe = sqlite_describe,
	.run_once = sqlite_run_once,
};
