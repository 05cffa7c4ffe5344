// SPDX-License-Identifier: MIT
/* Is what the workloads write really encrypted on the medium? Look. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "target.h"
#include "verify.h"

#define PROBE_BYTES 65536
#define BLK	    4096
/* What is read raw: the probe plus room for a header in front of it (an
 * eCryptfs file starts with 8 KiB of metadata). */
#define RAW_BYTES (PROBE_BYTES + 4 * BLK)

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* Write the probe file and sync it: 0 or negative errno. */
static int write_probe(const char *path, const unsigned char *data)
{
	int fd, err = 0;

	errno = 0;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data, PROBE_BYTES) != PROBE_BYTES ||
	    fsync(fd) < 0)
		err = -errno ?: -EIO; /* a short write leaves errno 0 */
	if (fd >= 0)
		close(fd);
	return err;
}

/* Each layer from the top down moves the location one level down. */
static int locate(const struct target *t, struct verify_loc *loc)
{
	for (int i = t->nr_layers - 1; i >= 0; i--) {
		const struct stack_layer *l = &t->layers[i];
		int err;

		if (!l->ops->locate)
			continue;
		err = l->ops->locate(l, loc);
		if (err)
			return err;
	}
	return loc->dev[0] || loc->scan ? 0 : -ENODEV;
}

/*
 * loc.scan: the probe may be anywhere on the device. Read it all, block
 * aligned chunk by chunk (the probe's first block is block aligned on the
 * device, so it never straddles two chunks): 1 found, 0 not, or -errno.
 */
static int scan_device(int dfd, const struct verify_loc *loc,
		       const unsigned char *data, unsigned char *raw)
{
	off_t end = lseek(dfd, 0, SEEK_END);
	uint64_t off = loc->offset & ~(uint64_t)(BLK - 1);
	ssize_t n;

	if (end < 0)
		return -errno;
	if (loc->length && loc->offset + loc->length < (uint64_t)end)
		end = loc->offset + loc->length;
	for (; off < (uint64_t)end; off += n) {
		/* Holes of a sparse file hold nothing: skip them. */
		off_t data_at = lseek(dfd, off, SEEK_DATA);

		if (data_at < 0)
			break; /* ENXIO: no data past off */
		off = (uint64_t)data_at & ~(uint64_t)(BLK - 1);
		n = pread(dfd, raw, RAW_BYTES, off);
		if (n < 0)
			return -errno;
		if (n < BLK)
			break;
		if (memmem(raw, n, data, BLK))
			return 1;
	}
	return 0;
}

/* Into the target's description; an error is printed too, but on a
 * detected stack "not verified" is a finding, said with the target. */
static void say_what_was_seen(struct target *t, int r, const char *dev,
			      const char *why)
{
	char *v = t->info.verification;
	size_t len = sizeof(t->info.verification);

	if (r == 1)
		snprintf(v, len, "plaintext on %s", dev);
	else if (r == 0)
		snprintf(v, len, "ciphertext on %s", dev);
	else if (why[0])
		snprintf(v, len, "not verified: %s", why);
	else
		snprintf(v, len, "not verified: %s on %s", strerror(-r), dev);
	if (r < 0 && !t->kind->detected)
		fprintf(stderr,
			"encbench-trace: cannot verify encryption of %s: %s\n",
			t->info.name, v + strlen("not verified: "));
}

int verify_plaintext_on_device(struct target *t)
{
	char path[PATH_LEN + 32], dev[NAME_LEN + 8] = "?";
	unsigned char *data = NULL, *raw = NULL;
	struct verify_loc loc = {.length = RAW_BYTES};
	int dfd = -1, err;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/.encbench-verify", t->info.dir);
	snprintf(loc.path, sizeof(loc.path), "%s", path);
	if (posix_memalign((void **)&data, BLK, PROBE_BYTES) ||
	    posix_memalign((void **)&raw, BLK, RAW_BYTES)) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (getrandom(data, PROBE_BYTES, 0) != PROBE_BYTES) {
		err = -EIO;
		goto cleanup;
	}
	err = write_probe(path, data);
	if (!err)
		err = locate(t, &loc);
	if (err)
		goto cleanup;
	if (loc.scan && !loc.dev[0]) {
		/* A file stands for the medium (ZFS's vdev): what its
		 * filesystem holds, page cache included, is what the layer
		 * above wrote. */
		snprintf(dev, sizeof(dev), "%s", loc.path);
		dfd = open(loc.path, O_RDONLY | O_CLOEXEC);
		err = dfd < 0 ? -errno : scan_device(dfd, &loc, data, raw);
		goto cleanup;
	}
	snprintf(dev, sizeof(dev), "/dev/%s", loc.dev);
	/* O_DIRECT: the page cache of the block device may hold stale
	 * blocks from mkfs; we want what is on the medium. */
	errno = 0;
	dfd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (dfd >= 0 && loc.scan) {
		err = scan_device(dfd, &loc, data, raw);
		goto cleanup;
	}
	/* Block aligned, as O_DIRECT wants (a filesystem of 1 KiB blocks
	 * may put the file anywhere): the probe is searched for anywhere in
	 * what is read. */
	loc.length += loc.offset & (BLK - 1);
	loc.offset &= ~(uint64_t)(BLK - 1);
	if (loc.length > RAW_BYTES)
		loc.length = RAW_BYTES;
	loc.length &= ~(uint64_t)(BLK - 1);
	if (dfd < 0 || (n = pread(dfd, raw, loc.length, loc.offset)) < BLK) {
		err = -errno ?: -EIO;
		goto cleanup;
	}
	/* Anywhere in what was read: a header may come first. */
	if (memmem(raw, n, data, BLK)) {
		err = 1;
	} else if (all_zero(raw, n)) {
		/* Not our data, but not ciphertext either: the offset is
		 * wrong or nothing reached the medium. Claim nothing. */
		err = -ENODATA;
	} else {
		err = 0;
	}
cleanup:
	say_what_was_seen(t, err, dev, loc.why);
	unlink(path);
	free(data);
	free(raw);
	if (dfd >= 0)
		close(dfd);
	return err;
}
