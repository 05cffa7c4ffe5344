// SPDX-License-Identifier: MIT
/* The workload table and what every workload shares: timed children. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"
#include "../common/blockstat.h"
#include "../common/parse.h"
#include "../common/pause_point.h"
#include "../storage/target.h"
#include "../storage/zfs.h"

extern const struct workload_ops dd_workload_ops;
extern const struct workload_ops copy_workload_ops;
extern const struct workload_ops createfiles_workload_ops;
extern const struct workload_ops fsmark_workload_ops;
extern const struct workload_ops sqlite_workload_ops;
extern const struct workload_ops fio_workload_ops;
extern const struct workload_ops compilebench_workload_ops;
extern const struct workload_ops build_workload_ops;
extern const struct workload_ops pgbench_workload_ops;
extern const struct workload_ops nginx_workload_ops;

static const struct workload_ops *const workload_table[] = {
	&dd_workload_ops,
	&copy_workload_ops,
	&createfiles_workload_ops,
	&fsmark_workload_ops,
	&sqlite_workload_ops,
	&fio_workload_ops,
	&compilebench_workload_ops,
	&build_workload_ops,
	&pgbench_workload_ops,
	&nginx_workload_ops,
	NULL,
};

volatile sig_atomic_t workload_stop;

const struct workload_ops *const *workload_list(void)
{
	return workload_table;
}

const struct workload_ops *workload_find(const char *name)
{
	for (int i = 0; workload_table[i]; i++)
		if (!strcmp(workload_table[i]->name, name))
			return workload_table[i];
	return NULL;
}

static double tv_s(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* Busy and total jiffies of all CPUs from /proc/stat's first line. */
static int cpu_times(uint64_t *busy, uint64_t *total)
{
	unsigned long long v[8] = {0};
	FILE *f = fopen("/proc/stat", "re");
	int n;

	if (!f)
		return -errno;
	/* user nice system idle iowait irq softirq steal */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		return -EIO;
	*busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	*total = *busy + v[3] + v[4];
	return 0;
}

/* Busy share of all CPUs between two readings, in %. */
static double busy_pct(uint64_t b0, uint64_t t0, uint64_t b1, uint64_t t1)
{
	return t1 > t0 ? 100.0 * (double)(b1 - b0) / (double)(t1 - t0) : 0;
}

static void cpu_add(struct sample *out, int m, double pct)
{
	if (!out->cpu_n[m] || pct < out->cpu_min[m])
		out->cpu_min[m] = pct;
	if (!out->cpu_n[m] || pct > out->cpu_max[m])
		out->cpu_max[m] = pct;
	out->cpu_sum[m] += pct;
	out->cpu_n[m]++;
}

/* The reading the next CPU sample is taken against. */
struct cpu_mark {
	uint64_t busy, total;
};

static void cpu_sample(struct sample *out, int m, struct cpu_mark *mark)
{
	uint64_t b = 0, t = 0;

	cpu_times(&b, &t);
	cpu_add(out, m, busy_pct(mark->busy, mark->total, b, t));
	mark->busy = b;
	mark->total = t;
}

/*
 * Wait for pid, sampling /proc/stat every CPU_SAMPLE_MS meanwhile. A
 * pidfd wakes us the moment the child exits (pidfd_open, v5.3); without
 * one, a plain wait4. Returns as soon as the child is reaped, so that the
 * caller closes the tracer's window first; the part after the last full
 * period is sampled then, if nothing was yet (a short child).
 */
static int wait_sampling(pid_t pid, int *status, struct rusage *ru,
			 struct sample *out, int m, struct cpu_mark *mark)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int n = 0, err = 0;

	for (;;) {
		struct pollfd pf = {.fd = pfd, .events = POLLIN};

		if (pfd >= 0)
			n = poll(&pf, 1, CPU_SAMPLE_MS);
		if (pfd >= 0 && n == 0) {
			cpu_sample(out, m, mark);
			continue;
		}
		if (wait4(pid, status, 0, ru) == pid)
			break;
		if (errno != EINTR) {
			err = -errno;
			break;
		}
	}
	if (pfd >= 0)
		close(pfd);
	return err;
}

/*
 * Fork the timed child. A traced one is forked inside the window (the
 * tracer adds the runner's children then); an untraced one (a client)
 * before it, held on a pipe until the window is open, so that its
 * timing still covers only what the window does.
 */
static int spawn(const struct workload_ctx *ctx,
		 int (*fn)(void *arg, double *secs), void *arg,
		 struct sample *out, int m, bool traced)
{
	const struct workload_window *w = ctx->window;
	struct cpu_mark mark = {0};
	int gate[2] = {-1, -1};
	double *shared;
	struct rusage ru;
	int status, rc;
	pid_t parent = getpid(), pid;

	if (workload_stop)
		return -EINTR;
	/* The child hands its timing back through shared memory, not a
	 * pipe: a write() there would count as a workload write. */
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -errno;
	*shared = 0;
	if (!traced && pipe2(gate, O_CLOEXEC)) {
		rc = -errno;
		munmap(shared, sizeof(*shared));
		return rc;
	}
	if (traced) {
		cpu_times(&mark.busy, &mark.total);
		if (w && w->open)
			w->open(w->arg);
	}
	pid = fork();
	if (pid == 0) {
		char go;

		workload_die_with(parent);
		if (!traced) {
			close(gate[1]);
			if (read(gate[0], &go, 1) != 0)
				_exit(EIO);
			close(gate[0]);
		}
		rc = fn(arg, shared);
		_exit(rc < 0 ? -rc : rc);
	}
	rc = pid < 0 ? -errno : 0;
	/* Inside a traced iteration's window, its child timing itself. */
	if (traced && pid > 0 && w && w->open)
		pause_point("timing:%s", ctx->target->info.name);
	if (!traced && pid > 0) {
		cpu_times(&mark.busy, &mark.total);
		if (w && w->open)
			w->open(w->arg);
	}
	if (!traced) {
		close(gate[0]);
		close(gate[1]); /* EOF: the child goes */
	}
	if (pid < 0) {
		if (w && w->close)
			w->close(w->arg);
		munmap(shared, sizeof(*shared));
		return rc;
	}
	rc = wait_sampling(pid, &status, &ru, out, m, &mark);
	if (w && w->close)
		w->close(w->arg);
	if (!out->cpu_n[m])
		cpu_sample(out, m, &mark);
	out->values[m] = *shared;
	munmap(shared, sizeof(*shared));
	if (rc)
		return rc;
	/* Killed, or stopped early by Ctrl-C (which reaches it too). */
	if (!WIFEXITED(status) || workload_stop)
		return -EINTR;
	out->real_s[m] = out->values[m];
	out->user_s[m] = tv_s(ru.ru_utime);
	out->sys_s[m] = tv_s(ru.ru_stime);
	return -WEXITSTATUS(status);
}

int workload_spawn(const struct workload_ctx *ctx,
		   int (*fn)(void *arg, double *secs), void *arg,
		   struct sample *out, int m)
{
	return spawn(ctx, fn, arg, out, m, true);
}

int workload_spawn_client(const struct workload_ctx *ctx,
			  int (*fn)(void *arg, double *secs), void *arg,
			  struct sample *out, int m)
{
	return spawn(ctx, fn, arg, out, m, false);
}

void workload_own_pages(void *p, size_t len)
{
	volatile unsigned char *c = p;
	long page = sysconf(_SC_PAGESIZE);

	/* Each page's first byte written back as it is: copied or given. */
	for (size_t off = 0; off < len; off += (size_t)page)
		c[off] = c[off];
}

void workload_follow(const struct workload_ctx *ctx, pid_t pid)
{
	const struct workload_window *w = ctx->window;

	if (w && w->follow)
		w->follow(w->arg, pid);
}

void sample_share(struct sample *s, int from, int to)
{
	s->real_s[to] = s->real_s[from];
	s->user_s[to] = s->user_s[from];
	s->sys_s[to] = s->sys_s[from];
	s->cpu_min[to] = s->cpu_min[from];
	s->cpu_max[to] = s->cpu_max[from];
	s->cpu_sum[to] = s->cpu_sum[from];
	s->cpu_n[to] = s->cpu_n[from];
}

void *workload_params_new(const struct workload_ops *w)
{
	void *p = calloc(1, w->params_size ? w->params_size : 1);

	if (p && w->defaults)
		w->defaults(p);
	return p;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t call_start(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void call_end(struct call_times *c, uint64_t t)
{
	uint64_t ns = call_start() - t;
	int slot = ns ? 63 - __builtin_clzll(ns) : 0;

	c->count++;
	c->sum_ns += ns;
	c->busy_ns += ns; /* one thread: one call at a time */
	c->slots[slot < HIST_SLOTS ? slot : HIST_SLOTS - 1]++;
}

struct call_times *calls_share(void)
{
	struct call_times *c =
		mmap(NULL, NR_OPS * sizeof(*c), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return c == MAP_FAILED ? NULL : c;
}

void calls_take(struct sample *out, const struct call_times *shared,
		const char *by)
{
	memcpy(out->calls, shared, sizeof(out->calls));
	snprintf(out->calls_by, sizeof(out->calls_by), "%s", by);
}

void calls_unshare(struct call_times *shared)
{
	if (shared)
		munmap(shared, NR_OPS * sizeof(*shared));
}

bool times_every_call(const void *p, int phase, const struct target *t)
{
	(void)p;
	(void)phase;
	(void)t;
	return true;
}

uint64_t workload_dev_read_bytes(const struct target *t)
{
	uint64_t b = 0;

	if (t->info.nr_devices &&
	    blockstat_read_bytes(t->info.devices[0].major,
				 t->info.devices[0].minor, &b))
		b = 0;
	return b;
}

void sample_read(struct sample *s, int m, double bytes, uint64_t dev0,
		 uint64_t dev1)
{
	s->read_bytes[m] = bytes;
	s->dev_counted[m] = dev0 && dev1 >= dev0;
	s->dev_read_bytes[m] = s->dev_counted[m] ? (double)(dev1 - dev0) : 0;
}

int drop_caches(const struct target *t)
{
	int fd, err = 0;

	sync();
	if (t && t->info.zfs.dataset[0] && zfs_pool_sync(&t->info.zfs))
		return -EIO;
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "3", 1) != 1)
		err = -errno;
	close(fd);
	return err;
}

int workload_opt_size(const char *wl, const char *key, const char *value,
		      uint64_t align, uint64_t *out, char *why, size_t len)
{
	int64_t v = parse_size(value);

	if (v <= 0 || v % align || v > (1LL << 50)) {
		snprintf(why, len,
			 "invalid --%s-%s '%s': a size (K, M, G) that is a "
			 "multiple of %llu bytes",
			 wl, key, value, (unsigned long long)align);
		return -1;
	}
	*out = v;
	return 0;
}

int workload_opt_count(const char *wl, const char *key, const char *value,
		       long max, long *out, char *why, size_t len)
{
	if (parse_int(value, 1, max, out)) {
		snprintf(why, len, "invalid --%s-%s '%s': expected 1..%ld", wl,
			 key, value, max);
		return -1;
	}
	return 0;
}

int workload_set_count(const char *wl, const struct workload_count_key *keys,
		       void *p, const char *key, const char *value, char *why,
		       size_t len)
{
	for (; keys->key; keys++)
		if (!strcmp(key, keys->key))
			return workload_opt_count(
				wl, key, value, keys->max,
				(long *)((char *)p + keys->off), why, len);
	return -2;
}

long workload_scaled(long n, double scale)
{
	double v = n * (scale > 0 ? scale : 1.0);

	return v < 1 ? 1 : (long)(v + 0.5);
}

void workload_path(const struct workload_ctx *ctx, const char *name, char *buf,
		   size_t len)
{
	snprintf(buf, len, "%s/%s", ctx->target->info.dir, name);
}

#define RANDOM_CHUNK (1u << 20)

int workload_random_file(const char *path, uint64_t size)
{
	unsigned char *buf = malloc(RANDOM_CHUNK);
	int fd, err = 0;

	if (!buf)
		return -ENOMEM;
	if (getrandom(buf, RANDOM_CHUNK, 0) != RANDOM_CHUNK) {
		free(buf);
		return -EIO;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (uint64_t off = 0; off < size && !err && !workload_stop;
	     off += RANDOM_CHUNK) {
		size_t n =
			size - off < RANDOM_CHUNK ? size - off : RANDOM_CHUNK;

		/* Vary each chunk a little: no block repeats (dedup). */
		memcpy(buf, &off, sizeof(off));
		if (write(fd, buf, n) != (ssize_t)n)
			err = -errno ?: -EIO;
	}
	if (!err && fsync(fd))
		err = -errno;
	close(fd);
	free(buf);
	return workload_stop ? -EINTR : err;
}

void workload_die_with(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(EINTR);
}

int workload_exec(char *const argv[], int out_fd, int err_fd)
{
	pid_t parent = getpid(), pid = fork();
	int status;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		workload_die_with(parent);
		if ((out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0) ||
		    (err_fd >= 0 && dup2(err_fd, STDERR_FILENO) < 0))
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}
