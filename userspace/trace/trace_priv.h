/* SPDX-License-Identifier: MIT */
/* Shared between the tracer's files; not part of the trace.h API. */
#ifndef ENCBENCH_TRACE_PRIV_H
#define ENCBENCH_TRACE_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

struct ksyms;

/* fscrypt encrypts page cache blocks synchronously in writeback. */
#define ENC_FUNC "fscrypt_encrypt_pagecache_blocks"

enum enc_method { ENC_NONE, ENC_FENTRY, ENC_KPROBE };

/* plan.c */
const char *enc_name(enum enc_method m);
/* How the write-side crypto is timed here; why not, in why. */
enum enc_method enc_choose(const struct capabilities *caps,
			   const struct ksyms *ks, char *why, size_t len);
void plan_sources(const struct capabilities *caps, bool btf,
		  enum enc_method enc, const char *enc_why,
		  char src[NR_LAYERS][DETAIL_LEN]);

/* devstat.c: completed read/write requests on the filter's devices,
 * plus those in flight when `inflight`. */
void kernel_requests(const struct trace_filter *f, uint64_t out[NR_OPS],
		     bool inflight);

#endif
