// SPDX-License-Identifier: MIT
/*
 * This process's state file, and reading anyone's: see state.h.
 *
 * No object may exist unrecorded, even for the instant between the call
 * that makes it and the write that records it: a SIGKILL there would leave
 * it behind (an empty file in the scratch folder, and then the folder's
 * rmdir fails "not empty"). Nor may teardown ever remove what this program
 * did not make. Kind by kind:
 *
 * - Files and folders (scratch folder, images, mount points, a user
 *   target's subfolder) are recorded BEFORE they are made, as pending
 *   (state_add_pending), then confirmed with their identity (inode, birth
 *   time). Every such path holds the run's 64-bit random token, chosen
 *   and written to the state file first -- the scratch folder and a user
 *   target's subfolder in their own names ("encbench-trace.<token>"),
 *   the rest by lying inside the scratch folder -- so nobody else can
 *   have made that path; and anything born before the pending record was
 *   written (a folder already there, when mkdir failed with EEXIST and
 *   the kill came before the record was dropped) is not ours either.
 *   Teardown removes a pending object only then, and only with unlink or
 *   rmdir: a folder never confirmed was never written into.
 * - Mounts are recorded before mount(2), with fs type and source; teardown
 *   unmounts only while the topmost mount there has both. Ours sit on
 *   mount points holding the token, or (tracefs, mounted by probe where
 *   it was missing; a bpffs by an older version) have the token as their
 *   source, which no one else's mount has.
 * - dm maps (by their LUKS2 UUID), zpools (a random name) and datasets
 *   are recorded before they are made.
 * - A loop device is recorded right after LOOP_CONFIGURE: it cannot be
 *   recorded before (LOOP_CTL_GET_FREE's number is only a guess until
 *   the configure succeeds), but it is configured with LO_FLAGS_AUTOCLEAR
 *   through our fd, so until it is recorded it goes when we do. A device
 *   node LOOP_CTL_GET_FREE adds stays unbound, as with losetup -f.
 * - The fscrypt key: its identifier comes from the kernel, so it is
 *   recorded after FS_IOC_ADD_ENCRYPTION_KEY; until then it lives in the
 *   keyring of our own ext4, whose mount was recorded first, and its
 *   unmount drops the key with the superblock.
 * - The eCryptfs key is in our process keyring, which dies with us; the
 *   eCryptfs mount (recorded first) holds its own reference.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "state.h"
#include "pause_point.h"

#define SCHEMA "encbench-trace/state/1"

static struct {
	bool open, kept;
	char path[PATH_LEN];
	char command[16];
	char token[STATE_TOKEN_LEN + 1];
	unsigned long long start;
	int next_id;
	int nr, cap;
	struct state_rec *recs;
} me;

const char *state_dir(void)
{
	const char *d = getenv("ENCBENCH_STATE_DIR");

	return d && *d ? d : STATE_DIR_DEFAULT;
}

/* Field 22 of /proc/PID/stat: when it started, in clock ticks after
 * boot. With the pid, it names one process: pids are reused. */
static unsigned long long start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* After the command name, which may hold spaces and parentheses. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2,
			 "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u "
			 "%*u %*d %*d %*d %*d %*d %*d %llu",
			 &t) != 1)
		return 0;
	return t;
}

bool state_pid_alive(pid_t pid, unsigned long long start)
{
	unsigned long long now = start_time(pid);

	return now && now == start;
}

static struct json_object *rec_json(const struct state_rec *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_int(r->id));
	json_object_object_add(o, "type", json_object_new_string(r->type));
	if (r->path[0])
		json_object_object_add(o, "path",
				       json_object_new_string(r->path));
	if (r->name[0])
		json_object_object_add(o, "name",
				       json_object_new_string(r->name));
	if (r->detail[0])
		json_object_object_add(o, "detail",
				       json_object_new_string(r->detail));
	if (r->ino) {
		json_object_object_add(o, "dev", json_object_new_int64(r->dev));
		json_object_object_add(o, "ino", json_object_new_int64(r->ino));
		json_object_object_add(o, "btime",
				       json_object_new_int64(r->btime));
	}
	if (r->serial)
		json_object_object_add(o, "serial",
				       json_object_new_int64(r->serial));
	if (r->pending) {
		json_object_object_add(o, "pending",
				       json_object_new_boolean(true));
		json_object_object_add(o, "token",
				       json_object_new_string(r->token));
		json_object_object_add(o, "since",
				       json_object_new_int64(r->since));
	}
	return o;
}

static void str_field(struct json_object *o, const char *k, char *dst,
		      size_t len)
{
	struct json_object *v;

	if (json_object_object_get_ex(o, k, &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(dst, len, "%s", json_object_get_string(v));
}

static int64_t int_field(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) ? json_object_get_int64(v)
						   : 0;
}

int state_write(const char *path, const struct state_rec *recs, int nr,
		pid_t pid, unsigned long long start, const char *command,
		bool kept)
{
	struct json_object *doc, *arr;
	char tmp[PATH_LEN + 16], dir[PATH_LEN];
	const char *text;
	int fd, dfd, err = 0;
	size_t len;

	if (nr == 0)
		return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	doc = json_object_new_object();
	arr = json_object_new_array();
	json_object_object_add(doc, "schema", json_object_new_string(SCHEMA));
	json_object_object_add(doc, "pid", json_object_new_int(pid));
	json_object_object_add(doc, "start_time", json_object_new_int64(start));
	json_object_object_add(doc, "command", json_object_new_string(command));
	json_object_object_add(doc, "kept", json_object_new_boolean(kept));
	for (int i = 0; i < nr; i++)
		json_object_array_add(arr, rec_json(&recs[i]));
	json_object_object_add(doc, "objects", arr);
	text = json_object_to_json_string_ext(
		doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	len = strlen(text);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		goto cleanup;
	}
	if (write(fd, text, len) != (ssize_t)len || write(fd, "\n", 1) != 1 ||
	    fsync(fd) < 0)
		err = errno ? -errno : -EIO;
	close(fd);
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err) {
		unlink(tmp);
		goto cleanup;
	}
	/* The rename itself, on disk. */
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
cleanup:
	json_object_put(doc);
	return err;
}

int state_read(const char *path, struct state_rec **recs, int *nr, pid_t *pid,
	       unsigned long long *start, bool *kept)
{
	struct json_object *doc = json_object_from_file(path), *arr, *v;
	char schema[64] = "";
	int n;

	*recs = NULL;
	*nr = 0;
	if (!doc)
		return errno == ENOENT ? -ENOENT : -EINVAL;
	str_field(doc, "schema", schema, sizeof(schema));
	if (strcmp(schema, SCHEMA) ||
	    !json_object_object_get_ex(doc, "objects", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		json_object_put(doc);
		return -EINVAL;
	}
	*pid = (pid_t)int_field(doc, "pid");
	*start = (unsigned long long)int_field(doc, "start_time");
	*kept = json_object_object_get_ex(doc, "kept", &v) &&
		json_object_get_boolean(v);
	n = (int)json_object_array_length(arr);
	*recs = calloc(n ? n : 1, sizeof(**recs));
	if (!*recs) {
		json_object_put(doc);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		struct state_rec *r = &(*recs)[i];

		r->id = (int)int_field(o, "id");
		str_field(o, "type", r->type, sizeof(r->type));
		str_field(o, "path", r->path, sizeof(r->path));
		str_field(o, "name", r->name, sizeof(r->name));
		str_field(o, "detail", r->detail, sizeof(r->detail));
		r->dev = (uint64_t)int_field(o, "dev");
		r->ino = (uint64_t)int_field(o, "ino");
		r->btime = (uint64_t)int_field(o, "btime");
		r->serial = int_field(o, "serial");
		r->pending = json_object_object_get_ex(o, "pending", &v) &&
			     json_object_get_boolean(v);
		str_field(o, "token", r->token, sizeof(r->token));
		r->since = (uint64_t)int_field(o, "since");
	}
	*nr = n;
	json_object_put(doc);
	return 0;
}

static int save(void)
{
	int err = state_write(me.path, me.recs, me.nr, getpid(), me.start,
			      me.command, me.kept);

	if (err)
		fprintf(stderr,
			"encbench-trace: cannot write state file %s: "
			"%s\n",
			me.path, strerror(-err));
	return err;
}

const char *state_token(void)
{
	return me.open ? me.token : "";
}

int state_open(const char *command)
{
	const char *dir = state_dir();
	unsigned char raw[STATE_TOKEN_LEN / 2];

	if (getrandom(raw, sizeof(raw), 0) != sizeof(raw))
		return -EIO;
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(me.token + 2 * i, 3, "%02x", raw[i]);

	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "encbench-trace: cannot create %s: %s\n", dir,
			strerror(errno));
		return -errno;
	}
	snprintf(me.path, sizeof(me.path), "%s/%d.json", dir, (int)getpid());
	snprintf(me.command, sizeof(me.command), "%s", command);
	me.start = start_time(getpid());
	me.next_id = 1;
	me.nr = 0;
	me.kept = false;
	me.open = true;
	return 0;
}

int state_add(const struct state_rec *r)
{
	int err;

	if (!me.open)
		return 0;
	if (me.nr == me.cap) {
		int cap = me.cap ? 2 * me.cap : 16;
		struct state_rec *n = realloc(me.recs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		me.recs = n;
		me.cap = cap;
	}
	me.recs[me.nr] = *r;
	me.recs[me.nr].id = me.next_id;
	me.nr++;
	err = save();
	if (err) {
		me.nr--;
		return err;
	}
	return me.next_id++;
}

int state_identity(const char *path, uint64_t *dev, uint64_t *ino,
		   uint64_t *btime, unsigned int *mode)
{
	struct statx sx;

	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW,
		  STATX_INO | STATX_TYPE | STATX_BTIME, &sx) < 0)
		return -errno;
	*dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	*ino = sx.stx_ino;
	*btime = sx.stx_mask & STATX_BTIME
			 ? (uint64_t)sx.stx_btime.tv_sec * 1000000000ull +
				   sx.stx_btime.tv_nsec
			 : 0;
	if (mode)
		*mode = sx.stx_mode;
	return 0;
}

/* A new record of these fields; with identify, path's identity too. */
static int add_fields(const char *type, const char *name, const char *path,
		      const char *detail, bool identify)
{
	struct state_rec *r;
	int id = 0;

	if (!me.open)
		return 0;
	r = calloc(1, sizeof(*r)); /* two paths: too big for the stack */
	if (!r)
		return -ENOMEM;
	if (identify)
		id = state_identity(path, &r->dev, &r->ino, &r->btime, NULL);
	if (!id) {
		snprintf(r->type, sizeof(r->type), "%s", type);
		snprintf(r->name, sizeof(r->name), "%s", name ?: "");
		snprintf(r->path, sizeof(r->path), "%s", path ?: "");
		snprintf(r->detail, sizeof(r->detail), "%s", detail ?: "");
		id = state_add(r);
	}
	free(r);
	return id;
}

int state_add_path(const char *type, const char *name, const char *path)
{
	return add_fields(type, name, path, NULL, true);
}

int state_add_pending(const char *type, const char *name, const char *path)
{
	struct state_rec *r;
	int id;

	if (!me.open)
		return 0;
	if (!strstr(path, me.token))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	snprintf(r->type, sizeof(r->type), "%s", type);
	snprintf(r->name, sizeof(r->name), "%s", name ?: "");
	snprintf(r->path, sizeof(r->path), "%s", path);
	snprintf(r->token, sizeof(r->token), "%s", me.token);
	r->since = state_mark_since();
	r->pending = true;
	id = state_add(r);
	free(r);
	return id;
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec;
}

uint64_t state_mark_since(void)
{
	uint64_t since = clock_ns(CLOCK_REALTIME);

	/* File systems stamp birth times from the coarse clock (or a finer
	 * one), which lags this one by up to a tick: wait until it has
	 * passed `since`, so that whatever is made after this returns is
	 * born after `since`, and whatever was made before, at or before
	 * it -- even within the same tick (a coarse `since` could not tell
	 * those apart). At most one tick, 1-10 ms. */
	while (clock_ns(CLOCK_REALTIME_COARSE) <= since)
		usleep(500);
	return since;
}

int state_confirm(int id)
{
	struct state_rec *r = NULL;
	int err;

	for (int i = 0; i < me.nr && me.open; i++)
		if (me.recs[i].id == id)
			r = &me.recs[i];
	if (!r)
		return 0;
	/* Test hook: the object exists, its record is still pending. */
	pause_point("made:%s:%s", r->type,
		    r->name[0] ? r->name : strrchr(r->path, '/') + 1);
	err = state_identity(r->path, &r->dev, &r->ino, &r->btime, NULL);
	if (err)
		return err;
	r->pending = false;
	return save();
}

/* Record id's object could not be made (err): whatever is at its path
 * is not ours, and the record goes. */
static int not_made(int id, int err)
{
	for (int i = 0; i < me.nr && me.open; i++)
		if (me.recs[i].id == id)
			/* Test hook: a kill here leaves the pending record
			 * over something that was there first. */
			pause_point("failed:%s:%s", me.recs[i].type,
				    strrchr(me.recs[i].path, '/') + 1);
	state_forget(id);
	return err;
}

int state_mkdir(const char *type, const char *name, const char *path,
		mode_t mode)
{
	int id = state_add_pending(type, name, path), err;

	if (id < 0)
		return id;
	if (mkdir(path, mode) < 0)
		return not_made(id, -errno);
	err = state_confirm(id);
	if (err) {
		rmdir(path);
		state_forget(id);
		return err;
	}
	return id;
}

int state_create_file(const char *path, int *rec)
{
	int id = state_add_pending("file", NULL, path), fd, err;

	*rec = 0;
	if (id < 0)
		return id;
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return not_made(id, -errno);
	err = state_confirm(id);
	if (err) {
		close(fd);
		unlink(path);
		state_forget(id);
		return err;
	}
	*rec = id;
	return fd;
}

int state_add_mount(const char *mnt, const char *fstype, const char *source)
{
	return add_fields("mount", fstype, mnt, source, false);
}

int state_add_named(const char *type, const char *name, const char *path,
		    const char *detail)
{
	return add_fields(type, name, path, detail, false);
}

void state_forget(int id)
{
	if (!me.open || id <= 0)
		return;
	for (int i = 0; i < me.nr; i++) {
		if (me.recs[i].id != id)
			continue;
		memmove(&me.recs[i], &me.recs[i + 1],
			(me.nr - i - 1) * sizeof(me.recs[0]));
		me.nr--;
		save();
		return;
	}
}

int state_keep(void)
{
	if (!me.open)
		return 0;
	me.kept = true;
	return save();
}

int state_close(void)
{
	int left = me.nr;

	if (!me.open)
		return 0;
	if (left && !me.kept)
		fprintf(stderr,
			"encbench-trace: %d object(s) could not be removed; "
			"they are recorded in %s: run `encbench-trace "
			"teardown`\n",
			left, me.path);
	free(me.recs);
	me.recs = NULL;
	me.nr = me.cap = 0;
	me.open = false;
	return left ? -EBUSY : 0;
}

/* "<pid>.json": its pid, or 0 for any other name. */
static pid_t pid_of_name(const char *name)
{
	char *end;
	long pid = strtol(name, &end, 10);

	return pid > 0 && end != name && !strcmp(end, ".json") ? (pid_t)pid : 0;
}

pid_t state_stale(void)
{
	DIR *d = opendir(state_dir());
	struct dirent *de;
	pid_t found = 0;

	while (d && (de = readdir(d))) {
		char path[PATH_LEN];
		struct state_rec *recs;
		unsigned long long start;
		pid_t pid = pid_of_name(de->d_name), owner;
		bool kept;
		int nr;

		if (!pid)
			continue;
		snprintf(path, sizeof(path), "%s/%s", state_dir(), de->d_name);
		if (state_read(path, &recs, &nr, &owner, &start, &kept))
			continue; /* unreadable, or gone meanwhile */
		free(recs);
		if (nr && !kept && !state_pid_alive(owner, start) &&
		    (!found || pid < found))
			found = pid;
	}
	if (d)
		closedir(d);
	return found;
}
