// SPDX-License-Identifier: MIT
/* The baseline: ext4 on a loop device over a sparse file, no encryption. */
#include "target.h"

static const char *plain_unavailable(const struct capabilities *caps)
{
	return caps->loop.ok ? NULL : caps->loop.detail;
}

static const struct layer_step plain_recipe[] = {
	{&loop_layer, NULL},
	{&ext4_layer, NULL},
	{NULL, NULL},
};

const struct target_kind plain_target = {
	.kind = "plain",
	.help = "ext4 on a loop device, no encryption (the baseline)",
	.unavailable = plain_unavailable,
	.recipe = plain_recipe,
	.encrypted = false,
};
