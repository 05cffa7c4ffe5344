// SPDX-License-Identifier: MIT
/*
 * Names of the layer and op vocabularies. These strings appear in every
 * output (text, JSON, file names), so they are spelled once, here.
 */
#include <stdio.h>
#include <string.h>

#include "results.h"

static const char *const layer_names[NR_LAYERS] = {
	[LAYER_SYSCALL] = "syscall",
	[LAYER_FS] = "fs",
	[LAYER_CRYPT_QUEUE] = "crypt-queue",
	[LAYER_CRYPT] = "crypt",
	[LAYER_DMCRYPT_WRITE] = "dmcrypt-write",
	[LAYER_DM] = "dm",
	[LAYER_BLK_QUEUE] = "blk-queue",
	[LAYER_DEVICE] = "device",
	[LAYER_CPU_WAIT] = "cpu-wait",
};

static const char *const layer_state_names[NR_LAYER_STATES] = {
	[LAYER_MEASURED] = "measured",
	[LAYER_FALLBACK] = "fallback",
	[LAYER_DERIVED] = "derived",
	[LAYER_NOT_MEASURED] = "not measured",
	[LAYER_UNAVAILABLE] = "unavailable",
	[LAYER_NOT_APPLICABLE] = "not applicable",
};

static const char *const op_names[NR_OPS] = {
	[EB_OP_READ] = "read", [EB_OP_WRITE] = "write",
	[EB_OP_SYNC] = "sync", [EB_OP_CREATE] = "create",
	[EB_OP_COPY] = "copy", [EB_OP_REAP] = "reap",
};

/* The calls each op groups (ops.c's table), for the text that shows a
 * mean per op: "one write call" must not hide what it includes. */
static const char *const op_calls[NR_OPS] = {
	[EB_OP_READ] = "read/pread/readv and io_uring read",
	[EB_OP_WRITE] = "write/pwrite/writev and io_uring write",
	[EB_OP_SYNC] = "fsync/fdatasync/sync_file_range/syncfs",
	[EB_OP_CREATE] = "open(O_CREAT)/creat/mkdir/unlink/rmdir/rename",
	[EB_OP_COPY] = "copy_file_range/sendfile/splice",
	[EB_OP_REAP] = ("io_getevents/io_pgetevents/io_uring_enter waiting "
			"for completions"),
};

/* Plural for sentences: "reads are crypto-bound". */
static const char *const op_plurals[NR_OPS] = {
	[EB_OP_READ] = "reads",	 [EB_OP_WRITE] = "writes",
	[EB_OP_SYNC] = "syncs",	 [EB_OP_CREATE] = "creates",
	[EB_OP_COPY] = "copies", [EB_OP_REAP] = "reaps",
};

static int index_of(const char *const *names, int nr, const char *name)
{
	if (!name)
		return -1;
	for (int i = 0; i < nr; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

/* "unknown" for an out-of-range value: callers print the result directly,
 * and it must neither crash them nor pass for a real layer name. */
const char *layer_name(int layer)
{
	if (layer < 0 || layer >= NR_LAYERS)
		return "unknown";
	return layer_names[layer];
}

int layer_from_name(const char *name)
{
	return index_of(layer_names, NR_LAYERS, name);
}

const char *layer_state_name(enum layer_state s)
{
	if ((int)s < 0 || s >= NR_LAYER_STATES)
		return "unknown";
	return layer_state_names[s];
}

int layer_state_from_name(const char *name)
{
	return index_of(layer_state_names, NR_LAYER_STATES, name);
}

const char *op_name(int op)
{
	if (op < 0 || op >= NR_OPS)
		return "unknown";
	return op_names[op];
}

/* JSON keys and the words the verdicts use, by enum block_reason. */
static const char *const block_reason_keys[NR_BLOCK_REASONS] = {
	"free_space", "dirty_throttle", "writeback_work", "folio_writeback",
	"journal",    "own_bio",	"folio_lock",	  "zfs_txg",
	"zfs_zio",    "lock",		"other",
};

static const char *const block_reason_names[NR_BLOCK_REASONS] = {
	[WHY_FREE_SPACE] = "ext4's free-space writeback (ext4_nonda_switch)",
	[WHY_DIRTY_THROTTLE] = "dirty throttling (balance_dirty_pages)",
	[WHY_WRITEBACK_WORK] = "writeback work it started "
			       "(wb_wait_for_completion)",
	[WHY_FOLIO_WRITEBACK] = "a folio under writeback "
				"(folio_wait_writeback)",
	[WHY_JOURNAL] = "a journal commit (jbd2)",
	[WHY_OWN_BIO] = "a bio it submitted",
	[WHY_FOLIO_LOCK] = "a folio lock (a read in flight)",
	[WHY_ZFS_TXG] = "a ZFS transaction group (txg_wait)",
	[WHY_ZFS_ZIO] = "a ZFS zio of its own (zio_wait, zil_commit)",
	[WHY_LOCK] = "a lock (mutex, rwsem)",
	[WHY_OTHER] = "other",
};

const char *block_reason_key(int why)
{
	return why < 0 || why >= NR_BLOCK_REASONS ? "other"
						  : block_reason_keys[why];
}

const char *block_reason_name(int why)
{
	return why < 0 || why >= NR_BLOCK_REASONS ? "other"
						  : block_reason_names[why];
}

int block_reason_from_key(const char *key)
{
	return index_of(block_reason_keys, NR_BLOCK_REASONS, key);
}

const char *op_calls_of(int op)
{
	return op < 0 || op >= NR_OPS ? "unknown" : op_calls[op];
}

const char *op_plural(int op)
{
	return op < 0 || op >= NR_OPS ? "unknown" : op_plurals[op];
}

int op_from_name(const char *name)
{
	return index_of(op_names, NR_OPS, name);
}

static struct param *param_add(struct param_list *l, const char *key,
			       enum param_kind kind)
{
	struct param *p;

	if (l->n >= MAX_PARAMS)
		return NULL;
	p = &l->p[l->n++];
	memset(p, 0, sizeof(*p));
	snprintf(p->key, sizeof(p->key), "%s", key);
	p->kind = kind;
	return p;
}

void param_int(struct param_list *l, const char *key, long long v)
{
	struct param *p = param_add(l, key, PARAM_INT);

	if (p)
		p->i = v;
}

void param_num(struct param_list *l, const char *key, double v)
{
	struct param *p = param_add(l, key, PARAM_NUM);

	if (p)
		p->num = v;
}

void param_bool(struct param_list *l, const char *key, bool v)
{
	struct param *p = param_add(l, key, PARAM_BOOL);

	if (p)
		p->i = v;
}

void param_str(struct param_list *l, const char *key, const char *v)
{
	struct param *p = param_add(l, key, PARAM_STR);

	if (p)
		snprintf(p->str, sizeof(p->str), "%s", v);
}

const struct param *results_param(const struct results *r, const char *wl,
				  const char *key)
{
	for (int i = 0; i < r->nr_workloads && i < MAX_WORKLOADS; i++) {
		const struct param_list *pl = &r->workloads[i].params;

		if (strcmp(r->workloads[i].name, wl))
			continue;
		for (int k = 0; k < pl->n && k < MAX_PARAMS; k++)
			if (!strcmp(pl->p[k].key, key))
				return &pl->p[k];
	}
	return NULL;
}

/* The share (%) of read_bytes (> 0) the device did not deliver. */
static double cached_pct_of(double read_bytes, double dev_bytes)
{
	double pct = 100.0 * (1.0 - dev_bytes / read_bytes);

	/* Read-ahead can bring more than was read: nothing came cached. */
	return pct < 0 ? 0 : pct;
}

double result_cached_pct(const struct result *res)
{
	if (res->read_bytes <= 0 || !res->dev_samples ||
	    res->dev_samples < res->nr_samples)
		return -1;
	return cached_pct_of(res->read_bytes, res->dev_read_bytes);
}

bool iteration_cached(double read_bytes, double dev_bytes)
{
	return read_bytes > 0 &&
	       cached_pct_of(read_bytes, dev_bytes) > CACHED_PCT_MAX;
}

/* Whether res's cached iterations are to be split off: some, at least
 * two others, not split yet, their places in recording order (ascending,
 * each a sample). */
static bool split_applies(const struct result *res)
{
	int k = res->nr_cached_at, n = res->nr_samples;

	if (!k || k > MAX_CACHED_SAMPLES || n - k < 2 || res->nr_cached)
		return false;
	for (int i = 0; i < k; i++)
		if (res->cached_at[i] >= n ||
		    (i && res->cached_at[i] <= res->cached_at[i - 1]))
			return false;
	return true;
}

int result_disk_samples(const struct result *res, double *out)
{
	bool split = split_applies(res);
	int kept = 0, c = 0;

	for (int i = 0; i < res->nr_samples; i++) {
		if (split && c < res->nr_cached_at && res->cached_at[c] == i) {
			c++;
			continue;
		}
		out[kept++] = res->samples[i];
	}
	return kept;
}

void result_split_cached(struct result *res)
{
	int k = res->nr_cached_at, n = res->nr_samples, kept = 0, c = 0;

	if (!split_applies(res))
		return;
	for (int i = 0; i < n; i++) {
		if (c < k && res->cached_at[c] == i) {
			res->cached[c] = res->samples[i];
			res->cached_iteration[c++] = res->iteration[i];
			continue;
		}
		res->samples[kept] = res->samples[i];
		res->iteration[kept++] = res->iteration[i];
	}
	res->nr_samples = kept;
	res->nr_cached = k;
	res->read_bytes -= res->cached_read_bytes;
	res->dev_read_bytes -= res->cached_dev_read_bytes;
	res->dev_samples -= k;
}
