// SPDX-License-Identifier: MIT
/*
 * kallsyms as the tracer reads it, from fake files: symbols with their
 * modules, and what becomes of the crypto layers when the addresses are
 * hidden (kptr_restrict=2 or lockdown print every address as 0) -- they
 * must be marked unavailable with the reason, never left to read 0.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tracer/ksyms.h"
#include "tracer/trace_priv.h"

/* Every name the tracer looks up, as a kernel with fscrypt, ext4 as a
 * module and dm_crypt loaded lists them. */
#define KALLSYMS(a, b, c, d)                                                   \
	a " T _stext\n" b " t decrypt_bh\n" c                                  \
	  " T fscrypt_encrypt_pagecache_blocks\n" d                            \
	  " t decrypt_work\t[ext4]\n" d " t kcryptd_crypt\t[dm_crypt]\n"

static char path[] = "/tmp/encbench-ksyms-XXXXXX";

/* Write text and more to the fake kallsyms file and load it. */
static struct ksyms *load(const char *text, const char *more)
{
	FILE *f = fopen(path, "w");
	struct ksyms *ks;

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0 && fputs(more, f) >= 0);
	assert_int_equal(fclose(f), 0);
	ks = ksyms_load(path);
	assert_non_null(ks);
	return ks;
}

static int setup(void **state)
{
	int fd = mkstemp(path);

	(void)state;
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void test_lookup(void **state)
{
	static const char more[] = "ffffffffc0b02000 t decrypt_work\t[other]\n"
				   "ffffffff81806e60 t decrypt_work\n"
				   "junk\n";
	struct ksyms *ks =
		load(KALLSYMS("ffffffff81000000", "ffffffff8173e0b0",
			      "ffffffff81765a50", "ffffffffc0a01000"),
		     more);
	const char *mods[4];
	uint64_t addrs[4];

	(void)state;
	assert_true(ksyms_has(ks, "decrypt_bh"));
	assert_true(ksyms_named(ks, "decrypt_bh"));
	assert_false(ksyms_has(ks, "no_such_function"));
	assert_false(ksyms_named(ks, "no_such_function"));
	/* Static functions of one name in several places: all of them. */
	assert_int_equal(ksyms_addrs(ks, "decrypt_work", addrs, 4), 3);
	assert_true(addrs[0] == 0xffffffff81806e60ull);
	assert_int_equal(ksyms_modules(ks, "decrypt_work", mods, 4), 3);
	assert_string_equal(mods[0], "");
	assert_string_equal(mods[1], "ext4");
	assert_string_equal(mods[2], "other");
	assert_int_equal(ksyms_modules(ks, "kcryptd_crypt", mods, 4), 1);
	assert_string_equal(mods[0], "dm_crypt");
	assert_int_equal(ksyms_modules(ks, "decrypt_bh", mods, 4), 1);
	assert_string_equal(mods[0], "");
	ksyms_free(ks);
}

/* kptr_restrict=2, lockdown: every address reads 0. */
static void test_hidden(void **state)
{
	struct ksyms *ks =
		load(KALLSYMS("0000000000000000", "0000000000000000",
			      "0000000000000000", "0000000000000000"),
		     "");
	char src[NR_LAYERS][DETAIL_LEN], why[DETAIL_LEN] = "";
	struct layer_states ls;
	struct capabilities caps;
	struct crypt_work_plan cw;
	uint64_t addr;
	enum enc_method enc;

	(void)state;
	assert_int_equal(ksyms_addrs(ks, "decrypt_work", &addr, 1), 0);
	assert_false(ksyms_has(ks, "decrypt_work"));
	assert_true(ksyms_named(ks, "decrypt_work"));

	crypt_work_plan(ks, 0, &cw);
	assert_int_equal(cw.nr_funcs, 0);
	assert_false(cw.have_kcryptd);
	assert_non_null(
		strstr(cw.why, "/proc/kallsyms hides kernel addresses"));

	/* The write side needs no address: fentry attaches by BTF name. */
	memset(&caps, 0, sizeof(caps));
	caps.tp_btf.ok = caps.fentry.ok = true;
	enc = enc_choose(&caps, ks, why, sizeof(why));
	assert_int_equal(enc, ENC_FENTRY);

	plan_sources(&caps, true, enc, why, &cw, src);
	assert_non_null(strstr(src[LAYER_CRYPT_QUEUE],
			       "unavailable: /proc/kallsyms hides"));
	assert_non_null(strstr(src[LAYER_CRYPT],
			       "read: unavailable (/proc/kallsyms hides"));
	assert_non_null(strstr(src[LAYER_CRYPT], "fentry:" ENC_FUNC));

	plan_states(&caps, true, "", enc, why, &cw, &ls);
	assert_int_equal(ls.state[LAYER_CRYPT_QUEUE][EB_OP_READ],
			 LAYER_UNAVAILABLE);
	assert_int_equal(ls.state[LAYER_CRYPT][EB_OP_READ], LAYER_UNAVAILABLE);
	assert_non_null(strstr(ls.why[LAYER_CRYPT][EB_OP_READ],
			       "/proc/kallsyms hides"));
	assert_int_equal(ls.state[LAYER_CRYPT][EB_OP_WRITE], LAYER_MEASURED);
	assert_int_equal(ls.state[LAYER_CRYPT][EB_OP_SYNC], LAYER_MEASURED);

	/* Neither fentry nor kprobe: crypt is gone for both ops. */
	caps.fentry.ok = false;
	snprintf(caps.fentry.detail, DETAIL_LEN, "EPERM");
	enc = enc_choose(&caps, ks, why, sizeof(why));
	assert_int_equal(enc, ENC_NONE);
	plan_sources(&caps, true, enc, why, &cw, src);
	assert_non_null(strstr(src[LAYER_CRYPT],
			       "unavailable: read: /proc/kallsyms hides"));
	plan_states(&caps, true, "", enc, why, &cw, &ls);
	assert_int_equal(ls.state[LAYER_CRYPT_QUEUE][EB_OP_READ],
			 LAYER_UNAVAILABLE);
	for (int op = 0; op < NR_OPS; op++)
		assert_int_equal(ls.state[LAYER_CRYPT][op], LAYER_UNAVAILABLE);
	assert_string_equal(ls.why[LAYER_CRYPT][EB_OP_WRITE], why);
	assert_non_null(strstr(ls.why[LAYER_CRYPT][EB_OP_SYNC], "; write: "));

	/* kprobe where fentry is refused: a fallback, saying why. */
	caps.kprobe.ok = true;
	enc = enc_choose(&caps, ks, why, sizeof(why));
	assert_int_equal(enc, ENC_KPROBE);
	plan_states(&caps, false, "EINVAL", enc, why, &cw, &ls);
	assert_int_equal(ls.state[LAYER_CRYPT][EB_OP_WRITE], LAYER_FALLBACK);
	assert_string_equal(ls.why[LAYER_CRYPT][EB_OP_WRITE], "fentry: EPERM");
	assert_int_equal(ls.state[LAYER_DEVICE][EB_OP_READ], LAYER_FALLBACK);
	assert_string_equal(ls.why[LAYER_DEVICE][EB_OP_READ], "tp_btf: EINVAL");
	ksyms_free(ks);
}

static char plan_why[DETAIL_LEN];

/* plan_states then dmw_plan, as the tracer does: dmcrypt-write's state for
 * writes, its reason in why (ls's), its source in src. */
static enum layer_state plan_dmw(const struct capabilities *caps, bool btf,
				 const char *btf_why, enum enc_method m,
				 const char *m_why, char *src, size_t len)
{
	static struct layer_states ls;
	struct crypt_work_plan cw = {0};

	plan_states(caps, btf, btf_why, ENC_FENTRY, "", &cw, &ls);
	dmw_plan(caps, btf, m, m_why, src, len, &ls);
	for (int op = 0; op < NR_OPS; op++)
		if (op != EB_OP_WRITE)
			assert_int_equal(ls.state[LAYER_DMCRYPT_WRITE][op],
					 LAYER_NOT_APPLICABLE);
	snprintf(plan_why, sizeof(plan_why), "%s",
		 ls.why[LAYER_DMCRYPT_WRITE][EB_OP_WRITE]);
	return ls.state[LAYER_DMCRYPT_WRITE][EB_OP_WRITE];
}

/* dmcrypt-write: only where dm_crypt's hand-off function is, and only for
 * writes; fentry preferred, kprobe a fallback that says why. */
static void test_dmcrypt_write_plan(void **state)
{
	struct capabilities caps = {0};
	char why[DETAIL_LEN] = "", src[DETAIL_LEN];
	struct ksyms *ks;

	(void)state;
	caps.tp_btf.ok = caps.fentry.ok = caps.kprobe.ok = true;
	ks = load(KALLSYMS("ffffffff81000000", "ffffffff81000100",
			   "ffffffff81000200", "ffffffffc0000000"),
		  "");
	/* dm_crypt loaded without the function: not in this kernel. */
	assert_int_equal(dmw_choose(&caps, ks, why, sizeof(why)), ENC_NONE);
	assert_non_null(strstr(why, DMW_FUNC " is not in this kernel"));
	assert_int_equal(
		plan_dmw(&caps, true, "", ENC_NONE, why, src, sizeof(src)),
		LAYER_UNAVAILABLE);
	assert_string_equal(plan_why, why);
	assert_non_null(strstr(src, "unavailable: " DMW_FUNC));
	ksyms_free(ks);

	ks = load(KALLSYMS("ffffffff81000000", "ffffffff81000100",
			   "ffffffff81000200", "ffffffffc0000000"),
		  "ffffffffc0000100 t " DMW_FUNC "\t[dm_crypt]\n");
	assert_int_equal(dmw_choose(&caps, ks, why, sizeof(why)), ENC_FENTRY);
	assert_int_equal(
		plan_dmw(&caps, true, "", ENC_FENTRY, "", src, sizeof(src)),
		LAYER_MEASURED);
	assert_non_null(strstr(src, "fentry:" DMW_FUNC "->tp_btf:"));
	/* raw_tp's end keeps plan_states' fallback and its reason. */
	assert_int_equal(plan_dmw(&caps, false, "EINVAL", ENC_FENTRY, "", src,
				  sizeof(src)),
			 LAYER_FALLBACK);
	assert_string_equal(plan_why, "tp_btf: EINVAL");

	/* fentry refused: kprobe, a fallback naming fentry's failure. */
	caps.fentry.ok = false;
	snprintf(caps.fentry.detail, DETAIL_LEN, "EPERM");
	assert_int_equal(dmw_choose(&caps, ks, why, sizeof(why)), ENC_KPROBE);
	assert_int_equal(
		plan_dmw(&caps, true, "", ENC_KPROBE, "", src, sizeof(src)),
		LAYER_FALLBACK);
	assert_string_equal(plan_why, "fentry: EPERM");
	assert_non_null(strstr(src, "kprobe:" DMW_FUNC));

	/* Neither: unavailable with both reasons. */
	caps.kprobe.ok = false;
	snprintf(caps.kprobe.detail, DETAIL_LEN, "not built");
	assert_int_equal(dmw_choose(&caps, ks, why, sizeof(why)), ENC_NONE);
	assert_string_equal(why, "fentry: EPERM; kprobe: not built");
	ksyms_free(ks);
}

/* The target's description decides whether the stage exists: a "crypt"
 * device, and no_write_workqueue among its flags read back. */
/* f's dm-crypt facts for a target whose first device has role0 and whose
 * flags read back are flags: 1 + no_write_thread, or 0 without dm-crypt. */
static int dmcrypt_facts(const char *role0, const char *flags)
{
	static struct target_info t;
	struct trace_filter f = {0};

	t.nr_devices = 2;
	snprintf(t.devices[0].role, sizeof(t.devices[0].role), "%s", role0);
	snprintf(t.devices[1].role, sizeof(t.devices[1].role), "backing");
	snprintf(t.encryption.flags, sizeof(t.encryption.flags), "%s", flags);
	trace_filter_dmcrypt(&f, &t);
	if (!f.dmcrypt)
		assert_false(f.dmcrypt_no_write_thread);
	return f.dmcrypt ? 1 + f.dmcrypt_no_write_thread : 0;
}

static void test_dmcrypt_filter(void **state)
{
	(void)state;
	assert_int_equal(dmcrypt_facts("fs", "no_write_workqueue"), 0);
	assert_int_equal(
		dmcrypt_facts("crypt", "no_read_workqueue,same_cpu_crypt"), 1);
	/* A flag name is matched whole, in any position. */
	assert_int_equal(
		dmcrypt_facts("crypt", "no_read_workqueue,no_write_workqueue"),
		2);
	assert_int_equal(dmcrypt_facts("crypt", "no_write_workqueue"), 2);
	assert_int_equal(dmcrypt_facts("crypt", "no_write_workqueue_x"), 1);
	assert_int_equal(dmcrypt_facts("crypt", "none"), 1);
}

static void test_unreadable_or_absent(void **state)
{
	struct crypt_work_plan cw;
	struct ksyms *ks;

	(void)state;
	assert_null(ksyms_load("/nonexistent/kallsyms"));
	assert_int_equal(errno, ENOENT);
	crypt_work_plan(NULL, ENOENT, &cw);
	assert_int_equal(cw.nr_funcs, 0);
	assert_string_equal(cw.why, "cannot read /proc/kallsyms: No such file "
				    "or directory");

	/* Addresses shown, but no crypto work function in this kernel. */
	ks = load("ffffffff81000000 T _stext\n", "");
	crypt_work_plan(ks, 0, &cw);
	assert_int_equal(cw.nr_funcs, 0);
	assert_non_null(strstr(cw.why, "no crypto work function"));
	assert_non_null(strstr(cw.why, "in /proc/kallsyms"));
	ksyms_free(ks);
}

/* A work function whose context cannot be found in BTF still counts,
 * on every device, and the note says so. */
static void test_unfiltered_note(void **state)
{
	struct ksyms *ks = load(
		"ffffffffc0a01000 t decrypt_work\t[encbench_no_such_mod]\n",
		"");
	char src[NR_LAYERS][DETAIL_LEN];
	struct capabilities caps;
	struct crypt_work_plan cw;

	(void)state;
	crypt_work_plan(ks, 0, &cw);
	assert_int_equal(cw.nr_funcs, 1);
	assert_true(cw.addrs[0] == 0xffffffffc0a01000ull);
	assert_int_equal(cw.kinds[0], CRYPT_WORK_FSCRYPT_READ);
	assert_string_equal(cw.why, "");
	assert_true(cw.ctx_delta[CRYPT_WORK_FSCRYPT_READ] == 0);
	assert_non_null(strstr(cw.note, "fscrypt work not filtered by device: "
					"decrypt_work: "));

	memset(&caps, 0, sizeof(caps));
	caps.tp_btf.ok = true;
	plan_sources(&caps, true, ENC_NONE, "EPERM", &cw, src);
	assert_non_null(strstr(src[LAYER_CRYPT_QUEUE],
			       "tp_btf:workqueue_queue_work->execute_start; "
			       "fscrypt work not filtered by device"));
	assert_non_null(strstr(src[LAYER_CRYPT],
			       "(read; fscrypt work not filtered by device"));
	assert_non_null(strstr(src[LAYER_CRYPT], "write: unavailable (EPERM)"));
	/* Without fentry or kprobe, CPU samples stand in where the callers
	 * and the writeback workers are sampled, and the state says so. */
	assert_int_equal(enc_write_method(ENC_NONE, false), ENC_NONE);
	assert_int_equal(enc_write_method(ENC_FENTRY, true), ENC_FENTRY);
	assert_int_equal(enc_write_method(ENC_NONE, true), ENC_SAMPLES);
	plan_sources(&caps, true, ENC_SAMPLES, "EPERM", &cw, src);
	assert_non_null(strstr(src[LAYER_CRYPT],
			       "(read; fscrypt work not filtered by device"));
	assert_non_null(strstr(src[LAYER_CRYPT],
			       "; write: cpu samples: callers + writeback "
			       "workers"));
	ksyms_free(ks);
}

/* Each address is named by the function it lies in: the last symbol at
 * or below it, the first by name of several at one address. */
static void test_symbolize(void **state)
{
	struct ksyms *ks = load("ffffffff81000100 T zeta_alias\n"
				"ffffffff81000100 T alpha\n"
				"ffffffff81000200 t aes_encrypt\n"
				"ffffffffc0001000 t xts_crypt\t[xts]\n",
				"");
	const uint64_t addrs[] = {0xffffffff81000100ull, 0xffffffff810001ffull,
				  0xffffffff81000234ull, 0xffffffffc0001010ull,
				  0xffffffff81000000ull};
	const char *names[5];
	(void)state;

	assert_int_equal(ksyms_symbolize(ks, addrs, 5, names), 0);
	assert_string_equal(names[0], "alpha");
	assert_string_equal(names[1], "alpha");
	assert_string_equal(names[2], "aes_encrypt");
	assert_string_equal(names[3], "xts_crypt");
	assert_null(names[4]); /* below every symbol */
	ksyms_free(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_hidden),
		cmocka_unit_test(test_unreadable_or_absent),
		cmocka_unit_test(test_unfiltered_note),
		cmocka_unit_test(test_dmcrypt_write_plan),
		cmocka_unit_test(test_dmcrypt_filter),
		cmocka_unit_test(test_symbolize),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
