// SPDX-License-Identifier: MIT
/*
 * The user-space side of attrib.bpf.c's pid_bits map, the nibble per pid
 * that lets the programs run for every syscall, context switch and wakeup
 * leave early for tasks that are not ours: sized from pid_max before load,
 * and mapped after it, so that user space sets a bit with the same atomic
 * OR the programs use (a map update would write back a whole word, and
 * could undo a bit a program set meanwhile for another pid of it).
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "trace.h" /* first: attrib.h's types */
#include "trace_priv.h"

/* Before load: one word per PID_BITS_PER_WORD pids below pid_max, at
 * most the compiled-in size; unread, it stays that (always correct). */
void pid_bits_size(struct bpf_map *map)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	unsigned long max = 0;

	if (!f)
		return;
	if (fscanf(f, "%lu", &max) == 1 && max > 0 && max < PID_BITS_MAX_PIDS)
		bpf_map__set_max_entries(map, (max + PID_BITS_PER_WORD - 1) /
						      PID_BITS_PER_WORD);
	fclose(f);
}

/* After load; false if the map cannot be mapped (bits are then never set
 * from user space: callers must not rely on them). */
bool pid_bits_map(struct pid_bits *pb, struct bpf_map *map)
{
	size_t len = (size_t)bpf_map__max_entries(map) * sizeof(uint64_t);
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	len = (len + page - 1) / page * page;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(map), 0);
	if (p == MAP_FAILED)
		return false;
	pb->words = p;
	pb->nr_words = bpf_map__max_entries(map);
	pb->len = len;
	return true;
}

void pid_bits_mark(struct pid_bits *pb, uint32_t pid, uint64_t bits)
{
	uint32_t i = pid / PID_BITS_PER_WORD;

	if (pb->words && i < pb->nr_words)
		__atomic_fetch_or(&pb->words[i], bits << PID_BITS_SHIFT(pid),
				  __ATOMIC_SEQ_CST);
}

void pid_bits_unmap(struct pid_bits *pb)
{
	if (pb->words)
		munmap(pb->words, pb->len);
	pb->words = NULL;
}
