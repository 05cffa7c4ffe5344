// SPDX-License-Identifier: MIT
/*
 * The folders a run is given: resolved and checked before anything is
 * created, and the output folder claimed for this run alone (see
 * outdir.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "config.h"
#include "outdir.h"

static bool is_dot_or_dotdot(const char *name, size_t len)
{
	return (len == 1 && name[0] == '.') ||
	       (len == 2 && name[0] == '.' && name[1] == '.');
}

int path_resolve(const char *what, const char *given, size_t room, char *out,
		 char *existing)
{
	char prefix[PATH_LEN], real[PATH_MAX];
	const char *p = given, *rest = NULL;
	size_t n = 0;
	struct stat st;

	if (!*given)
		RUN_BAD("%s: the path is empty", what);
	if (strlen(given) >= PATH_LEN - room)
		RUN_BAD("%s path '%.60s...' is too long", what, given);
	if (*p == '/')
		prefix[n++] = *p++;
	prefix[n] = '\0';
	/* Component by component, while what is named exists. */
	while (*p) {
		size_t len = strcspn(p, "/");

		if (!len) { /* "a//b", or a trailing slash */
			p++;
			continue;
		}
		if (len > NAME_MAX)
			RUN_BAD("%s path '%.60s...' is too long (a name over "
				"%d bytes)",
				what, given, NAME_MAX);
		if (!rest) {
			size_t m = n;

			if (m && prefix[m - 1] != '/')
				prefix[m++] = '/';
			memcpy(prefix + m, p, len);
			prefix[m + len] = '\0';
			if (stat(prefix, &st) == 0) {
				if (!S_ISDIR(st.st_mode) && p[len])
					RUN_BAD("%s '%s': '%s' is not a folder",
						what, given, prefix);
				n = m + len;
			} else if (errno == ENOENT && lstat(prefix, &st) == 0) {
				RUN_BAD("%s '%s': '%s' is a dangling symbolic "
					"link",
					what, given, prefix);
			} else if (errno == ENOENT) {
				prefix[n] = '\0';
				rest = p;
			} else {
				RUN_BAD("%s '%s': '%s': %s", what, given,
					prefix, strerror(errno));
			}
		}
		if (rest && is_dot_or_dotdot(p, len))
			RUN_BAD("%s '%s': '%.*s' after a folder that does not "
				"exist",
				what, given, (int)len, p);
		p += len;
	}
	if (!realpath(n ? prefix : ".", real))
		RUN_BAD("%s '%s': %s", what, given, strerror(errno));
	snprintf(existing, PATH_LEN, "%s", real);
	if (!rest) {
		snprintf(out, PATH_LEN, "%s", real);
	} else {
		n = (size_t)snprintf(out, PATH_LEN, "%s%s%s", real,
				     strcmp(real, "/") ? "/" : "", rest);
		/* Drop trailing slashes of the rest. */
		while (n > 1 && out[n - 1] == '/')
			out[--n] = '\0';
	}
	if (strlen(out) + room >= PATH_LEN)
		RUN_BAD("%s path '%.60s...' is too long", what, out);
	return 0;
}

/* Pseudo file systems where root's access() says yes but nothing can be
 * created. */
static const struct {
	long magic;
	const char *name;
} no_files_fs[] = {
	{PROC_SUPER_MAGIC, "procfs"},	  {SYSFS_MAGIC, "sysfs"},
	{CGROUP_SUPER_MAGIC, "cgroupfs"}, {CGROUP2_SUPER_MAGIC, "cgroup2"},
	{DEBUGFS_MAGIC, "debugfs"},	  {TRACEFS_MAGIC, "tracefs"},
	{SECURITYFS_MAGIC, "securityfs"}, {BPF_FS_MAGIC, "bpffs"},
	{EFIVARFS_MAGIC, "efivarfs"},	  {PSTOREFS_MAGIC, "pstore"},
};

int dir_check_writable(const char *what, const char *dir)
{
	struct statvfs vfs;
	struct statfs sfs;
	struct stat st;

	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		RUN_BAD("%s '%s' is not a folder", what, dir);
	if (statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
		RUN_BAD("%s '%s' is not writable (read-only file system)", what,
			dir);
	if (statfs(dir, &sfs) == 0)
		for (size_t i = 0;
		     i < sizeof(no_files_fs) / sizeof(no_files_fs[0]); i++)
			if (sfs.f_type == no_files_fs[i].magic)
				RUN_BAD("%s '%s' is not writable (%s holds "
					"no files)",
					what, dir, no_files_fs[i].name);
	if (access(dir, W_OK | X_OK) < 0)
		RUN_BAD("%s '%s' is not writable (%s)", what, dir,
			strerror(errno));
	return 0;
}

/* Does dir hold anything but `except` (may be NULL)? */
static bool dir_has_entries(const char *dir, const char *except)
{
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(dir);

	while (d && !found && (de = readdir(d)))
		found = strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
			!(except && !strcmp(de->d_name, except));
	if (d)
		closedir(d);
	return found;
}

/*
 * When dir holds a run's lock: refuse, naming that run. The owner takes
 * flock before it writes its PID, so once the PID is there the flock
 * tells a live run from a killed one. 0 when there is no lock.
 */
static int refuse_if_locked(const char *dir, const char *lock)
{
	char buf[32] = "";
	long pid = 0;
	int fd = open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	bool held;

	if (fd < 0)
		return 0;
	/* A claim in progress writes its PID within moments. */
	for (int i = 0; i < 100 && pid <= 0; i++) {
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

		buf[n > 0 ? n : 0] = '\0';
		pid = strtol(buf, NULL, 10);
		if (pid <= 0)
			usleep(10000);
	}
	held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	if (held && pid > 0)
		RUN_BAD("output folder '%s' is in use by another "
			"encbench-trace run (PID %ld)",
			dir, pid);
	if (held)
		RUN_BAD("output folder '%s' is in use by another "
			"encbench-trace run",
			dir);
	RUN_BAD("output folder '%s' holds the lock of an encbench-trace run "
		"(PID %ld) that is no longer running: remove %s",
		dir, pid, lock);
}

int output_check(const char *given, struct output_dir *o)
{
	char *existing = o->existing;
	int rc;

	memset(o, 0, sizeof(*o));
	o->lock_fd = -1;
	rc = path_resolve("output", given, OUTPUT_PATH_ROOM, o->path, existing);
	if (rc)
		return rc;
	snprintf(o->lock, sizeof(o->lock), "%s/%s", o->path, OUTPUT_LOCK);
	if (!strcmp(existing, o->path)) {
		struct stat st;

		if (stat(o->path, &st) < 0 || !S_ISDIR(st.st_mode))
			RUN_BAD("output '%s' is not a folder", given);
		rc = refuse_if_locked(o->path, o->lock);
		if (rc)
			return rc;
		/* Nothing of anyone's is ever overwritten. A run that
		 * claimed the folder since the look above has put its lock
		 * there first (output_claim): name it, not the entries its
		 * claim made (CI, 2026-12-06: test_two_runs_one_output's
		 * second run said "is not empty"). */
		if (dir_has_entries(o->path, NULL)) {
			rc = refuse_if_locked(o->path, o->lock);
			if (rc)
				return rc;
			RUN_BAD("output folder '%s' is not empty: choose a "
				"new or empty one (nothing is overwritten)",
				o->path);
		}
	}
	return dir_check_writable("output folder", existing);
}

int output_check_room(const struct output_dir *o, uint64_t bytes,
		      uint64_t files)
{
	struct statvfs vfs;
	uint64_t avail;

	if (statvfs(o->existing, &vfs) < 0)
		RUN_BAD("output folder '%s': %s", o->path, strerror(errno));
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (avail < bytes)
		RUN_BAD("output folder '%s' has %llu KiB free, the results "
			"need about %llu KiB: free some room or choose "
			"another folder",
			o->path, (unsigned long long)(avail >> 10),
			(unsigned long long)((bytes + 1023) >> 10));
	/* f_files 0: a file system without an inode limit (btrfs). */
	if (vfs.f_files && vfs.f_favail < files)
		RUN_BAD("output folder '%s' has room for %llu more files, the "
			"results are about %llu: free some or choose another "
			"folder",
			o->path, (unsigned long long)vfs.f_favail,
			(unsigned long long)files);
	return 0;
}

/* mkdir -p, remembering the topmost folder this run made. A folder that
 * appears meanwhile (another run) is not ours; the lock decides. */
static int make_parents(struct output_dir *o)
{
	char buf[PATH_LEN];

	snprintf(buf, sizeof(buf), "%s", o->path);
	for (char *p = buf + 1;; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) == 0) {
			if (!o->created[0])
				snprintf(o->created, sizeof(o->created), "%s",
					 buf);
		} else if (errno != EEXIST) {
			fprintf(stderr,
				"encbench-trace: run: cannot create output "
				"folder '%s': %s\n",
				buf, strerror(errno));
			return 1;
		}
		*p = c;
		if (!c)
			return 0;
	}
}

int output_claim(struct output_dir *o)
{
	int rc = make_parents(o);

	if (rc)
		goto fail;
	o->lock_fd = open(o->lock,
			  O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
			  0644);
	if (o->lock_fd < 0 && errno == EEXIST) {
		/* Another run claimed it between check and claim. */
		rc = refuse_if_locked(o->path, o->lock);
		if (!rc) {
			fprintf(stderr,
				"encbench-trace: run: output folder '%s' was "
				"claimed by another run meanwhile\n",
				o->path);
			rc = 2;
		}
		goto fail;
	}
	if (o->lock_fd < 0) {
		fprintf(stderr,
			"encbench-trace: run: cannot claim output folder "
			"'%s': %s\n",
			o->path, strerror(errno));
		rc = 1;
		goto fail;
	}
	flock(o->lock_fd, LOCK_EX);
	dprintf(o->lock_fd, "%d\n", (int)getpid());
	/* Checked empty before; anything written since is someone's. */
	if (dir_has_entries(o->path, OUTPUT_LOCK)) {
		fprintf(stderr,
			"encbench-trace: run: output folder '%s' is not "
			"empty: choose a new or empty one (nothing is "
			"overwritten)\n",
			o->path);
		rc = 2;
		goto fail;
	}
	return 0;
fail:
	output_release(o, false);
	return rc ? rc : 1;
}

void output_release(struct output_dir *o, bool written)
{
	char buf[PATH_LEN], *slash;

	if (o->lock_fd >= 0) {
		unlink(o->lock);
		close(o->lock_fd);
		o->lock_fd = -1;
	}
	if (written || !o->created[0])
		return;
	/* From the deepest level up to the topmost one this run made; a
	 * folder that is not empty stays, and so do its parents. */
	snprintf(buf, sizeof(buf), "%s", o->path);
	for (;;) {
		if (rmdir(buf) < 0 && errno != ENOENT)
			return;
		if (!strcmp(buf, o->created))
			return;
		slash = strrchr(buf, '/');
		if (!slash)
			return;
		*slash = '\0';
	}
}
