// SPDX-License-Identifier: MIT
/* Helpers every layer shares: naming a device, running mkfs. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "layer.h"
#include "../common/state.h"

/* Read what is left of fds[0] (stdout, into out) and fds[1] (stderr, into
 * err) until both reach end of file; -1 marks a closed one. */
static void drain(int fds[2], char *out, size_t outlen, char *err,
		  size_t errlen)
{
	size_t used[2] = {0, 0}, cap[2] = {outlen, errlen};
	char *buf[2] = {out, err}, sink[512];

	while (fds[0] >= 0 || fds[1] >= 0) {
		struct pollfd p[2] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}};

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++) {
			ssize_t n;
			size_t room =
				cap[i] > used[i] + 1 ? cap[i] - used[i] - 1 : 0;

			if (fds[i] < 0 || !(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			/* Past the room we keep, read into a sink: a child
			 * blocked on a full pipe would never exit. */
			n = room ? read(fds[i], buf[i] + used[i], room)
				 : read(fds[i], sink, sizeof(sink));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(fds[i]);
				fds[i] = -1;
			} else if (room) {
				used[i] += n;
			}
		}
	}
	if (outlen)
		out[used[0]] = '\0';
	err[used[1]] = '\0';
}

/* write(), but a reader that is gone gives EPIPE, not a fatal SIGPIPE:
 * blocked while writing, and a pending one taken back. */
static ssize_t write_nosigpipe(int fd, const void *buf, size_t len)
{
	static const struct timespec now = {0, 0};
	sigset_t pipe_only, old;
	ssize_t n;

	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
	n = write(fd, buf, len);
	if (n < 0 && errno == EPIPE)
		sigtimedwait(&pipe_only, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return n;
}

int run_cmd_io(char *const argv[], const void *in, size_t inlen, char *out,
	       size_t outlen)
{
	int status, ip[2] = {-1, -1}, op[2] = {-1, -1}, ep[2] = {-1, -1};
	int fds[2], err = 0;
	char msg[512];
	pid_t pid;

	/* The input is written whole before the output is read: it must
	 * fit in the pipe (a key, a passphrase), or the two would block. */
	if (inlen > 4096)
		return -E2BIG;
	if ((in && pipe2(ip, O_CLOEXEC) < 0) ||
	    (out && pipe2(op, O_CLOEXEC) < 0) || pipe2(ep, O_CLOEXEC) < 0) {
		err = -errno;
		goto cleanup;
	}
	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto cleanup;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(in ? ip[0] : null, STDIN_FILENO);
		dup2(out ? op[1] : null, STDOUT_FILENO);
		dup2(ep[1], STDERR_FILENO);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	if (in) {
		close(ip[0]);
		ip[0] = -1;
		if (write_nosigpipe(ip[1], in, inlen) != (ssize_t)inlen)
			err = -EPIPE;
		close(ip[1]);
		ip[1] = -1;
	}
	if (op[1] >= 0)
		close(op[1]);
	close(ep[1]);
	op[1] = ep[1] = -1;
	fds[0] = op[0];
	fds[1] = ep[0];
	op[0] = ep[0] = -1;
	/* Keep the first words of its stderr: they say why it failed. */
	drain(fds, out, outlen, msg, sizeof(msg));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return -EINTR; /* killed by a signal: treat as interrupted */
	if (WEXITSTATUS(status) && msg[0]) {
		msg[strcspn(msg, "\n")] = '\0';
		fprintf(stderr, "encbench-trace: %s: %s\n", argv[0], msg);
	}
	return err ?: WEXITSTATUS(status);
cleanup:
	for (int i = 0; i < 2; i++) {
		if (ip[i] >= 0)
			close(ip[i]);
		if (op[i] >= 0)
			close(op[i]);
		if (ep[i] >= 0)
			close(ep[i]);
	}
	return err;
}

int run_cmd(char *const argv[])
{
	return run_cmd_io(argv, NULL, 0, NULL, 0);
}

int layer_sparse_file(const char *path, uint64_t bytes, int *rec, bool *made)
{
	int fd = state_create_file(path, rec), err = 0;

	*made = fd >= 0;
	if (fd < 0) {
		fprintf(stderr, "encbench-trace: cannot create %s: %s\n", path,
			strerror(-fd));
		return fd;
	}
	/* Sparse: the file costs only what is written to it. */
	if (ftruncate(fd, bytes) < 0) {
		err = -errno;
		fprintf(stderr, "encbench-trace: cannot size %s: %s\n", path,
			strerror(errno));
	}
	close(fd);
	return err;
}

int layer_add_device(struct target_info *ti, const char *devname,
		     const char *role)
{
	char path[PATH_LEN];
	struct stat st;
	struct device_info *d;

	if (ti->nr_devices >= MAX_DEVICES)
		return -E2BIG;
	snprintf(path, sizeof(path), "/dev/%s", devname);
	if (stat(path, &st) < 0)
		return -errno;
	d = &ti->devices[ti->nr_devices++];
	snprintf(d->name, sizeof(d->name), "%s", devname);
	snprintf(d->role, sizeof(d->role), "%s", role);
	d->major = major(st.st_rdev);
	d->minor = minor(st.st_rdev);
	return 0;
}
