// SPDX-License-Identifier: MIT
/*
 * Stack detection (detect.h): the mount table, sysfs, libcryptsetup and the
 * fscrypt ioctl, read only. Nothing here changes the system.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fscrypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "detect.h"
#include "../common/mountinfo.h"
#include "zfs.h"

#define MAX_CHAIN_DEPTH 8

/* First line of a sysfs file, without its newline; "" if unreadable. */
static void sysfs_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f && fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

static int find_device(const struct detected_stack *s, unsigned int ma,
		       unsigned int mi)
{
	for (int i = 0; i < s->nr_devices; i++)
		if (s->devices[i].major == ma && s->devices[i].minor == mi)
			return i;
	return -1;
}

static int add_device(struct detected_stack *s, unsigned int ma,
		      unsigned int mi, const char *role)
{
	char path[64], link[PATH_MAX];
	struct device_info *d;
	ssize_t n;
	int i = find_device(s, ma, mi);

	if (i >= 0)
		return i;
	if (s->nr_devices >= MAX_DEVICES)
		return -E2BIG;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", ma, mi);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -errno;
	link[n] = '\0';
	i = s->nr_devices++;
	d = &s->devices[i];
	snprintf(d->name, sizeof(d->name), "%s",
		 strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
	d->major = ma;
	d->minor = mi;
	snprintf(d->role, sizeof(d->role), "%s", role);
	s->below[i] = -1;
	return i;
}

/* What a device-mapper device is: "crypt" (and its parameters read back,
 * for the first one), or "dm". */
static const char *dm_role(struct detected_stack *s, const char *sys, int i)
{
	char path[PATH_MAX], uuid[256], name[NAME_LEN];

	snprintf(path, sizeof(path), "%s/dm/uuid", sys);
	sysfs_line(path, uuid, sizeof(uuid));
	snprintf(path, sizeof(path), "%s/dm/name", sys);
	sysfs_line(path, name, sizeof(name));
	/* cryptsetup names every mapping it makes CRYPT-<type>-... */
	if (!strncmp(uuid, "CRYPT-", 6)) {
		if (s->crypt_index < 0 && name[0] &&
		    dmcrypt_read_active(name, &s->crypt) == 0)
			s->crypt_index = i;
		return "crypt";
	}
	if (!s->other_dm[0])
		snprintf(s->other_dm, sizeof(s->other_dm), "%s (%s)",
			 s->devices[i].name, name[0] ? name : "device-mapper");
	return "dm";
}

/* ma:mi and, recursively, the devices below it (sysfs "slaves"), and the
 * whole disk of a partition. Returns its index or negative errno. */
static int add_chain(struct detected_stack *s, unsigned int ma, unsigned int mi,
		     int depth)
{
	char sys[64], path[PATH_MAX], buf[64];
	struct dirent *e;
	unsigned int a, b;
	int i, nr_below = 0;
	DIR *d;

	if (depth > MAX_CHAIN_DEPTH)
		return -ELOOP;
	if (find_device(s, ma, mi) >= 0)
		return find_device(s, ma, mi);
	i = add_device(s, ma, mi, "backing");
	if (i < 0)
		return i;
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", ma, mi);
	snprintf(path, sizeof(path), "%s/dm", sys);
	if (access(path, F_OK) == 0)
		snprintf(s->devices[i].role, sizeof(s->devices[i].role), "%s",
			 dm_role(s, sys, i));
	snprintf(path, sizeof(path), "%s/slaves", sys);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		char dev[PATH_MAX + 300];
		int j;

		if (e->d_name[0] == '.')
			continue;
		snprintf(dev, sizeof(dev), "%s/%s/dev", path, e->d_name);
		sysfs_line(dev, buf, sizeof(buf));
		if (sscanf(buf, "%u:%u", &a, &b) != 2)
			continue;
		j = add_chain(s, a, b, depth + 1);
		if (j >= 0)
			s->below[i] = nr_below++ ? -2 : j;
	}
	if (d)
		closedir(d);
	if (nr_below && !strcmp(s->devices[i].role, "backing"))
		snprintf(s->devices[i].role, sizeof(s->devices[i].role),
			 "stacked"); /* md and the like */
	/* A partition: its disk is where the requests are issued. */
	snprintf(path, sizeof(path), "%s/partition", sys);
	if (access(path, F_OK) == 0) {
		snprintf(path, sizeof(path), "%s/../dev", sys);
		sysfs_line(path, buf, sizeof(buf));
		if (sscanf(buf, "%u:%u", &a, &b) == 2)
			add_device(s, a, b, "disk");
	}
	return i;
}

/* The cipher and key size an eCryptfs mount shows among its options. */
static void ecryptfs_options(struct detected_stack *s, const char *opts)
{
	const char *c = strstr(opts, "ecryptfs_cipher=");
	const char *k = strstr(opts, "ecryptfs_key_bytes=");

	snprintf(s->ecryptfs_cipher, sizeof(s->ecryptfs_cipher), "%.*s",
		 c ? (int)strcspn(c + 16, ",") : 3, c ? c + 16 : "aes");
	s->ecryptfs_key_bits = k ? atoi(k + 19) * 8 : 128;
}

/* fscrypt modes (linux/fscrypt.h) as /proc/crypto names them, with the
 * key size each takes (fs/crypto/keysetup.c). */
static const char *fscrypt_mode(int mode, int *key_bits)
{
	static const struct {
		int mode, key_bytes;
		const char *name;
	} modes[] = {
		{FSCRYPT_MODE_AES_256_XTS, 64, "xts(aes)"},
		{FSCRYPT_MODE_AES_256_CTS, 32, "cts(cbc(aes))"},
		{FSCRYPT_MODE_AES_128_CBC, 16, "essiv(cbc(aes),sha256)"},
		{FSCRYPT_MODE_AES_128_CTS, 16, "cts(cbc(aes))"},
		{FSCRYPT_MODE_ADIANTUM, 32, "adiantum(xchacha12,aes)"},
		{7, 32, "xts(sm4)"},	  /* SM4_XTS */
		{8, 16, "cts(cbc(sm4))"}, /* SM4_CTS */
		{10, 32, "hctr2(aes)"},	  /* AES_256_HCTR2 */
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (modes[i].mode == mode) {
			if (key_bits)
				*key_bits = modes[i].key_bytes * 8;
			return modes[i].name;
		}
	return "unknown mode";
}

/* The folder's fscrypt policy, if it has one. */
static void fscrypt_policy(struct detected_stack *s, const char *dir)
{
	struct fscrypt_get_policy_ex_arg arg = {.policy_size =
							sizeof(arg.policy)};
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), c, n;

	if (fd < 0)
		return;
	/* ENODATA: not encrypted; ENOTTY, EOPNOTSUPP: cannot be. */
	if (ioctl(fd, FS_IOC_GET_ENCRYPTION_POLICY_EX, &arg) == 0) {
		bool v2 = arg.policy.version == FSCRYPT_POLICY_V2;

		c = v2 ? arg.policy.v2.contents_encryption_mode
		       : arg.policy.v1.contents_encryption_mode;
		n = v2 ? arg.policy.v2.filenames_encryption_mode
		       : arg.policy.v1.filenames_encryption_mode;
		s->fscrypt = true;
		s->fscrypt_version = v2 ? 2 : 1;
		snprintf(s->fscrypt_contents, sizeof(s->fscrypt_contents), "%s",
			 fscrypt_mode(c, &s->fscrypt_key_bits));
		snprintf(s->fscrypt_names, sizeof(s->fscrypt_names), "%s",
			 fscrypt_mode(n, NULL));
	}
	close(fd);
}

/* The block devices of the filesystem at m (dir is on it). */
static int device_chain(struct detected_stack *s, const struct mount_entry *m)
{
	unsigned int ma = m->major, mi = m->minor;
	struct stat st;
	int err;

	/* btrfs and the like report an anonymous device (major 0): their
	 * mount source, if a block device, is the one. */
	if (!ma && stat(m->source, &st) == 0 && S_ISBLK(st.st_mode)) {
		ma = major(st.st_rdev);
		mi = minor(st.st_rdev);
	}
	if (!ma)
		return 0; /* tmpfs, nfs, overlay, zfs: no block device */
	err = add_chain(s, ma, mi, 0);
	if (err < 0)
		return err;
	if (strcmp(s->devices[0].role, "crypt"))
		snprintf(s->devices[0].role, sizeof(s->devices[0].role), "fs");
	return 0;
}

int stack_detect_device(unsigned int ma, unsigned int mi,
			struct detected_stack *s)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->crypt_index = -1;
	err = add_chain(s, ma, mi, 0);
	return err < 0 ? err : 0;
}

int stack_detect(const char *dir, struct detected_stack *s, char *why,
		 size_t len)
{
	struct mount_entry m, lower;
	int err;

	memset(s, 0, sizeof(*s));
	s->crypt_index = -1;
	if (!realpath(dir, s->path)) {
		err = -errno;
		snprintf(why, len, "%s", strerror(errno));
		return err;
	}
	err = mount_of(s->path, &m);
	if (err) {
		snprintf(why, len, "not in the mount table");
		return err;
	}
	snprintf(s->mnt, sizeof(s->mnt), "%s", m.mnt);
	snprintf(s->fs, sizeof(s->fs), "%s", m.type);
	fscrypt_policy(s, s->path);
	if (!strcmp(m.type, "zfs")) {
		err = zfs_dataset_info(m.source, &s->zfs);
		if (err)
			snprintf(why, len, "cannot read ZFS dataset %s",
				 m.source);
		return err;
	}
	if (!strcmp(m.type, "ecryptfs")) {
		s->ecryptfs = true;
		ecryptfs_options(s, m.options);
		snprintf(s->lower, sizeof(s->lower), "%s", m.source);
		err = mount_of(s->lower, &lower);
		if (err) {
			snprintf(why, len, "eCryptfs lower folder %s: %s",
				 s->lower, strerror(-err));
			return err;
		}
		snprintf(s->lower_mnt, sizeof(s->lower_mnt), "%s", lower.mnt);
		snprintf(s->lower_fs, sizeof(s->lower_fs), "%s", lower.type);
		m = lower;
	}
	err = device_chain(s, &m);
	if (err)
		snprintf(why, len, "block devices of %s: %s", m.mnt,
			 strerror(-err));
	return err;
}

static void add_note(struct target_info *ti, const char *fmt, const char *a,
		     const char *b)
{
	if (ti->nr_notes < MAX_NOTES)
		snprintf(ti->notes[ti->nr_notes++], DETAIL_LEN, fmt, a, b);
}

void stack_describe(const struct detected_stack *s, struct target_info *ti)
{
	bool done = false;

	snprintf(ti->fs, sizeof(ti->fs), "%s", s->fs);
	snprintf(ti->mount, sizeof(ti->mount), "%s", s->mnt);
	ti->nr_devices = s->nr_devices;
	memcpy(ti->devices, s->devices, sizeof(s->devices));
	if (s->ecryptfs) {
		snprintf(ti->encryption.scheme, NAME_LEN, "eCryptfs");
		snprintf(ti->encryption.contents_cipher, NAME_LEN, "cbc(%s)",
			 s->ecryptfs_cipher);
		ti->encryption.key_bits = s->ecryptfs_key_bits;
		add_note(ti, "eCryptfs over %s (%s)", s->lower, s->lower_fs);
		done = true;
	}
	if (s->fscrypt && !done) {
		snprintf(ti->encryption.scheme, NAME_LEN, "fscrypt v%d policy",
			 s->fscrypt_version);
		snprintf(ti->encryption.contents_cipher, NAME_LEN, "%s",
			 s->fscrypt_contents);
		snprintf(ti->encryption.names_cipher, NAME_LEN, "%s",
			 s->fscrypt_names);
		ti->encryption.key_bits = s->fscrypt_key_bits;
		done = true;
	}
	if (s->crypt_index >= 0 && !done) {
		dmcrypt_describe(&s->crypt, ti);
		done = !ti->null_cipher;
	} else if (s->crypt_index >= 0) {
		/* Both: the one below is said, not lost. */
		add_note(ti, "under the %s, also %s dm-crypt",
			 ti->encryption.scheme, s->crypt.type);
	}
	if (s->zfs.dataset[0]) {
		ti->zfs = s->zfs;
		if (!done)
			zfs_describe_encryption(&s->zfs, ti);
		done = ti->encrypted;
	}
	ti->encrypted = done;
}
