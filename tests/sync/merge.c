// SPDX-License-Identifier: MIT
/*
 * merge (seed 005): SYNC_IOC_MERGE collapses points of one timeline into the
 * later of them, so a merged fence holds exactly one point per timeline, in
 * whatever order and however deeply fences were merged, and signals exactly
 * when its last point does.
 */
#include "check.h"

#define K_TIMELINES	3
#define PER_TIMELINE	4

static int merge(const char *name, int a, int b)
{
	int m = sync_merge(name, a, b);

	if (m < 0)
		not_ok(current_check(), "expected SYNC_IOC_MERGE to succeed, got %s",
		       errno_name(errno));
	require(m >= 0, "merge");
	return m;
}

static void test_same_timeline(int reversed)
{
	const char *n_size = reversed ? "merge-collapses-same-timeline-reversed"
				      : "merge-collapses-same-timeline";
	const char *n_early = reversed ? "merge-ignores-earlier-point-reversed"
				       : "merge-ignores-earlier-point";
	const char *n_late = reversed ? "merge-signals-with-later-point-reversed"
				      : "merge-signals-with-later-point";
	int tl, a, b, m;

	tl = must_timeline();
	a = must_fence(tl, "merge-early", 1);
	b = must_fence(tl, "merge-late", 2);

	begin(n_size);
	m = reversed ? merge("merge-ab", b, a) : merge("merge-ab", a, b);
	check_int(n_size, 1, fence_size(m));

	begin(n_early);
	sw_sync_timeline_inc(tl, 1);
	check_int(n_early, 0, fence_polled(m));
	check_int(reversed ? "merge-status-active-until-later-point-reversed"
			   : "merge-status-active-until-later-point", 0, fence_status(m));
	begin(n_late);
	sw_sync_timeline_inc(tl, 1);
	check_int(n_late, 1, fence_polled(m));
	close(m);
	close(a);
	close(b);
	close(tl);
}

static void test_self_merge(void)
{
	int tl, a, m, mm;

	tl = must_timeline();
	a = must_fence(tl, "merge-self", 3);

	begin("merge-with-itself-yields-one");
	m = merge("merge-aa", a, a);
	check_int("merge-with-itself-yields-one", 1, fence_size(m));
	sw_sync_timeline_inc(tl, 2);
	check_int("merge-with-itself-active-with-point", 0, fence_polled(m));
	mm = merge("merge-mm", m, m);
	check_int("merged-with-itself-yields-one", 1, fence_size(mm));
	sw_sync_timeline_inc(tl, 1);
	check_int("merge-with-itself-signals-with-point", 1, fence_polled(m));
	check_int("merged-with-itself-signals-with-point", 1, fence_polled(mm));
	close(mm);
	close(m);
	close(a);
	close(tl);
}

/*
 * Merges K_TIMELINES * PER_TIMELINE points (values 1..PER_TIMELINE on each
 * timeline) one at a time in the order @order gives, into one fence.
 */
static int merge_all(const int *fences, const int *order, int n)
{
	int m, i;

	m = merge("merge-all", fences[order[0]], fences[order[1]]);
	for (i = 2; i < n; i++) {
		int next = merge("merge-all", m, fences[order[i]]);
		close(m);
		m = next;
	}
	return m;
}

static void test_many(void)
{
	enum { N = K_TIMELINES * PER_TIMELINE };
	static const char *names[] = { "merge-n-over-k-yields-k-forward",
				       "merge-n-over-k-yields-k-backward",
				       "merge-n-over-k-yields-k-interleaved" };
	int tl[K_TIMELINES], fences[N], order[N], m[3];
	int i, j, o, good;

	for (i = 0; i < K_TIMELINES; i++) {
		tl[i] = must_timeline();
		for (j = 0; j < PER_TIMELINE; j++)
			fences[i * PER_TIMELINE + j] = must_fence(tl[i], "merge-many", j + 1);
	}

	for (o = 0; o < 3; o++) {
		begin(names[o]);
		for (i = 0; i < N; i++) {
			if (o == 0)
				order[i] = i;
			else if (o == 1)
				order[i] = N - 1 - i;
			else	/* 7 is coprime to 12: a scrambled permutation */
				order[i] = (i * 7 + 5) % N;
		}
		m[o] = merge_all(fences, order, N);
		check_int(names[o], K_TIMELINES, fence_size(m[o]));
	}

	/*
	 * Order must not matter for what the fences wait on either: bring
	 * every timeline but the last to its end, the last to one short.
	 */
	begin("merge-order-does-not-change-signalling");
	for (i = 0; i < K_TIMELINES - 1; i++)
		sw_sync_timeline_inc(tl[i], PER_TIMELINE);
	sw_sync_timeline_inc(tl[K_TIMELINES - 1], PER_TIMELINE - 1);
	good = 1;
	for (o = 0; o < 3; o++)
		if (fence_polled(m[o]) != 0)
			good = 0;
	if (good)
		ok("merge-waits-for-last-point-of-every-timeline");
	else
		not_ok("merge-waits-for-last-point-of-every-timeline",
		       "expected all 3 merged fences active, got %d %d %d",
		       fence_polled(m[0]), fence_polled(m[1]), fence_polled(m[2]));
	sw_sync_timeline_inc(tl[K_TIMELINES - 1], 1);
	good = 1;
	for (o = 0; o < 3; o++)
		if (fence_polled(m[o]) != 1 || fence_status(m[o]) != 1)
			good = 0;
	if (good)
		ok("merge-order-does-not-change-signalling");
	else
		not_ok("merge-order-does-not-change-signalling",
		       "expected all 3 merged fences signalled, got %d %d %d",
		       fence_status(m[0]), fence_status(m[1]), fence_status(m[2]));

	for (o = 0; o < 3; o++)
		close(m[o]);
	for (i = 0; i < N; i++)
		close(fences[i]);
	for (i = 0; i < K_TIMELINES; i++)
		close(tl[i]);
}

static void test_argument_order(void)
{
	int t1, t2, a, b, ab, ba;

	t1 = must_timeline();
	t2 = must_timeline();
	a = must_fence(t1, "merge-arg-a", 1);
	b = must_fence(t2, "merge-arg-b", 1);

	begin("merge-argument-order-does-not-matter");
	ab = merge("merge-a-b", a, b);
	ba = merge("merge-b-a", b, a);
	check_int("merge-argument-order-same-size", fence_size(ab), fence_size(ba));
	sw_sync_timeline_inc(t2, 1);
	check_int("merge-a-b-waits-for-a", 0, fence_polled(ab));
	check_int("merge-b-a-waits-for-a", 0, fence_polled(ba));
	sw_sync_timeline_inc(t1, 1);
	if (fence_polled(ab) == 1 && fence_polled(ba) == 1)
		ok("merge-argument-order-does-not-matter");
	else
		not_ok("merge-argument-order-does-not-matter",
		       "expected both signalled, got a+b %d, b+a %d", fence_polled(ab),
		       fence_polled(ba));
	close(ab);
	close(ba);
	close(a);
	close(b);
	close(t1);
	close(t2);
}

static void test_with_merged(void)
{
	int t0, t1, t2, a, b, c, early, d, m1, m2, m3, m4;

	t0 = must_timeline();
	t1 = must_timeline();
	t2 = must_timeline();
	a = must_fence(t0, "merge-mx-a", 5);
	b = must_fence(t1, "merge-mx-b", 5);
	c = must_fence(t0, "merge-mx-c", 7);
	early = must_fence(t0, "merge-mx-early", 3);
	d = must_fence(t2, "merge-mx-d", 1);

	begin("merge-into-merged-collapses-timeline");
	m1 = merge("merge-m1", a, b);
	m2 = merge("merge-m2", m1, c);		/* t0@7, t1@5 */
	check_int("merge-into-merged-collapses-timeline", 2, fence_size(m2));
	m3 = merge("merge-m3", early, m2);	/* t0@3 is older: still t0@7 */
	check_int("merge-earlier-into-merged-keeps-later", 2, fence_size(m3));
	m4 = merge("merge-m4", m3, d);
	check_int("merge-new-timeline-into-merged-adds-one", 3, fence_size(m4));

	begin("merged-mix-signals-with-latest-points");
	sw_sync_timeline_inc(t1, 5);
	sw_sync_timeline_inc(t2, 1);
	sw_sync_timeline_inc(t0, 5);		/* t0 at 5: a signalled, c not */
	check_int("merged-mix-m1-signalled-with-its-points", 1, fence_polled(m1));
	check_int("merged-mix-waits-for-later-point", 0, fence_polled(m3));
	check_int("merged-mix-nested-waits-for-later-point", 0, fence_polled(m4));
	sw_sync_timeline_inc(t0, 2);
	if (fence_polled(m2) == 1 && fence_polled(m3) == 1 && fence_polled(m4) == 1)
		ok("merged-mix-signals-with-latest-points");
	else
		not_ok("merged-mix-signals-with-latest-points",
		       "expected m2, m3, m4 signalled, got %d %d %d", fence_polled(m2),
		       fence_polled(m3), fence_polled(m4));

	close(m1);
	close(m2);
	close(m3);
	close(m4);
	close(a);
	close(b);
	close(c);
	close(early);
	close(d);
	close(t0);
	close(t1);
	close(t2);
}

static void test_signalled_inputs(void)
{
	int tl, a, b, m;

	tl = must_timeline();
	a = must_fence(tl, "merge-sig-a", 1);
	b = must_fence(tl, "merge-sig-b", 2);
	sw_sync_timeline_inc(tl, 2);

	begin("merge-of-signalled-points-is-signalled");
	m = merge("merge-sig", a, b);
	check_int("merge-of-signalled-points-is-signalled", 1, fence_status(m));
	check_int("merge-of-signalled-points-polls-ready", 1, fence_polled(m));
	close(m);
	close(a);
	close(b);
	close(tl);
}

int main(void)
{
	watchdog(20);
	test_same_timeline(0);
	test_same_timeline(1);
	test_self_merge();
	test_many();
	test_argument_order();
	test_with_merged();
	test_signalled_inputs();
	return finish();
}
