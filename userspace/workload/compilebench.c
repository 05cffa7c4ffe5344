// SPDX-License-Identifier: MIT
/*
 * compilebench: Compile Bench's three Phoronix tests, built in (Debian has
 * no compilebench), following its access pattern on a tree shaped like a
 * kernel source tree. The tree is the same on every target and iteration
 * (a fixed seed): `files` sources, 60 % .c and 40 % .h, about 16 per
 * folder, folders nested under earlier ones, sizes drawn from a
 * kernel-like distribution (median near 6 KiB, a tail to 256 KiB). Three
 * timed children, each ending in syncfs so that the encryption done at
 * writeback is inside the time:
 *  - create ("Initial Create"): make the folders, write every source
 *    whole; MB/s of sources written;
 *  - compile ("Compile"): read each .c and write its .o beside it (1.5
 *    times the source, as objects with debug info are); MB/s of sources
 *    read and objects written;
 *  - read ("Read Compiled Tree"): caches dropped first, read every file of
 *    the compiled tree; MB/s read.
 * Between phases the parent counts the tree's files (the iteration fails
 * if one is missing); it removes the tree untimed.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workload.h"

#define CB_IO		 (64u << 10) /* bytes per read or write call */
#define CB_PER_DIR	 16
#define CB_SEED		 0x636f6d70696c65ULL
#define CB_OBJ(src_size) ((src_size) + (src_size) / 2)

struct compilebench_params {
	long files;
};

struct cb_file {
	int dir;
	unsigned int size;
	bool is_c;
};

/* The tree one iteration makes, and what the phases move. */
struct cb_tree {
	char root[PATH_LEN + 32];
	long nr_files, nr_dirs, nr_c;
	struct cb_file *files;
	int *parent; /* of each folder; -1: the root */
	uint64_t src_bytes, c_bytes, obj_bytes;
	unsigned char *buf; /* CB_IO random bytes to write, room to read */
};

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * A source's size: a bucket by its cumulative share, then uniform in it.
 * The shares approximate a Linux source tree's file sizes: median near
 * 6 KiB, mean near 13 KiB, one in eight under 1 KiB, 0.7 % over 128 KiB.
 */
static unsigned int source_size(uint64_t *s)
{
	static const struct {
		unsigned int upto, permille; /* bytes, cumulative share */
	} buckets[] = {
		{1 << 10, 120},	 {2 << 10, 250},   {4 << 10, 420},
		{8 << 10, 610},	 {16 << 10, 790},  {32 << 10, 910},
		{64 << 10, 970}, {128 << 10, 993}, {256 << 10, 1000},
	};
	unsigned int r = next_rand(s) % 1000, low = 64;

	for (size_t i = 0; i < sizeof(buckets) / sizeof(buckets[0]); i++) {
		if (r < buckets[i].permille)
			return low + next_rand(s) % (buckets[i].upto - low);
		low = buckets[i].upto;
	}
	return low;
}

static void tree_free(struct cb_tree *t)
{
	free(t->files);
	free(t->parent);
	free(t->buf);
}

/* The tree for `files` sources (buf not made). 0 or -ENOMEM. */
static int tree_plan(struct cb_tree *t, long files)
{
	uint64_t s = CB_SEED;

	t->nr_files = files;
	t->nr_dirs = (files + CB_PER_DIR - 1) / CB_PER_DIR;
	t->files = calloc(files, sizeof(*t->files));
	t->parent = calloc(t->nr_dirs, sizeof(*t->parent));
	if (!t->files || !t->parent)
		return -ENOMEM;
	/* Folder 0 hangs from the root; each other from an earlier one. */
	t->parent[0] = -1;
	for (long d = 1; d < t->nr_dirs; d++)
		t->parent[d] = (int)(next_rand(&s) % d);
	for (long i = 0; i < files; i++) {
		struct cb_file *f = &t->files[i];

		f->dir = (int)(i / CB_PER_DIR);
		f->size = source_size(&s);
		f->is_c = next_rand(&s) % 10 < 6;
		t->src_bytes += f->size;
		if (f->is_c) {
			t->nr_c++;
			t->c_bytes += f->size;
			t->obj_bytes += CB_OBJ(f->size);
		}
	}
	return 0;
}

/* Path of folder d ("<root>/d0/d3/d9"). */
static void dir_path(const struct cb_tree *t, int d, char *buf, size_t len)
{
	char rest[PATH_LEN + 32];

	if (d < 0) {
		snprintf(buf, len, "%s", t->root);
		return;
	}
	dir_path(t, t->parent[d], rest, sizeof(rest));
	snprintf(buf, len, "%s/d%d", rest, d);
}

/* Path of file i, its source (ext "c" or "h") or its object ("o"). */
static void file_path(const struct cb_tree *t, long i, const char *ext,
		      char *buf, size_t len)
{
	char dir[PATH_LEN + 32];

	dir_path(t, t->files[i].dir, dir, sizeof(dir));
	snprintf(buf, len, "%s/f%ld.%s", dir, i, ext);
}

static const char *src_ext(const struct cb_file *f)
{
	return f->is_c ? "c" : "h";
}

static int write_file(const char *path, uint64_t size, const unsigned char *buf)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	int err = 0;

	if (fd < 0)
		return -errno;
	for (uint64_t off = 0; off < size && !err; off += CB_IO) {
		size_t n = size - off < CB_IO ? size - off : CB_IO;

		if (write(fd, buf, n) != (ssize_t)n)
			err = -errno ?: -EIO;
	}
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* Read all of path; its size must be `size`. */
static int read_file(const char *path, uint64_t size, unsigned char *buf)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t total = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, CB_IO)) > 0)
		total += n;
	close(fd);
	if (n < 0)
		return -EIO;
	return total == size ? 0 : -EIO;
}

/* syncfs on the tree's file system: writeback (and its encryption). */
static int sync_tree(const struct cb_tree *t)
{
	int fd = open(t->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (syncfs(fd))
		err = -errno;
	close(fd);
	return err;
}

/* Each file of the tree through one(), then syncfs if asked. */
static int each_file(const struct cb_tree *t,
		     int (*one)(const struct cb_tree *t, long i,
				unsigned char *in),
		     bool sync)
{
	unsigned char *in = malloc(CB_IO);
	int err = in ? 0 : -ENOMEM;

	for (long i = 0; i < t->nr_files && !err && !workload_stop; i++)
		err = one(t, i, in);
	if (!err && sync)
		err = sync_tree(t);
	free(in);
	return err;
}

static int create_one(const struct cb_tree *t, long i, unsigned char *in)
{
	char path[PATH_LEN + 64];

	(void)in;
	file_path(t, i, src_ext(&t->files[i]), path, sizeof(path));
	return write_file(path, t->files[i].size, t->buf);
}

static int compile_one(const struct cb_tree *t, long i, unsigned char *in)
{
	const struct cb_file *f = &t->files[i];
	char path[PATH_LEN + 64];
	int err;

	if (!f->is_c)
		return 0;
	file_path(t, i, "c", path, sizeof(path));
	err = read_file(path, f->size, in);
	file_path(t, i, "o", path, sizeof(path));
	return err ?: write_file(path, CB_OBJ(f->size), t->buf);
}

static int read_one(const struct cb_tree *t, long i, unsigned char *in)
{
	const struct cb_file *f = &t->files[i];
	char path[PATH_LEN + 64];
	int err;

	file_path(t, i, src_ext(f), path, sizeof(path));
	err = read_file(path, f->size, in);
	if (err || !f->is_c)
		return err;
	file_path(t, i, "o", path, sizeof(path));
	return read_file(path, CB_OBJ(f->size), in);
}

static int phase_create(void *arg, double *secs)
{
	const struct cb_tree *t = arg;
	char path[PATH_LEN + 64];
	double t0 = now_s();
	int err = 0;

	for (long d = 0; d < t->nr_dirs && !err; d++) {
		dir_path(t, (int)d, path, sizeof(path));
		if (mkdir(path, 0700))
			err = -errno;
	}
	err = err ?: each_file(t, create_one, true);
	*secs = now_s() - t0;
	return err;
}

static int phase_compile(void *arg, double *secs)
{
	double t0 = now_s();
	int err = each_file(arg, compile_one, true);

	*secs = now_s() - t0;
	return err;
}

static int phase_read(void *arg, double *secs)
{
	double t0 = now_s();
	int err = each_file(arg, read_one, false);

	*secs = now_s() - t0;
	return err;
}

/* Regular files under the tree (nftw has no user pointer: a static). */
static long counted;

static int count_one(const char *path, const struct stat *st, int type,
		     struct FTW *ftw)
{
	(void)path;
	(void)st;
	(void)ftw;
	if (type == FTW_F)
		counted++;
	return 0;
}

static int check_count(const struct cb_tree *t, long want, const char *phase)
{
	counted = 0;
	if (nftw(t->root, count_one, 16, FTW_PHYS) || counted != want) {
		fprintf(stderr,
			"encbench-trace: compilebench %s: %ld files in %s, "
			"expected %ld\n",
			phase, counted, t->root, want);
		return -EIO;
	}
	return 0;
}

static void remove_tree(const struct cb_tree *t)
{
	char path[PATH_LEN + 64];

	for (long i = 0; i < t->nr_files; i++) {
		file_path(t, i, src_ext(&t->files[i]), path, sizeof(path));
		unlink(path);
		file_path(t, i, "o", path, sizeof(path));
		unlink(path);
	}
	/* Children were made after their parents: undo in reverse. */
	for (long d = t->nr_dirs - 1; d >= 0; d--) {
		dir_path(t, (int)d, path, sizeof(path));
		rmdir(path);
	}
	rmdir(t->root);
}

static double mbps(uint64_t bytes, double secs)
{
	return secs > 0 ? bytes / secs / 1e6 : 0;
}

static int compilebench_run_once(const struct workload_ctx *ctx,
				 struct sample *out)
{
	const struct compilebench_params *p = ctx->params;
	struct cb_tree t = {0};
	int err = tree_plan(&t, p->files);

	t.buf = malloc(CB_IO);
	if (!err && (!t.buf || getrandom(t.buf, CB_IO, 0) != CB_IO))
		err = -EIO;
	workload_path(ctx, "compilebench", t.root, sizeof(t.root));
	if (!err && mkdir(t.root, 0700))
		err = -errno;
	if (err) {
		tree_free(&t);
		return err;
	}
	err = workload_spawn(ctx, phase_create, &t, out, 0)
		      ?: check_count(&t, t.nr_files, "create");
	out->values[0] = mbps(t.src_bytes, out->values[0]);
	if (!err)
		err = workload_spawn(ctx, phase_compile, &t, out, 1)
			      ?: check_count(&t, t.nr_files + t.nr_c,
					     "compile");
	out->values[1] = mbps(t.c_bytes + t.obj_bytes, out->values[1]);
	if (!err && ctx->drop_caches)
		err = drop_caches(ctx->target);
	if (!err)
		err = workload_spawn(ctx, phase_read, &t, out, 2);
	out->values[2] = mbps(t.src_bytes + t.obj_bytes, out->values[2]);
	remove_tree(&t);
	tree_free(&t);
	return err;
}

static void compilebench_defaults(void *p)
{
	((struct compilebench_params *)p)->files = 4000;
}

static void compilebench_common(void *p, const struct workload_common *c)
{
	struct compilebench_params *cp = p;

	cp->files = workload_scaled(cp->files, c->scale);
}

static int compilebench_set(void *p, const char *key, const char *value,
			    char *why, size_t len)
{
	if (strcmp(key, "files"))
		return -1;
	return workload_opt_count("compilebench", key, value, 1000000,
				  &((struct compilebench_params *)p)->files,
				  why, len);
}

static uint64_t compilebench_space(const void *p)
{
	struct cb_tree t = {0};
	uint64_t bytes = 0;

	if (!tree_plan(&t, ((const struct compilebench_params *)p)->files)) {
		/* Whole blocks per file, an inode per file and folder. */
		for (long i = 0; i < t.nr_files; i++) {
			const struct cb_file *f = &t.files[i];

			bytes += ((f->size + 4095ULL) & ~4095ULL) + 4096;
			if (f->is_c)
				bytes += ((CB_OBJ(f->size) + 4095ULL) &
					  ~4095ULL) +
					 4096;
		}
		bytes += (uint64_t)t.nr_dirs * 8192;
	}
	tree_free(&t);
	return bytes;
}

static int compilebench_metrics(const void *p,
				struct metric_def out[MAX_METRICS])
{
	(void)p;
	out[0] = (struct metric_def){"create_mbps", "MB/s", true};
	out[1] = (struct metric_def){"compile_mbps", "MB/s", true};
	out[2] = (struct metric_def){"read_mbps", "MB/s", true};
	return 3;
}

static void compilebench_describe(const void *p, struct param_list *out)
{
	struct cb_tree t = {0};

	if (tree_plan(&t, ((const struct compilebench_params *)p)->files)) {
		tree_free(&t);
		return;
	}
	param_int(out, "files", t.nr_files);
	param_int(out, "dirs", t.nr_dirs);
	param_int(out, "objects", t.nr_c);
	param_int(out, "source_bytes", (long long)t.src_bytes);
	param_int(out, "object_bytes", (long long)t.obj_bytes);
	param_int(out, "io_bytes", CB_IO);
	param_bool(out, "syncfs_per_phase", true);
	tree_free(&t);
}

static const struct workload_key compilebench_keys[] = {
	{"files", "sources in the kernel-like tree (default 4000)"},
	{0},
};

const struct workload_ops compilebench_workload_ops = {
	.name = "compilebench",
	.help = "create a kernel-like tree, \"compile\" it (.o beside each .c), read it back; MB/s",
	.follows =
		"Compile Bench's access pattern (built in), its Phoronix tests",
	.params_size = sizeof(struct compilebench_params),
	.defaults = compilebench_defaults,
	.common = compilebench_common,
	.set = compilebench_set,
	.keys = compilebench_keys,
	.space_needed = compilebench_space,
	.metrics = compilebench_metrics,
	.describe = compilebench_describe,
	.run_once = compilebench_run_once,
};
