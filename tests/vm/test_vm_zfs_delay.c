// SPDX-License-Identifier: MIT
/*
 * Runs INSIDE the VM guest, with OpenZFS (scripts/vm/run --zfs): injected
 * truth under ZFS, as test_vm_truth.c does for ext4, LUKS2 and eCryptfs.
 * A pool whose vdev is a dm-delay device on a loop device (not a file
 * vdev: the delay must be below the pool), dm-delay holding every read
 * READ_MS and every write and flush WRITE_MS, and two datasets as a user
 * has them: one unencrypted, one aes-256-gcm, both primarycache=metadata
 * (each read misses the ARC and goes to the vdev) with ZFS's prefetch
 * off (one read in flight: each dd read is one bio, waited for in turn).
 * `encbench-trace trace` follows dd reading and then overwriting a file
 * of each with fsync; what the program puts in dm + blk-queue + device
 * per read (for a dataset, the device's share comes from ZFS's own zio
 * stages: the vdev is the pool's) is checked against the kernel's own
 * accounting of the same bios on the dm-delay device, as in
 * test_vm_truth. The decryption runs
 * on ZFS's z_rd_int threads after each read's bio: it is crypt, and no
 * more than a small part beside the delay.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "../results_json.h"
#include "vm_run.h"
#include "vm_shell.h"

/* Whole jiffies at HZ=250, as in test_vm_truth. */
#define READ_MS	 60
#define WRITE_MS 80
#define JIFFY_MS 4
/* dd's reads: one 128 KiB record each (the datasets' recordsize). */
#define NIO	 8
#define BLOCK	 (128 * 1024)
#define PREFETCH "/sys/module/zfs/parameters/zfs_prefetch_disable"

enum { PLAIN, ENC, NR_SETS };
enum { RD, WR };

struct dataset {
	const char *name;
	char mnt[128];
	json_object *doc; /* trace of the reads and the overwrite */
	/* dm-delay's stat over each dd: completed I/Os and ticks (ms);
	 * writes while dd read (must be none). */
	unsigned long long ios[2], ticks[2], writes_in_reads;
};

static char tmp[] = "/var/tmp/encbench-vmzdelay.XXXXXX";
static char loop[64], delay[64], dm[32], pool[64], prefetch[8];
static unsigned long long sectors;
static bool delayed, pooled;
static struct dataset ds[NR_SETS] = {{.name = "plain"}, {.name = "enc"}};

static int set_delays(int read_ms, int write_ms)
{
	/* Three pairs: reads, writes, flushes (dm-delay's table). */
	return sh("dmsetup suspend %s && dmsetup load %s --table "
		  "'0 %llu delay %s 0 %d %s 0 %d %s 0 %d' && dmsetup resume %s",
		  delay, delay, sectors, loop, read_ms, loop, write_ms, loop,
		  write_ms, delay);
}

static int make_pool(void)
{
	char img[sizeof(tmp) + 8];

	snprintf(delay, sizeof(delay), "encbench-vmzdelay-%d", getpid());
	snprintf(pool, sizeof(pool), "encbench-vmzdelay-%d", getpid());
	if (sh("truncate -s 512M %s/img && head -c 32 /dev/urandom > %s/key",
	       tmp, tmp))
		return -1;
	snprintf(img, sizeof(img), "%s/img", tmp);
	if (vm_delay_map(img, delay, loop, sizeof(loop), &sectors, &delayed) ||
	    vm_dm_name(delay, dm, sizeof(dm)))
		return -1;
	/* Built undelayed (vm_delay_map); compression off: every record
	 * is its bytes. */
	if (sh("zpool create -o cachefile=none -o ashift=12 -O compression=off "
	       "-O atime=off -O primarycache=metadata -m none %s "
	       "/dev/mapper/%s",
	       pool, delay))
		return -1;
	pooled = true;
	for (int i = 0; i < NR_SETS; i++) {
		char enc[sizeof(tmp) + 96] = "";

		if (i == ENC)
			snprintf(enc, sizeof(enc),
				 "-o encryption=aes-256-gcm -o keyformat=raw "
				 "-o keylocation=file://%s/key",
				 tmp);
		snprintf(ds[i].mnt, sizeof(ds[i].mnt), "%s/%s", tmp,
			 ds[i].name);
		if (sh("zfs create %s -o mountpoint=%s %s/%s && "
		       "dd if=/dev/urandom of=%s/f bs=%d count=%d conv=fsync "
		       "status=none",
		       enc, ds[i].mnt, pool, ds[i].name, ds[i].mnt, BLOCK, NIO))
			return -1;
	}
	return 0;
}

/* `trace --path mnt -- sh -c 'cat stat; dd (reads); cat stat; dd
 * (overwrite, fsync); cat stat'`, dm-delay's stat around each dd. */
static int trace_dataset(struct dataset *d)
{
	char out[160], script[1024], f[3][160];
	unsigned long long ios[3][2], ticks[3][2];
	const char *args[] = {"--path", d->mnt, "--quiet", "--output", out,
			      "--",	"sh",	"-c",	   script,     NULL};

	snprintf(out, sizeof(out), "%s/trace-%s", tmp, d->name);
	for (int i = 0; i < 3; i++)
		snprintf(f[i], sizeof(f[i]), "%s/stat-%s%d", tmp, d->name, i);
	snprintf(script, sizeof(script),
		 "cat /sys/block/%s/stat > %s && "
		 "dd if=%s/f of=/dev/null bs=%d count=%d status=none && "
		 "cat /sys/block/%s/stat > %s && "
		 "dd if=/dev/zero of=%s/f bs=%d count=%d conv=notrunc,fsync "
		 "status=none && cat /sys/block/%s/stat > %s",
		 dm, f[0], d->mnt, BLOCK, NIO, dm, f[1], d->mnt, BLOCK, NIO, dm,
		 f[2]);
	d->doc = vm_cmd_json("trace", out, args);
	if (!d->doc)
		return -1;
	for (int i = 0; i < 3; i++)
		for (int op = RD; op <= WR; op++)
			if (vm_block_stat(f[i], op == WR, &ios[i][op],
					  &ticks[i][op]))
				return -1;
	for (int op = RD; op <= WR; op++) {
		d->ios[op] = ios[op + 1][op] - ios[op][op];
		d->ticks[op] = ticks[op + 1][op] - ticks[op][op];
	}
	d->writes_in_reads = ios[1][WR] - ios[0][WR];
	return 0;
}

static int teardown(void **state);

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmp))
		return -1;
	if (make_pool()) {
		fprintf(stderr, "# cannot build the pool on dm-delay\n");
		goto fail;
	}
	/* One read in flight per dd read: prefetch off, put back after. */
	if (sh_line(prefetch, sizeof(prefetch), "cat " PREFETCH) ||
	    sh("echo 1 > " PREFETCH) || sh("zpool sync %s", pool) ||
	    set_delays(READ_MS, WRITE_MS))
		goto fail;
	for (int i = 0; i < NR_SETS; i++)
		if (trace_dataset(&ds[i])) {
			fprintf(stderr, "# %s: trace failed\n", ds[i].name);
			goto fail;
		}
	return 0;
fail:
	teardown(state);
	return -1;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < NR_SETS; i++) {
		json_object_put(ds[i].doc);
		ds[i].doc = NULL;
	}
	if (prefetch[0])
		sh("echo %s > " PREFETCH, prefetch);
	prefetch[0] = '\0';
	if (delayed)
		set_delays(0, 0); /* the export's writes, undelayed */
	if (pooled)
		sh("zpool destroy -f %s", pool);
	if (delayed)
		sh("dmsetup remove %s", delay);
	if (loop[0])
		sh("losetup -d %s", loop);
	pooled = delayed = false;
	loop[0] = '\0';
	return sh("rm -rf %s", tmp) ? -1 : 0;
}

static uint64_t u64(json_object *o, const char *k)
{
	return json_object_get_uint64(get(o, k));
}

static const char *op_name(int op)
{
	return op == RD ? "read" : "sync";
}

static json_object *wait_of(struct dataset *d, int op)
{
	return wait_checked(
		get(attrib_of(d->doc, "trace", op_name(op)), "wait"));
}

static double wait_ms(struct dataset *d, int op, const char *comp)
{
	return u64(get(wait_of(d, op), "ns"), comp) / 1e6;
}

static double below_ms(struct dataset *d, int op)
{
	return wait_ms(d, op, "dm") + wait_ms(d, op, "blk-queue") +
	       wait_ms(d, op, "device");
}

static double crypt_ms(struct dataset *d, int op)
{
	return wait_ms(d, op, "crypt") + wait_ms(d, op, "crypt-queue");
}

/* The device below, never encryption, in the op's own verdict. */
static void check_verdict(struct dataset *d, int op)
{
	const char *v = json_object_get_string(
		get(verdict_of(d->doc, "trace", op_name(op)), "summary"));

	fprintf(stderr, "# %s %s verdict: %s\n", d->name, op_name(op), v);
	/* The label's first: a near tie names two (verdict.c CAUSE_TIE). */
	assert_true(strstr(v, "are device-mapper-bound") ||
		    strstr(v, "are device-bound"));
	assert_null(strstr(v, "crypto-bound"));
	assert_null(strstr(v, "decryption"));
	assert_null(strstr(v, "encryption"));
}

/*
 * Each read one bio held READ_MS, waited for in turn: the program's dm +
 * blk-queue + device per I/O within 5 % or a jiffy of dm-delay's own
 * ticks per I/O, which are at least the injected delay. A metadata read
 * the ARC lacked would be one more I/O waited for the same way, so the
 * count may pass NIO by a few; no write meanwhile.
 */
static void check_reads(struct dataset *d)
{
	double ref = (double)d->ticks[RD] / (double)d->ios[RD];
	double got = below_ms(d, RD) / (double)d->ios[RD];
	double tol = 0.05 * ref > JIFFY_MS ? 0.05 * ref : JIFFY_MS;

	fprintf(stderr,
		"# %s reads: dm-delay %llu I/Os, %.1f ms each (injected %d); "
		"the program's dm + blk-queue + device %.1f ms per I/O, "
		"crypt + crypt-queue %.2f ms per I/O\n",
		d->name, d->ios[RD], ref, READ_MS, got,
		crypt_ms(d, RD) / (double)d->ios[RD]);
	assert_true(d->ios[RD] >= NIO);
	assert_true(d->ios[RD] <= NIO + 4);
	assert_int_equal(d->writes_in_reads, 0);
	assert_true(ref >= READ_MS);
	assert_true(ref <= 2.0 * READ_MS);
	assert_true(got >= ref - tol);
	assert_true(got <= ref + tol);
	assert_true(crypt_ms(d, RD) / (double)d->ios[RD] < 0.25 * READ_MS);
	check_verdict(d, RD);
}

/*
 * The overwrite lands in the DMU; fsync commits it through the ZIL in two
 * rounds, each held WRITE_MS by dm-delay: the log block written (with the
 * records' data blocks beside it), then, from the log block's completion,
 * the vdev flushed; the flush's completion wakes the caller. The program
 * must find both rounds in the device (so 2 x WRITE_MS within 5 % or a
 * jiffy, and no more than all of dm-delay's write time together: they
 * may overlap), the
 * encryption (in ZFS's write taskqs) a small part, and the verdict must
 * name the device. Before the chain's first round was followed
 * (zfscrypt.h: prev_issued), only the flush was: in the 6.1 guest
 * (2026-12-03) fsync took 204 ms, 84 ms of it in the device and 118 ms in
 * the file system, "syncs are filesystem-bound: 58 %"; after it
 * (2026-12-04), 179 ms with 167.5 ms in the device, "device-bound: 94 %".
 */
static void check_fsync(struct dataset *d)
{
	json_object *w = wait_of(d, WR);
	double below = below_ms(d, WR);
	double tol =
		0.05 * d->ticks[WR] > JIFFY_MS ? 0.05 * d->ticks[WR] : JIFFY_MS;
	/* 5 % or a jiffy, as for the reads (the clean-clone CI beside a busy
	 * loop, 2026-12-04: 158.9 ms for the encrypted dataset's two). */
	double round_tol =
		0.05 * 2 * WRITE_MS > JIFFY_MS ? 0.05 * 2 * WRITE_MS : JIFFY_MS;

	fprintf(stderr,
		"# %s fsync: %.1f ms, of it dm + blk-queue + device %.1f ms, "
		"crypt + crypt-queue %.2f ms; dm-delay %llu writes, %llu ms "
		"together (injected %d each)\n",
		d->name, u64(w, "total_ns") / 1e6, below, crypt_ms(d, WR),
		d->ios[WR], d->ticks[WR], WRITE_MS);
	assert_true(u64(w, "syscalls") >= 1);
	assert_true(d->ios[WR] >= 2);
	assert_true(below >= 2 * WRITE_MS - round_tol);
	assert_true(below <= (double)d->ticks[WR] + tol);
	assert_true(crypt_ms(d, WR) < 0.25 * WRITE_MS);
	check_verdict(d, WR);
}

static void test_plain_reads(void **state)
{
	(void)state;
	check_reads(&ds[PLAIN]);
}

static void test_plain_fsync(void **state)
{
	(void)state;
	check_fsync(&ds[PLAIN]);
}

static void test_enc_reads(void **state)
{
	(void)state;
	check_reads(&ds[ENC]);
}

static void test_enc_fsync(void **state)
{
	(void)state;
	check_fsync(&ds[ENC]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_reads),
		cmocka_unit_test(test_plain_fsync),
		cmocka_unit_test(test_enc_reads),
		cmocka_unit_test(test_enc_fsync),
	};

	if (vm_zfs_skipped())
		return 0;
	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
