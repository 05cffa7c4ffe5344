// SPDX-License-Identifier: MIT
/* Servers for the workloads that need one: see server.h. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server.h"
#include "workload.h"
#include "../common/envfile.h"

int server_user_find(const char *name, struct server_user *u, char *why,
		     size_t len)
{
	struct passwd *pw = getpwnam(name);

	if (!pw) {
		snprintf(why, len, "no user '%s' on this system", name);
		return -1;
	}
	snprintf(u->name, sizeof(u->name), "%s", name);
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	return 0;
}

/* In a child: become u for good (groups first, the uid last). */
static int become(const struct server_user *u)
{
	if (!u)
		return 0;
	if (setgroups(0, NULL) || setgid(u->gid) || setuid(u->uid))
		return -1;
	return 0;
}

const char *server_unreachable(const struct server_user *u, const char *dir,
			       char *why, size_t len)
{
	int status, code;
	pid_t pid = fork();

	if (pid < 0) {
		snprintf(why, len, "cannot fork: %s", strerror(errno));
		return why;
	}
	if (pid == 0)
		_exit(become(u) ? 255 : access(dir, X_OK) ? errno : 0);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			break;
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 255;
	if (!code)
		return NULL;
	if (code == 255)
		snprintf(why, len, "cannot become user %s", u->name);
	else
		snprintf(why, len,
			 "user %s cannot reach %s (%s): a folder on the way "
			 "is not searchable by that user",
			 u->name, dir, strerror(code));
	return why;
}

void server_record(const char *what, const char *value)
{
	envfile_append("ENCBENCH_SERVERS_FILE", "%s %s", what, value);
}

int server_private_dir(const char *tag, const struct server_user *u, char *out,
		       size_t len)
{
	snprintf(out, len, "/tmp/encbench-%s.XXXXXX", tag);
	if (!mkdtemp(out)) {
		out[0] = '\0';
		return -errno;
	}
	server_record("dir", out);
	if (u && chown(out, u->uid, u->gid)) {
		int err = -errno;

		rmdir(out);
		out[0] = '\0';
		return err;
	}
	return 0;
}

int server_mkdir(const char *path, const struct server_user *u)
{
	if (mkdir(path, 0700))
		return -errno;
	if (u && chown(path, u->uid, u->gid)) {
		int err = -errno;

		rmdir(path);
		return err;
	}
	return 0;
}

/* In the child: output to log, no terminal, default signals, become u,
 * exec. Never returns. */
static void child_exec(const struct server_user *u, const char *const *argv,
		       const char *log, int deathsig, pid_t parent)
{
	int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	sigset_t none;

	if (fd < 0 || nul < 0 || dup2(nul, 0) < 0 || dup2(fd, 1) < 0 ||
	    dup2(fd, 2) < 0)
		_exit(126);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setsid();
	if (become(u))
		_exit(126);
	/* After the uid change, which clears it; and our parent may already
	 * be gone. */
	if (deathsig &&
	    (prctl(PR_SET_PDEATHSIG, deathsig) || getppid() != parent))
		_exit(126);
	execv(argv[0], (char *const *)argv);
	_exit(127);
}

int server_exec(const struct server_user *u, const char *const *argv,
		const char *log)
{
	pid_t parent = getpid(), pid = fork();
	bool stopped = false;
	int status;

	if (pid < 0)
		return -errno;
	if (pid == 0)
		child_exec(u, argv, log, SIGKILL, parent);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
		/* Ctrl-C: it is in its own session, so stop it ourselves. */
		if (workload_stop && !stopped) {
			kill(pid, SIGTERM);
			stopped = true;
		}
	}
	if (workload_stop)
		return -EINTR;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

pid_t server_start(const struct workload_ctx *ctx, const struct server_user *u,
		   const char *const *argv, const char *log, int deathsig)
{
	pid_t parent = getpid(), pid;
	char num[24];
	int gate[2];

	if (pipe2(gate, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid == 0) {
		char go;

		close(gate[1]);
		if (read(gate[0], &go, 1) != 0)
			_exit(126);
		child_exec(u, argv, log, deathsig, parent);
	}
	close(gate[0]);
	if (pid > 0) {
		snprintf(num, sizeof(num), "%d", (int)pid);
		server_record("pid", num);
		workload_follow(ctx, pid);
	}
	close(gate[1]); /* EOF: it goes */
	return pid < 0 ? -errno : pid;
}

/* Has it exited? Left a zombie, not reaped: its pid (and session id)
 * cannot be reused while we still signal them. */
static bool exited(pid_t pid)
{
	siginfo_t info = {0};

	if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT))
		return errno != EINTR;
	return info.si_pid == pid;
}

bool server_alive(pid_t pid)
{
	return pid > 0 && !exited(pid);
}

void server_stop(pid_t pid, int sig, double secs)
{
	double end = now_s() + secs;
	int status;

	if (pid <= 0)
		return;
	kill(pid, sig);
	while (!exited(pid)) {
		if (now_s() > end) {
			kill(pid, SIGKILL);
			end = now_s() + 60;
		}
		usleep(20000);
	}
	/* Its session (its id is its pid): whatever it left running. */
	kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

static int remove_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP ? rmdir(path) : unlink(path))
		return errno == ENOENT ? 0 : -1;
	return 0;
}

int server_remove_tree(const char *dir)
{
	if (!dir[0])
		return 0;
	if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS))
		return errno == ENOENT ? 0 : -errno;
	return 0;
}

void server_log_tail(const char *path, char *buf, size_t max)
{
	FILE *f = fopen(path, "re");
	long size;
	size_t n = 0;

	buf[0] = '\0';
	if (!f)
		return;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) > (long)max - 1)
		fseek(f, size - (long)(max - 1), SEEK_SET);
	else
		fseek(f, 0, SEEK_SET);
	n = fread(buf, 1, max - 1, f);
	buf[n] = '\0';
	fclose(f);
	/* One line for an error message. */
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\n' || buf[i] == '\t')
			buf[i] = ' ';
}
