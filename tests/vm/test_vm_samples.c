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
 * room `run` makes by default (five times the data plus 256 MiB, since
 * 16d480d) stays far clear of that, and of the guest's background
 * writeback threshold (a tenth of its 2 GiB).
 *
 * Only the traced iterations (--trace-runs, 2 by default; since 5b3a381
 * the --runs ones run untraced) are seen: the count of calls each
 * encrypting every page of its file once is per traced iteration, as
 * many as results.json records.
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
 *
 * The second case is 64M in the near-full room of 144 MiB that `run` gave
 * before 16d480d (--room 144M, as test_wait's near-full run), where the
 * flusher starts first (ext4_nonda_switch) and encrypts most of the file
 * in a kworker (wb_workfn); the default room never starts it before dd's
 * fsync, whose caller then encrypts everything (the writeback workers had
 * no sample at all there): its samples in cipher code (the results'
 * wait.writeback_workers of the write op) add to the callers', and the
 * same two bounds must hold for the sum, with n the callers' and the
 * workers' crypt samples together. fentry's time there also holds the
 * flusher's preemption: the workers' runnable time while writing the
 * target back (wait.writeback_workers.runq_ns) counts as the callers'
 * cpu-wait does.
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
/* The size of each case's dd. */
#define SIZE	     (32 << 20)
#define FLUSHER_SIZE (64 << 20)

static char tmp[] = "/var/tmp/encbench-vmsamples.XXXXXX";
static char tmp_flusher[] = "/var/tmp/encbench-vmflusher.XXXXXX";
static json_object *results, *results_flusher;

static int setup(void **state)
{
	char out[sizeof(tmp) + 16], out_f[sizeof(tmp_flusher) + 16];
	/* Three traced iterations, as many as the --runs 3 of before
	 * 5b3a381 traced (the samples' count), one untraced. */
	const char *const args[] = {"--targets", "fscrypt",  "--workloads",
				    "dd",	 "--size",   "32M",
				    "--runs",	 "1",	     "--trace-runs",
				    "3",	 "--quiet",  "--scratch",
				    tmp,	 "--output", out,
				    NULL};
	/* The near-full room: the flusher starts before the fsync. */
	const char *const args_f[] = {
		"--targets", "fscrypt",	  "--workloads",  "dd",
		"--size",    "64M",	  "--room",	  "144M",
		"--runs",    "1",	  "--trace-runs", "2",
		"--quiet",   "--scratch", tmp_flusher,	  "--output",
		out_f,	     NULL};

	(void)state;
	results = vm_run_in(tmp, out, sizeof(out), args);
	if (!results)
		return -1;
	results_flusher = vm_run_in(tmp_flusher, out_f, sizeof(out_f), args_f);
	return results_flusher ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	json_object_put(results);
	json_object_put(results_flusher);
	return vm_remove(tmp) | vm_remove(tmp_flusher);
}

static uint64_t u64(json_object *o, const char *k)
{
	return json_object_get_uint64(get(o, k));
}

/* The sampled write-side crypt of one run, callers and writeback
 * workers, against fentry's. */
struct sampled {
	double fentry_s;
	uint64_t calls;
	double crypt_s, stack_s, runnable_s;
	uint64_t n, n_stack, all;
	double wb_s; /* the writeback workers' part of crypt_s */
	uint64_t wb_n, wb_all;
};

/* The iterations of dd on fscrypt that ran traced, as results.json
 * records them: the only ones the layers count. */
static uint64_t traced_iterations(json_object *doc)
{
	json_object *r = result_of(doc, "fscrypt", "dd", "write_s");

	return json_object_array_length(get(r, "traced_iterations"));
}

static void sampled_of(json_object *doc, struct sampled *x)
{
	/* The ops in whose syscalls dd's data is encrypted. */
	static const char *const ops[] = {"write", "sync"};
	json_object *enc = layer_of(doc, "fscrypt", "write", "crypt");
	json_object *wb;

	memset(x, 0, sizeof(*x));
	assert_non_null(strstr(json_object_get_string(get(enc, "source")),
			       "fentry:fscrypt_encrypt_pagecache_blocks"));
	x->fentry_s = u64(enc, "sum_ns") / 1e9;
	x->calls = u64(enc, "count");
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		json_object *w = get(attrib_of(doc, "fscrypt", ops[i]), "wait");

		x->crypt_s += u64(w, "oncpu_crypt_ns") / 1e9;
		if (u64(w, "samples"))
			x->stack_s += u64(w, "oncpu_ns") / 1e9 *
				      (double)u64(w, "crypt_stack_samples") /
				      (double)u64(w, "samples");
		x->n_stack += u64(w, "crypt_stack_samples");
		x->n += u64(w, "crypt_samples");
		x->runnable_s += u64(get(w, "ns"), "cpu-wait") / 1e9;
		x->all += u64(w, "samples");
	}
	wb = get(get(attrib_of(doc, "fscrypt", "write"), "wait"),
		 "writeback_workers");
	x->wb_s = u64(wb, "crypt_ns") / 1e9;
	x->wb_n = u64(wb, "crypt_samples");
	x->wb_all = u64(wb, "samples");
	x->crypt_s += x->wb_s;
	x->n += x->wb_n;
	if (x->wb_all)
		x->stack_s += u64(wb, "oncpu_ns") / 1e9 *
			      (double)u64(wb, "crypt_stack_samples") /
			      (double)x->wb_all;
	x->n_stack += u64(wb, "crypt_stack_samples");
	/* Preempted while encrypting: in fentry's time, not on a CPU. */
	x->runnable_s += u64(wb, "runq_ns") / 1e9;
}

/* Both bounds, each within three times the sampling error. */
static void assert_agrees(const char *what, const struct sampled *x)
{
	double tol = x->n ? 3.0 / sqrt((double)x->n) : 1.0;

	fprintf(stderr,
		"# %s: fentry %.3f s (%llu calls), CPU samples %.3f s (%llu "
		"of %llu samples in crypto code; writeback workers %.3f s, "
		"%llu of %llu): %+.1f %%, tolerance %.1f %%; runnable (callers "
		"and workers) %.3f s; crypto on the stack %.3f s (%llu "
		"samples)\n",
		what, x->fentry_s, (unsigned long long)x->calls, x->crypt_s,
		(unsigned long long)x->n,
		(unsigned long long)x->all + x->wb_all, x->wb_s,
		(unsigned long long)x->wb_n, (unsigned long long)x->wb_all,
		x->fentry_s > 0 ? 100.0 * (x->crypt_s / x->fentry_s - 1.0)
				: 0.0,
		100.0 * tol, x->runnable_s, x->stack_s,
		(unsigned long long)x->n_stack);
	if (x->n < MIN_CRYPT_SAMPLES)
		fail_msg("%llu crypt samples: too few for a bound of 15 %%",
			 (unsigned long long)x->n);
	assert_true(x->crypt_s <= x->fentry_s * (1 + tol));
	assert_true(x->stack_s >= (x->fentry_s - x->runnable_s) *
					  (1 - 3.0 / sqrt((double)x->n_stack)));
}

static void test_sampled_crypt_agrees_with_fentry(void **state)
{
	struct sampled x;

	(void)state;
	sampled_of(results, &x);
	/* 32 MiB per traced iteration in 4 KiB pages, each encrypted
	 * once. */
	assert_true(traced_iterations(results) > 0);
	assert_int_equal(x.calls, traced_iterations(results) * SIZE / 4096);
	assert_agrees("write-side crypt", &x);
}

/* The default size: the flusher encrypts most pages, the samples of the
 * writeback workers must make up for what the callers' miss. */
static void test_flusher_crypt_agrees_with_fentry(void **state)
{
	struct sampled x;

	(void)state;
	sampled_of(results_flusher, &x);
	assert_true(traced_iterations(results_flusher) > 0);
	assert_int_equal(x.calls, traced_iterations(results_flusher) *
					  FLUSHER_SIZE / 4096);
	assert_agrees("write-side crypt, flusher", &x);
	/* What this case is for: most of it in the writeback workers. */
	if (x.wb_s * 2 < x.crypt_s)
		fail_msg("the writeback workers did %.3f s of %.3f s: the "
			 "flusher did not do most of the encryption",
			 x.wb_s, x.crypt_s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sampled_crypt_agrees_with_fentry),
		cmocka_unit_test(test_flusher_crypt_agrees_with_fentry),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
