// SPDX-License-Identifier: MIT
/* The kernel ids of what this process loaded and attached: see bpf_ids.h. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_ids.h"
#include "envfile.h"

static struct bpf_id recorded[MAX_BPF_IDS];
static int nr_recorded;

static const char *const kind_names[] = {
	[BPF_ID_PROG] = "prog",
	[BPF_ID_LINK] = "link",
};

static uint32_t record(enum bpf_id_kind kind, uint32_t id)
{
	struct bpf_id r = {.kind = kind, .id = id};

	if (!id)
		return 0;
	if (nr_recorded < MAX_BPF_IDS)
		recorded[nr_recorded++] = r;
	envfile_append("ENCBENCH_IDS_FILE", "%s %u", kind_names[kind], id);
	return id;
}

/* bpf_prog_info and bpf_link_info both begin with type and id, and the
 * kernel fills no more than the length it is given. */
static uint32_t id_of_fd(int fd)
{
	struct {
		__u32 type, id;
	} head = {0};
	__u32 len = sizeof(head);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &head, &len))
		return 0;
	return head.id;
}

uint32_t bpf_ids_add_prog(const struct bpf_program *prog)
{
	return record(BPF_ID_PROG, id_of_fd(bpf_program__fd(prog)));
}

uint32_t bpf_ids_add_link(const struct bpf_link *link)
{
	return record(BPF_ID_LINK, id_of_fd(bpf_link__fd(link)));
}

int bpf_ids_recorded(struct bpf_id *out, int max)
{
	for (int i = 0; i < nr_recorded && i < max; i++)
		out[i] = recorded[i];
	return nr_recorded;
}
