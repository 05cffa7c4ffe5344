// SPDX-License-Identifier: MIT
/*
 * The state file's pending records (common/state.c): a file or folder is
 * recorded before it is made, at a path holding the run's token, and
 * confirmed with its identity after; teardown's check takes a pending
 * object as ours only at a path with that token and born after the
 * record. No root needed: files in a folder of the test's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "run_prog.h"
#include "common/state.h"
#include "storage/state_undo.h"

static char tmp[] = "/tmp/encbench-state.XXXXXX";
static char file[PATH_MAX];

/* This process's state file, read back: its records (free them). */
static int read_mine(struct state_rec **recs)
{
	unsigned long long start;
	pid_t pid;
	bool kept;
	int nr;

	snprintf(file, sizeof(file), "%s/state/%d.json", tmp, (int)getpid());
	if (state_read(file, recs, &nr, &pid, &start, &kept))
		return -1;
	return nr;
}

static int setup(void **st)
{
	char dir[PATH_MAX];

	(void)st;
	if (!mkdtemp(tmp))
		return -1;
	snprintf(dir, sizeof(dir), "%s/state", tmp);
	setenv("ENCBENCH_STATE_DIR", dir, 1);
	return state_open("run");
}

static int teardown(void **st)
{
	(void)st;
	state_close();
	return remove_tree(tmp);
}

/* Made through state_mkdir: on file, confirmed with its inode. */
static void test_mkdir_confirmed(void **st)
{
	char path[PATH_MAX];
	struct state_rec *recs;
	struct stat sb;
	int id, nr;
	(void)st;

	snprintf(path, sizeof(path), "%s/encbench-trace.%s", tmp,
		 state_token());
	assert_int_equal(strlen(state_token()), STATE_TOKEN_LEN);
	id = state_mkdir("scratch", NULL, path, 0700);
	assert_true(id > 0);
	assert_int_equal(stat(path, &sb), 0);
	nr = read_mine(&recs);
	assert_int_equal(nr, 1);
	assert_false(recs[0].pending);
	assert_int_equal(recs[0].ino, sb.st_ino);
	assert_string_equal(recs[0].path, path);
	free(recs);
	assert_int_equal(rmdir(path), 0);
	state_forget(id);
	assert_int_equal(access(file, F_OK), -1); /* no record, no file */
}

/* A path without the token cannot be recorded pending, and a file that
 * is there already is not made: its record goes, the file stays. */
static void test_refused(void **st)
{
	char path[PATH_MAX], inside[PATH_MAX + 16];
	struct stat before, after;
	int rec, fd;
	(void)st;

	snprintf(path, sizeof(path), "%s/no-token", tmp);
	assert_int_equal(state_add_pending("dir", NULL, path), -EINVAL);
	snprintf(path, sizeof(path), "%s/encbench-trace.%s", tmp,
		 state_token());
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(inside, sizeof(inside), "%s/plain.img", path);
	fd = open(inside, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(stat(inside, &before), 0);
	assert_int_equal(state_create_file(inside, &rec), -EEXIST);
	assert_int_equal(rec, 0);
	assert_int_equal(stat(inside, &after), 0);
	assert_int_equal(after.st_ino, before.st_ino);
	assert_int_equal(access(file, F_OK), -1);
	assert_int_equal(unlink(inside), 0);
	assert_int_equal(rmdir(path), 0);
}

/* teardown's check of a pending record: ours only with the token in the
 * path and born after the record was written. */
static void test_pending_check(void **st)
{
	struct state_rec r = {.pending = true};
	uint64_t dev, ino, btime;
	int fd;
	(void)st;

	snprintf(r.token, sizeof(r.token), "%s", state_token());
	snprintf(r.path, sizeof(r.path), "%s/encbench-trace.%s", tmp, r.token);
	assert_int_equal(state_path_check(&r, NULL), UNDO_GONE);

	/* Made before the record: there first, not ours. */
	fd = open(r.path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(state_identity(r.path, &dev, &ino, &btime, NULL), 0);
	if (!btime)
		skip(); /* no birth times here: the token alone decides */
	/* Right after, within the same tick of the coarse clock the file
	 * was stamped with (a coarse `since` took it for ours: CI saw
	 * teardown remove a file test_lifecycle made first). */
	r.since = state_mark_since();
	assert_int_equal(state_path_check(&r, NULL), UNDO_NOT_OURS);

	/* Made after it: ours. */
	assert_int_equal(unlink(r.path), 0);
	fd = open(r.path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(state_path_check(&r, NULL), UNDO_REMOVED);

	/* Without our token in the path: not ours, whenever born. */
	r.token[0] ^= 1;
	assert_int_equal(state_path_check(&r, NULL), UNDO_NOT_OURS);
	assert_int_equal(unlink(r.path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mkdir_confirmed),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_pending_check),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
