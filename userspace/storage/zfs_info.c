// SPDX-License-Identifier: MIT
/*
 * What a ZFS dataset is: its properties (`zfs get`, the only interface
 * OpenZFS keeps stable), which dataset a folder is on (the mount table),
 * the module's version, and which code does its encryption (ZFS's own
 * ICP, with implementations chosen by module parameters).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mountinfo.h"
#include "layer.h"
#include "zfs.h"

/* First line of a small file, without its newline; "" if unreadable. */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static void set_prop(struct zfs_info *z, const char *prop, const char *val)
{
	static const struct {
		const char *name;
		size_t off, len;
	} str_props[] = {
#define P(f)                                                                   \
	{#f, offsetof(struct zfs_info, f), sizeof(((struct zfs_info *)0)->f)}
		P(encryption),	P(keystatus), P(keyformat),
		P(compression), P(direct),
#undef P
	};

	for (size_t i = 0; i < sizeof(str_props) / sizeof(str_props[0]); i++)
		if (!strcmp(prop, str_props[i].name)) {
			snprintf((char *)z + str_props[i].off, str_props[i].len,
				 "%s", val);
			return;
		}
	if (!strcmp(prop, "recordsize"))
		z->recordsize = strtoull(val, NULL, 10);
	else if (!strcmp(prop, "objsetid"))
		z->objset_id = strtoull(val, NULL, 10);
}

int zfs_dataset_info(const char *dataset, struct zfs_info *z)
{
	/* `all` rather than a list: a list naming a property this version
	 * lacks (direct, before 2.3) fails as a whole. -p: exact numbers. */
	char *argv[] = {"zfs", "get",		"-Hp", "-o", "property,value",
			"all", (char *)dataset, NULL};
	char *out = malloc(65536), *line, *save = NULL;
	int err;

	if (!out)
		return -ENOMEM;
	memset(z, 0, sizeof(*z));
	snprintf(z->dataset, sizeof(z->dataset), "%s", dataset);
	err = run_cmd_io(argv, NULL, 0, out, 65536);
	if (err) {
		free(out);
		fprintf(stderr, "encbench-trace: zfs get all %s failed\n",
			dataset);
		return err < 0 ? err : -EIO;
	}
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');

		if (!tab)
			continue;
		*tab = '\0';
		set_prop(z, line, tab + 1);
	}
	free(out);
	read_line("/sys/module/zfs/version", z->version, sizeof(z->version));
	return 0;
}

int zfs_dataset_of(const char *dir, char *buf, size_t len)
{
	struct mount_entry m;
	int err = mount_of(dir, &m);

	if (err)
		return err;
	if (strcmp(m.type, "zfs"))
		return -ENOENT;
	snprintf(buf, len, "%s", m.source);
	return 0;
}

/*
 * The implementation ZFS's ICP uses: each parameter lists the choices with
 * the current one in brackets ("cycle [fastest] generic x86_64 aesni").
 * "fastest" is, in 2.1, the last of the list that this CPU supports.
 */
static void icp_impl(const char *param, char *buf, size_t len)
{
	char path[128], line[256], *open, *close, *last;

	snprintf(path, sizeof(path), "/sys/module/icp/parameters/%s", param);
	read_line(path, line, sizeof(line));
	open = strchr(line, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!close) {
		snprintf(buf, len, "?");
		return;
	}
	*close = '\0';
	/* The list may end with a space. */
	for (size_t n = strlen(close + 1); n && close[n] == ' '; n--)
		close[n] = '\0';
	last = strrchr(close + 1, ' ');
	if (!strcmp(open + 1, "fastest") && last && last[1])
		snprintf(buf, len, "fastest = %s", last + 1);
	else
		snprintf(buf, len, "%s", open + 1);
}

void zfs_describe_encryption(const struct zfs_info *z, struct target_info *ti)
{
	char aes[48], gcm[48];
	int bits = 0;

	if (!z->encryption[0] || !strcmp(z->encryption, "off"))
		return;
	ti->encrypted = true;
	snprintf(ti->encryption.scheme, NAME_LEN, "ZFS native encryption");
	snprintf(ti->encryption.contents_cipher, NAME_LEN, "%s", z->encryption);
	snprintf(ti->encryption.names_cipher, NAME_LEN,
		 "%s (metadata encrypted too)", z->encryption);
	sscanf(z->encryption, "aes-%d-", &bits);
	ti->encryption.key_bits = bits;
	icp_impl("icp_aes_impl", aes, sizeof(aes));
	icp_impl("icp_gcm_impl", gcm, sizeof(gcm));
	snprintf(ti->encryption.driver, NAME_LEN, "ZFS ICP aes %s, gcm %s", aes,
		 gcm);
	ti->encryption.hw_accel = strstr(aes, "aesni") != NULL;
}

int zfs_pool_sync(const struct zfs_info *z)
{
	char pool[sizeof(z->dataset)];
	char *argv[] = {"zpool", "sync", pool, NULL};

	snprintf(pool, sizeof(pool), "%s", z->dataset);
	pool[strcspn(pool, "/")] = '\0';
	if (!pool[0])
		return 0;
	/* What sync(2) does on ZFS is commit the intent log; the data of
	 * the open txg stays in dirty buffers, plaintext in memory, that a
	 * read served from until the txg syncs (every 5 s, or when enough
	 * is dirty). `zpool sync` waits for that. */
	return run_cmd(argv) ? -EIO : 0;
}

const char *zfs_direct_caveat(const struct zfs_info *z)
{
	/* OpenZFS 2.3 added real O_DIRECT (and the `direct` property);
	 * before it, O_DIRECT is accepted and served through the ARC. The
	 * ARC keeps an encrypted dataset's blocks encrypted, so a read from
	 * it still decrypts, in the reader's own context: the verdict says
	 * so from the trace and the ARC's counters, not this note. */
	if (!z->dataset[0] || z->direct[0])
		return NULL;
	return "OpenZFS before 2.3 serves O_DIRECT through the ARC (its "
	       "cache): reads may not reach the disk";
}
