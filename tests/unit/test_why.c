// SPDX-License-Identifier: MIT
/*
 * Why the caller blocked, on hand-made stacks and snapshots: the
 * classification table (the outer reason wins over the wait it ends in;
 * compiler suffixes; no prefix matches), the wakers that say nothing, the
 * share-out of unwoken blocked time by what writeback did (adding up, all
 * in fs without writeback), and the verdicts it words: a write waiting
 * for writeback that encrypts, a ZFS read decrypting from the ARC in the
 * reader's own context.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis.h"
#include "verdict_evidence.h"

#define US 1000ull
#define MS 1000000ull

#define WHY(...)                                                               \
	({                                                                     \
		const char *const f_[] = {__VA_ARGS__};                        \
		block_reason_of(f_, sizeof(f_) / sizeof(f_[0]));               \
	})

static void test_reasons(void **state)
{
	(void)state;
	/* ext4's free-space path ends in a wait for writeback work: the
	 * outer frame says why. */
	assert_int_equal(WHY("__schedule", "schedule", "wb_wait_for_completion",
			     "__writeback_inodes_sb_nr",
			     "try_to_writeback_inodes_sb", "ext4_nonda_switch",
			     "ext4_da_write_begin", "generic_perform_write"),
			 WHY_FREE_SPACE);
	assert_int_equal(WHY("__schedule", "schedule", "wb_wait_for_completion",
			     "sync_inodes_sb", "ksys_sync"),
			 WHY_WRITEBACK_WORK);
	assert_int_equal(WHY("__schedule", "schedule", "schedule_timeout",
			     "io_schedule_timeout",
			     "balance_dirty_pages.isra.0",
			     "balance_dirty_pages_ratelimited_flags"),
			 WHY_DIRTY_THROTTLE);
	/* fsync: a folio under writeback is waited for on its bit. */
	assert_int_equal(WHY("__schedule", "io_schedule",
			     "folio_wait_bit_common", "folio_wait_writeback",
			     "__filemap_fdatawait_range",
			     "file_write_and_wait_range", "ext4_sync_file"),
			 WHY_FOLIO_WRITEBACK);
	assert_int_equal(WHY("__schedule", "schedule", "jbd2_log_wait_commit",
			     "ext4_sync_file"),
			 WHY_JOURNAL);
	assert_int_equal(WHY("__schedule", "io_schedule",
			     "folio_wait_bit_common", "filemap_get_pages",
			     "filemap_read"),
			 WHY_FOLIO_LOCK);
	assert_int_equal(WHY("__schedule", "io_schedule", "blk_io_schedule",
			     "__iomap_dio_rw", "iomap_dio_rw",
			     "ext4_file_read_iter"),
			 WHY_OWN_BIO);
	assert_int_equal(WHY("__schedule", "schedule", "cv_wait_common",
			     "txg_wait_synced_impl", "zfs_fsync"),
			 WHY_ZFS_TXG);
	assert_int_equal(WHY("__schedule", "schedule",
			     "rwsem_down_write_slowpath", "down_write",
			     "ext4_buffered_write_iter"),
			 WHY_LOCK);
	/* A name that only begins like one in the table is not it. */
	assert_int_equal(WHY("__schedule", "ext4_nonda_switchx", "zio_waiter"),
			 WHY_OTHER);
	assert_int_equal(WHY("?"), WHY_OTHER);
}

static void test_silent_wakers(void **state)
{
	const char *const timer[] = {"try_to_wake_up", "process_timeout",
				     "call_timer_fn", "__run_timers"};
	const char *const done[] = {
		"try_to_wake_up",  "folio_wake_bit", "folio_end_writeback",
		"ext4_finish_bio", "ext4_end_bio",   "blk_update_request"};
	const char *const journal[] = {"try_to_wake_up", "__wake_up_common",
				       "jbd2_journal_commit_transaction",
				       "kjournald2"};

	(void)state;
	assert_true(waker_says_nothing(timer, 4));
	assert_true(waker_says_nothing(done, 6));
	assert_false(waker_says_nothing(journal, 4));
}

/* n writes, blocked wb_waker ns woken by the flusher; the target's
 * writeback on a CPU wb_on (samples, crypt of them in cipher code),
 * runnable wb_runq, blocked wb_blocked. */
static void snap_writes(struct wait_counts *ws, uint64_t n, uint64_t wb_waker,
			uint64_t wb_on, uint64_t samples, uint64_t crypt,
			uint64_t wb_runq, uint64_t wb_blocked)
{
	struct wait_stat *w = &ws->ops[EB_OP_WRITE];

	memset(ws, 0, sizeof(*ws));
	ws->available = true;
	ws->sampled = true;
	ws->wb_sampled = true;
	ws->nr_cpus = 2;
	snprintf(ws->source, sizeof(ws->source), "test");
	w->syscalls = n;
	w->ns[LAYER_FS] = 1 * MS;
	w->wb_waker_ns = wb_waker;
	w->total_ns = 1 * MS + wb_waker;
	w->wb_oncpu_ns = wb_on;
	w->wb_runq_ns = wb_runq;
	w->wb_blocked_ns = wb_blocked;
	ws->wb_samples[EB_OP_WRITE] = samples;
	ws->wb_crypt_samples[EB_OP_WRITE] = crypt;
	ws->why_stack_ns[EB_OP_WRITE][WHY_FREE_SPACE] = wb_waker;
}

static void test_share_unwoken(void **state)
{
	struct wait_counts ws;
	struct wait_result r;

	(void)state;
	/* Writeback: 6 ms on a CPU (half of its samples in cipher code),
	 * 3 ms runnable, 1 ms blocked: 10 ms of flusher wakeups go 3, 3,
	 * 3, 1 to crypt, fs, cpu-wait, device. */
	snap_writes(&ws, 10, 10 * MS, 6 * MS, 100, 50, 3 * MS, 1 * MS);
	wait_result_from(&ws, EB_OP_WRITE, &r);
	assert_true(r.unwoken.shared);
	assert_int_equal(r.unwoken.flusher_ns, 10 * MS);
	assert_int_equal(r.unwoken.crypt_ns, 3 * MS);
	assert_int_equal(r.unwoken.fs_ns, 3 * MS);
	assert_int_equal(r.unwoken.runq_ns, 3 * MS);
	assert_int_equal(r.unwoken.device_ns, 1 * MS);
	assert_int_equal(r.ns[LAYER_CRYPT], 3 * MS);
	assert_int_equal(r.ns[LAYER_FS], 4 * MS);
	assert_int_equal(r.ns[LAYER_CPU_WAIT], 3 * MS);
	assert_int_equal(r.ns[LAYER_DEVICE], 1 * MS);
	assert_int_equal(wait_sum_ns(&r), r.total_ns);
	assert_int_equal(r.why_ns[WHY_FREE_SPACE], 10 * MS);
	assert_non_null(strstr(r.source, "no useful waker"));
	/* jbd2 woke 4 ms of it: told apart from the flusher, shared out
	 * the same way (a commit's wait is what writeback did). */
	ws.ops[EB_OP_WRITE].jbd2_waker_ns = 4 * MS;
	wait_result_from(&ws, EB_OP_WRITE, &r);
	assert_int_equal(r.unwoken.journal_ns, 4 * MS);
	assert_int_equal(r.unwoken.flusher_ns, 6 * MS);
	assert_int_equal(r.unwoken.device_ns, 1 * MS);
	assert_int_equal(wait_sum_ns(&r), r.total_ns);
	/* A snapshot saying jbd2 woke more than all writeback workers
	 * did: no more than theirs is jbd2's. */
	ws.ops[EB_OP_WRITE].jbd2_waker_ns = 20 * MS;
	wait_result_from(&ws, EB_OP_WRITE, &r);
	assert_int_equal(r.unwoken.journal_ns, 10 * MS);
	assert_int_equal(r.unwoken.flusher_ns, 0);
	assert_int_equal(wait_sum_ns(&r), r.total_ns);
	/* Writeback 6 ms on a CPU, 4 ms runnable, 10 ms blocked, of which
	 * its wakers' chains told 6 ms as dm (dm-delay holding its writes)
	 * and 1 ms as blk-queue: of the 5 ms blocked share, 3 ms is dm,
	 * 0.5 ms blk-queue, and what no chain told (1.5 ms) stays device. */
	snap_writes(&ws, 10, 10 * MS, 6 * MS, 100, 50, 4 * MS, 10 * MS);
	ws.ops[EB_OP_WRITE].wb_blocked_layer_ns[LAYER_DM] = 6 * MS;
	ws.ops[EB_OP_WRITE].wb_blocked_layer_ns[LAYER_BLK_QUEUE] = 1 * MS;
	wait_result_from(&ws, EB_OP_WRITE, &r);
	assert_int_equal(r.unwoken.blocked_ns[LAYER_DM], 3 * MS);
	assert_int_equal(r.unwoken.blocked_ns[LAYER_BLK_QUEUE], MS / 2);
	assert_int_equal(r.unwoken.device_ns, 3 * MS / 2);
	assert_int_equal(r.unwoken.blocked_ns[LAYER_DEVICE], 3 * MS / 2);
	assert_int_equal(r.ns[LAYER_DM], 3 * MS);
	assert_int_equal(r.ns[LAYER_DEVICE], 3 * MS / 2);
	assert_int_equal(wait_sum_ns(&r), r.total_ns);
	/* Odd figures still add up exactly (rounding goes to fs). */
	snap_writes(&ws, 7, 1000003, 333, 7, 3, 333, 333);
	ws.ops[EB_OP_WRITE].wb_blocked_layer_ns[LAYER_DM] = 111;
	ws.ops[EB_OP_WRITE].wb_blocked_layer_ns[LAYER_CRYPT] = 97;
	wait_result_from(&ws, EB_OP_WRITE, &r);
	assert_int_equal(wait_sum_ns(&r), r.total_ns);
	/* Writeback not seen: all of it is the file system's. */
	snap_writes(&ws, 10, 10 * MS, 0, 0, 0, 0, 0);
	wait_result_from(&ws, EB_OP_WRITE, &r);
	assert_false(r.unwoken.shared);
	assert_int_equal(r.ns[LAYER_FS], 11 * MS);
	assert_int_equal(r.ns[LAYER_CRYPT], 0);
	assert_int_equal(wait_sum_ns(&r), r.total_ns);
	assert_null(strstr(r.source, "no useful waker"));
}

/*
 * test_vm_truth's plain fsync in 2 runs of 7: jbd2 committed under a
 * dm-delay hold (250 ms blocked, all of it dm by its wakers' chains)
 * while the flusher was blocked as long on something no chain told. The
 * fsync's 250 ms wait on jbd2, shared out with the whole of writeback,
 * came out half dm, half device; by jbd2's own time, all dm.
 */
static void test_share_journal_by_jbd2(void **state)
{
	struct wait_counts ws;
	struct wait_stat *wb = &ws.ops[EB_OP_WRITE], *sync;
	struct wait_result r;

	(void)state;
	snap_writes(&ws, 4, 0, 2 * MS, 10, 0, 0, 500 * MS);
	wb->wb_blocked_layer_ns[LAYER_DM] = 250 * MS;
	sync = &ws.ops[EB_OP_SYNC];
	sync->syscalls = 1;
	sync->wb_waker_ns = sync->jbd2_waker_ns = 250 * MS;
	sync->total_ns = 250 * MS;
	/* Older snapshots keep no jbd2 part: shared out with the whole,
	 * as before (half of it device). */
	wait_result_from(&ws, EB_OP_SYNC, &r);
	assert_false(r.unwoken.journal_by_jbd2);
	assert_true(r.ns[LAYER_DEVICE] > 120 * MS);
	assert_true(r.ns[LAYER_DM] < 130 * MS);
	assert_int_equal(wait_sum_ns(&r), r.total_ns);
	/* jbd2's part kept apart: 1 ms on a CPU, 250 ms blocked, all dm. */
	wb->jbd2_oncpu_ns = 1 * MS;
	wb->jbd2_blocked_ns = 250 * MS;
	wb->jbd2_blocked_layer_ns[LAYER_DM] = 250 * MS;
	wait_result_from(&ws, EB_OP_SYNC, &r);
	assert_true(r.unwoken.journal_by_jbd2);
	assert_int_equal(r.unwoken.journal_ns, 250 * MS);
	/* 250 ms by 1 + 250 ms: 249.0 dm, 1.0 fs, none device. */
	assert_in_range(r.ns[LAYER_DM], 248900 * US, 249100 * US);
	assert_in_range(r.ns[LAYER_FS], 900 * US, 1100 * US);
	assert_int_equal(r.ns[LAYER_DEVICE], 0);
	assert_int_equal(wait_sum_ns(&r), r.total_ns);
	/* What the flusher woke is still shared out with the whole. */
	sync->wb_waker_ns = 300 * MS;
	sync->total_ns = 300 * MS;
	wait_result_from(&ws, EB_OP_SYNC, &r);
	assert_int_equal(r.unwoken.flusher_ns, 50 * MS);
	/* 50 ms by 2 + 500 ms: 49.8 blocked, half dm, half device. */
	assert_in_range(r.ns[LAYER_DEVICE], 24800 * US, 25000 * US);
	assert_int_equal(wait_sum_ns(&r), r.total_ns);
	/* A bad snapshot whose jbd2 part exceeds the whole: no more than
	 * the whole is jbd2's, and the parts still add up. */
	wb->jbd2_blocked_ns = 900 * MS;
	wb->jbd2_blocked_layer_ns[LAYER_DM] = 900 * MS;
	wait_result_from(&ws, EB_OP_SYNC, &r);
	assert_int_equal(wait_sum_ns(&r), r.total_ns);
	/* jbd2 blocked 500 ms of 501 (not 900 of 901): 249.50 ms of its
	 * 250 dm, and 24.90 of the flusher's 50: 274.40 (274.62 unclamped). */
	assert_in_range(r.ns[LAYER_DM], 274350 * US, 274450 * US);
}

/* A share rounded up on a tie takes no part below 0: all of the pool in
 * cipher code and blocked, 1 ns each way, no runnable time. */
static void test_share_rounding_tie(void **state)
{
	struct wait_counts ws;
	struct wait_result r;

	(void)state;
	snap_writes(&ws, 1, 3, 1, 1, 1, 0, 1);
	wait_result_from(&ws, EB_OP_WRITE, &r);
	assert_true(r.unwoken.runq_ns <= 3);
	assert_true(r.unwoken.crypt_ns + r.unwoken.runq_ns + r.unwoken.fs_ns +
			    r.unwoken.device_ns <=
		    3);
	assert_int_equal(wait_sum_ns(&r), r.total_ns);
}

/* A waker that says nothing is shared out for any op, by op write's
 * writeback; a waker in crypto code stays crypt, the rest fs. */
static void test_silent_waker_share(void **state)
{
	struct wait_counts ws;
	struct wait_stat *s = &ws.ops[EB_OP_SYNC];
	struct wait_result r;

	(void)state;
	snap_writes(&ws, 10, 0, 8 * MS, 100, 100, 0, 2 * MS);
	s->syscalls = 1;
	s->waker_stack_ns = 20 * MS;
	s->total_ns = 20 * MS;
	ws.waker_crypt_ns[EB_OP_SYNC] = 5 * MS;
	/* More silent than the crypt waker leaves: capped. */
	ws.waker_silent_ns[EB_OP_SYNC] = 12 * MS;
	wait_result_from(&ws, EB_OP_SYNC, &r);
	assert_int_equal(r.unwoken.other_ns, 12 * MS);
	/* Writeback: all of its CPU time in cipher code, 8 of 10 ms. */
	assert_int_equal(r.ns[LAYER_CRYPT], 5 * MS + 9600 * US);
	assert_int_equal(r.ns[LAYER_DEVICE], 2400 * US);
	assert_int_equal(r.ns[LAYER_FS], 3 * MS);
	assert_int_equal(wait_sum_ns(&r), r.total_ns);
	ws.waker_silent_ns[EB_OP_SYNC] = 20 * MS;
	wait_result_from(&ws, EB_OP_SYNC, &r);
	assert_int_equal(r.unwoken.other_ns, 15 * MS);
	assert_int_equal(r.ns[LAYER_FS], 0);
	assert_int_equal(wait_sum_ns(&r), r.total_ns);
}

static void attribution_of(struct attribution *a, const char *target, int op,
			   const struct wait_counts *ws)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->target, sizeof(a->target), "%s", target);
	snprintf(a->workload, sizeof(a->workload), "dd");
	a->op = op;
	wait_result_from(ws, op, &a->wait);
}

/* The evidence says which time a commit's waiter was shared out by. */
static void test_evidence_journal_by_jbd2(void **state)
{
	struct wait_counts ws;
	struct attribution a;
	struct verdict v;
	struct wait_stat *sync = &ws.ops[EB_OP_SYNC];

	(void)state;
	snap_writes(&ws, 4, 0, 2 * MS, 10, 0, 0, 500 * MS);
	sync->syscalls = 1;
	sync->wb_waker_ns = sync->jbd2_waker_ns = 250 * MS;
	sync->total_ns = 250 * MS;
	attribution_of(&a, "plain", EB_OP_SYNC, &ws);
	memset(&v, 0, sizeof(v));
	verdict_why_lines(&a, &v);
	assert_true(has_evidence(&v, "shared by what the target's writeback "
				     "workers did: "));
	ws.ops[EB_OP_WRITE].jbd2_blocked_ns = 250 * MS;
	attribution_of(&a, "plain", EB_OP_SYNC, &ws);
	memset(&v, 0, sizeof(v));
	verdict_why_lines(&a, &v);
	assert_true(has_evidence(&v, "workers did (jbd2's commits by jbd2's "
				     "own time): "));
}

static void test_verdict_waits_for_writeback(void **state)
{
	struct wait_counts ws, base;
	struct attribution a, b;
	struct target_info t;
	struct verdict v;

	(void)state;
	/* Baseline: 1 ms per write in fs, no writeback wait. */
	snap_writes(&base, 10, 0, 0, 0, 0, 0, 0);
	/* 100 writes waiting 1 s for a writeback that spends 66 % of its
	 * time in cipher code. */
	snap_writes(&ws, 100, 1000 * MS, 660 * MS, 100, 100, 240 * MS,
		    100 * MS);
	attribution_of(&b, "plain", EB_OP_WRITE, &base);
	attribution_of(&a, "fscrypt", EB_OP_WRITE, &ws);
	memset(&t, 0, sizeof(t));
	snprintf(t.kind, sizeof(t.kind), "fscrypt");
	t.encrypted = true;
	snprintf(t.encryption.driver, sizeof(t.encryption.driver),
		 "xts(ecb(aes-fixed-time))");
	verdict_wait(&a, &b, &t, true, &v);
	assert_non_null(strstr(v.summary, "10.0 ms of its 10.0 ms per write is "
					  "waiting for writeback (mostly "
					  "ext4's free-space writeback"));
	assert_non_null(
		strstr(v.summary, "which spends 66 % of its time encrypting"));
	assert_non_null(strstr(v.summary, "xts(ecb(aes-fixed-time)) is "
					  "software AES"));
	assert_null(strstr(v.summary, "file system"));
	/* Writeback that does not encrypt: said, the cipher not named. */
	snap_writes(&ws, 100, 1000 * MS, 660 * MS, 100, 0, 240 * MS, 100 * MS);
	attribution_of(&a, "plain2", EB_OP_WRITE, &ws);
	verdict_wait(&a, &b, &t, true, &v);
	assert_non_null(
		strstr(v.summary, "which spends 0 % of its time encrypting"));
	assert_null(strstr(v.summary, "software AES"));
	/* Below dm-crypt the flusher does not encrypt, kcryptd does: no
	 * claim of writeback's share. */
	snprintf(t.kind, sizeof(t.kind), "luks2");
	verdict_wait(&a, &b, &t, true, &v);
	assert_null(strstr(v.summary, "of its time encrypting"));
}

/*
 * A writer woken by the flusher can wait for a CPU behind it: CI's run of
 * test_why (integration) had 5.81 ms of a 15.4 ms MiB so, the flusher
 * holding 95 % of the samples, and the write verdict named CPU
 * contention instead of the writeback it waited for. Runnable behind the
 * target's writeback workers is waiting for writeback; its cipher code's
 * share of it is waiting for encryption; the rest of the other tasks'
 * part stays contention.
 */
static void test_verdict_runnable_behind_writeback(void **state)
{
	struct wait_counts ws, base;
	struct attribution a, b;
	struct target_info t;
	struct verdict v;
	struct wait_stat *w = &ws.ops[EB_OP_WRITE];

	(void)state;
	snap_writes(&base, 10, 0, 0, 0, 0, 0, 0);
	/* 100 writes blocked 500 ms on a writeback 95 % in cipher code, and
	 * runnable 700 ms behind other tasks. */
	snap_writes(&ws, 100, 500 * MS, 600 * MS, 100, 95, 0, 0);
	w->ns[LAYER_CPU_WAIT] = 700 * MS;
	w->total_ns += 700 * MS;
	w->behind_samples[NR_WORKER_KINDS] = 100;
	memset(&t, 0, sizeof(t));
	snprintf(t.kind, sizeof(t.kind), "fscrypt");
	t.encrypted = true;
	snprintf(t.encryption.driver, sizeof(t.encryption.driver),
		 "xts(ecb(aes-fixed-time))");
	attribution_of(&b, "plain", EB_OP_WRITE, &base);
	/* None of those tasks a writeback worker: the 5 ms blocked is under
	 * half of the 11.9 ms the target adds, and it is contention. */
	attribution_of(&a, "fscrypt", EB_OP_WRITE, &ws);
	assert_true(a.wait.cpu_wait_wb_ns == 0);
	verdict_wait(&a, &b, &t, true, &v);
	if (strstr(v.summary, "waiting for writeback") ||
	    !strstr(v.summary, "CPU contention"))
		fail_msg("%s", v.summary);
	/* 95 of its 100 samples the flusher's: 6.65 ms per write behind
	 * it, so 11.65 ms waiting for writeback. */
	w->behind_wb_samples = 95;
	attribution_of(&a, "fscrypt", EB_OP_WRITE, &ws);
	assert_true(a.wait.cpu_wait_wb_ns == 665 * MS);
	assert_true(a.wait.cpu_wait_behind_ns[NR_WORKER_KINDS] == 700 * MS);
	verdict_wait(&a, &b, &t, true, &v);
	if (!strstr(v.summary, "11.7 ms of its 12.0 ms per write is waiting "
			       "for writeback (mostly ext4's free-space "
			       "writeback (ext4_nonda_switch); 6.65 ms of it "
			       "runnable behind writeback's workers), which "
			       "spends 95 % of its time encrypting"))
		fail_msg("%s", v.summary);
	assert_true(has_evidence(&v, "other tasks 7.00 ms, writeback's "
				     "workers 6.65 ms)"));
	/* Its cipher code's share (95 %) is crypto work holding the CPUs. */
	assert_true(fabs(wait_added_crypt_held(&a.wait, &b.wait) -
			 0.95 * 6.65 * MS) < 1.0);
	assert_true(fabs(wait_added_crypt_held(&a.wait, NULL) -
			 0.95 * 6.65 * MS) < 1.0);
	/* A snapshot saying more writeback samples than other tasks had:
	 * no more than the other tasks' part. */
	w->behind_wb_samples = 300;
	attribution_of(&a, "fscrypt", EB_OP_WRITE, &ws);
	assert_true(a.wait.cpu_wait_wb_ns == 700 * MS);
	assert_true(a.wait.behind_wb_samples == 100);
}

static void test_verdict_zfs_arc_own_context(void **state)
{
	struct wait_counts ws;
	struct wait_stat *w = &ws.ops[EB_OP_READ];
	struct attribution a;
	struct target_info t;
	struct verdict v;

	(void)state;
	memset(&ws, 0, sizeof(ws));
	ws.available = true;
	ws.sampled = true;
	snprintf(ws.source, sizeof(ws.source), "test");
	/* 96 % of the read time on a CPU, 75 % of its samples decrypting. */
	w->syscalls = 96;
	w->oncpu_ns = 96 * MS;
	w->ns[LAYER_FS] = 4 * MS;
	w->total_ns = 100 * MS;
	ws.samples[EB_OP_READ] = 400;
	ws.crypt_samples[EB_OP_READ] = 300;
	ws.arc.measured = true;
	ws.arc.data_hits = 990;
	ws.arc.data_misses = 10;
	attribution_of(&a, "zfs", EB_OP_READ, &ws);
	memset(&t, 0, sizeof(t));
	snprintf(t.kind, sizeof(t.kind), "zfs");
	t.encrypted = true;
	verdict_wait(&a, NULL, &t, true, &v);
	assert_non_null(strstr(v.summary, "72 % of read time is decryption in "
					  "the reader's own context"));
	assert_non_null(strstr(v.summary, "the reads hit the ARC (99 % of "
					  "demand data reads hit"));
	assert_non_null(strstr(v.summary, "keeps the data encrypted"));
	assert_null(strstr(v.summary, "waiting"));
	/* Not measured: said so, never guessed. */
	ws.arc.measured = false;
	attribution_of(&a, "zfs", EB_OP_READ, &ws);
	verdict_wait(&a, NULL, &t, true, &v);
	assert_non_null(strstr(v.summary, "whether the reads hit the ARC was "
					  "not measured"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reasons),
		cmocka_unit_test(test_silent_wakers),
		cmocka_unit_test(test_share_unwoken),
		cmocka_unit_test(test_share_journal_by_jbd2),
		cmocka_unit_test(test_share_rounding_tie),
		cmocka_unit_test(test_evidence_journal_by_jbd2),
		cmocka_unit_test(test_silent_waker_share),
		cmocka_unit_test(test_verdict_waits_for_writeback),
		cmocka_unit_test(test_verdict_runnable_behind_writeback),
		cmocka_unit_test(test_verdict_zfs_arc_own_context),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
