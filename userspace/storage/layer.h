/* SPDX-License-Identifier: MIT */
/*
 * One layer of a storage stack: a loop device, a dm-crypt mapping, an ext4
 * filesystem, an fscrypt policy, an eCryptfs mount. Each layer is built on
 * what the layer below exposes (a block device or a folder), keeps its own
 * private state, describes what it made (devices with their role,
 * encryption parameters), helps the verification find the probe data one
 * level down, and undoes only what it made.
 */
#ifndef ENCBENCH_LAYER_H
#define ENCBENCH_LAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/results.h"

struct target_config;
struct stack_layer;

/* What a layer exposes to the one above it. */
struct stack_point {
	char dev[NAME_LEN]; /* block device ("loop3", "dm-0"), or "" */
	char dir[PATH_LEN]; /* folder to build in or to work in, or "" */
	char mnt[PATH_LEN]; /* mount point of the filesystem dir is on */
};

/* Where the verification's probe data is, as seen at one level. */
struct verify_loc {
	char path[PATH_LEN]; /* the file, while at the folder levels */
	char dev[NAME_LEN];  /* the device, once a filesystem has mapped it */
	uint64_t offset;     /* bytes into dev */
	uint64_t length;     /* bytes to read there (0 with scan: to the end) */
	/* The data is somewhere in [offset, offset + length) of dev, or of
	 * the file at path when dev is "": read it all (ZFS, which has no
	 * FIEMAP, may put a block anywhere on its vdev, a file). */
	bool scan;
	/* Why the data cannot be followed further, when a locate hook
	 * fails for a reason errno does not say. */
	char why[DETAIL_LEN];
};

struct layer_env {
	const struct target_config *cfg;
	const char *name; /* target name: names of images, maps, folders */
	const char *arg;  /* the recipe's argument for this layer, or NULL */
	const struct stack_point *below; /* all empty for the first layer */
};

struct layer_ops {
	const char *name;
	size_t priv_size; /* private state, zeroed, freed at teardown */
	/* Build on env->below and fill l->exposed. On failure, leave in
	 * l->priv what was made: teardown undoes exactly that. */
	int (*setup)(struct stack_layer *l, const struct layer_env *env);
	/* The layer above now holds what this one exposes (optional). */
	void (*held)(struct stack_layer *l);
	/* Add its devices (after those of the layers above) and its
	 * encryption parameters (optional). */
	void (*describe)(const struct stack_layer *l, struct target_info *ti);
	/* Move loc from this layer's level to the one below (optional:
	 * absent means the data is at the same place below). */
	int (*locate)(const struct stack_layer *l, struct verify_loc *loc);
	void (*teardown)(struct stack_layer *l);
};

struct stack_layer {
	const struct layer_ops *ops;
	struct stack_point exposed;
	void *priv;
};

/* One step of a target kind's recipe. */
struct layer_step {
	const struct layer_ops *ops;
	const char *arg;
};

/* The layers every kind builds on (loop.c, ext4.c, fscrypt.c, ...). */
extern const struct layer_ops loop_layer;
extern const struct layer_ops ext4_layer;
extern const struct layer_ops fscrypt_layer;
extern const struct layer_ops dmcrypt_layer;
extern const struct layer_ops zpool_layer;
extern const struct layer_ops zfs_dataset_layer;
extern const struct layer_ops user_layer;

/* Locate hooks' steps, shared with the user kind (user.c), which follows
 * a detected stack the same way: FIEMAP of loc->path, moved to `dev`
 * (ext4.c); an eCryptfs file at loc->path, under the mount `upper`, moved
 * to its lower file under `lower` (ecryptfs.c). 0 or negative errno. */
int fiemap_locate(const char *dev, struct verify_loc *loc);
int ecryptfs_lower_file(const char *upper, const char *lower,
			struct verify_loc *loc);

/* Shared helpers (layer.c). Each returns 0 or negative errno. */
int layer_add_device(struct target_info *ti, const char *devname,
		     const char *role);
/* A new sparse file of `bytes` at path (O_EXCL), recorded in the state
 * file (*rec), for a layer to stand on (loop's image, ZFS's vdev): 0, or
 * negative errno after saying why; *made says whether the file was
 * created (then it is ours to unlink, even when it could not be sized). */
int layer_sparse_file(const char *path, uint64_t bytes, int *rec, bool *made);
/* Run argv, wait, return its exit status (or negative errno); its stdout
 * goes to /dev/null, the first line of its stderr is printed on failure. */
int run_cmd(char *const argv[]);
/* run_cmd with `in` (inlen bytes, at most 4 KiB: a key, not a stream) on
 * its stdin, never on its command line, and the first outlen - 1 bytes
 * of its stdout in out (NUL-terminated); in and out may be NULL. */
int run_cmd_io(char *const argv[], const void *in, size_t inlen, char *out,
	       size_t outlen);

#endif /* ENCBENCH_LAYER_H */
