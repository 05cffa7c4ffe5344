// SPDX-License-Identifier: MIT
/*
 * The recorded stacks classified by their function names (analysis/
 * stacks.c): which frames of a sampled or waking stack say "crypto work",
 * and a snapshot's stacks counted into the wait counters. Links without
 * libbpf (Makefile: PURE_TESTS).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis.h"

/* Which frames of a sampled or waking stack say "crypto work". */
static void test_frames_in_crypt_by_context(void **state)
{
	/* Innermost first: cipher in an interrupt over other work. */
	const char *const in_irq[] = {"aes_encrypt", "asm_common_interrupt",
				      "ext4_file_read_iter"};
	/* An interrupt that caught the task inside the cipher. */
	const char *const under_irq[] = {"ext4_file_read_iter",
					 "asm_sysvec_apic_timer_interrupt",
					 "xts_crypt"};
	const char *const plain[] = {"aes_encrypt", "ext4_file_read_iter"};
	const char *const in_tracer[] = {"bpf_prog_0123_on_switch",
					 "fscrypt_encrypt_pagecache_blocks"};
	/* Prefixes, not substrings: "obj_exts" is no xts. */
	const char *const lookalike[] = {"__memcg_slab_obj_exts", "vfs_read"};
	bool under;
	(void)state;

	assert_true(frames_in_crypt(plain, 2, false, &under));
	assert_true(under);
	/* A sample counts the task's own frames. */
	assert_false(frames_in_crypt(in_irq, 3, false, &under));
	assert_true(under);
	assert_true(frames_in_crypt(under_irq, 3, false, &under));
	/* A wakeup counts the waking context's: the interrupt's. */
	assert_true(frames_in_crypt(in_irq, 3, true, &under));
	assert_false(frames_in_crypt(under_irq, 3, true, &under));
	assert_true(under);
	/* The tracer's program below the cipher is the tracer's time. */
	assert_false(frames_in_crypt(in_tracer, 2, false, &under));
	assert_true(under);
	assert_false(frames_in_crypt(lookalike, 2, false, &under));
	assert_false(under);
}

static void add_stack(struct snapshot *s, int op, int use, uint64_t v,
		      const char *const *frames, int n)
{
	struct snap_stack st = {.op = op, .use = use, .value = v};

	for (int i = 0; i < n; i++)
		st.frames[st.nr_frames++] = snapshot_sym(s, frames[i]);
	assert_int_equal(snapshot_add_stack(s, &st), 0);
}

/* A snapshot's stacks into the counters the wait split reads. */
static void test_counts_of_stacks(void **state)
{
	static struct snapshot s;
	struct wait_counts c;
	const char *const cipher[] = {"aes_decrypt", "fscrypt_decrypt_bio",
				      "process_one_work"};
	const char *const fs[] = {"ext4_mpage_readpages", "vfs_read"};
	const char *const wb[] = {"xts_encrypt", "wb_workfn"};
	(void)state;

	memset(&s, 0, sizeof(s));
	s.wait.available = true;
	s.wait.sampled = true;
	s.wait.sample_hz = 997;
	add_stack(&s, EB_OP_READ, STACK_ONCPU_SAMPLE, 30, cipher, 3);
	add_stack(&s, EB_OP_READ, STACK_ONCPU_SAMPLE, 70, fs, 2);
	add_stack(&s, EB_OP_READ, STACK_WAKER_NS, 5000, cipher, 3);
	add_stack(&s, EB_OP_READ, STACK_WAKER_NS, 7000, fs, 2);
	add_stack(&s, EB_OP_WRITE, STACK_WB_SAMPLE, 9, wb, 2);
	add_stack(&s, EB_OP_WRITE, STACK_ONCPU_SAMPLE, 4, NULL, 0);
	/* "process_one_work" and the others: one entry each. */
	assert_int_equal(s.wait.nr_syms, 7);
	wait_counts_of(&s, &c);
	assert_true(c.available);
	assert_int_equal(c.samples[EB_OP_READ], 100);
	assert_int_equal(c.crypt_samples[EB_OP_READ], 30);
	assert_int_equal(c.crypt_stack_samples[EB_OP_READ], 30);
	assert_int_equal(c.waker_crypt_ns[EB_OP_READ], 5000);
	assert_int_equal(c.wb_samples[EB_OP_WRITE], 9);
	assert_int_equal(c.wb_crypt_samples[EB_OP_WRITE], 9);
	/* A stack the kernel lost counts as a sample in no cipher. */
	assert_int_equal(c.samples[EB_OP_WRITE], 4);
	assert_int_equal(c.crypt_samples[EB_OP_WRITE], 0);
	assert_non_null(strstr(c.source, "997 Hz"));
	snapshot_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_in_crypt_by_context),
		cmocka_unit_test(test_counts_of_stacks),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
