// SPDX-License-Identifier: MIT
/*
 * ZFS native encryption, as the ZFS dd report compared it: two datasets on
 * one pool, one `encryption=aes-256-gcm` (--zfs-encryption), one
 * `encryption=off`, the same compression (--zfs-compression, default lz4).
 * Two layers:
 *   `zpool`:   one pool per run on a sparse file in our scratch folder,
 *              shared by the ZFS targets of the run (the first one
 *              creates it, the last one destroys it);
 *   `dataset`: a dataset on that pool, mounted in our scratch folder.
 * ZFS has no C library Debian maintains for this (libzfs is not a stable
 * API), so the zpool/zfs tools do it; keys go to them through a pipe on
 * stdin, never on a command line or in a file, from mlock'ed memory that
 * is wiped right after.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/mountinfo.h"
#include "../common/state.h"
#include "state_undo.h"
#include "target.h"
#include "zfs.h"

#define MiB (1024ull * 1024)
/* ZFS keeps back min(128 MiB, half the pool) as slop space (2.1). */
#define POOL_EXTRA (256 * MiB)
#define KEY_BYTES  32 /* keyformat=raw: exactly 32 bytes */
#define PASS_CHARS 32

/* The run's one pool and the file it stands on. */
static struct {
	int refs;
	char name[NAME_LEN];
	bool created;
	char vdev[PATH_LEN];	/* ours to unlink, once created */
	int vdev_rec, pool_rec; /* their state file records */
} pool;

const char *zfs_unavailable(const struct capabilities *caps)
{
	return caps->zfs.ok ? NULL : caps->zfs.detail;
}

/* ---- zpool --------------------------------------------------------- */

/* The sparse file the pool stands on: 0 or negative errno. */
static int make_vdev(const char *path, uint64_t bytes)
{
	bool made;
	int err = layer_sparse_file(path, bytes, &pool.vdev_rec, &made);

	/* Only a file it made is ours to unlink. */
	if (made)
		snprintf(pool.vdev, sizeof(pool.vdev), "%s", path);
	return err;
}

/*
 * A file vdev, not a loop device: given a whole disk, zpool partitions it
 * and waits for udev to announce the partition, which never comes where
 * udev does not run (the VM) and would need the loop device's partition
 * scanning besides.
 */
static int pool_create(const struct layer_env *env)
{
	char path[PATH_LEN];
	unsigned int r;
	int err;

	/* Room for both datasets' files at once, plus ZFS's slop. */
	snprintf(path, sizeof(path), "%s/zpool.img", env->cfg->scratch);
	err = make_vdev(path, 2 * env->cfg->fs_bytes + POOL_EXTRA);
	if (err)
		return err;
	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		return -EIO;
	/* Our own name: never an existing pool, and findable by teardown. */
	snprintf(pool.name, sizeof(pool.name), "encbench-%08x", r);
	{
		/* cachefile=none: the pool is never imported at boot; no
		 * mountpoint for its root dataset. */
		char *argv[] = {"zpool",   "create",	     "-o", "ashift=12",
				"-o",	   "cachefile=none", "-m", "none",
				pool.name, pool.vdev,	     NULL};

		/* Ours from here even if zpool is interrupted half way:
		 * teardown destroys it if the kernel has it. */
		pool.pool_rec =
			state_add_named("zpool", pool.name, pool.vdev, NULL);
		if (pool.pool_rec < 0)
			return pool.pool_rec;
		pool.created = true;
		err = run_cmd(argv);
	}
	if (err) {
		fprintf(stderr,
			"encbench-trace: zpool create %s on %s failed\n",
			pool.name, pool.vdev);
		return err < 0 ? err : -EIO;
	}
	return 0;
}

/* Imported in the kernel? Every imported pool has its kstat folder. */
static bool pool_imported(const char *name)
{
	char path[NAME_LEN + 32];

	snprintf(path, sizeof(path), "/proc/spl/kstat/zfs/%s", name);
	return access(path, F_OK) == 0;
}

static void pool_destroy(void)
{
	if (pool.created && pool_imported(pool.name)) {
		char *argv[] = {"zpool", "destroy", "-f", pool.name, NULL};

		if (run_cmd(argv))
			fprintf(stderr,
				"encbench-trace: zpool destroy %s failed\n",
				pool.name);
		else
			state_forget(pool.pool_rec);
		pool.created = false;
	} else {
		state_forget(pool.pool_rec);
	}
	if (pool.vdev[0]) {
		if (unlink(pool.vdev) == 0 || errno == ENOENT)
			state_forget(pool.vdev_rec);
		pool.vdev[0] = '\0';
	}
	pool.name[0] = '\0';
}

struct zpool_priv {
	bool ref; /* holds one reference on the pool */
};

static int zpool_setup(struct stack_layer *l, const struct layer_env *env)
{
	struct zpool_priv *p = l->priv;
	int err = 0;

	if (!pool.refs)
		err = pool_create(env);
	pool.refs++;
	p->ref = true;
	return err;
}

/* ZFS writes blocks anywhere on its vdev: look at all of the file. */
static int zpool_locate(const struct stack_layer *l, struct verify_loc *loc)
{
	(void)l;
	snprintf(loc->path, sizeof(loc->path), "%s", pool.vdev);
	loc->dev[0] = '\0';
	loc->offset = 0;
	loc->length = 0; /* to the end */
	loc->scan = true;
	return 0;
}

static void zpool_teardown(struct stack_layer *l)
{
	struct zpool_priv *p = l->priv;

	if (p->ref && --pool.refs == 0)
		pool_destroy();
	p->ref = false;
}

const struct layer_ops zpool_layer = {
	.name = "zpool",
	.priv_size = sizeof(struct zpool_priv),
	.setup = zpool_setup,
	.locate = zpool_locate,
	.teardown = zpool_teardown,
};

/* ---- dataset ------------------------------------------------------- */

struct dataset_priv {
	char name[DETAIL_LEN]; /* pool/target, once created */
	char mnt[PATH_LEN];    /* ours to rmdir, once created */
	struct zfs_info info;
	int dir_rec, rec; /* their state file records */
};

/* The key, or passphrase, in mlock'ed memory: 0 or negative errno. */
struct zfs_key {
	unsigned char bytes[PASS_CHARS + 1];
	size_t len;
};

static int make_key(struct zfs_key *k, bool passphrase)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
				    "opqrstuvwxyz0123456789+/";

	if (mlock(k, sizeof(*k)) < 0)
		return -errno;
	k->len = passphrase ? PASS_CHARS + 1 : KEY_BYTES;
	if (getrandom(k->bytes, k->len, 0) != (ssize_t)k->len)
		return -EIO;
	if (passphrase) {
		/* 6 random bits per character: 192 bits, one line. */
		for (size_t i = 0; i < PASS_CHARS; i++)
			k->bytes[i] = chars[k->bytes[i] & 63];
		k->bytes[PASS_CHARS] = '\n';
	}
	return 0;
}

static void wipe_key(struct zfs_key *k)
{
	explicit_bzero(k, sizeof(*k));
	munlock(k, sizeof(*k));
}

static int dataset_create(struct dataset_priv *p, const char *name,
			  const struct layer_env *env, const char *enc)
{
	const struct target_config *cfg = env->cfg;
	bool encrypted = strcmp(enc, "off") != 0;
	bool passphrase = !strcmp(cfg->zfs.keyformat, "passphrase");
	char o_enc[NAME_LEN], o_comp[NAME_LEN], o_mnt[PATH_LEN + 16];
	char o_fmt[NAME_LEN], o_rs[NAME_LEN];
	char *argv[22];
	struct zfs_key key = {0};
	int n = 0, err;

	snprintf(o_enc, sizeof(o_enc), "encryption=%s", enc);
	snprintf(o_comp, sizeof(o_comp), "compression=%s",
		 cfg->zfs.compression[0] ? cfg->zfs.compression : "lz4");
	snprintf(o_mnt, sizeof(o_mnt), "mountpoint=%s", p->mnt);
	snprintf(o_fmt, sizeof(o_fmt), "keyformat=%s",
		 passphrase ? "passphrase" : "raw");
	argv[n++] = "zfs";
	argv[n++] = "create";
	argv[n++] = "-o";
	argv[n++] = o_enc;
	if (encrypted) {
		argv[n++] = "-o";
		argv[n++] = o_fmt;
		/* prompt with stdin not a terminal: read from the pipe. */
		argv[n++] = "-o";
		argv[n++] = "keylocation=prompt";
		if (passphrase) {
			/* The floor ZFS allows: a throwaway benchmark key,
			 * and the PBKDF runs only when the key loads. */
			argv[n++] = "-o";
			argv[n++] = "pbkdf2iters=100000";
		}
	}
	argv[n++] = "-o";
	argv[n++] = o_comp;
	if (encrypted && cfg->zfs.recordsize[0]) {
		snprintf(o_rs, sizeof(o_rs), "recordsize=%s",
			 cfg->zfs.recordsize);
		argv[n++] = "-o";
		argv[n++] = o_rs;
	}
	argv[n++] = "-o";
	argv[n++] = o_mnt;
	argv[n++] = (char *)name;
	argv[n] = NULL;
	if (encrypted) {
		err = make_key(&key, passphrase);
		if (!err)
			err = run_cmd_io(argv, key.bytes, key.len, NULL, 0);
		wipe_key(&key);
	} else {
		/* Ours from here even if zpool is interrupted half way:
		 * teardown destroys it if the kernel has it. */
		pool.created = true;
		err = run_cmd(argv);
	}
	if (err) {
		fprintf(stderr, "encbench-trace: zfs create %s (%s) failed\n",
			name, o_enc);
		return err < 0 ? err : -EIO;
	}
	return 0;
}

static int dataset_setup(struct stack_layer *l, const struct layer_env *env)
{
	struct dataset_priv *p = l->priv;
	const char *enc = env->arg ? env->arg
			  : env->cfg->zfs.encryption[0]
				  ? env->cfg->zfs.encryption
				  : "aes-256-gcm";
	char name[DETAIL_LEN];
	int err;

	snprintf(name, sizeof(name), "%s/%s", pool.name, env->name);
	snprintf(p->mnt, sizeof(p->mnt), "%s/mnt-%s", env->cfg->scratch,
		 env->name);
	/* Made and recorded here (zfs mounts on an empty folder), so that
	 * a SIGKILL cannot leave it unrecorded in the scratch folder. */
	p->dir_rec = state_mkdir("dir", NULL, p->mnt, 0700);
	if (p->dir_rec < 0) {
		p->mnt[0] = '\0';
		return p->dir_rec;
	}
	p->rec = state_add_named("zfs-dataset", name, p->mnt, NULL);
	if (p->rec < 0)
		return p->rec;
	err = dataset_create(p, name, env, enc);
	if (err) {
		/* zfs create may have made the dataset before failing to
		 * mount it: the pool's destruction takes it. */
		return err;
	}
	snprintf(p->name, sizeof(p->name), "%s", name);
	err = zfs_dataset_info(p->name, &p->info);
	if (err)
		return err;
	snprintf(l->exposed.mnt, sizeof(l->exposed.mnt), "%s", p->mnt);
	snprintf(l->exposed.dir, sizeof(l->exposed.dir), "%s", p->mnt);
	return 0;
}

static void dataset_describe(const struct stack_layer *l,
			     struct target_info *ti)
{
	const struct dataset_priv *p = l->priv;

	snprintf(ti->fs, sizeof(ti->fs), "zfs");
	ti->zfs = p->info;
	zfs_describe_encryption(&p->info, ti);
}

static void dataset_teardown(struct stack_layer *l)
{
	struct dataset_priv *p = l->priv;

	if (p->name[0]) {
		/* Unmounts it and, for an encryption root, unloads its key. */
		char *argv[] = {"zfs", "destroy", "-f", p->name, NULL};

		if (run_cmd(argv))
			fprintf(stderr,
				"encbench-trace: zfs destroy %s failed\n",
				p->name);
		else
			state_forget(p->rec);
		p->name[0] = '\0';
	} else {
		/* Never made, or half: the pool's destruction, which its
		 * record covers, takes it. */
		state_forget(p->rec);
	}
	/* zfs leaves the empty mount point behind; it is ours. */
	if (p->mnt[0] && rmdir(p->mnt) == 0)
		state_forget(p->dir_rec);
}

/* Only our pools: a random name of ours, on the vdev file recorded. */
int zpool_undo(const struct state_rec *r)
{
	char *list[] = {"zpool", "list",	  "-H", "-P", "-v", "-o",
			"name",	 (char *)r->name, NULL};
	char *destroy[] = {"zpool", "destroy", "-f", (char *)r->name, NULL};
	char out[4096];

	if (!pool_imported(r->name))
		return UNDO_GONE;
	if (run_cmd_io(list, NULL, 0, out, sizeof(out)))
		return -EIO;
	if (!strstr(out, r->path))
		return UNDO_NOT_OURS;
	return run_cmd(destroy) ? -EIO : UNDO_REMOVED;
}

/* Its own destruction unmounts it (the pool's would too, but after the
 * folder it is mounted on was to be removed). */
int zfs_dataset_undo(const struct state_rec *r)
{
	char pool_name[DETAIL_LEN], type[NAME_LEN], src[PATH_LEN];
	char *destroy[] = {"zfs", "destroy", "-f", (char *)r->name, NULL};

	snprintf(pool_name, sizeof(pool_name), "%s", r->name);
	pool_name[strcspn(pool_name, "/")] = '\0';
	if (!pool_imported(pool_name))
		return UNDO_GONE;
	if (mount_at(r->path, type, sizeof(type), src, sizeof(src)) ||
	    strcmp(src, r->name))
		return UNDO_GONE; /* unmounted: the pool's destruction takes it
				   */
	return run_cmd(destroy) ? -EIO : UNDO_REMOVED;
}

const struct layer_ops zfs_dataset_layer = {
	.name = "dataset",
	.priv_size = sizeof(struct dataset_priv),
	.setup = dataset_setup,
	.describe = dataset_describe,
	.teardown = dataset_teardown,
};

static const struct layer_step zfs_recipe[] = {
	{&zpool_layer, NULL},
	{&zfs_dataset_layer, NULL}, /* --zfs-encryption */
	{NULL, NULL},
};

static const struct layer_step zfs_off_recipe[] = {
	{&zpool_layer, NULL},
	{&zfs_dataset_layer, "off"},
	{NULL, NULL},
};

const struct target_kind zfs_target = {
	.kind = "zfs",
	.help = "ZFS dataset, encryption=aes-256-gcm (--zfs-encryption), "
		"lz4; baseline zfs-off",
	.unavailable = zfs_unavailable,
	.recipe = zfs_recipe,
	.encrypted = true,
	.baseline = "zfs-off",
};

const struct target_kind zfs_off_target = {
	.kind = "zfs-off",
	.help = "ZFS dataset, encryption=off, on the same pool as zfs",
	.unavailable = zfs_unavailable,
	.recipe = zfs_off_recipe,
	.encrypted = false,
};
