// SPDX-License-Identifier: MIT
/*
 * SIGINT and SIGTERM end a run as its last frame would: no new commit, the
 * feedback of the frames committed still awaited (STALL_MS at most), the
 * reports written, exit 0. The handler only counts; the client sees the
 * count between its waits. The signals stay blocked except inside the
 * ppoll() of those waits, so one that comes just before a wait still ends
 * it at once. A second signal (one during the wait for the last feedback,
 * at a normal end) stops that wait; after it, the handlers are gone and a
 * third kills presentlat the hard way.
 */
#include <signal.h>
#include <stddef.h>

#include "presentlat.h"

volatile sig_atomic_t pl_stop_signals, pl_stop_signal;

static void stop(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	pl_stop_signal = sig;
	/* No other stop signal nests here: sa_mask holds both. */
	if (++pl_stop_signals < 2)
		return;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGINT, &dfl, NULL);
	sigaction(SIGTERM, &dfl, NULL);
}

void pl_catch_stop_signals(sigset_t *waiting)
{
	/* No SA_RESTART: the signal ends the ppoll() it interrupts. */
	struct sigaction sa = { .sa_handler = stop };
	sigset_t both;

	sigemptyset(&both);
	sigaddset(&both, SIGINT);
	sigaddset(&both, SIGTERM);
	sa.sa_mask = both;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigprocmask(SIG_BLOCK, &both, waiting);
	sigdelset(waiting, SIGINT);
	sigdelset(waiting, SIGTERM);
}

void pl_release_stop_signals(const sigset_t *waiting)
{
	sigprocmask(SIG_SETMASK, waiting, NULL);
}

const char *pl_stop_signal_name(void)
{
	return pl_stop_signal == SIGTERM ? "SIGTERM" : "SIGINT";
}
