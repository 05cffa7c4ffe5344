// SPDX-License-Identifier: MIT
/*
 * The progress line. A thread redraws it once a second so that the time
 * left moves during a long iteration; it blocks every signal, so Ctrl-C
 * still lands in the main thread and interrupts its wait for the workload.
 * It writes only to stderr and is never in a traced child, so tracing does
 * not see it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "../common/fmt_time.h"
#include "../common/results.h"

static struct {
	bool on;
	bool quiet;   /* --quiet: no log lines (progress_say) */
	bool verbose; /* --verbose: progress_detail's lines too */
	bool drawn;   /* a progress line is on the screen now */
	bool midline; /* a message is half written: do not draw */
	pthread_t ticker;
	pthread_mutex_t lock;
	pthread_cond_t stop;
	bool stopping;
	char stage[16], target[NAME_LEN], workload[NAME_LEN];
	int i, n;
	int total, done;
	double deadline_s;	  /* tune: the budget's end (monotonic), or 0 */
	char best[NAME_LEN + 32]; /* tune: the best so far, or "" */
	double timed_s;		  /* seconds of finished iterations */
	double iter_start_s;	  /* when the current iteration began */
} pg = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.stop = PTHREAD_COND_INITIALIZER,
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

bool progress_wanted(bool quiet, bool json)
{
	return !quiet && !json && isatty(STDERR_FILENO);
}

void progress_format(char *buf, int len, const char *stage, const char *target,
		     const char *workload, int i, int n, double left_s)
{
	char left[32] = "";
	int k;

	k = snprintf(buf, len, "%s", stage);
	if (target && *target && k < len)
		k += snprintf(buf + k, len - k, " %s", target);
	if (workload && *workload && k < len)
		k += snprintf(buf + k, len - k, " %s", workload);
	if (n > 0 && k < len)
		k += snprintf(buf + k, len - k, " iteration %d/%d", i, n);
	if (left_s >= 0 && k < len) {
		fmt_duration(left, sizeof(left), left_s);
		snprintf(buf + k, len - k, ", about %s left", left);
	}
}

/* Time left: finished iterations' mean times those not finished, less
 * what the current one has already run. Unknown (-1) before the first. */
static double left_s(void)
{
	double mean, rest;

	if (pg.deadline_s > 0)
		return pg.deadline_s > now_s() ? pg.deadline_s - now_s() : 0;
	if (!pg.done || pg.total <= pg.done)
		return -1;
	mean = pg.timed_s / pg.done;
	rest = mean * (pg.total - pg.done);
	if (pg.iter_start_s > 0)
		rest -= now_s() - pg.iter_start_s;
	return rest > 0 ? rest : 0;
}

static int columns(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		return ws.ws_col;
	return 80;
}

/* Caller holds pg.lock. The line never reaches the last column: a line
 * that wraps could no longer be erased by one carriage return. */
static void draw(void)
{
	char line[256];
	int width = columns() - 1;

	if (!pg.on || pg.midline)
		return;
	if (width > (int)sizeof(line))
		width = sizeof(line);
	progress_format(line, width, pg.stage, pg.target, pg.workload, pg.i,
			pg.n, left_s());
	if (pg.best[0] && strlen(line) + strlen(pg.best) + 2 < (size_t)width)
		strcat(strcat(line, ", "), pg.best);
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	pg.drawn = true;
}

static void erase(void)
{
	if (!pg.drawn)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	pg.drawn = false;
}

static void *tick(void *arg)
{
	struct timespec until;

	(void)arg;
	pthread_mutex_lock(&pg.lock);
	while (!pg.stopping) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		if (pthread_cond_timedwait(&pg.stop, &pg.lock, &until) ==
		    ETIMEDOUT)
			draw();
	}
	pthread_mutex_unlock(&pg.lock);
	return NULL;
}

void progress_start(bool on)
{
	sigset_t all, old;

	if (!on || pg.on)
		return;
	pg.on = true;
	/* The thread inherits this mask: no signal is ever delivered to it. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&pg.ticker, NULL, tick, NULL))
		pg.on = false;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void progress_budget(double deadline_s, const char *best)
{
	pthread_mutex_lock(&pg.lock);
	pg.deadline_s = deadline_s;
	snprintf(pg.best, sizeof(pg.best), "%s", best ? best : "");
	pthread_mutex_unlock(&pg.lock);
}

void progress_plan(int total_iterations)
{
	pthread_mutex_lock(&pg.lock);
	pg.total = total_iterations;
	pthread_mutex_unlock(&pg.lock);
}

void progress_stage(const char *stage, const char *target, const char *workload)
{
	pthread_mutex_lock(&pg.lock);
	snprintf(pg.stage, sizeof(pg.stage), "%s", stage);
	snprintf(pg.target, sizeof(pg.target), "%s", target ? target : "");
	snprintf(pg.workload, sizeof(pg.workload), "%s",
		 workload ? workload : "");
	pg.i = pg.n = 0;
	pg.iter_start_s = 0;
	draw();
	pthread_mutex_unlock(&pg.lock);
}

void progress_iteration(int i, int n)
{
	pthread_mutex_lock(&pg.lock);
	pg.i = i;
	pg.n = n;
	pg.iter_start_s = now_s();
	draw();
	pthread_mutex_unlock(&pg.lock);
}

void progress_iteration_done(void)
{
	pthread_mutex_lock(&pg.lock);
	if (pg.iter_start_s > 0) {
		pg.timed_s += now_s() - pg.iter_start_s;
		pg.done++;
		pg.iter_start_s = 0;
	}
	pthread_mutex_unlock(&pg.lock);
}

void progress_quiet(bool quiet)
{
	pthread_mutex_lock(&pg.lock);
	pg.quiet = quiet;
	pthread_mutex_unlock(&pg.lock);
}

static void say(const char *fmt, va_list ap)
{
	pthread_mutex_lock(&pg.lock);
	erase();
	vfprintf(stderr, fmt, ap);
	/* Redraw only after a whole line: a message may come in pieces. */
	pg.midline = fmt[0] && fmt[strlen(fmt) - 1] != '\n';
	draw();
	pthread_mutex_unlock(&pg.lock);
}

void progress_say(const char *fmt, ...)
{
	va_list ap;

	/* Read unlocked: only the main thread sets it, and says. */
	if (pg.quiet)
		return;
	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

void progress_verbose(bool verbose)
{
	pthread_mutex_lock(&pg.lock);
	pg.verbose = verbose;
	pthread_mutex_unlock(&pg.lock);
}

void progress_detail(const char *fmt, ...)
{
	va_list ap;

	/* Read unlocked, as in progress_say(). */
	if (pg.quiet || !pg.verbose)
		return;
	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

void progress_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

void progress_stop(void)
{
	if (!pg.on)
		return;
	pthread_mutex_lock(&pg.lock);
	pg.stopping = true;
	pthread_cond_signal(&pg.stop);
	erase();
	pg.on = false;
	pthread_mutex_unlock(&pg.lock);
	pthread_join(pg.ticker, NULL);
}
