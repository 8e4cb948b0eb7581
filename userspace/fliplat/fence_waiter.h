/* SPDX-License-Identifier: MIT */
/*
 * A thread that waits on one out-fence at a time, alone in its poll(), so
 * that the moment it wakes is that fence's and no other descriptor's.
 */
#ifndef FLIPLAT_FENCE_WAITER_H
#define FLIPLAT_FENCE_WAITER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct fl_fence_waiter {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool started;
	/* Readable (an eventfd) once a wait has ended: poll it with the rest. */
	int done_fd;
	int quit_fd;	/* written to stop the thread, even mid-wait */
	/* Under @lock: */
	int fence;	/* the fence to wait on, -1 while idle */
	bool quit;
	bool ended;	/* woke_ns and revents hold the last wait's outcome */
	int64_t woke_ns;
	short revents;	/* of the fence's pollfd: POLLIN, or POLLERR/POLLNVAL */
};

/* Starts the thread; 0, or -errno. */
int fl_fence_waiter_start(struct fl_fence_waiter *w);
/* Has the thread poll @fence (which the caller keeps open until the wait ends). */
void fl_fence_waiter_arm(struct fl_fence_waiter *w, int fence);
/*
 * After done_fd polled readable: the wait's outcome. Returns false if it has
 * not ended yet (a spurious wake-up).
 */
bool fl_fence_waiter_result(struct fl_fence_waiter *w, int64_t *woke_ns, short *revents);
/* Stops and joins the thread; safe on a waiter that never started. */
void fl_fence_waiter_stop(struct fl_fence_waiter *w);

#endif /* FLIPLAT_FENCE_WAITER_H */
