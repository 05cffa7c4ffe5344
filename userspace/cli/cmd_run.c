// SPDX-License-Identifier: MIT
/*
 * `run`: the whole pipeline, in the one direction the design fixes:
 * cli -> probe -> targets -> trace + workload -> stats -> report.
 * Everything it creates (output folder, scratch folder, images, loop
 * devices, mounts, keys, BPF links) is recorded as it is created and undone
 * on every exit path, Ctrl-C included.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "config.h"
#include "outdir.h"
#include "progress.h"
#include "run.h"
#include "../probe/probe.h"
#include "../report/report.h"
#include "../common/state.h"
#include "../storage/target.h"
#include "../trace/trace.h"
#include "../workload/workload.h"

#define MiB (1ULL << 20)

static void on_signal(int sig)
{
	(void)sig;
	workload_stop = 1;
}

void run_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	/* No SA_RESTART: blocking calls return EINTR and we unwind. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

uint64_t target_fs_bytes(const struct run_config *cfg)
{
	uint64_t most = 0, b;

	/* Workloads run one at a time: room for the largest, plus ext4
	 * metadata and journal. */
	for (int i = 0; i < cfg->nr_workloads; i++) {
		const struct workload_ops *w = workload_find(cfg->workloads[i]);
		uint64_t need = w && cfg->wparams[i]
					? w->space_needed(cfg->wparams[i])
					: 0;

		most = need > most ? need : most;
	}
	b = most + most / 4 + 64 * MiB;
	return (b + MiB - 1) & ~(MiB - 1);
}

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
	uint64_t need = target_fs_bytes(cfg), avail;
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
		if (need > avail)
			RUN_BAD("target %s=%s: the largest workload does not "
				"fit: it needs %llu MiB, %llu MiB free",
				name, path, (unsigned long long)(need / MiB),
				(unsigned long long)(avail / MiB));
	}
	return 0;
}

/* Everything that can be checked before anything is created; the
 * folders are resolved into cfg and out. */
static int validate(struct run_config *cfg, struct output_dir *out)
{
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
	snprintf(cfg->output, sizeof(cfg->output), "%s", out->path);
	if (cfg->prometheus[0])
		return validate_prometheus(cfg->prometheus);
	return 0;
}

static void fill_meta(struct results *r, const struct run_config *cfg)
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

int cmd_run(int argc, char **argv)
{
	char scratch[PATH_LEN] = "";
	struct run_config cfg;
	struct output_dir out;
	struct run_ctx ctx = {0};
	struct timespec t0, t1;
	bool measured = false, left;
	int rc;

	config_defaults(&cfg);
	rc = parse_run_args(argc, argv, &cfg);
	if (rc == 1) /* help was printed */
		rc = 0;
	else if (!rc)
		rc = validate(&cfg, &out) ?: output_claim(&out) ?: -1;
	/* -1: valid, and the output folder (the first thing created) is
	 * ours alone. */
	if (rc != -1) {
		config_free(&cfg);
		return rc;
	}

	ctx.cfg = &cfg;
	ctx.r = calloc(1, sizeof(*ctx.r));
	if (!ctx.r) {
		output_release(&out, false);
		config_free(&cfg);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run_signals();
	progress_start(progress_wanted(cfg.quiet, cfg.json));
	progress_quiet(cfg.quiet);
	fill_meta(ctx.r, &cfg);
	/* Open first: probe may mount tracefs or bpffs, recorded too. */
	if (state_open("run")) {
		rc = 1;
		goto cleanup;
	}
	probe_all(&ctx.r->meta.caps);
	if (scratch_create(cfg.scratch, scratch)) {
		rc = 1;
		goto cleanup;
	}
	/* Searchable by others, not listable (made 0700): a
	 * server workload runs as its own user (postgres, www-data) and
	 * reaches its files on the targets mounted in here. */
	chmod(scratch, 0711);
	ctx.scratch = scratch;

	rc = run_setup_targets(&ctx);
	if (!rc)
		run_open_tracer(&ctx);
	if (!rc)
		rc = run_workloads(&ctx);
	if (!rc) {
		run_statistics(&ctx);
		measured = true;
	}

cleanup:
	run_teardown(&ctx);
	progress_stop(); /* the rest goes to stdout and would meet it */
	probe_release();
	scratch_remove(scratch);
	left = state_close() != 0; /* it said what stays, and where */
	if (left && !rc)
		rc = 1;
	/* Measured is measured: a signal from here on still gets the
	 * results written, whole, and then exit 130. */
	if (measured) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ctx.r->meta.duration_s = (t1.tv_sec - t0.tv_sec) +
					 (t1.tv_nsec - t0.tv_nsec) / 1e9;
		rc = run_report(&ctx) ? 1 : 0;
	}
	output_release(&out, measured);
	if (workload_stop && measured && !rc)
		fprintf(stderr,
			"encbench-trace: interrupted after the measurements "
			"were done; the results in %s/ are complete\n",
			cfg.output);
	else if (workload_stop && !left)
		fprintf(stderr, "encbench-trace: interrupted; every device, "
				"mount, key and BPF link it made is removed\n");
	if (workload_stop)
		rc = 130;
	free(ctx.r);
	config_free(&cfg);
	return rc;
}
