// SPDX-License-Identifier: MIT
/*
 * tune's plan (which variants, which skipped and why, --cross) from facts
 * given by hand, and its ranking from samples made by hand: separated
 * variants rank apart, overlapping ones share a rank, the reference's
 * gain is stated only when its interval excludes 0, and the added time
 * per call is split by component against the baseline's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libcryptsetup.h>

#include "analysis/tune_rank.h"
#include "run/tune.h"

static bool only_xts(const char *name, char *why, size_t len)
{
	bool ok = !strcmp(name, "xts(aes)") || !strcmp(name, "cts(cbc(aes))") ||
		  !strcmp(name, "cbc(aes)");

	snprintf(why, len, "%s: %s", name, ok ? "there" : "missing here");
	return ok;
}

static const struct tune_facts old_kernel = {
	.kernel_major = 5, .kernel_minor = 4, .cipher_usable = only_xts};
static const struct tune_facts debian_61 = {
	.kernel_major = 6, .kernel_minor = 1, .cipher_usable = only_xts};
static const struct luks_options ref = {
	.cipher = "aes-xts-plain64", .key_bits = 512, .sector_size = 4096};
static const char no_cross[2][NAME_LEN / 2] = {"", ""};

static const struct tune_variant *find(const struct tune_result *tr,
				       const char *name)
{
	for (int i = 0; i < tr->nr_variants; i++)
		if (!strcmp(tr->v[i].name, name))
			return &tr->v[i];
	fail_msg("no variant %s", name);
	return NULL;
}

static void test_plan_luks2(void **state)
{
	static struct tune_result tr;
	static struct tune_plan plan = {.out = &tr};
	const struct tune_variant *v;

	(void)state;
	assert_int_equal(
		tune_plan_make("luks2", &ref, no_cross, &debian_61, &plan), 0);
	assert_true(tr.v[0].reference);
	assert_string_equal(tr.v[0].skipped, "");
	/* The reference is the defaults, the sector axis changes only it. */
	v = find(&tr, "luks2-sector-512");
	assert_string_equal(v->skipped, "");
	assert_int_equal(plan.set[v - tr.v].luks.sector_size, 512);
	assert_int_equal(plan.set[v - tr.v].luks.key_bits, 512);
	/* Adiantum: the kernel's cipher is missing -> skipped, said why. */
	v = find(&tr, "luks2-adiantum-xchacha12");
	assert_non_null(strstr(v->skipped, "adiantum(xchacha12,aes)"));
	/* high_priority: libcryptsetup 2.6.1 lacks it, whatever the kernel. */
	v = find(&tr, "luks2-high_priority");
	assert_non_null(strstr(v->skipped, "libcryptsetup 2.8"));
	v = find(&tr, "luks2-no_workqueues");
	assert_string_equal(v->skipped, "");
	assert_int_equal(plan.set[v - tr.v].luks.flags,
			 CRYPT_ACTIVATE_NO_READ_WORKQUEUE |
				 CRYPT_ACTIVATE_NO_WRITE_WORKQUEUE);
	/* On 5.4 the workqueue flags do not exist yet. */
	assert_int_equal(
		tune_plan_make("luks2", &ref, no_cross, &old_kernel, &plan), 0);
	v = find(&tr, "luks2-no_read_workqueue");
	assert_non_null(strstr(v->skipped, "since Linux 5.9"));
	assert_string_equal(find(&tr, "luks2-same_cpu_crypt")->skipped, "");
}

/* The user's own device: the reference is it as it is, each variant adds
 * one value of the flags axis to its flags; one it has already, and
 * high_priority, are skipped with the reason; no cipher or sector axis. */
static void test_plan_device(void **state)
{
	static struct tune_result tr;
	static struct tune_plan plan = {.out = &tr};
	const uint32_t perf = CRYPT_ACTIVATE_SAME_CPU_CRYPT |
			      CRYPT_ACTIVATE_SUBMIT_FROM_CRYPT_CPUS |
			      CRYPT_ACTIVATE_NO_READ_WORKQUEUE |
			      CRYPT_ACTIVATE_NO_WRITE_WORKQUEUE;
	const struct tune_variant *v;

	(void)state;
	assert_int_equal(tune_plan_device("mine", CRYPT_ACTIVATE_SAME_CPU_CRYPT,
					  perf, &debian_61, &plan),
			 0);
	assert_int_equal(tr.nr_variants, 7);
	assert_true(tr.v[0].reference);
	assert_string_equal(tr.v[0].name, "mine-as-is");
	assert_non_null(strstr(tr.v[0].settings, "same_cpu_crypt"));
	assert_int_equal(plan.set[0].luks.flags, CRYPT_ACTIVATE_SAME_CPU_CRYPT);
	v = find(&tr, "mine-no_read_workqueue");
	assert_string_equal(v->skipped, "");
	assert_int_equal(plan.set[v - tr.v].luks.flags,
			 CRYPT_ACTIVATE_SAME_CPU_CRYPT |
				 CRYPT_ACTIVATE_NO_READ_WORKQUEUE);
	assert_non_null(
		strstr(find(&tr, "mine-same_cpu_crypt")->skipped, "already"));
	assert_non_null(strstr(find(&tr, "mine-high_priority")->skipped,
			       "libcryptsetup 2.8"));
	for (int i = 0; i < tr.nr_variants; i++)
		assert_true(tr.v[i].reference ||
			    !strcmp(tr.v[i].axis, "flags"));
	/* On 5.4 the workqueue flags are skipped, said why. */
	assert_int_equal(tune_plan_device("mine", 0, perf, &old_kernel, &plan),
			 0);
	assert_non_null(strstr(find(&tr, "mine-no_write_workqueue")->skipped,
			       "since Linux 5.9"));
	assert_string_equal(find(&tr, "mine-same_cpu_crypt")->skipped, "");
}

static void test_plan_cross_and_bad_axes(void **state)
{
	static struct tune_result tr;
	static struct tune_plan plan = {.out = &tr};
	const char cross[2][NAME_LEN / 2] = {"block", "dataunit"};
	const char bad[2][NAME_LEN / 2] = {"block", "sector"};
	const char same[2][NAME_LEN / 2] = {"block", "block"};
	const struct tune_variant *v;

	(void)state;
	assert_int_equal(
		tune_plan_make("fscrypt", &ref, cross, &debian_61, &plan), 0);
	/* The reference and 2 block sizes x 3 data unit sizes. */
	assert_int_equal(tr.nr_variants, 7);
	v = find(&tr, "fscrypt-block-1024+du-2048");
	assert_non_null(strstr(v->skipped, "larger than the block size"));
	v = find(&tr, "fscrypt-block-2048+du-1024");
	assert_string_equal(v->skipped, "");
	assert_int_equal(plan.set[v - tr.v].ext4_block_size, 2048);
	assert_int_equal(plan.set[v - tr.v].fscrypt.log2_data_unit, 10);
	assert_int_equal(
		tune_plan_make("fscrypt", &ref, bad, &debian_61, &plan), 2);
	assert_int_equal(
		tune_plan_make("fscrypt", &ref, same, &debian_61, &plan), 2);
	assert_int_equal(
		tune_plan_make("btrfs", &ref, no_cross, &debian_61, &plan), 2);
}

/* ZFS: its own ciphers (nothing probed), the record size apart;
 * eCryptfs: a cipher the kernel lacks is skipped, said why; the
 * baseline is zfs-off for zfs, plain for eCryptfs. */
static void test_plan_zfs_ecryptfs(void **state)
{
	static struct tune_result tr;
	static struct tune_plan plan = {.out = &tr};
	const struct tune_variant *v;

	(void)state;
	assert_int_equal(
		tune_plan_make("zfs", &ref, no_cross, &debian_61, &plan), 0);
	assert_int_equal(tr.nr_variants, 6);
	assert_string_equal(tr.v[0].name, "zfs-default");
	v = find(&tr, "zfs-aes-256-ccm");
	assert_string_equal(v->skipped, "");
	assert_string_equal(plan.set[v - tr.v].zfs.encryption, "aes-256-ccm");
	assert_string_equal(plan.set[v - tr.v].zfs.recordsize, "");
	v = find(&tr, "zfs-recordsize-1M");
	assert_string_equal(plan.set[v - tr.v].zfs.recordsize, "1M");
	assert_string_equal(plan.set[v - tr.v].zfs.encryption, "");
	assert_string_equal(tune_baseline("zfs"), "zfs-off");
	assert_int_equal(
		tune_plan_make("ecryptfs", &ref, no_cross, &debian_61, &plan),
		0);
	assert_string_equal(tune_baseline("ecryptfs"), "plain");
	v = find(&tr, "ecryptfs-twofish-256");
	assert_non_null(strstr(v->skipped, "cbc(twofish): missing here"));
	v = find(&tr, "ecryptfs-aes-128");
	assert_string_equal(v->skipped, "");
	assert_string_equal(plan.set[v - tr.v].ecryptfs.cipher, "aes");
	assert_int_equal(plan.set[v - tr.v].ecryptfs.key_bytes, 16);
}

/* A target's dd figures: write_s and read_s per iteration. */
static void add_dd(struct results *r, const char *target, double write,
		   double read, double spread, int n)
{
	const char *names[2] = {"write_s", "read_s"};
	const double base[2] = {write, read};

	snprintf(r->targets[r->nr_targets++].name, NAME_LEN, "%s", target);
	for (int m = 0; m < 2; m++) {
		struct result *x = &r->results[r->nr_results++];

		snprintf(x->target, NAME_LEN, "%s", target);
		snprintf(x->workload, NAME_LEN, "dd");
		snprintf(x->metric.name, NAME_LEN, "%s", names[m]);
		snprintf(x->metric.unit, sizeof(x->metric.unit), "s");
		x->nr_samples = n;
		for (int i = 0; i < n; i++) /* alternating: sd ~ spread */
			x->samples[i] = base[m] + (i % 2 ? spread : -spread);
	}
}

static void add_variant(struct results *r, const char *name, bool reference)
{
	struct tune_variant *v = &r->tune.v[r->tune.nr_variants++];

	snprintf(v->name, NAME_LEN, "%s", name);
	v->reference = reference;
}

/* A read attribution whose wait splits into crypt-queue and crypt. */
static void add_read_wait(struct results *r, const char *target,
			  uint64_t queue_ns, uint64_t crypt_ns)
{
	struct attribution *a = &r->attrib[r->nr_attrib++];

	snprintf(a->target, NAME_LEN, "%s", target);
	snprintf(a->workload, NAME_LEN, "dd");
	a->op = EB_OP_READ;
	a->wait.available = true;
	a->wait.syscalls = 10;
	a->wait.ns[LAYER_DEVICE] = 10 * 1000000ULL;
	a->wait.ns[LAYER_CRYPT_QUEUE] = queue_ns * 10;
	a->wait.ns[LAYER_CRYPT] = crypt_ns * 10;
	a->wait.total_ns = a->wait.ns[LAYER_DEVICE] + a->wait.ns[LAYER_CRYPT] +
			   a->wait.ns[LAYER_CRYPT_QUEUE];
	a->wait.dev_bytes = 16 << 20;
	a->layers[LAYER_CRYPT].state = LAYER_MEASURED;
	a->layers[LAYER_CRYPT].count = 64;
	a->layers[LAYER_CRYPT].calls = 4096; /* 4096-byte sectors */
}

static void test_rank_ties_and_gain(void **state)
{
	static struct results r;
	const struct tune_variant *def, *fast, *same, *slow;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.tune.on = true;
	snprintf(r.tune.workload, NAME_LEN, "dd");
	add_dd(&r, "plain", 1.0, 1.0, 0.01, 6);
	add_dd(&r, "luks2-default", 1.2, 2.0, 0.01, 6);
	add_dd(&r, "luks2-fast", 1.2, 1.4, 0.01, 6);
	add_dd(&r, "luks2-same", 1.2, 2.0, 0.4, 6); /* too noisy to part */
	add_dd(&r, "luks2-slow", 1.5, 2.5, 0.01, 6);
	add_variant(&r, "luks2-default", true);
	add_variant(&r, "luks2-fast", false);
	add_variant(&r, "luks2-same", false);
	add_variant(&r, "luks2-slow", false);
	add_variant(&r, "luks2-missing", false);
	snprintf(r.tune.v[4].skipped, DETAIL_LEN, "not here");
	add_read_wait(&r, "plain", 0, 0);
	add_read_wait(&r, "luks2-default", 3000000, 2000000);
	add_read_wait(&r, "luks2-fast", 0, 2000000);
	tune_rank(&r);
	def = &r.tune.v[0];
	fast = &r.tune.v[1];
	same = &r.tune.v[2];
	slow = &r.tune.v[3];
	assert_string_equal(r.tune.score, "write_s + read_s");
	assert_true(fast->ranked && fast->rank == 1);
	/* 2.6 s against 2.0: +30 % */
	assert_true(fast->penalty_pct > 29 && fast->penalty_pct < 31);
	assert_int_equal(def->rank, 2);
	/* The noisy one overlaps the fast one: no interval parts them. */
	assert_int_equal(same->rank, 1);
	assert_true(same->tied_best);
	assert_false(def->tied_best);
	/* Behind fast and default, not (for the noise) behind same. */
	assert_int_equal(slow->rank, 3);
	assert_false(r.tune.v[4].ranked);
	/* The gain over the defaults: 3.2 s -> 2.6 s, 18.75 %. */
	assert_true(r.tune.advice.have);
	assert_int_equal(r.tune.advice.variant, 1);
	assert_true(r.tune.advice.gain_pct > 18 &&
		    r.tune.advice.gain_pct < 19.5);
	assert_true(r.tune.advice.gain_ci95_pct[0] > 0);
	/* Why: the defaults' reads wait 3 ms more in crypt-queue. */
	assert_int_equal(def->nr_ops, 1);
	assert_true(def->ops[0].layer_ns[LAYER_CRYPT_QUEUE] == 3000000.0);
	assert_true(fast->ops[0].layer_ns[LAYER_CRYPT_QUEUE] == 0.0);
	assert_true(fast->ops[0].added_ns == 2000000.0);
	assert_true(def->ops[0].items_per_mib[LAYER_CRYPT] == 4.0);
	assert_true(def->ops[0].cipher_calls_per_mib == 256.0);
	/* Early stop: the slow one is separated from the best. */
	assert_true(tune_separated_from_best(&r, "luks2-slow", NULL, NULL));
	assert_false(tune_separated_from_best(&r, "luks2-same", NULL, NULL));
}

static void test_rank_defaults_best(void **state)
{
	static struct results r;

	(void)state;
	memset(&r, 0, sizeof(r));
	snprintf(r.tune.workload, NAME_LEN, "dd");
	add_dd(&r, "plain", 1.0, 1.0, 0.01, 4);
	add_dd(&r, "fscrypt-default", 1.1, 1.5, 0.01, 4);
	add_dd(&r, "fscrypt-block-1024", 1.1, 1.9, 0.01, 4);
	add_variant(&r, "fscrypt-default", true);
	add_variant(&r, "fscrypt-block-1024", false);
	tune_rank(&r);
	assert_int_equal(r.tune.v[0].rank, 1);
	assert_int_equal(r.tune.v[1].rank, 2);
	assert_false(r.tune.advice.have);
	assert_non_null(strstr(r.tune.advice.summary, "keep the defaults"));
}

/* target's read_s figure: pct % of its bytes read from the page cache. */
static void cache_reads(struct results *r, const char *target, double pct)
{
	for (int i = 0; i < r->nr_results; i++) {
		struct result *x = &r->results[i];

		if (strcmp(x->target, target) ||
		    strcmp(x->metric.name, "read_s"))
			continue;
		x->read_bytes = 100e6;
		x->dev_read_bytes = 100e6 * (1 - pct / 100);
		x->dev_samples = x->nr_samples;
	}
}

/*
 * A variant whose score is not a disk figure (its reads from the page
 * cache, its writes timed into it) is not ranked, however fast: its speed
 * is memory's. One read 5 % from the cache still is; a baseline timed so
 * leaves nothing to rank against.
 */
static void test_rank_not_disk(void **state)
{
	static struct results r;
	const struct tune_variant *def, *cached, *buffered, *warm;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.tune.on = true;
	snprintf(r.tune.workload, NAME_LEN, "dd");
	add_dd(&r, "plain", 1.0, 1.0, 0.01, 6);
	add_dd(&r, "fscrypt-default", 1.2, 2.0, 0.01, 6);
	add_dd(&r, "fscrypt-cached", 1.2, 0.2, 0.01, 6);
	add_dd(&r, "fscrypt-buffered", 0.3, 2.0, 0.01, 6);
	add_dd(&r, "fscrypt-warm", 1.2, 1.8, 0.01, 6);
	add_variant(&r, "fscrypt-default", true);
	add_variant(&r, "fscrypt-cached", false);
	add_variant(&r, "fscrypt-buffered", false);
	add_variant(&r, "fscrypt-warm", false);
	cache_reads(&r, "plain", 0);
	cache_reads(&r, "fscrypt-default", 0);
	cache_reads(&r, "fscrypt-cached", 60);
	cache_reads(&r, "fscrypt-warm", 5);
	r.results[6].page_cache_writes = true; /* fscrypt-buffered's write_s */
	assert_string_equal(r.results[6].target, "fscrypt-buffered");
	tune_rank(&r);
	def = &r.tune.v[0];
	cached = &r.tune.v[1];
	buffered = &r.tune.v[2];
	warm = &r.tune.v[3];
	assert_false(cached->ranked);
	assert_int_equal(cached->rank, 0);
	assert_string_equal(cached->not_disk,
			    "cached, not a disk figure: 60 % of the bytes "
			    "read_s read came from the page cache");
	assert_false(buffered->ranked);
	assert_string_equal(buffered->not_disk,
			    "buffered, not a disk figure: write_s timed "
			    "writes into the page cache");
	assert_true(warm->ranked && warm->rank == 1);
	assert_string_equal(warm->not_disk, "");
	assert_true(def->ranked && def->rank == 2);
	/* The best is the warm one, not either faster figure of memory. */
	assert_true(r.tune.advice.have);
	assert_int_equal(r.tune.advice.variant, 3);
	assert_false(tune_separated_from_best(&r, "fscrypt-warm", NULL, NULL));
	/* A baseline from the page cache: nothing is ranked against it. */
	cache_reads(&r, "plain", 50);
	tune_rank(&r);
	for (int i = 0; i < r.tune.nr_variants; i++) {
		assert_false(r.tune.v[i].ranked);
		assert_non_null(strstr(r.tune.v[i].not_disk,
				       "the baseline plain's score is cached"));
	}
	assert_false(r.tune.advice.have);
	assert_non_null(strstr(r.tune.advice.summary,
			       "no gain can be stated: the defaults' score is "
			       "not ranked (the baseline plain's"));
}

/* tune_advice for the variant named best in r: r->tune as planned. */
static const char *advise_best(struct results *r, const struct tune_plan *plan,
			       const char *best)
{
	r->tune = *plan->out;
	snprintf(r->tune.kind, sizeof(r->tune.kind), "luks2");
	r->tune.advice.have = true;
	r->tune.advice.variant = (int)(find(&r->tune, best) - r->tune.v);
	tune_advice(r, plan);
	return r->tune.advice.command;
}

/*
 * The command that applies the best: a refresh names every flag it
 * keeps (flags not named are cleared, discards too), a cipher or sector
 * size is a reencryption, and one crossed with flags gets both.
 */
static void test_advice_luks2(void **state)
{
	static struct tune_result tr;
	static struct tune_plan plan = {.out = &tr};
	static struct results r;
	const char cross[2][NAME_LEN / 2] = {"sector", "flags"};
	const uint32_t nrw = CRYPT_ACTIVATE_NO_READ_WORKQUEUE;
	const char *c;
	int k = -1;

	(void)state;
	assert_int_equal(
		tune_plan_make("luks2", &ref, no_cross, &debian_61, &plan), 0);
	c = advise_best(&r, &plan, "luks2-no_workqueues");
	assert_non_null(strstr(c, "cryptsetup refresh --perf-"));
	assert_non_null(strstr(c, " --perf-no_read_workqueue"));
	assert_non_null(strstr(c, " --perf-no_write_workqueue"));
	assert_null(strstr(c, "same_cpu"));
	assert_non_null(strstr(c, "add --allow-discards if it has them"));
	c = advise_best(&r, &plan, "luks2-sector-512");
	assert_non_null(strstr(c, "cryptsetup reencrypt --cipher "
				  "aes-xts-plain64 --key-size 512 "
				  "--sector-size 512 DEVICE"));
	assert_null(strstr(c, "refresh"));

	/* The user's device: its discards passed on, by its name. */
	assert_int_equal(tune_plan_device("mine", 0,
					  CRYPT_ACTIVATE_SAME_CPU_CRYPT | nrw,
					  &debian_61, &plan),
			 0);
	snprintf(tr.device, sizeof(tr.device), "mine");
	tr.device_discards = true;
	c = advise_best(&r, &plan, "mine-no_read_workqueue");
	assert_non_null(strstr(c, "cryptsetup refresh --perf-no_read_workqueue "
				  "--allow-discards [--persistent] mine "));
	tr.device_discards = false;
	c = advise_best(&r, &plan, "mine-no_read_workqueue");
	assert_non_null(strstr(c, "cryptsetup refresh --perf-no_read_workqueue "
				  "[--persistent] mine "));
	assert_null(strstr(c, "discards"));
	memset(&tr, 0, sizeof(tr));

	/* Sector size crossed with a flag: the reencryption, then the
	 * refresh with that flag. */
	assert_int_equal(
		tune_plan_make("luks2", &ref, cross, &debian_61, &plan), 0);
	for (int i = 0; i < tr.nr_variants && k < 0; i++)
		if (plan.set[i].luks.sector_size == 512 &&
		    plan.set[i].luks.flags == nrw)
			k = i;
	assert_true(k > 0);
	c = advise_best(&r, &plan, tr.v[k].name);
	assert_non_null(strstr(c, "--sector-size 512 DEVICE"));
	assert_non_null(strstr(c, "; then cryptsetup refresh "
				  "--perf-no_read_workqueue [--persistent] "
				  "NAME"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_luks2),
		cmocka_unit_test(test_plan_device),
		cmocka_unit_test(test_plan_cross_and_bad_axes),
		cmocka_unit_test(test_plan_zfs_ecryptfs),
		cmocka_unit_test(test_rank_ties_and_gain),
		cmocka_unit_test(test_rank_defaults_best),
		cmocka_unit_test(test_rank_not_disk),
		cmocka_unit_test(test_advice_luks2),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
