// SPDX-License-Identifier: MIT
/*
 * The `fscrypt` layer and kind: ext4 -O encrypt with a v2 policy (AES-256-XTS
 * contents, AES-256-CTS names) on a folder of it. The 64-byte master key is
 * random, lives in mlock'ed memory only until the kernel has it
 * (FS_IOC_ADD_ENCRYPTION_KEY), and is wiped right after; teardown removes
 * it from the filesystem keyring with FS_IOC_REMOVE_ENCRYPTION_KEY.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fscrypt.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/mountinfo.h"
#include "../common/state.h"
#include "../common/pause_point.h"
#include "state_undo.h"
#include "target.h"

#define KEY_BYTES 64

struct fscrypt_priv {
	char mnt[PATH_LEN]; /* the filesystem whose keyring has the key */
	struct fscrypt_options opt; /* as set, defaults filled in */
	bool key_added;
	unsigned char key_id[16]; /* v2 key identifier */
	int rec;		  /* its state file record */
};

/* The key's identifier (not the key): `teardown` removes it from the
 * filesystem's keyring by that, if the filesystem is still mounted. */
static int record(struct fscrypt_priv *p)
{
	char hex[33];
	int id;

	for (int i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", p->key_id[i]);
	id = state_add_named("fscrypt-key", NULL, p->mnt, hex);
	if (id < 0)
		return id;
	p->rec = id;
	return 0;
}

static int remove_key(const char *mnt, const unsigned char id[16])
{
	struct fscrypt_remove_key_arg arg = {0};
	int fd, err = 0;

	fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	arg.key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	memcpy(arg.key_spec.u.identifier, id, 16);
	if (ioctl(fd, FS_IOC_REMOVE_ENCRYPTION_KEY, &arg) < 0)
		err = -errno;
	close(fd);
	return err;
}

static const char *fscrypt_unavailable(const struct capabilities *caps)
{
	if (!caps->loop.ok)
		return caps->loop.detail;
	return caps->fscrypt.ok ? NULL : caps->fscrypt.detail;
}

static int add_random_key(int mntfd, unsigned char id[16])
{
	struct {
		struct fscrypt_add_key_arg arg;
		unsigned char raw[KEY_BYTES];
	} k;
	int err = 0;

	memset(&k, 0, sizeof(k));
	/* Keep the key out of swap while it is in our memory. */
	if (mlock(&k, sizeof(k)) < 0)
		return -errno;
	k.arg.key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	k.arg.raw_size = KEY_BYTES;
	if (getrandom(k.raw, KEY_BYTES, 0) != KEY_BYTES)
		err = -EIO;
	else if (ioctl(mntfd, FS_IOC_ADD_ENCRYPTION_KEY, &k.arg) < 0)
		err = -errno;
	else
		memcpy(id, k.arg.key_spec.u.identifier, 16);
	explicit_bzero(&k, sizeof(k));
	munlock(&k, sizeof(k));
	return err;
}

/* The kernel's name of a contents or names mode (what /proc/crypto
 * lists once it is used), or NULL for a mode we do not know. */
const char *fscrypt_mode_cipher(int mode)
{
	switch (mode) {
	case FSCRYPT_MODE_AES_256_XTS:
		return "xts(aes)";
	case FSCRYPT_MODE_AES_256_CTS:
	case FSCRYPT_MODE_AES_128_CTS:
		return "cts(cbc(aes))";
	case FSCRYPT_MODE_AES_128_CBC:
		return "essiv(cbc(aes),sha256)";
	case FSCRYPT_MODE_ADIANTUM:
		return "adiantum(xchacha12,aes)";
	case FSCRYPT_MODE_AES_256_HCTR2:
		return "hctr2(aes)";
	}
	return NULL;
}

static int set_policy(const char *dir, const unsigned char id[16],
		      const struct fscrypt_options *o)
{
	struct fscrypt_policy_v2 p = {
		.version = FSCRYPT_POLICY_V2,
		.contents_encryption_mode = o->contents_mode,
		.filenames_encryption_mode = o->filenames_mode,
		.flags = FSCRYPT_POLICY_FLAGS_PAD_32,
	};
	int fd, err = 0;

	/* log2_data_unit_size (Linux 6.7) is the first reserved byte in
	 * older headers; a kernel without it refuses a non-zero one. */
	p.__reserved[0] = (__u8)o->log2_data_unit;
	memcpy(p.master_key_identifier, id, sizeof(p.master_key_identifier));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, FS_IOC_SET_ENCRYPTION_POLICY, &p) < 0)
		err = -errno;
	close(fd);
	return err;
}

static int fscrypt_setup(struct stack_layer *l, const struct layer_env *env)
{
	struct fscrypt_priv *p = l->priv;
	int err, mntfd;

	snprintf(p->mnt, sizeof(p->mnt), "%s", env->below->mnt);
	p->opt = env->cfg->fscrypt;
	if (!p->opt.contents_mode)
		p->opt.contents_mode = FSCRYPT_MODE_AES_256_XTS;
	if (!p->opt.filenames_mode)
		p->opt.filenames_mode = FSCRYPT_MODE_AES_256_CTS;
	mntfd = open(p->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mntfd < 0)
		return -errno;
	err = add_random_key(mntfd, p->key_id);
	close(mntfd);
	if (err) {
		fprintf(stderr,
			"encbench-trace: FS_IOC_ADD_ENCRYPTION_KEY on %s: %s\n",
			p->mnt, strerror(-err));
		return err;
	}
	p->key_added = true;
	/* Unrecorded for now, but in our ext4's keyring: the unmount of
	 * that (recorded) mount drops it (common/state.c). */
	pause_point("made:fscrypt-key:%s", env->name);
	err = record(p);
	if (err)
		return err;

	l->exposed = *env->below;
	snprintf(l->exposed.dir, sizeof(l->exposed.dir), "%s/encrypted",
		 env->below->dir);
	/* 0711: see ext4.c (a server workload's user must reach it). */
	if (mkdir(l->exposed.dir, 0711) < 0)
		return -errno;
	err = set_policy(l->exposed.dir, p->key_id, &p->opt);
	if (err)
		fprintf(stderr,
			"encbench-trace: FS_IOC_SET_ENCRYPTION_POLICY on %s: %s%s\n",
			l->exposed.dir, strerror(-err),
			p->opt.log2_data_unit && err == -EINVAL
				? " (this kernel does not take the data unit "
				  "size asked for: Linux 6.7+, at most the "
				  "block size)"
				: "");
	return err; /* -EINVAL: the options were refused (bad input) */
}

static void fscrypt_describe(const struct stack_layer *l,
			     struct target_info *ti)
{
	const struct fscrypt_priv *p = l->priv;
	const char *c = fscrypt_mode_cipher(p->opt.contents_mode);
	const char *n = fscrypt_mode_cipher(p->opt.filenames_mode);

	snprintf(ti->encryption.scheme, NAME_LEN, "fscrypt v2 policy");
	snprintf(ti->encryption.contents_cipher, NAME_LEN, "%s", c ? c : "?");
	snprintf(ti->encryption.names_cipher, NAME_LEN, "%s", n ? n : "?");
	ti->encryption.key_bits = 512;
	/* The crypto data unit: the block size unless the policy chose. */
	ti->encryption.sector_size =
		p->opt.log2_data_unit ? 1 << p->opt.log2_data_unit : 0;
}

static void fscrypt_teardown(struct stack_layer *l)
{
	struct fscrypt_priv *p = l->priv;
	int err;

	if (!p->key_added)
		return;
	err = remove_key(p->mnt, p->key_id);
	if (err)
		fprintf(stderr,
			"encbench-trace: FS_IOC_REMOVE_ENCRYPTION_KEY on %s: %s (unmount drops it)\n",
			p->mnt, strerror(-err));
	/* Gone either way once the filesystem is unmounted, which the
	 * layer below does next. */
	state_forget(p->rec);
	p->key_added = false;
}

/* Only while an ext4 is mounted there; the identifier is 16 random bytes
 * of ours, so no one else's key can have it. */
int fscrypt_key_undo(const struct state_rec *r)
{
	char type[NAME_LEN], src[PATH_LEN];
	unsigned char id[16];
	int err;

	if (mount_at(r->path, type, sizeof(type), src, sizeof(src)) ||
	    strcmp(type, "ext4"))
		return UNDO_GONE; /* the unmount dropped it */
	for (int i = 0; i < 16; i++)
		if (sscanf(r->detail + 2 * i, "%2hhx", &id[i]) != 1)
			return -EINVAL;
	err = remove_key(r->path, id);
	if (err == -ENOKEY)
		return UNDO_GONE;
	return err ? err : UNDO_REMOVED;
}

const struct layer_ops fscrypt_layer = {
	.name = "fscrypt",
	.priv_size = sizeof(struct fscrypt_priv),
	.setup = fscrypt_setup,
	.describe = fscrypt_describe,
	.teardown = fscrypt_teardown,
};

static const struct layer_step fscrypt_recipe[] = {
	{&loop_layer, NULL},
	{&ext4_layer, "encrypt"},
	{&fscrypt_layer, NULL},
	{NULL, NULL},
};

const struct target_kind fscrypt_target = {
	.kind = "fscrypt",
	.help = "ext4 -O encrypt, a v2 policy (default AES-256-XTS/AES-256-CTS)",
	.unavailable = fscrypt_unavailable,
	.recipe = fscrypt_recipe,
	.encrypted = true,
};
