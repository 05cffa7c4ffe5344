// SPDX-License-Identifier: MIT
/*
 * Per-I/O attribution of asynchronous I/O (bpf/aio_io.bpf.h): the
 * submitting and reaping syscalls' numbers, the maps' lifetime over a
 * phase, and the counters into the snapshot.
 */
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>

#include "trace.h" /* first: the skeleton needs attrib.h's types */
#include "attrib.skel.h"
#include "trace_priv.h"

void aio_set_calls(struct attrib_bpf *skel)
{
	/* Number + 1: 0 says the call does not exist here. */
#ifdef __NR_io_submit
	skel->rodata->aio_nr[AIO_CALL_IO_SUBMIT] = __NR_io_submit + 1;
#endif
#ifdef __NR_io_getevents
	skel->rodata->aio_nr[AIO_CALL_IO_GETEVENTS] = __NR_io_getevents + 1;
#endif
#ifdef __NR_io_pgetevents
	skel->rodata->aio_nr[AIO_CALL_IO_PGETEVENTS] = __NR_io_pgetevents + 1;
#endif
#ifdef __NR_io_uring_enter
	skel->rodata->aio_nr[AIO_CALL_IO_URING_ENTER] = __NR_io_uring_enter + 1;
#endif
}

void aio_forget(struct attrib_bpf *skel)
{
	map_clear(skel->maps.aio_ios);
	map_clear(skel->maps.aio_req);
	map_clear(skel->maps.aio_sub);
	map_clear(skel->maps.aio_reap);
	map_clear(skel->maps.aio_cx);
	map_clear(skel->maps.aio_punt);
	skel->bss->aio_punts = 0;
}

void aio_restart(struct attrib_bpf *skel)
{
	map_zero(skel->maps.aio_stats, NR_OPS);
}

void aio_begin(struct attrib_bpf *skel)
{
	aio_forget(skel);
	aio_restart(skel);
}

void aio_read(struct attrib_bpf *skel, bool iou_loaded, struct snapshot *snap)
{
	struct snap_aio *a = &snap->aio;

	a->available = true;
	snprintf(a->source, sizeof(a->source),
		 "per I/O from its top bio: libaio from io_submit to its top "
		 "bio's end (block_rq_complete, or block_bio_complete on dm; "
		 "no tracepoint at aio_complete) and io_getevents' return; "
		 "io_uring %s",
		 iou_loaded ? "from io_uring_submit_req to io_uring_complete "
			      "(punted to io-wq: io_uring_queue_async_work, "
			      "the process's next worker bio)"
			    : "unavailable: no io_uring tracepoints");
	for (__u32 op = 0; op < NR_OPS; op++)
		bpf_map__lookup_elem(skel->maps.aio_stats, &op, sizeof(op),
				     &a->ops[op], sizeof(a->ops[op]), 0);
}
