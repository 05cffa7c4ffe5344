// SPDX-License-Identifier: MIT
/*
 * Runs INSIDE the VM guest, where fentry works: the write-side `crypt`
 * that CPU samples give (the only measure of it on a kernel without fentry
 * or kprobes, such as the build machine's) agrees with fentry's time in
 * fscrypt_encrypt_pagecache_blocks for the same writes in the same run.
 *
 * Both must see the same work. fentry times every thread that encrypts for
 * the target; the samples see the workload's own syscalls. dd on fscrypt
 * is buffered (O_DIRECT falls back to the page cache) and its fsync writes
 * the file back, encrypting it in the caller -- as long as no flusher
 * starts first. ext4 starts one when its free space falls under twice the
 * delayed-allocation data (ext4_nonda_switch): 32M per iteration in the
 * 104 MiB file system `run` makes for it stays clear of that; the default
 * 64M in 144 MiB does not (measured: most pages were then encrypted by the
 * flusher, which the samples do not see).
 *
 * fentry times the wall time in the function, the samples the time on a
 * CPU in crypto code. Between the two lie the time the caller was
 * preempted while encrypting (at most its cpu-wait in those syscalls) and
 * the tracer's own programs, which run inside the function (fentry's
 * interval holds part of them; `crypt` leaves them out). So `crypt` from
 * the samples must not exceed fentry, and the on-CPU time of every sample
 * with a crypto function anywhere on its stack (crypt_stack_samples, the
 * tracer under it included) must reach fentry minus the cpu-wait: each
 * within three times the sampling error. Crypt on a CPU is estimated from
 * n samples, a Poisson-like count whose relative error is about
 * 1/sqrt(n); at least 400 samples make the tolerance 15 % or less.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "../results_json.h"
#include "vm_run.h"

#define MIN_CRYPT_SAMPLES 400

static char tmp[] = "/var/tmp/encbench-vmsamples.XXXXXX";
static json_object *results;

static int setup(void **state)
{
	char out[sizeof(tmp) + 16];
	const char *const args[] = {
		"--targets", "fscrypt",	 "--workloads", "dd",	   "--size",
		"32M",	     "--runs",	 "3",		"--quiet", "--scratch",
		tmp,	     "--output", out,		NULL};

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

static uint64_t u64(json_object *o, const char *k)
{
	return json_object_get_uint64(get(o, k));
}

static void test_sampled_crypt_agrees_with_fentry(void **state)
{
	/* The ops in whose syscalls dd's data is encrypted. */
	static const char *const ops[] = {"write", "sync"};
	json_object *enc = layer_of(results, "fscrypt", "write", "crypt");
	double fentry_s = u64(enc, "sum_ns") / 1e9, sampled_s = 0, tol;
	double runnable_s = 0, stack_s = 0;
	uint64_t n = 0, all = 0, n_stack = 0;

	(void)state;
	assert_non_null(strstr(json_object_get_string(get(enc, "source")),
			       "fentry:fscrypt_encrypt_pagecache_blocks"));
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		json_object *w =
			get(attrib_of(results, "fscrypt", ops[i]), "wait");

		sampled_s += u64(w, "oncpu_crypt_ns") / 1e9;
		if (u64(w, "samples"))
			stack_s += u64(w, "oncpu_ns") / 1e9 *
				   (double)u64(w, "crypt_stack_samples") /
				   (double)u64(w, "samples");
		n_stack += u64(w, "crypt_stack_samples");
		n += u64(w, "crypt_samples");
		runnable_s += u64(get(w, "ns"), "cpu-wait") / 1e9;
		all += u64(w, "samples");
	}
	tol = n ? 3.0 / sqrt((double)n) : 1.0;
	fprintf(stderr,
		"# write-side crypt: fentry %.3f s (%llu calls), CPU samples "
		"%.3f s (%llu of %llu samples in crypto code): %+.1f %%, "
		"tolerance %.1f %%; the callers were runnable %.3f s; "
		"crypto on the stack %.3f s (%llu samples)\n",
		fentry_s, (unsigned long long)u64(enc, "count"), sampled_s,
		(unsigned long long)n, (unsigned long long)all,
		fentry_s > 0 ? 100.0 * (sampled_s / fentry_s - 1.0) : 0.0,
		100.0 * tol, runnable_s, stack_s, (unsigned long long)n_stack);
	/* 3 x 32 MiB in 4 KiB pages, each encrypted once. */
	assert_int_equal(u64(enc, "count"), 3 * (32 << 20) / 4096);
	if (n < MIN_CRYPT_SAMPLES)
		fail_msg("%llu crypt samples: too few for a bound of 15 %%",
			 (unsigned long long)n);
	assert_true(sampled_s <= fentry_s * (1 + tol));
	assert_true(stack_s >= (fentry_s - runnable_s) *
				       (1 - 3.0 / sqrt((double)n_stack)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sampled_crypt_agrees_with_fentry),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
