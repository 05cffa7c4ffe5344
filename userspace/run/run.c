// SPDX-License-Identifier: MIT
/*
 * `run`: the whole pipeline, in the one direction the design fixes:
 * cli -> probe -> targets -> trace + workload -> stats -> report.
 * Everything it creates (output folder, scratch folder, images, loop
 * devices, mounts, keys, BPF links) is recorded as it is created and undone
 * on every exit path, Ctrl-C included (the frame shared with `tune`:
 * frame.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "outdir.h"
#include "run_priv.h"
#include "../storage/target.h"
#include "../workload/workload.h"

#define MiB (1ULL << 20)

/* A new file in an existing folder we may write to, or exit 2. The
 * path is resolved into cfg as the output folder's is. */
static int validate_prometheus(char *path)
{
	char resolved[PATH_LEN], existing[PATH_LEN], dir[PATH_LEN];
	struct stat st;
	char *slash;
	int rc;

	rc = path_resolve("prometheus file", path, 32, resolved, existing);
	if (rc)
		return rc;
	if (lstat(resolved, &st) == 0)
		RUN_BAD("prometheus file '%s' exists (nothing is overwritten)",
			path);
	snprintf(dir, sizeof(dir), "%s", resolved);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		RUN_BAD("prometheus file '%s': folder '%s' does not exist",
			path, dir);
	rc = dir_check_writable("prometheus file's folder", dir);
	if (rc)
		return rc;
	snprintf(path, PATH_LEN, "%s", resolved);
	return 0;
}

/* Each --target folder: there, a writable folder on a block device (or
 * a ZFS dataset), with room for the largest workload. */
static int validate_user_targets(const struct run_config *cfg)
{
	uint64_t need = workload_fit_bytes(cfg), avail;
	char why[DETAIL_LEN];
	struct statvfs vfs;

	for (int i = 0; i < cfg->nr_user_targets; i++) {
		const char *name = cfg->user_names[i];
		const char *path = cfg->user_paths[i];

		if (user_target_check(path, why, sizeof(why)))
			RUN_BAD("target %s=%s: %s", name, path, why);
		if (statvfs(path, &vfs) < 0)
			RUN_BAD("target %s=%s: %s", name, path,
				strerror(errno));
		avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		target_fit_hint(cfg, avail, false, why, sizeof(why));
		if (need > avail)
			RUN_BAD("target %s=%s: the largest workload does not "
				"fit: it needs %llu MiB, %llu MiB free%s",
				name, path, (unsigned long long)(need / MiB),
				(unsigned long long)(avail / MiB), why);
	}
	return 0;
}

/*
 * Room for what the run writes into its output folder, counted before
 * the first target is built (a full disk found only at the end loses
 * nothing now, but costs the run's time): a results.json measured at 46
 * KiB per target and workload with dd's two ops, up to 24 histogram
 * files and a CSV each, taken five times over for fio's many jobs and
 * for the file system's blocks; a timeline is up to the tracer's 8 MiB
 * ring of events as JSON.
 */
static void output_room_needed(const struct run_config *cfg, uint64_t *bytes,
			       uint64_t *files)
{
	uint64_t pairs = (uint64_t)(cfg->nr_targets + cfg->nr_user_targets) *
			 (uint64_t)cfg->nr_workloads;

	*bytes = 256 * 1024 + pairs * 256 * 1024;
	*files = 8 + pairs * 32;
	if (cfg->html)
		*bytes += 512 * 1024 + pairs * 64 * 1024;
	if (cfg->timeline_s > 0) {
		*bytes += pairs * 16 * MiB;
		*files += pairs;
	}
}

/* Everything that can be checked before anything is created; the
 * folders are resolved into cfg and out. */
int run_validate(struct run_config *cfg, struct output_dir *out)
{
	uint64_t room, files;
	int rc = validate_targets(cfg);

	if (rc)
		return rc;
	rc = validate_user_targets(cfg);
	if (rc)
		return rc;
	if (!cfg->output[0]) {
		time_t now = time(NULL);
		char ts[32];

		strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", localtime(&now));
		snprintf(cfg->output, sizeof(cfg->output),
			 "encbench-results/%s", ts);
	}
	rc = output_check(cfg->output, out);
	if (rc)
		return rc;
	output_room_needed(cfg, &room, &files);
	rc = output_check_room(out, room, files);
	if (rc)
		return rc;
	snprintf(cfg->output, sizeof(cfg->output), "%s", out->path);
	if (cfg->prometheus[0])
		return validate_prometheus(cfg->prometheus);
	return 0;
}

void run_fill_meta(struct results *r, const struct run_config *cfg)
{
	char line[512];
	time_t now = time(NULL);
	FILE *f;

	snprintf(r->meta.tool_version, sizeof(r->meta.tool_version), "%s",
		 ENCBENCH_VERSION);
	gethostname(r->meta.hostname, sizeof(r->meta.hostname) - 1);
	strftime(r->meta.started, sizeof(r->meta.started), "%Y-%m-%dT%H:%M:%SZ",
		 gmtime(&now));
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(r->meta.cpu_model, sizeof(r->meta.cpu_model), "%s",
			 colon + 2);
		break;
	}
	if (f)
		fclose(f);
	run_options_of(cfg, &r->meta.options);
	r->meta.dropped_caches = cfg->drop_caches;
}

int run_benchmark(struct run_config *cfg)
{
	struct run_frame f = {
		.command = "run", .timed = true, .complete = true};
	struct run_ctx ctx = {0};
	bool measured = false;
	int rc = run_frame_open(&f, &ctx, cfg);

	if (!rc)
		rc = run_setup_targets(&ctx);
	if (!rc)
		run_open_tracer(&ctx);
	if (!rc)
		/* A workload that failed said why (fio's own error): 1. */
		rc = run_workloads(&ctx) ? 1 : 0;
	if (!rc) {
		run_statistics(&ctx);
		run_verdicts(&ctx);
		measured = true;
	}
	return run_frame_close(&f, &ctx, rc, measured);
}
