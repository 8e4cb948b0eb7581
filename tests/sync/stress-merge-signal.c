// SPDX-License-Identifier: MIT
/*
 * stress-merge-signal (seed 010): one thread merges points of 2-3 timelines
 * while another advances those timelines, so points signal in the middle of
 * merges. Every merged fence must eventually signal, and once all of its
 * points have signalled its FILE_INFO status must never read "active"
 * (asked before anyone polled it, so nothing has enabled signalling).
 *
 * usage: stress-merge-signal [SECONDS]   (default 8; at most 5 000 merges)
 */
#include <pthread.h>

#include "check.h"

#define TIMELINES	3
#define MAX_MERGES	5000
#define BACKLOG		64
#define GENEROUS_MS	10000

static int timelines[TIMELINES];
/* Lower bounds of each timeline's value: bumped after each INC returns. */
static volatile unsigned int reached[TIMELINES];
static volatile int stop;

static void *signaller_fn(void *arg)
{
	unsigned int seed = 777;

	(void)arg;
	while (!stop) {
		unsigned int t = rand_r(&seed) % TIMELINES;
		if (sw_sync_timeline_inc(timelines[t], 1) == 0)
			__atomic_add_fetch(&reached[t], 1, __ATOMIC_SEQ_CST);
		if (rand_r(&seed) % 8 == 0)
			usleep(rand_r(&seed) % 200);
	}
	return NULL;
}

struct merged {
	int fd, n;
	unsigned int tl[TIMELINES], value[TIMELINES];
};

static struct {
	long merges, merge_failures, active_after_points, not_signalled;
	int first_err, first_status;
} res;

/* Are all the points of @m known to have signalled? */
static int points_reached(const struct merged *m)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (__atomic_load_n(&reached[m->tl[i]], __ATOMIC_SEQ_CST) < m->value[i])
			return 0;
	return 1;
}

/* Checks a merged fence whose points have signalled, then closes it. */
static void retire(struct merged *m)
{
	struct sync_file_info *info;
	int st;

	/* First without polling: status must already be final. */
	st = fence_status(m->fd);
	info = sync_file_info(m->fd);
	if (points_reached(m) && (st != 1 || !info || info->status != 1)) {
		if (!res.active_after_points++)
			res.first_status = st;
	}
	sync_file_info_free(info);
	if (sync_wait(m->fd, GENEROUS_MS) != 0)
		res.not_signalled++;
	close(m->fd);
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 8;
	struct merged backlog[BACKLOG], *m;
	unsigned int seed = 4242, t;
	pthread_t signaller;
	int64_t deadline;
	int head = 0, count = 0, i, next, pts[TIMELINES];

	if (seconds <= 0 || seconds > 60)
		seconds = 8;
	watchdog((unsigned int)seconds + 25);
	for (i = 0; i < TIMELINES; i++) {
		timelines[i] = sw_sync_timeline_create();
		require(timelines[i] >= 0, "timeline");
	}
	deadline = now_ns() + seconds * 1000000000LL;

	begin("merged-fences-all-signal");
	require(pthread_create(&signaller, NULL, signaller_fn, NULL) == 0, "pthread_create");
	while (res.merges < MAX_MERGES && now_ns() < deadline) {
		/* Retire the oldest once the backlog is full and it is due. */
		if (count == BACKLOG) {
			m = &backlog[head];
			while (!points_reached(m) && now_ns() < deadline + 5000000000LL)
				usleep(100);
			retire(m);
			head = (head + 1) % BACKLOG;
			count--;
		}
		unsigned int used = 0;
		int f;

		m = &backlog[(head + count) % BACKLOG];
		m->n = 2 + rand_r(&seed) % 2;
		for (i = 0; i < m->n; i++) {
			do
				t = rand_r(&seed) % TIMELINES;
			while (used & (1u << t));
			used |= 1u << t;
			m->tl[i] = t;
			/* Just ahead of the signaller: some points signal mid-merge. */
			m->value[i] = __atomic_load_n(&reached[t], __ATOMIC_SEQ_CST) +
				      rand_r(&seed) % 3;
			pts[i] = sw_sync_fence_create(timelines[t], "smerge-pt", m->value[i]);
		}
		f = pts[0] >= 0 && pts[1] >= 0 ? sync_merge("smerge", pts[0], pts[1]) : -1;
		if (f >= 0 && m->n == 3) {
			next = pts[2] >= 0 ? sync_merge("smerge", f, pts[2]) : -1;
			close(f);
			f = next;
		}
		for (i = 0; i < m->n; i++)
			if (pts[i] >= 0)
				close(pts[i]);
		if (f < 0) {
			if (!res.merge_failures++)
				res.first_err = errno;
			continue;
		}
		m->fd = f;
		res.merges++;
		/* Already due? Then it must already say so. */
		if (points_reached(m) && fence_status(f) != 1) {
			if (!res.active_after_points++)
				res.first_status = fence_status(f);
		}
		count++;
	}
	stop = 1;
	pthread_join(signaller, NULL);
	/* Bring every point within reach; then retire what is left. */
	for (i = 0; i < TIMELINES; i++)
		if (sw_sync_timeline_inc(timelines[i], 3) == 0)
			__atomic_add_fetch(&reached[i], 3, __ATOMIC_SEQ_CST);
	while (count > 0) {
		retire(&backlog[head]);
		head = (head + 1) % BACKLOG;
		count--;
	}
	printf("# %ld merges in %d s\n", res.merges, seconds);

	if (!res.merge_failures && res.merges > 0)
		ok("merges-succeed-while-signalling");
	else
		not_ok("merges-succeed-while-signalling", "expected no failed merges, got %ld (first %s) of %ld",
		       res.merge_failures, errno_name(res.first_err), res.merges);
	check_int("merged-fences-all-signal", 0, res.not_signalled);
	if (!res.active_after_points)
		ok("merged-status-final-once-points-signalled");
	else
		not_ok("merged-status-final-once-points-signalled",
		       "expected status 1 once every point signalled, got %ld fences not (first status %d)",
		       res.active_after_points, res.first_status);
	for (i = 0; i < TIMELINES; i++)
		close(timelines[i]);
	return finish();
}
