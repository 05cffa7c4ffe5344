// SPDX-License-Identifier: MIT
/*
 * `teardown`: undo the records of processes that are gone, newest first
 * (a mount before its device, a device before its image, the scratch
 * folder last). Each object is checked to be the one recorded before it
 * is removed -- a file or folder by its inode, a loop device by the inode
 * of its backing file, a dm map by its LUKS2 UUID, a mount by its file
 * system type and source -- and left alone otherwise. What cannot be
 * removed keeps its record, so the next teardown tries again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/mountinfo.h"
#include "../common/state.h"
#include "state_undo.h"
#include "target.h"

int state_path_check(const struct state_rec *r, unsigned int *mode)
{
	char type[NAME_LEN], src[PATH_LEN];
	uint64_t dev, ino, btime;
	int err;

	/* Covered by a mount (undone before this, or not ours): what we
	 * would see is the mounted root, and ours cannot go anyway. */
	if (!mount_at(r->path, type, sizeof(type), src, sizeof(src))) {
		fprintf(stderr,
			"encbench-trace: teardown: %s has a %s mounted on it that is not recorded as ours: unmount it first\n",
			r->path, type);
		return -EBUSY;
	}
	err = state_identity(r->path, &dev, &ino, &btime, mode);

	if (err)
		return err == -ENOENT ? UNDO_GONE : err;
	/* Made, maybe, but not confirmed: ours only at a path holding our
	 * token, and if born after the record (else it was there first). */
	if (r->pending)
		return r->token[0] && strstr(r->path, r->token) &&
				       (!btime || btime > r->since)
			       ? UNDO_REMOVED
			       : UNDO_NOT_OURS;
	/* A new file made where ours was may get our inode number back. */
	if (dev != r->dev || ino != r->ino || (r->btime && btime != r->btime))
		return UNDO_NOT_OURS;
	return UNDO_REMOVED;
}

static int unlink_path(const char *path)
{
	return unlink(path) < 0 ? -errno : 0;
}

static int rmdir_path(const char *path)
{
	return rmdir(path) < 0 ? -errno : 0;
}

/* Removes the recorded path if it is still ours and of `type` (S_IFREG,
 * S_IFDIR); `remove` returns 0 or -errno. */
static int path_undo(const struct state_rec *r, unsigned int type,
		     int (*remove)(const char *path))
{
	unsigned int mode;
	int rc = state_path_check(r, &mode);

	if (rc != UNDO_REMOVED)
		return rc;
	if ((mode & S_IFMT) != type)
		return UNDO_NOT_OURS;
	/* Never confirmed, so never written into: rmdir is enough, and
	 * nothing more is done on the strength of a pending record. */
	if (r->pending && type == S_IFDIR)
		remove = rmdir_path;
	rc = remove(r->path);
	return rc ? rc : UNDO_REMOVED;
}

static int file_undo(const struct state_rec *r)
{
	return path_undo(r, S_IFREG, unlink_path);
}

/* Only ever rmdir: a folder that is not empty holds something that was
 * not recorded, and stays. */
static int dir_undo(const struct state_rec *r)
{
	return path_undo(r, S_IFDIR, rmdir_path);
}

/* A user target's work folder (user.c) in the user's own folder: made
 * by the run, so all that is in it is the run's workloads' files. */
static int work_tree_undo(const struct state_rec *r)
{
	return path_undo(r, S_IFDIR, user_work_remove);
}

/* name: fs type, detail: source, path: mount point. */
static int mount_undo(const struct state_rec *r)
{
	char type[NAME_LEN], src[PATH_LEN];

	if (mount_at(r->path, type, sizeof(type), src, sizeof(src)))
		return UNDO_GONE;
	if (strcmp(type, r->name) || strcmp(src, r->detail))
		return UNDO_NOT_OURS;
	if (umount2(r->path, 0) < 0) {
		int err = -errno;

		fprintf(stderr, "encbench-trace: teardown: umount %s: %s%s\n",
			r->path, strerror(errno),
			err == -EBUSY
				? " (a process works or has files open there: end it and run teardown again)"
				: "");
		return err;
	}
	return UNDO_REMOVED;
}

static const struct {
	const char *type;
	int (*undo)(const struct state_rec *r);
} undo_table[] = {
	{"scratch", dir_undo},
	{"dir", dir_undo},
	{"work-tree", work_tree_undo},
	{"file", file_undo},
	{"mount", mount_undo},
	{"loop", loop_undo},
	{"dm", dmcrypt_undo},
	{"fscrypt-key", fscrypt_key_undo},
	{"user-key", user_key_undo},
	{"zpool", zpool_undo},
	{"zfs-dataset", zfs_dataset_undo},
	{"dm-flags", dm_flags_undo},
};

static void describe(const struct state_rec *r, char *buf, size_t len)
{
	if (r->name[0] && r->path[0])
		snprintf(buf, len, "%s %s (%s)", r->type, r->name, r->path);
	else
		snprintf(buf, len, "%s %s", r->type,
			 r->name[0] ? r->name : r->path);
}

/* One dead process's file: newest record first. Objects that stay. */
static int undo_file(const char *path, FILE *out, int *removed)
{
	struct state_rec *recs;
	unsigned long long start;
	pid_t pid;
	bool kept;
	int nr, left = 0, err;

	err = state_read(path, &recs, &nr, &pid, &start, &kept);
	if (err == -ENOENT)
		return 0;
	if (err) {
		fprintf(stderr,
			"encbench-trace: teardown: %s is not a state file this version reads; left alone\n",
			path);
		return 1;
	}
	if (state_pid_alive(pid, start)) {
		free(recs);
		return 0; /* still running: its own teardown will do it */
	}
	for (int i = nr - 1; i >= 0; i--) {
		struct state_rec *r = &recs[i];
		char what[PATH_LEN + 2 * DETAIL_LEN];
		int rc = -ENOSYS;

		for (size_t k = 0;
		     k < sizeof(undo_table) / sizeof(undo_table[0]); k++)
			if (!strcmp(undo_table[k].type, r->type))
				rc = undo_table[k].undo(r);
		describe(r, what, sizeof(what));
		*removed += rc == UNDO_REMOVED;
		if (rc == UNDO_REMOVED)
			fprintf(out, "%s %s (of %s %d)\n",
				strcmp(r->type, "dm-flags") ? "removed"
							    : "restored",
				what, kept ? "setup" : "run", (int)pid);
		else if (rc == UNDO_NOT_OURS && r->pending)
			fprintf(out,
				"left alone %s: not made by %d (there before it tried)\n",
				what, (int)pid);
		else if (rc == UNDO_NOT_OURS)
			fprintf(out,
				"left alone %s: not the one %d made any more\n",
				what, (int)pid);
		if (rc >= 0) {
			memmove(r, r + 1, (nr - i - 1) * sizeof(*r));
			nr--;
			continue;
		}
		if (rc != -EBUSY)
			fprintf(stderr, "encbench-trace: teardown: %s: %s\n",
				what, strerror(-rc));
		left++;
	}
	err = state_write(path, recs, nr, pid, start, kept ? "setup" : "run",
			  kept);
	free(recs);
	if (err)
		fprintf(stderr,
			"encbench-trace: teardown: cannot update %s: %s\n",
			path, strerror(-err));
	return left;
}

int state_teardown_dead(FILE *out, int *removed)
{
	char lock[PATH_LEN];
	struct dirent **names;
	int n, fd, left = 0;

	n = scandir(state_dir(), &names, NULL, alphasort);
	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	/* Two teardowns at once take turns; runs never take this lock. */
	snprintf(lock, sizeof(lock), "%s/.teardown.lock", state_dir());
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		left = -errno;
		goto cleanup;
	}
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);
		char path[PATH_LEN];

		if (len < 6 || strcmp(name + len - 5, ".json") ||
		    strspn(name, "0123456789") != len - 5)
			continue;
		snprintf(path, sizeof(path), "%s/%s", state_dir(), name);
		left += undo_file(path, out, removed);
	}
cleanup:
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return left;
}
