// SPDX-License-Identifier: MIT
/*
 * The table of target kinds, and the one way every kind is built, described,
 * verified and undone: its recipe of layers, bottom up, then top down.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target.h"
#include "verify.h"
#include "../common/pause_point.h"

extern const struct target_kind plain_target;
extern const struct target_kind fscrypt_target;
extern const struct target_kind luks2_target;
extern const struct target_kind ecryptfs_target;
extern const struct target_kind zfs_off_target;
extern const struct target_kind zfs_target;

static const struct target_kind *const kind_table[] = {
	&plain_target,	 &fscrypt_target, &luks2_target, &ecryptfs_target,
	&zfs_off_target, &zfs_target,	  NULL,
};

const struct target_kind *const *target_list(void)
{
	return kind_table;
}

const struct target_kind *target_find(const char *kind)
{
	for (int i = 0; kind_table[i]; i++)
		if (!strcmp(kind_table[i]->kind, kind))
			return kind_table[i];
	return NULL;
}

/* Top layer first, so the device list reads top down (fs, crypt, backing).
 */
static void describe(struct target *t)
{
	struct target_info *ti = &t->info;
	const struct stack_layer *top = &t->layers[t->nr_layers - 1];

	ti->nr_devices = 0;
	for (int i = t->nr_layers - 1; i >= 0; i--)
		if (t->layers[i].ops->describe)
			t->layers[i].ops->describe(&t->layers[i], ti);
	/* The device the filesystem sits on is its `fs` device, unless it
	 * is a crypt mapping (which says more). */
	if (ti->nr_devices && !strcmp(ti->devices[0].role, "backing"))
		snprintf(ti->devices[0].role, sizeof(ti->devices[0].role),
			 "fs");
	snprintf(ti->dir, sizeof(ti->dir), "%s", top->exposed.dir);
	snprintf(ti->mount, sizeof(ti->mount), "%s", top->exposed.mnt);
	if (!t->kind->detected)
		ti->encrypted = t->kind->encrypted && !ti->null_cipher;
}

int target_setup(struct target *t, const struct target_config *cfg)
{
	static const struct stack_point nothing;
	const struct layer_step *step = t->kind->recipe;
	int err;

	snprintf(t->info.kind, sizeof(t->info.kind), "%s", t->kind->kind);
	for (int i = 0; step[i].ops; i++) {
		if (i >= MAX_LAYERS)
			return -E2BIG;
		struct stack_layer *l = &t->layers[i];
		struct layer_env env = {
			.cfg = cfg,
			.name = cfg->name,
			.arg = step[i].arg,
			.below = i ? &t->layers[i - 1].exposed : &nothing,
		};

		memset(l, 0, sizeof(*l));
		l->ops = step[i].ops;
		if (l->ops->priv_size) {
			l->priv = calloc(1, l->ops->priv_size);
			if (!l->priv)
				return -ENOMEM;
		}
		t->nr_layers = i + 1; /* teardown covers it from here on */
		err = l->ops->setup(l, &env);
		if (err)
			return err;
		if (i && t->layers[i - 1].ops->held)
			t->layers[i - 1].ops->held(&t->layers[i - 1]);
		pause_point("setup:%s:%s", cfg->name, l->ops->name);
		if (cfg->stop && *cfg->stop)
			return -EINTR;
	}
	describe(t);
	return 0;
}

int target_verify(struct target *t)
{
	int r = verify_plaintext_on_device(t);

	if (t->kind->detected) {
		t->info.verified_encrypted = r == 0;
		return 0;
	}
	if (r < 0)
		return r;
	t->info.verified_encrypted = t->info.encrypted && r == 0;
	if (t->info.null_cipher && r == 1)
		snprintf(t->info.verification + strlen(t->info.verification),
			 sizeof(t->info.verification) -
				 strlen(t->info.verification),
			 ", as asked (cipher_null is not encryption)");
	/* What the kind must give, unless a null cipher was asked for. */
	return (r == 0) == t->info.encrypted ? 0 : -EIO;
}

const char *target_no_direct_io(const struct target *t)
{
	if (!t->kind)
		return NULL;
	/* A detected eCryptfs folder is as O_DIRECT-less as a built one. */
	if (t->kind->detected && !strcmp(t->info.fs, "ecryptfs"))
		return ecryptfs_target.no_direct_io;
	return t->kind->no_direct_io;
}

/* May hold key material: wipe before freeing. */
static void free_priv(struct stack_layer *l)
{
	if (!l->priv)
		return;
	explicit_bzero(l->priv, l->ops->priv_size);
	free(l->priv);
	l->priv = NULL;
}

void target_teardown(struct target *t)
{
	while (t->nr_layers > 0) {
		struct stack_layer *l = &t->layers[--t->nr_layers];

		pause_point("teardown:%s:%s", t->info.name, l->ops->name);
		l->ops->teardown(l);
		free_priv(l);
	}
}

void target_release(struct target *t)
{
	while (t->nr_layers > 0)
		free_priv(&t->layers[--t->nr_layers]);
}
