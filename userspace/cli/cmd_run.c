// SPDX-License-Identifier: MIT
/*
 * `run`: the whole pipeline, in the one direction the design fixes:
 * cli -> probe -> targets -> trace + workload -> stats -> report.
 * Everything it creates (output folder, scratch folder, images, loop
 * devices, mounts, keys, BPF links) is recorded as it is created and undone
 * on every exit path, Ctrl-C included.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
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
#include "progress.h"
#include "run.h"
#include "../probe/probe.h"
#include "../report/report.h"
#include "../storage/target.h"
#include "../trace/trace.h"
#include "../workload/workload.h"

#define MiB (1ULL << 20)

static void on_signal(int sig)
{
	(void)sig;
	workload_stop = 1;
}

static void install_signals(void)
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
	/* One workload file at a time, plus ext4 metadata and journal. */
	uint64_t b = cfg->size_bytes + cfg->size_bytes / 4 + 64 * MiB;

	return (b + MiB - 1) & ~(MiB - 1);
}

/* Deepest existing ancestor of path (path itself if it exists). */
static void existing_ancestor(const char *path, char *out, size_t len)
{
	char *slash;

	snprintf(out, len, "%s", path);
	while (access(out, F_OK) != 0) {
		slash = strrchr(out, '/');
		if (!slash) {
			snprintf(out, len, ".");
			return;
		}
		if (slash == out) {
			out[1] = '\0';
			return;
		}
		*slash = '\0';
	}
}

/* Room for our file names under it, and no component over NAME_MAX. */
static bool path_fits(const char *path)
{
	const char *p = path, *slash;

	if (strlen(path) > PATH_LEN - 128)
		return false;
	for (;; p = slash + 1) {
		slash = strchrnul(p, '/');
		if (slash - p > NAME_MAX)
			return false;
		if (!*slash)
			return true;
	}
}

static bool dir_is_empty(const char *dir)
{
	struct dirent *de;
	bool empty = true;
	DIR *d = opendir(dir);

	while (d && empty && (de = readdir(d)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	return empty;
}

/* access(W_OK) says yes to root everywhere, /proc included: try it. */
static bool can_create_in(const char *dir)
{
	char probe[PATH_LEN + 32];

	snprintf(probe, sizeof(probe), "%s/.encbench-probe.XXXXXX", dir);
	if (!mkdtemp(probe))
		return false;
	rmdir(probe);
	return true;
}

/* Everything that can be checked before anything is created. */
static int validate(struct run_config *cfg)
{
	char anc[PATH_LEN];
	struct statvfs vfs;
	struct stat st;
	uint64_t need, avail;

	if (geteuid() != 0)
		RUN_BAD("needs root (loop devices, mounts, keys, BPF): try "
			"sudo");
	if (stat(cfg->scratch, &st) < 0 || !S_ISDIR(st.st_mode))
		RUN_BAD("scratch folder '%s' does not exist", cfg->scratch);
	if (!can_create_in(cfg->scratch) || statvfs(cfg->scratch, &vfs) < 0)
		RUN_BAD("scratch folder '%s' is not writable (%s)",
			cfg->scratch, strerror(errno));
	need = target_fs_bytes(cfg) * cfg->nr_targets;
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (need > avail)
		RUN_BAD("size %llu MiB does not fit: %d targets need %llu MiB "
			"in "
			"'%s', %llu MiB free",
			(unsigned long long)(cfg->size_bytes / MiB),
			cfg->nr_targets, (unsigned long long)(need / MiB),
			cfg->scratch, (unsigned long long)(avail / MiB));

	if (!cfg->output[0]) {
		time_t now = time(NULL);
		char ts[32];

		strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", localtime(&now));
		snprintf(cfg->output, sizeof(cfg->output),
			 "encbench-results/%s", ts);
	}
	if (!path_fits(cfg->output))
		RUN_BAD("output path '%.60s...' is too long", cfg->output);
	existing_ancestor(cfg->output, anc, sizeof(anc));
	if (stat(anc, &st) < 0 || !S_ISDIR(st.st_mode))
		RUN_BAD("output '%s': '%s' is not a folder", cfg->output, anc);
	if (!can_create_in(anc))
		RUN_BAD("output folder '%s' is not writable (%s)", anc,
			strerror(errno));
	/* An existing folder must be empty: nothing of anyone's is ever
	 * overwritten, results.json or otherwise. */
	if (!strcmp(anc, cfg->output) && !dir_is_empty(anc))
		RUN_BAD("output folder '%s' is not empty: choose a new or "
			"empty "
			"one (nothing is overwritten)",
			cfg->output);
	return 0;
}

/* mkdir -p, remembering the topmost folder we created for cleanup. */
static int make_output(const char *path, char *created, size_t len)
{
	char buf[PATH_LEN];

	created[0] = '\0';
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, 0755) == 0) {
			if (!created[0])
				snprintf(created, len, "%s", buf);
		} else if (errno != EEXIST) {
			fprintf(stderr,
				"encbench-trace: run: cannot create "
				"output folder '%s': %s\n",
				buf, strerror(errno));
			return -errno;
		}
		*p = c;
		if (!c)
			break;
	}
	return 0;
}

/* Remove the output folders we created if nothing was written to them. */
static void unmake_output(const char *path, const char *created)
{
	char buf[PATH_LEN];
	char *slash;

	if (!created[0])
		return;
	/* From the deepest level up to the topmost one we made; a level
	 * that was never made (mkdir failed below it) is skipped. */
	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		if (rmdir(buf) < 0 && errno != ENOENT)
			return; /* not empty: keep it and its parents */
		if (!strcmp(buf, created))
			return;
		slash = strrchr(buf, '/');
		if (!slash)
			return;
		*slash = '\0';
	}
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
	run_options_json(cfg, r->meta.options, sizeof(r->meta.options));
	r->meta.dropped_caches = cfg->drop_caches;
}

int cmd_run(int argc, char **argv)
{
	char created[PATH_LEN], scratch[PATH_LEN];
	struct run_config cfg;
	struct run_ctx ctx = {0};
	struct timespec t0, t1;
	int rc;

	config_defaults(&cfg);
	rc = parse_run_args(argc, argv, &cfg);
	if (rc)
		return rc == 1 ? 0 : rc;
	rc = validate(&cfg);
	if (rc)
		return rc;

	ctx.cfg = &cfg;
	ctx.r = calloc(1, sizeof(*ctx.r));
	if (!ctx.r)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	install_signals();
	progress_start(progress_wanted(cfg.quiet, cfg.json));
	fill_meta(ctx.r, &cfg);
	probe_all(&ctx.r->meta.caps);

	created[0] = scratch[0] = '\0';
	if (make_output(cfg.output, created, sizeof(created))) {
		rc = 2;
		goto cleanup;
	}
	snprintf(scratch, sizeof(scratch), "%s/encbench-trace.XXXXXX",
		 cfg.scratch);
	if (!mkdtemp(scratch)) {
		fprintf(stderr,
			"encbench-trace: run: cannot create scratch "
			"folder in '%s': %s\n",
			cfg.scratch, strerror(errno));
		scratch[0] = '\0';
		rc = 1;
		goto cleanup;
	}
	ctx.scratch = scratch;

	rc = run_setup_targets(&ctx);
	if (!rc)
		run_open_tracer(&ctx);
	if (!rc)
		rc = run_workloads(&ctx);
	if (!rc)
		run_statistics(&ctx);

cleanup:
	run_teardown(&ctx);
	progress_stop(); /* the rest goes to stdout and would meet it */
	probe_release();
	if (scratch[0] && rmdir(scratch) < 0)
		fprintf(stderr,
			"encbench-trace: scratch folder %s not empty: "
			"%s\n",
			scratch, strerror(errno));
	if (workload_stop) {
		unmake_output(cfg.output, created);
		fprintf(stderr, "encbench-trace: interrupted; every device, "
				"mount, key and BPF link it made is removed\n");
		rc = 130;
	} else if (!rc) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ctx.r->meta.duration_s = (t1.tv_sec - t0.tv_sec) +
					 (t1.tv_nsec - t0.tv_nsec) / 1e9;
		rc = run_report(&ctx) ? 1 : 0;
	} else {
		unmake_output(cfg.output, created);
	}
	free(ctx.r);
	return rc;
}
