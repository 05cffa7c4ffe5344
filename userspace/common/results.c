// SPDX-License-Identifier: MIT
/*
 * Names of the layer and op vocabularies. These strings appear in every
 * output (text, JSON, file names), so they are spelled once, here.
 */
#include <string.h>

#include "results.h"

static const char *const layer_names[NR_LAYERS] = {
	[LAYER_SYSCALL] = "syscall",
	[LAYER_FS] = "fs",
	[LAYER_CRYPT_QUEUE] = "crypt-queue",
	[LAYER_CRYPT] = "crypt",
	[LAYER_DM] = "dm",
	[LAYER_BLK_QUEUE] = "blk-queue",
	[LAYER_DEVICE] = "device",
};

static const char *const op_names[NR_OPS] = {
	[EB_OP_READ] = "read",
	[EB_OP_WRITE] = "write",
};

static int index_of(const char *const *names, int nr, const char *name)
{
	if (!name)
		return -1;
	for (int i = 0; i < nr; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

/* "unknown" for an out-of-range value: callers print the result directly,
 * and it must neither crash them nor pass for a real layer name. */
const char *layer_name(int layer)
{
	if (layer < 0 || layer >= NR_LAYERS)
		return "unknown";
	return layer_names[layer];
}

int layer_from_name(const char *name)
{
	return index_of(layer_names, NR_LAYERS, name);
}

const char *op_name(int op)
{
	if (op < 0 || op >= NR_OPS)
		return "unknown";
	return op_names[op];
}

int op_from_name(const char *name)
{
	return index_of(op_names, NR_OPS, name);
}
