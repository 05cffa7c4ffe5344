// SPDX-License-Identifier: MIT
/*
 * Which syscalls and io_uring tracepoints the tracer sorts into ops
 * (enum eb_op): the user-space half of attrib.bpf.c's classification;
 * and whether jbd2's tracepoints are there to follow.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "trace_priv.h"

static const struct {
	long nr;
	unsigned int v; /* sys_ops value: 1 + op, and its O_CREAT test */
} sys_table[] = {
	{SYS_read, 1 + EB_OP_READ},
	{SYS_pread64, 1 + EB_OP_READ},
	{SYS_readv, 1 + EB_OP_READ},
	{SYS_preadv, 1 + EB_OP_READ},
#ifdef SYS_preadv2
	{SYS_preadv2, 1 + EB_OP_READ},
#endif
	{SYS_write, 1 + EB_OP_WRITE},
	{SYS_pwrite64, 1 + EB_OP_WRITE},
	{SYS_writev, 1 + EB_OP_WRITE},
	{SYS_pwritev, 1 + EB_OP_WRITE},
#ifdef SYS_pwritev2
	{SYS_pwritev2, 1 + EB_OP_WRITE},
#endif
	{SYS_fsync, 1 + EB_OP_SYNC},
	{SYS_fdatasync, 1 + EB_OP_SYNC},
	{SYS_sync_file_range, 1 + EB_OP_SYNC},
	{SYS_syncfs, 1 + EB_OP_SYNC},
	{SYS_open, (1 + EB_OP_CREATE) | SYS_OP_IF_CREAT(1)},
	{SYS_openat, (1 + EB_OP_CREATE) | SYS_OP_IF_CREAT(2)},
#ifdef SYS_openat2
	{SYS_openat2, (1 + EB_OP_CREATE) | SYS_OP_IF_HOW_CREAT},
#endif
	{SYS_creat, 1 + EB_OP_CREATE},
	{SYS_mkdir, 1 + EB_OP_CREATE},
	{SYS_mkdirat, 1 + EB_OP_CREATE},
	{SYS_unlink, 1 + EB_OP_CREATE},
	{SYS_unlinkat, 1 + EB_OP_CREATE},
	{SYS_rmdir, 1 + EB_OP_CREATE},
	{SYS_rename, 1 + EB_OP_CREATE},
	{SYS_renameat, 1 + EB_OP_CREATE},
#ifdef SYS_renameat2
	{SYS_renameat2, 1 + EB_OP_CREATE},
#endif
	{SYS_copy_file_range, 1 + EB_OP_COPY},
	{SYS_sendfile, 1 + EB_OP_COPY},
	{SYS_splice, 1 + EB_OP_COPY},
};

int fill_sys_ops(int map_fd)
{
	for (size_t i = 0; i < sizeof(sys_table) / sizeof(sys_table[0]); i++) {
		__u32 key = sys_table[i].nr, val = sys_table[i].v;

		if (bpf_map_update_elem(map_fd, &key, &val, BPF_ANY))
			return -errno;
	}
	return 0;
}

/* The function prototype of tracepoint `tp` (btf_trace_<tp>), or NULL. */
static const struct btf_type *tp_proto(const struct btf *btf, const char *tp)
{
	const struct btf_type *t;
	char name[128];
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return NULL;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!t || !btf_is_ptr(t))
		return NULL;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) ? t : NULL;
}

/* Does submit tracepoint `tp` exist and take the request first (after
 * the tracepoint's own void *__data)? */
static bool submit_takes_req(const struct btf *btf, const char *tp)
{
	const struct btf_type *proto = tp_proto(btf, tp), *t;
	const char *name;

	if (!proto || btf_vlen(proto) < 2)
		return false;
	t = btf__type_by_id(btf, btf_params(proto)[1].type);
	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__type_by_id(btf, t->type);
	name = t ? btf__name_by_offset(btf, t->name_off) : NULL;
	return t && btf_is_struct(t) && name && !strcmp(name, "io_kiocb");
}

/*
 * Load io_uring program `prog` (io_uring_<tp>_btf or _raw) only where its
 * tracepoint has the layout on_iou_submit/on_iou_complete/on_iou_punt
 * read (io_uring_queue_async_work takes the request first too). Since
 * v5.19's tracepoint rework the submit tracepoint takes the request
 * first and io_uring_complete has it second; v6.3 renamed
 * io_uring_submit_sqe to io_uring_submit_req. Earlier kernels, a kernel
 * without CONFIG_IO_URING, or no BTF to ask: io_uring requests go
 * untraced (their io_uring_enter calls never were).
 */
bool iou_autoload(const struct btf *vmlinux, const char *prog)
{
	char tp[64];
	size_t n = strlen(prog);

	if (!vmlinux || n < 4 || n - 4 >= sizeof(tp))
		return false;
	snprintf(tp, sizeof(tp), "%.*s", (int)(n - 4), prog);
	if (strcmp(tp, "io_uring_complete"))
		return submit_takes_req(vmlinux, tp);
	return tp_proto(vmlinux, tp) &&
	       (submit_takes_req(vmlinux, "io_uring_submit_req") ||
		submit_takes_req(vmlinux, "io_uring_submit_sqe"));
}

/*
 * Load the jbd2 programs only where both tracepoints are: in vmlinux
 * (jbd2 built in, as on the build machine) or in the jbd2 module's BTF
 * (Debian builds it as a module, which ext4 loads). No BTF to ask: a
 * caller's wait for a journal commit stays the file system's.
 */
bool jbd2_autoload(const struct btf *vmlinux)
{
	struct btf *mod;
	bool ok;

	if (!vmlinux)
		return false;
	if (tp_proto(vmlinux, "jbd2_start_commit") &&
	    tp_proto(vmlinux, "jbd2_end_commit"))
		return true;
	mod = btf__parse_split("/sys/kernel/btf/jbd2", (struct btf *)vmlinux);
	if (libbpf_get_error(mod))
		return false;
	ok = tp_proto(mod, "jbd2_start_commit") &&
	     tp_proto(mod, "jbd2_end_commit");
	btf__free(mod);
	return ok;
}
