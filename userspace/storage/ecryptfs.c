// SPDX-License-Identifier: MIT
/*
 * The `ecryptfs` layer and kind: eCryptfs mounted over a folder of an ext4
 * loop filesystem, with no mount helper and no prompt. The kernel finds
 * the mount key by its signature in our keyrings (request_key "user"):
 * we add a random 64-byte key wrapped in the auth token the kernel expects
 * (include/linux/ecryptfs.h), to the process keyring only, so it goes with
 * the process whatever happens; teardown invalidates it after unmounting.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/keyctl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/state.h"
#include "ecryptfs_abi.h"
#include "state_undo.h"
#include "target.h"

/* Contents cipher: AES with a 256-bit file key, as ecryptfs-utils'
 * default passphrase mounts use (minus its 128-bit default key), unless
 * tune's variant asks for another (cfg->ecryptfs). */
#define MOUNT_OPTS                                                             \
	"ecryptfs_sig=%s,ecryptfs_cipher=%s,ecryptfs_key_bytes=%d,"            \
	"ecryptfs_unlink_sigs"

struct ecryptfs_priv {
	char lower[PATH_LEN]; /* in the ext4 work folder */
	char mnt[PATH_LEN];   /* ours to rmdir, once created */
	bool mounted;
	int32_t key; /* serial in our process keyring, 0 if none */
	char cipher[NAME_LEN / 4];
	int key_bytes;
	int dir_rec, key_rec, mount_rec; /* their state file records */
};

static const char *ecryptfs_unavailable(const struct capabilities *caps)
{
	if (!caps->loop.ok)
		return caps->loop.detail;
	return caps->ecryptfs.ok ? NULL : caps->ecryptfs.detail;
}

/* A random key, its signature, in the process keyring. */
static int add_mount_key(struct ecryptfs_priv *p,
			 char sig[ECRYPTFS_SIG_HEX + 1])
{
	struct ecryptfs_auth_tok_abi *tok;
	long id;
	int err = 0;

	tok = mmap(NULL, sizeof(*tok), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
	if (tok == MAP_FAILED)
		return -errno;
	if (ecryptfs_auth_tok_fill(tok, sig)) {
		err = -EIO;
		goto cleanup;
	}
	id = syscall(SYS_add_key, "user", sig, tok, sizeof(*tok),
		     KEY_SPEC_PROCESS_KEYRING);
	if (id < 0) {
		err = -errno;
	} else {
		struct state_rec r = {0};

		p->key = (int32_t)id;
		snprintf(r.type, sizeof(r.type), "user-key");
		snprintf(r.name, sizeof(r.name), "%s", sig);
		r.serial = id;
		p->key_rec = state_add(&r);
		err = p->key_rec < 0 ? p->key_rec : 0;
	}
cleanup:
	explicit_bzero(tok, sizeof(*tok));
	munmap(tok, sizeof(*tok));
	return err;
}

static int ecryptfs_setup(struct stack_layer *l, const struct layer_env *env)
{
	struct ecryptfs_priv *p = l->priv;
	char sig[ECRYPTFS_SIG_HEX + 1] = "", opts[160];
	int err;

	snprintf(p->lower, sizeof(p->lower), "%s/lower", env->below->dir);
	/* 0711, the mount's root: see ext4.c (server workloads). */
	if (mkdir(p->lower, 0711) < 0)
		return -errno;
	snprintf(l->exposed.mnt, sizeof(l->exposed.mnt), "%s/ecryptfs-%s",
		 env->cfg->scratch, env->name);
	p->dir_rec = state_mkdir("dir", NULL, l->exposed.mnt, 0700);
	if (p->dir_rec < 0) {
		fprintf(stderr, "encbench-trace: mkdir %s: %s\n",
			l->exposed.mnt, strerror(-p->dir_rec));
		return p->dir_rec;
	}
	snprintf(p->mnt, sizeof(p->mnt), "%s", l->exposed.mnt);
	err = add_mount_key(p, sig);
	if (err) {
		fprintf(stderr, "encbench-trace: add_key for eCryptfs: %s\n",
			strerror(-err));
		return err;
	}
	snprintf(p->cipher, sizeof(p->cipher), "%s",
		 env->cfg->ecryptfs.cipher[0] ? env->cfg->ecryptfs.cipher
					      : "aes");
	p->key_bytes = env->cfg->ecryptfs.key_bytes
			       ? env->cfg->ecryptfs.key_bytes
			       : 32;
	snprintf(opts, sizeof(opts), MOUNT_OPTS, sig, p->cipher, p->key_bytes);
	p->mount_rec = state_add_mount(p->mnt, "ecryptfs", p->lower);
	if (p->mount_rec < 0)
		return p->mount_rec;
	if (mount(p->lower, p->mnt, "ecryptfs", 0, opts) < 0) {
		err = -errno;
		fprintf(stderr, "encbench-trace: mount -t ecryptfs on %s: %s\n",
			p->mnt, strerror(errno));
		return err;
	}
	p->mounted = true;
	snprintf(l->exposed.dir, sizeof(l->exposed.dir), "%s", p->mnt);
	return 0;
}

static void ecryptfs_describe(const struct stack_layer *l,
			      struct target_info *ti)
{
	const struct ecryptfs_priv *p = l->priv;

	snprintf(ti->fs, sizeof(ti->fs), "ecryptfs");
	snprintf(ti->encryption.scheme, NAME_LEN, "eCryptfs");
	snprintf(ti->encryption.contents_cipher, NAME_LEN, "cbc(%s)",
		 p->cipher);
	ti->encryption.key_bits = 8 * p->key_bytes;
}

/* The entry of folder `dir` with inode number ino, into name. */
static int entry_by_inode(const char *dir, ino_t ino, char *name, size_t len)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int err = -ENOENT;

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (e->d_ino == ino) {
			snprintf(name, len, "%s", e->d_name);
			err = 0;
			break;
		}
	closedir(d);
	return err;
}

/*
 * An eCryptfs inode has its lower inode's number (ecryptfs_inode_set), so
 * each component of the path leads to its lower entry by inode: this
 * works with encrypted file names (ecryptfs_fnek_sig) too, where the
 * lower name is not the upper one.
 */
int ecryptfs_lower_file(const char *upper, const char *lower,
			struct verify_loc *loc)
{
	char up[PATH_LEN], low[PATH_LEN], name[NAME_MAX + 1];
	const char *rest;
	size_t n = strlen(upper);
	struct stat st;
	int err;

	if (strncmp(loc->path, upper, n) || loc->path[n] != '/')
		return -ENOENT;
	snprintf(up, sizeof(up), "%s", upper);
	snprintf(low, sizeof(low), "%s", lower);
	for (rest = loc->path + n + 1; *rest;) {
		size_t c = strcspn(rest, "/");
		size_t u = strlen(up), l = strlen(low);

		snprintf(up + u, sizeof(up) - u, "/%.*s", (int)c, rest);
		if (stat(up, &st) < 0)
			return -errno;
		err = entry_by_inode(low, st.st_ino, name, sizeof(name));
		if (err)
			return err;
		snprintf(low + l, sizeof(low) - l, "/%s", name);
		rest += c;
		rest += *rest == '/';
	}
	snprintf(loc->path, sizeof(loc->path), "%s", low);
	return 0;
}

static int ecryptfs_locate(const struct stack_layer *l, struct verify_loc *loc)
{
	const struct ecryptfs_priv *p = l->priv;

	return ecryptfs_lower_file(p->mnt, p->lower, loc);
}

static void ecryptfs_teardown(struct stack_layer *l)
{
	struct ecryptfs_priv *p = l->priv;

	if (p->mounted && umount2(p->mnt, 0) < 0 &&
	    umount2(p->mnt, MNT_DETACH) < 0)
		fprintf(stderr, "encbench-trace: umount %s: %s\n", p->mnt,
			strerror(errno));
	else
		state_forget(p->mount_rec);
	p->mounted = false;
	if (p->mnt[0] && rmdir(p->mnt) == 0)
		state_forget(p->dir_rec);
	if (p->key > 0)
		syscall(SYS_keyctl, KEYCTL_INVALIDATE, p->key);
	state_forget(p->key_rec); /* and it goes with our process anyway */
	p->key = 0;
}

/* The key was in the dead process's keyring: the mount held the last
 * reference, and the unmount (undone before this) let it go. Should it
 * still be there, it must have our signature as its description. */
int user_key_undo(const struct state_rec *r)
{
	char desc[256], *sig;
	long n = syscall(SYS_keyctl, KEYCTL_DESCRIBE, (int32_t)r->serial, desc,
			 sizeof(desc));

	if (n < 0 || n > (long)sizeof(desc))
		return UNDO_GONE;
	sig = strrchr(desc, ';');
	if (!sig || strcmp(sig + 1, r->name))
		return UNDO_NOT_OURS;
	/* Not possessed by us, so EACCES: nothing holds it but the
	 * garbage collector, which takes it. */
	if (syscall(SYS_keyctl, KEYCTL_INVALIDATE, (int32_t)r->serial) < 0)
		return errno == EACCES || errno == ENOKEY ? UNDO_GONE : -errno;
	return UNDO_REMOVED;
}

const struct layer_ops ecryptfs_layer = {
	.name = "ecryptfs",
	.priv_size = sizeof(struct ecryptfs_priv),
	.setup = ecryptfs_setup,
	.describe = ecryptfs_describe,
	.locate = ecryptfs_locate,
	.teardown = ecryptfs_teardown,
};

static const struct layer_step ecryptfs_recipe[] = {
	{&loop_layer, NULL},
	{&ext4_layer, NULL},
	{&ecryptfs_layer, NULL},
	{NULL, NULL},
};

const struct target_kind ecryptfs_target = {
	.kind = "ecryptfs",
	.help = "eCryptfs (AES, 256-bit key) over a folder of ext4 on loop",
	.unavailable = ecryptfs_unavailable,
	.recipe = ecryptfs_recipe,
	.encrypted = true,
	.no_direct_io = "eCryptfs has no O_DIRECT",
};
