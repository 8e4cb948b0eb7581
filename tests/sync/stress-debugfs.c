// SPDX-License-Identifier: MIT
/*
 * stress-debugfs (seed 004): readers dump /sys/kernel/debug/sync/info in a
 * loop, whole and in small pieces, while workers create timelines, fences
 * and merges and tear them down in every order (fences before timelines,
 * timelines before fences). The reads must all succeed and be text; the real
 * assertion is that the kernel stays KASAN/lockdep-clean meanwhile, which
 * the runner checks.
 *
 * usage: stress-debugfs [SECONDS]   (default 10; at most 20 000 iterations
 *                                    per worker whatever the time)
 */
#include <ctype.h>
#include <pthread.h>

#include "check.h"

#define WORKERS		3
#define MAX_ITERATIONS	20000

static volatile int stop;
static int64_t deadline;
static char prefix[24];

struct reader {
	size_t chunk;		/* 0: read the file whole */
	long reads, failures, not_text;
	int first_err;
	long first_bad_offset;
	pthread_t thread;
};

/* Offset of the first byte that is not printable text, or -1. */
static long not_text_at(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (!isprint(c) && c != '\n' && c != '\t')
			return (long)i;
	}
	return -1;
}

static int read_chunked(size_t chunk, char **out, size_t *len)
{
	size_t size = 65536, used = 0;
	char *buf = malloc(size), *bigger;
	ssize_t n = 0;
	int fd;

	if (!buf)
		return -1;
	fd = open(SYNC_INFO_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -1;
	}
	for (;;) {
		if (size - used < chunk + 1) {
			bigger = realloc(buf, size * 2);
			if (!bigger) {
				n = -1;
				errno = ENOMEM;
				break;
			}
			buf = bigger;
			size *= 2;
		}
		n = read(fd, buf + used, chunk);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break;
		}
		used += (size_t)n;
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return -1;
	}
	*out = buf;
	*len = used;
	return 0;
}

static void *reader_fn(void *arg)
{
	struct reader *r = arg;
	char *text;
	size_t len;
	long bad;
	int ret;

	while (!stop) {
		if (r->chunk) {
			ret = read_chunked(r->chunk, &text, &len);
		} else {
			text = read_text(SYNC_INFO_PATH, &len);
			ret = text ? 0 : -1;
		}
		r->reads++;
		if (ret < 0) {
			if (!r->failures++)
				r->first_err = errno;
			continue;
		}
		bad = not_text_at(text, len);
		if (bad >= 0 && !r->not_text++)
			r->first_bad_offset = bad;
		free(text);
	}
	return NULL;
}

struct worker {
	int index;
	long iterations, failures;
	int first_err;
	const char *first_what;
	pthread_t thread;
};

static void fail_op(struct worker *w, const char *what)
{
	if (!w->failures++) {
		w->first_err = errno;
		w->first_what = what;
	}
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	unsigned int seed = 12345u * (unsigned int)(w->index + 1);
	int tl[2], f[4], m[2], i, k;
	char name[32];

	for (i = 0; i < MAX_ITERATIONS && !stop && now_ns() < deadline; i++) {
		tl[0] = sw_sync_timeline_create();
		tl[1] = sw_sync_timeline_create();
		if (tl[0] < 0 || tl[1] < 0) {
			fail_op(w, "timeline create");
			if (tl[0] >= 0)
				close(tl[0]);
			if (tl[1] >= 0)
				close(tl[1]);
			continue;
		}
		for (k = 0; k < 4; k++) {
			snprintf(name, sizeof(name), "%s-%d-%d", prefix, w->index, k);
			f[k] = sw_sync_fence_create(tl[k & 1], name, 1 + k / 2);
			if (f[k] < 0)
				fail_op(w, "fence create");
		}
		m[0] = sync_merge("sdbg-m0", f[0], f[1]);
		m[1] = m[0] >= 0 ? sync_merge("sdbg-m1", m[0], f[2]) : -1;
		if (m[0] < 0 || m[1] < 0)
			fail_op(w, "merge");
		if (rand_r(&seed) % 2 && sw_sync_timeline_inc(tl[rand_r(&seed) % 2], 1) < 0)
			fail_op(w, "inc");

		/* Tear down in one of several orders. */
		switch (rand_r(&seed) % 3) {
		case 0:		/* timelines first: pending points error out */
			close(tl[0]);
			close(tl[1]);
			for (k = 0; k < 4; k++)
				close(f[k]);
			close(m[0]);
			close(m[1]);
			break;
		case 1:		/* fences first, merges last */
			for (k = 3; k >= 0; k--)
				close(f[k]);
			close(tl[1]);
			close(m[1]);
			close(tl[0]);
			close(m[0]);
			break;
		default:	/* signal everything, then drop it all */
			sw_sync_timeline_inc(tl[0], 2);
			sw_sync_timeline_inc(tl[1], 2);
			close(m[0]);
			for (k = 0; k < 4; k++)
				close(f[k]);
			close(m[1]);
			close(tl[0]);
			close(tl[1]);
			break;
		}
		w->iterations++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 10;
	struct reader r[3] = { { .chunk = 0 }, { .chunk = 37 }, { .chunk = 4096 } };
	struct worker w[WORKERS];
	long reads = 0, failures = 0, not_text = 0, iterations = 0, wfail = 0;
	int i;

	if (seconds <= 0 || seconds > 60)
		seconds = 10;
	watchdog((unsigned int)seconds + 20);
	snprintf(prefix, sizeof(prefix), "sdbg%d", (int)getpid());
	deadline = now_ns() + seconds * 1000000000LL;

	begin("debugfs-info-reads-succeed");
	for (i = 0; i < 3; i++)
		require(pthread_create(&r[i].thread, NULL, reader_fn, &r[i]) == 0,
			"pthread_create");
	for (i = 0; i < WORKERS; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].index = i;
		require(pthread_create(&w[i].thread, NULL, worker_fn, &w[i]) == 0,
			"pthread_create");
	}
	for (i = 0; i < WORKERS; i++) {
		pthread_join(w[i].thread, NULL);
		iterations += w[i].iterations;
		wfail += w[i].failures;
	}
	stop = 1;
	for (i = 0; i < 3; i++) {
		pthread_join(r[i].thread, NULL);
		reads += r[i].reads;
		failures += r[i].failures;
		not_text += r[i].not_text;
	}
	printf("# %ld reads, %ld worker iterations in %d s\n", reads, iterations, seconds);

	for (i = 0; i < 3 && !r[i].failures; i++)
		;
	if (reads > 0 && !failures)
		ok("debugfs-info-reads-succeed");
	else if (!reads)
		not_ok("debugfs-info-reads-succeed", "expected reads, got none");
	else
		not_ok("debugfs-info-reads-succeed",
		       "expected every read to succeed, got %ld of %ld failing (first: %s, chunk %zu)",
		       failures, reads, errno_name(r[i].first_err), r[i].chunk);

	for (i = 0; i < 3 && !r[i].not_text; i++)
		;
	if (!not_text)
		ok("debugfs-info-is-text");
	else
		not_ok("debugfs-info-is-text",
		       "expected printable text, got %ld dumps with other bytes (first at offset %ld, chunk %zu)",
		       not_text, r[i].first_bad_offset, r[i].chunk);

	for (i = 0; i < WORKERS && !w[i].failures; i++)
		;
	if (iterations > 0 && !wfail)
		ok("debugfs-stress-workers-succeed");
	else if (!iterations)
		not_ok("debugfs-stress-workers-succeed", "expected iterations, got none");
	else
		not_ok("debugfs-stress-workers-succeed",
		       "expected no failures, got %ld (first: %s: %s)", wfail, w[i].first_what,
		       errno_name(w[i].first_err));

	begin("debugfs-info-forgets-stress-fences");
	check_int("debugfs-info-forgets-stress-fences", 0, info_mentions(prefix));
	return finish();
}
