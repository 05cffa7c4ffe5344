// SPDX-License-Identifier: MIT
/*
 * --timeline on the real program: one trace-event file per (target,
 * workload) that keeps every rule of Perfetto's and catapult's importers
 * (trace_event_check.h: spans nest on each track, whole nanoseconds,
 * every track named, ...), that Chromium's own JSON.parse reads to the
 * same events, with every span inside the phase and starting inside the
 * window, and the I/O of the run in it: the workload's reads and writes,
 * the device's requests, and on fscrypt the decrypt work.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "chromium.h"
#include "file_text.h"
#include "run_prog.h"
#include "trace_event_check.h"

static char tmp[] = "/var/tmp/encbench-timeline.XXXXXX";
static char out[PATH_MAX];

static struct json_object *get(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, k, &v))
		fail_msg("missing \"%s\"", k);
	return v;
}

static int setup(void **state)
{
	const char *bin = run_prog_bin();
	int status;
	pid_t pid;

	(void)state;
	if (run_prog_begin(tmp))
		return -1;
	snprintf(out, sizeof(out), "%s/out", tmp);
	pid = fork();
	if (pid == 0) {
		freopen("/dev/null", "w", stdout);
		execl(bin, bin, "run", "--size", "16M", "--runs", "2",
		      "--timeline=30", "--scratch", tmp, "--output", out, NULL);
		_exit(98);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	return system(cmd) ? -1 : 0;
}

struct seen {
	int spans, reads, writes, requests, crypt;
	struct te_summary rules;
};

static void check_file(const char *target, struct seen *seen)
{
	char path[PATH_MAX + 64];
	struct json_object *doc, *events, *other;
	double phase_us, window_us;
	char why[256];

	snprintf(path, sizeof(path), "%s/timeline-%s-dd.json", out, target);
	if (te_check(path, &seen->rules, why, sizeof(why)))
		fail_msg("%s: %s", target, why);
	doc = json_object_from_file(path);
	if (!doc)
		fail_msg("%s: not valid JSON", path);
	events = get(doc, "traceEvents");
	other = get(doc, "otherData");
	assert_true(json_object_is_type(events, json_type_array));
	phase_us = json_object_get_double(get(other, "phase_us"));
	window_us = json_object_get_double(get(other, "window_s")) * 1e6;
	assert_true(phase_us > 0);
	assert_int_equal(json_object_get_int64(get(other, "lost")), 0);
	/* Spans with no free lane are left out, but said. */
	fprintf(stderr, "# %s: %lld spans left out\n", target,
		(long long)json_object_get_int64(get(other, "unplaced")));
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		struct json_object *e = json_object_array_get_idx(events, i);
		const char *ph = json_object_get_string(get(e, "ph"));
		const char *cat, *name;
		double ts, dur = 0;

		if (!strcmp(ph, "M"))
			continue; /* track names */
		cat = json_object_get_string(get(e, "cat"));
		name = json_object_get_string(get(e, "name"));
		ts = json_object_get_double(get(e, "ts"));
		if (!strcmp(ph, "X"))
			dur = json_object_get_double(get(e, "dur"));
		/* Inside the phase, begun in the window. */
		if (ts < 0 || dur < 0 || ts + dur > phase_us || ts > window_us)
			fail_msg("%s: %s [%f, +%f] us outside the phase of %f",
				 target, name, ts, dur, phase_us);
		seen->spans++;
		seen->reads += !strcmp(cat, "syscall") && !strcmp(name, "read");
		seen->writes +=
			!strcmp(cat, "syscall") && !strcmp(name, "write");
		seen->requests += !strcmp(cat, "device");
		seen->crypt += !strcmp(cat, "crypt");
	}
	json_object_put(doc);
}

static void test_plain(void **state)
{
	struct seen s = {0};

	(void)state;
	check_file("plain", &s);
	/* 2 x 16 MiB in 1 MiB calls: a window of 30 s holds the phase. */
	assert_true(s.writes >= 32);
	assert_true(s.reads >= 32);
	assert_true(s.requests >= 32);
	assert_int_equal(s.crypt, 0);
}

static void test_fscrypt(void **state)
{
	struct seen s = {0};

	(void)state;
	check_file("fscrypt", &s);
	assert_true(s.writes >= 32);
	assert_true(s.reads >= 32);
	assert_true(s.requests >= 1);
	/* Reads decrypt in the fscrypt workqueue. */
	assert_true(s.crypt >= 1);
}

/* The file's bytes as base64, for a page to carry them unchanged. */
static void put_base64(FILE *f, const unsigned char *p, size_t n)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
				  "opqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = p[i] << 16 | (i + 1 < n ? p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);

		fputc(b64[v >> 18 & 63], f);
		fputc(b64[v >> 12 & 63], f);
		fputc(i + 1 < n ? b64[v >> 6 & 63] : '=', f);
		fputc(i + 2 < n ? b64[v & 63] : '=', f);
	}
}

static const char parse_page[] =
	"const b = atob(document.getElementById('f').textContent);\n"
	"const u = Uint8Array.from(b, c => c.charCodeAt(0));\n"
	"let r;\n"
	"try {\n"
	"  const d = JSON.parse(new TextDecoder('utf-8', {fatal: true})"
	".decode(u));\n"
	"  r = {events: d.traceEvents.length,\n"
	"       spans: d.traceEvents.filter(e => e.ph === 'X').length};\n"
	"} catch (e) { r = {error: String(e)}; }\n"
	"document.getElementById('out').textContent = JSON.stringify(r);\n";

/* catapult (chrome://tracing) reads a trace with JSON.parse
 * (trace_event_importer.html): Chromium's own parses the file, unchanged,
 * to as many events and spans as json-c and the checker saw. */
static void test_chromium_parses(void **state)
{
	char path[PATH_MAX + 64], page[PATH_MAX], dom[PATH_MAX];
	struct seen s = {0};
	struct json_object *doc, *r;
	char *text = NULL, *body, *end;
	FILE *f;

	(void)state;
	check_file("plain", &s);
	snprintf(path, sizeof(path), "%s/timeline-plain-dd.json", out);
	text = file_text(path);
	assert_non_null(text);
	snprintf(page, sizeof(page), "%s/parse.html", tmp);
	f = fopen(page, "w");
	assert_non_null(f);
	fputs("<!DOCTYPE html><html><body><pre id=\"out\">nothing</pre>"
	      "<pre id=\"f\" hidden>",
	      f);
	put_base64(f, (const unsigned char *)text, strlen(text));
	fprintf(f, "</pre><script>\n%s</script></body></html>\n", parse_page);
	fclose(f);
	free(text);
	snprintf(dom, sizeof(dom), "%s/parse-dom.html", tmp);
	assert_int_equal(chromium(tmp, "--dump-dom", page, dom), 0);
	text = file_text(dom);
	body = text ? strstr(text, "<pre id=\"out\">") : NULL;
	assert_non_null(body);
	body = strchr(body, '>') + 1;
	end = strstr(body, "</pre>");
	assert_non_null(end);
	*end = '\0';
	r = json_tokener_parse(body);
	if (!r || !json_object_object_get_ex(r, "spans", NULL))
		fail_msg("chromium: %s", body);
	doc = json_object_from_file(path);
	assert_int_equal(json_object_get_int64(get(r, "events")),
			 json_object_array_length(get(doc, "traceEvents")));
	assert_int_equal(json_object_get_int64(get(r, "spans")), s.rules.spans);
	json_object_put(doc);
	json_object_put(r);
	free(text);
}

/* Bad input: exit 2 and nothing made. */
static void test_bad_input(void **state)
{
	const char *bin = run_prog_bin();
	const char *bad[][2] = {{"--timeline=0", NULL},
				{"--timeline=x", NULL},
				{"--timeline", "--no-trace"}};
	char o[PATH_MAX];
	int status;

	(void)state;
	snprintf(o, sizeof(o), "%s/bad", tmp);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pid_t pid = fork();

		if (pid == 0) {
			freopen("/dev/null", "w", stderr);
			execl(bin, bin, "run", "--output", o, bad[i][0],
			      bad[i][1], NULL);
			_exit(98);
		}
		waitpid(pid, &status, 0);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 2);
		assert_int_not_equal(access(o, F_OK), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_fscrypt),
		cmocka_unit_test(test_chromium_parses),
		cmocka_unit_test(test_bad_input),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
