// SPDX-License-Identifier: MIT
/*
 * Runs INSIDE the VM guest: `tune --kind zfs` over the encryption axis
 * (against zfs-off on the same pool) and `tune --kind ecryptfs` over its
 * ciphers (against plain, ranked by copy: eCryptfs has no O_DIRECT for
 * dd), untraced and small: the guest's time is bounded, and the wait
 * split under tune is test_vm_tune's. Each variant's dataset or mount must
 * really have the variant's cipher (results.json's target, as `zfs get` and the
 * mount describe it), be verified ciphertext on the device, and be
 * ranked; the table and the recommendation are printed; nothing is
 * left. Under TCG the ranking itself is not asserted (printed: CCM
 * against GCM). And the cipher axes this host's kernel lacks: LUKS2's
 * ciphers (Adiantum with XChaCha12 and 20) and fscrypt's contents modes
 * (Adiantum, AES-128-CBC-ESSIV). Where the guest has no ZFS (6.12) the zfs
 * sweep must be refused in one line instead.
 */
#include <glob.h>
#include <setjmp.h>
#include <signal.h>
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

#include "../leftovers.h"
#include "../results_json.h"
#include "../run_prog.h"

static char tmp[] = "/var/tmp/encbench-vmtunefs.XXXXXX";

/* `tune --kind kind EXTRA...` (tag: kind): its exit status. */
static int tune(const char *kind, const char *const *extra)
{
	char out[sizeof(tmp) + 32];
	const char *argv[32] = {run_prog_bin(), "tune",	     "--kind",	   kind,
				"--budget",	"240s",	     "-s",	   "2M",
				"--min-runs",	"2",	     "--max-runs", "2",
				"--scratch",	tmp,	     "--output",   out,
				"-q",		"--no-trace"};
	int n = 18;

	snprintf(out, sizeof(out), "%s/out-%s", tmp, kind);
	for (; *extra && n < 31; extra++)
		argv[n++] = *extra;
	argv[n] = NULL;
	return run_reap(run_spawn(tmp, kind, NULL, NULL, argv));
}

/* Variant name of the tune run in out-<kind>: ranked, with the target
 * it was built as encrypted with `cipher`, verified on the device. */
static void assert_variant(struct json_object *doc, const char *name,
			   const char *cipher)
{
	struct json_object *v = variant_of(get(doc, "tune"), name);
	struct json_object *t = target_of(doc, name);

	if (!json_object_get_boolean(get(v, "ranked")))
		fail_msg("%s not ranked: %s", name,
			 json_object_get_string(get(v, "skipped")));
	assert_string_equal(json_object_get_string(get(get(t, "encryption"),
						       "contents_cipher")),
			    cipher);
	assert_true(json_object_get_boolean(get(t, "verified_encrypted")));
}

static struct json_object *results(const char *kind, int rc)
{
	char out[sizeof(tmp) + 32];
	struct json_object *doc;

	snprintf(out, sizeof(out), "%s/out-%s", tmp, kind);
	doc = run_prog_results(tmp, kind, rc, out);
	assert_non_null(doc);
	assert_non_null(
		strstr(run_output(tmp, kind, "stdout"), "Recommendation: "));
	return doc;
}

static void assert_nothing_left(void)
{
	for (int i = 0; i < 50 && (loops_under(tmp) || mounts_under(tmp)); i++)
		usleep(100000);
	assert_int_equal(mounts_under(tmp), 0);
	assert_int_equal(loops_under(tmp), 0);
	assert_int_equal(scratch_dirs_under(tmp), 0);
}

static double penalty(struct json_object *doc, const char *name)
{
	return json_object_get_double(
		get(variant_of(get(doc, "tune"), name), "penalty_pct"));
}

static void test_zfs_encryption(void **st)
{
	const char *extra[] = {"--axes", "encryption", NULL};
	struct json_object *doc;
	int rc;

	(void)st;
	rc = tune("zfs", extra);
	if (!getenv("ENCBENCH_VM_ZFS")) {
		/* No OpenZFS here: one line, exit 1, nothing made. */
		assert_int_equal(rc, 1);
		assert_non_null(strstr(run_output(tmp, "zfs", "stderr"),
				       "tune: zfs is not available here"));
		assert_int_equal(count_lines(run_output(tmp, "zfs", "stderr")),
				 1);
		assert_nothing_left();
		return;
	}
	doc = results("zfs", rc);
	/* Compared with zfs-off on the same pool, not with plain ext4. */
	assert_string_equal(
		json_object_get_string(get(target_of(doc, "zfs-off"), "kind")),
		"zfs-off");
	assert_variant(doc, "zfs-default", "aes-256-gcm");
	assert_variant(doc, "zfs-aes-128-gcm", "aes-128-gcm");
	assert_variant(doc, "zfs-aes-192-gcm", "aes-192-gcm");
	assert_variant(doc, "zfs-aes-256-ccm", "aes-256-ccm");
	printf("# zfs penalties vs zfs-off: aes-256-gcm %+.1f %%, aes-256-ccm "
	       "%+.1f %% (TCG: not asserted)\n",
	       penalty(doc, "zfs-default"), penalty(doc, "zfs-aes-256-ccm"));
	json_object_put(doc);
	assert_nothing_left();
	assert_int_equal(system("zpool list -H -o name | grep -q '^encbench-'"),
			 256); /* grep: no match */
}

static void test_ecryptfs_ciphers(void **st)
{
	/* Ranked by copy, the kind's default; the key sizes are the unit
	 * test's (the guest's time is bounded). */
	const char *extra[] = {"--axes", "cipher", NULL};
	struct json_object *doc;

	(void)st;
	doc = results("ecryptfs", tune("ecryptfs", extra));
	assert_string_equal(
		json_object_get_string(get(get(doc, "tune"), "workload")),
		"copy");
	assert_variant(doc, "ecryptfs-default", "cbc(aes)");
	assert_variant(doc, "ecryptfs-twofish-256", "cbc(twofish)");
	assert_variant(doc, "ecryptfs-cast6-256", "cbc(cast6)");
	assert_int_equal(
		json_object_get_int(get(
			get(target_of(doc, "ecryptfs-default"), "encryption"),
			"key_bits")),
		256);
	json_object_put(doc);
	assert_nothing_left();
}

static int key_bits(struct json_object *doc, const char *name)
{
	return json_object_get_int(
		get(get(target_of(doc, name), "encryption"), "key_bits"));
}

/* The cipher axes this host's kernel lacks and Debian's have (the harness
 * loads their modules): LUKS2's ciphers, each variant built with its
 * cipher and key size (libcryptsetup's own volume key size), verified
 * as ciphertext, ranked. */
static void test_luks2_ciphers(void **st)
{
	const char *extra[] = {"--axes", "cipher", NULL};
	struct json_object *doc;

	(void)st;
	doc = results("luks2", tune("luks2", extra));
	assert_variant(doc, "luks2-default", "xts(aes)");
	assert_variant(doc, "luks2-aes-xts-256", "xts(aes)");
	assert_variant(doc, "luks2-adiantum-xchacha12",
		       "adiantum(xchacha12,aes)");
	assert_variant(doc, "luks2-adiantum-xchacha20",
		       "adiantum(xchacha20,aes)");
	assert_int_equal(key_bits(doc, "luks2-default"), 512);
	assert_int_equal(key_bits(doc, "luks2-aes-xts-256"), 256);
	assert_int_equal(key_bits(doc, "luks2-adiantum-xchacha12"), 256);
	json_object_put(doc);
	assert_nothing_left();
}

/* fscrypt's contents modes: Adiantum and AES-128-CBC-ESSIV policies on
 * their own folders, as the kernel's crypto API names them. */
static void test_fscrypt_contents(void **st)
{
	const char *extra[] = {"--axes", "contents", NULL};
	struct json_object *doc;

	(void)st;
	doc = results("fscrypt", tune("fscrypt", extra));
	assert_variant(doc, "fscrypt-default", "xts(aes)");
	assert_variant(doc, "fscrypt-adiantum", "adiantum(xchacha12,aes)");
	assert_variant(doc, "fscrypt-aes-128-cbc-essiv",
		       "essiv(cbc(aes),sha256)");
	json_object_put(doc);
	assert_nothing_left();
}

static int setup(void **st)
{
	(void)st;
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	return remove_tree(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zfs_encryption),
		cmocka_unit_test(test_ecryptfs_ciphers),
		cmocka_unit_test(test_luks2_ciphers),
		cmocka_unit_test(test_fscrypt_contents),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
