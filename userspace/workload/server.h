/* SPDX-License-Identifier: MIT */
/*
 * What the server workloads (pgbench, nginx) share. A server runs as an
 * unprivileged system user, in a session of its own (a Ctrl-C on the
 * terminal reaches us, and we stop it in order), held on a pipe after
 * fork until the tracer follows it (so its first child is followed too),
 * and dies with us if we are killed (PR_SET_PDEATHSIG). It is always
 * stopped, and anything left in its session killed; its private folder
 * outside the targets (socket, pid file, logs) is removed with it.
 *
 * ENCBENCH_SERVERS_FILE (set by the tests) gets one line per thing made,
 * as it is made: "pid N" (a server, leader of its own session), "dir
 * PATH", "port N"; an interrupted run's are known too.
 */
#ifndef ENCBENCH_SERVER_H
#define ENCBENCH_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct workload_ctx;

struct server_user {
	char name[32];
	uid_t uid;
	gid_t gid;
};

/* 0, or -1 with why: the user does not exist. */
int server_user_find(const char *name, struct server_user *u, char *why,
		     size_t len);
/* NULL if u can reach dir (search every folder down to it and dir);
 * else why not, in why (and returned). Asked of the kernel, as u. */
const char *server_unreachable(const struct server_user *u, const char *dir,
			       char *why, size_t len);
/* A new private folder /tmp/encbench-<tag>.XXXXXX, mode 0700, owned by u. */
int server_private_dir(const char *tag, const struct server_user *u, char *out,
		       size_t len);
/* mkdir path 0700 owned by u: 0 or -errno. */
int server_mkdir(const char *path, const struct server_user *u);
/* Run argv to its end as u (NULL: as we are), stdout and stderr appended
 * to log; 0 if it exited 0, -EINTR when stopped by Ctrl-C, else -EIO. */
int server_exec(const struct server_user *u, const char *const *argv,
		const char *log);
/* Start server argv as u, followed by ctx's tracer before it runs; its
 * output appended to log. Its pid, or -errno. */
pid_t server_start(const struct workload_ctx *ctx, const struct server_user *u,
		   const char *const *argv, const char *log, int deathsig);
/* Still running (not exited)? Reaps it if it has exited. */
bool server_alive(pid_t pid);
/* Send sig; after `secs` without it ending, SIGKILL. Then SIGKILL to
 * whatever is left in its session, and reap it. */
void server_stop(pid_t pid, int sig, double secs);
/* Remove dir and everything in it, never following a link: 0 or -errno. */
int server_remove_tree(const char *dir);
/* Append "what value" to ENCBENCH_SERVERS_FILE, if set. */
void server_record(const char *what, const char *value);
/* The last `max - 1` bytes of file path, for an error message. */
void server_log_tail(const char *path, char *buf, size_t max);

#endif /* ENCBENCH_SERVER_H */
