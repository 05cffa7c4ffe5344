// SPDX-License-Identifier: MIT
/*
 * The plan: which attach point each layer comes from on this kernel. The
 * loader (load.c) follows it, and `probe` prints it, so both say the same.
 */
#include <errno.h>
#include <stdio.h>

#include "trace.h"
#include "ksyms.h"
#include "trace_priv.h"

const char *enc_name(enum enc_method m)
{
	return m == ENC_FENTRY	  ? "fentry"
	       : m == ENC_KPROBE  ? "kprobe"
	       : m == ENC_SAMPLES ? "cpu samples"
				  : "none";
}

/* fentry, else kprobe, on kernel function func; why not, in why (absent:
 * what to add when func is not in the kernel). */
static enum enc_method func_method(const struct capabilities *caps,
				   const struct ksyms *ks, const char *func,
				   const char *absent, char *why, size_t len)
{
	if (!ks) {
		snprintf(why, len, "cannot read /proc/kallsyms");
		return ENC_NONE;
	}
	/* By name: fentry and kprobe need no address from us, so hidden
	 * addresses (kptr_restrict, lockdown) do not stop them. */
	if (!ksyms_named(ks, func)) {
		snprintf(why, len, "%s is not in this kernel%s", func, absent);
		return ENC_NONE;
	}
	if (caps->fentry.ok)
		return ENC_FENTRY;
	if (caps->kprobe.ok)
		return ENC_KPROBE;
	snprintf(why, len, "fentry: %.110s; kprobe: %.110s",
		 caps->fentry.detail, caps->kprobe.detail);
	return ENC_NONE;
}

enum enc_method enc_write_method(enum enc_method enc, bool sampled)
{
	return enc == ENC_NONE && sampled ? ENC_SAMPLES : enc;
}

/* How the write-side crypto is timed here; why not, in why. */
enum enc_method enc_choose(const struct capabilities *caps,
			   const struct ksyms *ks, char *why, size_t len)
{
	return func_method(caps, ks, ENC_FUNC, "", why, len);
}

/* fentry, else kprobe, where the kernel has both functions a and b. */
static enum enc_method pair_method(const struct capabilities *caps,
				   const struct ksyms *ks, const char *a,
				   const char *b)
{
	if (!ks || !ksyms_named(ks, a) || !ksyms_named(ks, b))
		return ENC_NONE;
	if (caps->fentry.ok)
		return ENC_FENTRY;
	return caps->kprobe.ok ? ENC_KPROBE : ENC_NONE;
}

enum enc_method dmx_choose(const struct capabilities *caps,
			   const struct ksyms *ks)
{
	/* They live in dm_crypt.ko: only once it is loaded. */
	return pair_method(caps, ks, "kcryptd_crypt_read_convert",
			   "kcryptd_crypt_write_convert");
}

enum enc_method ciph_choose(const struct capabilities *caps,
			    const struct ksyms *ks)
{
	/* Out of line since Linux 5.2 (static inlines before: not seen). */
	return pair_method(caps, ks, "crypto_skcipher_encrypt",
			   "crypto_skcipher_decrypt");
}

enum enc_method dmw_choose(const struct capabilities *caps,
			   const struct ksyms *ks, char *why, size_t len)
{
	/* No tracepoint marks the hand-off to the write thread. */
	return func_method(caps, ks, DMW_FUNC, " (dm_crypt not loaded)", why,
			   len);
}

void dmw_plan(const struct capabilities *caps, bool btf, enum enc_method m,
	      const char *why, char *src, size_t len, struct layer_states *ls)
{
	/* plan_states' answer for writes: measured, or raw_tp's fallback. */
	enum layer_state st = ls->state[LAYER_DMCRYPT_WRITE][EB_OP_WRITE];
	char fb[DETAIL_LEN];

	snprintf(fb, sizeof(fb), "%s",
		 ls->why[LAYER_DMCRYPT_WRITE][EB_OP_WRITE]);
	layer_states_set(ls, LAYER_DMCRYPT_WRITE, -1, LAYER_NOT_APPLICABLE,
			 "only writes go through dm-crypt's write thread");
	layer_states_set(ls, LAYER_DMCRYPT_WRITE, EB_OP_WRITE, st, fb);
	if (m == ENC_NONE) {
		snprintf(src, len, "unavailable: %s", why);
		layer_states_set(ls, LAYER_DMCRYPT_WRITE, EB_OP_WRITE,
				 LAYER_UNAVAILABLE, why);
		return;
	}
	snprintf(src, len,
		 "%s:" DMW_FUNC "->%s:block_bio_queue of the clone from the "
		 "dmcrypt_write thread (the encrypted write's wait for and in "
		 "that thread)",
		 enc_name(m), btf ? "tp_btf" : "raw_tp");
	if (m == ENC_KPROBE) {
		snprintf(fb, sizeof(fb), "fentry: %.200s", caps->fentry.detail);
		layer_states_set(ls, LAYER_DMCRYPT_WRITE, EB_OP_WRITE,
				 LAYER_FALLBACK, fb);
	}
}

/* "; <note>" if there is a note, for inside a source text. */
static const char *sep(const char *note)
{
	return note[0] ? "; " : "";
}

void crypt_source(char *buf, size_t len, bool btf, enum enc_method enc,
		  const char *enc_why, const struct crypt_work_plan *cw,
		  bool dm_write)
{
	const char *m = btf ? "tp_btf" : "raw_tp";

	if (cw->why[0] && enc == ENC_NONE)
		snprintf(buf, len, "unavailable: read: %.120s; write: %.110s",
			 cw->why, enc_why);
	else if (cw->why[0] && enc == ENC_SAMPLES)
		snprintf(
			buf, len,
			"read: unavailable (%.60s); write: " ENC_SAMPLES_SOURCE,
			cw->why);
	else if (cw->why[0])
		snprintf(buf, len,
			 "read: unavailable (%.160s); %s:" ENC_FUNC " (write)",
			 cw->why, enc_name(enc));
	else if (dm_write)
		snprintf(buf, len,
			 "%s:workqueue_execute_start->end (read; dm-crypt "
			 "write%s%s)",
			 m, sep(cw->note), cw->note);
	else if (enc == ENC_SAMPLES)
		snprintf(buf, len,
			 "%s:workqueue_execute_start->end (read%s%.40s); "
			 "write: " ENC_SAMPLES_SOURCE,
			 m, sep(cw->note), cw->note);
	else if (enc == ENC_NONE)
		/* The note first: of the two, the write reason may lose its
		 * tail. */
		snprintf(buf, len,
			 "%s:workqueue_execute_start->end (read%s%.120s); "
			 "write: unavailable (%.180s)",
			 m, sep(cw->note), cw->note, enc_why);
	else
		snprintf(buf, len,
			 "%s:workqueue_execute_start->end (read%s%s); "
			 "%s:" ENC_FUNC " (write)",
			 m, sep(cw->note), cw->note, enc_name(enc));
}

void plan_sources(const struct capabilities *caps, bool btf,
		  enum enc_method enc, const char *enc_why,
		  const struct crypt_work_plan *cw,
		  char src[NR_LAYERS][DETAIL_LEN])
{
	const char *m = btf ? "tp_btf" : "raw_tp";

	if (!caps->tp_btf.ok && !caps->raw_tp.ok) {
		for (int l = 0; l < NR_LAYERS; l++)
			snprintf(src[l], DETAIL_LEN,
				 "unavailable: neither tp_btf (%.100s) nor "
				 "raw_tp (%.100s) works",
				 caps->tp_btf.detail, caps->raw_tp.detail);
		return;
	}
	snprintf(src[LAYER_SYSCALL], DETAIL_LEN,
		 "%s:raw_syscalls/sys_enter+sys_exit", m);
	snprintf(src[LAYER_FS], DETAIL_LEN,
		 "derived: syscall minus lower layers");
	if (cw->why[0])
		snprintf(src[LAYER_CRYPT_QUEUE], DETAIL_LEN, "unavailable: %s",
			 cw->why);
	else
		snprintf(src[LAYER_CRYPT_QUEUE], DETAIL_LEN,
			 "%s:workqueue_queue_work->execute_start%s%s", m,
			 sep(cw->note), cw->note);
	crypt_source(src[LAYER_CRYPT], DETAIL_LEN, btf, enc, enc_why, cw,
		     false);
	/* The dm bio's whole life: it contains crypt and the layers of
	 * the device below, so fs is derived without it. */
	snprintf(src[LAYER_DM], DETAIL_LEN,
		 "%s:block_bio_queue->block_bio_complete on the dm device "
		 "(contains the layers below it)",
		 m);
	snprintf(src[LAYER_BLK_QUEUE], DETAIL_LEN,
		 "%s:block_bio_queue->block_rq_issue", m);
	snprintf(src[LAYER_DEVICE], DETAIL_LEN,
		 "%s:block_rq_issue->block_rq_complete", m);
	snprintf(src[LAYER_CPU_WAIT], DETAIL_LEN,
		 "no items: a share of the wait decomposition only "
		 "(%s:sched_waking/sched_switch)",
		 m);
}

void plan_states(const struct capabilities *caps, bool btf, const char *btf_why,
		 enum enc_method enc, const char *enc_why,
		 const struct crypt_work_plan *cw, struct layer_states *ls)
{
	char why[DETAIL_LEN];

	if (!caps->tp_btf.ok && !caps->raw_tp.ok) {
		snprintf(why, sizeof(why),
			 "neither tp_btf (%.100s) nor raw_tp (%.100s) works",
			 caps->tp_btf.detail, caps->raw_tp.detail);
		for (int l = 0; l < NR_LAYERS; l++)
			layer_states_set(ls, l, -1, LAYER_UNAVAILABLE, why);
		return;
	}
	/* raw_tp reads the same events as tp_btf, without BTF's types. */
	snprintf(why, sizeof(why), "tp_btf: %.200s", btf_why);
	for (int l = 0; l < NR_LAYERS; l++)
		layer_states_set(ls, l, -1,
				 btf ? LAYER_MEASURED : LAYER_FALLBACK,
				 btf ? "" : why);
	layer_states_set(ls, LAYER_FS, -1, LAYER_DERIVED,
			 "syscall minus lower layers");
	layer_states_set(ls, LAYER_CPU_WAIT, -1, LAYER_NOT_MEASURED,
			 "a share of the wait decomposition only");
	/* No crypto work function to recognise (kallsyms unreadable, its
	 * addresses hidden): a zero count would read as "no crypto". */
	if (cw->why[0]) {
		layer_states_set(ls, LAYER_CRYPT_QUEUE, -1, LAYER_UNAVAILABLE,
				 cw->why);
		layer_states_set(ls, LAYER_CRYPT, EB_OP_READ, LAYER_UNAVAILABLE,
				 cw->why);
	}
	if (enc == ENC_NONE) {
		layer_states_set(ls, LAYER_CRYPT, EB_OP_WRITE,
				 LAYER_UNAVAILABLE, enc_why);
	} else if (enc == ENC_KPROBE) {
		snprintf(why, sizeof(why), "fentry: %.200s",
			 caps->fentry.detail);
		layer_states_set(ls, LAYER_CRYPT, EB_OP_WRITE, LAYER_FALLBACK,
				 why);
	} else if (enc == ENC_SAMPLES) {
		snprintf(why, sizeof(why),
			 "%.120s: CPU time in cipher code from CPU samples of "
			 "the callers and the target's writeback workers, no "
			 "per-call latencies",
			 enc_why);
		layer_states_set(ls, LAYER_CRYPT, EB_OP_WRITE, LAYER_FALLBACK,
				 why);
	}
	/* Neither side seen: no op's crypto is. */
	if (cw->why[0] && enc == ENC_NONE) {
		snprintf(why, sizeof(why), "read: %.120s; write: %.120s",
			 cw->why, enc_why);
		for (int op = 0; op < NR_OPS; op++)
			if (op != EB_OP_READ && op != EB_OP_WRITE)
				layer_states_set(ls, LAYER_CRYPT, op,
						 LAYER_UNAVAILABLE, why);
	}
}

void trace_plan(const struct capabilities *caps,
		char sources[NR_LAYERS][DETAIL_LEN])
{
	struct ksyms *ks = ksyms_load(NULL);
	int ks_errno = errno;
	char why[DETAIL_LEN] = "";
	enum enc_method enc = enc_choose(caps, ks, why, sizeof(why));
	struct crypt_work_plan cw;
	static struct layer_states ls; /* only the sources are kept */
	enum enc_method dmw;

	crypt_work_plan(ks, ks_errno, &cw);
	/* As trace_open decides once the sampler is attached. */
	enc = enc_write_method(enc, caps->perf_event.ok && ks &&
					    ksyms_has(ks, WRITEBACK_FN));
	plan_sources(caps, caps->tp_btf.ok, enc, why, &cw, sources);
	if (caps->tp_btf.ok || caps->raw_tp.ok) {
		dmw = dmw_choose(caps, ks, why, sizeof(why));
		dmw_plan(caps, caps->tp_btf.ok, dmw, why,
			 sources[LAYER_DMCRYPT_WRITE], DETAIL_LEN, &ls);
	}
	ksyms_free(ks);
}
