// SPDX-License-Identifier: MIT
/*
 * The target table and the building blocks every target shares: a sparse
 * image, a loop device over it, mkfs, mount, and the one teardown that
 * undoes whichever of those happened.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "target.h"

extern const struct target_ops plain_target_ops;
extern const struct target_ops fscrypt_target_ops;

static const struct target_ops *const target_table[] = {
	&plain_target_ops,
	&fscrypt_target_ops,
	NULL,
};

const struct target_ops *const *target_list(void)
{
	return target_table;
}

const struct target_ops *target_find(const char *kind)
{
	for (int i = 0; target_table[i]; i++)
		if (!strcmp(target_table[i]->kind, kind))
			return target_table[i];
	return NULL;
}

int run_cmd(char *const argv[])
{
	char err[512];
	ssize_t n, len = 0;
	int status, pfd[2];
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	/* Keep the first words of its stderr: they say why it failed. */
	while ((n = read(pfd[0], err + len, sizeof(err) - 1 - len)) > 0 ||
	       (n < 0 && errno == EINTR))
		len += n > 0 ? n : 0;
	err[len] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return -EINTR; /* killed by a signal: treat as interrupted */
	if (WEXITSTATUS(status) && len) {
		err[strcspn(err, "\n")] = '\0';
		fprintf(stderr, "encbench-trace: %s: %s\n", argv[0], err);
	}
	return WEXITSTATUS(status);
}

int target_make_image(struct target *t, const char *scratch, uint64_t bytes)
{
	int fd;

	snprintf(t->st.image, sizeof(t->st.image), "%s/%s.img", scratch,
		 t->info.name);
	fd = open(t->st.image, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		int err = -errno;

		fprintf(stderr, "encbench-trace: cannot create %s: %s\n",
			t->st.image, strerror(errno));
		t->st.image[0] = '\0'; /* not ours: never unlink it */
		return err;
	}
	/* Sparse: the image costs only what the workloads write. */
	if (ftruncate(fd, bytes) < 0) {
		int err = -errno;

		fprintf(stderr, "encbench-trace: cannot size %s: %s\n",
			t->st.image, strerror(errno));
		close(fd);
		return err;
	}
	close(fd);
	return 0;
}

int target_add_device(struct target_info *ti, const char *devname,
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

/*
 * Attach the image to a free loop device with LO_FLAGS_AUTOCLEAR: the kernel
 * detaches it when the last user goes away, so even a killed run cannot
 * leave it behind once the filesystem is unmounted. Direct I/O keeps the
 * host page cache from hiding the backing disk in the `device` layer.
 */
int target_attach_loop(struct target *t)
{
	struct loop_config cfg = {0};
	int ctl, img, fd = -1, nr, err = 0;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		err = -errno;
		fprintf(stderr, "encbench-trace: /dev/loop-control: %s\n",
			strerror(errno));
		return err;
	}
	cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | LO_FLAGS_DIRECT_IO;
	img = open(t->st.image, O_RDWR | O_CLOEXEC | O_DIRECT);
	if (img < 0) {
		/* No O_DIRECT on the backing fs (tmpfs before 6.6, overlay
		 * on it): asking loop for direct I/O anyway gives EIO on
		 * 6.1, so use a buffered loop. */
		cfg.info.lo_flags &= ~LO_FLAGS_DIRECT_IO;
		img = open(t->st.image, O_RDWR | O_CLOEXEC);
	}
	if (img < 0) {
		err = -errno;
		goto cleanup;
	}
	cfg.fd = img;
	cfg.block_size = 4096;
	/* Another process may take the free device between the two calls. */
	for (int tries = 0; tries < 10; tries++) {
		nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (nr < 0) {
			err = -errno;
			goto cleanup;
		}
		snprintf(t->st.loop_dev, sizeof(t->st.loop_dev), "loop%d", nr);
		char path[NAME_LEN + 8];
		snprintf(path, sizeof(path), "/dev/loop%d", nr);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			goto cleanup;
		}
		if (ioctl(fd, LOOP_CONFIGURE, &cfg) == 0)
			break;
		err = -errno;
		if (err == -EINVAL &&
		    (cfg.info.lo_flags & LO_FLAGS_DIRECT_IO)) {
			/* Backing fs without O_DIRECT: buffered loop. */
			cfg.info.lo_flags &= ~LO_FLAGS_DIRECT_IO;
			if (ioctl(fd, LOOP_CONFIGURE, &cfg) == 0) {
				err = 0;
				break;
			}
			err = -errno;
		}
		close(fd);
		fd = -1;
		if (err != -EBUSY)
			goto cleanup;
	}
	if (fd < 0)
		goto cleanup;
	err = 0;
	t->st.loop_fd = fd;
	fd = -1;
	err = target_add_device(&t->info, t->st.loop_dev, "fs");
cleanup:
	if (err) {
		fprintf(stderr,
			"encbench-trace: cannot attach %s to a loop "
			"device: %s\n",
			t->st.image, strerror(-err));
		t->st.loop_dev[0] = '\0';
	}
	if (fd >= 0)
		close(fd);
	if (img >= 0)
		close(img);
	close(ctl);
	return err;
}

int target_mkfs_ext4(struct target *t, const char *extra_opts)
{
	char dev[NAME_LEN + 8];
	char *argv[12];
	int n = 0, rc;

	snprintf(dev, sizeof(dev), "/dev/%s", t->st.loop_dev);
	argv[n++] = "mkfs.ext4";
	argv[n++] = "-q";
	argv[n++] = "-F";
	/* No lazy init: ext4lazyinit would write behind the workloads. */
	argv[n++] = "-E";
	argv[n++] = "lazy_itable_init=0,lazy_journal_init=0,nodiscard";
	if (extra_opts) {
		argv[n++] = "-O";
		argv[n++] = (char *)extra_opts;
	}
	argv[n++] = dev;
	argv[n] = NULL;
	rc = run_cmd(argv);
	if (rc) {
		fprintf(stderr, "encbench-trace: mkfs.ext4 on %s failed (%s)\n",
			dev, rc < 0 ? strerror(-rc) : "non-zero exit");
		return rc < 0 ? rc : -EIO;
	}
	snprintf(t->info.fs, sizeof(t->info.fs), "ext4");
	return 0;
}

int target_mount(struct target *t, const char *scratch, const char *opts)
{
	char dev[NAME_LEN + 8];

	snprintf(t->st.mnt, sizeof(t->st.mnt), "%s/mnt-%s", scratch,
		 t->info.name);
	if (mkdir(t->st.mnt, 0700) < 0) {
		fprintf(stderr, "encbench-trace: mkdir %s: %s\n", t->st.mnt,
			strerror(errno));
		t->st.mnt[0] = '\0';
		return -errno;
	}
	snprintf(dev, sizeof(dev), "/dev/%s", t->st.loop_dev);
	if (mount(dev, t->st.mnt, "ext4", 0, opts) < 0) {
		int err = -errno;

		fprintf(stderr, "encbench-trace: mount %s on %s: %s\n", dev,
			t->st.mnt, strerror(errno));
		return err;
	}
	t->st.mounted = true;
	snprintf(t->info.mount, sizeof(t->info.mount), "%s", t->st.mnt);
	/* The mount holds the loop device now; drop our reference so that
	 * autoclear detaches it at unmount. */
	close(t->st.loop_fd);
	t->st.loop_fd = -1;
	return 0;
}

void target_teardown_common(struct target *t)
{
	if (t->st.mounted) {
		/* Lazy detach only as a last resort: a busy mount must not
		 * leave the run stuck, and autoclear still frees the loop. */
		if (umount2(t->st.mnt, 0) < 0 &&
		    umount2(t->st.mnt, MNT_DETACH) < 0)
			fprintf(stderr, "encbench-trace: umount %s: %s\n",
				t->st.mnt, strerror(errno));
		t->st.mounted = false;
	}
	if (t->st.loop_fd >= 0) {
		close(t->st.loop_fd);
		t->st.loop_fd = -1;
	}
	if (t->st.mnt[0]) {
		rmdir(t->st.mnt);
		t->st.mnt[0] = '\0';
	}
	if (t->st.image[0]) {
		unlink(t->st.image);
		t->st.image[0] = '\0';
	}
}
