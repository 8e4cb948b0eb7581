// SPDX-License-Identifier: MIT
/*
 * A merged fence and its points' errors through mainline's ioctls
 * (SYNC_IOC_MERGE and SYNC_IOC_FILE_INFO are mainline sync_file's, so this
 * runs the same against mainline sw_sync):
 *
 * - a point that fails while the merge waits for it fails the merge,
 *   whichever way userspace asks (patch 0002 keeps the error for a
 *   FILE_INFO that nobody's poll() preceded);
 * - a point that had already signalled (failed or not) when the fences
 *   were merged is dropped by the merge, its error with it: mainline's
 *   SYNC_IOC_MERGE has kept only unsignalled fences since sync_file left
 *   staging, and flipfence does not change that (Documentation/sync.rst).
 *
 * A timeline closed with points pending fails them with -ENOENT.
 */
#include "check.h"

static int merge(int a, int b)
{
	int m = sync_merge("merged-error", a, b);

	require(m >= 0, "merge");
	return m;
}

/* poll() enables signalling on the merged fence, FILE_INFO does not. */
enum ask { ASK_FILE_INFO, ASK_POLL_FIRST };

/* Both points pending at the merge; one fails, then the other signals. */
static void fail_after_merge(enum ask ask, const char *name)
{
	int good = must_timeline(), bad = must_timeline();
	int a = must_fence(good, "merged-error", 1), b = must_fence(bad, "merged-error", 1), m = merge(a, b);

	begin(name);
	if (ask == ASK_POLL_FIRST && fence_polled(m) != 0)
		not_ok(name, "expected the merged fence active before either point");
	close(bad);
	require(sw_sync_timeline_inc(good, 1) == 0, "inc");
	if (ask == ASK_POLL_FIRST)
		fence_polled(m);
	check_int(name, -ENOENT, fence_status(m));
	close(m);
	close(b);
	close(a);
	close(good);
}

/*
 * One point has already failed when the fences are merged: mainline drops
 * it, so the merge is the other point alone and succeeds with it.
 */
static void fail_before_merge(const char *name)
{
	int good = must_timeline(), bad = must_timeline();
	int a = must_fence(good, "merged-error", 1), b = must_fence(bad, "merged-error", 1), m;

	begin(name);
	close(bad);
	require(fence_status(b) == -ENOENT, "the closed timeline's point failed");
	m = merge(a, b);
	check_int("merge-of-failed-and-pending-keeps-one-point", 1, fence_size(m));
	check_int("merge-of-failed-and-pending-active", 0, fence_status(m));
	require(sw_sync_timeline_inc(good, 1) == 0, "inc");
	check_int(name, 1, fence_status(m));
	close(m);
	close(b);
	close(a);
	close(good);
}

/*
 * All points signalled, one of them failed, before the merge: mainline
 * drops both, and the merge is a signalled fence without an error.
 */
static void all_done_before_merge(const char *name)
{
	int good = must_timeline(), bad = must_timeline();
	int a = must_fence(good, "merged-error", 1), b = must_fence(bad, "merged-error", 1), m;

	begin(name);
	require(sw_sync_timeline_inc(good, 1) == 0, "inc");
	close(bad);
	m = merge(a, b);
	check_int(name, 1, fence_status(m));
	close(m);
	close(b);
	close(a);
	close(good);
}

int main(void)
{
	watchdog(30);
	fail_after_merge(ASK_FILE_INFO, "merged-error-seen-by-file-info");
	fail_after_merge(ASK_POLL_FIRST, "merged-error-seen-after-poll");
	fail_before_merge("merge-drops-failed-input-like-mainline");
	all_done_before_merge("merge-of-signalled-inputs-succeeds-like-mainline");
	return finish();
}
