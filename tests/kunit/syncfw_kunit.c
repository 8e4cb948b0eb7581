// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of syncfw's timeline, point, fence, merge and waiter logic,
 * against a counting test timeline. Loading the module runs the suite.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/dma-fence-unwrap.h>
#include <linux/file.h>
#include <linux/module.h>

#include <syncfw/sync.h>

struct test_timeline {
	struct sync_timeline obj;
	u32 value;
};

/* How often the ops ran, across the test running now. */
static atomic_t compares, pts_freed, timelines_released;

static struct test_timeline *to_test_timeline(struct sync_timeline *obj)
{
	return container_of(obj, struct test_timeline, obj);
}

static int test_has_signaled(struct sync_pt *pt)
{
	return READ_ONCE(to_test_timeline(pt->parent)->value) >= pt->base.seqno;
}

static int test_compare(struct sync_pt *a, struct sync_pt *b)
{
	u64 va = a->base.seqno, vb = b->base.seqno;

	atomic_inc(&compares);
	return va == vb ? 0 : va > vb ? 1 : -1;
}

static void test_free_pt(struct sync_pt *pt)
{
	atomic_inc(&pts_freed);
}

static void test_release_obj(struct sync_timeline *obj)
{
	atomic_inc(&timelines_released);
}

static const struct sync_timeline_ops test_ops = {
	.owner = THIS_MODULE,
	.driver_name = "kunit",
	.has_signaled = test_has_signaled,
	.compare = test_compare,
	.free_pt = test_free_pt,
	.release_obj = test_release_obj,
};

static int syncfw_test_init(struct kunit *test)
{
	atomic_set(&compares, 0);
	atomic_set(&pts_freed, 0);
	atomic_set(&timelines_released, 0);
	return 0;
}

static struct sync_timeline *new_timeline(struct kunit *test)
{
	struct sync_timeline *obj;

	obj = sync_timeline_create(&test_ops, sizeof(struct test_timeline),
				   "kunit");
	KUNIT_ASSERT_NOT_NULL(test, obj);
	return obj;
}

static void advance(struct sync_timeline *obj, u32 value)
{
	WRITE_ONCE(to_test_timeline(obj)->value, value);
	sync_timeline_signal(obj);
}

static struct sync_pt *new_pt(struct kunit *test, struct sync_timeline *obj,
			      u32 value)
{
	struct sync_pt *pt;

	pt = sync_pt_create(obj, sizeof(*pt), value);
	KUNIT_ASSERT_NOT_NULL(test, pt);
	return pt;
}

static struct sync_fence *new_fence(struct kunit *test,
				    struct sync_timeline *obj, u32 value)
{
	struct sync_fence *fence;

	fence = sync_fence_create("kunit", new_pt(test, obj, value));
	KUNIT_ASSERT_NOT_NULL(test, fence);
	return fence;
}

/* Drop a handle and let the deferred release of its file run. */
static void put_fence(struct sync_fence *fence)
{
	sync_fence_put(fence);
	flush_delayed_fput();
}

static unsigned int num_points(struct sync_fence *fence)
{
	struct dma_fence_unwrap iter;
	struct dma_fence *f;
	unsigned int n = 0;

	dma_fence_unwrap_for_each(f, &iter, fence->fence)
		n++;
	return n;
}

static void pt_signals_when_reached(struct kunit *test)
{
	struct sync_timeline *obj = new_timeline(test);
	struct sync_fence *fence = new_fence(test, obj, 2);

	advance(obj, 1);
	KUNIT_EXPECT_EQ(test, dma_fence_get_status(fence->fence), 0);
	advance(obj, 2);
	KUNIT_EXPECT_EQ(test, dma_fence_get_status(fence->fence), 1);
	KUNIT_EXPECT_TRUE(test, test_bit(DMA_FENCE_FLAG_TIMESTAMP_BIT,
					 &fence->fence->flags));
	put_fence(fence);
	sync_timeline_destroy(obj);
}

static void signal_records_given_timestamp(struct kunit *test)
{
	struct sync_timeline *obj = new_timeline(test);
	struct sync_fence *fence = new_fence(test, obj, 1);
	ktime_t when = ktime_sub_ns(ktime_get(), 12345);

	WRITE_ONCE(to_test_timeline(obj)->value, 1);
	sync_timeline_signal_timestamp(obj, when);
	KUNIT_EXPECT_EQ(test, dma_fence_get_status(fence->fence), 1);
	KUNIT_EXPECT_EQ(test, ktime_to_ns(fence->fence->timestamp),
			ktime_to_ns(when));
	put_fence(fence);
	sync_timeline_destroy(obj);
}

static void reached_point_is_born_signalled(struct kunit *test)
{
	struct sync_timeline *obj = new_timeline(test);
	struct sync_fence *fence;

	advance(obj, 5);
	fence = new_fence(test, obj, 3);
	KUNIT_EXPECT_EQ(test, dma_fence_get_status(fence->fence), 1);
	put_fence(fence);
	sync_timeline_destroy(obj);
}

static void destroy_fails_pending_points(struct kunit *test)
{
	struct sync_timeline *obj = new_timeline(test);
	struct sync_fence *done = new_fence(test, obj, 1);
	struct sync_fence *pending = new_fence(test, obj, 7);

	advance(obj, 1);
	sync_timeline_destroy(obj);
	KUNIT_EXPECT_EQ(test, dma_fence_get_status(done->fence), 1);
	KUNIT_EXPECT_EQ(test, dma_fence_get_status(pending->fence), -ENOENT);
	KUNIT_EXPECT_EQ(test, sync_fence_wait(pending, -1), -ENOENT);

	/* The timeline lives on until its last point is gone. */
	put_fence(done);
	KUNIT_EXPECT_EQ(test, atomic_read(&timelines_released), 0);
	put_fence(pending);
	KUNIT_EXPECT_EQ(test, atomic_read(&pts_freed), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&timelines_released), 1);
}

static void point_on_destroyed_timeline_fails(struct kunit *test)
{
	struct sync_timeline *obj = new_timeline(test);
	struct sync_fence *keep = new_fence(test, obj, 1);
	struct sync_pt *pt;

	sync_timeline_destroy(obj);
	pt = new_pt(test, obj, 9);
	KUNIT_EXPECT_EQ(test, dma_fence_get_status(&pt->base), -ENOENT);
	sync_pt_free(pt);
	put_fence(keep);
	KUNIT_EXPECT_EQ(test, atomic_read(&timelines_released), 1);
}

static void merge_same_timeline_keeps_later(struct kunit *test)
{
	struct sync_timeline *obj = new_timeline(test);
	struct sync_fence *a = new_fence(test, obj, 2);
	struct sync_fence *b = new_fence(test, obj, 5);
	struct sync_fence *ab, *ba;

	ab = sync_fence_merge("ab", a, b);
	ba = sync_fence_merge("ba", b, a);
	KUNIT_ASSERT_NOT_NULL(test, ab);
	KUNIT_ASSERT_NOT_NULL(test, ba);
	KUNIT_EXPECT_GT(test, atomic_read(&compares), 0);
	KUNIT_EXPECT_EQ(test, num_points(ab), 1u);
	KUNIT_EXPECT_EQ(test, num_points(ba), 1u);
	KUNIT_EXPECT_PTR_EQ(test, ab->fence, b->fence);
	KUNIT_EXPECT_PTR_EQ(test, ba->fence, b->fence);

	advance(obj, 2);
	KUNIT_EXPECT_EQ(test, dma_fence_get_status(ab->fence), 0);
	advance(obj, 5);
	KUNIT_EXPECT_EQ(test, dma_fence_get_status(ab->fence), 1);

	put_fence(ab);
	put_fence(ba);
	put_fence(a);
	put_fence(b);
	sync_timeline_destroy(obj);
	KUNIT_EXPECT_EQ(test, atomic_read(&pts_freed), 2);
}

static void merge_with_itself_yields_one(struct kunit *test)
{
	struct sync_timeline *obj = new_timeline(test);
	struct sync_fence *a = new_fence(test, obj, 1);
	struct sync_fence *aa = sync_fence_merge("aa", a, a);

	KUNIT_ASSERT_NOT_NULL(test, aa);
	KUNIT_EXPECT_EQ(test, num_points(aa), 1u);
	put_fence(aa);
	put_fence(a);
	sync_timeline_destroy(obj);
}

static void merge_spans_k_timelines(struct kunit *test)
{
	struct sync_timeline *t1 = new_timeline(test), *t2 = new_timeline(test);
	struct sync_fence *a = new_fence(test, t1, 1);
	struct sync_fence *b = new_fence(test, t2, 1);
	struct sync_fence *c = new_fence(test, t1, 3);
	struct sync_fence *ab, *abc, *cab;

	ab = sync_fence_merge("ab", a, b);
	KUNIT_ASSERT_NOT_NULL(test, ab);
	abc = sync_fence_merge("abc", ab, c);
	cab = sync_fence_merge("cab", c, ab);
	KUNIT_ASSERT_NOT_NULL(test, abc);
	KUNIT_ASSERT_NOT_NULL(test, cab);
	KUNIT_EXPECT_EQ(test, num_points(ab), 2u);
	KUNIT_EXPECT_EQ(test, num_points(abc), 2u);
	KUNIT_EXPECT_EQ(test, num_points(cab), 2u);

	/* Signals only once every timeline has reached its point. */
	advance(t1, 3);
	KUNIT_EXPECT_EQ(test, dma_fence_get_status(abc->fence), 0);
	advance(t2, 1);
	KUNIT_EXPECT_EQ(test, dma_fence_get_status(abc->fence), 1);
	KUNIT_EXPECT_EQ(test, dma_fence_get_status(cab->fence), 1);

	put_fence(cab);
	put_fence(abc);
	put_fence(ab);
	put_fence(c);
	put_fence(b);
	put_fence(a);
	sync_timeline_destroy(t2);
	sync_timeline_destroy(t1);
	KUNIT_EXPECT_EQ(test, atomic_read(&pts_freed), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&timelines_released), 2);
}

static void merged_fence_reports_error(struct kunit *test)
{
	struct sync_timeline *t1 = new_timeline(test), *t2 = new_timeline(test);
	struct sync_fence *a = new_fence(test, t1, 1);
	struct sync_fence *b = new_fence(test, t2, 1);
	struct sync_fence *ab = sync_fence_merge("ab", a, b);

	KUNIT_ASSERT_NOT_NULL(test, ab);
	advance(t1, 1);
	sync_timeline_destroy(t2);
	KUNIT_EXPECT_EQ(test, sync_fence_wait(ab, 1000), -ENOENT);
	put_fence(ab);
	put_fence(b);
	put_fence(a);
	sync_timeline_destroy(t1);
}

static void wait_timeout_zero_only_checks(struct kunit *test)
{
	struct sync_timeline *obj = new_timeline(test);
	struct sync_fence *fence = new_fence(test, obj, 1);
	ktime_t start = ktime_get();

	KUNIT_EXPECT_EQ(test, sync_fence_wait(fence, 0), -ETIME);
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), start), 100);
	KUNIT_EXPECT_EQ(test, sync_fence_wait(fence, 20), -ETIME);
	advance(obj, 1);
	KUNIT_EXPECT_EQ(test, sync_fence_wait(fence, 0), 0);
	KUNIT_EXPECT_EQ(test, sync_fence_wait(fence, -1), 0);
	put_fence(fence);
	sync_timeline_destroy(obj);
}

struct async_probe {
	struct sync_fence_waiter waiter;
	atomic_t calls;
	struct sync_fence *seen;
};

static void async_probe_cb(struct sync_fence *fence,
			   struct sync_fence_waiter *waiter)
{
	struct async_probe *probe = container_of(waiter, struct async_probe,
						 waiter);

	probe->seen = fence;
	atomic_inc(&probe->calls);
}

static void async_wait_runs_callback_once(struct kunit *test)
{
	struct sync_timeline *obj = new_timeline(test);
	struct sync_fence *fence = new_fence(test, obj, 2);
	struct async_probe probe = { .calls = ATOMIC_INIT(0) };

	sync_fence_waiter_init(&probe.waiter, async_probe_cb);
	KUNIT_EXPECT_EQ(test, sync_fence_wait_async(fence, &probe.waiter), 0);
	advance(obj, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe.calls), 0);
	advance(obj, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe.calls), 1);
	KUNIT_EXPECT_PTR_EQ(test, probe.seen, fence);
	advance(obj, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe.calls), 1);
	KUNIT_EXPECT_EQ(test, sync_fence_cancel_async(fence, &probe.waiter),
			-ENOENT);
	put_fence(fence);
	sync_timeline_destroy(obj);
}

static void async_wait_on_signalled_returns_1(struct kunit *test)
{
	struct sync_timeline *obj = new_timeline(test);
	struct sync_fence *fence = new_fence(test, obj, 1);
	struct async_probe probe = { .calls = ATOMIC_INIT(0) };

	advance(obj, 1);
	sync_fence_waiter_init(&probe.waiter, async_probe_cb);
	KUNIT_EXPECT_EQ(test, sync_fence_wait_async(fence, &probe.waiter), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe.calls), 0);
	put_fence(fence);
	sync_timeline_destroy(obj);
}

static void cancelled_wait_never_calls_back(struct kunit *test)
{
	struct sync_timeline *obj = new_timeline(test);
	struct sync_fence *fence = new_fence(test, obj, 1);
	struct async_probe probe = { .calls = ATOMIC_INIT(0) };
	struct async_probe idle = { .calls = ATOMIC_INIT(0) };

	sync_fence_waiter_init(&probe.waiter, async_probe_cb);
	sync_fence_waiter_init(&idle.waiter, async_probe_cb);
	KUNIT_EXPECT_EQ(test, sync_fence_cancel_async(fence, &idle.waiter),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, sync_fence_wait_async(fence, &probe.waiter), 0);
	KUNIT_EXPECT_EQ(test, sync_fence_cancel_async(fence, &probe.waiter), 0);
	KUNIT_EXPECT_EQ(test, sync_fence_cancel_async(fence, &probe.waiter),
			-ENOENT);
	advance(obj, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe.calls), 0);
	put_fence(fence);
	sync_timeline_destroy(obj);
}

static void async_wait_sees_destroy(struct kunit *test)
{
	struct sync_timeline *obj = new_timeline(test);
	struct sync_fence *fence = new_fence(test, obj, 1);
	struct async_probe probe = { .calls = ATOMIC_INIT(0) };

	sync_fence_waiter_init(&probe.waiter, async_probe_cb);
	KUNIT_EXPECT_EQ(test, sync_fence_wait_async(fence, &probe.waiter), 0);
	sync_timeline_destroy(obj);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe.calls), 1);
	put_fence(fence);
}

static void fdget_rejects_non_fence(struct kunit *test)
{
	KUNIT_EXPECT_NULL(test, sync_fence_fdget(-1));
	KUNIT_EXPECT_NULL(test, sync_fence_fdget(INT_MAX));
}

static void bad_sizes_are_refused(struct kunit *test)
{
	struct sync_timeline *obj = new_timeline(test);

	KUNIT_EXPECT_NULL(test, sync_timeline_create(&test_ops, 4, "small"));
	KUNIT_EXPECT_NULL(test, sync_pt_create(obj, 4, 1));
	sync_timeline_destroy(obj);
}

static struct kunit_case syncfw_test_cases[] = {
	KUNIT_CASE(pt_signals_when_reached),
	KUNIT_CASE(signal_records_given_timestamp),
	KUNIT_CASE(reached_point_is_born_signalled),
	KUNIT_CASE(destroy_fails_pending_points),
	KUNIT_CASE(point_on_destroyed_timeline_fails),
	KUNIT_CASE(merge_same_timeline_keeps_later),
	KUNIT_CASE(merge_with_itself_yields_one),
	KUNIT_CASE(merge_spans_k_timelines),
	KUNIT_CASE(merged_fence_reports_error),
	KUNIT_CASE(wait_timeout_zero_only_checks),
	KUNIT_CASE(async_wait_runs_callback_once),
	KUNIT_CASE(async_wait_on_signalled_returns_1),
	KUNIT_CASE(cancelled_wait_never_calls_back),
	KUNIT_CASE(async_wait_sees_destroy),
	KUNIT_CASE(fdget_rejects_non_fence),
	KUNIT_CASE(bad_sizes_are_refused),
	{}
};

static struct kunit_suite syncfw_test_suite = {
	.name = "syncfw",
	.init = syncfw_test_init,
	.test_cases = syncfw_test_cases,
};

kunit_test_suite(syncfw_test_suite);

MODULE_DESCRIPTION("KUnit tests for syncfw");
MODULE_LICENSE("GPL");
