/* SPDX-License-Identifier: MIT */
/*
 * The kernel ids of the BPF programs and links this process made. Names
 * cannot tell ours apart (libbpf-tools' biolatency names its programs as
 * we do); ids can. Each id is recorded as the object is made and, when
 * ENCBENCH_IDS_FILE names a file (the tests set it), appended there at
 * once as "prog N" or "link N", so even an interrupted run's ids are known.
 */
#ifndef ENCBENCH_BPF_IDS_H
#define ENCBENCH_BPF_IDS_H

#include <stdint.h>

struct bpf_program;
struct bpf_link;

enum bpf_id_kind { BPF_ID_PROG, BPF_ID_LINK };

struct bpf_id {
	enum bpf_id_kind kind;
	uint32_t id;
};

#define MAX_BPF_IDS 512

/* Record a loaded program's / an attached link's id; 0 if the kernel
 * would not say (the object is then not recorded). */
uint32_t bpf_ids_add_prog(const struct bpf_program *prog);
uint32_t bpf_ids_add_link(const struct bpf_link *link);

/* Everything recorded by this process so far: copies up to max into
 * out, returns how many were recorded. */
int bpf_ids_recorded(struct bpf_id *out, int max);

#endif
