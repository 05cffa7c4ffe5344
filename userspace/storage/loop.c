// SPDX-License-Identifier: MIT
/*
 * The `loop` layer: a sparse image file in our scratch folder and a loop
 * device over it. The bottom of every stack we build; exposes the device.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/state.h"
#include "../common/pause_point.h"
#include "state_undo.h"
#include "target.h"

struct loop_priv {
	char image[PATH_LEN]; /* ours to unlink, once created */
	int fd;		      /* held until the layer above holds the device */
	int image_rec, loop_rec; /* their state file records */
};

static int make_image(struct loop_priv *p, const char *path, uint64_t bytes)
{
	bool made;
	int err = layer_sparse_file(path, bytes, &p->image_rec, &made);

	/* Only a file it made is ours to unlink. */
	if (made)
		snprintf(p->image, sizeof(p->image), "%s", path);
	return err;
}

/* The device and the identity of its backing file, which `teardown`
 * compares (LOOP_GET_STATUS64) before it detaches anything. */
static int record(struct loop_priv *p, const char *dev)
{
	int id = state_add_path("loop", dev, p->image);

	if (id < 0)
		return id;
	p->loop_rec = id;
	return 0;
}

/*
 * Attach the image to a free loop device with LO_FLAGS_AUTOCLEAR: the kernel
 * detaches it when the last user goes away, so even a killed run cannot
 * leave it behind once the layers above are gone. Direct I/O keeps the
 * host page cache from hiding the backing disk in the `device` layer.
 */
static int attach(struct loop_priv *p, int block_size, char *dev, size_t devlen)
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
	img = open(p->image, O_RDWR | O_CLOEXEC | O_DIRECT);
	if (img < 0) {
		/* No O_DIRECT on the backing fs (tmpfs before 6.6, overlay
		 * on it): asking loop for direct I/O anyway gives EIO on
		 * 6.1, so use a buffered loop. */
		cfg.info.lo_flags &= ~LO_FLAGS_DIRECT_IO;
		img = open(p->image, O_RDWR | O_CLOEXEC);
	}
	if (img < 0) {
		err = -errno;
		goto cleanup;
	}
	cfg.fd = img;
	cfg.block_size = block_size;
	/* Another process may take the free device between the two calls. */
	for (int tries = 0; tries < 10; tries++) {
		char path[NAME_LEN + 8];

		nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (nr < 0) {
			err = -errno;
			goto cleanup;
		}
		snprintf(dev, devlen, "loop%d", nr);
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
	/* Until recorded, our fd and autoclear make it go with us. */
	pause_point("made:loop:%s", p->image);
	err = record(p, dev);
	p->fd = fd;
	fd = -1;
cleanup:
	if (err) {
		fprintf(stderr,
			"encbench-trace: cannot attach %s to a loop device: %s\n",
			p->image, strerror(-err));
		dev[0] = '\0';
	}
	if (fd >= 0)
		close(fd);
	if (img >= 0)
		close(img);
	close(ctl);
	return err;
}

static int loop_setup(struct stack_layer *l, const struct layer_env *env)
{
	struct loop_priv *p = l->priv;
	char path[PATH_LEN];
	int err, block_size;

	/* 4 KiB logical blocks, as most disks today; an ext4 of smaller
	 * blocks (tune's block size axis) needs them at most its size. */
	block_size =
		env->cfg->ext4_block_size && env->cfg->ext4_block_size < 4096
			? 512
			: 4096;
	p->fd = -1;
	snprintf(path, sizeof(path), "%s/%s.img", env->cfg->scratch, env->name);
	err = make_image(p, path, env->cfg->fs_bytes);
	if (!err)
		err = attach(p, block_size, l->exposed.dev,
			     sizeof(l->exposed.dev));
	return err;
}

/* The layer above holds the device now; drop our reference so that
 * autoclear detaches it when that layer lets go. */
static void loop_held(struct stack_layer *l)
{
	struct loop_priv *p = l->priv;

	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

static void loop_describe(const struct stack_layer *l, struct target_info *ti)
{
	layer_add_device(ti, l->exposed.dev, "backing");
}

static void loop_teardown(struct stack_layer *l)
{
	struct loop_priv *p = l->priv;

	loop_held(l);
	/* Autoclear detaches it as the layer above lets go. */
	state_forget(p->loop_rec);
	if (p->image[0] && (unlink(p->image) == 0 || errno == ENOENT))
		state_forget(p->image_rec);
}

/* Backed by our image: its inode, under its path (" (deleted)" once
 * unlinked), and if that path still has a file with our inode number,
 * our file's birth time (inode numbers are reused). */
static bool backed_by_ours(const struct state_rec *r,
			   const struct loop_info64 *info)
{
	char path[NAME_LEN + 32], backing[PATH_LEN + 16];
	size_t n = strlen(r->path);
	int rc;
	FILE *f;

	if (info->lo_device != r->dev || info->lo_inode != r->ino)
		return false;
	snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file",
		 r->name);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(backing, sizeof(backing), f))
		backing[0] = '\0';
	fclose(f);
	backing[strcspn(backing, "\n")] = '\0';
	if (strncmp(backing, r->path, n) ||
	    (backing[n] && strcmp(backing + n, " (deleted)")))
		return false;
	if (backing[n])
		return true; /* unlinked: whatever is at the path is not it */
	rc = state_path_check(r, NULL);
	return rc == UNDO_REMOVED;
}

int loop_undo(const struct state_rec *r)
{
	struct loop_info64 info;
	char path[NAME_LEN + 8];
	int fd, err = UNDO_REMOVED;

	snprintf(path, sizeof(path), "/dev/%s", r->name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENXIO ? UNDO_GONE : -errno;
	if (ioctl(fd, LOOP_GET_STATUS64, &info) < 0)
		err = errno == ENXIO ? UNDO_GONE : -errno;
	else if (!backed_by_ours(r, &info))
		err = UNDO_NOT_OURS; /* now on someone else's file */
	else if (ioctl(fd, LOOP_CLR_FD) < 0)
		err = errno == ENXIO ? UNDO_GONE : -errno;
	close(fd);
	return err;
}

const struct layer_ops loop_layer = {
	.name = "loop",
	.priv_size = sizeof(struct loop_priv),
	.setup = loop_setup,
	.held = loop_held,
	.describe = loop_describe,
	.teardown = loop_teardown,
};
