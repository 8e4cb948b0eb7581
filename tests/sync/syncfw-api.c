// SPDX-License-Identifier: MIT
/*
 * syncfw-api: syncfw's own kernel API, reached through the test-only
 * syncfw_testdev module (tests/syncfw-testdev), since neither sw_sync nor
 * SYNC_IOC_MERGE uses it: sync_fence_merge() (seeds 005, 010),
 * sync_fence_wait() (seeds 007, 008, 011), errors through merges, and
 * timestamped signals that lockless readers cannot pre-empt (seed 001).
 *
 * usage: syncfw-api [ROUNDS]   (stress rounds, default 2000)
 */
#include <pthread.h>
#include <sys/klog.h>

#include "check.h"
#include "../syncfw-testdev/syncfw_test_uapi.h"

static int testdev(void)
{
	int fd = open(SYNCFW_TEST_PATH, O_RDWR | O_CLOEXEC);

	require(fd >= 0, "open " SYNCFW_TEST_PATH);
	return fd;
}

/* A merged fd, or -1 with errno. */
static int kmerge(int dev, int a, int b)
{
	struct syncfw_test_merge m = { .fd1 = a, .fd2 = b, .name = "kmerge" };

	if (ioctl(dev, SYNCFW_TEST_IOC_MERGE, &m) < 0)
		return -1;
	return m.fence;
}

/* sync_fence_wait()'s return value, or -1000 - errno if the ioctl failed. */
static int kwait(int dev, int fd, long long timeout_ms)
{
	struct syncfw_test_wait w = { .fd = fd, .timeout_ms = timeout_ms };

	if (ioctl(dev, SYNCFW_TEST_IOC_WAIT, &w) < 0)
		return -1000 - errno;
	return w.status;
}

/* How many "wait timed out" dumps the kernel log holds. */
static int timeout_dumps(void)
{
	int size = klogctl(10, NULL, 0), n = 0;
	char *buf, *p;

	if (size <= 0)
		return -1;
	buf = malloc((size_t)size + 1);
	if (!buf)
		return -1;
	size = klogctl(3, buf, size);
	if (size < 0) {
		free(buf);
		return -1;
	}
	buf[size] = '\0';
	for (p = buf; (p = strstr(p, "syncfw: wait timed out")); p++)
		n++;
	free(buf);
	return n;
}

static void test_merge(int dev)
{
	int t1 = must_timeline(), t2 = must_timeline(), p[2], closed;
	int a = must_fence(t1, "syncfw-api", 1), b = must_fence(t2, "syncfw-api", 1), c = must_fence(t1, "syncfw-api", 3), ab, abc;

	begin("kmerge-spans-timelines");
	ab = kmerge(dev, a, b);
	require(ab >= 0, "kmerge a b");
	check_int("kmerge-spans-timelines", 2, fence_size(ab));
	abc = kmerge(dev, ab, c);
	require(abc >= 0, "kmerge ab c");
	check_int("kmerge-keeps-later-point-per-timeline", 2, fence_size(abc));
	check_int("kmerge-check-active", -ETIME, kwait(dev, abc, 0));
	require(sw_sync_timeline_inc(t1, 1) == 0 && sw_sync_timeline_inc(t2, 1) == 0, "inc");
	check_int("kmerge-waits-for-later-point", -ETIME, kwait(dev, abc, 0));
	check_int("kmerge-of-earlier-signalled", 0, kwait(dev, ab, 0));
	require(sw_sync_timeline_inc(t1, 2) == 0, "inc");
	check_int("kmerge-signals-with-last-point", 0, kwait(dev, abc, 0));

	begin("kmerge-rejects-non-fence-fd");
	require(pipe(p) == 0, "pipe");
	closed = dup(p[0]);
	close(closed);
	CHECK_FAILS("kmerge-rejects-non-fence-fd", kmerge(dev, a, p[0]), EINVAL);
	CHECK_FAILS("kmerge-rejects-closed-fd", kmerge(dev, closed, a), EINVAL);
	check_int("kwait-rejects-non-fence-fd", -1000 - EINVAL, kwait(dev, p[1], 0));
	close(p[0]);
	close(p[1]);
	close(abc);
	close(ab);
	close(c);
	close(b);
	close(a);
	close(t2);
	close(t1);
}

/* Whether the dump lists "pt @value: active" under a testdev timeline. */
static int dump_shows(unsigned int value)
{
	char *text = read_text(SYNC_INFO_PATH, NULL), *line, *save = NULL, want[32];
	int in_block = 0, found = 0;

	if (!text)
		return -1;
	snprintf(want, sizeof(want), "  pt %u: active", value);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] != ' ')
			in_block = !strncmp(line, "syncfw_testdev syncfw_testdev:", 30);
		else if (in_block && !strcmp(line, want))
			found = 1;
	}
	free(text);
	return found;
}

static void test_publish(void)
{
	int dev = testdev();
	__u32 value = 77;

	begin("unpublished-point-not-in-dump");
	require(ioctl(dev, SYNCFW_TEST_IOC_HOLD, &value) == 0, "hold a point");
	check_int("unpublished-point-not-in-dump", 0, dump_shows(77));
	require(ioctl(dev, SYNCFW_TEST_IOC_PUBLISH) == 0, "publish it");
	check_int("published-point-in-dump", 1, dump_shows(77));
	close(dev);
}

static void test_merged_error(int dev)
{
	int t1 = must_timeline(), t2 = must_timeline();
	int a = must_fence(t1, "syncfw-api", 1), b = must_fence(t2, "syncfw-api", 1), ab, late;

	begin("kmerge-reports-error-on-check");
	ab = kmerge(dev, a, b);
	require(ab >= 0, "kmerge");
	close(t2);
	require(sw_sync_timeline_inc(t1, 1) == 0, "inc");
	check_int("kmerge-reports-error-on-check", -ENOENT, kwait(dev, ab, 0));
	check_int("kmerge-reports-error-on-wait", -ENOENT, kwait(dev, ab, -1));
	late = kmerge(dev, a, b);
	require(late >= 0, "kmerge after failure");
	check_int("kmerge-of-failed-point-fails", -ENOENT, kwait(dev, late, 0));
	check_int("kmerge-error-in-file-info", -ENOENT, fence_status(late));
	close(late);
	close(ab);
	close(b);
	close(a);
	close(t1);
}

struct late_inc {
	int tl;
	unsigned int delay_ms;
};

static void *inc_later(void *arg)
{
	struct late_inc *l = arg;

	sleep_ms(l->delay_ms);
	sw_sync_timeline_inc(l->tl, 1);
	return NULL;
}

/* The fence's timestamp_ns from FILE_INFO, or -1. */
static long long fence_timestamp(int fd)
{
	struct sync_fence_info fi;
	struct sync_file_info info = {
		.num_fences = 1, .sync_fence_info = (uintptr_t)&fi,
	};

	memset(&fi, 0, sizeof(fi));
	if (ioctl(fd, SYNC_IOC_FILE_INFO, &info) < 0 || info.status != 1)
		return -1;
	return (long long)fi.timestamp_ns;
}

static void test_wait(int dev)
{
	int tl = must_timeline(), f = must_fence(tl, "syncfw-api", 1), before, i;
	struct late_inc l = { tl, 100 };
	int64_t start, returned;
	long long signalled;
	pthread_t t;

	begin("kwait-zero-logs-nothing");
	before = timeout_dumps();
	require(before >= 0, "read the kernel log");
	for (i = 0; i < 100; i++)
		if (kwait(dev, f, 0) != -ETIME)
			break;
	check_int("kwait-zero-is-etime-while-active", 100, i);
	check_int("kwait-zero-logs-nothing", before, timeout_dumps());

	begin("kwait-timeout-logs-points");
	/* Its length is jiffies', which TCG's tick bursts make unreliable. */
	check_int("kwait-timeout-is-etime", -ETIME, kwait(dev, f, 30));
	check_int("kwait-timeout-logs-points", before + 1, timeout_dumps());

	/*
	 * The wait must last until the signal, whenever the thread gets to
	 * it: it returns after the fence's own signal time, which is after
	 * the wait began.
	 */
	begin("kwait-2^32-ms-waits");
	start = now_ns();
	require(pthread_create(&t, NULL, inc_later, &l) == 0, "thread");
	check_int("kwait-2^32-ms-waits", 0, kwait(dev, f, 1LL << 32));
	returned = now_ns();
	pthread_join(t, NULL);
	signalled = fence_timestamp(f);
	check("kwait-2^32-ms-returns-at-signal", signalled > start && returned >= signalled,
	      "began %lld, fence signalled %lld, wait returned %lld (ns)", (long long)start,
	      signalled, (long long)returned);
	close(f);
	close(tl);
}

/*
 * Lookers: FILE_INFO, poll and the dump on every live fence, as fast as
 * they can, while the main thread signals with timestamps it chose.
 */
#define LIVE	32

static int live[LIVE];
static volatile int stop_looking;

static void *look(void *arg)
{
	unsigned int which = (unsigned int)(uintptr_t)arg, i = 0;
	struct pollfd pfd;

	while (!stop_looking) {
		int fd = __atomic_load_n(&live[i++ % LIVE], __ATOMIC_RELAXED);

		if (fd < 0)
			continue;
		if (which == 0) {
			free(read_text(SYNC_INFO_PATH, NULL));
		} else if (which == 1) {
			pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
			poll(&pfd, 1, 0);
		} else {
			fence_status(fd);
		}
	}
	return NULL;
}


static void test_timestamps(int dev, unsigned int rounds)
{
	unsigned int r, k, wrong = 0, first_round = 0;
	long long want = 0, got = 0;
	pthread_t lookers[3];

	begin("given-timestamps-survive-lookers");
	for (k = 0; k < LIVE; k++)
		live[k] = -1;
	for (k = 0; k < 3; k++)
		require(pthread_create(&lookers[k], NULL, look, (void *)(uintptr_t)k) == 0,
			"looker");
	for (r = 1; r <= rounds; r++) {
		struct syncfw_test_signal sig = { .value = r };
		int fds[LIVE];

		for (k = 0; k < LIVE; k++) {
			struct syncfw_test_fence f = { .value = r };

			require(ioctl(dev, SYNCFW_TEST_IOC_FENCE, &f) == 0, "testdev fence");
			fds[k] = f.fence;
			__atomic_store_n(&live[k], f.fence, __ATOMIC_RELAXED);
		}
		/* In the past, and unlike any time a looker could stamp. */
		sig.timestamp_ns = now_ns() - 1000000 - r;
		require(ioctl(dev, SYNCFW_TEST_IOC_SIGNAL, &sig) == 0, "testdev signal");
		for (k = 0; k < LIVE; k++) {
			long long ts = fence_timestamp(fds[k]);

			__atomic_store_n(&live[k], -1, __ATOMIC_RELAXED);
			if (ts != sig.timestamp_ns && !wrong++) {
				first_round = r;
				want = sig.timestamp_ns;
				got = ts;
			}
			close(fds[k]);
		}
	}
	stop_looking = 1;
	for (k = 0; k < 3; k++)
		pthread_join(lookers[k], NULL);
	if (!wrong)
		ok("given-timestamps-survive-lookers");
	else
		not_ok("given-timestamps-survive-lookers",
		       "expected every point stamped with its signal's time, got %u of %u wrong (first in round %u: %lld instead of %lld)",
		       wrong, rounds * LIVE, first_round, got, want);
}

/* Workers merge and wait through syncfw on timelines of their own. */
struct worker {
	int dev;
	unsigned int rounds, failures;
	char first[160];
};

static void *merge_and_wait(void *arg)
{
	struct worker *w = arg;
	int tl[3], f[3], m, mm, i, st;
	unsigned int r;

	for (i = 0; i < 3; i++)
		tl[i] = sw_sync_timeline_create();
	for (r = 1; r <= w->rounds && tl[0] >= 0 && tl[1] >= 0 && tl[2] >= 0; r++) {
		for (i = 0; i < 3; i++)
			f[i] = sw_sync_fence_create(tl[i], "worker", r);
		m = kmerge(w->dev, f[0], f[1]);
		mm = m >= 0 ? kmerge(w->dev, m, f[2]) : -1;
		sw_sync_timeline_inc(tl[0], 1);
		sw_sync_timeline_inc(tl[1], 1);
		st = kwait(w->dev, mm, 0);
		if (st != -ETIME && !w->failures++)
			snprintf(w->first, sizeof(w->first),
				 "round %u: expected -ETIME before the last point, got %d", r, st);
		sw_sync_timeline_inc(tl[2], 1);
		st = kwait(w->dev, mm, 5000);
		if (st != 0 && !w->failures++)
			snprintf(w->first, sizeof(w->first),
				 "round %u: expected 0 after the last point, got %d", r, st);
		close(mm);
		close(m);
		for (i = 0; i < 3; i++)
			close(f[i]);
	}
	for (i = 0; i < 3; i++)
		close(tl[i]);
	return NULL;
}

static void test_stress(int dev, unsigned int rounds)
{
	struct worker w[4];
	pthread_t t[4];
	unsigned int i, failures = 0;
	const char *first = "";

	begin("kmerge-kwait-stress");
	for (i = 0; i < 4; i++) {
		w[i] = (struct worker){ .dev = dev, .rounds = rounds };
		require(pthread_create(&t[i], NULL, merge_and_wait, &w[i]) == 0, "worker");
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		if (w[i].failures && !failures)
			first = w[i].first;
		failures += w[i].failures;
	}
	if (!failures)
		ok("kmerge-kwait-stress");
	else
		not_ok("kmerge-kwait-stress", "%u failures, first: %s", failures, first);
}

int main(int argc, char **argv)
{
	unsigned int rounds = argc > 1 ? (unsigned int)atoi(argv[1]) : 2000;
	int dev, fds_before;

	watchdog(160);
	fds_before = count_open_fds();
	test_publish();
	dev = testdev();
	test_merge(dev);
	test_merged_error(dev);
	test_wait(dev);
	test_timestamps(dev, rounds);
	test_stress(dev, rounds / 4);
	close(dev);
	check_int("no-fd-leaked", fds_before, count_open_fds());
	return finish();
}
