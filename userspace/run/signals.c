// SPDX-License-Identifier: MIT
/* The signals that end `run` and `setup`: every stage unwinds. */
#include <signal.h>
#include <stddef.h>

#include "run_priv.h"
#include "../workload/workload.h"

static void on_signal(int sig)
{
	(void)sig;
	workload_stop = 1;
}

void run_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	/* No SA_RESTART: blocking calls return EINTR and we unwind. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}
