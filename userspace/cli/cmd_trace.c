// SPDX-License-Identifier: MIT
/*
 * `trace`: the wait attribution and verdict of `run` for any command or
 * process on any storage stack, without building targets. The device
 * filter comes from PATH's file system (its device and the devices below
 * it in sysfs) or from DEV; the syscalls counted are those of PID and its
 * descendants, of a cgroup v2's tasks, or of CMD, whose exit status is
 * passed through. Ctrl-C ends the trace and prints what was gathered.
 */
#include <ctype.h>
#include <dirent.h>
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

#include "cmdline.h"
#include "commands.h"
#include "config.h"
#include "../common/parse.h"
#include "../common/pause_point.h"
#include "outdir.h"
#include "../probe/probe.h"
#include "../report/report.h"
#include "../storage/detect.h"
#include "../common/state.h"
#include "../trace/trace.h"

#define TRACE_BAD(...) CMD_BAD("trace", __VA_ARGS__)

enum { OPT_PID = 256, OPT_CGROUP, OPT_JSON };

// clang-format off
static const struct argp_option trace_options[] = {
	{"path", 'p', "PATH", 0, "trace the block devices under PATH's file system", 0},
	{"dev", 'd', "DEV", 0, "trace block device DEV (/dev/sdX or MAJ:MIN)", 0},
	{"pid", OPT_PID, "PID", 0, "trace process PID and its children", 0},
	{"cgroup", OPT_CGROUP, "CG", 0, "trace the tasks of cgroup v2 folder CG", 0},
	{"duration", 'D', "S", 0, "stop after S seconds (default: when CMD or PID ends, or on Ctrl-C)", 0},
	{"output", 'o', "DIR", 0, "results.json and histogram files in DIR (a new folder)", 0},
	{"json", OPT_JSON, 0, 0, "results.json on stdout (the text goes to stderr)", 0},
	{"quiet", 'q', 0, 0, "no histograms", 0},
	CMD_HELP_OPTION,
	{0},
};
// clang-format on

struct trace_cmd {
	const char *path, *dev, *cgroup, *output;
	pid_t pid;
	double duration;
	bool json, quiet;
	char **cmd; /* after "--", NULL-terminated; NULL if none */
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
 * detected for `run --target` (storage/detect.c). */
static int parse_target(struct trace_cmd *c)
{
	char why[DETAIL_LEN];
	unsigned int ma, mi;
	struct stat st;

	if (c->path) {
		if (stack_detect(c->path, &c->st, why, sizeof(why)))
			TRACE_BAD("path '%s': %s", c->path, why);
		if (!c->st.nr_devices)
			TRACE_BAD("path '%s' is on no block device", c->path);
	} else if (c->dev) {
		if (sscanf(c->dev, "%u:%u", &ma, &mi) != 2) {
			if (stat(c->dev, &st) < 0)
				TRACE_BAD("device '%s': %s", c->dev,
					  strerror(errno));
			if (!S_ISBLK(st.st_mode))
				TRACE_BAD("'%s' is not a block device", c->dev);
			ma = major(st.st_rdev);
			mi = minor(st.st_rdev);
		}
		if (stack_detect_device(ma, mi, &c->st))
			TRACE_BAD("device '%s': no block device %u:%u", c->dev,
				  ma, mi);
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
			  c->cgroup);
	if (c->cgroup[0] == '/' && stat(c->cgroup, &st) == 0 &&
	    S_ISDIR(st.st_mode))
		snprintf(path, sizeof(path), "%s", c->cgroup);
	else
		snprintf(path, sizeof(path), "%s/%s", root,
			 c->cgroup + (c->cgroup[0] == '/'));
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		TRACE_BAD("cgroup '%s': no folder %s", c->cgroup, path);
	if (statfs(path, &sfs) < 0 || sfs.f_type != CGROUP2_SUPER_MAGIC)
		TRACE_BAD("cgroup '%s': %s is not in the cgroup v2 hierarchy "
			  "(mounted at %s)",
			  c->cgroup, path, root);
	c->f.cgroup_id = st.st_ino;
	return 0;
}

static error_t trace_key(int key, char *arg, struct argp_state *state)
{
	struct trace_cmd *c = cmd_line_input(state);
	char *end;
	long v;

	switch (key) {
	case 'p':
		c->path = arg;
		return 0;
	case 'd':
		c->dev = arg;
		return 0;
	case OPT_PID:
		v = strtol(arg, &end, 10);
		if (*end || v <= 0 || v > INT_MAX)
			return cmd_line_bad(state, "bad pid '%s'", arg);
		c->pid = (pid_t)v;
		if (kill(c->pid, 0) < 0 && errno == ESRCH)
			return cmd_line_bad(state, "no process %ld", v);
		return 0;
	case OPT_CGROUP:
		c->cgroup = arg;
		return 0;
	case 'D':
		c->duration = parse_duration(arg);
		if (c->duration < 0)
			return cmd_line_bad(state,
					    "bad duration '%s' (seconds > 0, "
					    "or with ms, s, m, h)",
					    arg);
		return 0;
	case 'o':
		c->output = arg;
		return 0;
	case OPT_JSON:
		c->json = true;
		return 0;
	case 'q':
		c->quiet = true;
		return 0;
	}
	return cmd_line_key(key, arg, state);
}

/* Help text: one literal per phrase, never cut (clang-format would). */
// clang-format off
static const struct argp trace_argp = {
	.options = trace_options,
	.parser = trace_key,
	.args_doc = "[-- CMD ARGS...]",
	.doc = "Attribute the time of a command's or a process's read and write calls to the kernel's layers "
	       "(what they waited for), "
	       "on the storage stack under PATH or DEV, "
	       "and say in one sentence why they are slow. "
	       "Give --path or --dev, and one of --pid, --cgroup or -- CMD.\n"
	       "\v"
	       "With -- CMD, the exit status is CMD's.\n\n"
	       "EXAMPLES:\n"
	       "  sudo encbench-trace trace --path ~/luks -- cp big.iso ~/luks/\n"
	       "  sudo encbench-trace trace --dev /dev/nvme0n1 --pid 1234 --duration 10\n",
};
// clang-format on

/* 0, 1 when the help was printed, or 2 after a one-line error. */
static int parse(int argc, char **argv, struct trace_cmd *c)
{
	struct cmd_line cl = {.cmd = "trace", .input = c, .stop_at_arg = true};
	int n = 0, rc = cmd_line_parse(&cl, &trace_argp, argc, argv);

	if (rc)
		return rc;
	if (cl.nr_args && !cl.after_dashes)
		TRACE_BAD("unexpected '%s': a command goes after --",
			  cl.args[0]);
	if (cl.nr_args)
		c->cmd = argv + cl.first_arg;
	n = !!c->pid + !!c->cgroup + !!c->cmd;
	if (n != 1)
		TRACE_BAD("give one of --pid, --cgroup or -- CMD");
	if (c->path && c->dev)
		TRACE_BAD("give --path or --dev, not both");
	if (!c->path && !c->dev)
		TRACE_BAD(
			"give --path PATH or --dev DEV: the storage to trace");
	if (geteuid() != 0)
		TRACE_BAD("needs root (BPF): try sudo");
	rc = parse_target(c);
	if (!rc && c->cgroup)
		rc = parse_cgroup(c);
	if (!rc && c->output)
		rc = output_check(c->output, &c->out);
	if (c->cmd)
		snprintf(c->what, sizeof(c->what), "%s", c->cmd[0]);
	else if (c->pid)
		snprintf(c->what, sizeof(c->what), "pid %d", (int)c->pid);
	else
		snprintf(c->what, sizeof(c->what), "cgroup %s", c->cgroup);
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
		execvp(c->cmd[0], c->cmd);
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
		TRACE_BAD("cannot run '%s': %s", c->cmd[0], strerror(err));
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

/* A process and its parent, as /proc/PID/stat shows them. */
struct proc_edge {
	pid_t ppid, pid;
};

static int by_parent(const void *a, const void *b)
{
	const struct proc_edge *x = a, *y = b;

	return (x->ppid > y->ppid) - (x->ppid < y->ppid);
}

/* Every process and its parent, in one pass over /proc, sorted by parent:
 * their number (at most max), or negative errno. */
static int read_proc_edges(struct proc_edge *e, int max)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;
	int n = 0;

	if (!proc)
		return -errno;
	while ((de = readdir(proc)) && n < max) {
		char path[64], line[512], *close_paren;
		FILE *f;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue; /* gone since readdir */
		/* pid (comm) state ppid: comm may hold spaces and ')' */
		if (fgets(line, sizeof(line), f) &&
		    sscanf(line, "%d", &e[n].pid) == 1 &&
		    (close_paren = strrchr(line, ')')) &&
		    sscanf(close_paren + 1, " %*c %d", &e[n].ppid) == 1)
			n++;
		fclose(f);
	}
	closedir(proc);
	qsort(e, n, sizeof(*e), by_parent);
	return n;
}

/* The first of e's n edges (sorted by parent) from parent, or n. */
static int first_child(const struct proc_edge *e, int n, pid_t parent)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (e[mid].ppid < parent)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Follow PID and the descendants it already has: trace_begin cleared the
 * traced set, and the BPF side adds only children forked from now on (a
 * fork after the PID is followed is caught there; one before, here).
 * /proc is read once; the tree is then walked breadth first from PID,
 * each process's children found by a binary search of the edges. */
static int follow_running(struct tracer *tr, pid_t root)
{
	enum { MAX_PROCS = 1 << 16 };
	struct proc_edge *e = calloc(MAX_PROCS, sizeof(*e));
	/* Each process has one parent: it is queued once at most. */
	pid_t *queue = calloc(MAX_PROCS + 1, sizeof(*queue));
	int n = 0, head = 0, tail = 0, err = trace_follow(tr, root);

	if (!e || !queue)
		err = err ?: -ENOMEM;
	if (!err)
		n = read_proc_edges(e, MAX_PROCS);
	if (n < 0)
		err = n;
	if (!err)
		queue[tail++] = root;
	while (!err && head < tail) {
		pid_t parent = queue[head++];

		for (int i = first_child(e, n, parent);
		     !err && i < n && e[i].ppid == parent; i++) {
			err = trace_follow(tr, e[i].pid);
			queue[tail++] = e[i].pid;
		}
	}
	free(e);
	free(queue);
	return err;
}

/* Until the command or process ends, the duration runs out, or Ctrl-C.
 * The exit status to pass on. */
static int wait_end(const struct trace_cmd *c, pid_t child)
{
	double end = c->duration > 0 ? mono_s() + c->duration : 0;
	struct timespec tick = {0, 50 * 1000 * 1000};
	int status;

	while (!stop && (!end || mono_s() < end)) {
		if (child > 0) {
			pid_t w = waitpid(child, &status, WNOHANG);

			if (w == child)
				return WIFEXITED(status)
					       ? WEXITSTATUS(status)
					       : 128 + WTERMSIG(status);
		} else if (c->pid && kill(c->pid, 0) < 0 && errno == ESRCH) {
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
			 const struct trace_snapshot *snap)
{
	struct target_info *t = &r->targets[0];
	struct attribution a[NR_OPS];
	int n;

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
	snprintf(t->dir, sizeof(t->dir), "%s", c->path ? c->path : c->dev);
	stack_describe(&c->st, t);
	if (c->path)
		snprintf(t->path, sizeof(t->path), "%s", c->st.path);
	if (t->encrypted)
		probe_target_driver(&r->meta.caps, t);
	r->nr_workloads = 1;
	snprintf(r->workloads[0].name, NAME_LEN, "%s", c->what);
	r->workloads[0].params.n = 0; /* no parameters of ours */
	n = attribute(snap, t->name, c->what, a);
	for (int i = 0; i < n && r->nr_attrib < MAX_ATTRIB; i++) {
		r->attrib[r->nr_attrib++] = a[i];
		verdict_wait(&a[i], NULL, t, r->meta.caps.cpu_aes,
			     &r->verdicts[r->nr_verdicts++]);
	}
}

static int report(struct trace_cmd *c, const struct results *r)
{
	FILE *text = c->json ? stderr : stdout;
	int err = 0;

	if (c->output) {
		err = output_claim(&c->out);
		if (err)
			return err;
		/* The document is made once, for the file and --json. */
		err = report_write_json(r, c->out.path,
					c->json ? stdout : NULL);
		err = err ?: report_write_histograms(r, c->out.path);
		output_release(&c->out, !err);
	} else if (c->json) {
		err = report_write_json(r, NULL, stdout);
	}
	report_print_text(r, text, !c->quiet);
	return err ? 1 : 0;
}

int cmd_trace(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_signal};
	struct trace_snapshot *snap = NULL;
	struct results *r = NULL;
	struct trace_cmd c = {0};
	struct tracer *tr = NULL;
	char why[DETAIL_LEN];
	pid_t child = 0;
	int rc;

	c.out.lock_fd = -1;
	rc = parse(argc, argv, &c);
	if (rc)
		return rc == 1 ? 0 : rc;
	r = calloc(1, sizeof(*r));
	snap = calloc(1, sizeof(*snap));
	if (!r || !snap) {
		rc = 1;
		goto out;
	}
	/* Probe may mount tracefs or bpffs: recorded, for `teardown`. */
	if (geteuid() == 0 && state_open("trace")) {
		rc = 1;
		goto out;
	}
	probe_all(&r->meta.caps);
	if (trace_open(&r->meta.caps, &tr, why, sizeof(why))) {
		fprintf(stderr, "encbench-trace: trace: cannot trace: %s\n",
			why);
		rc = 1;
		goto out;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (c.cmd) {
		rc = spawn(&c, tr, &child);
		if (rc)
			goto out;
	} else if (trace_begin(tr, &c.f)) {
		fprintf(stderr, "encbench-trace: trace: starting failed\n");
		rc = 1;
		goto out;
	} else if (c.pid && follow_running(tr, c.pid)) {
		fprintf(stderr, "encbench-trace: trace: cannot follow pid %d\n",
			(int)c.pid);
		rc = 1;
		goto out;
	} else {
		/* Test hook: attached; the PID or cgroup may start now. */
		pause_point("tracing");
	}
	rc = wait_end(&c, child);
	trace_end(tr, snap);
	trace_close(tr);
	tr = NULL;
	fill_results(&c, r, snap);
	if (report(&c, r) && !rc)
		rc = 1;
out:
	trace_close(tr);
	probe_release();
	if (state_close() && !rc)
		rc = 1;
	free(snap);
	free(r);
	return rc;
}
