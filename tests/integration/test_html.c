// SPDX-License-Identifier: MIT
/*
 * report.html in a real browser: a real traced run with --html, then
 * Debian's chromium, headless and offline (every request goes to a dead
 * proxy), opens it. A copy of the page carries an observer script ahead
 * of everything else: it records console errors, uncaught exceptions and
 * failed loads, waits for the charts, then reports how many canvases
 * there are, how many are blank, and the verdict text the page shows.
 * The screenshot is of the page itself, saved for a person to look at
 * (build/tests/report-screenshot.png, or $ENCBENCH_SCREENSHOT).
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "chromium.h"
#include "file_text.h"
#include "run_prog.h"

static char tmp[] = "/var/tmp/encbench-html.XXXXXX";
static char out[PATH_MAX];
static const char *bin;
static struct json_object *results, *check; /* check: what the observer saw */

static const char observer[] =
	"<script>\n"
	"window.__errors = [];\n"
	"const __err = console.error;\n"
	"console.error = function (...a) {\n"
	"  window.__errors.push(a.join(' ')); __err.apply(console, a); };\n"
	"window.addEventListener('error', e => window.__errors.push(\n"
	"  e.message || ('failed to load ' + (e.target.src || e.target.href))),"
	" true);\n"
	"window.addEventListener('unhandledrejection', e =>\n"
	"  window.__errors.push('rejection: ' + e.reason));\n"
	"function __blank(c) {\n"
	"  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height)"
	".data;\n"
	"  for (let i = 3; i < d.length; i += 4) if (d[i]) return false;\n"
	"  return true; }\n"
	"function __report(waited) {\n"
	"  const cs = [...document.querySelectorAll('canvas')];\n"
	"  const r = document.createElement('pre');\n"
	"  r.id = 'encbench-check';\n"
	"  r.textContent = JSON.stringify({done: "
	"document.body.dataset.chartsDone === 'yes', waited,\n"
	"    canvases: cs.length, blank: cs.filter(__blank).length,\n"
	"    errors: window.__errors,\n"
	"    verdicts: [...document.querySelectorAll('#verdicts .summary')]\n"
	"      .map(e => e.textContent)})\n"
	"    .replace(/[<>&]/g, c => '\\\\u00' + "
	"c.charCodeAt(0).toString(16));\n"
	"  document.body.appendChild(r); }\n"
	"window.addEventListener('load', () => {\n"
	"  let waited = 0;\n"
	"  (function poll() {\n"
	"    if (document.body.dataset.chartsDone === 'yes' || waited > 5000)\n"
	"      return __report(waited);\n"
	"    waited += 50; setTimeout(poll, 50); })(); });\n"
	"</script>\n";

static struct json_object *get(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, k, &v))
		fail_msg("missing \"%s\"", k);
	return v;
}

static int setup(void **state)
{
	char path[PATH_MAX], copy[PATH_MAX], dom[PATH_MAX];
	char *html, *head, *text;
	FILE *f;

	(void)state;
	bin = run_prog_bin();
	if (run_prog_begin(tmp))
		return -1;
	snprintf(out, sizeof(out), "%s/out", tmp);
	const char *argv[] = {bin,	"run",	    "--size", "16M",
			      "--runs", "3",	    "--html", "--scratch",
			      tmp,	"--output", out,      NULL};
	if (run_to(argv, NULL)) {
		fprintf(stderr, "# run --html failed\n");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/results.json", out);
	results = json_object_from_file(path);
	/* The observed copy: the observer first in <head>. */
	snprintf(path, sizeof(path), "%s/report.html", out);
	html = file_text(path);
	head = html ? strstr(html, "<head>") : NULL;
	if (!head)
		return -1;
	head += strlen("<head>");
	snprintf(copy, sizeof(copy), "%s/observed.html", tmp);
	f = fopen(copy, "w");
	if (!f)
		return -1;
	fwrite(html, 1, head - html, f);
	fputs(observer, f);
	fputs(head, f);
	fclose(f);
	free(html);
	snprintf(dom, sizeof(dom), "%s/dom.html", tmp);
	if (chromium(tmp, "--dump-dom", copy, dom))
		return -1;
	text = file_text(dom);
	head = text ? strstr(text, "<pre id=\"encbench-check\">") : NULL;
	if (head) {
		head = strchr(head, '>') + 1;
		*strstr(head, "</pre>") = '\0';
		/* The observer left no & < > for the dump to escape. */
		check = json_tokener_parse(head);
	}
	if (!check)
		fprintf(stderr, "# the observer reported nothing\n");
	free(text);
	return results && check ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	json_object_put(results);
	json_object_put(check);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	return system(cmd) ? -1 : 0;
}

static void test_no_console_errors(void **state)
{
	struct json_object *errors = get(check, "errors");

	(void)state;
	for (size_t i = 0; i < json_object_array_length(errors); i++)
		fprintf(stderr, "# console: %s\n",
			json_object_get_string(
				json_object_array_get_idx(errors, i)));
	assert_int_equal(json_object_array_length(errors), 0);
}

static void test_every_chart_drawn(void **state)
{
	(void)state;
	assert_true(json_object_get_boolean(get(check, "done")));
	/* dd: write_s and read_s compared and per iteration, one
	 * where-the-time-goes chart, and a histogram per traced layer. */
	assert_true(json_object_get_int(get(check, "canvases")) >= 8);
	assert_int_equal(json_object_get_int(get(check, "blank")), 0);
}

static void test_verdicts_shown(void **state)
{
	struct json_object *want = get(results, "verdicts");
	struct json_object *shown = get(check, "verdicts");

	(void)state;
	assert_true(json_object_array_length(want) >= 2);
	assert_int_equal(json_object_array_length(shown),
			 json_object_array_length(want));
	for (size_t i = 0; i < json_object_array_length(want); i++)
		assert_string_equal(
			json_object_get_string(
				json_object_array_get_idx(shown, i)),
			json_object_get_string(
				get(json_object_array_get_idx(want, i),
				    "summary")));
}

static void test_screenshot(void **state)
{
	const char *shot = getenv("ENCBENCH_SCREENSHOT")
				   ?: "build/tests/report-screenshot.png";
	char arg[PATH_MAX + 16], page[PATH_MAX];
	struct stat st;

	(void)state;
	unlink(shot);
	snprintf(arg, sizeof(arg), "--screenshot=%s", shot);
	snprintf(page, sizeof(page), "%s/report.html", out);
	assert_int_equal(chromium(tmp, arg, page, NULL), 0);
	assert_int_equal(stat(shot, &st), 0);
	/* A page of text and charts, not an empty canvas. */
	assert_true(st.st_size > 50000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_console_errors),
		cmocka_unit_test(test_every_chart_drawn),
		cmocka_unit_test(test_verdicts_shown),
		cmocka_unit_test(test_screenshot),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
