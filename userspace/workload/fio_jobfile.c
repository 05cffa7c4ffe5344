// SPDX-License-Identifier: MIT
/*
 * fio job files (the INI-like format of fio's HOWTO, "Job file format"):
 * [global] sections give defaults to the jobs after them, every other
 * section is a job named after it; options are key=value or a bare key;
 * lines starting with ';' or '#' are comments. This reads the few
 * options the report names a job by and the room is sized from, and
 * rewrites only directory=, filename=, size= and runtime=. Everything
 * else is fio's to judge, and fio's error is the user's answer.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fio_jobfile.h"
#include "../common/parse.h"

#define FIO_LINE_MAX 4096
#define MiB	     (1ULL << 20)

/* One line of the file: blank, a section, an option or anything else
 * (a comment, an include), kept as it is. */
enum line_kind { LINE_OTHER, LINE_SECTION, LINE_OPTION };

struct line {
	enum line_kind kind;
	char key[64];
	const char *value; /* "" for a bare key */
	char section[FIO_JOB_NAME_LEN];
};

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* buf holds one line; l points into it. */
static void line_parse(char *buf, struct line *l)
{
	char *s = trim(buf), *eq, *close;

	memset(l, 0, sizeof(*l));
	l->value = "";
	if (!*s || *s == ';' || *s == '#')
		return;
	if (*s == '[') {
		close = strchr(s, ']');
		if (!close)
			return;
		*close = '\0';
		snprintf(l->section, sizeof(l->section), "%s", trim(s + 1));
		l->kind = LINE_SECTION;
		return;
	}
	eq = strchr(s, '=');
	if (eq) {
		*eq = '\0';
		l->value = trim(eq + 1);
	}
	snprintf(l->key, sizeof(l->key), "%s", trim(s));
	l->kind = LINE_OPTION;
}

static bool key_is(const struct line *l, const char *a, const char *b)
{
	return !strcmp(l->key, a) || (b && !strcmp(l->key, b));
}

/* The next line of text from *pos into buf (NUL-terminated, no '\n'),
 * false at the end. */
static bool next_line(const char **pos, char *buf, size_t len)
{
	const char *s = *pos, *nl;
	size_t n;

	if (!*s)
		return false;
	nl = strchr(s, '\n');
	n = nl ? (size_t)(nl - s) : strlen(s);
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), s);
	*pos = nl ? nl + 1 : s + n;
	return true;
}

/* filename=a:b as the copy has it: each file's last component, so that
 * with directory= they all lie in the target's folder. */
static void filenames_in_folder(const char *value, char *out, size_t len)
{
	char buf[FIO_LINE_MAX], *save = NULL, *f, *slash;
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", value);
	out[0] = '\0';
	for (f = strtok_r(buf, ":", &save); f && n < len;
	     f = strtok_r(NULL, ":", &save)) {
		slash = strrchr(f, '/');
		if (slash && slash[1])
			f = slash + 1;
		n += snprintf(out + n, len - n, "%s%s", n ? ":" : "", f);
	}
}

/* A size as fio reads it (k, m, g: powers of 1024), or 0. */
static uint64_t size_of(const char *v)
{
	int64_t b = parse_size(v);

	return b > 0 ? (uint64_t)b : 0;
}

/* The file's own size, as the copy has it; 0 when it is not one. */
static uint64_t size_rewritten(const char *v, const struct fio_rewrite *rw)
{
	uint64_t b = size_of(v);

	if (rw->size)
		return rw->size;
	if (!b || rw->scale <= 0 || rw->scale == 1)
		return b;
	b = (uint64_t)(b * rw->scale) & ~4095ULL;
	return b < MiB ? MiB : b;
}

/* A runtime as the copy has it, in seconds; 0 when the file's stays. */
static double runtime_rewritten(const char *v, const struct fio_rewrite *rw)
{
	double s = parse_duration(v);

	if (rw->runtime_s > 0)
		return rw->runtime_s;
	if (s <= 0 || rw->scale <= 0 || rw->scale == 1)
		return 0;
	return s * rw->scale < 0.1 ? 0.1 : s * rw->scale;
}

static void job_option(struct fio_job *j, const struct line *l)
{
	if (key_is(l, "rw", "readwrite")) {
		snprintf(j->rw, sizeof(j->rw), "%.*s",
			 (int)strcspn(l->value, ":"), l->value);
	} else if (key_is(l, "bs", "blocksize")) {
		snprintf(j->bs, sizeof(j->bs), "%s", l->value);
	} else if (key_is(l, "ioengine", NULL)) {
		snprintf(j->engine, sizeof(j->engine), "%s", l->value);
	} else if (key_is(l, "iodepth", NULL)) {
		j->iodepth = atol(l->value);
	} else if (key_is(l, "numjobs", NULL)) {
		j->numjobs = atol(l->value);
	} else if (key_is(l, "stonewall", "wait_for_previous") ||
		   key_is(l, "new_group", NULL)) {
		j->waits = strcmp(l->value, "0") != 0;
	} else if (key_is(l, "size", NULL)) {
		snprintf(j->size_text, sizeof(j->size_text), "%s", l->value);
	} else if (key_is(l, "filename", NULL)) {
		filenames_in_folder(l->value, j->filename, sizeof(j->filename));
	}
}

/* fio's defaults on Linux (fio 3.x): rw=read, bs=4k, psync, QD1. */
static void job_defaults(struct fio_job *j)
{
	memset(j, 0, sizeof(*j));
	snprintf(j->rw, sizeof(j->rw), "read");
	snprintf(j->bs, sizeof(j->bs), "4k");
	snprintf(j->engine, sizeof(j->engine), "psync");
	j->iodepth = 1;
	j->numjobs = 1;
}

/* Sides, size and group of a job once its section has ended. */
static int job_finish(struct fio_jobs *js, struct fio_job *j,
		      const struct fio_rewrite *rw, char *why, size_t len)
{
	const char *m = j->rw;

	j->reads = strstr(m, "read") || !strcmp(m, "rw");
	j->writes =
		strstr(m, "write") || !strcmp(m, "rw") || !strcmp(m, "randrw");
	if (!strcmp(m, "readwrite") || !strcmp(m, "randrw"))
		j->reads = j->writes = true;
	if (!j->reads && !j->writes) {
		snprintf(why, len,
			 "job %s: rw=%s is neither reads nor writes, which "
			 "this program reports",
			 j->name, m);
		return -1;
	}
	if (j->numjobs < 1)
		j->numjobs = 1;
	j->size = rw->size ?: size_rewritten(j->size_text, rw);
	if (!j->size && j->size_text[0]) {
		snprintf(why, len,
			 "job %s: size=%s is not a size a file can be laid out "
			 "with: give --fio-size",
			 j->name, j->size_text);
		return -1;
	}
	if (!j->size) {
		snprintf(why, len,
			 "job %s has no size= (fio needs one to lay out a new "
			 "file): give --fio-size",
			 j->name);
		return -1;
	}
	/* The first job starts group 0; one that waits starts the next. */
	if (js->n)
		j->group = js->job[js->n - 1].group + (j->waits ? 1 : 0);
	else
		j->group = 0;
	js->nr_groups = j->group + 1;
	js->n++;
	return 0;
}

int fio_jobs_parse(const char *text, const struct fio_rewrite *rw,
		   struct fio_jobs *out, char *why, size_t len)
{
	char *buf = malloc(FIO_LINE_MAX);
	struct fio_job global, *cur = &global;
	const char *pos = text;
	struct line l;
	int rc = -1;

	if (!buf) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	memset(out, 0, sizeof(*out));
	job_defaults(&global);
	while (next_line(&pos, buf, FIO_LINE_MAX)) {
		line_parse(buf, &l);
		if (l.kind == LINE_OPTION) {
			job_option(cur, &l);
			continue;
		}
		if (l.kind != LINE_SECTION)
			continue;
		if (cur != &global && job_finish(out, cur, rw, why, len))
			goto cleanup;
		if (!strcmp(l.section, "global")) {
			cur = &global;
			continue;
		}
		if (out->n == FIO_JOBS_MAX) {
			snprintf(why, len,
				 "the job file has more than %d jobs, the most "
				 "this program reports apart",
				 FIO_JOBS_MAX);
			goto cleanup;
		}
		cur = &out->job[out->n];
		*cur = global;
		snprintf(cur->name, sizeof(cur->name), "%s", l.section);
	}
	if (cur != &global && job_finish(out, cur, rw, why, len))
		goto cleanup;
	if (!out->n) {
		snprintf(why, len,
			 "the job file has no job (no section but "
			 "[global])");
		goto cleanup;
	}
	rc = 0;
cleanup:
	free(buf);
	return rc;
}

/* Append to a growing string: false when out of memory. */
struct text {
	char *s;
	size_t n, cap;
};

static bool text_add(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int need;

	va_start(ap, fmt);
	need = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (need < 0)
		return false;
	if (t->n + need + 1 > t->cap) {
		size_t cap = (t->n + need + 1) * 2;
		char *s = realloc(t->s, cap);

		if (!s)
			return false;
		t->s = s;
		t->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
	va_end(ap);
	t->n += need;
	return true;
}

/* The copy's line for option l (original text in raw): rewritten where
 * it is directory=, filename=, size= or runtime=. */
static bool copy_option(struct text *t, const struct line *l, const char *raw,
			const struct fio_rewrite *rw)
{
	char files[FIO_LINE_MAX];
	double secs;

	if (key_is(l, "directory", NULL))
		return text_add(t, "directory=%s\n", rw->dir);
	if (key_is(l, "filename", NULL)) {
		filenames_in_folder(l->value, files, sizeof(files));
		return text_add(t, "filename=%s\n", files);
	}
	if (key_is(l, "size", NULL) && size_rewritten(l->value, rw) &&
	    size_rewritten(l->value, rw) != size_of(l->value))
		return text_add(
			t, "size=%llu\n",
			(unsigned long long)size_rewritten(l->value, rw));
	if (key_is(l, "runtime", "timeout") &&
	    (secs = runtime_rewritten(l->value, rw)) > 0)
		return text_add(t, "runtime=%lldms\n",
				(long long)(secs * 1e3 + 0.5));
	return text_add(t, "%s\n", raw);
}

char *fio_jobs_rewrite(const char *text, const char *src,
		       const struct fio_rewrite *rw)
{
	char *buf = malloc(FIO_LINE_MAX), *raw = malloc(FIO_LINE_MAX);
	struct text t = {0};
	const char *pos = text;
	bool resized = rw->size || rw->runtime_s > 0 ||
		       (rw->scale > 0 && rw->scale != 1);
	bool ok = buf && raw;
	struct line l;

	/* First, for every job: the folder, and the user's size and
	 * runtime where the file's own lines do not give one. */
	ok = ok &&
	     text_add(&t,
		      "; encbench-trace: a copy of %s, directory= and "
		      "filename= pointed into %s%s\n[global]\n"
		      "directory=%s\n",
		      src, rw->dir,
		      resized ? ", sizes and runtimes as asked" : "", rw->dir);
	if (ok && rw->size)
		ok = text_add(&t, "size=%llu\n", (unsigned long long)rw->size);
	if (ok && rw->runtime_s > 0)
		ok = text_add(&t, "runtime=%lldms\n",
			      (long long)(rw->runtime_s * 1e3 + 0.5));
	while (ok && next_line(&pos, buf, FIO_LINE_MAX)) {
		snprintf(raw, FIO_LINE_MAX, "%s", buf);
		line_parse(buf, &l);
		ok = l.kind == LINE_OPTION ? copy_option(&t, &l, raw, rw)
					   : text_add(&t, "%s\n", raw);
	}
	free(buf);
	free(raw);
	if (!ok) {
		free(t.s);
		return NULL;
	}
	return t.s;
}

uint64_t fio_jobs_space(const struct fio_jobs *js)
{
	uint64_t total = 0;

	for (int i = 0; i < js->n; i++) {
		const struct fio_job *j = &js->job[i];
		uint64_t most = j->size;
		bool first = true;

		if (!j->filename[0]) {
			total += j->size * j->numjobs;
			continue;
		}
		/* A shared file: counted once, at its largest job's size. */
		for (int k = 0; k < js->n; k++) {
			if (strcmp(js->job[k].filename, j->filename))
				continue;
			if (k < i)
				first = false;
			if (js->job[k].size > most)
				most = js->job[k].size;
		}
		if (first)
			total += most;
	}
	return total;
}
