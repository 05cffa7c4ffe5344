// SPDX-License-Identifier: MIT
/*
 * The results.json reader against files no one should trust (issue 6,
 * items 5 and 6): each refused with exit-2 material -- an error and one
 * line on stderr that names the file's problem (the member, with its
 * place) -- without reading more than the size cap, without blocking, and
 * with every string it accepts reaching the terminal with its control
 * characters escaped. The corpus is made from a valid document (the
 * fixture, as the writer writes it), one mutation at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "catch_stderr.h"
#include "report/report.h"
#include "report/report_priv.h"
#include "results_fixture.h"

static char dir[] = "/tmp/encbench-input-XXXXXX";
static char doc_path[128], err_path[128];
static struct results *out;

static int setup(void **state)
{
	struct results *in = fixture_results();
	int err;

	(void)state;
	if (!in || !mkdtemp(dir))
		return -1;
	/* The base document, as the writer writes it. */
	err = report_write_json(in, dir, NULL);
	free(in);
	snprintf(doc_path, sizeof(doc_path), "%s/results.json", dir);
	snprintf(err_path, sizeof(err_path), "%s/stderr", dir);
	out = calloc(1, sizeof(*out));
	return err || !out ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[160];

	(void)state;
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

static int read_json(void *path)
{
	return report_read_json(path, out);
}

/* report_read_json(path) with stderr caught: its return, and the text. */
static int read_caught(const char *path, char *text, size_t len)
{
	return catch_stderr(err_path, read_json, (void *)path, text, len);
}

/* Refused, with exactly one line on stderr that contains `want`. */
static void expect_refused(const char *path, const char *want)
{
	char text[1024];
	int lines = 0;

	assert_true(read_caught(path, text, sizeof(text)) < 0);
	for (char *p = text; *p; p++)
		lines += *p == '\n';
	if (lines != 1 || !strstr(text, want))
		fail_msg("stderr '%s' is not one line naming '%s'", text, want);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The object at "a.b[2].c" of doc. */
static struct json_object *walk(struct json_object *o, const char *path)
{
	char buf[128], *save, *part;

	snprintf(buf, sizeof(buf), "%s", path);
	for (part = strtok_r(buf, ".", &save); part && o;
	     part = strtok_r(NULL, ".", &save)) {
		char *br = strchr(part, '[');
		struct json_object *next = NULL;

		if (br)
			*br = '\0';
		json_object_object_get_ex(o, part, &next);
		o = br ? json_object_array_get_idx(next, atoi(br + 1)) : next;
	}
	if (!o)
		fail_msg("no %s in the base document", path);
	return o;
}

/*
 * One bad document: the base with member `key` of the object at `parent`
 * set to the JSON text `value` ("" removes it), written out.
 */
static void write_mutated(const char *path, const char *parent, const char *key,
			  const char *value)
{
	struct json_object *doc = json_object_from_file(doc_path);
	struct json_object *p;
	char *text, *mark;
	const char *plain;

	assert_non_null(doc);
	p = parent[0] ? walk(doc, parent) : doc;
	if (!value[0]) {
		json_object_object_del(p, key);
		assert_int_equal(json_object_to_file(path, doc), 0);
		json_object_put(doc);
		return;
	}
	/* A placeholder, replaced in the text: json-c would not write
	 * NaN or 2^64 as they stand. */
	json_object_object_add(p, key, json_object_new_string("@@VALUE@@"));
	plain = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN);
	text = malloc(strlen(plain) + strlen(value) + 1);
	assert_non_null(text);
	mark = strstr(plain, "\"@@VALUE@@\"");
	assert_non_null(mark);
	sprintf(text, "%.*s%s%s", (int)(mark - plain), plain, value,
		mark + strlen("\"@@VALUE@@\""));
	write_text(path, text);
	free(text);
	json_object_put(doc);
}

/* The base is read: the corpus below differs from it in one thing. */
static void test_base_document_reads(void **state)
{
	char text[256];

	(void)state;
	assert_int_equal(read_caught(doc_path, text, sizeof(text)), 0);
	assert_string_equal(text, "");
	assert_int_equal(out->nr_targets, 2);
}

static const struct bad_member {
	const char *parent, *key, *value, *want;
} bad_members[] = {
	/* Missing, or null where the writer never writes null. */
	{"", "meta", "", "member \"meta\" is missing"},
	{"", "attribution", "null", "member \"attribution\" is not an array"},
	{"results[1]", "mean", "", "member \"results[1].mean\" is missing"},
	{"targets[0]", "name", "null",
	 "member \"targets[0].name\" is not a string"},
	{"targets[1]", "encryption", "",
	 "\"targets[1].encryption\" is missing"},
	{"meta", "capabilities", "null",
	 "member \"meta.capabilities\" is not an object"},
	/* Wrong types. */
	{"", "targets", "3", "member \"targets\" is not an array"},
	{"meta", "duration_s", "\"long\"",
	 "member \"meta.duration_s\" is not a number"},
	{"results[0]", "samples", "[1, \"x\"]",
	 "member \"results[0].samples\" is not a number"},
	{"targets[0]", "devices", "[7]",
	 "member \"targets[0].devices[0]\" is not an object"},
	{"", "schema", "\"other/9\"", "member \"schema\" is \"other/9\""},
	/* Not finite: json-c reads these, the writer never writes them. */
	{"results[0]", "mean", "NaN",
	 "member \"results[0].mean\" is not a finite number"},
	{"results[0]", "sd", "Infinity",
	 "member \"results[0].sd\" is not a finite number"},
	{"comparisons[0]", "penalty_pct", "-Infinity",
	 "member \"comparisons[0].penalty_pct\" is not a finite number"},
	{"meta", "duration_s", "1e400",
	 "member \"meta.duration_s\" is not a finite number"},
	/* Out of range: json-c clamps these without a word. */
	{"attribution[0].layers[6]", "count", "18446744073709551616",
	 "member \"attribution[0].layers[6].count\" is out of range"},
	{"targets[0].devices[0]", "major", "4294967296",
	 "member \"targets[0].devices[0].major\" is out of range"},
	{"targets[1].encryption", "key_bits", "-2147483648",
	 "member \"targets[1].encryption.key_bits\" is negative"},
	{"targets[1].encryption", "sector_size", "9223372036854775808",
	 "member \"targets[1].encryption.sector_size\" is out of "
	 "range"},
	/* Options: typed, "runs" a count or "auto". */
	{"meta.options", "runs", "\"often\"",
	 "member \"meta.options.runs\" is neither a count nor \"auto\""},
	{"meta.options", "scratch", "",
	 "member \"meta.options.scratch\" is missing"},
	{"meta.options", "targets", "[1]",
	 "member \"meta.options.targets[0]\" is not a string"},
	/* A layer's state: a known name, agreeing with "available". */
	{"attribution[0].layers[6]", "state", "\"half\"",
	 "member \"attribution[0].layers[6].state\" is not a layer state"},
	{"attribution[0].layers[6]", "available", "false",
	 "member \"attribution[0].layers[6].available\" contradicts"},
	/* Negative counts. */
	{"attribution[0].layers[0]", "count", "-1",
	 "member \"attribution[0].layers[0].count\" is negative"},
	{"attribution[0]", "missed_events", "-5",
	 "member \"attribution[0].missed_events\" is negative"},
	{"attribution[0].layers[3].hist", "slots", "[1, -2]",
	 "\"attribution[0].layers[3].hist.slots\" entry 1 is not a count"},
};

static void test_bad_members(void **state)
{
	char path[160];

	(void)state;
	snprintf(path, sizeof(path), "%s/bad.json", dir);
	for (size_t i = 0; i < sizeof(bad_members) / sizeof(bad_members[0]);
	     i++) {
		const struct bad_member *b = &bad_members[i];

		printf("# %s%s%s = %s\n", b->parent, b->parent[0] ? "." : "",
		       b->key, b->value[0] ? b->value : "(removed)");
		write_mutated(path, b->parent, b->key, b->value);
		expect_refused(path, b->want);
	}
}

/* A file from before "state" and "reason": "available" says it all. */
static void test_layer_state_before_state(void **state)
{
	char path[160], text[1024];

	(void)state;
	snprintf(path, sizeof(path), "%s/old.json", dir);
	write_mutated(path, "attribution[0].layers[1]", "state", "");
	assert_int_equal(read_caught(path, text, sizeof(text)), 0);
	assert_int_equal(out->attrib[0].layers[LAYER_FS].state, LAYER_DERIVED);
	write_mutated(path, "attribution[0].layers[2]", "state", "");
	assert_int_equal(read_caught(path, text, sizeof(text)), 0);
	assert_int_equal(out->attrib[0].layers[LAYER_CRYPT_QUEUE].state,
			 LAYER_UNAVAILABLE);
	/* The stable names, both ways. */
	for (int st = 0; st < NR_LAYER_STATES; st++)
		assert_int_equal(layer_state_from_name(layer_state_name(st)),
				 st);
	assert_string_equal(layer_state_name(LAYER_NOT_APPLICABLE),
			    "not applicable");
}

/* A file from before the ZFS taskq chain: its wakers read as none. */
static void test_wait_before_zfs_taskq(void **state)
{
	char path[160], text[1024];

	(void)state;
	snprintf(path, sizeof(path), "%s/old-wait.json", dir);
	write_mutated(path, "attribution[0].wait", "zfs_taskq_wakers", "");
	assert_int_equal(read_caught(path, text, sizeof(text)), 0);
	assert_true(out->attrib[0].wait.available);
	assert_true(out->attrib[0].wait.zfs_wakeups == 0);
	assert_true(out->attrib[0].wait.zfs_crypt_ns == 0);
}

/* `{"schema":"encbench-trace/1"}` printed an empty report, exit 0. */
static void test_schema_only(void **state)
{
	char path[160];

	(void)state;
	snprintf(path, sizeof(path), "%s/bare.json", dir);
	write_text(path, "{\"schema\": \"encbench-trace/1\"}\n");
	expect_refused(path, "member \"meta\" is missing");
	write_text(path, "{\"schema\": \"encbench-trace/1\", \"meta\": null}");
	expect_refused(path, "member \"meta\" is not an object");
}

static void test_truncated(void **state)
{
	char path[160];
	struct stat st;
	char *text;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/cut.json", dir);
	assert_int_equal(stat(doc_path, &st), 0);
	text = malloc((size_t)st.st_size);
	f = fopen(doc_path, "r");
	assert_true(text && f &&
		    fread(text, 1, (size_t)st.st_size, f) ==
			    (size_t)st.st_size);
	fclose(f);
	/* Cut in the middle, and one byte short of the end. */
	f = fopen(path, "w");
	fwrite(text, 1, (size_t)st.st_size / 2, f);
	fclose(f);
	expect_refused(path, "not a JSON object (unexpected end");
	f = fopen(path, "w");
	fwrite(text, 1, (size_t)st.st_size - 2, f);
	fclose(f);
	expect_refused(path, "not a JSON object");
	free(text);
}

/* Over the cap: refused from fstat, before a byte is read (a sparse 3 GB
 * file was read whole before "too large"). */
static void test_huge(void **state)
{
	char path[160];
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/huge.json", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)REPORT_MAX_INPUT + 1), 0);
	expect_refused(path, "is too large");
	assert_int_equal(ftruncate(fd, (off_t)3 << 30), 0);
	close(fd);
	expect_refused(path, "is too large (3221225472 bytes");
	unlink(path);
}

/* Regular files only: a FIFO blocked forever, /dev/zero grew to 2 GB,
 * and a folder named results.json. */
static void test_not_regular(void **state)
{
	char path[160];

	(void)state;
	snprintf(path, sizeof(path), "%s/fifo.json", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(20); /* a hang fails the test instead of holding it */
	expect_refused(path, "is a FIFO, not a results file");
	alarm(0);
	expect_refused("/dev/zero",
		       "/dev/zero is a character device, not a results file");
	snprintf(path, sizeof(path), "%s/sub", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/sub/results.json", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	expect_refused(path, "is a folder, not a results file");
}

/* Escape sequences in strings were obeyed by the terminal. */
static void test_escapes_reach_no_terminal(void **state)
{
	char path[160], err[64];
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	(void)state;
	snprintf(path, sizeof(path), "%s/esc.json", dir);
	write_mutated(path, "targets[0]", "name", "\"plain\\u001b[2J\"");
	assert_int_equal(read_caught(path, err, sizeof(err)), 0);
	write_mutated(path, "meta", "hostname",
		      "\"h\\u001b]0;owned\\u0007\\u009b1m\\u007f\"");
	assert_int_equal(read_caught(path, err, sizeof(err)), 0);
	assert_string_equal(out->meta.hostname, "h\033]0;owned\a\xc2\x9b"
						"1m\x7f");
	mem = open_memstream(&text, &len);
	report_print_text(out, mem, true);
	fclose(mem);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f ||
		    (c == 0xc2 && i + 1 < len &&
		     (unsigned char)text[i + 1] < 0xa0))
			fail_msg("control byte 0x%02x at %zu reached the text",
				 c, i);
	}
	assert_non_null(strstr(text, "h\\x1b]0;owned\\x07\\u009b1m\\x7f"));
	free(text);
}

/* A path that is not UTF-8 went into results.json raw, which strict
 * readers then rejected (issue 6, item 7). */
static void test_non_utf8_written_valid(void **state)
{
	struct results *r = fixture_results();
	char sub[160], path[192], text[8192];
	FILE *f;
	size_t n;

	(void)state;
	assert_non_null(r);
	snprintf(r->targets[0].dir, PATH_LEN, "/var/tmp/caf\xe9/\xff\xfe");
	snprintf(sub, sizeof(sub), "%s/utf8", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(report_write_json(r, sub, NULL), 0);
	snprintf(path, sizeof(path), "%s/results.json", sub);
	f = fopen(path, "r");
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_non_null(strstr(text, "\"/var/tmp/caf\\\\xe9/\\\\xff\\\\xfe\""));
	for (size_t i = 0; i < n; i++)
		assert_true((unsigned char)text[i] < 0x80);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_document_reads),
		cmocka_unit_test(test_bad_members),
		cmocka_unit_test(test_layer_state_before_state),
		cmocka_unit_test(test_wait_before_zfs_taskq),
		cmocka_unit_test(test_schema_only),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_huge),
		cmocka_unit_test(test_not_regular),
		cmocka_unit_test(test_escapes_reach_no_terminal),
		cmocka_unit_test(test_non_utf8_written_valid),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
