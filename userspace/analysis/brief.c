// SPDX-License-Identifier: MIT
/*
 * A verdict's one line for the short report (the first screen): the time
 * an op adds over its baseline, or its own time, and the causes holding
 * most of it, each with its share, weighed as verdict_wait() weighs them
 * (wait_dominant's groups). And which verdicts are the headlines: the
 * reads and writes a user asks about, and any other op only when it
 * holds a large part of the phase's time. Pure: it fills struct verdict
 * from attributions; the report only prints what it says.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../common/fmt_time.h"
#include "analysis.h"

/* A cause below this share of the time is noise on a one-line summary;
 * the full report's evidence has every component. */
#define MIN_SHARE_PCT 5.0
#define MAX_CAUSES    3
/* An op other than read and write is a headline from this share of the
 * time its target and workload spent (or added) over all ops. */
#define HEADLINE_SHARE 0.25
/* A read or a write is a headline unless it is a sliver of its phase:
 * fio's own writes (6, 154 us) in a read job's 714 ms of reads, its own
 * reads (186, 10.6 ms) in a write job's 940 ms of writes. */
#define MINOR_SHARE 0.05

/* In wait_dominant()'s order (verdict.c): crypto (crypt, crypt-queue and
 * cpu-wait while crypto work held the CPUs), device, blk-queue, dm, fs,
 * cpu-wait behind tasks, cpu-wait for an idle CPU to wake. */
static const char *cause_name(int g, int op, const struct target_info *t)
{
	static const char *const name[NR_WAIT_GROUPS] = {
		"encryption",	    "device",	   "block queue",
		"device-mapper",    "file system", "CPU contention",
		"idle CPUs waking",
	};

	if (g == 0 && t && strstr(t->kind, "cipher_null"))
		return "dm-crypt's work (cipher_null)";
	if (g == 0)
		return op == EB_OP_READ ? "decryption" : "encryption";
	return name[g];
}

/* Append to buf at *n, never past len. */
static void put(char *buf, size_t len, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n >= len)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	*n += k > 0 ? (size_t)k : 0;
	if (*n >= len)
		*n = len - 1;
}

/* Causes by size, largest first: up to MAX_CAUSES of at least
 * MIN_SHARE_PCT of total; against a baseline, the largest saving too. */
static void put_causes(char *buf, size_t len, size_t *n,
		       const double group[NR_WAIT_GROUPS], double total,
		       bool added, int op, const struct target_info *t)
{
	bool used[NR_WAIT_GROUPS] = {false};
	int shown = 0, least = -1;
	char v[32];

	for (int k = 0; k < MAX_CAUSES; k++) {
		int best = -1;

		for (int g = 0; g < NR_WAIT_GROUPS; g++)
			if (!used[g] && (best < 0 || group[g] > group[best]))
				best = g;
		if (best < 0 || 100.0 * group[best] / total < MIN_SHARE_PCT)
			break;
		used[best] = true;
		fmt_ns(v, sizeof(v), group[best]);
		put(buf, len, n, "%s %s %s (%.0f %%)", shown ? "," : "",
		    cause_name(best, op, t), v, 100.0 * group[best] / total);
		shown++;
	}
	for (int g = 0; added && g < NR_WAIT_GROUPS; g++)
		if (least < 0 || group[g] < group[least])
			least = g;
	if (least >= 0 && 100.0 * group[least] / total <= -2 * MIN_SHARE_PCT) {
		fmt_ns(v, sizeof(v), group[least]);
		put(buf, len, n, "; %s %s (%.0f %%)", cause_name(least, op, t),
		    v, 100.0 * group[least] / total);
	}
}

void verdict_brief(const struct attribution *a, const struct attribution *b,
		   const struct target_info *t, bool cpu_aes,
		   struct verdict *out)
{
	const struct wait_result *w = &a->wait;
	double added[NR_LAYERS], group[NR_WAIT_GROUPS], total, cpu_crypt, f;
	const char *opn = op_name(a->op);
	size_t n = 0, len = sizeof(out->brief);
	char v[32];
	int dom;

	out->brief[0] = '\0';
	out->phase_ns = 0;
	if (!w->available || !w->syscalls)
		return;
	total = wait_added(w, b ? &b->wait : NULL, added);
	cpu_crypt = wait_added_crypt_held(w, b ? &b->wait : NULL);
	dom = wait_dominant(added, cpu_crypt,
			    wait_added_idle(w, b ? &b->wait : NULL), group);
	if (dom < 0 || total <= 0)
		return;
	out->phase_ns = total * (double)w->syscalls;
	fmt_ns(v, sizeof(v), total);
	if (b) {
		char slower[160];

		verdict_slower(slower, sizeof(slower), a, b, total, opn, false);
		put(out->brief, len, &n, "%s:", slower);
	} else {
		put(out->brief, len, &n, "%s per %s:", v, opn);
	}
	/* The causes' times the untraced iterations', their shares the
	 * traced ones'. */
	f = verdict_untraced_factor(a, b, total);
	for (int g = 0; g < NR_WAIT_GROUPS; g++)
		group[g] *= f;
	put_causes(out->brief, len, &n, group, total * f, b != NULL,
		   attrib_side(a), t);
	if (dom == 0 && t && t->encrypted && !strstr(t->kind, "cipher_null"))
		put(out->brief, len, &n, "; cipher driver %s, %s",
		    t->encryption.driver[0] ? t->encryption.driver : "unknown",
		    t->encryption.hw_accel ? "hardware AES"
		    : cpu_aes		   ? "software AES (the CPU has AES "
					     "instructions)"
					   : "software AES");
}

void verdict_headlines(struct verdict *v, int n)
{
	double sum = 0;
	bool timed = false;

	/* Reaping is the caller's wait for I/Os whose verdict counts them
	 * already: not in the phase's time twice. */
	for (int i = 0; i < n; i++)
		if (v[i].op != EB_OP_REAP)
			sum += v[i].phase_ns;
	for (int i = 0; i < n; i++) {
		bool asked = v[i].op == EB_OP_READ || v[i].op == EB_OP_WRITE;

		timed |= v[i].phase_ns > 0;
		/* Reaping is the async verdict's evidence, not its own. */
		v[i].headline =
			v[i].op != EB_OP_REAP && v[i].phase_ns > 0 &&
			v[i].phase_ns >=
				(asked ? MINOR_SHARE : HEADLINE_SHARE) * sum;
	}
	/* No wait decomposition (layer verdicts only): the reads and writes
	 * by their summaries. */
	for (int i = 0; !timed && i < n; i++)
		v[i].headline = v[i].op == EB_OP_READ || v[i].op == EB_OP_WRITE;
}
