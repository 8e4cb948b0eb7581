// SPDX-License-Identifier: MIT
/*
 * wait (seeds 007, 008, 011): waiting on fences. A zero timeout polls and
 * reports ETIME at once, a negative one waits for ever, an error reaches the
 * waiter, and under a multi-threaded load no wake-up is ever lost: every
 * waiter, whether it polls, waits with a timeout or waits for ever, sees its
 * fence signalled.
 *
 * usage: wait [ROUNDS]   rounds of the stress part (default 300, bounded to
 *                        about 10 s whatever the count)
 */
#include <pthread.h>

#include "check.h"

#define WAITERS		6
#define STRESS_SECONDS	10
#define GENEROUS_MS	10000

static __thread unsigned int rand_state = 1;

static unsigned int rnd(unsigned int n)
{
	rand_state = rand_state * 1103515245 + 12345;
	return (rand_state >> 16) % n;
}

struct signaller {
	int timeline;
	unsigned int delay_ms, count;
	pthread_t thread;
};

static void *signaller_fn(void *arg)
{
	struct signaller *s = arg;

	sleep_ms(s->delay_ms);
	sw_sync_timeline_inc(s->timeline, s->count);
	return NULL;
}

static void signal_later(struct signaller *s, int tl, unsigned int ms)
{
	s->timeline = tl;
	s->delay_ms = ms;
	s->count = 1;
	require(pthread_create(&s->thread, NULL, signaller_fn, s) == 0, "pthread_create");
}

static void test_timeouts(void)
{
	int64_t t0, dt[5], tmp;
	int tl, f, i, j, ret, err, fails = 0;
	struct signaller s;

	tl = sw_sync_timeline_create();
	require(tl >= 0, "timeline");
	f = sw_sync_fence_create(tl, "wait-a", 1);
	require(f >= 0, "fence");

	/* Seed 011: timeout 0 is a poll, not a wait and not a success. */
	begin("wait-zero-timeout-active-etime-immediately");
	for (i = 0; i < 5; i++) {
		t0 = now_ns();
		ret = sync_wait(f, 0);
		err = errno;
		dt[i] = now_ns() - t0;
		if (ret != -1 || err != ETIME)
			fails++;
	}
	for (i = 0; i < 5; i++)	/* the median, against a noisy host */
		for (j = i + 1; j < 5; j++)
			if (dt[j] < dt[i]) {
				tmp = dt[i];
				dt[i] = dt[j];
				dt[j] = tmp;
			}
	if (!fails && dt[2] < 50000000)
		ok("wait-zero-timeout-active-etime-immediately");
	else
		not_ok("wait-zero-timeout-active-etime-immediately",
		       "expected -1/ETIME within 50 ms 5 times, got %d other results, median %lld us",
		       fails, (long long)(dt[2] / 1000));

	begin("wait-timeout-active-etime-after-timeout");
	t0 = now_ns();
	ret = sync_wait(f, 100);
	err = errno;
	dt[0] = now_ns() - t0;
	if (ret == -1 && err == ETIME && dt[0] >= 95000000 && dt[0] < 3000000000LL)
		ok("wait-timeout-active-etime-after-timeout");
	else
		not_ok("wait-timeout-active-etime-after-timeout",
		       "expected -1/ETIME after 100 ms, got %d/%s after %lld ms", ret,
		       errno_name(err), (long long)(dt[0] / 1000000));
	check_int("wait-timeout-leaves-fence-active", 0, fence_status(f));

	begin("wait-negative-timeout-waits-until-signalled");
	t0 = now_ns();
	signal_later(&s, tl, 200);
	ret = sync_wait(f, -1);
	err = errno;
	dt[0] = now_ns() - t0;
	pthread_join(s.thread, NULL);
	if (ret == 0 && dt[0] >= 150000000)
		ok("wait-negative-timeout-waits-until-signalled");
	else
		not_ok("wait-negative-timeout-waits-until-signalled",
		       "expected 0 after >= 200 ms, got %d/%s after %lld ms", ret,
		       errno_name(err), (long long)(dt[0] / 1000000));
	check_int("wait-zero-timeout-signalled-returns-0", 0, sync_wait(f, 0));
	close(f);

	begin("wait-timeout-returns-at-signal-not-timeout");
	f = sw_sync_fence_create(tl, "wait-b", 2);
	require(f >= 0, "fence");
	t0 = now_ns();
	signal_later(&s, tl, 100);
	ret = sync_wait(f, GENEROUS_MS);
	err = errno;
	dt[0] = now_ns() - t0;
	pthread_join(s.thread, NULL);
	if (ret == 0 && dt[0] < GENEROUS_MS / 2 * 1000000LL)
		ok("wait-timeout-returns-at-signal-not-timeout");
	else
		not_ok("wait-timeout-returns-at-signal-not-timeout",
		       "expected 0 soon after 100 ms, got %d/%s after %lld ms", ret,
		       errno_name(err), (long long)(dt[0] / 1000000));
	close(f);
	close(tl);
}

static void test_errors(void)
{
	int t1, t2, a, b, m, f;

	t1 = sw_sync_timeline_create();
	t2 = sw_sync_timeline_create();
	require(t1 >= 0 && t2 >= 0, "timelines");
	f = sw_sync_fence_create(t1, "wait-err", 5);
	a = sw_sync_fence_create(t1, "wait-err-a", 1);
	b = sw_sync_fence_create(t2, "wait-err-b", 1);
	require(f >= 0 && a >= 0 && b >= 0, "fences");
	m = sync_merge("wait-err-m", a, b);
	require(m >= 0, "merge");

	begin("wait-merged-error-reports-enoent");
	sw_sync_timeline_inc(t1, 1);
	close(t1);	/* f errors, a had signalled */
	CHECK_FAILS("wait-error-fence-reports-enoent", sync_wait(f, GENEROUS_MS), ENOENT);
	check_int("error-fence-status-is-enoent", -ENOENT, fence_status(f));
	check_int("signalled-fence-stays-ok-after-close", 0, sync_wait(a, 0));
	close(t2);	/* b errors: the merge must report it */
	CHECK_FAILS("wait-merged-error-reports-enoent", sync_wait(m, GENEROUS_MS), ENOENT);
	check_int("merged-error-status-is-enoent", -ENOENT, fence_status(m));
	close(f);
	close(a);
	close(b);
	close(m);
}

/*
 * The stress part. Each round the main thread creates one fence per waiter
 * at the timeline's next value, releases the waiters and, after a random
 * pause of 0-2 ms (so waiters are sometimes asleep, sometimes racing),
 * advances the timeline by one. Waiter i waits with method i % 3.
 */
enum method { M_TIMEOUT, M_INFINITE, M_POLL };
static const char *method_name[] = { "sync_wait(10 s)", "sync_wait(-1)", "poll(-1)" };

struct stress {
	pthread_barrier_t start, end;
	int fences[WAITERS];
	volatile int stop;
	struct {
		int lost, wrong, first_ret, first_err, first_round;
	} result[WAITERS];
	int round;
};

struct waiter {
	struct stress *s;
	int index;
	pthread_t thread;
};

/* Waits on @fd the way @how says; 0 on success, else -1 with *err set. */
static int wait_one(int fd, enum method how, int *err)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ret;

	errno = 0;
	if (how == M_POLL)
		ret = poll(&pfd, 1, -1) == 1 && pfd.revents == POLLIN ? 0 : -1;
	else
		ret = sync_wait(fd, how == M_TIMEOUT ? GENEROUS_MS : -1);
	*err = errno;
	return ret;
}

static void *waiter_fn(void *arg)
{
	struct waiter *w = arg;
	struct stress *s = w->s;

	rand_state = 0x9e3779b9u * (unsigned int)(w->index + 1);
	for (;;) {
		int ret, err, st;

		pthread_barrier_wait(&s->start);
		if (s->stop)
			break;
		if (w->index & 1)
			usleep(rnd(1000));	/* so some waiters come late */
		ret = wait_one(s->fences[w->index], w->index % 3, &err);
		st = fence_status(s->fences[w->index]);
		if (ret != 0 || st != 1) {
			if (ret != 0 && err == ETIME)
				s->result[w->index].lost++;
			else
				s->result[w->index].wrong++;
			if (s->result[w->index].lost + s->result[w->index].wrong == 1) {
				s->result[w->index].first_ret = ret;
				s->result[w->index].first_err = ret ? err : st;
				s->result[w->index].first_round = s->round;
			}
		}
		pthread_barrier_wait(&s->end);
	}
	return NULL;
}

static void test_stress(int rounds)
{
	static struct stress s;
	struct waiter w[WAITERS];
	int64_t deadline;
	int tl, i, r, lost = 0, wrong = 0;

	tl = sw_sync_timeline_create();
	require(tl >= 0, "timeline");
	memset(&s, 0, sizeof(s));
	pthread_barrier_init(&s.start, NULL, WAITERS + 1);
	pthread_barrier_init(&s.end, NULL, WAITERS + 1);
	for (i = 0; i < WAITERS; i++) {
		w[i].s = &s;
		w[i].index = i;
		require(pthread_create(&w[i].thread, NULL, waiter_fn, &w[i]) == 0,
			"pthread_create");
	}

	begin("stress-waiters-see-every-signal");
	deadline = now_ns() + STRESS_SECONDS * 1000000000LL;
	for (r = 0; r < rounds && now_ns() < deadline; r++) {
		s.round = r + 1;
		for (i = 0; i < WAITERS; i++) {
			s.fences[i] = sw_sync_fence_create(tl, "wait-stress", r + 1);
			require(s.fences[i] >= 0, "fence");
		}
		pthread_barrier_wait(&s.start);
		if (r % 4)
			usleep(rnd(2000));
		sw_sync_timeline_inc(tl, 1);
		pthread_barrier_wait(&s.end);
		for (i = 0; i < WAITERS; i++)
			close(s.fences[i]);
	}
	s.stop = 1;
	pthread_barrier_wait(&s.start);
	for (i = 0; i < WAITERS; i++) {
		pthread_join(w[i].thread, NULL);
		lost += s.result[i].lost;
		wrong += s.result[i].wrong;
	}
	printf("# %d rounds x %d waiters\n", r, WAITERS);

	for (i = 0; i < WAITERS && !s.result[i].lost; i++)
		;
	if (!lost)
		ok("stress-no-lost-wakeups");
	else
		not_ok("stress-no-lost-wakeups",
		       "expected every wait to end at its signal, got %d timeouts (first: waiter %d, %s, round %d)",
		       lost, i, method_name[i % 3], s.result[i].first_round);
	for (i = 0; i < WAITERS && !s.result[i].wrong; i++)
		;
	if (!wrong)
		ok("stress-waiters-see-every-signal");
	else
		not_ok("stress-waiters-see-every-signal",
		       "expected success and status 1, got %d failures (first: waiter %d, %s, round %d: %d/%d)",
		       wrong, i, method_name[i % 3], s.result[i].first_round,
		       s.result[i].first_ret, s.result[i].first_err);
	if (r >= 20)
		ok("stress-ran-enough-rounds");
	else
		not_ok("stress-ran-enough-rounds", "expected >= 20 rounds in %d s, got %d",
		       STRESS_SECONDS, r);
	pthread_barrier_destroy(&s.start);
	pthread_barrier_destroy(&s.end);
	close(tl);
}

/*
 * A point created while another thread advances its timeline must not signal
 * before the timeline reaches it: create points far ahead (the incrementer
 * cannot get there during the test) and look at each one at once.
 */
#define RACE_AHEAD	1000000u
#define RACE_CREATES	20000
#define RACE_SECONDS	3

struct racer {
	int timeline;
	volatile int stop;
	unsigned long incs;
	pthread_t thread;
};

static void *racer_fn(void *arg)
{
	struct racer *r = arg;

	while (!r->stop && r->incs < RACE_AHEAD / 2) {
		if (sw_sync_timeline_inc(r->timeline, 1) < 0)
			break;
		r->incs++;
	}
	return NULL;
}

static void test_create_racing_inc(void)
{
	struct racer r;
	int64_t deadline;
	int i, early = 0, first_i = -1, first_st = 0;

	r.timeline = sw_sync_timeline_create();
	require(r.timeline >= 0, "timeline");
	r.stop = 0;
	r.incs = 0;
	begin("create-racing-inc-never-signals-early");
	require(pthread_create(&r.thread, NULL, racer_fn, &r) == 0, "pthread_create");
	deadline = now_ns() + RACE_SECONDS * 1000000000LL;
	for (i = 0; i < RACE_CREATES && now_ns() < deadline; i++) {
		int f = sw_sync_fence_create(r.timeline, "wait-race", RACE_AHEAD);
		int st;

		require(f >= 0, "fence");
		st = fence_status(f);
		if (st != 0 && !early++) {
			first_i = i;
			first_st = st;
		}
		close(f);
	}
	r.stop = 1;
	pthread_join(r.thread, NULL);
	printf("# %d creates against %lu incs\n", i, r.incs);
	if (!early)
		ok("create-racing-inc-never-signals-early");
	else
		not_ok("create-racing-inc-never-signals-early",
		       "expected points at %u to stay active (timeline <= %lu), got %d of %d signalled (first #%d, status %d)",
		       RACE_AHEAD, r.incs, early, i, first_i, first_st);
	close(r.timeline);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 300;

	watchdog(STRESS_SECONDS + RACE_SECONDS + 20);
	rand_state = (unsigned int)getpid();
	test_timeouts();
	test_errors();
	test_create_racing_inc();
	test_stress(rounds > 0 ? rounds : 300);
	return finish();
}
