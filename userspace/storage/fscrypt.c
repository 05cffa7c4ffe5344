// SPDX-License-Identifier: MIT
/*
 * ext4 with native encryption (fscrypt): a v2 policy (AES-256-XTS
 * contents, AES-256-CTS names) on the work folder. The 64-byte master key
 * is random, lives in mlock'ed memory only until the kernel has it
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

#include "target.h"
#include "verify.h"

#define KEY_BYTES 64

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

static int set_policy(const char *dir, const unsigned char id[16])
{
	struct fscrypt_policy_v2 p = {
		.version = FSCRYPT_POLICY_V2,
		.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS,
		.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS,
		.flags = FSCRYPT_POLICY_FLAGS_PAD_32,
	};
	int fd, err = 0;

	memcpy(p.master_key_identifier, id, sizeof(p.master_key_identifier));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, FS_IOC_SET_ENCRYPTION_POLICY, &p) < 0)
		err = -errno;
	close(fd);
	return err;
}

static int fscrypt_setup(const struct target_config *cfg, struct target *t)
{
	int err, mntfd;

	snprintf(t->info.kind, sizeof(t->info.kind), "fscrypt");
	err = target_make_image(t, cfg->scratch, cfg->fs_bytes);
	if (!err)
		err = target_attach_loop(t);
	if (!err)
		err = target_mkfs_ext4(t, "encrypt");
	if (!err)
		err = target_mount(t, cfg->scratch, NULL);
	if (err)
		return err;

	mntfd = open(t->st.mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mntfd < 0)
		return -errno;
	err = add_random_key(mntfd, t->st.key_id);
	close(mntfd);
	if (err) {
		fprintf(stderr,
			"encbench-trace: FS_IOC_ADD_ENCRYPTION_KEY on "
			"%s: %s\n",
			t->st.mnt, strerror(-err));
		return err;
	}
	t->st.key_added = true;

	snprintf(t->st.workdir, sizeof(t->st.workdir), "%s/encrypted",
		 t->st.mnt);
	if (mkdir(t->st.workdir, 0700) < 0)
		return -errno;
	err = set_policy(t->st.workdir, t->st.key_id);
	if (err) {
		fprintf(stderr,
			"encbench-trace: FS_IOC_SET_ENCRYPTION_POLICY "
			"on %s: %s\n",
			t->st.workdir, strerror(-err));
		return err;
	}
	snprintf(t->info.dir, sizeof(t->info.dir), "%s", t->st.workdir);
	t->info.encrypted = true;
	snprintf(t->info.encryption.scheme, NAME_LEN, "fscrypt v2 policy");
	snprintf(t->info.encryption.contents_cipher, NAME_LEN, "xts(aes)");
	snprintf(t->info.encryption.names_cipher, NAME_LEN, "cts(cbc(aes))");
	t->info.encryption.key_bits = 512;
	return 0;
}

static int fscrypt_verify(struct target *t)
{
	return verify_medium(t, true);
}

static void remove_key(struct target *t)
{
	struct fscrypt_remove_key_arg arg = {0};
	int fd = open(t->st.mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	arg.key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	memcpy(arg.key_spec.u.identifier, t->st.key_id, 16);
	if (ioctl(fd, FS_IOC_REMOVE_ENCRYPTION_KEY, &arg) < 0)
		fprintf(stderr,
			"encbench-trace: FS_IOC_REMOVE_ENCRYPTION_KEY "
			"on %s: %s (unmount drops it)\n",
			t->st.mnt, strerror(errno));
	close(fd);
	t->st.key_added = false;
	explicit_bzero(t->st.key_id, sizeof(t->st.key_id));
}

static void fscrypt_teardown(struct target *t)
{
	if (t->st.key_added)
		remove_key(t);
	target_teardown_common(t);
}

const struct target_ops fscrypt_target_ops = {
	.kind = "fscrypt",
	.help = "ext4 -O encrypt, v2 policy AES-256-XTS/AES-256-CTS",
	.unavailable = fscrypt_unavailable,
	.setup = fscrypt_setup,
	.verify_encrypted = fscrypt_verify,
	.teardown = fscrypt_teardown,
};
