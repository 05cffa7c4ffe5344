// SPDX-License-Identifier: MIT
/*
 * Runs INSIDE the VM guest (Debian 6.1/6.12 kernels, fentry and kprobes
 * work, AES-NI exposed by -cpu max): a real `run` of plain, luks2,
 * fscrypt and ecryptfs must pick the richer attach point for write-side
 * encryption, record it as the layer's source, and measure crypto time for
 * writes — which the build machine's kernel cannot. Throughput under TCG is
 * meaningless; only the shape of the attribution is checked.
 */
#include <setjmp.h>
#include <stdbool.h>
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

#include "../results_json.h"
#include "vm_run.h"
#include "../trace_event_check.h"

static char tmp[] = "/var/tmp/encbench-vmrun.XXXXXX";
static char out[sizeof(tmp) + 16];
static json_object *results;

static int setup(void **state)
{
	const char *const args[] = {"--size",
				    "8M",
				    "--runs",
				    "1",
				    "--quiet",
				    "--targets",
				    "plain,luks2,fscrypt,ecryptfs",
				    "--timeline=60",
				    "--scratch",
				    tmp,
				    "--output",
				    out,
				    NULL};

	(void)state;
	results = vm_run_in(tmp, out, sizeof(out), args);
	return results ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	json_object_put(results);
	return vm_remove(tmp);
}

/* Write-side fscrypt encryption is timed by fentry (or kprobe) here. */
static void test_write_crypt_source(void **state)
{
	json_object *crypt = layer_of(results, "fscrypt", "write", "crypt");
	const char *src = json_object_get_string(get(crypt, "source"));

	(void)state;
	if (!strstr(src, "fentry:") && !strstr(src, "kprobe:"))
		fail_msg("crypt source '%s' names neither fentry nor kprobe",
			 src);
	assert_true(json_object_get_boolean(get(crypt, "available")));
	assert_true(json_object_get_int64(get(crypt, "count")) > 0);
	assert_true(json_object_get_int64(get(crypt, "sum_ns")) > 0);
}

/* Reads still come from the workqueue tracepoints; plain has no crypto.
 * ext4 is a module here: the tracer must find its decrypt work's context
 * in module BTF, or fscrypt work would count on every device. */
static void test_read_crypt(void **state)
{
	const char *src = json_object_get_string(get(
		layer_of(results, "fscrypt", "read", "crypt-queue"), "source"));

	(void)state;
	if (strstr(src, "not filtered"))
		fail_msg("crypt-queue source '%s'", src);
	assert_true(json_object_get_int64(
			    get(layer_of(results, "fscrypt", "read", "crypt"),
				"count")) > 0);
	assert_int_equal(
		json_object_get_int64(get(
			layer_of(results, "plain", "write", "crypt"), "count")),
		0);
}

/* -cpu max exposes AES-NI: the driver must be recognised as hardware. */
static void test_hw_driver(void **state)
{
	json_object *targets = get(results, "targets");
	(void)state;

	for (size_t i = 0; i < json_object_array_length(targets); i++) {
		json_object *t = json_object_array_get_idx(targets, i);
		json_object *enc;

		if (strcmp(json_object_get_string(get(t, "kind")), "fscrypt"))
			continue;
		enc = get(t, "encryption");
		if (!strstr(json_object_get_string(get(enc, "driver")),
			    "aesni"))
			fail_msg("driver %s is not aesni",
				 json_object_get_string(get(enc, "driver")));
		assert_true(json_object_get_boolean(get(enc, "hw_accel")));
		return;
	}
	fail_msg("no fscrypt target");
}

/* LUKS2 built by libcryptsetup: described as the active table says. */
static void test_luks2_described(void **state)
{
	json_object *targets = get(results, "targets");

	(void)state;
	for (size_t i = 0; i < json_object_array_length(targets); i++) {
		json_object *t = json_object_array_get_idx(targets, i);
		json_object *enc;

		if (strcmp(json_object_get_string(get(t, "kind")), "luks2"))
			continue;
		enc = get(t, "encryption");
		assert_string_equal(json_object_get_string(get(enc, "flags")),
				    "none");
		assert_string_equal(json_object_get_string(get(enc, "scheme")),
				    "LUKS2 dm-crypt");
		assert_true(
			json_object_get_boolean(get(t, "verified_encrypted")));
		assert_int_equal(json_object_array_length(get(t, "devices")),
				 2);
		return;
	}
	fail_msg("no luks2 target");
}

/* Crypto work spans of target's timeline with this name. */
static int crypt_spans(const char *target, const char *name)
{
	char path[sizeof(out) + 64];
	json_object *doc, *events;
	int n = 0;

	snprintf(path, sizeof(path), "%s/timeline-%s-dd.json", out, target);
	doc = json_object_from_file(path);
	if (!doc)
		fail_msg("%s: missing or not JSON", path);
	events = get(doc, "traceEvents");
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		json_object *e = json_object_array_get_idx(events, i), *cat;

		if (json_object_object_get_ex(e, "cat", &cat) &&
		    !strcmp(json_object_get_string(cat), "crypt") &&
		    !strcmp(json_object_get_string(get(e, "name")), name))
			n++;
	}
	json_object_put(doc);
	return n;
}

/* --timeline loads on this kernel and shows each target's own crypto
 * work: kcryptd's on LUKS2, fscrypt's decrypt work, none on plain. */
static void test_timeline_crypt_work(void **state)
{
	(void)state;
	assert_true(crypt_spans("luks2", "dm-crypt") > 0);
	assert_true(crypt_spans("fscrypt", "fscrypt decrypt") > 0);
	assert_int_equal(crypt_spans("plain", "dm-crypt") +
				 crypt_spans("plain", "fscrypt decrypt"),
			 0);
}

/* Each target's timeline keeps Perfetto's and catapult's rules
 * (trace_event_check.h) here too, where luks2 has two devices (dm and
 * loop) and kcryptd's kworkers, whose tids are small in a guest. */
static void test_timeline_rules(void **state)
{
	/* ecryptfs: dd does not apply (no O_DIRECT), so no timeline. */
	static const char *const targets[] = {"plain", "luks2", "fscrypt"};
	char path[sizeof(out) + 64], why[256];
	struct te_summary sum;

	(void)state;
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		snprintf(path, sizeof(path), "%s/timeline-%s-dd.json", out,
			 targets[i]);
		if (te_check(path, &sum, why, sizeof(why)))
			fail_msg("%s: %s", targets[i], why);
		assert_true(sum.spans > 0);
	}
}

static int64_t count_of(const char *target, const char *op, const char *layer)
{
	return json_object_get_int64(
		get(layer_of(results, target, op, layer), "count"));
}

/* dm-crypt's kcryptd work items, both ways, and the bio on the dm
 * device with its histogram. */
static void test_luks2_attribution(void **state)
{
	static const char *const ops[] = {"read", "write"};

	(void)state;
	for (int i = 0; i < 2; i++) {
		json_object *dm = layer_of(results, "luks2", ops[i], "dm");

		if (count_of("luks2", ops[i], "crypt-queue") <= 0 ||
		    count_of("luks2", ops[i], "crypt") <= 0)
			fail_msg("luks2 %s: crypt-queue %lld, crypt %lld",
				 ops[i],
				 (long long)count_of("luks2", ops[i],
						     "crypt-queue"),
				 (long long)count_of("luks2", ops[i], "crypt"));
		assert_true(json_object_get_boolean(get(dm, "available")));
		assert_true(count_of("luks2", ops[i], "dm") > 0);
		assert_true(json_object_array_length(
				    get(get(dm, "hist"), "slots")) > 0);
	}
	/* No dm device under plain or fscrypt. */
	assert_false(json_object_get_boolean(
		get(layer_of(results, "plain", "read", "dm"), "available")));
}

/* Sum of a layer's histogram slots. */
static int64_t hist_total(json_object *layer)
{
	json_object *slots = get(get(layer, "hist"), "slots");
	int64_t n = 0;

	for (size_t i = 0; i < json_object_array_length(slots); i++)
		n += json_object_get_int64(json_object_array_get_idx(slots, i));
	return n;
}

/* Encrypted writes wait for dm-crypt's write thread: a stage of its own,
 * timed per clone by fentry (or kprobe) at the hand-off and the clone's
 * queueing below; reads never go through it. The thread's own run-queue
 * wait is reported, and an O_DIRECT writer's blocked time is split into
 * the stage rather than lumped into dm. */
static void test_luks2_write_thread(void **state)
{
	json_object *w = layer_of(results, "luks2", "write", "dmcrypt-write");
	json_object *r = layer_of(results, "luks2", "read", "dmcrypt-write");
	json_object *wait = get(attrib_of(results, "luks2", "write"), "wait");
	json_object *thread = get(get(wait, "workers"), "dmcrypt-write");
	int64_t count = json_object_get_int64(get(w, "count"));
	const char *src = json_object_get_string(get(w, "source"));

	(void)state;
	if (count <= 0 || !json_object_get_boolean(get(w, "available")))
		fail_msg("luks2 write dmcrypt-write: count %lld, state %s (%s)",
			 (long long)count,
			 json_object_get_string(get(w, "state")), src);
	assert_true(strstr(src, "fentry:kcryptd_crypt_write_io_submit") ||
		    strstr(src, "kprobe:kcryptd_crypt_write_io_submit"));
	assert_int_equal(hist_total(w), count);
	assert_true(json_object_get_int64(get(w, "mean_ns")) > 0);
	/* The thread submits writes only, each clone counted once as an
	 * item of the thread and once in the stage. */
	fprintf(stderr, "# dmcrypt-write: %lld clones, thread items %lld\n",
		(long long)count,
		(long long)json_object_get_int64(get(thread, "items")));
	assert_string_equal(json_object_get_string(get(r, "state")),
			    "not applicable");
	assert_true(json_object_get_int64(get(thread, "items")) >= count);
	assert_true(json_object_get_int64(get(thread, "runq_waits")) > 0);
	assert_true(json_object_get_int64(
			    get(get(wait, "ns"), "dmcrypt-write")) > 0);
	/* No dm-crypt under plain. */
	assert_string_equal(
		json_object_get_string(get(
			layer_of(results, "plain", "write", "dmcrypt-write"),
			"state")),
		"not applicable");
}

/* eCryptfs: built without a helper, verified, and dd (O_DIRECT) is
 * "not applicable" on it rather than failed. */
static void test_ecryptfs(void **state)
{
	json_object *targets = get(results, "targets");

	(void)state;
	for (size_t i = 0; i < json_object_array_length(targets); i++) {
		json_object *t = json_object_array_get_idx(targets, i);
		json_object *notes;
		bool na = false;

		if (strcmp(json_object_get_string(get(t, "kind")), "ecryptfs"))
			continue;
		assert_true(
			json_object_get_boolean(get(t, "verified_encrypted")));
		assert_string_equal(json_object_get_string(get(t, "fs")),
				    "ecryptfs");
		notes = get(t, "notes");
		for (size_t j = 0; j < json_object_array_length(notes); j++)
			na |= strstr(json_object_get_string(
					     json_object_array_get_idx(notes,
								       j)),
				     "not applicable: eCryptfs has no "
				     "O_DIRECT") != NULL;
		assert_true(na);
		return;
	}
	fail_msg("no ecryptfs target");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_crypt_source),
		cmocka_unit_test(test_read_crypt),
		cmocka_unit_test(test_hw_driver),
		cmocka_unit_test(test_luks2_described),
		cmocka_unit_test(test_timeline_crypt_work),
		cmocka_unit_test(test_timeline_rules),
		cmocka_unit_test(test_luks2_attribution),
		cmocka_unit_test(test_luks2_write_thread),
		cmocka_unit_test(test_ecryptfs),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
