// SPDX-License-Identifier: MIT
/*
 * The verdict's words for why the caller blocked: a write that waited
 * for writeback is told as that, with what writeback spent its time on
 * (encrypting, on the target's writeback workers); a read that
 * decrypted on its own CPU (ZFS, whose ARC keeps the data encrypted) as
 * work in its own context, never as waiting; and the evidence lines with
 * the reasons from the caller's own stacks. Pure, as verdict.c.
 */
#include <stdio.h>
#include <string.h>

#include "../common/fmt_time.h"
#include "analysis.h"

/* Waits for writeback, whichever path led there. */
static bool writeback_reason(int why)
{
	return why == WHY_FREE_SPACE || why == WHY_DIRTY_THROTTLE ||
	       why == WHY_WRITEBACK_WORK || why == WHY_FOLIO_WRITEBACK;
}

/* Time per call waiting for writeback, and the largest reason of it
 * (*top): blocked on it, and runnable behind its workers as they held
 * the caller's CPU (woken by the flusher, put on its CPU; it happened in
 * CI's run of test_why: 5.81 ms of a 15.4 ms MiB, the flusher holding
 * 95 % of the samples). */
static double writeback_wait(const struct wait_result *w, int *top)
{
	uint64_t sum = w ? w->cpu_wait_wb_ns : 0;

	*top = -1;
	for (int r = 0; w && r < NR_BLOCK_REASONS; r++) {
		if (!writeback_reason(r))
			continue;
		sum += w->why_ns[r];
		if (w->why_ns[r] &&
		    (*top < 0 || w->why_ns[r] > w->why_ns[*top]))
			*top = r;
	}
	return wait_per_call(w, sum);
}

/* The blocked part of the unwoken share, all layers. */
static uint64_t unwoken_blocked(const struct wait_result *w)
{
	uint64_t sum = 0;

	for (int l = 0; l < NR_LAYERS; l++)
		sum += w->unwoken.blocked_ns[l];
	return sum;
}

/* What writeback did, as the unwoken share of a says it: the part of
 * its time in cipher code, in %. Negative if it was not shared out. */
static double writeback_crypt_pct(const struct wait_result *w)
{
	uint64_t all = w->unwoken.crypt_ns + w->unwoken.fs_ns +
		       w->unwoken.runq_ns + unwoken_blocked(w);

	if (!w->unwoken.shared || !all)
		return -1.0;
	return 100.0 * (double)w->unwoken.crypt_ns / (double)all;
}

/* "; 5.81 ms of it runnable behind writeback's workers": where that is
 * at least 5 % of the wait for writeback x (per call), else "". */
static void runnable_part(const struct wait_result *w, double x, char *buf,
			  size_t len)
{
	double r = wait_per_call(w, w->cpu_wait_wb_ns);
	char rs[32];

	buf[0] = '\0';
	if (r <= 0 || r < 0.05 * x)
		return;
	fmt_ns(rs, sizeof(rs), r);
	snprintf(buf, len, "; %s of it runnable behind writeback's workers",
		 rs);
}

static bool write_op(int op)
{
	return op == EB_OP_WRITE || op == EB_OP_SYNC || op == EB_OP_COPY;
}

/*
 * "writes are N % slower on T than on B (+D per write): X per write
 * waiting for writeback (ext4's free-space path), which spends Y % of its
 * time encrypting (cipher ...)": when the wait for writeback is at least
 * half of the time the target adds (or of its own time, with no
 * baseline) and writeback's share was measured. cipher: cipher_clause's.
 * Not below dm-crypt: there kcryptd encrypts after the flusher has
 * handed the bios on, and the share-out has only the flusher's own time
 * (docs/why-blocked.md), so "Y % encrypting" would not be measured.
 */
static bool writeback_summary(const struct attribution *a,
			      const struct attribution *b, double total,
			      const struct target_info *t, const char *cipher,
			      struct verdict *out)
{
	const char *opn = op_name(a->op), *ops = op_plural(a->op);
	const struct wait_result *w = &a->wait;
	double x, pct = writeback_crypt_pct(w);
	char xs[32], ds[32], own[32], held[80];
	int top, btop;

	if (!write_op(a->op) || pct < 0 || total <= 0 ||
	    (t && !strncmp(t->kind, "luks2", 5)))
		return false;
	x = writeback_wait(w, &top);
	/* What writeback adds over the baseline's own waits for it. */
	if (x - (b ? writeback_wait(&b->wait, &btop) : 0.0) < 0.5 * total ||
	    top < 0)
		return false;
	fmt_ns(xs, sizeof(xs), x);
	fmt_ns(ds, sizeof(ds), total);
	fmt_ns(own, sizeof(own), wait_per_call(w, w->total_ns));
	runnable_part(w, x, held, sizeof(held));
	if (b) {
		char slower[160];

		verdict_slower(slower, sizeof(slower), a, b, total, opn, true);
		snprintf(out->summary, sizeof(out->summary),
			 "%s are %s: %s of its %s per %s is waiting for "
			 "writeback (mostly %s%s), which spends %.0f %% of its "
			 "time encrypting%s",
			 ops, slower, xs, own, opn, block_reason_name(top),
			 held, pct, pct >= 15.0 ? cipher : "");
	} else {
		snprintf(out->summary, sizeof(out->summary),
			 "%s wait for writeback: %.0f %% of %s time (%s of %s "
			 "per %s; mostly %s%s), which spends %.0f %% of its "
			 "time encrypting%s",
			 ops, 100.0 * x / total, opn, xs, ds, opn,
			 block_reason_name(top), held, pct,
			 pct >= 15.0 ? cipher : "");
	}
	return true;
}

/* The ARC's say on a ZFS read phase: "the reads hit the ARC (99 % of
 * demand data reads: 4093 hits, 3 misses)". */
static void arc_clause(const struct wait_result *w, char *buf, size_t len)
{
	uint64_t n = w->arc.data_hits + w->arc.data_misses;
	double hit = n ? 100.0 * (double)w->arc.data_hits / (double)n : 0.0;

	if (!w->arc.measured || !n) {
		snprintf(buf, len,
			 "; whether the reads hit the ARC was not measured");
		return;
	}
	snprintf(buf, len,
		 ": the reads %s the ARC (%.0f %% of demand data reads hit: "
		 "%llu hits, %llu misses), which keeps the data encrypted",
		 hit >= 50.0 ? "hit" : "mostly missed", hit,
		 (unsigned long long)w->arc.data_hits,
		 (unsigned long long)w->arc.data_misses);
}

/*
 * Decryption on the caller's own CPU (a ZFS read from the ARC: arc_buf_fill
 * decrypts in the reader's context) is work, not a wait: when most of the
 * crypto the verdict names was on the caller's CPU, say so.
 */
static bool own_context_summary(const struct attribution *a,
				const struct attribution *b, double total,
				double crypto, const struct target_info *t,
				const char *cipher, struct verdict *out)
{
	const struct wait_result *w = &a->wait;
	const char *opn = op_name(a->op), *ops = op_plural(a->op);
	double own =
		wait_per_call(w, w->oncpu_crypt_ns) -
		(b ? wait_per_call(&b->wait, b->wait.oncpu_crypt_ns) : 0.0);
	char arc[200] = "", xs[32], ds[32];
	const char *what = attrib_reads(a) ? "decryption" : "encryption";

	if (crypto <= 0 || own < 0.5 * crypto || total <= 0)
		return false;
	if (t && !strcmp(t->kind, "zfs") && attrib_reads(a))
		arc_clause(w, arc, sizeof(arc));
	fmt_ns(xs, sizeof(xs), own);
	fmt_ns(ds, sizeof(ds), total);
	if (b) {
		char slower[160];

		verdict_slower(slower, sizeof(slower), a, b, total, opn, true);
		snprintf(out->summary, sizeof(out->summary),
			 "%s are %s: %s in the %s's own context adds %s per "
			 "%s%s%s",
			 ops, slower, what,
			 attrib_reads(a) ? "reader" : "caller", xs, opn, arc,
			 cipher);
	} else {
		snprintf(out->summary, sizeof(out->summary),
			 "%.0f %% of %s time is %s in the %s's own context (%s "
			 "of %s per %s)%s%s",
			 100.0 * own / total, opn, what,
			 attrib_reads(a) ? "reader" : "caller", xs, ds, opn,
			 arc, cipher);
	}
	return true;
}

bool verdict_why_summary(const struct attribution *a,
			 const struct attribution *b, double total,
			 double crypto, bool crypto_dominates,
			 const struct target_info *t, const char *cipher,
			 struct verdict *out)
{
	if (writeback_summary(a, b, total, t, cipher, out))
		return true;
	return crypto_dominates &&
	       own_context_summary(a, b, total, crypto, t, cipher, out);
}

/* "why the caller blocked (...): ext4's free-space writeback 2.9 s (95
 * %), a journal commit 140 ms (4 %); ..." largest first. */
static void why_line(const struct attribution *a, struct verdict *out)
{
	const struct wait_result *w = &a->wait;
	uint64_t sum = w->why_nostack_ns + w->why_short_ns;
	bool done[NR_BLOCK_REASONS] = {false};
	char line[DETAIL_LEN], v[32], s1[32], s2[32];
	size_t n;

	for (int r = 0; r < NR_BLOCK_REASONS; r++)
		sum += w->why_ns[r];
	if (!sum)
		return;
	n = snprintf(line, sizeof(line),
		     "why the caller blocked (its stack as it blocked):");
	for (int k = 0; k < NR_BLOCK_REASONS && n < sizeof(line); k++) {
		int top = -1;

		for (int r = 0; r < NR_BLOCK_REASONS; r++)
			if (!done[r] && w->why_ns[r] &&
			    (top < 0 || w->why_ns[r] > w->why_ns[top]))
				top = r;
		if (top < 0 || 100.0 * (double)w->why_ns[top] / sum < 1.0)
			break;
		done[top] = true;
		fmt_ns(v, sizeof(v), (double)w->why_ns[top]);
		n += snprintf(line + n, sizeof(line) - n, "%s %s %s (%.0f %%)",
			      k ? "," : "", block_reason_name(top), v,
			      100.0 * (double)w->why_ns[top] / sum);
	}
	fmt_ns(s1, sizeof(s1), (double)w->why_short_ns);
	fmt_ns(s2, sizeof(s2), (double)w->why_nostack_ns);
	if (n < sizeof(line))
		snprintf(line + n, sizeof(line) - n,
			 "; under 20 us each %s, stack not taken %s", s1, s2);
	verdict_add_evidence(out, "%s", line);
}

/* The blocked time no waker explained, and how it was shared out. */
static void unwoken_line(const struct attribution *a, struct verdict *out)
{
	const struct wait_result *w = &a->wait;
	uint64_t all = w->unwoken.flusher_ns + w->unwoken.journal_ns +
		       w->unwoken.other_ns;
	char t[32], f[32], j[32], o[32], by[160] = "";
	double d = (double)(all ? all : 1);
	uint64_t blocked = unwoken_blocked(w);
	size_t n = 0;

	if (!all || !w->syscalls)
		return;
	/* Where their wakers' chains told it elsewhere than the device. */
	for (int l = 0; blocked > w->unwoken.device_ns && l < NR_LAYERS; l++)
		if (w->unwoken.blocked_ns[l] && n < sizeof(by))
			n += (size_t)snprintf(
				by + n, sizeof(by) - n, "%s%s %.0f %%",
				n ? ", " : " (", layer_name(l),
				100.0 * (double)w->unwoken.blocked_ns[l] /
					(double)blocked);
	if (n && n < sizeof(by))
		snprintf(by + n, sizeof(by) - n, ")");
	fmt_ns(t, sizeof(t), wait_per_call(w, all));
	fmt_ns(f, sizeof(f), wait_per_call(w, w->unwoken.flusher_ns));
	fmt_ns(j, sizeof(j), wait_per_call(w, w->unwoken.journal_ns));
	fmt_ns(o, sizeof(o), wait_per_call(w, w->unwoken.other_ns));
	if (!w->unwoken.shared) {
		verdict_add_evidence(
			out,
			"blocked with no useful waker %s per %s (the flusher "
			"%s, jbd2's commits %s, timers and writeback "
			"completions %s): the target's writeback was not "
			"seen, so it is in fs",
			t, op_name(a->op), f, j, o);
		return;
	}
	verdict_add_evidence(
		out,
		"blocked with no useful waker %s per %s (the flusher ending "
		"its work %s, jbd2 ending a commit %s, timers and writeback "
		"completions %s), shared by what the target's writeback "
		"workers did%s: cipher code %.0f %%, file system %.0f %%, "
		"runnable %.0f %%, blocked on their requests %.0f %%%s",
		t, op_name(a->op), f, j, o,
		w->unwoken.journal_by_jbd2
			? " (jbd2's commits by jbd2's own time)"
			: "",
		100.0 * w->unwoken.crypt_ns / d, 100.0 * w->unwoken.fs_ns / d,
		100.0 * w->unwoken.runq_ns / d, 100.0 * (double)blocked / d,
		by);
}

void verdict_why_lines(const struct attribution *a, struct verdict *out)
{
	why_line(a, out);
	unwoken_line(a, out);
}
