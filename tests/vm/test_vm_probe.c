/*
 * Runs INSIDE the VM guest (scripts/vm/run, Debian 6.1/6.12 kernels), where
 * dm-crypt, eCryptfs, kprobes and fentry exist: `encbench-trace probe --json`
 * must see them, and must choose a richer attach point than tracepoints for
 * the crypt layer. On the build machine's own kernel these would fail.
 *
 * ENCBENCH_BIN overrides the program path (default ./encbench-trace, relative
 * to the project folder, which is the guest's working directory).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

struct probe {
	char *out;	   /* the program's stdout, NUL-terminated */
	int wstatus;	   /* from waitpid */
	json_object *root; /* NULL if stdout was not a JSON object */
	char why[256];	   /* why root is NULL */
};

/* Run BIN probe --json and collect its stdout; stderr passes through. */
static int run_probe(struct probe *p)
{
	const char *bin = getenv("ENCBENCH_BIN");
	int fds[2];
	size_t len = 0, cap = 4096;
	pid_t pid;

	if (!bin || !*bin)
		bin = "./encbench-trace";
	if (pipe(fds) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl(bin, bin, "probe", "--json", (char *)NULL);
		fprintf(stderr, "cannot exec %s: %s\n", bin, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	p->out = malloc(cap);
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap)
			p->out = realloc(p->out, cap *= 2);
		if (!p->out)
			abort();
		n = read(fds[0], p->out + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	p->out[len] = '\0';
	close(fds[0]);
	while (waitpid(pid, &p->wstatus, 0) < 0 && errno == EINTR)
		;
	return 0;
}

static int group_setup(void **state)
{
	struct probe *p = calloc(1, sizeof(*p));
	enum json_tokener_error err;

	if (!p)
		return -1;
	*state = p;
	/* Failures are reported by the tests, so each one says why it failed.
	 */
	if (run_probe(p) < 0) {
		snprintf(p->why, sizeof(p->why), "cannot start the probe: %s",
			 strerror(errno));
		return 0;
	}
	p->root = json_tokener_parse_verbose(p->out, &err);
	if (!p->root) {
		snprintf(p->why, sizeof(p->why), "stdout is not JSON: %s",
			 json_tokener_error_desc(err));
	} else if (!json_object_is_type(p->root, json_type_object)) {
		snprintf(p->why, sizeof(p->why),
			 "stdout is JSON but not an object");
		json_object_put(p->root);
		p->root = NULL;
	}
	return 0;
}

static int group_teardown(void **state)
{
	struct probe *p = *state;

	if (p) {
		json_object_put(p->root);
		free(p->out);
		free(p);
	}
	return 0;
}

/* The parsed output, or fail the current test saying why there is none. */
static json_object *root_of(void **state)
{
	struct probe *p = *state;

	if (!p->root)
		fail_msg("%s", p->why);
	return p->root;
}

/* Follow a dotted path ("attach.fentry.ok"); NULL if any step is missing. */
static json_object *lookup(json_object *obj, const char *path)
{
	char buf[128], *key, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (key = strtok_r(buf, ".", &save); key && obj;
	     key = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(obj, key, &obj))
			return NULL;
	return obj;
}

/* Assert that SECTION.ok is true; on failure show SECTION.detail. */
static void assert_section_ok(void **state, const char *section)
{
	json_object *sec = lookup(root_of(state), section);
	json_object *ok = lookup(sec, "ok"), *detail = lookup(sec, "detail");

	if (!sec)
		fail_msg("%s: missing from the probe output", section);
	if (!ok || !json_object_is_type(ok, json_type_boolean))
		fail_msg("%s.ok: missing or not a boolean", section);
	if (!json_object_get_boolean(ok))
		fail_msg("%s.ok is false (detail: %s)", section,
			 detail ? json_object_get_string(detail) : "none");
}

static void test_probe_ran(void **state)
{
	struct probe *p = *state;

	if (!WIFEXITED(p->wstatus) || !p->root)
		print_error("probe stdout was:\n%s\n",
			    p->out && *p->out ? p->out : "(empty)");
	if (!WIFEXITED(p->wstatus))
		fail_msg("probe did not exit normally (wait status 0x%x)",
			 p->wstatus);
	root_of(state);
}

static void test_kernel_is_the_guests(void **state)
{
	json_object *k = lookup(root_of(state), "kernel");
	struct utsname u;

	assert_int_equal(uname(&u), 0);
	if (!k || !json_object_is_type(k, json_type_string))
		fail_msg("kernel: missing or not a string");
	assert_string_equal(json_object_get_string(k), u.release);
}

static void test_btf(void **state)
{
	assert_section_ok(state, "btf");
}
static void test_attach_tp_btf(void **state)
{
	assert_section_ok(state, "attach.tp_btf");
}
static void test_attach_fentry(void **state)
{
	assert_section_ok(state, "attach.fentry");
}
static void test_attach_kprobe(void **state)
{
	assert_section_ok(state, "attach.kprobe");
}
static void test_storage_dm_crypt(void **state)
{
	assert_section_ok(state, "storage.dm_crypt");
}
static void test_storage_ecryptfs(void **state)
{
	assert_section_ok(state, "storage.ecryptfs");
}

/* With fentry/kprobes available the crypt layer must not settle for the
 * workqueue-tracepoint fallback. */
static void assert_rich_source(void **state, const char *layer)
{
	char key[64];
	json_object *src;
	const char *s;

	snprintf(key, sizeof(key), "layer_sources.%s", layer);
	src = lookup(root_of(state), key);
	if (!src || !json_object_is_type(src, json_type_string))
		fail_msg("%s: missing or not a string", key);
	s = json_object_get_string(src);
	if (!strstr(s, "fentry:") && !strstr(s, "kprobe:"))
		fail_msg("%s is \"%s\": no fentry: or kprobe: source", key, s);
}

static void test_crypt_layer_uses_rich_attach(void **state)
{
	assert_rich_source(state, "crypt");
}

/* dm_crypt is loaded in the guest: the hand-off to its write thread is
 * seen, which no tracepoint could. */
static void test_dmcrypt_write_planned(void **state)
{
	assert_rich_source(state, "dmcrypt-write");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_ran),
		cmocka_unit_test(test_kernel_is_the_guests),
		cmocka_unit_test(test_btf),
		cmocka_unit_test(test_attach_tp_btf),
		cmocka_unit_test(test_attach_fentry),
		cmocka_unit_test(test_attach_kprobe),
		cmocka_unit_test(test_storage_dm_crypt),
		cmocka_unit_test(test_storage_ecryptfs),
		cmocka_unit_test(test_crypt_layer_uses_rich_attach),
		cmocka_unit_test(test_dmcrypt_write_planned),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
