// SPDX-License-Identifier: MIT
/* File input and output shared by the report writers and readers. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_priv.h"

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Publish tmp as path, never over a file that is there: this run writes
 * each name once, so one that exists is someone else's. link() where the
 * file system cannot rename without replacing.
 */
static int publish(const char *tmp, const char *path)
{
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (link(tmp, path))
		return -errno;
	unlink(tmp);
	return 0;
}

/*
 * Readers never see a half-written file: write a temp file of a name no
 * one else uses, make it durable, publish it under its name, then make
 * that durable.
 */
int report_write_atomic(const char *dir, const char *name, const char *text)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	int fd = -1, dfd = -1, err = 0;
	const char *failed = tmp;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
		    (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, name) >=
		    (int)sizeof(tmp)) {
		fprintf(stderr, "encbench-trace: %s/%s: path too long\n", dir,
			name);
		return -ENAMETOOLONG;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto cleanup;
	}
	err = write_all(fd, text, strlen(text));
	/* Text files end with a newline; json-c's output does not. */
	if (!err && (!*text || text[strlen(text) - 1] != '\n'))
		err = write_all(fd, "\n", 1);
	if (!err && fchmod(fd, 0644))
		err = -errno;
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err) {
		err = publish(tmp, path);
		failed = path;
	}
	if (err) {
		unlink(tmp);
		goto cleanup;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd)) {
		err = -errno;
		failed = dir;
	}
	if (dfd >= 0)
		close(dfd);
cleanup:
	if (err)
		fprintf(stderr, "encbench-trace: cannot write %s: %s\n", failed,
			strerror(-err));
	return err;
}

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a folder";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

int report_read_file(const char *path, size_t max, char **text, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	char *buf = NULL;
	size_t n = 0, size;
	struct stat st;
	int err = 0;

	if (fd < 0) {
		err = -errno;
		fprintf(stderr, "encbench-trace: cannot read %s: %s\n", path,
			strerror(-err));
		return err;
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		fprintf(stderr, "encbench-trace: cannot read %s: %s\n", path,
			strerror(-err));
		goto cleanup;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr,
			"encbench-trace: %s is %s, not a results file\n", path,
			file_kind(st.st_mode));
		err = -EINVAL;
		goto cleanup;
	}
	if ((size_t)st.st_size > max) {
		fprintf(stderr,
			"encbench-trace: %s is too large (%lld bytes, at most %zu)\n",
			path, (long long)st.st_size, max);
		err = -EFBIG;
		goto cleanup;
	}
	/* One byte more than fstat said: a file that grows is cut there
	 * and then refused by the parser, never read on and on. */
	size = (size_t)st.st_size + 1;
	buf = malloc(size + 1);
	if (!buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	while (n < size) {
		ssize_t got = read(fd, buf + n, size - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = -errno;
			fprintf(stderr, "encbench-trace: cannot read %s: %s\n",
				path, strerror(-err));
			goto cleanup;
		}
		if (!got)
			break;
		n += (size_t)got;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	buf = NULL;
cleanup:
	free(buf);
	close(fd);
	return err;
}

int report_parse_json(const char *path, const char *text, size_t len,
		      struct json_object **out)
{
	struct json_tokener *tok;
	struct json_object *o;
	size_t end;

	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, text, (int)len);
	end = json_tokener_get_parse_end(tok);
	/* Only whitespace may follow the document. */
	while (o && end < len && strchr(" \t\r\n", text[end]))
		end++;
	if (!o || end != len || !json_object_is_type(o, json_type_object)) {
		enum json_tokener_error jerr = json_tokener_get_error(tok);
		const char *why = json_tokener_error_desc(jerr);

		if (o)
			why = "trailing data or wrong type";
		else if (jerr == json_tokener_continue)
			why = "unexpected end";
		fprintf(stderr,
			"encbench-trace: %s: not a JSON object (%s at byte %zu)\n",
			path, why, end);
		json_object_put(o);
		json_tokener_free(tok);
		return -EINVAL;
	}
	json_tokener_free(tok);
	*out = o;
	return 0;
}

int report_load_json(const char *path, struct json_object **out)
{
	char *text = NULL;
	size_t len = 0;
	int err;

	*out = NULL;
	err = report_read_file(path, REPORT_MAX_INPUT, &text, &len);
	if (err)
		return err;
	err = report_parse_json(path, text, len, out);
	free(text);
	return err;
}

int report_write_built(const char *dir, const char *name,
		       int (*build)(FILE *out, const void *arg),
		       const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int err;

	if (!out)
		return -errno;
	err = build(out, arg);
	if (fclose(out) || !text)
		err = err ?: -ENOMEM;
	if (err)
		fprintf(stderr, "encbench-trace: cannot write %s/%s: %s\n", dir,
			name, strerror(-err));
	else
		err = report_write_atomic(dir, name, text);
	free(text);
	return err;
}
