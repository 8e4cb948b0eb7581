// SPDX-License-Identifier: MIT
/*
 * The out-fence waiter thread. The main loop cannot take a fence's wake-up
 * time from its own poll(): that one also waits for the DRM fd and the
 * renderers, and one return serves every descriptor ready by then. This
 * thread polls only the fence (and its quit eventfd), stamps the return
 * with CLOCK_MONOTONIC, and reports through an eventfd.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "fence_waiter.h"

static int64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *waiter_main(void *arg)
{
	struct fl_fence_waiter *w = arg;
	sigset_t stop;

	/* SIGINT and SIGTERM are for the main thread, to end its poll(). */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);

	for (;;) {
		struct pollfd fds[2];
		int64_t t;
		int ret;

		pthread_mutex_lock(&w->lock);
		while (w->fence < 0 && !w->quit)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->quit) {
			pthread_mutex_unlock(&w->lock);
			return NULL;
		}
		fds[0] = (struct pollfd){ .fd = w->fence, .events = POLLIN };
		pthread_mutex_unlock(&w->lock);
		fds[1] = (struct pollfd){ .fd = w->quit_fd, .events = POLLIN };

		do
			ret = poll(fds, 2, -1);
		while (ret < 0 && errno == EINTR);
		t = monotonic_ns();
		if (fds[1].revents)
			return NULL;

		pthread_mutex_lock(&w->lock);
		w->woke_ns = t;
		w->revents = ret < 0 ? POLLERR : fds[0].revents;
		w->ended = true;
		w->fence = -1;
		pthread_mutex_unlock(&w->lock);
		(void)!eventfd_write(w->done_fd, 1);
	}
}

int fl_fence_waiter_start(struct fl_fence_waiter *w)
{
	int ret;

	*w = (struct fl_fence_waiter){ .fence = -1, .done_fd = -1, .quit_fd = -1 };
	w->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	w->quit_fd = eventfd(0, EFD_CLOEXEC);
	if (w->done_fd < 0 || w->quit_fd < 0) {
		ret = -errno;
		goto err;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	ret = -pthread_create(&w->thread, NULL, waiter_main, w);
	if (ret) {
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
		goto err;
	}
	w->started = true;
	return 0;
err:
	if (w->done_fd >= 0)
		close(w->done_fd);
	if (w->quit_fd >= 0)
		close(w->quit_fd);
	w->done_fd = w->quit_fd = -1;
	return ret;
}

void fl_fence_waiter_arm(struct fl_fence_waiter *w, int fence)
{
	pthread_mutex_lock(&w->lock);
	w->fence = fence;
	w->ended = false;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

bool fl_fence_waiter_result(struct fl_fence_waiter *w, int64_t *woke_ns, short *revents)
{
	eventfd_t n;
	bool ended;

	(void)!eventfd_read(w->done_fd, &n);
	pthread_mutex_lock(&w->lock);
	ended = w->ended;
	if (ended) {
		*woke_ns = w->woke_ns;
		*revents = w->revents;
		w->ended = false;
	}
	pthread_mutex_unlock(&w->lock);
	return ended;
}

void fl_fence_waiter_stop(struct fl_fence_waiter *w)
{
	if (!w->started)
		return;
	pthread_mutex_lock(&w->lock);
	w->quit = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	(void)!eventfd_write(w->quit_fd, 1);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	close(w->done_fd);
	close(w->quit_fd);
	w->started = false;
}
