// SPDX-License-Identifier: MIT
/*
 * What an async fio job's I/Os are, in the words its verdict speaks of
 * them ("random 4 KiB reads at QD4"), from the parameters the run
 * recorded for the workload (results.json's, so --reanalyze says the
 * same): a job file's "job NAME" entry (fio_file_describe: "rw=randread
 * bs=4k iodepth=4 ..."), or the built-in jobs' names ("randread_4k")
 * with the workload's iodepth.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

/* The value of "key=" in a "k=v k=v" description, into buf. */
static bool field(const char *desc, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = desc; p && *p;
	     p = strchr(p, ' '), p = p ? p + 1 : p)
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(buf, len, "%.*s",
				 (int)strcspn(p + kl + 1, " "), p + kl + 1);
			return true;
		}
	return false;
}

/* fio's bs ("4k", "1m", "4096"; "4k,8k" is reads', then writes') for op,
 * as "4 KiB"; false when it is not one size. */
static bool size_words(const char *bs, int op, char *buf, size_t len)
{
	const char *s = bs, *comma = strchr(bs, ',');
	unsigned long long v;
	char *end;

	if (comma && op == EB_OP_WRITE && comma[1])
		s = comma + 1;
	v = strtoull(s, &end, 10);
	/* fio's kb_base is 1024 unless a job file says otherwise. */
	switch (*end) {
	case 'k':
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'm':
	case 'M':
		v <<= 20;
		end++;
		break;
	case 'g':
	case 'G':
		v <<= 30;
		end++;
		break;
	}
	if (!v || (*end && *end != ',' && strcmp(end, "b") &&
		   strcmp(end, "B") && strcmp(end, "iB")))
		return false;
	if (!(v % (1ULL << 20)))
		snprintf(buf, len, "%llu MiB", v >> 20);
	else if (!(v % 1024))
		snprintf(buf, len, "%llu KiB", v >> 10);
	else
		snprintf(buf, len, "%llu-byte", v);
	return true;
}

void aio_job_words(const struct results *r, struct attribution *a)
{
	char key[NAME_LEN], rw[32] = "", bs[32] = "", qd[16] = "", size[32];
	const struct param *p;
	const char *us;

	a->aio.job_words[0] = a->aio.job_engine[0] = '\0';
	if (!a->job[0] || strchr(a->job, '+') ||
	    (a->op != EB_OP_READ && a->op != EB_OP_WRITE))
		return;
	snprintf(key, sizeof(key), "job %s", a->job);
	p = results_param(r, a->workload, key);
	if (p) {
		if (!field(p->str, "rw", rw, sizeof(rw)) ||
		    !field(p->str, "bs", bs, sizeof(bs)) ||
		    !field(p->str, "iodepth", qd, sizeof(qd)))
			return;
		field(p->str, "ioengine", a->aio.job_engine,
		      sizeof(a->aio.job_engine));
	} else if ((us = strchr(a->job, '_')) &&
		   (p = results_param(r, a->workload, "iodepth"))) {
		/* The built-in jobs: "randread_4k", the depth the run's. */
		snprintf(rw, sizeof(rw), "%.*s", (int)(us - a->job), a->job);
		snprintf(bs, sizeof(bs), "%s", us + 1);
		snprintf(qd, sizeof(qd), "%lld", p->i);
		p = results_param(r, a->workload, "ioengine");
		if (p)
			snprintf(a->aio.job_engine, sizeof(a->aio.job_engine),
				 "%s", p->str);
	} else {
		return;
	}
	if (!size_words(bs, a->op, size, sizeof(size)))
		return;
	snprintf(a->aio.job_words, sizeof(a->aio.job_words), "%s %s %s at QD%s",
		 strstr(rw, "rand") ? "random" : "sequential", size,
		 a->op == EB_OP_READ ? "reads" : "writes", qd);
}
