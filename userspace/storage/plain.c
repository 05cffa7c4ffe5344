// SPDX-License-Identifier: MIT
/* The baseline: ext4 on a loop device over a sparse file, no encryption. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "target.h"
#include "verify.h"

static const char *plain_unavailable(const struct capabilities *caps)
{
	return caps->loop.ok ? NULL : caps->loop.detail;
}

static int plain_setup(const struct target_config *cfg, struct target *t)
{
	int err;

	snprintf(t->info.kind, sizeof(t->info.kind), "plain");
	err = target_make_image(t, cfg->scratch, cfg->fs_bytes);
	if (!err)
		err = target_attach_loop(t);
	if (!err)
		err = target_mkfs_ext4(t, NULL);
	if (!err)
		err = target_mount(t, cfg->scratch, NULL);
	if (err)
		return err;
	snprintf(t->st.workdir, sizeof(t->st.workdir), "%s/data", t->st.mnt);
	if (mkdir(t->st.workdir, 0700) < 0)
		return -errno;
	snprintf(t->info.dir, sizeof(t->info.dir), "%s", t->st.workdir);
	t->info.encrypted = false;
	return 0;
}

static int plain_verify(struct target *t)
{
	return verify_medium(t, false);
}

static void plain_teardown(struct target *t)
{
	target_teardown_common(t);
}

const struct target_ops plain_target_ops = {
	.kind = "plain",
	.help = "ext4 on a loop device, no encryption (the baseline)",
	.unavailable = plain_unavailable,
	.setup = plain_setup,
	.verify_encrypted = plain_verify,
	.teardown = plain_teardown,
};
