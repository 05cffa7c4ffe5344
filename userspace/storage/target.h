/* SPDX-License-Identifier: MIT */
/*
 * Storage targets behind one ops table. A target knows its mount point,
 * its block-device chain and its encryption parameters. Setup records every
 * object it creates as it goes, so teardown can undo a half-done setup;
 * teardown removes only what setup created.
 * A new target is one new file plus one entry in target_table (target.c).
 */
#ifndef ENCBENCH_TARGET_H
#define ENCBENCH_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/results.h"

struct target_config {
	const char *name;    /* target name as shown in reports */
	const char *scratch; /* our private scratch folder (already created) */
	uint64_t fs_bytes;   /* filesystem size to create */
	const char *path;    /* user targets: the existing directory */
};

/* Objects a target created, in creation order; teardown undoes them in
 * reverse. Shared by every target so cleanup is written once. */
struct target_state {
	char image[PATH_LEN]; /* sparse backing file */
	int loop_fd;	      /* held until mounted; autoclear detaches */
	char loop_dev[NAME_LEN];
	char mnt[PATH_LEN];
	bool mounted;
	char workdir[PATH_LEN]; /* created inside the mount */
	bool key_added;
	unsigned char key_id[16]; /* fscrypt v2 key identifier */
	void *priv;		  /* target-specific */
};

struct target {
	const struct target_ops *ops;
	struct target_info info;
	struct target_state st;
};

struct target_ops {
	const char *kind;
	const char *help;
	/* NULL if usable here, else the reason it is not. */
	const char *(*unavailable)(const struct capabilities *caps);
	int (*setup)(const struct target_config *cfg, struct target *t);
	/* Confirm data really is encrypted on the medium (or not, for plain).
	 */
	int (*verify_encrypted)(struct target *t);
	void (*teardown)(struct target *t);
};

const struct target_ops *target_find(const char *kind);
const struct target_ops *const *target_list(void);

/* Shared building blocks (target.c). Each returns 0 or negative errno and
 * prints one line naming what failed. */
int target_make_image(struct target *t, const char *scratch, uint64_t bytes);
int target_attach_loop(struct target *t);
int target_mkfs_ext4(struct target *t, const char *extra_opts);
int target_mount(struct target *t, const char *scratch, const char *opts);
int target_add_device(struct target_info *ti, const char *devname,
		      const char *role);
void target_teardown_common(struct target *t);

/* Run argv, wait, return its exit status (or negative errno); output of
 * the child goes to /dev/null unless verbose. */
int run_cmd(char *const argv[]);

#endif /* ENCBENCH_TARGET_H */
