// SPDX-License-Identifier: MIT
/* Is what the workloads write really encrypted on the medium? Look. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <unistd.h>

#include "target.h"
#include "verify.h"

#define PROBE_BYTES 65536
#define BLK	    4096

int verify_medium(struct target *t, bool encrypted)
{
	int r = verify_plaintext_on_device(t);

	if (r < 0)
		return r;
	t->info.verified_encrypted = encrypted && r == 0;
	return (r == 0) == encrypted ? 0 : -EIO;
}

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static int first_physical_offset(int fd, uint64_t *phys)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent ext[1];
	} m = {0};

	m.fm.fm_length = ~0ULL;
	m.fm.fm_flags = FIEMAP_FLAG_SYNC;
	m.fm.fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, &m.fm) < 0)
		return -errno;
	if (m.fm.fm_mapped_extents < 1 ||
	    (m.ext[0].fe_flags & FIEMAP_EXTENT_UNKNOWN))
		return -ENODATA;
	*phys = m.ext[0].fe_physical;
	return 0;
}

int verify_plaintext_on_device(struct target *t)
{
	char path[PATH_LEN + 32], dev[NAME_LEN + 8];
	unsigned char *data = NULL, *raw = NULL;
	int fd = -1, dfd = -1, err;
	uint64_t phys = 0;

	snprintf(path, sizeof(path), "%s/.encbench-verify", t->info.dir);
	snprintf(dev, sizeof(dev), "/dev/%s", t->info.devices[0].name);
	if (posix_memalign((void **)&data, BLK, PROBE_BYTES) ||
	    posix_memalign((void **)&raw, BLK, BLK)) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (getrandom(data, PROBE_BYTES, 0) != PROBE_BYTES) {
		err = -EIO;
		goto cleanup;
	}
	errno = 0;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data, PROBE_BYTES) != PROBE_BYTES ||
	    fsync(fd) < 0) {
		err = -errno ?: -EIO; /* a short write leaves errno 0 */
		goto cleanup;
	}
	err = first_physical_offset(fd, &phys);
	if (err)
		goto cleanup;
	/* O_DIRECT: the page cache of the block device may hold stale
	 * blocks from mkfs; we want what is on the medium. */
	errno = 0;
	dfd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (dfd < 0 || pread(dfd, raw, BLK, phys) != BLK) {
		err = -errno ?: -EIO;
		goto cleanup;
	}
	if (!memcmp(raw, data, BLK)) {
		err = 1;
	} else if (all_zero(raw, BLK)) {
		/* Not our data, but not ciphertext either: the offset is
		 * wrong or nothing reached the medium. Claim nothing. */
		err = -ENODATA;
	} else {
		err = 0;
	}
cleanup:
	if (err < 0)
		fprintf(stderr,
			"encbench-trace: cannot verify encryption of "
			"%s on %s: %s\n",
			t->info.name, dev, strerror(-err));
	if (dfd >= 0)
		close(dfd);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	free(data);
	free(raw);
	return err;
}
