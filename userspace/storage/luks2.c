// SPDX-License-Identifier: MIT
/*
 * The `dm-crypt` layer (LUKS2 through libcryptsetup, never the cryptsetup
 * program) and the `luks2` kind: loop -> LUKS2 -> ext4. The volume key is
 * random (libcryptsetup makes it when given none); one keyslot holds a
 * random passphrase that exists only in mlock'ed memory during setup. The
 * keyslot uses PBKDF2 with the fewest iterations libcryptsetup accepts:
 * this is a throwaway benchmark volume, and unlocking speed is not what is
 * measured.
 */
#include <errno.h>
#include <glob.h>
#include <libcryptsetup.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dmcrypt.h"
#include "../common/state.h"
#include "state_undo.h"
#include "target.h"

#define PASS_BYTES	 32
#define PBKDF2_MIN_ITERS 1000

struct dmcrypt_priv {
	char name[NAME_LEN]; /* the dm name, once active: ours to remove */
	char backing[NAME_LEN];
	struct dmcrypt_params params;
	bool active;
	int rec; /* its state file record */
};

/* cipher_null asked for while the kernel has none: Debian's 6.12 builds
 * it as a module (crypto_null) that libcryptsetup's cipher check does not
 * load, and its refusal then only says the name has the wrong format. */
static bool null_cipher_missing(const char *cipher)
{
	char line[256];
	bool found = false;
	FILE *f;

	if (!strstr(cipher, "cipher_null"))
		return false;
	f = fopen("/proc/crypto", "r");
	while (f && !found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "name", 4) &&
			strstr(line, "cipher_null");
	if (f)
		fclose(f);
	return !found;
}

/* libcryptsetup's last error line, to say why it refused. */
static char last_error[DETAIL_LEN];

static void log_error(int level, const char *msg, void *usrptr)
{
	(void)usrptr;
	if (level != CRYPT_LOG_ERROR)
		return;
	snprintf(last_error, sizeof(last_error), "%s", msg);
	last_error[strcspn(last_error, "\n")] = '\0';
}

static const char *luks2_unavailable(const struct capabilities *caps)
{
	if (!caps->loop.ok)
		return caps->loop.detail;
	return caps->dm_crypt.ok ? NULL : caps->dm_crypt.detail;
}

/* /dev/mapper/<name> -> "dm-3", the name the block layer and sysfs use.
 * Through sysfs: without udev /dev/mapper/<name> is a node, not a link. */
static int dm_kernel_name(const char *name, char *out, size_t len)
{
	char path[NAME_LEN + 16], link[64], target[PATH_MAX];
	struct stat st;
	ssize_t n;

	snprintf(path, sizeof(path), "/dev/mapper/%s", name);
	if (stat(path, &st) < 0)
		return -errno;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	snprintf(out, len, "%s", strrchr(target, '/') + 1);
	return 0;
}

/* Format the device below and add the one keyslot. */
static int format(struct crypt_device *cd, const struct luks_options *o,
		  const char *pass)
{
	struct crypt_pbkdf_type pbkdf = {
		.type = CRYPT_KDF_PBKDF2,
		.hash = "sha256",
		.iterations = PBKDF2_MIN_ITERS,
		.flags = CRYPT_PBKDF_NO_BENCHMARK,
	};
	struct crypt_params_luks2 params = {.sector_size = o->sector_size};
	char cipher[NAME_LEN];
	const char *mode;
	int err;

	snprintf(cipher, sizeof(cipher), "%s", o->cipher);
	mode = strchr(cipher, '-');
	if (!mode)
		return -EINVAL;
	cipher[mode++ - cipher] = '\0';
	err = crypt_set_pbkdf_type(cd, &pbkdf);
	if (!err)
		err = crypt_format(cd, CRYPT_LUKS2, cipher, mode, NULL, NULL,
				   o->key_bits / 8, &params);
	if (!err)
		err = crypt_keyslot_add_by_volume_key(cd, CRYPT_ANY_SLOT, NULL,
						      0, pass, PASS_BYTES);
	return err < 0 ? err : 0;
}

/* The dm map about to be made: `teardown` removes it only while its dm
 * UUID is the one libcryptsetup gives this LUKS2 volume's mapping. */
static int record(struct dmcrypt_priv *p, const char *name, const char *uuid)
{
	int id = state_add_named("dm", name, NULL, uuid);

	if (id < 0)
		return id;
	p->rec = id;
	return 0;
}

/* udev or blkid may hold it for a moment after the unmount. */
static int deactivate(const char *name)
{
	int err = 0;

	for (int tries = 0; tries < 50; tries++) {
		err = crypt_deactivate_by_name(NULL, name, 0);
		if (err != -EBUSY)
			break;
		usleep(100 * 1000);
	}
	return err;
}

static int dmcrypt_setup(struct stack_layer *l, const struct layer_env *env)
{
	const struct luks_options *o = &env->cfg->luks;
	struct dmcrypt_priv *p = l->priv;
	struct crypt_device *cd = NULL;
	char dev[NAME_LEN + 8], name[NAME_LEN];
	char *pass;
	int err;

	snprintf(p->backing, sizeof(p->backing), "%s", env->below->dev);
	snprintf(dev, sizeof(dev), "/dev/%s", p->backing);
	snprintf(name, sizeof(name), "encbench-%d-%s", getpid(), env->name);
	pass = mmap(NULL, PASS_BYTES, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
	if (pass == MAP_FAILED)
		return -errno;
	last_error[0] = '\0';
	crypt_set_log_callback(NULL, log_error, NULL);
	if (getrandom(pass, PASS_BYTES, 0) != PASS_BYTES) {
		err = -EIO;
		goto cleanup;
	}
	err = crypt_init(&cd, dev);
	if (err < 0)
		goto cleanup;
	crypt_set_log_callback(cd, log_error, NULL);
	err = format(cd, o, pass);
	if (err) {
		/* The kernel or libcryptsetup refused the user's choice of
		 * cipher, key size or sector size: bad input. */
		fprintf(stderr,
			"encbench-trace: run: LUKS2 with cipher %s, %d-bit key, %d-byte sectors refused: %s%s\n",
			o->cipher, o->key_bits, o->sector_size,
			last_error[0] ? last_error : strerror(-err),
			null_cipher_missing(o->cipher)
				? " (the kernel's null cipher is not loaded: modprobe crypto_null)"
				: "");
		err = -EINVAL;
		goto cleanup;
	}
	/* Recorded before it exists: a SIGKILL right after activation
	 * must not leave it unrecorded. */
	err = record(p, name, crypt_get_uuid(cd));
	if (err)
		goto cleanup;
	err = crypt_activate_by_passphrase(cd, name, CRYPT_ANY_SLOT, pass,
					   PASS_BYTES, o->flags);
	if (err < 0) {
		fprintf(stderr, "encbench-trace: cannot activate %s: %s\n",
			name, last_error[0] ? last_error : strerror(-err));
		goto cleanup;
	}
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->active = true;
	err = dm_kernel_name(name, l->exposed.dev, sizeof(l->exposed.dev));
	if (!err)
		err = dmcrypt_read_active(name, &p->params);
	if (err)
		fprintf(stderr, "encbench-trace: cannot read back %s: %s\n",
			name, strerror(-err));
cleanup:
	crypt_free(cd); /* wipes the volume key it holds */
	explicit_bzero(pass, PASS_BYTES);
	munmap(pass, PASS_BYTES);
	return err < 0 ? err : 0;
}

static void dmcrypt_layer_describe(const struct stack_layer *l,
				   struct target_info *ti)
{
	const struct dmcrypt_priv *p = l->priv;
	char note[DETAIL_LEN];

	layer_add_device(ti, l->exposed.dev, "crypt");
	dmcrypt_describe(&p->params, ti);
	if (ti->null_cipher) /* a control, asked for: said in its kind */
		snprintf(ti->kind + strlen(ti->kind),
			 sizeof(ti->kind) - strlen(ti->kind), "-cipher_null");
	snprintf(note, sizeof(note),
		 "LUKS2 keyslot uses PBKDF2 with %d iterations: a throwaway "
		 "benchmark volume, never for real data",
		 PBKDF2_MIN_ITERS);
	if (ti->nr_notes < MAX_NOTES)
		snprintf(ti->notes[ti->nr_notes++], DETAIL_LEN, "%s", note);
}

/* Ciphertext sits on the backing device, after the LUKS2 header. */
static int dmcrypt_locate(const struct stack_layer *l, struct verify_loc *loc)
{
	const struct dmcrypt_priv *p = l->priv;

	snprintf(loc->dev, sizeof(loc->dev), "%s", p->backing);
	loc->offset += p->params.data_offset;
	return 0;
}

static void dmcrypt_teardown(struct stack_layer *l)
{
	struct dmcrypt_priv *p = l->priv;
	int err;

	if (!p->active) {
		state_forget(p->rec); /* recorded, never activated */
		return;
	}
	err = deactivate(p->name);
	if (err < 0)
		fprintf(stderr, "encbench-trace: cannot remove dm map %s: %s\n",
			p->name, strerror(-err));
	else
		state_forget(p->rec);
	p->active = false;
}

/* "CRYPT-LUKS2-<UUID without dashes>-<name>": libcryptsetup's dm UUID of
 * a LUKS2 mapping. */
static bool uuid_is(const char *dm_uuid, const char *luks_uuid,
		    const char *name)
{
	char want[DETAIL_LEN], *w;
	int n = snprintf(want, sizeof(want), "CRYPT-LUKS2-");

	w = want + n;
	for (const char *u = luks_uuid; *u && w < want + sizeof(want) - 1; u++)
		if (*u != '-')
			*w++ = *u;
	*w = '\0';
	n = strlen(want);
	return luks_uuid[0] && !strncmp(dm_uuid, want, n) &&
	       dm_uuid[n] == '-' && !strcmp(dm_uuid + n + 1, name);
}

/* The dm UUID of the mapping called name (sysfs: with or without udev's
 * /dev/mapper links): 0, or -ENOENT when there is none. */
static int dm_uuid_of(const char *name, char *uuid, size_t len)
{
	char buf[DETAIL_LEN], path[PATH_MAX];
	int err = -ENOENT;
	glob_t g;

	if (glob("/sys/block/dm-*/dm/name", 0, NULL, &g))
		return -ENOENT;
	for (size_t i = 0; i < g.gl_pathc && err; i++) {
		FILE *f = fopen(g.gl_pathv[i], "re");

		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) &&
		    (buf[strcspn(buf, "\n")] = '\0', !strcmp(buf, name))) {
			snprintf(path, sizeof(path), "%s", g.gl_pathv[i]);
			strcpy(strrchr(path, '/'), "/uuid");
			err = 0;
		}
		fclose(f);
	}
	globfree(&g);
	if (err)
		return err;
	uuid[0] = '\0';
	FILE *f = fopen(path, "re");
	if (f) {
		if (!fgets(uuid, len, f))
			uuid[0] = '\0';
		fclose(f);
	}
	uuid[strcspn(uuid, "\n")] = '\0';
	return 0;
}

int dmcrypt_undo(const struct state_rec *r)
{
	char uuid[DETAIL_LEN];
	int err;

	if (dm_uuid_of(r->name, uuid, sizeof(uuid)))
		return UNDO_GONE;
	if (!uuid_is(uuid, r->detail, r->name))
		return UNDO_NOT_OURS;
	err = deactivate(r->name);
	if (err == -ENODEV)
		return UNDO_GONE;
	return err < 0 ? err : UNDO_REMOVED;
}

const struct layer_ops dmcrypt_layer = {
	.name = "dm-crypt",
	.priv_size = sizeof(struct dmcrypt_priv),
	.setup = dmcrypt_setup,
	.describe = dmcrypt_layer_describe,
	.locate = dmcrypt_locate,
	.teardown = dmcrypt_teardown,
};

static const struct layer_step luks2_recipe[] = {
	{&loop_layer, NULL},
	{&dmcrypt_layer, NULL},
	{&ext4_layer, NULL},
	{NULL, NULL},
};

const struct target_kind luks2_target = {
	.kind = "luks2",
	.help = "LUKS2 dm-crypt (libcryptsetup) on a loop device, ext4 on it",
	.unavailable = luks2_unavailable,
	.recipe = luks2_recipe,
	.encrypted = true,
};
