// SPDX-License-Identifier: MIT
/*
 * stress: many threads, each with its own sw_sync timelines, producing
 * fences, merging them across timelines and consuming them, for a bounded
 * time, while the caller keeps flips running on flipkms's CRTCs. Checked
 * per fence after its timeline passed it: signalled (status 1, once: it
 * stays so), signalled in order on its timeline (timestamps never go back
 * as values go up). Every merge must succeed, and a merged fence is still
 * pending while its points are (before their timelines advance) and
 * signalled once they are.
 *
 * usage: stress [-t THREADS] [-s SECONDS]
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kms.h"

#define TIMELINES	4	/* per thread */
#define BATCH		8	/* fences per timeline before advancing it */

struct worker {
	pthread_t thread;
	unsigned int seed;
	int64_t until;
	unsigned long created, merged, signalled;
	char failure[200];
};

static void fence_time(int fd, int *status, int64_t *ts)
{
	struct sync_file_info *info = sync_file_info(fd);
	struct sync_fence_info *pts;
	uint32_t i;

	*status = -EINVAL;
	*ts = 0;
	if (!info)
		return;
	pts = sync_get_fence_info(info);
	*status = info->status;
	for (i = 0; i < info->num_fences; i++)
		if ((int64_t)pts[i].timestamp_ns > *ts)
			*ts = (int64_t)pts[i].timestamp_ns;
	sync_file_info_free(info);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	int tl[TIMELINES], f[TIMELINES][BATCH], merged[BATCH];
	int64_t last[TIMELINES] = { 0 }, ts;
	unsigned int value[TIMELINES] = { 0 };
	int i, k, status;

	for (i = 0; i < TIMELINES; i++) {
		tl[i] = sw_sync_timeline_create();
		if (tl[i] < 0) {
			snprintf(w->failure, sizeof(w->failure), "timeline: %s", errno_name(errno));
			return NULL;
		}
	}
	while (now_ns() < w->until && !w->failure[0]) {
		for (i = 0; i < TIMELINES; i++)
			for (k = 0; k < BATCH; k++) {
				f[i][k] = sw_sync_fence_create(tl[i], "stress", value[i] + k + 1);
				w->created++;
			}
		/* Merge point k of two random timelines: pending, as they are. */
		for (k = 0; k < BATCH; k++) {
			merged[k] = sync_merge("m", f[rand_r(&w->seed) % TIMELINES][k],
					       f[rand_r(&w->seed) % TIMELINES][k]);
			if (merged[k] < 0) {
				if (!w->failure[0])
					snprintf(w->failure, sizeof(w->failure), "merge failed: %s",
						 errno_name(errno));
				continue;
			}
			w->merged++;
			fence_time(merged[k], &status, &ts);
			if (status != 0 && !w->failure[0])
				snprintf(w->failure, sizeof(w->failure),
					 "merged fence status %d before its points signalled", status);
		}
		/* Advance the timelines in random steps. */
		for (i = 0; i < TIMELINES; i++) {
			unsigned int done = 0, step;

			while (done < BATCH) {
				step = 1 + rand_r(&w->seed) % (BATCH - done);
				sw_sync_timeline_inc(tl[i], step);
				done += step;
			}
			value[i] += BATCH;
		}
		for (i = 0; i < TIMELINES; i++) {
			for (k = 0; k < BATCH; k++) {
				if (sync_wait(f[i][k], 1000) && !w->failure[0])
					snprintf(w->failure, sizeof(w->failure),
						 "fence %u of a timeline not signalled: %s",
						 value[i] - BATCH + k + 1, errno_name(errno));
				fence_time(f[i][k], &status, &ts);
				if (status != 1 && !w->failure[0])
					snprintf(w->failure, sizeof(w->failure),
						 "fence status %d after signalling", status);
				if (ts < last[i] && !w->failure[0])
					snprintf(w->failure, sizeof(w->failure),
						 "timestamp %lld before the earlier point's %lld",
						 (long long)ts, (long long)last[i]);
				last[i] = ts;
				w->signalled++;
			}
		}
		for (k = 0; k < BATCH; k++) {
			if (merged[k] < 0)
				continue;
			fence_time(merged[k], &status, &ts);
			if ((status != 1 || sync_wait(merged[k], 0)) && !w->failure[0])
				snprintf(w->failure, sizeof(w->failure),
					 "merged fence status %d", status);
			close(merged[k]);
		}
		for (i = 0; i < TIMELINES; i++)
			for (k = 0; k < BATCH; k++) {
				/* Signalled once means signalled for good. */
				if (sync_wait(f[i][k], 0) && !w->failure[0])
					snprintf(w->failure, sizeof(w->failure),
						 "a signalled fence became unsignalled");
				close(f[i][k]);
			}
	}
	for (i = 0; i < TIMELINES; i++)
		close(tl[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long created = 0, merged = 0, signalled = 0;
	int threads = 6, seconds = 10, opt, i;
	struct worker *w;
	bool ok = true;

	while ((opt = getopt(argc, argv, "t:s:")) != -1) {
		if (opt == 't')
			threads = atoi(optarg);
		else if (opt == 's')
			seconds = atoi(optarg);
		else
			return 2;
	}
	watchdog(seconds + 60);
	begin("stress");
	w = calloc(threads, sizeof(*w));
	require(w != NULL, "workers");
	for (i = 0; i < threads; i++) {
		w[i].seed = i + 1;
		w[i].until = now_ns() + (int64_t)seconds * 1000000000;
		require(!pthread_create(&w[i].thread, NULL, work, &w[i]), "thread");
	}
	for (i = 0; i < threads; i++) {
		pthread_join(w[i].thread, NULL);
		created += w[i].created;
		merged += w[i].merged;
		signalled += w[i].signalled;
		if (w[i].failure[0]) {
			comment("thread %d: %s", i, w[i].failure);
			ok = false;
		}
	}
	comment("%d threads x %d timelines, %d s: %lu fences created, %lu merged, %lu checked",
		threads, TIMELINES, seconds, created, merged, signalled);
	check("every-fence-signals-once-in-order", ok, "see the thread failures above");
	check("fences-were-made", created > 0 && signalled == created,
	      "expected every created fence checked, got %lu of %lu", signalled, created);
	/* Each round merges BATCH pairs out of TIMELINES * BATCH fences. */
	check("every-merge-made", merged > 0 && merged * TIMELINES == created,
	      "expected %lu merged fences (one per %d created), got %lu", created / TIMELINES,
	      TIMELINES, merged);
	free(w);
	return finish();
}
