// SPDX-License-Identifier: MIT
/*
 * nginx: Phoronix's NGINX static web page serving, with wrk as the load
 * generator. Per target: `files` files of `file_bytes` random bytes on
 * the target, and nginx (Debian's) started as Debian's web user
 * `www-data` (nothing of it runs as root) with a private configuration:
 * 127.0.0.1 on a free port, its pid file, logs and temp folders in a
 * private folder, no access log, sendfile as Debian ships it. Each
 * iteration drops caches (untimed, as dd does: the first request of each
 * file then reads it from the target), then `wrk -t -c -d` requests the
 * files at random as the timed client, not traced itself: nginx's
 * workers do the target's I/O. nginx is stopped and everything removed
 * at teardown, Ctrl-C included.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server.h"
#include "workload.h"
#include "../storage/target.h"

#define NGINX_BIN  "/usr/sbin/nginx"
#define WRK_BIN	   "/usr/bin/wrk"
#define NGINX_USER "www-data"

struct nginx_params {
	long files, file_bytes, threads, connections, seconds;
};

struct nginx_state {
	struct server_user user;
	char priv[PATH_LEN];	  /* config, pid file, logs, temp folders */
	char root[PATH_LEN + 32]; /* the files served, on the target */
	int port;
	pid_t server;
	const struct nginx_params *p;
	char out[PATH_LEN + 32]; /* wrk's report, this iteration */
};

static const char *nginx_not_applicable(const struct target *t, const void *p)
{
	static char why[DETAIL_LEN];
	struct server_user u;

	(void)p;
	if (access(NGINX_BIN, X_OK))
		return "no " NGINX_BIN " (Debian's nginx package; "
		       "scripts/install-deps.sh installs it)";
	if (access(WRK_BIN, X_OK))
		return "no " WRK_BIN " (Debian's wrk package; "
		       "scripts/install-deps.sh installs it)";
	if (server_user_find(NGINX_USER, &u, why, sizeof(why)))
		return why;
	return server_unreachable(&u, t->info.dir, why, sizeof(why));
}

/* A port nobody listens on now; nginx may still lose it to someone
 * else before it binds (the caller tries again). */
static int free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -errno;
	if (!bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	close(fd);
	return port > 0 ? port : -EADDRNOTAVAIL;
}

static bool accepting(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a));
	if (fd >= 0)
		close(fd);
	return ok;
}

/* A file owned by the server's user (it reads its own configuration). */
static int write_private(const struct nginx_state *s, const char *name,
			 const char *text)
{
	char path[PATH_LEN + 32];
	size_t n = strlen(text);
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", s->priv, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, text, n) != (ssize_t)n || fchown(fd, s->user.uid, -1))
		err = -errno ?: -EIO;
	close(fd);
	return err;
}

static int write_config(const struct nginx_state *s)
{
	char conf[4096];

	snprintf(conf, sizeof(conf),
		 "daemon off;\n"
		 "worker_processes auto;\n"
		 "pid %1$s/nginx.pid;\n"
		 "error_log %1$s/error.log warn;\n"
		 "events { worker_connections 1024; }\n"
		 "http {\n"
		 "  access_log off;\n"
		 "  sendfile on;\n"
		 "  default_type application/octet-stream;\n"
		 "  client_body_temp_path %1$s/body;\n"
		 "  proxy_temp_path %1$s/proxy;\n"
		 "  fastcgi_temp_path %1$s/fastcgi;\n"
		 "  uwsgi_temp_path %1$s/uwsgi;\n"
		 "  scgi_temp_path %1$s/scgi;\n"
		 "  server {\n"
		 "    listen 127.0.0.1:%2$d;\n"
		 "    root %3$s;\n"
		 "  }\n"
		 "}\n",
		 s->priv, s->port, s->root);
	return write_private(s, "nginx.conf", conf);
}

/* wrk asks for one of the files at random per request. */
static int write_script(const struct nginx_state *s)
{
	char lua[512];

	snprintf(lua, sizeof(lua),
		 "request = function()\n"
		 "  return wrk.format(nil, \"/f\" .. math.random(0, %ld))\n"
		 "end\n",
		 s->p->files - 1);
	return write_private(s, "wrk.lua", lua);
}

/* The files served: random bytes, readable by the server's user. */
static int make_files(const struct nginx_state *s)
{
	size_t n = s->p->file_bytes;
	char *buf = malloc(n);
	char path[PATH_LEN + 64];
	int err = 0;

	if (!buf)
		return -ENOMEM;
	if (mkdir(s->root, 0711)) {
		free(buf);
		return -errno;
	}
	for (long i = 0; i < s->p->files && !err && !workload_stop; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/f%ld", s->root, i);
		if (getrandom(buf, n, 0) != (ssize_t)n) {
			err = -EIO;
			break;
		}
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			err = -errno;
			break;
		}
		if (write(fd, buf, n) != (ssize_t)n)
			err = -errno ?: -EIO;
		close(fd);
	}
	free(buf);
	return workload_stop ? -EINTR : err;
}

/* Start nginx on s->port and wait (10 s at most) for it to accept. */
static int start_once(struct workload_ctx *ctx, struct nginx_state *s)
{
	char conf[PATH_LEN + 32], elog[PATH_LEN + 32], log[PATH_LEN + 32];
	char prefix[PATH_LEN + 2];
	const char *argv[] = {NGINX_BIN, "-p", prefix, "-c",
			      conf,	 "-e", elog,   NULL};
	double end;

	snprintf(prefix, sizeof(prefix), "%s/", s->priv);
	snprintf(conf, sizeof(conf), "%s/nginx.conf", s->priv);
	snprintf(elog, sizeof(elog), "%s/error.log", s->priv);
	snprintf(log, sizeof(log), "%s/server.log", s->priv);
	s->server = server_start(ctx, &s->user, argv, log, SIGTERM);
	if (s->server < 0)
		return s->server;
	end = now_s() + 10;
	while (!workload_stop && server_alive(s->server) && now_s() < end) {
		if (accepting(s->port))
			return 0;
		usleep(20000);
	}
	server_stop(s->server, SIGTERM, 5);
	s->server = 0;
	return workload_stop ? -EINTR : -EIO;
}

static void nginx_teardown(struct workload_ctx *ctx)
{
	struct nginx_state *s = ctx->state;

	if (!s)
		return;
	/* SIGTERM: nginx's fast shutdown; SIGKILL after 10 s. */
	server_stop(s->server, SIGTERM, 10);
	if (s->root[0] && server_remove_tree(s->root))
		fprintf(stderr, "encbench-trace: nginx: cannot remove %s\n",
			s->root);
	if (s->priv[0] && server_remove_tree(s->priv))
		fprintf(stderr, "encbench-trace: nginx: cannot remove %s\n",
			s->priv);
	free(s);
	ctx->state = NULL;
}

static int nginx_setup(struct workload_ctx *ctx)
{
	struct nginx_state *s = calloc(1, sizeof(*s));
	char why[DETAIL_LEN], num[16], path[PATH_LEN + 32], tail[200];
	int err = 0;

	if (!s)
		return -ENOMEM;
	ctx->state = s;
	s->p = ctx->params;
	if (server_user_find(NGINX_USER, &s->user, why, sizeof(why)))
		err = -ENOENT;
	if (!err)
		err = server_private_dir("nginx", &s->user, s->priv,
					 sizeof(s->priv));
	if (!err) {
		workload_path(ctx, "www", s->root, sizeof(s->root));
		err = make_files(s);
		if (err == -EEXIST)
			s->root[0] = '\0'; /* not ours: never removed */
	}
	if (!err)
		err = write_script(s);
	/* A port taken between our look and nginx's bind: another one. */
	for (int tries = 0; !err && tries < 3; tries++) {
		err = free_port();
		if (err < 0)
			break;
		s->port = err;
		snprintf(num, sizeof(num), "%d", s->port);
		server_record("port", num);
		snprintf(path, sizeof(path), "%s/nginx.conf", s->priv);
		unlink(path);
		err = write_config(s) ?: start_once(ctx, s);
		if (err != -EIO)
			break;
	}
	if (err == -EIO) {
		snprintf(path, sizeof(path), "%s/error.log", s->priv);
		server_log_tail(path, tail, sizeof(tail));
		fprintf(stderr, "encbench-trace: nginx did not start: %s\n",
			tail);
	}
	if (!err)
		sync();
	if (err)
		nginx_teardown(ctx);
	return err;
}

/* The timed child: wrk itself, its report to s->out. */
static int run_wrk(void *arg, double *secs)
{
	const struct nginx_state *s = arg;
	char t[24], c[24], d[24], url[64], lua[PATH_LEN + 16];
	const char *argv[] = {WRK_BIN, "-t", t,	  "-c", c,   "-d",
			      d,       "-s", lua, url,	NULL};
	double t0 = now_s();
	int err;

	snprintf(t, sizeof(t), "%ld", s->p->threads);
	snprintf(c, sizeof(c), "%ld", s->p->connections);
	snprintf(d, sizeof(d), "%lds", s->p->seconds);
	snprintf(lua, sizeof(lua), "%s/wrk.lua", s->priv);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", s->port);
	err = server_exec(NULL, argv, s->out);
	*secs = now_s() - t0;
	return err;
}

/* wrk's "Latency 1.23ms" (us, ms, s, m) in ms. */
static double to_ms(double v, const char *unit)
{
	if (!strcmp(unit, "us"))
		return v / 1e3;
	if (!strcmp(unit, "s"))
		return v * 1e3;
	if (!strcmp(unit, "m"))
		return v * 60e3;
	return v; /* ms */
}

struct wrk_report {
	double rps, latency_ms, requests;
	long bad; /* non-2xx or 3xx responses */
};

static int parse_report(const char *path, struct wrk_report *w)
{
	char line[256], unit[8];
	double v;
	int found = 0, n;
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	memset(w, 0, sizeof(*w));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " Latency %lf%7[a-z]", &v, unit) == 2) {
			w->latency_ms = to_ms(v, unit);
			found++;
		}
		/* %n: "2 threads and 16 connections" converts a number too. */
		n = 0;
		if (sscanf(line, " %lf requests in%n", &v, &n) == 1 && n) {
			w->requests = v;
			found++;
		}
		found += sscanf(line, "Requests/sec: %lf", &w->rps) == 1;
		sscanf(line, " Non-2xx or 3xx responses: %ld", &w->bad);
	}
	fclose(f);
	return found == 3 ? 0 : -EBADMSG;
}

static int nginx_run_once(const struct workload_ctx *ctx, struct sample *out)
{
	struct nginx_state *s = ctx->state;
	struct wrk_report w;
	char tail[200];
	int err = 0;

	snprintf(s->out, sizeof(s->out), "%s/run-%d.log", s->priv,
		 ctx->iteration);
	if (ctx->drop_caches)
		err = drop_caches(ctx->target);
	if (!err)
		err = workload_spawn_client(ctx, run_wrk, s, out, 0);
	if (!err && parse_report(s->out, &w)) {
		server_log_tail(s->out, tail, sizeof(tail));
		fprintf(stderr,
			"encbench-trace: nginx: no figures in wrk's "
			"output: %s\n",
			tail);
		err = -EBADMSG;
	}
	/* A file not served is no measurement of serving it. */
	if (!err && (w.bad || w.requests < 1)) {
		fprintf(stderr,
			"encbench-trace: nginx: %ld of %.0f responses were "
			"not 2xx/3xx\n",
			w.bad, w.requests);
		err = -EIO;
	}
	if (!err) {
		out->values[0] = w.rps;
		out->values[1] = w.latency_ms;
		out->values[2] = w.requests;
	}
	sample_share(out, 0, 1);
	sample_share(out, 0, 2);
	return err;
}

static void nginx_defaults(void *p)
{
	*(struct nginx_params *)p = (struct nginx_params){
		.files = 100,
		.file_bytes = 16 << 10,
		.threads = 2,
		.connections = 16,
		.seconds = 10,
	};
}

static void nginx_common(void *p, const struct workload_common *c)
{
	struct nginx_params *g = p;

	g->seconds = workload_scaled(g->seconds, c->scale);
}

static const struct workload_count_key nginx_counts[] = {
	{"files", offsetof(struct nginx_params, files), 1000000},
	{"threads", offsetof(struct nginx_params, threads), 1000},
	{"connections", offsetof(struct nginx_params, connections), 100000},
	{"seconds", offsetof(struct nginx_params, seconds), 86400},
	{0},
};

static int nginx_set(void *p, const char *key, const char *value, char *why,
		     size_t len)
{
	struct nginx_params *g = p;
	uint64_t bytes;

	if (strcmp(key, "file-size"))
		return workload_set_count("nginx", nginx_counts, p, key, value,
					  why, len)
			       ? -1
			       : 0;
	if (workload_opt_size("nginx", key, value, 1, &bytes, why, len))
		return -1;
	if (bytes > (64ULL << 20)) {
		snprintf(why, len,
			 "invalid --nginx-file-size '%s': at most 64M", value);
		return -1;
	}
	g->file_bytes = (long)bytes;
	return 0;
}

static int nginx_check(const void *p, char *why, size_t len)
{
	const struct nginx_params *g = p;

	if (g->threads > g->connections) {
		snprintf(why, len,
			 "--nginx-threads %ld is more than --nginx-connections "
			 "%ld (wrk needs a connection per thread)",
			 g->threads, g->connections);
		return -1;
	}
	return 0;
}

static uint64_t nginx_space(const void *p)
{
	const struct nginx_params *g = p;

	/* Each file takes whole 4 KiB blocks. */
	return (uint64_t)g->files * ((g->file_bytes + 4095) & ~4095L) +
	       (1 << 20);
}

static int nginx_metrics(const void *p, struct metric_def out[MAX_METRICS])
{
	(void)p;
	out[0] = (struct metric_def){"requests_per_s", "req/s", true};
	out[1] = (struct metric_def){"latency_ms", "ms", false};
	out[2] = (struct metric_def){"requests", "req", true};
	return 3;
}

static void nginx_describe(const void *p, struct param_list *out)
{
	const struct nginx_params *g = p;

	param_int(out, "files", g->files);
	param_int(out, "file_bytes", g->file_bytes);
	param_int(out, "threads", g->threads);
	param_int(out, "connections", g->connections);
	param_int(out, "seconds", g->seconds);
	param_str(out, "listen", "127.0.0.1, a free port");
}

static const struct workload_key nginx_keys[] = {
	{"files", "files served, requested at random (default 100)"},
	{"file-size", "bytes per file (default 16K)"},
	{"threads", "wrk threads, -t (default 2)"},
	{"connections", "wrk connections kept open, -c (default 16)"},
	{"seconds", "length of each timed run, -d (default 10)"},
	{0},
};

const struct workload_ops nginx_workload_ops = {
	.name = "nginx",
	.help = "nginx serving static files from the target, wrk as the client; requests/s",
	.follows = "Phoronix's NGINX static web page serving (Debian's nginx "
		   "and wrk; nginx's processes are traced, not wrk)",
	.params_size = sizeof(struct nginx_params),
	.defaults = nginx_defaults,
	.common = nginx_common,
	.set = nginx_set,
	.keys = nginx_keys,
	.check = nginx_check,
	.space_needed = nginx_space,
	.metrics = nginx_metrics,
	.describe = nginx_describe,
	.not_applicable = nginx_not_applicable,
	.setup = nginx_setup,
	.teardown = nginx_teardown,
	.run_once = nginx_run_once,
};
