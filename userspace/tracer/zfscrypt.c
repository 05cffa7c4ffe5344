// SPDX-License-Identifier: MIT
/*
 * The `crypt` layer of ZFS datasets (zfscrypt.bpf.c): kprobes on
 * spa_do_crypt_abd, the one function every ZFS block encryption and
 * decryption goes through, filtered by the target's objset ids. Loaded
 * only where the zfs module is; the rest of the tracer does not depend on
 * it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace.h" /* first: the skeleton needs attrib.h's types */
#include "zfscrypt.skel.h"
#include "ksyms.h"
#include "trace_priv.h"
#include "common/bpf_ids.h"
#include "../../bpf/zfscrypt.h"

#define ZFS_CRYPT_FUNC "spa_do_crypt_abd"

/* Test hook: behave as if the kprobes could not attach, so that the CPU
 * sample fallback can be tested where they can. */
#define ZFS_NO_KPROBES_ENV "ENCBENCH_TEST_ZFS_NO_KPROBES"

struct zfscrypt {
	struct zfscrypt_bpf *skel;
	/* The zio chain's kprobes that did not attach, or "". */
	char chain_why[DETAIL_LEN];
};

/* Why the ZFS crypt layer cannot be traced here, or NULL if it can. */
const char *zfscrypt_unavailable(const struct capabilities *caps,
				 const struct ksyms *ks)
{
	if (access("/sys/module/zfs", F_OK))
		return "the zfs module is not loaded";
	if (getenv(ZFS_NO_KPROBES_ENV))
		return "kprobes turned off by " ZFS_NO_KPROBES_ENV
		       " (a test hook)";
	if (!caps->kprobe.ok)
		/* No fentry either: the zfs module has no BTF. */
		return "needs kprobes (the zfs module has no BTF for fentry)";
	if (ks && !ksyms_named(ks, ZFS_CRYPT_FUNC))
		return ZFS_CRYPT_FUNC " is not in this zfs module";
	return NULL;
}

/*
 * The zio chain's kprobes, each optional: where one cannot attach, the
 * wakeups it would explain go by the waker's stack, as before the chain,
 * and chain_why says so. vdev_disk_io_start only matters for pools on
 * disks, vdev_file_io_start for pools on files: one of them suffices.
 */
static void attach_chain(struct zfscrypt *zc)
{
	struct zfscrypt_bpf *sk = zc->skel;
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
		const char *func;
	} chain[] = {
		{sk->progs.zfs_zio_execute, &sk->links.zfs_zio_execute,
		 "zio_execute"},
		{sk->progs.zfs_zio_execute_exit,
		 &sk->links.zfs_zio_execute_exit, "zio_execute (return)"},
		{sk->progs.zfs_zio_interrupt, &sk->links.zfs_zio_interrupt,
		 "zio_interrupt"},
		{sk->progs.zfs_zio_delay_interrupt,
		 &sk->links.zfs_zio_delay_interrupt, "zio_delay_interrupt"},
		{sk->progs.zfs_vdev_file_start, &sk->links.zfs_vdev_file_start,
		 "vdev_file_io_start"},
		{sk->progs.zfs_vdev_disk_start, &sk->links.zfs_vdev_disk_start,
		 "vdev_disk_io_start"},
	};
	size_t n = 0;

	zc->chain_why[0] = '\0';
	for (size_t i = 0; i < sizeof(chain) / sizeof(*chain); i++) {
		*chain[i].link = bpf_program__attach(chain[i].prog);
		if (*chain[i].link) {
			bpf_ids_add_link(*chain[i].link);
			continue;
		}
		*chain[i].link = NULL;
		n += snprintf(zc->chain_why + n, sizeof(zc->chain_why) - n,
			      "%skprobe on %s: %s", n ? "; " : "",
			      chain[i].func, strerror(errno));
		if (n >= sizeof(zc->chain_why))
			break;
	}
}

int zfscrypt_open(struct zfscrypt **out, const struct zfs_shared_maps *fds,
		  char *why, size_t len)
{
	struct zfscrypt *zc = calloc(1, sizeof(*zc));
	struct bpf_program *prog;
	int err;

	*out = NULL;
	if (!zc)
		return -ENOMEM;
	zc->skel = zfscrypt_bpf__open();
	if (!zc->skel) {
		err = -errno;
		snprintf(why, len, "opening the ZFS kprobes: %s",
			 strerror(-err));
		goto cleanup;
	}
	bpf_object__for_each_program(
		prog, zc->skel->obj) if (strncmp(bpf_program__name(prog),
						 "zfs_crypt_", 10))
		bpf_program__set_autoattach(prog, false);
	err = bpf_map__reuse_fd(zc->skel->maps.zfs_threads, fds->threads);
	err = err
		      ?: bpf_map__reuse_fd(zc->skel->maps.wait_workers,
					   fds->workers);
	err = err
		      ?: bpf_map__reuse_fd(zc->skel->maps.wait_worker_stats,
					   fds->worker_stats);
	err = err ?: bpf_map__reuse_fd(zc->skel->maps.pid_bits, fds->pid_bits);
	err = err ?: zfscrypt_bpf__load(zc->skel);
	if (err) {
		snprintf(why, len, "loading the ZFS kprobes: %s",
			 strerror(-err));
		goto cleanup;
	}
	err = zfscrypt_attach(zc);
	zfscrypt_detach(zc);
	if (err) {
		snprintf(why, len, "kprobe on " ZFS_CRYPT_FUNC ": %s",
			 strerror(-err));
		goto cleanup;
	}
	*out = zc;
	return 0;
cleanup:
	zfscrypt_close(zc);
	return err;
}

int zfscrypt_attach(struct zfscrypt *zc)
{
	int err;

	if (!zc)
		return 0;
	err = zfscrypt_bpf__attach(zc->skel);
	if (err)
		return err;
	if (zc->skel->links.zfs_crypt_enter)
		bpf_ids_add_link(zc->skel->links.zfs_crypt_enter);
	if (zc->skel->links.zfs_crypt_exit)
		bpf_ids_add_link(zc->skel->links.zfs_crypt_exit);
	attach_chain(zc);
	return 0;
}

/* Calls and zios in flight lose their ends with the kprobes: forgotten,
 * so that a recycled key never pairs with one; so are the taskq threads'
 * current zios, whose kretprobe will not fire (a thread's next zio
 * enters it again at the next attach). The counters stay. */
void zfscrypt_detach(struct zfscrypt *zc)
{
	if (!zc)
		return;
	zfscrypt_bpf__detach(zc->skel);
	map_clear(zc->skel->maps.calls);
	map_clear(zc->skel->maps.zios);
	map_clear(zc->skel->maps.zfs_threads);
}

struct bpf_object *zfscrypt_object(const struct zfscrypt *zc)
{
	return zc ? zc->skel->obj : NULL;
}

const char *zfscrypt_chain_why(const struct zfscrypt *zc)
{
	return zc->chain_why;
}

void zfscrypt_close(struct zfscrypt *zc)
{
	if (!zc)
		return;
	zfscrypt_bpf__destroy(zc->skel);
	free(zc);
}

void zfscrypt_restart(struct zfscrypt *zc)
{
	struct layer_stat zero = {0};
	__u64 nothing = 0;

	if (!zc)
		return;
	for (__u32 k = 0; k < NR_OPS; k++)
		bpf_map__update_elem(zc->skel->maps.stats, &k, sizeof(k), &zero,
				     sizeof(zero), 0);
	for (__u32 k = 0; k < ZFS_NR_WORKERS * NR_OPS; k++)
		bpf_map__update_elem(zc->skel->maps.workers, &k, sizeof(k),
				     &nothing, sizeof(nothing), 0);
}

int zfscrypt_begin(struct zfscrypt *zc, const uint64_t *objsets, int n)
{
	__u32 zero_key = 0;
	__u64 nothing = 0;
	__u8 one = 1;

	__atomic_store_n(&zc->skel->bss->tracing_on, 0, __ATOMIC_SEQ_CST);
	map_clear(zc->skel->maps.calls);
	map_clear(zc->skel->maps.objsets);
	map_clear(zc->skel->maps.zios);
	bpf_map__update_elem(zc->skel->maps.crypt_total, &zero_key,
			     sizeof(zero_key), &nothing, sizeof(nothing), 0);
	map_clear(zc->skel->maps.zfs_threads);
	zfscrypt_restart(zc);
	for (int i = 0; i < n && i < ZFS_MAX_OBJSETS; i++)
		if (bpf_map__update_elem(zc->skel->maps.objsets, &objsets[i],
					 sizeof(objsets[i]), &one, sizeof(one),
					 0))
			return -errno;
	zc->skel->bss->filter_objsets = n > 0;
	zfscrypt_window(zc, true);
	return 0;
}

void zfscrypt_window(struct zfscrypt *zc, bool open)
{
	__atomic_store_n(&zc->skel->bss->tracing_on, open, __ATOMIC_SEQ_CST);
}

void zfscrypt_end(struct zfscrypt *zc, struct layer_stat out[NR_OPS],
		  uint64_t workers[ZFS_NR_WORKERS][NR_OPS])
{
	__u64 n[ZFS_NR_WORKERS * NR_OPS] = {0};

	zfscrypt_window(zc, false);
	for (__u32 k = 0; k < NR_OPS; k++)
		bpf_map__lookup_elem(zc->skel->maps.stats, &k, sizeof(k),
				     &out[k], sizeof(out[k]), 0);
	for (__u32 k = 0; k < ZFS_NR_WORKERS * NR_OPS; k++)
		bpf_map__lookup_elem(zc->skel->maps.workers, &k, sizeof(k),
				     &n[k], sizeof(n[k]), 0);
	for (int w = 0; w < ZFS_NR_WORKERS; w++)
		for (int op = 0; op < NR_OPS; op++)
			workers[w][op] = n[w * NR_OPS + op];
}
