// SPDX-License-Identifier: MIT
/*
 * Refreshing a user's open LUKS2 mapping with other performance flags,
 * and putting its own back (refresh.h). libcryptsetup's refresh
 * (CRYPT_ACTIVATE_REFRESH) reloads the table with the flags given and
 * clears the ones not given, as `cryptsetup refresh` does; so every call
 * here passes the flags that must not change, and reads the table back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <termios.h>
#include <unistd.h>

#include <libcryptsetup.h>

#include "../common/state.h"
#include "refresh.h"
#include "state_undo.h"

#define PERF_FLAGS                                                             \
	(CRYPT_ACTIVATE_SAME_CPU_CRYPT |                                       \
	 CRYPT_ACTIVATE_SUBMIT_FROM_CRYPT_CPUS |                               \
	 CRYPT_ACTIVATE_NO_READ_WORKQUEUE | CRYPT_ACTIVATE_NO_WRITE_WORKQUEUE)
/* Passed on as they were: a refresh would clear them otherwise. */
#define KEPT_FLAGS (CRYPT_ACTIVATE_READONLY | CRYPT_ACTIVATE_ALLOW_DISCARDS)
/* What the table read back must still say as it did. */
#define CHECKED_FLAGS (KEPT_FLAGS | CRYPT_ACTIVATE_IV_LARGE_SECTORS)

/* The passphrase asked on the terminal: locked, wiped after use. */
static char pass[512];
static size_t pass_len;
static const char *teardown_key_file;

uint32_t dm_refresh_perf_flags(void)
{
	return PERF_FLAGS;
}

void dm_refresh_teardown_key(const char *key_file)
{
	teardown_key_file = key_file;
}

static void wipe_passphrase(void)
{
	explicit_bzero(pass, sizeof(pass));
	pass_len = 0;
	munlock(pass, sizeof(pass));
}

/* Read a line from the terminal with echo off, a byte at a time so that
 * no stdio buffer holds it. Echo goes off before the prompt shows: what
 * is typed once it shows is neither echoed nor flushed away (TCSAFLUSH
 * drops only what was typed before). 0 or negative errno. */
static int ask_passphrase(const char *name, const char *why)
{
	struct termios old, quiet;
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC), err = 0;
	char c;

	if (fd < 0)
		return -ENXIO;
	mlock(pass, sizeof(pass));
	if (tcgetattr(fd, &old) < 0) {
		err = -errno;
		goto cleanup;
	}
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)ECHO;
	tcsetattr(fd, TCSAFLUSH, &quiet);
	dprintf(fd, "Passphrase of %s (%s; it is not stored): ", name, why);
	pass_len = 0;
	while (read(fd, &c, 1) == 1 && c != '\n')
		if (pass_len < sizeof(pass) - 1)
			pass[pass_len++] = c;
	c = 0;
	tcsetattr(fd, TCSAFLUSH, &old);
	dprintf(fd, "\n");
	if (!pass_len)
		err = -ENOKEY;
cleanup:
	close(fd);
	return err;
}

/* Activate (name NULL: only check the key) with flags. */
static int activate(struct crypt_device *cd, const char *name,
		    const char *key_file, uint32_t flags)
{
	if (key_file && key_file[0])
		return crypt_activate_by_keyfile_device_offset(
			cd, name, CRYPT_ANY_SLOT, key_file, 0, 0, flags);
	return crypt_activate_by_passphrase(cd, name, CRYPT_ANY_SLOT, pass,
					    pass_len, flags);
}

/* The mapping's LUKS2 UUID and active flags: 0 or negative errno. */
static int read_mapping(const char *name, char *uuid, size_t len,
			uint32_t *flags, struct crypt_device **cdp)
{
	struct crypt_active_device cad;
	struct crypt_device *cd = NULL;
	const char *type, *u;
	int err = crypt_init_by_name(&cd, name);

	if (err < 0)
		return err;
	type = crypt_get_type(cd);
	u = crypt_get_uuid(cd);
	if (!type || strcmp(type, CRYPT_LUKS2) || !u) {
		err = -EMEDIUMTYPE;
		goto cleanup;
	}
	err = crypt_get_active_device(cd, name, &cad);
	if (err < 0)
		goto cleanup;
	snprintf(uuid, len, "%s", u);
	*flags = cad.flags;
	if (cdp) {
		*cdp = cd;
		return 0;
	}
cleanup:
	crypt_free(cd);
	return err;
}

/* Refresh name to `want` (perf bits and the kept ones), then check the
 * table says so. 0, -ENOTSUP (the kernel did not take a flag), or
 * negative errno. */
static int refresh(const char *name, const char *key_file, uint32_t orig,
		   uint32_t perf)
{
	uint32_t want = (orig & KEPT_FLAGS) | (perf & PERF_FLAGS), now;
	struct crypt_device *cd = NULL;
	char uuid[DETAIL_LEN];
	int err = read_mapping(name, uuid, sizeof(uuid), &now, &cd);

	if (err)
		return err;
	err = activate(cd, name, key_file, CRYPT_ACTIVATE_REFRESH | want);
	crypt_free(cd);
	if (err < 0)
		return err;
	err = read_mapping(name, uuid, sizeof(uuid), &now, NULL);
	if (err)
		return err;
	if ((now & CHECKED_FLAGS) != (orig & CHECKED_FLAGS))
		return -EIO; /* never expected: said by the caller */
	return (now & PERF_FLAGS) == (perf & PERF_FLAGS) ? 0 : -ENOTSUP;
}

int dm_refresh_begin(struct dm_refresh *rf, const char *name,
		     const char *key_file)
{
	struct state_rec r = {.type = "dm-flags"};
	struct crypt_device *cd = NULL;
	int err;

	memset(rf, 0, sizeof(*rf));
	snprintf(rf->name, sizeof(rf->name), "%s", name);
	snprintf(rf->key_file, sizeof(rf->key_file), "%s", key_file ?: "");
	err = read_mapping(name, rf->uuid, sizeof(rf->uuid), &rf->orig, &cd);
	if (err) {
		fprintf(stderr, "encbench-trace: tune: %s: %s\n", name,
			err == -EMEDIUMTYPE ? "not a LUKS2 mapping"
					    : strerror(-err));
		return err;
	}
	if (!rf->key_file[0]) {
		err = ask_passphrase(name, "to refresh its dm-crypt flags");
		if (err) {
			fprintf(stderr, "encbench-trace: tune: %s: %s\n", name,
				err == -ENXIO
					? "no terminal to ask its passphrase "
					  "on: give --key-file FILE"
					: "no passphrase given");
			goto cleanup;
		}
	}
	err = activate(cd, NULL, rf->key_file, 0);
	if (err < 0) {
		fprintf(stderr,
			"encbench-trace: tune: %s: the %s opens no key slot "
			"(%s)\n",
			name, rf->key_file[0] ? "key file" : "passphrase",
			strerror(-err));
		goto cleanup;
	}
	/* Recorded before the first change: `teardown` restores it. */
	snprintf(r.name, sizeof(r.name), "%s", name);
	snprintf(r.detail, sizeof(r.detail), "%s", rf->uuid);
	r.serial = rf->orig;
	err = state_add(&r);
	if (err < 0)
		goto cleanup;
	rf->rec = err;
	err = 0;
cleanup:
	crypt_free(cd);
	if (err)
		wipe_passphrase();
	return err < 0 ? err : 0;
}

int dm_refresh_set(struct dm_refresh *rf, uint32_t perf)
{
	int err = refresh(rf->name, rf->key_file, rf->orig, perf);

	if (err == -EIO)
		fprintf(stderr,
			"encbench-trace: tune: %s: the refresh changed more "
			"than the performance flags\n",
			rf->name);
	if (err && err != -ENOTSUP && err != -EIO)
		fprintf(stderr, "encbench-trace: tune: refresh %s: %s\n",
			rf->name, strerror(-err));
	if (err)
		refresh(rf->name, rf->key_file, rf->orig, rf->orig);
	return err;
}

int dm_refresh_end(struct dm_refresh *rf)
{
	int err;

	if (rf->rec <= 0)
		return 0;
	err = refresh(rf->name, rf->key_file, rf->orig, rf->orig);
	if (err) {
		fprintf(stderr,
			"encbench-trace: tune: %s: its flags could not be put "
			"back (%s): `encbench-trace teardown` tries again\n",
			rf->name, strerror(-err));
		return err;
	}
	state_forget(rf->rec);
	rf->rec = 0;
	wipe_passphrase();
	return 0;
}

/* `teardown`: name: the mapping, detail: its LUKS2 UUID, serial: its
 * original flags. A mapping closed since has nothing to restore. */
int dm_flags_undo(const struct state_rec *r)
{
	uint32_t orig = (uint32_t)r->serial, now;
	char uuid[DETAIL_LEN];
	int err;

	if (read_mapping(r->name, uuid, sizeof(uuid), &now, NULL))
		return UNDO_GONE;
	if (strcmp(uuid, r->detail))
		return UNDO_NOT_OURS;
	if ((now & PERF_FLAGS) == (orig & PERF_FLAGS))
		return UNDO_GONE;
	if (!teardown_key_file) {
		err = ask_passphrase(r->name, "to restore its dm-crypt flags");
		if (err) {
			fprintf(stderr,
				"encbench-trace: teardown: %s: its dm-crypt "
				"flags need its key to be restored: run "
				"teardown on a terminal or with --key-file "
				"FILE\n",
				r->name);
			return -ENOKEY;
		}
	}
	err = refresh(r->name, teardown_key_file, orig, orig);
	wipe_passphrase();
	return err ? err : UNDO_REMOVED;
}
