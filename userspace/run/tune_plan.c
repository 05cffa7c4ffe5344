// SPDX-License-Identifier: MIT
/*
 * The variants `tune` builds: per kind a table of axes and their values,
 * each value a change to the reference configuration (the tool's
 * defaults). A value the machine cannot run is still a variant, skipped
 * with the reason, so the table shows what was not tried and why.
 */
#include <linux/fscrypt.h>
#include <stdio.h>
#include <string.h>

#include <libcryptsetup.h>

#include "tune_delta.h"
#include "../storage/dmcrypt.h"

#ifdef CRYPT_ACTIVATE_HIGH_PRIORITY
#define HIGH_PRIORITY CRYPT_ACTIVATE_HIGH_PRIORITY
#else
#define HIGH_PRIORITY 0 /* libcryptsetup < 2.8: the variant is skipped */
#endif
#define NO_WQ                                                                  \
	(CRYPT_ACTIVATE_NO_READ_WORKQUEUE | CRYPT_ACTIVATE_NO_WRITE_WORKQUEUE)

static const struct tune_delta luks2_deltas[] = {
	{.axis = "cipher",
	 .label = "aes-xts-256",
	 .settings = "cipher aes-xts-plain64, 256-bit key",
	 .cipher = "aes-xts-plain64",
	 .key_bits = 256,
	 .needs = {"xts(aes)"}},
	{.axis = "cipher",
	 .label = "adiantum-xchacha12",
	 .settings = "cipher xchacha12,aes-adiantum-plain64, 256-bit key",
	 .cipher = "xchacha12,aes-adiantum-plain64",
	 .key_bits = 256,
	 .needs = {"adiantum(xchacha12,aes)"}},
	{.axis = "cipher",
	 .label = "adiantum-xchacha20",
	 .settings = "cipher xchacha20,aes-adiantum-plain64, 256-bit key",
	 .cipher = "xchacha20,aes-adiantum-plain64",
	 .key_bits = 256,
	 .needs = {"adiantum(xchacha20,aes)"}},
	{.axis = "sector",
	 .label = "sector-512",
	 .settings = "sector size 512",
	 .sector_size = 512},
	{.axis = "flags",
	 .label = "no_read_workqueue",
	 .settings = "flag no_read_workqueue",
	 .flags = CRYPT_ACTIVATE_NO_READ_WORKQUEUE,
	 .since_major = 5,
	 .since_minor = 9},
	{.axis = "flags",
	 .label = "no_write_workqueue",
	 .settings = "flag no_write_workqueue",
	 .flags = CRYPT_ACTIVATE_NO_WRITE_WORKQUEUE,
	 .since_major = 5,
	 .since_minor = 9},
	{.axis = "flags",
	 .label = "no_workqueues",
	 .settings = "flags no_read_workqueue,no_write_workqueue",
	 .flags = NO_WQ,
	 .since_major = 5,
	 .since_minor = 9},
	{.axis = "flags",
	 .label = "same_cpu_crypt",
	 .settings = "flag same_cpu_crypt",
	 .flags = CRYPT_ACTIVATE_SAME_CPU_CRYPT,
	 .since_major = 4},
	{.axis = "flags",
	 .label = "submit_from_crypt_cpus",
	 .settings = "flag submit_from_crypt_cpus",
	 .flags = CRYPT_ACTIVATE_SUBMIT_FROM_CRYPT_CPUS,
	 .since_major = 4},
	{.axis = "flags",
	 .label = "high_priority",
	 .settings = "flag high_priority",
	 .flags = HIGH_PRIORITY,
	 .since_major = 6,
	 .since_minor = 10,
	 .high_priority = true},
	{0},
};

static const struct tune_delta fscrypt_deltas[] = {
	{.axis = "block",
	 .label = "block-1024",
	 .settings = "ext4 block size 1024 (1 KiB data units)",
	 .block_size = 1024},
	{.axis = "block",
	 .label = "block-2048",
	 .settings = "ext4 block size 2048 (2 KiB data units)",
	 .block_size = 2048},
	{.axis = "dataunit",
	 .label = "du-512",
	 .settings = "data unit size 512",
	 .log2_data_unit = 9},
	{.axis = "dataunit",
	 .label = "du-1024",
	 .settings = "data unit size 1024",
	 .log2_data_unit = 10},
	{.axis = "dataunit",
	 .label = "du-2048",
	 .settings = "data unit size 2048",
	 .log2_data_unit = 11},
	{.axis = "contents",
	 .label = "adiantum",
	 .settings = "contents and names Adiantum",
	 .contents_mode = FSCRYPT_MODE_ADIANTUM,
	 .filenames_mode = FSCRYPT_MODE_ADIANTUM,
	 .needs = {"adiantum(xchacha12,aes)"}},
	{.axis = "contents",
	 .label = "aes-128-cbc-essiv",
	 .settings = "contents AES-128-CBC-ESSIV, names AES-128-CTS",
	 .contents_mode = FSCRYPT_MODE_AES_128_CBC,
	 .filenames_mode = FSCRYPT_MODE_AES_128_CTS,
	 .needs = {"essiv(cbc(aes),sha256)", "cts(cbc(aes))"}},
	{.axis = "inlinecrypt",
	 .label = "inlinecrypt",
	 .settings = "mounted -o inlinecrypt (blk-crypto fallback)",
	 .inlinecrypt = true},
	{0},
};

/* One entry per kind `tune` sweeps: a new kind is its table of values
 * and one line here. */
static const struct {
	const char *kind, *axes;
	const struct tune_delta *deltas;
} kinds[] = {
	{"luks2", "cipher, sector, flags", luks2_deltas},
	{"fscrypt", "block, dataunit, contents, inlinecrypt", fscrypt_deltas},
	{"zfs", "encryption, recordsize", zfs_deltas},
	{"ecryptfs", "key, cipher", ecryptfs_deltas},
};

static const struct tune_delta *deltas_of(const char *kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i].kind))
			return kinds[i].deltas;
	return NULL;
}

const char *tune_axes(const char *kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i].kind))
			return kinds[i].axes;
	return NULL;
}

bool tune_kind_known(const char *kind)
{
	return deltas_of(kind) != NULL;
}

const char *tune_baseline(const char *kind)
{
	return strcmp(kind, "zfs") ? "plain" : "zfs-off";
}

bool tune_axis_known(const char *kind, const char *axis)
{
	const struct tune_delta *d = deltas_of(kind);

	for (; d && d->axis; d++)
		if (!strcmp(d->axis, axis))
			return true;
	return false;
}

static bool axis_known(const struct tune_delta *d, const char *axis)
{
	for (; d->axis; d++)
		if (!strcmp(d->axis, axis))
			return true;
	return false;
}

/* Why the machine cannot run d, into why (""), from the facts alone. */
static void why_not(const struct tune_delta *d, const struct tune_facts *f,
		    char *why, size_t len)
{
	char how[DETAIL_LEN];

	why[0] = '\0';
	if (d->high_priority && !f->cryptsetup_high_priority) {
		snprintf(why, len,
			 "needs libcryptsetup 2.8+ (this one has no "
			 "CRYPT_ACTIVATE_HIGH_PRIORITY) and Linux 6.10+");
		return;
	}
	if (d->since_major && (f->kernel_major < d->since_major ||
			       (f->kernel_major == d->since_major &&
				f->kernel_minor < d->since_minor))) {
		snprintf(why, len,
			 "dm-crypt has it since Linux %d.%d (this "
			 "is %d.%d)",
			 d->since_major, d->since_minor, f->kernel_major,
			 f->kernel_minor);
		return;
	}
	if (d->inlinecrypt) {
		snprintf(why, len,
			 f->blk_crypto_fallback
				 ? "tune does not build -o inlinecrypt targets "
				   "yet"
				 : "this kernel has no blk-crypto fallback "
				   "(CONFIG_BLK_INLINE_ENCRYPTION_FALLBACK)");
		return;
	}
	for (int i = 0; i < 2 && d->needs[i]; i++)
		if (!f->cipher_usable(d->needs[i], how, sizeof(how))) {
			snprintf(why, len, "%s", how);
			return;
		}
}

/* Two values of one variant that cannot go together, or NULL. */
static const char *conflict(const struct tune_delta *a,
			    const struct tune_delta *b)
{
	int block = a->block_size ? a->block_size : b->block_size;
	int du = a->log2_data_unit ? a->log2_data_unit : b->log2_data_unit;

	if (block && du && (1 << du) > block)
		return "a data unit larger than the block size";
	if (a->inlinecrypt && (b->contents_mode == FSCRYPT_MODE_ADIANTUM ||
			       b->contents_mode == FSCRYPT_MODE_AES_128_CBC))
		return "blk-crypto has no such inline mode here";
	return NULL;
}

static void apply(const struct tune_delta *d, struct run_target_opts *s)
{
	if (d->cipher)
		snprintf(s->luks.cipher, sizeof(s->luks.cipher), "%s",
			 d->cipher);
	if (d->key_bits)
		s->luks.key_bits = d->key_bits;
	if (d->sector_size)
		s->luks.sector_size = d->sector_size;
	s->luks.flags |= d->flags;
	if (d->block_size)
		s->ext4_block_size = d->block_size;
	if (d->log2_data_unit)
		s->fscrypt.log2_data_unit = d->log2_data_unit;
	if (d->contents_mode) {
		s->fscrypt.contents_mode = d->contents_mode;
		s->fscrypt.filenames_mode = d->filenames_mode;
	}
	if (d->zfs_encryption)
		snprintf(s->zfs.encryption, sizeof(s->zfs.encryption), "%s",
			 d->zfs_encryption);
	if (d->recordsize)
		snprintf(s->zfs.recordsize, sizeof(s->zfs.recordsize), "%s",
			 d->recordsize);
	if (d->ecryptfs_cipher) {
		snprintf(s->ecryptfs.cipher, sizeof(s->ecryptfs.cipher), "%s",
			 d->ecryptfs_cipher);
		s->ecryptfs.key_bytes = d->ecryptfs_key_bytes;
	}
}

/* Variant n of the plan: the reference with a and (crossed) b applied. */
static int add(struct tune_plan *p, const char *kind,
	       const struct luks_options *ref, const struct tune_delta *a,
	       const struct tune_delta *b, const struct tune_facts *f)
{
	struct tune_result *tr = p->out;
	struct tune_variant *v;
	struct run_target_opts *s;
	char why[DETAIL_LEN] = "";
	const char *bad;

	if (tr->nr_variants >= MAX_VARIANTS) {
		fprintf(stderr,
			"encbench-trace: tune: more than %d variants: cross "
			"fewer values\n",
			MAX_VARIANTS);
		return 2;
	}
	v = &tr->v[tr->nr_variants];
	s = &p->set[tr->nr_variants++];
	memset(v, 0, sizeof(*v));
	memset(s, 0, sizeof(*s));
	s->luks = *ref;
	if (!a) {
		v->reference = true;
		snprintf(v->name, NAME_LEN, "%s-default", kind);
		snprintf(v->axis, sizeof(v->axis), "reference");
		snprintf(v->settings, DETAIL_LEN, "the defaults");
		return 0;
	}
	apply(a, s);
	if (b)
		apply(b, s);
	snprintf(v->name, NAME_LEN, "%s-%s%s%s", kind, a->label, b ? "+" : "",
		 b ? b->label : "");
	snprintf(v->axis, sizeof(v->axis), "%s%s%s", a->axis, b ? "+" : "",
		 b ? b->axis : "");
	snprintf(v->settings, DETAIL_LEN, "%s%s%s", a->settings, b ? "; " : "",
		 b ? b->settings : "");
	why_not(a, f, why, sizeof(why));
	if (!why[0] && b)
		why_not(b, f, why, sizeof(why));
	bad = b ? conflict(a, b) : NULL;
	if (bad)
		snprintf(why, sizeof(why), "%s", bad);
	snprintf(v->skipped, DETAIL_LEN, "%s", why);
	return 0;
}

int tune_plan_make(const char *kind, const struct luks_options *ref_luks,
		   const char cross[2][NAME_LEN / 2],
		   const struct tune_facts *facts, struct tune_plan *plan)
{
	const struct tune_delta *d = deltas_of(kind);
	int rc;

	plan->out->nr_variants = 0;
	if (!d) {
		fprintf(stderr,
			"encbench-trace: tune: kind '%s' has no sweep: expected "
			"luks2, fscrypt, zfs or ecryptfs\n",
			kind);
		return 2;
	}
	for (int i = 0; i < 2 && cross[0][0]; i++)
		if (!axis_known(d, cross[i])) {
			fprintf(stderr,
				"encbench-trace: tune: --cross: %s has no axis "
				"'%s' (its axes: %s)\n",
				kind, cross[i], tune_axes(kind));
			return 2;
		}
	if (cross[0][0] && !strcmp(cross[0], cross[1])) {
		fprintf(stderr, "encbench-trace: tune: --cross needs two "
				"different axes\n");
		return 2;
	}
	rc = add(plan, kind, ref_luks, NULL, NULL, facts);
	for (const struct tune_delta *a = d; a->axis && !rc; a++) {
		if (!cross[0][0]) {
			rc = add(plan, kind, ref_luks, a, NULL, facts);
			continue;
		}
		if (strcmp(a->axis, cross[0]))
			continue;
		for (const struct tune_delta *b = d; b->axis && !rc; b++)
			if (!strcmp(b->axis, cross[1]))
				rc = add(plan, kind, ref_luks, a, b, facts);
	}
	return rc;
}

int tune_plan_only(const char *kind, char axes[][NAME_LEN], int nr,
		   struct tune_plan *plan)
{
	const struct tune_delta *d = deltas_of(kind);
	struct tune_result *tr = plan->out;
	int n = 0;

	for (int a = 0; d && a < nr; a++)
		if (!axis_known(d, axes[a])) {
			fprintf(stderr,
				"encbench-trace: tune: --axes: %s has no axis "
				"'%s' (its axes: %s)\n",
				kind, axes[a], tune_axes(kind));
			return 2;
		}
	for (int i = 0; nr && i < tr->nr_variants; i++) {
		bool keep = tr->v[i].reference;

		for (int a = 0; a < nr && !keep; a++)
			keep = !strcmp(tr->v[i].axis, axes[a]);
		if (!keep)
			continue;
		tr->v[n] = tr->v[i];
		plan->set[n++] = plan->set[i];
	}
	if (nr)
		tr->nr_variants = n;
	return 0;
}

/* Next variant of plan, zeroed, its flags perf; NULL when full. */
static struct tune_variant *device_variant(struct tune_plan *p, uint32_t perf)
{
	struct tune_result *tr = p->out;

	if (tr->nr_variants >= MAX_VARIANTS)
		return NULL;
	memset(&tr->v[tr->nr_variants], 0, sizeof(tr->v[0]));
	memset(&p->set[tr->nr_variants], 0, sizeof(p->set[0]));
	p->set[tr->nr_variants].luks.flags = perf;
	return &tr->v[tr->nr_variants++];
}

int tune_plan_device(const char *name, uint32_t perf_now, uint32_t perf_mask,
		     const struct tune_facts *facts, struct tune_plan *plan)
{
	struct tune_variant *v;
	char now[NAME_LEN];

	plan->out->nr_variants = 0;
	dmcrypt_flag_names(perf_now, now, sizeof(now));
	v = device_variant(plan, perf_now); /* the reference: as it is */
	v->reference = true;
	snprintf(v->name, NAME_LEN, "%s-as-is", name);
	snprintf(v->axis, sizeof(v->axis), "reference");
	snprintf(v->settings, DETAIL_LEN, "its flags now: %s", now);
	for (const struct tune_delta *d = luks2_deltas; d->axis; d++) {
		uint32_t perf = perf_now | d->flags;

		if (strcmp(d->axis, "flags"))
			continue;
		v = device_variant(plan, perf);
		if (!v)
			break;
		snprintf(v->name, NAME_LEN, "%s-%s", name, d->label);
		snprintf(v->axis, sizeof(v->axis), "%s", d->axis);
		snprintf(v->settings, DETAIL_LEN, "%s%s%s", d->settings,
			 perf_now ? " added to " : "", perf_now ? now : "");
		why_not(d, facts, v->skipped, DETAIL_LEN);
		if (!v->skipped[0] && (d->flags & ~perf_mask))
			snprintf(v->skipped, DETAIL_LEN,
				 "tune refreshes only no_read_workqueue, "
				 "no_write_workqueue, same_cpu_crypt and "
				 "submit_from_crypt_cpus");
		else if (!v->skipped[0] && perf == perf_now)
			snprintf(v->skipped, DETAIL_LEN,
				 "the device has %s already", d->settings);
	}
	return 0;
}
