// SPDX-License-Identifier: MIT
/*
 * Where a crypto work item leads to its device, read from hand-built BTF:
 * the context struct a work item is embedded in, found by name among
 * namesakes (ext4's and f2fs's struct bio_post_read_ctx), under an older
 * name, or through an anonymous union (blk-crypto's); and a reason when
 * it cannot be told.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <bpf/btf.h>

#include "tracer/trace_priv.h"

static struct btf *btf;
static int int_id, work_id, bio_ptr_id, bh_ptr_id;

/* The types every context refers to. */
static int setup(void **state)
{
	int bio, bh;

	(void)state;
	btf = btf__new_empty();
	if (!btf)
		return -1;
	int_id = btf__add_int(btf, "unsigned int", 4, 0);
	work_id = btf__add_struct(btf, "work_struct", 32);
	btf__add_field(btf, "data", int_id, 0, 0);
	bio = btf__add_struct(btf, "bio", 128);
	bio_ptr_id = btf__add_ptr(btf, bio);
	bh = btf__add_struct(btf, "buffer_head", 104);
	bh_ptr_id = btf__add_ptr(btf, bh);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	btf__free(btf);
	return 0;
}

/* fs/ext4/readpage.c */
static void add_ext4_ctx(void)
{
	btf__add_struct(btf, "bio_post_read_ctx", 48);
	btf__add_field(btf, "bio", bio_ptr_id, 0, 0);
	btf__add_field(btf, "work", work_id, 64, 0);
	btf__add_field(btf, "cur_step", int_id, 320, 0);
	btf__add_field(btf, "enabled_steps", int_id, 352, 0);
}

/* fs/f2fs/data.c: same name, other members. */
static void add_f2fs_ctx(void)
{
	btf__add_struct(btf, "bio_post_read_ctx", 64);
	btf__add_field(btf, "bio", bio_ptr_id, 0, 0);
	btf__add_field(btf, "sbi", bio_ptr_id, 64, 0);
	btf__add_field(btf, "work", work_id, 128, 0);
	btf__add_field(btf, "enabled_steps", int_id, 384, 0);
}

static const struct work_ctx_layout ext4 = {
	.structs = {"bio_post_read_ctx"},
	.work = "work",
	.ptr = "bio",
	.exact = {"bio", "work", "cur_step", "enabled_steps"},
};

static void test_namesakes(void **state)
{
	struct work_ctx_layout any = ext4;
	char why[DETAIL_LEN] = "";

	(void)state;
	add_f2fs_ctx();
	/* One struct of that name with a work and a bio: taken, whatever
	 * else it has (a member ext4 adds must not lose the filter). */
	assert_true(work_ctx_delta(btf, &ext4, why, sizeof(why)) == -16);
	memset(any.exact, 0, sizeof(any.exact));
	add_ext4_ctx();
	/* Both: only ext4's has exactly its members. */
	assert_true(work_ctx_delta(btf, &ext4, why, sizeof(why)) == -8);
	/* Without the member list the two cannot be told apart. */
	assert_true(work_ctx_delta(btf, &any, why, sizeof(why)) == 0);
	assert_non_null(strstr(why, "2 structs bio_post_read_ctx"));
}

/* decrypt_bh's context was renamed in v6.4; a `work` that is no
 * work_struct is not a work item. */
static void test_old_name_and_types(void **state)
{
	const struct work_ctx_layout bh = {
		.structs = {"postprocess_bh_ctx", "decrypt_bh_ctx"},
		.work = "work",
		.ptr = "bh",
	};
	char why[DETAIL_LEN] = "";

	(void)state;
	assert_true(work_ctx_delta(btf, &bh, why, sizeof(why)) == 0);
	assert_string_equal(why, "no struct postprocess_bh_ctx with members "
				 "work and bh");
	btf__add_struct(btf, "decrypt_bh_ctx", 16);
	btf__add_field(btf, "work", int_id, 0, 0);
	btf__add_field(btf, "bh", bh_ptr_id, 64, 0);
	assert_true(work_ctx_delta(btf, &bh, why, sizeof(why)) == 0);
	btf__add_struct(btf, "decrypt_bh_ctx", 40);
	btf__add_field(btf, "work", work_id, 0, 0);
	btf__add_field(btf, "bh", bh_ptr_id, 256, 0);
	assert_true(work_ctx_delta(btf, &bh, why, sizeof(why)) == 32);
}

/* block/blk-crypto-fallback.c: work and bio inside an anonymous struct
 * inside an anonymous union. */
static void test_anonymous_members(void **state)
{
	const struct work_ctx_layout fb = {
		.structs = {"bio_fallback_crypt_ctx"},
		.work = "work",
		.ptr = "bio",
	};
	char why[DETAIL_LEN] = "";
	int inner, uni;

	(void)state;
	inner = btf__add_struct(btf, NULL, 40);
	btf__add_field(btf, "work", work_id, 0, 0);
	btf__add_field(btf, "bio", bio_ptr_id, 256, 0);
	uni = btf__add_union(btf, NULL, 40);
	btf__add_field(btf, NULL, inner, 0, 0);
	btf__add_struct(btf, "bio_fallback_crypt_ctx", 96);
	btf__add_field(btf, "crypt_ctx", int_id, 0, 0);
	btf__add_field(btf, "crypt_iter", int_id, 32, 0);
	btf__add_field(btf, NULL, uni, 448, 0);
	assert_true(work_ctx_delta(btf, &fb, why, sizeof(why)) == 32);
}

/* Regression: only reads and writes were zeroed, so sync and create
 * carried stack garbage into kernel_requests (2315169713114104336 seen). */
static void test_kernel_requests_zeroes_every_op(void **state)
{
	struct trace_filter f = {0};
	uint64_t out[NR_OPS];

	(void)state;
	memset(out, 0xa5, sizeof(out));
	kernel_requests(&f, out, true);
	for (int op = 0; op < NR_OPS; op++)
		assert_int_equal(out[op], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_requests_zeroes_every_op),
		cmocka_unit_test_setup_teardown(test_namesakes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_old_name_and_types, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_anonymous_members, setup,
						teardown),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
