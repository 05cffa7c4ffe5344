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
#include <unistd.h>

#include "target.h"

struct loop_priv {
	char image[PATH_LEN]; /* ours to unlink, once created */
	int fd;		      /* held until the layer above holds the device */
};

static int make_image(struct loop_priv *p, const char *path, uint64_t bytes)
{
	int fd, err = 0;

	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		fprintf(stderr, "encbench-trace: cannot create %s: %s\n", path,
			strerror(errno));
		return err; /* not ours: never unlink it */
	}
	snprintf(p->image, sizeof(p->image), "%s", path);
	/* Sparse: the image costs only what the workloads write. */
	if (ftruncate(fd, bytes) < 0) {
		err = -errno;
		fprintf(stderr, "encbench-trace: cannot size %s: %s\n", path,
			strerror(errno));
	}
	close(fd);
	return err;
}

/*
 * Attach the image to a free loop device with LO_FLAGS_AUTOCLEAR: the kernel
 * detaches it when the last user goes away, so even a killed run cannot
 * leave it behind once the layers above are gone. Direct I/O keeps the
 * host page cache from hiding the backing disk in the `device` layer.
 */
static int attach(struct loop_priv *p, char *dev, size_t devlen)
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
	cfg.block_size = 4096;
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
	err = 0;
	p->fd = fd;
	fd = -1;
cleanup:
	if (err) {
		fprintf(stderr,
			"encbench-trace: cannot attach %s to a loop "
			"device: %s\n",
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
	int err;

	p->fd = -1;
	snprintf(path, sizeof(path), "%s/%s.img", env->cfg->scratch, env->name);
	err = make_image(p, path, env->cfg->fs_bytes);
	if (!err)
		err = attach(p, l->exposed.dev, sizeof(l->exposed.dev));
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
	if (p->image[0])
		unlink(p->image);
}

const struct layer_ops loop_layer = {
	.name = "loop",
	.priv_size = sizeof(struct loop_priv),
	.setup = loop_setup,
	.held = loop_held,
	.describe = loop_describe,
	.teardown = loop_teardown,
};
