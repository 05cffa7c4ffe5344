// SPDX-License-Identifier: MIT
/*
 * A detected stack described for results.json: a user's dm-crypt mapping
 * is encryption with its parameters, except dm-crypt's null cipher, which
 * stores plaintext and must not pass for encryption; a filesystem policy
 * above a dm-crypt mapping is said first, the mapping below it in a note.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "storage/detect.h"

static void dm_stack(struct detected_stack *s, const char *cipher,
		     const char *kernel_cipher)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->fs, sizeof(s->fs), "ext4");
	s->nr_devices = 2;
	snprintf(s->devices[0].role, sizeof(s->devices[0].role), "crypt");
	snprintf(s->devices[1].role, sizeof(s->devices[1].role), "backing");
	s->crypt_index = 0;
	snprintf(s->crypt.type, sizeof(s->crypt.type), "LUKS2");
	snprintf(s->crypt.cipher, sizeof(s->crypt.cipher), "%s", cipher);
	snprintf(s->crypt.kernel_cipher, sizeof(s->crypt.kernel_cipher), "%s",
		 kernel_cipher);
	s->crypt.key_bits = 512;
	s->crypt.sector_size = 4096;
}

static bool has_note(const struct target_info *ti, const char *part)
{
	for (int i = 0; i < ti->nr_notes; i++)
		if (strstr(ti->notes[i], part))
			return true;
	return false;
}

static void test_dmcrypt_is_encryption(void **state)
{
	static struct detected_stack s;
	static struct target_info ti;

	(void)state;
	dm_stack(&s, "aes-xts-plain64", "xts(aes)");
	stack_describe(&s, &ti);
	assert_true(ti.encrypted);
	assert_false(ti.null_cipher);
	assert_string_equal(ti.encryption.scheme, "LUKS2 dm-crypt");
	assert_string_equal(ti.encryption.contents_cipher, "xts(aes)");
	assert_int_equal(ti.encryption.key_bits, 512);
	assert_false(has_note(&ti, "NOT ENCRYPTED"));
}

static void test_null_cipher_is_not(void **state)
{
	static struct detected_stack s;
	static struct target_info ti;

	(void)state;
	dm_stack(&s, "cipher_null-ecb", "ecb(cipher_null)");
	stack_describe(&s, &ti);
	assert_false(ti.encrypted);
	assert_true(ti.null_cipher);
	assert_true(has_note(&ti, "NOT ENCRYPTED: cipher_null-ecb"));
}

static void test_fscrypt_above_dmcrypt(void **state)
{
	static struct detected_stack s;
	static struct target_info ti;

	(void)state;
	dm_stack(&s, "aes-xts-plain64", "xts(aes)");
	s.fscrypt = true;
	s.fscrypt_version = 2;
	snprintf(s.fscrypt_contents, sizeof(s.fscrypt_contents), "AES-256-XTS");
	stack_describe(&s, &ti);
	assert_true(ti.encrypted);
	assert_string_equal(ti.encryption.scheme, "fscrypt v2 policy");
	assert_true(has_note(&ti, "also LUKS2 dm-crypt"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dmcrypt_is_encryption),
		cmocka_unit_test(test_null_cipher_is_not),
		cmocka_unit_test(test_fscrypt_above_dmcrypt),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
