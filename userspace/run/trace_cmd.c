// SPDX-License-Identifier: MIT
/*
 * `trace`: the wait attribution and verdict of `run` for any command or
 * process on any storage stack, without building targets. The device
 * filter comes from PATH's file system (its device and the devices below
 * it in sysfs) or from DEV; the syscalls counted are those of PID and its
 * descendants, of a cgroup v2's tasks, or of CMD, whose exit status is
 * passed through. Ctrl-C ends the trace and prints what was gathered.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <limits.h>
#include <mntent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "outdir.h"
#include "run_priv.h"
#include "../analysis/analysis.h"
#include "../common/parse.h"
#include "../common/pause_point.h"
#include "../probe/probe.h"
#include "../report/report.h"
#include "../storage/detect.h"
#include "../common/state.h"
#include "../tracer/trace.h"

#define TRACE_BAD(...) CMD_BAD("trace", __VA_ARGS__)

struct trace_cmd {
	struct trace_request rq;
	struct trace_filter f;
	struct detected_stack st; /* what PATH or DEV is on */
	struct output_dir out;
	char what[NAME_LEN]; /* the workload's name in the report */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* The devices to count: PATH's file system's stack, or DEV's, as
 * detected for `run --target` (storage/detect.c). A ZFS dataset is
 * counted by its objset, as a ZFS target of `run` is: its pool's vdevs
 * are ZFS's, whose own zio times give the device's share. */
static int parse_target(struct trace_cmd *c)
{
	char why[DETAIL_LEN];
	unsigned int ma, mi;
	struct stat st;

	if (c->rq.path) {
		if (stack_detect(c->rq.path, &c->st, why, sizeof(why)))
			TRACE_BAD("path '%s': %s", c->rq.path, why);
		if (!c->st.nr_devices && !c->st.zfs.objset_id)
			TRACE_BAD("path '%s' is on no block device",
				  c->rq.path);
		if (c->st.zfs.objset_id) {
			c->f.no_devices = !c->st.nr_devices;
			c->f.zfs_objsets[c->f.nr_zfs_objsets++] =
				c->st.zfs.objset_id;
		}
	} else if (c->rq.dev) {
		if (sscanf(c->rq.dev, "%u:%u", &ma, &mi) != 2) {
			if (stat(c->rq.dev, &st) < 0)
				TRACE_BAD("device '%s': %s", c->rq.dev,
					  strerror(errno));
			if (!S_ISBLK(st.st_mode))
				TRACE_BAD("'%s' is not a block device",
					  c->rq.dev);
			ma = major(st.st_rdev);
			mi = minor(st.st_rdev);
		}
		if (stack_detect_device(ma, mi, &c->st))
			TRACE_BAD("device '%s': no block device %u:%u",
				  c->rq.dev, ma, mi);
	}
	for (int i = 0; i < c->st.nr_devices && i < MAX_TARGET_DEVS; i++) {
		c->f.major[c->f.nr_devs] = c->st.devices[i].major;
		c->f.minor[c->f.nr_devs++] = c->st.devices[i].minor;
	}
	if (c->st.nr_devices) {
		static struct target_info ti;

		memset(&ti, 0, sizeof(ti));
		stack_describe(&c->st, &ti);
		trace_filter_dmcrypt(&c->f, &ti);
	}
	return 0;
}

/* Where the cgroup v2 hierarchy is mounted: /sys/fs/cgroup on a unified
 * host, /sys/fs/cgroup/unified on a hybrid one (its v1 folders beside it
 * have cgroup.procs too, but their inode numbers are not v2 ids). */
static int cgroup2_root(char *root, size_t len)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;
	int err = -ENOENT;

	while (f && (m = getmntent(f)))
		if (!strcmp(m->mnt_type, "cgroup2")) {
			snprintf(root, len, "%s", m->mnt_dir);
			err = 0;
			break;
		}
	if (f)
		endmntent(f);
	return err;
}

/* A cgroup v2 id is its folder's inode number (kernfs). CG is a folder of
 * the v2 hierarchy, as a path or as /proc/PID/cgroup names it ("/a/b",
 * relative to the hierarchy's root). */
static int parse_cgroup(struct trace_cmd *c)
{
	char root[PATH_MAX], path[PATH_MAX * 2];
	struct statfs sfs;
	struct stat st;

	if (cgroup2_root(root, sizeof(root)))
		TRACE_BAD("cgroup '%s': no cgroup v2 hierarchy is mounted",
			  c->rq.cgroup);
	if (c->rq.cgroup[0] == '/' && stat(c->rq.cgroup, &st) == 0 &&
	    S_ISDIR(st.st_mode))
		snprintf(path, sizeof(path), "%s", c->rq.cgroup);
	else
		snprintf(path, sizeof(path), "%s/%s", root,
			 c->rq.cgroup + (c->rq.cgroup[0] == '/'));
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		TRACE_BAD("cgroup '%s': no folder %s", c->rq.cgroup, path);
	if (statfs(path, &sfs) < 0 || sfs.f_type != CGROUP2_SUPER_MAGIC)
		TRACE_BAD("cgroup '%s': %s is not in the cgroup v2 hierarchy "
			  "(mounted at %s)",
			  c->rq.cgroup, path, root);
	c->f.cgroup_id = st.st_ino;
	return 0;
}

/* What the request names, resolved: 0, or 2 after a one-line error. */
static int prepare(struct trace_cmd *c)
{
	int rc;

	if (geteuid() != 0)
		TRACE_BAD("needs root (BPF): try sudo");
	rc = parse_target(c);
	if (!rc && c->rq.cgroup)
		rc = parse_cgroup(c);
	if (!rc && c->rq.output)
		rc = output_check(c->rq.output, &c->out);
	if (c->rq.cmd)
		snprintf(c->what, sizeof(c->what), "%s", c->rq.cmd[0]);
	else if (c->rq.pid)
		snprintf(c->what, sizeof(c->what), "pid %d", (int)c->rq.pid);
	else
		snprintf(c->what, sizeof(c->what), "cgroup %s", c->rq.cgroup);
	return rc;
}

/*
 * Fork CMD, held until tracing has begun (its fork is then seen), and
 * exec it; an exec failure comes back through a close-on-exec pipe.
 * 0 and *child, or 2 after a one-line error.
 */
static int spawn(struct trace_cmd *c, struct tracer *tr, pid_t *child)
{
	int go[2], fail[2], err = 0;
	char b;

	if (pipe2(go, O_CLOEXEC) || pipe2(fail, O_CLOEXEC))
		TRACE_BAD("pipe: %s", strerror(errno));
	/* The child is a descendant of this process: traced from birth. */
	c->f.parent_tgid = getpid();
	if (trace_begin(tr, &c->f))
		TRACE_BAD("starting the trace failed");
	*child = fork();
	if (*child == 0) {
		close(go[1]);
		close(fail[0]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execvp(c->rq.cmd[0], c->rq.cmd);
		err = errno;
		if (write(fail[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(fail[1]);
	if (*child < 0)
		TRACE_BAD("fork: %s", strerror(errno));
	if (write(go[1], "g", 1) != 1)
		err = EPIPE;
	close(go[1]);
	if (read(fail[0], &err, sizeof(err)) == sizeof(err)) {
		close(fail[0]);
		waitpid(*child, NULL, 0);
		TRACE_BAD("cannot run '%s': %s", c->rq.cmd[0], strerror(err));
	}
	close(fail[0]);
	return 0;
}

static double mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Until the command or process ends, the duration runs out, or Ctrl-C.
 * The exit status to pass on. */
static int wait_end(const struct trace_cmd *c, pid_t child)
{
	double end = c->rq.duration > 0 ? mono_s() + c->rq.duration : 0;
	struct timespec tick = {0, 50 * 1000 * 1000};
	int status;

	while (!stop && (!end || mono_s() < end)) {
		if (child > 0) {
			pid_t w = waitpid(child, &status, WNOHANG);

			if (w == child)
				return WIFEXITED(status)
					       ? WEXITSTATUS(status)
					       : 128 + WTERMSIG(status);
		} else if (c->rq.pid && kill(c->rq.pid, 0) < 0 &&
			   errno == ESRCH) {
			return 0;
		}
		nanosleep(&tick, NULL);
	}
	if (child > 0) {
		/* Ctrl-C reached it too; the duration did not. */
		if (!stop)
			kill(child, SIGTERM);
		waitpid(child, &status, 0);
		return WIFEXITED(status) ? WEXITSTATUS(status)
					 : 128 + WTERMSIG(status);
	}
	return stop ? 130 : 0;
}

static void fill_results(const struct trace_cmd *c, struct results *r,
			 struct snapshot *snap)
{
	struct target_info *t = &r->targets[0];

	time_t now = time(NULL);

	snprintf(r->meta.tool_version, sizeof(r->meta.tool_version), "%s",
		 ENCBENCH_VERSION);
	gethostname(r->meta.hostname, sizeof(r->meta.hostname) - 1);
	strftime(r->meta.started, sizeof(r->meta.started), "%Y-%m-%dT%H:%M:%SZ",
		 gmtime(&now));
	r->meta.tracing = true;
	r->nr_targets = 1;
	snprintf(t->name, sizeof(t->name), "trace");
	snprintf(t->kind, sizeof(t->kind), "user");
	snprintf(t->dir, sizeof(t->dir), "%s",
		 c->rq.path ? c->rq.path : c->rq.dev);
	stack_describe(&c->st, t);
	if (c->rq.path)
		snprintf(t->path, sizeof(t->path), "%s", c->st.path);
	if (t->encrypted)
		probe_target_driver(&r->meta.caps, t);
	r->nr_workloads = 1;
	snprintf(r->workloads[0].name, NAME_LEN, "%s", c->what);
	r->workloads[0].params.n = 0; /* no parameters of ours */
	r->nr_costs = 1;	      /* trace_cost_end filled it */
	snprintf(r->costs[0].target, NAME_LEN, "%s", t->name);
	snprintf(r->costs[0].workload, NAME_LEN, "%s", c->what);
	snap->target = *t;
	snprintf(snap->workload, sizeof(snap->workload), "%s", c->what);
	snapshot_run_facts(snap, &r->meta.caps, 1, "");
	analyse_phase(snap, r);
	analyse_verdicts(r);
}

static int report(struct trace_cmd *c, const struct results *r,
		  struct snapshot *snap)
{
	FILE *text = c->rq.json ? stderr : stdout;
	int err = 0;

	if (c->rq.output) {
		err = output_claim(&c->out);
		if (err)
			return err;
		/* The document is made once, for the file and --json. */
		err = report_write_json(r, c->out.path,
					c->rq.json ? stdout : NULL);
		err = err ?: report_write_histograms(r, c->out.path);
		err = err ?: report_write_text(r, c->out.path);
		err = err ?: report_write_snapshots(&snap, 1, c->out.path);
		output_release(&c->out, !err);
	} else if (c->rq.json) {
		err = report_write_json(r, NULL, stdout);
	}
	if (c->rq.quiet) {
		report_print_headlines(r, text);
	} else if (c->rq.verbose) {
		report_print_text(r, text, false);
	} else {
		char where[PATH_LEN + 64];

		if (c->rq.output)
			snprintf(where, sizeof(where), "%s/report.txt",
				 c->out.path);
		else
			snprintf(where, sizeof(where),
				 "--verbose prints it; --output DIR keeps it "
				 "in DIR/report.txt");
		report_print_short(r, text, where);
	}
	return err ? 1 : 0;
}

int trace_command(const struct trace_request *req)
{
	struct sigaction sa = {.sa_handler = on_signal};
	struct snapshot *snap = NULL;
	struct results *r = NULL;
	struct trace_cmd c = {.rq = *req};
	struct tracer *tr = NULL;
	char why[DETAIL_LEN];
	pid_t child = 0;
	int rc;

	c.out.lock_fd = -1;
	rc = prepare(&c);
	if (rc)
		return rc;
	r = calloc(1, sizeof(*r));
	snap = calloc(1, sizeof(*snap));
	if (!r || !snap) {
		rc = 1;
		goto out;
	}
	/* Probe may mount tracefs: recorded, for `teardown`. */
	if (geteuid() == 0 && state_open("trace")) {
		rc = 1;
		goto out;
	}
	run_probe(&r->meta.caps);
	if (trace_open(&r->meta.caps, &tr, why, sizeof(why))) {
		fprintf(stderr, "encbench-trace: trace: cannot trace: %s\n",
			why);
		rc = 1;
		goto out;
	}
	/* Traced by nature: attached throughout, its cost measured. */
	if (trace_attach(tr)) {
		fprintf(stderr, "encbench-trace: trace: cannot attach the "
				"tracer\n");
		rc = 1;
		goto out;
	}
	trace_cost_begin(tr);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (c.rq.cmd) {
		rc = spawn(&c, tr, &child);
		if (rc)
			goto out;
	} else if (trace_begin(tr, &c.f)) {
		fprintf(stderr, "encbench-trace: trace: starting failed\n");
		rc = 1;
		goto out;
	} else if (c.rq.pid && follow_running(tr, c.rq.pid)) {
		fprintf(stderr, "encbench-trace: trace: cannot follow pid %d\n",
			(int)c.rq.pid);
		rc = 1;
		goto out;
	} else {
		/* Test hook: attached; the PID or cgroup may start now. */
		pause_point("tracing");
	}
	rc = wait_end(&c, child);
	trace_cost_end(tr, &r->costs[0]);
	trace_end(tr, snap);
	trace_close(tr);
	tr = NULL;
	fill_results(&c, r, snap);
	snapshots_complete(&snap, 1, r);
	if (report(&c, r, snap) && !rc)
		rc = 1;
out:
	trace_close(tr);
	probe_release();
	if (state_close() && !rc)
		rc = 1;
	if (snap)
		snapshot_free(snap);
	free(snap);
	free(r);
	return rc;
}
