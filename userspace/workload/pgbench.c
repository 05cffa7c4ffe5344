// SPDX-License-Identifier: MIT
/*
 * pgbench: Phoronix's PostgreSQL pgbench (read-write, TPC-B-like) on a
 * throwaway cluster whose data directory is on the target. Per target:
 * `initdb` as Debian's `postgres` system user (the server refuses root;
 * the packages made that user for exactly this, so nothing is created in
 * /etc/passwd and nothing shares files with `nobody`), the server started
 * on a Unix socket in a private folder (listen_addresses empty: no TCP
 * port), followed by the tracer from its first fork, `pgbench -i -s S`,
 * a CHECKPOINT. Each iteration: CHECKPOINT and drop caches (untimed),
 * then `pgbench -c C -j J -T T` as the timed client, not traced itself:
 * the server's backends do the target's I/O. The server is stopped and
 * the cluster removed at teardown, Ctrl-C included.
 */
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server.h"
#include "workload.h"
#include "../storage/target.h"

#define PG_USER	    "postgres"
#define PG_BIN_GLOB "/usr/lib/postgresql/*/bin/postgres"

struct pgbench_params {
	long scale, clients, threads, seconds;
};

struct pgbench_state {
	struct server_user user;
	char bindir[PATH_LEN];
	char priv[PATH_LEN]; /* socket and logs, outside the target */
	char data[PATH_LEN + 32];
	pid_t server;
	const struct pgbench_params *p;
	/* Of the current iteration. */
	char out[PATH_LEN + 32];
};

/* The newest installed server's bin folder (Debian keeps one per major
 * version), or "" when there is none. */
static void find_bindir(char *buf, size_t len)
{
	glob_t g;

	buf[0] = '\0';
	if (glob(PG_BIN_GLOB, 0, NULL, &g))
		return;
	for (size_t i = g.gl_pathc; i-- > 0;) {
		char *slash;

		if (access(g.gl_pathv[i], X_OK))
			continue;
		snprintf(buf, len, "%s", g.gl_pathv[i]);
		slash = strrchr(buf, '/');
		*slash = '\0';
		break;
	}
	globfree(&g);
}

static const char *pgbench_not_applicable(const struct target *t, const void *p)
{
	static char why[DETAIL_LEN];
	struct server_user u;
	char bindir[PATH_LEN];

	(void)p;
	find_bindir(bindir, sizeof(bindir));
	if (!bindir[0])
		return "no PostgreSQL server installed (Debian's postgresql "
		       "package; scripts/install-deps.sh installs it)";
	if (server_user_find(PG_USER, &u, why, sizeof(why)))
		return why;
	return server_unreachable(&u, t->info.dir, why, sizeof(why));
}

static void bin(const struct pgbench_state *s, const char *tool, char *buf,
		size_t len)
{
	snprintf(buf, len, "%s/%s", s->bindir, tool);
}

static void logfile(const struct pgbench_state *s, const char *name, char *buf,
		    size_t len)
{
	snprintf(buf, len, "%s/%s.log", s->priv, name);
}

/* A client tool as root against the server's socket (args: the tool's
 * name, then its arguments); its output to <name>.log in the private
 * folder, and its last words on stderr if it fails and !quiet. */
static int client(const struct pgbench_state *s, const char *name,
		  const char *const *args, bool quiet)
{
	char tool[PATH_LEN + 16], log[PATH_LEN + 32];
	const char *argv[24] = {tool};
	int n = 1, err;

	bin(s, args[0], tool, sizeof(tool));
	argv[n++] = "-h";
	argv[n++] = s->priv;
	argv[n++] = "-U";
	argv[n++] = PG_USER;
	for (int i = 1; args[i] && n < 23; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	logfile(s, name, log, sizeof(log));
	err = server_exec(NULL, argv, log);
	if (err && err != -EINTR && !quiet) {
		char tail[160];

		server_log_tail(log, tail, sizeof(tail));
		fprintf(stderr, "encbench-trace: pgbench: %s failed: %s\n",
			args[0], tail);
	}
	return err;
}

static int checkpoint(const struct pgbench_state *s)
{
	static const char *const args[] = {"psql",	 "-X",	     "-q", "-c",
					   "CHECKPOINT", "postgres", NULL};

	return client(s, "checkpoint", args, false);
}

/* Up to 60 s for the server to take connections (recovery, a slow
 * target): pg_isready answers at once, so ask again while it runs. */
static int wait_ready(const struct pgbench_state *s)
{
	static const char *const args[] = {"pg_isready", "-q", "-d", "postgres",
					   NULL};
	double end = now_s() + 60;
	int err = -ETIMEDOUT;

	while (!workload_stop && now_s() < end) {
		if (!server_alive(s->server)) {
			err = -EIO;
			break;
		}
		err = client(s, "isready", args, true);
		if (!err || err == -EINTR)
			break;
		usleep(100000);
	}
	return workload_stop ? -EINTR : err;
}

static int start_cluster(struct workload_ctx *ctx, struct pgbench_state *s)
{
	char tool[PATH_LEN + 16], log[PATH_LEN + 32], tail[200];
	char scale[24];
	const char
		*initdb[] =
			{tool,	  "-D",		s->data,     "-U",
			 PG_USER, "-A",		"trust",     "-E",
			 "UTF8",  "--locale=C", "--no-sync", /* synced once,
								below, with the
								whole target */
			 NULL};
	const char *server[] = {
		tool, "-D", s->data, "-k", s->priv, "-c", "listen_addresses=",
		NULL};
	const char *init[] = {"pgbench", "-i",	     "-q", "-s",
			      scale,	 "postgres", NULL};
	int err;

	bin(s, "initdb", tool, sizeof(tool));
	logfile(s, "initdb", log, sizeof(log));
	err = server_exec(&s->user, initdb, log);
	if (err) {
		server_log_tail(log, tail, sizeof(tail));
		if (err != -EINTR)
			fprintf(stderr, "encbench-trace: pgbench: initdb: %s\n",
				tail);
		return err;
	}
	bin(s, "postgres", tool, sizeof(tool));
	logfile(s, "server", log, sizeof(log));
	s->server = server_start(ctx, &s->user, server, log, SIGQUIT);
	if (s->server < 0)
		return s->server;
	err = wait_ready(s);
	if (err) {
		server_log_tail(log, tail, sizeof(tail));
		if (err != -EINTR)
			fprintf(stderr,
				"encbench-trace: pgbench: the server is not "
				"ready (%s): %s\n",
				strerror(-err), tail);
		return err;
	}
	snprintf(scale, sizeof(scale), "%ld", s->p->scale);
	err = client(s, "init", init, false) ?: checkpoint(s);
	if (!err)
		sync();
	return err;
}

static void pgbench_teardown(struct workload_ctx *ctx)
{
	struct pgbench_state *s = ctx->state;

	if (!s)
		return;
	/* SIGINT: PostgreSQL's fast shutdown (clients cut, a checkpoint);
	 * SIGKILL to its session after 30 s. */
	server_stop(s->server, SIGINT, 30);
	if (s->data[0] && server_remove_tree(s->data))
		fprintf(stderr, "encbench-trace: pgbench: cannot remove %s\n",
			s->data);
	if (s->priv[0] && server_remove_tree(s->priv))
		fprintf(stderr, "encbench-trace: pgbench: cannot remove %s\n",
			s->priv);
	free(s);
	ctx->state = NULL;
}

static int pgbench_setup(struct workload_ctx *ctx)
{
	struct pgbench_state *s = calloc(1, sizeof(*s));
	char why[DETAIL_LEN];
	int err;

	if (!s)
		return -ENOMEM;
	ctx->state = s;
	s->p = ctx->params;
	find_bindir(s->bindir, sizeof(s->bindir));
	if (server_user_find(PG_USER, &s->user, why, sizeof(why)))
		err = -ENOENT;
	else
		err = server_private_dir("pgbench", &s->user, s->priv,
					 sizeof(s->priv));
	if (!err) {
		workload_path(ctx, "pgdata", s->data, sizeof(s->data));
		err = server_mkdir(s->data, &s->user);
		if (err)
			s->data[0] = '\0'; /* not ours: never removed */
	}
	if (!err)
		err = start_cluster(ctx, s);
	if (err)
		pgbench_teardown(ctx);
	return err;
}

/* The timed child: pgbench itself, its report to s->out. */
static int run_pgbench(void *arg, double *secs)
{
	const struct pgbench_state *s = arg;
	char tool[PATH_LEN + 16], c[24], j[24], t[24];
	const char *argv[] = {tool, "-c",    c,	   "-j",    j,		"-T", t,
			      "-h", s->priv, "-U", PG_USER, "postgres", NULL};
	double t0 = now_s();
	int err;

	bin(s, "pgbench", tool, sizeof(tool));
	snprintf(c, sizeof(c), "%ld", s->p->clients);
	snprintf(j, sizeof(j), "%ld", s->p->threads);
	snprintf(t, sizeof(t), "%ld", s->p->seconds);
	err = server_exec(NULL, argv, s->out);
	*secs = now_s() - t0;
	return err;
}

/* "tps = 123.4 (without initial connection time)" and its siblings. */
static int parse_report(const char *path, double *tps, double *lat_ms,
			double *txns)
{
	char line[256];
	int found = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		found += sscanf(line, "tps = %lf (without", tps) == 1;
		found += sscanf(line, "latency average = %lf ms", lat_ms) == 1;
		found += sscanf(line,
				"number of transactions actually processed: "
				"%lf",
				txns) == 1;
	}
	fclose(f);
	return found == 3 ? 0 : -EBADMSG;
}

static int pgbench_run_once(const struct workload_ctx *ctx, struct sample *out)
{
	struct pgbench_state *s = ctx->state;
	int err;

	snprintf(s->out, sizeof(s->out), "%s/run-%d.log", s->priv,
		 ctx->iteration);
	err = checkpoint(s);
	if (!err && ctx->drop_caches)
		err = drop_caches(ctx->target);
	if (!err)
		err = workload_spawn_client(ctx, run_pgbench, s, out, 0);
	if (!err && parse_report(s->out, &out->values[0], &out->values[1],
				 &out->values[2])) {
		char tail[200];

		server_log_tail(s->out, tail, sizeof(tail));
		fprintf(stderr,
			"encbench-trace: pgbench: no figures in its "
			"output: %s\n",
			tail);
		err = -EBADMSG;
	}
	if (!err && out->values[2] < 1) {
		fprintf(stderr, "encbench-trace: pgbench: no transaction "
				"completed\n");
		err = -EIO;
	}
	sample_share(out, 0, 1);
	sample_share(out, 0, 2);
	return err;
}

static void pgbench_defaults(void *p)
{
	*(struct pgbench_params *)p = (struct pgbench_params){
		.scale = 1, .clients = 4, .threads = 2, .seconds = 10};
}

static void pgbench_common(void *p, const struct workload_common *c)
{
	struct pgbench_params *g = p;

	g->scale = workload_scaled(g->scale, c->scale);
	g->seconds = workload_scaled(g->seconds, c->scale);
}

static const struct workload_count_key pgbench_counts[] = {
	{"scale", offsetof(struct pgbench_params, scale), 100000},
	{"clients", offsetof(struct pgbench_params, clients), 1000},
	{"threads", offsetof(struct pgbench_params, threads), 1000},
	{"seconds", offsetof(struct pgbench_params, seconds), 86400},
	{0},
};

static int pgbench_set(void *p, const char *key, const char *value, char *why,
		       size_t len)
{
	return workload_set_count("pgbench", pgbench_counts, p, key, value, why,
				  len)
		       ? -1
		       : 0;
}

static int pgbench_check(const void *p, char *why, size_t len)
{
	const struct pgbench_params *g = p;

	if (g->threads > g->clients) {
		snprintf(why, len,
			 "--pgbench-threads %ld is more than --pgbench-clients "
			 "%ld (pgbench needs a client per thread)",
			 g->threads, g->clients);
		return -1;
	}
	return 0;
}

/* initdb's cluster (~40 MiB, a 16 MiB WAL segment among it), the tables
 * (~16 MiB per scale unit, indexes and a vacuum's room doubling it) and
 * the WAL a run writes between checkpoints (a few MiB per second at
 * thousands of transactions per second, full-page images included). */
static uint64_t pgbench_space(const void *p)
{
	const struct pgbench_params *g = p;

	return (160ULL + 32ULL * g->scale + 4ULL * g->seconds) << 20;
}

static int pgbench_metrics(const void *p, struct metric_def out[MAX_METRICS])
{
	(void)p;
	out[0] = (struct metric_def){"tps", "tx/s", true};
	out[1] = (struct metric_def){"latency_ms", "ms", false};
	out[2] = (struct metric_def){"transactions", "tx", true};
	return 3;
}

static void pgbench_describe(const void *p, struct param_list *out)
{
	const struct pgbench_params *g = p;
	char bindir[PATH_LEN], *v;

	param_int(out, "scale", g->scale);
	param_int(out, "clients", g->clients);
	param_int(out, "threads", g->threads);
	param_int(out, "seconds", g->seconds);
	param_str(out, "mode", "read-write (TPC-B-like, pgbench default)");
	find_bindir(bindir, sizeof(bindir));
	/* /usr/lib/postgresql/15/bin -> "15" */
	v = strstr(bindir, "postgresql/");
	if (v) {
		v += strlen("postgresql/");
		v[strcspn(v, "/")] = '\0';
		param_str(out, "postgresql_version", v);
	}
}

static const struct workload_key pgbench_keys[] = {
	{"scale", "pgbench -i scale factor, 100 000 rows each (default 1)"},
	{"clients", "concurrent clients, pgbench -c (default 4)"},
	{"threads", "pgbench worker threads, -j (default 2)"},
	{"seconds", "length of each timed run, -T (default 10)"},
	{0},
};

const struct workload_ops pgbench_workload_ops = {
	.name = "pgbench",
	.help = "PostgreSQL pgbench read-write on a throwaway cluster on the target; TPS",
	.follows =
		"Phoronix's PostgreSQL pgbench (Debian's server; the server's processes are traced, not the client)",
	.params_size = sizeof(struct pgbench_params),
	.defaults = pgbench_defaults,
	.common = pgbench_common,
	.set = pgbench_set,
	.keys = pgbench_keys,
	.check = pgbench_check,
	.space_needed = pgbench_space,
	.metrics = pgbench_metrics,
	.describe = pgbench_describe,
	.not_applicable = pgbench_not_applicable,
	.setup = pgbench_setup,
	.teardown = pgbench_teardown,
	.run_once = pgbench_run_once,
};
