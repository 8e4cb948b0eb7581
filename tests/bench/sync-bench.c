// SPDX-License-Identifier: MIT
/*
 * sync-bench: the cost of sw_sync fences on one sw_sync node, so that
 * syncfw's /dev/sw_sync and mainline's /sys/kernel/debug/sync/sw_sync can
 * be compared in the same guest. Prints one JSON object:
 *
 *   create_signal_wait   per fence: SW_SYNC_IOC_CREATE_FENCE, SW_SYNC_IOC_INC,
 *                        poll() until signalled, close
 *   merge[n]             per n-way merge: n fences on n timelines merged one
 *                        after another with SYNC_IOC_MERGE (n - 1 merges),
 *                        then the timelines advanced and the merged fence
 *                        waited for (merge_ns and signal_wait_ns)
 *   inc_pending[p]       per SW_SYNC_IOC_INC that signals nothing, with p
 *                        fences pending on the timeline (1, 1000, 100000;
 *                        far ahead of it): what a signal costs beyond the
 *                        points it signals
 *
 * usage: sync-bench [-n FENCES] NODE
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "sync.h"

#include "../lib/check.h"

#define MAX_WAYS	128

static void die(const char *what)
{
	fprintf(stderr, "sync-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int open_timeline(const char *node)
{
	int fd = open(node, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die(node);
	return fd;
}

static double create_signal_wait(const char *node, unsigned int n)
{
	int tl = open_timeline(node), fence;
	int64_t start = now_ns();
	unsigned int i;

	for (i = 0; i < n; i++) {
		fence = sw_sync_fence_create(tl, "bench", i + 1);
		if (fence < 0)
			die("create fence");
		if (sw_sync_timeline_inc(tl, 1))
			die("inc");
		if (sync_wait(fence, 1000))
			die("wait");
		close(fence);
	}
	close(tl);
	return (double)(now_ns() - start) / n;
}

static void merge_ways(const char *node, int ways, int reps, double *merge_ns, double *wait_ns)
{
	int tl[MAX_WAYS], f[MAX_WAYS], merged, next, i, r;
	int64_t merging = 0, waiting = 0, t;

	for (i = 0; i < ways; i++)
		tl[i] = open_timeline(node);
	for (r = 0; r < reps; r++) {
		for (i = 0; i < ways; i++) {
			f[i] = sw_sync_fence_create(tl[i], "way", r + 1);
			if (f[i] < 0)
				die("create fence");
		}
		t = now_ns();
		merged = sync_merge("merged", f[0], f[1]);
		for (i = 2; i < ways && merged >= 0; i++) {
			next = sync_merge("merged", merged, f[i]);
			close(merged);
			merged = next;
		}
		merging += now_ns() - t;
		if (merged < 0)
			die("merge");
		t = now_ns();
		for (i = 0; i < ways; i++)
			if (sw_sync_timeline_inc(tl[i], 1))
				die("inc");
		if (sync_wait(merged, 1000))
			die("wait merged");
		waiting += now_ns() - t;
		close(merged);
		for (i = 0; i < ways; i++)
			close(f[i]);
	}
	for (i = 0; i < ways; i++)
		close(tl[i]);
	*merge_ns = (double)merging / reps;
	*wait_ns = (double)waiting / reps;
}

/* Room for @fds descriptors besides stdio (root may raise the hard limit). */
static void want_fds(rlim_t fds)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		die("getrlimit");
	if (rl.rlim_cur >= fds + 16)
		return;
	rl.rlim_cur = fds + 16;
	if (rl.rlim_max < rl.rlim_cur)
		rl.rlim_max = rl.rlim_cur;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit RLIMIT_NOFILE");
}

/*
 * The mean cost of @incs increments by 1 of a timeline with @pending
 * fences that none of them reaches (they wait at 2^30 and up).
 */
static double inc_pending(const char *node, unsigned int pending, unsigned int incs)
{
	int tl = open_timeline(node), *f = calloc(pending, sizeof(*f));
	unsigned int i;
	int64_t start, took;

	if (!f)
		die("calloc");
	for (i = 0; i < pending; i++) {
		f[i] = sw_sync_fence_create(tl, "pending", (1u << 30) + i);
		if (f[i] < 0)
			die("create pending fence");
	}
	start = now_ns();
	for (i = 0; i < incs; i++)
		if (sw_sync_timeline_inc(tl, 1))
			die("inc");
	took = now_ns() - start;
	for (i = 0; i < pending; i++)
		close(f[i]);
	free(f);
	close(tl);
	return (double)took / incs;
}

int main(int argc, char **argv)
{
	static const int ways[] = { 2, 8, 32, 128 };
	static const unsigned int pending[] = { 1, 1000, 100000 };
	unsigned int n = 20000;
	double per, merge_ns, wait_ns;
	int opt, i;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n') {
			fprintf(stderr, "usage: %s [-n FENCES] NODE\n", argv[0]);
			return 2;
		}
		n = strtoul(optarg, NULL, 10);
	}
	if (optind != argc - 1 || !n) {
		fprintf(stderr, "usage: %s [-n FENCES] NODE\n", argv[0]);
		return 2;
	}
	per = create_signal_wait(argv[optind], n);
	printf("{ \"node\": \"%s\", \"fences\": %u, \"create_signal_wait_ns\": %.0f, "
	       "\"fences_per_s\": %.0f, \"merge\": [", argv[optind], n, per, 1e9 / per);
	for (i = 0; i < 4; i++) {
		merge_ways(argv[optind], ways[i], ways[i] >= 128 ? 50 : 200, &merge_ns, &wait_ns);
		printf("%s{ \"ways\": %d, \"merge_ns\": %.0f, \"merge_ns_per_fence\": %.0f, "
		       "\"signal_wait_ns\": %.0f }", i ? ", " : "", ways[i], merge_ns,
		       merge_ns / ways[i], wait_ns);
	}
	printf("], \"inc_pending\": [");
	want_fds(pending[2]);
	for (i = 0; i < 3; i++)
		printf("%s{ \"pending\": %u, \"inc_ns\": %.0f }", i ? ", " : "", pending[i],
		       inc_pending(argv[optind], pending[i], 1000));
	printf("] }\n");
	return 0;
}
