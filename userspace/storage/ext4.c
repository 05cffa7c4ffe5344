// SPDX-License-Identifier: MIT
/*
 * The `ext4` layer: mkfs.ext4 on the device below, mounted in our scratch
 * folder, with a work folder inside. The recipe's argument is a list of
 * extra features for mkfs -O ("encrypt" for fscrypt).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/state.h"
#include "target.h"

struct ext4_priv {
	char dev[NAME_LEN]; /* the device it was made on */
	char mnt[PATH_LEN]; /* ours to rmdir, once created */
	bool mounted;
	int dir_rec, mount_rec; /* their state file records */
};

static int mkfs(const char *devname, const char *features, int block_size)
{
	char dev[NAME_LEN + 8], bs[16];
	char *argv[14];
	int n = 0, rc;

	snprintf(dev, sizeof(dev), "/dev/%s", devname);
	argv[n++] = "mkfs.ext4";
	argv[n++] = "-q";
	argv[n++] = "-F";
	/* No lazy init: ext4lazyinit would write behind the workloads. */
	argv[n++] = "-E";
	argv[n++] = "lazy_itable_init=0,lazy_journal_init=0,nodiscard";
	if (features) {
		argv[n++] = "-O";
		argv[n++] = (char *)features;
	}
	if (block_size) {
		snprintf(bs, sizeof(bs), "%d", block_size);
		argv[n++] = "-b";
		argv[n++] = bs;
	}
	argv[n++] = dev;
	argv[n] = NULL;
	rc = run_cmd(argv);
	if (rc) {
		fprintf(stderr, "encbench-trace: mkfs.ext4 on %s failed (%s)\n",
			dev, rc < 0 ? strerror(-rc) : "non-zero exit");
		return rc < 0 ? rc : -EIO;
	}
	return 0;
}

static int ext4_setup(struct stack_layer *l, const struct layer_env *env)
{
	struct ext4_priv *p = l->priv;
	char dev[NAME_LEN + 8], mnt[PATH_LEN];
	int err;

	snprintf(p->dev, sizeof(p->dev), "%s", env->below->dev);
	err = mkfs(p->dev, env->arg, env->cfg->ext4_block_size);
	if (err)
		return err;
	snprintf(mnt, sizeof(mnt), "%s/mnt-%s", env->cfg->scratch, env->name);
	p->dir_rec = state_mkdir("dir", NULL, mnt, 0700);
	if (p->dir_rec < 0) {
		fprintf(stderr, "encbench-trace: mkdir %s: %s\n", mnt,
			strerror(-p->dir_rec));
		return p->dir_rec;
	}
	snprintf(p->mnt, sizeof(p->mnt), "%s", mnt);
	snprintf(dev, sizeof(dev), "/dev/%s", p->dev);
	p->mount_rec = state_add_mount(mnt, "ext4", dev);
	if (p->mount_rec < 0)
		return p->mount_rec;
	if (mount(dev, mnt, "ext4", 0, NULL) < 0) {
		err = -errno;
		fprintf(stderr, "encbench-trace: mount %s on %s: %s\n", dev,
			mnt, strerror(errno));
		return err;
	}
	p->mounted = true;
	snprintf(l->exposed.mnt, sizeof(l->exposed.mnt), "%s", mnt);
	snprintf(l->exposed.dir, sizeof(l->exposed.dir), "%s/data", mnt);
	/* Searchable, not listable: a workload's server runs as its own
	 * user (postgres, www-data) and must reach its folder in here. */
	if (mkdir(l->exposed.dir, 0711) < 0)
		return -errno;
	return 0;
}

static void ext4_describe(const struct stack_layer *l, struct target_info *ti)
{
	(void)l;
	if (!ti->fs[0]) /* a stacked fs above (eCryptfs) says more */
		snprintf(ti->fs, sizeof(ti->fs), "ext4");
}

/* FIEMAP: where the file's first extent is on the device below. */
int fiemap_locate(const char *dev, struct verify_loc *loc)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent ext[1];
	} m = {0};
	int fd, err = 0;

	fd = open(loc->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	m.fm.fm_length = ~0ULL;
	m.fm.fm_flags = FIEMAP_FLAG_SYNC;
	m.fm.fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, &m.fm) < 0)
		err = -errno;
	else if (m.fm.fm_mapped_extents < 1 ||
		 (m.ext[0].fe_flags & FIEMAP_EXTENT_UNKNOWN))
		err = -ENODATA;
	close(fd);
	if (err)
		return err;
	snprintf(loc->dev, sizeof(loc->dev), "%s", dev);
	loc->offset = m.ext[0].fe_physical;
	if (m.ext[0].fe_length < loc->length)
		loc->length = m.ext[0].fe_length;
	return 0;
}

static int ext4_locate(const struct stack_layer *l, struct verify_loc *loc)
{
	const struct ext4_priv *p = l->priv;

	return fiemap_locate(p->dev, loc);
}

static void ext4_teardown(struct stack_layer *l)
{
	struct ext4_priv *p = l->priv;

	if (p->mounted) {
		/* Lazy detach only as a last resort: a busy mount must not
		 * leave the run stuck; the device below goes when it goes. */
		if (umount2(p->mnt, 0) < 0 && umount2(p->mnt, MNT_DETACH) < 0)
			fprintf(stderr, "encbench-trace: umount %s: %s\n",
				p->mnt, strerror(errno));
		else
			state_forget(p->mount_rec);
		p->mounted = false;
	} else {
		state_forget(p->mount_rec); /* recorded, never mounted */
	}
	if (p->mnt[0] && rmdir(p->mnt) == 0)
		state_forget(p->dir_rec);
}

const struct layer_ops ext4_layer = {
	.name = "ext4",
	.priv_size = sizeof(struct ext4_priv),
	.setup = ext4_setup,
	.describe = ext4_describe,
	.locate = ext4_locate,
	.teardown = ext4_teardown,
};
