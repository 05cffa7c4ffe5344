// SPDX-License-Identifier: MIT
/*
 * The `user` kind: a folder the user names (--target NAME=PATH), as the
 * LUKS report compared /data1 with /data2. Nothing is built, formatted or
 * mounted: its stack is detected (detect.c), the workloads run in a new
 * subfolder of it that only we use, and that subfolder, with what the
 * workloads left in it, is all teardown removes.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "detect.h"
#include "../common/state.h"
#include "target.h"

struct user_priv {
	struct detected_stack st;
	char work[PATH_LEN]; /* ours: the subfolder, once made */
	int work_rec;	     /* its state file record */
};

int user_target_check(const char *path, char *why, size_t len)
{
	static struct detected_stack st; /* large: not on the stack */
	struct stat sb;
	int err;

	if (stat(path, &sb) < 0) {
		err = -errno;
		snprintf(why, len, "%s", strerror(errno));
		return err;
	}
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(why, len, "not a folder");
		return -ENOTDIR;
	}
	if (access(path, W_OK) < 0) {
		err = -errno;
		snprintf(why, len, "%s",
			 errno == EROFS ? "on a read-only file system"
					: "not writable");
		return err;
	}
	/* A file system with no block device (tmpfs, nfs, overlay) runs:
	 * the tracer marks its device layers "not applicable". */
	return stack_detect(path, &st, why, len);
}

static int user_setup(struct stack_layer *l, const struct layer_env *env)
{
	struct user_priv *p = l->priv;
	char why[DETAIL_LEN], work[PATH_LEN];
	int err;

	err = stack_detect(env->cfg->path, &p->st, why, sizeof(why));
	if (err) {
		fprintf(stderr, "encbench-trace: target %s: %s: %s\n",
			env->name, env->cfg->path, why);
		return err;
	}
	/* The run's token in its name: recorded before it is made, so
	 * that after a SIGKILL `teardown` removes it (common/state.c). */
	snprintf(work, sizeof(work), "%s/encbench-trace.%s.%s", p->st.path,
		 state_token(), env->name);
	p->work_rec = state_mkdir("work-tree", env->name, work, 0700);
	if (p->work_rec < 0) {
		fprintf(stderr,
			"encbench-trace: target %s: cannot create a folder in %s: %s\n",
			env->name, p->st.path, strerror(-p->work_rec));
		return p->work_rec;
	}
	snprintf(p->work, sizeof(p->work), "%s", work);
	snprintf(l->exposed.dir, sizeof(l->exposed.dir), "%s", work);
	snprintf(l->exposed.mnt, sizeof(l->exposed.mnt), "%s", p->st.mnt);
	if (p->st.nr_devices)
		snprintf(l->exposed.dev, sizeof(l->exposed.dev), "%s",
			 p->st.devices[0].name);
	return 0;
}

static void user_describe(const struct stack_layer *l, struct target_info *ti)
{
	const struct user_priv *p = l->priv;

	stack_describe(&p->st, ti);
	snprintf(ti->path, sizeof(ti->path), "%s", p->st.path);
}

/* Filesystems whose FIEMAP gives offsets on their device (btrfs gives
 * its own logical addresses, which its chunk map turns into devices). */
static bool fiemap_physical(const char *fs)
{
	return !strcmp(fs, "ext4") || !strcmp(fs, "ext3") ||
	       !strcmp(fs, "ext2") || !strcmp(fs, "xfs");
}

/* Down the detected devices from the filesystem's to the medium: a
 * dm-crypt mapping adds its data offset; any other mapping is not
 * followed (its table may split the data over several devices). */
static int follow_devices(const struct detected_stack *st,
			  struct verify_loc *loc)
{
	int i = 0;

	while (st->below[i] != -1) {
		if (st->below[i] == -2) {
			snprintf(loc->why, sizeof(loc->why),
				 "%s stands on several devices",
				 st->devices[i].name);
			return -EOPNOTSUPP;
		}
		if (i != st->crypt_index) {
			snprintf(loc->why, sizeof(loc->why),
				 "how %s maps its data onto the device below "
				 "is not followed (only dm-crypt's is)",
				 st->devices[i].name);
			return -EOPNOTSUPP;
		}
		loc->offset += st->crypt.data_offset;
		i = st->below[i];
	}
	snprintf(loc->dev, sizeof(loc->dev), "%s", st->devices[i].name);
	return 0;
}

static int user_locate(const struct stack_layer *l, struct verify_loc *loc)
{
	const struct user_priv *p = l->priv;
	const struct detected_stack *st = &p->st;
	const char *fs = st->ecryptfs ? st->lower_fs : st->fs;
	int err;

	if (st->zfs.dataset[0]) {
		snprintf(loc->why, sizeof(loc->why),
			 "ZFS has no FIEMAP, and the pool's disks are not "
			 "scanned");
		return -EOPNOTSUPP;
	}
	if (!st->nr_devices) {
		snprintf(loc->why, sizeof(loc->why),
			 "%s has no block device to read raw", st->fs);
		return -EOPNOTSUPP;
	}
	if (st->ecryptfs) {
		err = ecryptfs_lower_file(st->mnt, st->lower, loc);
		if (err) {
			snprintf(loc->why, sizeof(loc->why),
				 "the eCryptfs lower file in %s: %s", st->lower,
				 strerror(-err));
			return err;
		}
	}
	if (!fiemap_physical(fs)) {
		snprintf(loc->why, sizeof(loc->why),
			 "FIEMAP on %s is not known to give device offsets",
			 fs);
		return -EOPNOTSUPP;
	}
	err = fiemap_locate(st->devices[0].name, loc);
	return err ? err : follow_devices(st, loc);
}

static int remove_entry(const char *path, const struct stat *sb, int flag,
			struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	if (remove(path) < 0)
		fprintf(stderr, "encbench-trace: cannot remove %s: %s\n", path,
			strerror(errno));
	return 0;
}

int user_work_remove(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	return access(path, F_OK) == 0 ? -ENOTEMPTY : 0;
}

static void user_teardown(struct stack_layer *l)
{
	struct user_priv *p = l->priv;

	if (!p->work[0])
		return;
	if (user_work_remove(p->work) == 0)
		state_forget(p->work_rec);
	p->work[0] = '\0';
}

const struct layer_ops user_layer = {
	.name = "user",
	.priv_size = sizeof(struct user_priv),
	.setup = user_setup,
	.describe = user_describe,
	.locate = user_locate,
	.teardown = user_teardown,
};

static const char *user_unavailable(const struct capabilities *caps)
{
	(void)caps;
	return NULL;
}

static const struct layer_step user_recipe[] = {
	{&user_layer, NULL},
	{NULL, NULL},
};

const struct target_kind user_target = {
	.kind = "user",
	.help = "a folder you name (--target NAME=PATH): its stack detected, "
		"the work in a new subfolder of it",
	.unavailable = user_unavailable,
	.recipe = user_recipe,
	.detected = true,
};
