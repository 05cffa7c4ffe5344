// SPDX-License-Identifier: MIT
/*
 * report.html's escaping: names and sentences from the model that try to
 * end a script element, open a tag or break an attribute come out as
 * text, and the embedded JSON data still parses back to the same strings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "report/report.h"
#include "results_fixture.h"

#define EVIL	     "x</script><b>\"q'&amp;"
#define EVIL_ESCAPED "x&lt;/script&gt;&lt;b&gt;&quot;q&#39;&amp;amp;"
#define DATA_OPEN    "<script type=\"application/json\" id=\"encbench-data\">"

static char dir[] = "/tmp/encbench-html-XXXXXX";
static char *page;

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static int setup(void **state)
{
	struct results *r = fixture_results();
	const struct results *runs[1] = {r};
	char path[128];
	FILE *f;
	long len;

	(void)state;
	if (!r || !mkdtemp(dir))
		return -1;
	snprintf(r->targets[1].name, NAME_LEN, "%s", EVIL);
	snprintf(r->verdicts[0].target, NAME_LEN, "%s", EVIL);
	snprintf(r->verdicts[0].summary, sizeof(r->verdicts[0].summary),
		 "ends </SCRIPT> early <!-- and -->");
	snprintf(r->meta.hostname, NAME_LEN, "bell\a\x1b[31mred");
	if (report_write_html(runs, 1, dir))
		return -1;
	free(r);
	snprintf(path, sizeof(path), "%s/report.html", dir);
	f = fopen(path, "r");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0)
		return -1;
	rewind(f);
	page = calloc(1, len + 1);
	if (!page || fread(page, 1, len, f) != (size_t)len)
		return -1;
	fclose(f);
	unlink(path);
	return rmdir(dir);
}

static int teardown(void **state)
{
	(void)state;
	free(page);
	return 0;
}

static void test_text_is_escaped(void **state)
{
	(void)state;
	/* The name shows, as text, in the verdicts and the target table. */
	assert_true(count(page, EVIL_ESCAPED) >= 2);
	assert_null(strstr(page, "<b>\"q"));
	assert_non_null(strstr(page, "ends &lt;/SCRIPT&gt; early &lt;!-- "
				     "and --&gt;"));
	assert_null(strstr(page, "<!--"));
	/* Control characters never reach the page (title and header). */
	assert_null(strchr(page, '\x1b'));
	assert_null(strchr(page, '\a'));
	assert_true(count(page, "bell&#xFFFD;&#xFFFD;[31mred") >= 2);
}

static void test_scripts_stay_closed(void **state)
{
	(void)state;
	/* Every script element ends where the writer ended it: as many
	 * closing tags as opening ones, in any case. */
	assert_int_equal(count(page, "<script"), count(page, "</script>"));
	assert_null(strstr(page, "</SCRIPT>"));
	assert_non_null(strstr(page, "x\\u003c/script\\u003e\\u003cb\\u003e"));
}

static void test_data_parses_back(void **state)
{
	const char *start = strstr(page, DATA_OPEN);
	struct json_object *docs, *doc, *targets, *name, *verdicts, *summary;
	char *text;
	size_t len;

	(void)state;
	assert_non_null(start);
	start += strlen(DATA_OPEN);
	len = strstr(start, "</script>") - start;
	text = strndup(start, len);
	docs = json_tokener_parse(text);
	free(text);
	assert_non_null(docs);
	assert_int_equal(json_object_array_length(docs), 1);
	doc = json_object_array_get_idx(docs, 0);
	assert_true(json_object_object_get_ex(doc, "targets", &targets));
	assert_true(json_object_object_get_ex(
		json_object_array_get_idx(targets, 1), "name", &name));
	assert_string_equal(json_object_get_string(name), EVIL);
	assert_true(json_object_object_get_ex(doc, "verdicts", &verdicts));
	assert_true(json_object_object_get_ex(
		json_object_array_get_idx(verdicts, 0), "summary", &summary));
	assert_string_equal(json_object_get_string(summary),
			    "ends </SCRIPT> early <!-- and -->");
	json_object_put(docs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_is_escaped),
		cmocka_unit_test(test_scripts_stay_closed),
		cmocka_unit_test(test_data_parses_back),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
