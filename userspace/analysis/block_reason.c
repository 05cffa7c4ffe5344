// SPDX-License-Identifier: MIT
/*
 * Why a caller blocked, from its own kernel stack as it blocked (taken at
 * sched_switch, in its own context: STACK_BLOCKED_NS), and whether the
 * task that woke it says anything about what it waited for. Pure
 * functions of function names, innermost frame first, so that a saved
 * stack can be classified anew by a later table.
 */
#include <stdbool.h>
#include <string.h>

#include "analysis.h"

/*
 * Function name -> reason, in order: the first rule with a function
 * anywhere on the stack decides. A stack holds several of them -- ext4's
 * free-space path waits in wb_wait_for_completion, a folio under
 * writeback is waited for with folio_wait_bit_common -- and the outer
 * frame says why: the reason that explains the others comes first.
 */
static const struct {
	const char *func;
	enum block_reason why;
} why_rules[] = {
	/* ext4_da_write_begin: free clusters under twice the delalloc ones,
	 * so it writes the file system back and waits for it. */
	{"ext4_nonda_switch", WHY_FREE_SPACE},
	{"balance_dirty_pages", WHY_DIRTY_THROTTLE},
	{"balance_dirty_pages_ratelimited_flags", WHY_DIRTY_THROTTLE},
	{"balance_dirty_pages_ratelimited", WHY_DIRTY_THROTTLE},
	{"jbd2_log_wait_commit", WHY_JOURNAL},
	{"jbd2_journal_force_commit", WHY_JOURNAL},
	{"wait_transaction_locked", WHY_JOURNAL},
	{"add_transaction_credits", WHY_JOURNAL},
	{"jbd2_journal_lock_updates", WHY_JOURNAL},
	{"folio_wait_writeback", WHY_FOLIO_WRITEBACK},
	{"folio_wait_stable", WHY_FOLIO_WRITEBACK},
	{"wait_on_page_writeback", WHY_FOLIO_WRITEBACK},
	{"__filemap_fdatawait_range", WHY_FOLIO_WRITEBACK},
	{"wb_wait_for_completion", WHY_WRITEBACK_WORK},
	{"submit_bio_wait", WHY_OWN_BIO},
	{"blk_io_schedule", WHY_OWN_BIO},
	{"__iomap_dio_rw", WHY_OWN_BIO},
	{"iomap_dio_rw", WHY_OWN_BIO},
	{"__blkdev_direct_IO_simple", WHY_OWN_BIO},
	{"__blkdev_direct_IO", WHY_OWN_BIO},
	{"txg_wait_synced_impl", WHY_ZFS_TXG},
	{"txg_wait_synced", WHY_ZFS_TXG},
	{"txg_wait_open", WHY_ZFS_TXG},
	{"zil_commit_impl", WHY_ZFS_ZIO},
	{"zil_commit", WHY_ZFS_ZIO},
	{"zio_wait", WHY_ZFS_ZIO},
	{"folio_wait_bit_common", WHY_FOLIO_LOCK},
	{"folio_wait_bit", WHY_FOLIO_LOCK},
	{"folio_put_wait_locked", WHY_FOLIO_LOCK},
	{"__folio_lock", WHY_FOLIO_LOCK},
	{"__folio_lock_killable", WHY_FOLIO_LOCK},
	{"__folio_lock_or_retry", WHY_FOLIO_LOCK},
	{"__lock_page", WHY_FOLIO_LOCK},
	{"wait_on_page_bit_common", WHY_FOLIO_LOCK},
	{"__mutex_lock", WHY_LOCK},
	{"rwsem_down_write_slowpath", WHY_LOCK},
	{"rwsem_down_read_slowpath", WHY_LOCK},
};

/* name is func, or func with a compiler's suffix (".isra.0",
 * ".constprop.0", ".part.0"). */
static bool is_func(const char *name, const char *func)
{
	size_t n = strlen(func);

	return !strncmp(name, func, n) && (name[n] == '\0' || name[n] == '.');
}

static bool on_stack(const char *const *frames, int n, const char *func)
{
	for (int i = 0; i < n; i++)
		if (frames[i] && is_func(frames[i], func))
			return true;
	return false;
}

int block_reason_of(const char *const *frames, int n)
{
	for (size_t r = 0; r < sizeof(why_rules) / sizeof(why_rules[0]); r++)
		if (on_stack(frames, n, why_rules[r].func))
			return why_rules[r].why;
	return WHY_OTHER;
}

/*
 * A waker that says nothing about what the caller waited for: a timer
 * (balance_dirty_pages sleeps in io_schedule_timeout; the caller waited
 * for writeback to catch up, not for the timer), or the end of writeback
 * on a folio whose request was not ours to follow. Its blocked time is
 * shared out by what writeback did meanwhile (wait_split.c).
 */
static const char *const silent_wakers[] = {
	"hrtimer_wakeup",	 "process_timeout",    "call_timer_fn",
	"folio_end_writeback",	 "end_page_writeback", "__folio_end_writeback",
	"finish_writeback_work",
};

bool waker_says_nothing(const char *const *frames, int n)
{
	for (size_t k = 0; k < sizeof(silent_wakers) / sizeof(silent_wakers[0]);
	     k++)
		if (on_stack(frames, n, silent_wakers[k]))
			return true;
	return false;
}
