// SPDX-License-Identifier: MIT
/*
 * The plan: which attach point each layer comes from on this kernel. The
 * loader (trace.c) follows it, and `probe` prints it, so both say the same.
 */
#include <stdio.h>

#include "trace.h"
#include "ksyms.h"
#include "trace_priv.h"

const char *enc_name(enum enc_method m)
{
	return m == ENC_FENTRY ? "fentry" : m == ENC_KPROBE ? "kprobe" : "none";
}

/* How the write-side crypto is timed here; why not, in why. */
enum enc_method enc_choose(const struct capabilities *caps,
			   const struct ksyms *ks, char *why, size_t len)
{
	if (!ks) {
		snprintf(why, len, "cannot read /proc/kallsyms");
		return ENC_NONE;
	}
	if (!ksyms_has(ks, ENC_FUNC)) {
		snprintf(why, len, "%s is not in this kernel", ENC_FUNC);
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

void plan_sources(const struct capabilities *caps, bool btf,
		  enum enc_method enc, const char *enc_why,
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
	snprintf(src[LAYER_CRYPT_QUEUE], DETAIL_LEN,
		 "%s:workqueue_queue_work->execute_start", m);
	if (enc == ENC_NONE)
		snprintf(src[LAYER_CRYPT], DETAIL_LEN,
			 "%s:workqueue_execute_start->end (read); "
			 "write: unavailable (%.180s)",
			 m, enc_why);
	else
		snprintf(src[LAYER_CRYPT], DETAIL_LEN,
			 "%s:workqueue_execute_start->end (read); "
			 "%s:" ENC_FUNC " (write)",
			 m, enc_name(enc));
	snprintf(src[LAYER_DM], DETAIL_LEN,
		 "not traced: time on a device-mapper device counts in fs");
	snprintf(src[LAYER_BLK_QUEUE], DETAIL_LEN,
		 "%s:block_bio_queue->block_rq_issue", m);
	snprintf(src[LAYER_DEVICE], DETAIL_LEN,
		 "%s:block_rq_issue->block_rq_complete", m);
}

void trace_plan(const struct capabilities *caps,
		char sources[NR_LAYERS][DETAIL_LEN])
{
	struct ksyms *ks = ksyms_load(NULL);
	char why[DETAIL_LEN] = "";
	enum enc_method enc = enc_choose(caps, ks, why, sizeof(why));

	plan_sources(caps, caps->tp_btf.ok, enc, why, sources);
	ksyms_free(ks);
}
