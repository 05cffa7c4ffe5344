// SPDX-License-Identifier: MIT
/*
 * The targets' lifecycle outside `run`: `setup` builds targets and leaves
 * them up (recorded in its state file) for the user's own tools, and
 * `teardown` undoes what the state files of processes that are gone
 * recorded: a finished setup's targets, or whatever a killed run left.
 * Also what `run` and `setup` share: the checks before anything is made,
 * and the scratch folder.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "outdir.h"
#include "progress.h"
#include "run_priv.h"
#include "../common/parse.h"
#include "../probe/probe.h"
#include "../common/state.h"
#include "../storage/refresh.h"
#include "../workload/workload.h"

#define MiB (1ULL << 20)

static int scratch_rec;

/* Room for every kind that will be built: a kind this kernel cannot
 * build is skipped (or refused), and takes no space. */
static int check_space(const struct run_config *cfg)
{
	struct capabilities *caps = calloc(1, sizeof(*caps));
	char hint[DETAIL_LEN];
	uint64_t need = 0, avail, room, per;
	struct statvfs vfs;
	int built = 0;

	if (!caps)
		RUN_BAD("out of memory");
	probe_storage(caps);
	for (int i = 0; i < cfg->nr_targets; i++) {
		const struct target_kind *k = target_find(cfg->targets[i]);

		built += k && !k->unavailable(caps);
	}
	free(caps);
	if (statvfs(cfg->scratch, &vfs) < 0)
		RUN_BAD("scratch folder '%s': %s", cfg->scratch,
			strerror(errno));
	if (cfg->room_bytes && cfg->room_bytes < workload_fit_bytes(cfg))
		RUN_BAD("room %llu MiB is too small: the largest workload "
			"needs %llu MiB",
			(unsigned long long)(cfg->room_bytes / MiB),
			(unsigned long long)(workload_fit_bytes(cfg) / MiB));
	/* The images are sparse: what is written is the workloads' data
	 * and mkfs's (no lazy init: the inode tables, 1/64 of the room,
	 * and the journal, at most 1/32), not the room. */
	room = target_fs_bytes(cfg);
	need = (workload_fit_bytes(cfg) + room / 16) * built;
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	per = built ? avail / built : avail;
	target_fit_hint(cfg, per, true, hint, sizeof(hint));
	if (need > avail)
		RUN_BAD("the workloads' data does not fit: %d target%s up "
			"to %llu MiB in '%s' (%llu MiB rooms, sparse), %llu "
			"MiB free%s",
			built, built == 1 ? " writes" : "s write",
			(unsigned long long)(need / MiB), cfg->scratch,
			(unsigned long long)(room / MiB),
			(unsigned long long)(avail / MiB), hint);
	return 0;
}

int validate_targets(struct run_config *cfg)
{
	char scratch[PATH_LEN], existing[PATH_LEN];
	pid_t stale;
	int rc;

	if (geteuid() != 0)
		RUN_BAD("needs root (loop devices, mounts, keys, BPF): try "
			"sudo");
	stale = state_stale();
	if (stale)
		RUN_BAD("process %d was killed and left what it made behind "
			"(%s/%d.json): run `encbench-trace teardown` first",
			(int)stale, state_dir(), (int)stale);
	rc = path_resolve("scratch folder", cfg->scratch, SCRATCH_PATH_ROOM,
			  scratch, existing);
	if (rc)
		return rc;
	if (strcmp(scratch, existing))
		RUN_BAD("scratch folder '%s' does not exist", cfg->scratch);
	rc = dir_check_writable("scratch folder", scratch);
	if (rc)
		return rc;
	snprintf(cfg->scratch, sizeof(cfg->scratch), "%s", scratch);
	return check_space(cfg);
}

/* Named with the run's token, not by mkdtemp: recorded before it is
 * made (see common/state.c). */
int scratch_create(const char *parent, char out[PATH_LEN])
{
	snprintf(out, PATH_LEN, "%s/encbench-trace.%s", parent, state_token());
	scratch_rec = state_mkdir("scratch", NULL, out, 0700);
	if (scratch_rec < 0) {
		fprintf(stderr,
			"encbench-trace: %s: cannot create scratch folder "
			"%s: %s\n",
			config_command, out, strerror(-scratch_rec));
		out[0] = '\0';
		return 1;
	}
	return 0;
}

void scratch_remove(char path[PATH_LEN])
{
	if (!path[0])
		return;
	if (rmdir(path) < 0)
		fprintf(stderr,
			"encbench-trace: scratch folder %s not empty: %s\n",
			path, strerror(errno));
	else
		state_forget(scratch_rec);
	path[0] = '\0';
}

/* ---- setup ------------------------------------------------------------ */

static void print_targets(const struct run_ctx *ctx)
{
	for (int i = 0; i < ctx->nr_targets; i++) {
		const struct target_info *ti = &ctx->targets[i].info;

		printf("%-10s %s\n", ti->name, ti->dir);
	}
	fflush(stdout);
}

int setup_targets_up(struct run_config *cfg)
{
	char scratch[PATH_LEN] = "";
	struct run_ctx ctx = {0};
	int rc = validate_targets(cfg);

	if (rc)
		return rc;
	ctx.cfg = cfg;
	ctx.r = calloc(1, sizeof(*ctx.r));
	if (!ctx.r)
		return 1;
	run_signals();
	progress_start(progress_wanted(cfg->quiet, false));
	progress_quiet(cfg->quiet);
	/* Open first: probe may mount tracefs, recorded too. */
	if (state_open("setup"))
		rc = 1;
	run_probe(&ctx.r->meta.caps);
	if (!rc && scratch_create(cfg->scratch, scratch))
		rc = 1;
	ctx.scratch = scratch;
	if (!rc)
		rc = run_setup_targets(&ctx);
	if (!rc && !workload_stop && ctx.nr_targets && !state_keep()) {
		/* Up for the user: only our memory of them goes (keys
		 * wiped), and `teardown` finds them in the state file. */
		for (int i = 0; i < ctx.nr_targets; i++)
			target_release(&ctx.targets[i]);
		progress_stop();
		print_targets(&ctx);
		fprintf(stderr, "encbench-trace: the targets stay up; "
				"`encbench-trace teardown` removes them\n");
		ctx.nr_targets = 0;
		probe_release();
		state_close();
		free(ctx.r);
		return 0;
	}
	run_teardown(&ctx);
	progress_stop();
	probe_release();
	scratch_remove(scratch);
	if (state_close() && !rc)
		rc = 1;
	if (!rc)
		rc = 1; /* nothing could be built, or it could not be kept */
	if (workload_stop) {
		fprintf(stderr, "encbench-trace: interrupted; nothing it made "
				"is left\n");
		rc = 130;
	}
	free(ctx.r);
	return rc;
}

/* ---- teardown --------------------------------------------------------- */

int teardown_dead(const char *key_file)
{
	int left, removed = 0;

	if (geteuid() != 0)
		CMD_BAD("teardown", "needs root (loop devices, mounts, keys): "
				    "try sudo");
	dm_refresh_teardown_key(key_file);
	left = state_teardown_dead(stdout, &removed);
	if (left < 0) {
		fprintf(stderr, "encbench-trace: teardown: %s: %s\n",
			state_dir(), strerror(-left));
		return 1;
	}
	if (left) {
		fprintf(stderr,
			"encbench-trace: teardown: %d object(s) could not be "
			"removed; they stay recorded in %s/\n",
			left, state_dir());
		return 1;
	}
	if (!removed)
		printf("nothing to tear down\n");
	return 0;
}
