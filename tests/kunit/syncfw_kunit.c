// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of syncfw's timeline, point, fence, merge and waiter logic,
 * against a counting test timeline. Loading the module runs the suite.
 *
 * Signalling is checked on the SIGNALED bit and the timestamp themselves,
 * never through dma_fence_is_signaled() or dma_fence_get_status(), which
 * would let a fence's lockless op do the work the test is checking.
 * Every object a case makes is a KUnit resource, so a failed assertion
 * still destroys it and one failure does not spill into the next case.
 */

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/dma-fence-array.h>
#include <linux/dma-fence-unwrap.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/workqueue.h>

#include <syncfw/sync.h>

#include "../../drivers/sync/syncfw_trace.h"

struct test_timeline {
	struct syncfw_timeline obj;
	u32 value;
};

static_assert(offsetof(struct test_timeline, obj) == 0);

/* How often the ops ran, across the test running now. */
static atomic_t pts_freed, timelines_released, has_signaled_calls;

static struct test_timeline *to_test_timeline(struct syncfw_timeline *obj)
{
	return container_of(obj, struct test_timeline, obj);
}

static int test_has_signaled(struct syncfw_pt *pt)
{
	atomic_inc(&has_signaled_calls);
	return to_test_timeline(pt->parent)->value >= pt->base.seqno;
}

static void test_free_pt(struct syncfw_pt *pt)
{
	atomic_inc(&pts_freed);
}

static void test_release_obj(struct syncfw_timeline *obj)
{
	atomic_inc(&timelines_released);
}

static const struct sync_timeline_ops test_ops = {
	.owner = THIS_MODULE,
	.driver_name = "kunit",
	.has_signaled = test_has_signaled,
	.free_pt = test_free_pt,
	.release_obj = test_release_obj,
};

/* Points that settle one by one, in any order, as flipkms's in-fence waits do. */
struct settle_pt {
	struct syncfw_pt pt;
	int status;
};

static_assert(offsetof(struct settle_pt, pt) == 0);

static int settle_has_signaled(struct syncfw_pt *pt)
{
	return container_of(pt, struct settle_pt, pt)->status;
}

static const struct sync_timeline_ops unordered_ops = {
	.owner = THIS_MODULE,
	.driver_name = "kunit",
	.has_signaled = settle_has_signaled,
	.unordered = true,
};

static int syncfw_test_init(struct kunit *test)
{
	atomic_set(&pts_freed, 0);
	atomic_set(&timelines_released, 0);
	atomic_set(&has_signaled_calls, 0);
	return 0;
}

/* --- test-managed objects ------------------------------------------------ */

static bool match_data(struct kunit *test, struct kunit_resource *res,
		       void *data)
{
	return res->data == data;
}

static int take_data(struct kunit_resource *res, void *data)
{
	res->data = data;
	return 0;
}

/* Releases of files, and so of timelines, run from delayed work here. */
static void settle(void)
{
	flush_delayed_fput();
}

static void free_timeline_res(struct kunit_resource *res)
{
	sync_timeline_destroy(res->data);
	settle();
}

static void free_fence_res(struct kunit_resource *res)
{
	sync_fence_put(res->data);
	settle();
}

static void free_pt_res(struct kunit_resource *res)
{
	sync_pt_free(res->data);
	settle();
}

/* Makes @data a resource of @test, or fails the case after undoing it. */
static void *manage(struct kunit *test, void *data, kunit_resource_free_t free)
{
	struct kunit_resource *res;

	KUNIT_ASSERT_NOT_NULL(test, data);
	res = kunit_alloc_and_get_resource(test, take_data, free, GFP_KERNEL,
					   data);
	if (!res) {
		struct kunit_resource tmp = { .data = data };

		free(&tmp);
	}
	KUNIT_ASSERT_NOT_NULL_MSG(test, res, "out of memory for a resource");
	kunit_put_resource(res);
	return data;
}

/* Destroys a managed object now (its free runs once, here). */
static void release(struct kunit *test, void *data)
{
	KUNIT_EXPECT_EQ(test, kunit_destroy_resource(test, match_data, data), 0);
}

static struct syncfw_timeline *new_named_timeline(struct kunit *test,
						  const char *name)
{
	return manage(test, sync_timeline_create(&test_ops,
						 sizeof(struct test_timeline),
						 name),
		      free_timeline_res);
}

static struct syncfw_timeline *new_timeline(struct kunit *test)
{
	return new_named_timeline(test, "kunit");
}

/* Advances under the timeline's lock and signals in the same section. */
static void advance(struct syncfw_timeline *obj, u32 value)
{
	unsigned long flags;

	spin_lock_irqsave(&obj->lock, flags);
	to_test_timeline(obj)->value = value;
	sync_timeline_signal_locked(obj);
	spin_unlock_irqrestore(&obj->lock, flags);
}

/* An unpublished point, which the test frees with free_pt(). */
static struct syncfw_pt *new_pt(struct kunit *test, struct syncfw_timeline *obj,
				u32 value)
{
	return manage(test, sync_pt_create(obj, sizeof(struct syncfw_pt), value),
		      free_pt_res);
}

/* A fence on a point of @size bytes (the implementation's struct). */
static struct sync_fence *new_sized_fence(struct kunit *test,
					  struct syncfw_timeline *obj, int size,
					  u64 value)
{
	struct syncfw_pt *pt = sync_pt_create(obj, size, value);
	struct sync_fence *fence;

	KUNIT_ASSERT_NOT_NULL(test, pt);
	fence = sync_fence_create("kunit", pt);
	if (!fence)
		sync_pt_free(pt);
	return manage(test, fence, free_fence_res);
}

static struct sync_fence *new_fence(struct kunit *test,
				    struct syncfw_timeline *obj, u32 value)
{
	return new_sized_fence(test, obj, sizeof(struct syncfw_pt), value);
}

static struct sync_fence *new_merge(struct kunit *test, struct sync_fence *a,
				    struct sync_fence *b)
{
	return manage(test, sync_fence_merge("kunit-merge", a, b),
		      free_fence_res);
}

static bool signalled_bit(struct dma_fence *f)
{
	return test_bit(DMA_FENCE_FLAG_SIGNALED_BIT, &f->flags);
}

static s64 timestamp_ns(struct dma_fence *f)
{
	if (!test_bit(DMA_FENCE_FLAG_TIMESTAMP_BIT, &f->flags))
		return -1;
	return ktime_to_ns(f->timestamp);
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

/* --- signalling and timestamps (seed 001) -------------------------------- */

static void pt_signals_when_reached(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	struct sync_fence *fence = new_fence(test, obj, 2);

	advance(obj, 1);
	KUNIT_EXPECT_FALSE(test, signalled_bit(fence->fence));
	advance(obj, 2);
	KUNIT_EXPECT_TRUE(test, signalled_bit(fence->fence));
	KUNIT_EXPECT_EQ(test, fence->fence->error, 0);
	KUNIT_EXPECT_GT(test, timestamp_ns(fence->fence), 0);
}

static void signal_records_given_timestamp(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	struct sync_fence *fence = new_fence(test, obj, 1);
	ktime_t when = ktime_sub_ns(ktime_get(), 12345);
	unsigned long flags;

	spin_lock_irqsave(&obj->lock, flags);
	to_test_timeline(obj)->value = 1;
	sync_timeline_signal_timestamp_locked(obj, when);
	spin_unlock_irqrestore(&obj->lock, flags);
	KUNIT_EXPECT_TRUE(test, signalled_bit(fence->fence));
	KUNIT_EXPECT_EQ(test, timestamp_ns(fence->fence), ktime_to_ns(when));
}

/*
 * A lockless look at a point that is reached but not yet signalled (poll,
 * SYNC_IOC_FILE_INFO, the dump) must not signal it with its own time.
 */
static void lockless_check_keeps_given_timestamp(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	struct sync_fence *fence = new_fence(test, obj, 1);
	ktime_t when = ktime_sub_ns(ktime_get(), 54321);

	WRITE_ONCE(to_test_timeline(obj)->value, 1);
	KUNIT_EXPECT_FALSE(test, dma_fence_is_signaled(fence->fence));
	KUNIT_EXPECT_EQ(test, dma_fence_get_status(fence->fence), 0);
	sync_timeline_signal_timestamp(obj, when);
	KUNIT_EXPECT_TRUE(test, signalled_bit(fence->fence));
	KUNIT_EXPECT_EQ(test, timestamp_ns(fence->fence), ktime_to_ns(when));
}

static void reached_point_is_born_signalled(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	struct sync_fence *fence;

	advance(obj, 5);
	fence = new_fence(test, obj, 3);
	KUNIT_EXPECT_TRUE(test, signalled_bit(fence->fence));
	KUNIT_EXPECT_GT(test, timestamp_ns(fence->fence), 0);
}

/* A point that is not a fence of its own (a DRM out-fence, say). */
static void reached_bare_point_born_signalled(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	struct syncfw_pt *reached, *ahead;

	advance(obj, 5);
	reached = new_pt(test, obj, 3);
	ahead = new_pt(test, obj, 6);
	KUNIT_EXPECT_FALSE(test, signalled_bit(&reached->base));
	sync_pt_publish(reached);
	sync_pt_publish(ahead);
	KUNIT_EXPECT_TRUE(test, signalled_bit(&reached->base));
	KUNIT_EXPECT_FALSE(test, signalled_bit(&ahead->base));
	advance(obj, 6);
	KUNIT_EXPECT_TRUE(test, signalled_bit(&ahead->base));
}

/* Which of several callbacks ran when: 1 for the first, 2 for the next. */
struct order_probe {
	struct dma_fence_cb cb;
	atomic_t *clock;
	int when;
};

static void order_probe_cb(struct dma_fence *f, struct dma_fence_cb *cb)
{
	struct order_probe *probe = container_of(cb, struct order_probe, cb);

	probe->when = atomic_inc_return(probe->clock);
}

/*
 * dma_fence: the fences of one context signal in seqno order. A point
 * published after a later one still signals first, every callback of it
 * before the later point signals, and its timestamp is not after the
 * later point's.
 */
static void reached_points_signal_in_seqno_order(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	struct sync_fence *late = new_fence(test, obj, 10);
	struct sync_fence *early = new_fence(test, obj, 5);
	atomic_t clock = ATOMIC_INIT(0);
	struct order_probe p_early = { .clock = &clock };
	struct order_probe p_late = { .clock = &clock };

	/* Not ASSERT: the advance must run the callbacks on this stack. */
	KUNIT_EXPECT_EQ(test, dma_fence_add_callback(late->fence, &p_late.cb,
						     order_probe_cb), 0);
	KUNIT_EXPECT_EQ(test, dma_fence_add_callback(early->fence, &p_early.cb,
						     order_probe_cb), 0);
	advance(obj, 10);
	KUNIT_EXPECT_EQ(test, p_early.when, 1);
	KUNIT_EXPECT_EQ(test, p_late.when, 2);
	KUNIT_EXPECT_GT(test, timestamp_ns(early->fence), 0);
	KUNIT_EXPECT_LE(test, timestamp_ns(early->fence),
			timestamp_ns(late->fence));
}

/* A signal asks the points up to the first one not reached, no further. */
static void signal_stops_at_first_unreached(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	const int n = 100;
	struct syncfw_pt **pts = kunit_kcalloc(test, n, sizeof(*pts), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, pts);
	for (i = 0; i < n; i++) {
		/* Published in an order that is not the seqnos'. */
		pts[i] = new_pt(test, obj, 2 + (i * 37) % n);
		sync_pt_publish(pts[i]);
	}
	atomic_set(&has_signaled_calls, 0);
	advance(obj, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&has_signaled_calls), 1);

	atomic_set(&has_signaled_calls, 0);
	advance(obj, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&has_signaled_calls), 3);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, signalled_bit(&pts[i]->base),
				pts[i]->base.seqno <= 3);

	advance(obj, 101);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_TRUE(test, signalled_bit(&pts[i]->base));
}

/* Counts syncfw's syncfw_pt_signaled events while registered. */
struct trace_count {
	atomic_t events;
};

static void count_trace_event(void *data, const struct syncfw_pt *pt)
{
	atomic_inc(&((struct trace_count *)data)->events);
}

/*
 * Anyone holding a dma_fence may signal it (the DRM core does with an
 * out-fence whose event it sends). syncfw must then leave the point's
 * status and timestamp alone: no error set after the fact (a WARN, and a
 * status that changes from 1 to an error), no second trace event, whether
 * the timeline later fails it (destroy) or it is published afterwards.
 */
static void foreign_signal_left_alone(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	struct sync_fence *reached = new_fence(test, obj, 5);
	struct sync_fence *pending = new_fence(test, obj, 6);
	struct sync_fence *failed = new_fence(test, obj, 7);
	struct trace_count count = { .events = ATOMIC_INIT(0) };
	struct syncfw_pt *bare;
	s64 stamp;

	advance(obj, 2);
	bare = new_pt(test, obj, 1);
	KUNIT_ASSERT_EQ(test, register_trace_syncfw_pt_signaled(count_trace_event,
								&count), 0);
	KUNIT_EXPECT_EQ(test, dma_fence_signal(reached->fence), 0);
	KUNIT_EXPECT_EQ(test, dma_fence_signal(failed->fence), 0);
	KUNIT_EXPECT_EQ(test, dma_fence_signal(&bare->base), 0);
	stamp = timestamp_ns(reached->fence);
	/* Published reached, reached by an advance, failed by destroy. */
	sync_pt_publish(bare);
	advance(obj, 5);
	release(test, obj);
	unregister_trace_syncfw_pt_signaled(count_trace_event, &count);
	tracepoint_synchronize_unregister();

	KUNIT_EXPECT_EQ(test, dma_fence_get_status(&bare->base), 1);
	KUNIT_EXPECT_EQ(test, dma_fence_get_status(reached->fence), 1);
	KUNIT_EXPECT_EQ(test, timestamp_ns(reached->fence), stamp);
	KUNIT_EXPECT_EQ(test, dma_fence_get_status(failed->fence), 1);
	KUNIT_EXPECT_EQ(test, dma_fence_get_status(pending->fence), -ENOENT);
	/* The one point syncfw signalled itself: the pending one. */
	KUNIT_EXPECT_EQ(test, atomic_read(&count.events), 1);
}

/* --- destruction and lifetimes ---------------------------------------------- */

static void destroy_fails_pending_points(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	struct sync_fence *done = new_fence(test, obj, 1);
	struct sync_fence *pending = new_fence(test, obj, 7);

	advance(obj, 1);
	release(test, obj);
	KUNIT_EXPECT_TRUE(test, signalled_bit(done->fence));
	KUNIT_EXPECT_EQ(test, done->fence->error, 0);
	KUNIT_EXPECT_TRUE(test, signalled_bit(pending->fence));
	KUNIT_EXPECT_EQ(test, pending->fence->error, -ENOENT);
	KUNIT_EXPECT_EQ(test, sync_fence_wait(pending, -1), -ENOENT);

	/* The timeline lives on until its last point is gone. */
	release(test, done);
	KUNIT_EXPECT_EQ(test, atomic_read(&timelines_released), 0);
	release(test, pending);
	KUNIT_EXPECT_EQ(test, atomic_read(&pts_freed), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&timelines_released), 1);
}

/*
 * A destroyed timeline that a point keeps alive takes no new point: one
 * would hold a reference its creator no longer has (and without that point
 * the timeline would already be freed memory).
 */
static void point_on_destroyed_timeline_fails(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	struct sync_fence *keep = new_fence(test, obj, 1);
	struct syncfw_pt *pt;

	release(test, obj);
	pt = sync_pt_create(obj, sizeof(*pt), 9);
	KUNIT_EXPECT_NULL(test, pt);
	if (pt)
		sync_pt_free(pt);
	KUNIT_EXPECT_EQ(test, atomic_read(&timelines_released), 0);
	release(test, keep);
	KUNIT_EXPECT_EQ(test, atomic_read(&timelines_released), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&pts_freed), 1);
}

/*
 * A callback under timeline A's lock drops the last references to a point
 * of timeline B, and so to B itself. Under lockdep this proves that a
 * release never takes a timeline lock; the guest tests that read the dump
 * later in the same boot complete the graph (the dump takes none).
 */
struct drop_on_signal {
	struct dma_fence_cb cb;
	struct syncfw_pt *victim;
};

static void drop_victim(struct dma_fence *f, struct dma_fence_cb *cb)
{
	struct drop_on_signal *d = container_of(cb, struct drop_on_signal, cb);

	sync_pt_free(d->victim);
}

static void cross_timeline_release_in_callback(struct kunit *test)
{
	struct syncfw_timeline *a = new_timeline(test);
	struct syncfw_timeline *b = sync_timeline_create(&test_ops,
						       sizeof(struct test_timeline),
						       "kunit-victim");
	struct sync_fence *fa = new_fence(test, a, 1);
	struct drop_on_signal d = { };

	KUNIT_ASSERT_NOT_NULL(test, b);
	d.victim = sync_pt_create(b, sizeof(*d.victim), 1);
	if (!d.victim)
		sync_timeline_destroy(b);
	KUNIT_ASSERT_NOT_NULL(test, d.victim);
	sync_pt_publish(d.victim);
	sync_timeline_destroy(b);
	KUNIT_ASSERT_EQ(test, dma_fence_add_callback(fa->fence, &d.cb,
						     drop_victim), 0);
	advance(a, 1);
	settle();
	KUNIT_EXPECT_EQ(test, atomic_read(&pts_freed), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&timelines_released), 1);
}

struct late_destroy {
	struct work_struct work;
	struct syncfw_timeline *obj;
	atomic_t done;
};

static void late_destroy_fn(struct work_struct *work)
{
	struct late_destroy *d = container_of(work, struct late_destroy, work);

	sync_timeline_destroy(d->obj);
	flush_delayed_fput();
	atomic_set(&d->done, 1);
}

/*
 * A lockless reader that found a timeline under RCU (6.17's dma_fence
 * reads a signalled fence's timeline name so, without a reference) may
 * read it until it leaves its read-side section: the timeline's memory
 * waits for a grace period. Another CPU destroys and frees the timeline
 * while this one is inside rcu_read_lock(); KASAN reports the read if
 * the memory is already gone.
 */
static void timeline_freed_after_grace_period(struct kunit *test)
{
	struct syncfw_timeline *obj = sync_timeline_create(&test_ops,
							   sizeof(struct test_timeline),
							   "kunit-rcu");
	struct late_destroy d = { .obj = obj, .done = ATOMIC_INIT(0) };
	ktime_t give_up;
	int cpu, done;
	char first;

	KUNIT_ASSERT_NOT_NULL(test, obj);
	INIT_WORK_ONSTACK(&d.work, late_destroy_fn);
	rcu_read_lock();
	preempt_disable();
	cpu = cpumask_any_but(cpu_online_mask, smp_processor_id());
	if (cpu < nr_cpu_ids) {
		queue_work_on(cpu, system_wq, &d.work);
		give_up = ktime_add_ms(ktime_get(), 5000);
		while (!(done = atomic_read(&d.done)) &&
		       ktime_before(ktime_get(), give_up))
			cpu_relax();
		first = READ_ONCE(obj->name[0]);
	}
	preempt_enable();
	rcu_read_unlock();

	if (cpu >= nr_cpu_ids) {
		sync_timeline_destroy(obj);
		settle();
		kunit_skip(test, "needs a second CPU");
	}
	flush_work(&d.work);
	destroy_work_on_stack(&d.work);
	KUNIT_EXPECT_EQ(test, done, 1);
	KUNIT_EXPECT_EQ(test, first, 'k');
	KUNIT_EXPECT_EQ(test, atomic_read(&timelines_released), 1);
}

/* --- merges (seeds 005, 010) ------------------------------------------------- */

static void settle_point(struct sync_fence *fence)
{
	struct syncfw_pt *pt = container_of(fence->fence, struct syncfw_pt, base);
	unsigned long flags;

	spin_lock_irqsave(&pt->parent->lock, flags);
	container_of(pt, struct settle_pt, pt)->status = 1;
	sync_timeline_signal_locked(pt->parent);
	spin_unlock_irqrestore(&pt->parent->lock, flags);
}

/*
 * Points that signal out of seqno order must not share a context: a merge
 * would keep only the later one and signal while the earlier still waits.
 */
static void unordered_points_merge_as_two(struct kunit *test)
{
	struct syncfw_timeline *obj =
		manage(test, sync_timeline_create(&unordered_ops,
						  sizeof(struct syncfw_timeline),
						  "kunit-unordered"),
		       free_timeline_res);
	struct sync_fence *a = new_sized_fence(test, obj, sizeof(struct settle_pt), 1);
	struct sync_fence *b = new_sized_fence(test, obj, sizeof(struct settle_pt), 2);
	struct sync_fence *ab = new_merge(test, a, b);

	KUNIT_EXPECT_NE(test, a->fence->context, b->fence->context);
	KUNIT_EXPECT_EQ(test, num_points(ab), 2u);

	settle_point(b);
	KUNIT_EXPECT_TRUE(test, signalled_bit(b->fence));
	KUNIT_EXPECT_EQ(test, sync_fence_wait(ab, 0), -ETIME);
	settle_point(a);
	KUNIT_EXPECT_EQ(test, sync_fence_wait(ab, 0), 0);
}

static void merge_same_timeline_keeps_later(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	struct sync_fence *a = new_fence(test, obj, 2);
	struct sync_fence *b = new_fence(test, obj, 5);
	struct sync_fence *ab = new_merge(test, a, b);
	struct sync_fence *ba = new_merge(test, b, a);

	KUNIT_EXPECT_EQ(test, num_points(ab), 1u);
	KUNIT_EXPECT_EQ(test, num_points(ba), 1u);
	KUNIT_EXPECT_PTR_EQ(test, ab->fence, b->fence);
	KUNIT_EXPECT_PTR_EQ(test, ba->fence, b->fence);

	advance(obj, 2);
	KUNIT_EXPECT_FALSE(test, signalled_bit(ab->fence));
	advance(obj, 5);
	KUNIT_EXPECT_TRUE(test, signalled_bit(ab->fence));

	release(test, ba);
	release(test, ab);
	release(test, b);
	release(test, a);
	release(test, obj);
	KUNIT_EXPECT_EQ(test, atomic_read(&pts_freed), 2);
}

static void merge_with_itself_yields_one(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	struct sync_fence *a = new_fence(test, obj, 1);
	struct sync_fence *aa = new_merge(test, a, a);

	KUNIT_EXPECT_EQ(test, num_points(aa), 1u);
}

static void merge_spans_k_timelines(struct kunit *test)
{
	struct syncfw_timeline *t1 = new_timeline(test), *t2 = new_timeline(test);
	struct sync_fence *a = new_fence(test, t1, 1);
	struct sync_fence *b = new_fence(test, t2, 1);
	struct sync_fence *c = new_fence(test, t1, 3);
	struct sync_fence *ab = new_merge(test, a, b);
	struct sync_fence *abc = new_merge(test, ab, c);
	struct sync_fence *cab = new_merge(test, c, ab);

	KUNIT_EXPECT_EQ(test, num_points(ab), 2u);
	KUNIT_EXPECT_EQ(test, num_points(abc), 2u);
	KUNIT_EXPECT_EQ(test, num_points(cab), 2u);

	/* Signals only once every timeline has reached its point. */
	advance(t1, 3);
	KUNIT_EXPECT_EQ(test, sync_fence_wait(abc, 0), -ETIME);
	advance(t2, 1);
	KUNIT_EXPECT_EQ(test, sync_fence_wait(abc, 0), 0);
	KUNIT_EXPECT_EQ(test, sync_fence_wait(cab, 0), 0);

	release(test, cab);
	release(test, abc);
	release(test, ab);
	release(test, c);
	release(test, b);
	release(test, a);
	release(test, t2);
	release(test, t1);
	KUNIT_EXPECT_EQ(test, atomic_read(&pts_freed), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&timelines_released), 2);
}

/* The error of a point reaches the merge by every path (seed 006). */
static void merged_fence_reports_error(struct kunit *test)
{
	struct syncfw_timeline *t1 = new_timeline(test), *t2 = new_timeline(test);
	struct sync_fence *a = new_fence(test, t1, 1);
	struct sync_fence *b = new_fence(test, t2, 1);
	struct sync_fence *ab = new_merge(test, a, b);

	advance(t1, 1);
	release(test, t2);
	KUNIT_EXPECT_EQ(test, sync_fence_wait(ab, 1000), -ENOENT);
}

static void merged_error_survives_check(struct kunit *test)
{
	struct syncfw_timeline *t1 = new_timeline(test), *t2 = new_timeline(test);
	struct sync_fence *a = new_fence(test, t1, 1);
	struct sync_fence *b = new_fence(test, t2, 1);
	struct sync_fence *ab = new_merge(test, a, b);

	release(test, t2);
	advance(t1, 1);
	/* Nobody enabled signalling on the merge: a check must see it fail. */
	KUNIT_EXPECT_EQ(test, sync_fence_wait(ab, 0), -ENOENT);
	KUNIT_EXPECT_EQ(test, sync_fence_wait(ab, -1), -ENOENT);
}

/*
 * syncfw's merge does not depend on patch 0002 (which makes the core's
 * lockless scan of an array keep a member's error): its array has
 * signalling enabled, so it signals by itself, with the error, once its
 * last point has. Checked on the array's own bit and error, so that no
 * op of the array runs.
 */
static void merge_signals_by_itself(struct kunit *test)
{
	struct syncfw_timeline *t1 = new_timeline(test), *t2 = new_timeline(test);
	struct sync_fence *a = new_fence(test, t1, 1);
	struct sync_fence *b = new_fence(test, t2, 1);
	struct sync_fence *ab = new_merge(test, a, b);
	struct dma_fence_array *array = to_dma_fence_array(ab->fence);

	KUNIT_ASSERT_NOT_NULL(test, array);
	KUNIT_EXPECT_TRUE(test, test_bit(DMA_FENCE_FLAG_ENABLE_SIGNAL_BIT,
					 &ab->fence->flags));
	release(test, t2);
	advance(t1, 1);
	/* The array signals from an irq_work once its last point has. */
	irq_work_sync(&array->work);
	KUNIT_EXPECT_TRUE(test, signalled_bit(ab->fence));
	KUNIT_EXPECT_EQ(test, READ_ONCE(ab->fence->error), -ENOENT);
}

static void merge_of_failed_point_fails(struct kunit *test)
{
	struct syncfw_timeline *t1 = new_timeline(test), *t2 = new_timeline(test);
	struct sync_fence *a = new_fence(test, t1, 1);
	struct sync_fence *b = new_fence(test, t2, 1);
	struct sync_fence *ab;

	release(test, t2);
	ab = new_merge(test, a, b);
	KUNIT_EXPECT_EQ(test, num_points(ab), 2u);
	advance(t1, 1);
	KUNIT_EXPECT_EQ(test, sync_fence_wait(ab, 0), -ENOENT);
}

/* --- waits (seeds 007, 008, 011) -------------------------------------------- */

static void wait_timeout_zero_only_checks(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	struct sync_fence *fence = new_fence(test, obj, 1);
	ktime_t start = ktime_get();

	KUNIT_EXPECT_EQ(test, sync_fence_wait(fence, 0), -ETIME);
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), start), 100);
	/*
	 * How long it took is not checked: under TCG a periodic tick can
	 * catch up in bursts, so jiffies and ktime disagree by many ms.
	 */
	KUNIT_EXPECT_EQ(test, sync_fence_wait(fence, 20), -ETIME);
	advance(obj, 1);
	KUNIT_EXPECT_EQ(test, sync_fence_wait(fence, 0), 0);
	KUNIT_EXPECT_EQ(test, sync_fence_wait(fence, -1), 0);
}

struct late_advance {
	struct delayed_work work;
	struct syncfw_timeline *obj;
};

static void late_advance_fn(struct work_struct *work)
{
	struct late_advance *late = container_of(work, struct late_advance,
						 work.work);

	advance(late->obj, 1);
}

/*
 * 2^32 ms (LONG_MAX on 32-bit, where a long cannot hold it) must not
 * truncate to 0 ms, an immediate -ETIME.
 */
static void huge_timeout_waits(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	struct sync_fence *fence = new_fence(test, obj, 1);
	struct late_advance late = { .obj = obj };
	long two_to_32 = min_t(u64, 1ULL << 32, LONG_MAX);

	INIT_DELAYED_WORK_ONSTACK(&late.work, late_advance_fn);
	schedule_delayed_work(&late.work, msecs_to_jiffies(50));
	KUNIT_EXPECT_EQ(test, sync_fence_wait(fence, two_to_32), 0);
	KUNIT_EXPECT_EQ(test, sync_fence_wait(fence, LONG_MAX), 0);
	flush_delayed_work(&late.work);
	destroy_delayed_work_on_stack(&late.work);
}

/* --- asynchronous waits (seed 002) ------------------------------------------ */

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
	struct syncfw_timeline *obj = new_timeline(test);
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
}

static void async_wait_on_signalled_returns_1(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	struct sync_fence *fence = new_fence(test, obj, 1);
	struct async_probe probe = { .calls = ATOMIC_INIT(0) };

	advance(obj, 1);
	sync_fence_waiter_init(&probe.waiter, async_probe_cb);
	KUNIT_EXPECT_EQ(test, sync_fence_wait_async(fence, &probe.waiter), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe.calls), 0);
}

static void async_wait_on_failed_returns_error(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	struct sync_fence *fence = new_fence(test, obj, 1);
	struct async_probe probe = { .calls = ATOMIC_INIT(0) };

	release(test, obj);
	sync_fence_waiter_init(&probe.waiter, async_probe_cb);
	KUNIT_EXPECT_EQ(test, sync_fence_wait_async(fence, &probe.waiter),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe.calls), 0);
}

static void cancelled_wait_never_calls_back(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
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
}

/* Cancelling through the wrong fence is refused and changes nothing. */
static void cancel_checks_fence(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	struct sync_fence *a = new_fence(test, obj, 1);
	struct sync_fence *b = new_fence(test, obj, 2);
	struct async_probe probe = { .calls = ATOMIC_INIT(0) };

	sync_fence_waiter_init(&probe.waiter, async_probe_cb);
	KUNIT_EXPECT_EQ(test, sync_fence_wait_async(a, &probe.waiter), 0);
	KUNIT_EXPECT_EQ(test, sync_fence_cancel_async(b, &probe.waiter),
			-EINVAL);
	advance(obj, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe.calls), 1);
	KUNIT_EXPECT_PTR_EQ(test, probe.seen, a);
}

static void async_wait_sees_destroy(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);
	struct sync_fence *fence = new_fence(test, obj, 1);
	struct async_probe probe = { .calls = ATOMIC_INIT(0) };

	sync_fence_waiter_init(&probe.waiter, async_probe_cb);
	KUNIT_EXPECT_EQ(test, sync_fence_wait_async(fence, &probe.waiter), 0);
	release(test, obj);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe.calls), 1);
}

/* --- arguments ----------------------------------------------------------------- */

/*
 * A real fd that is not a sync_file, and what the dump shows of unpublished
 * points, are tested from userspace (sync/syncfw-api).
 */
static void fdget_rejects_bad_fds(struct kunit *test)
{
	KUNIT_EXPECT_NULL(test, sync_fence_fdget(-1));
	KUNIT_EXPECT_NULL(test, sync_fence_fdget(INT_MAX));
}

static void bad_sizes_are_refused(struct kunit *test)
{
	struct syncfw_timeline *obj = new_timeline(test);

	KUNIT_EXPECT_NULL(test, sync_timeline_create(&test_ops, 4, "small"));
	KUNIT_EXPECT_NULL(test, sync_pt_create(obj, 4, 1));
}

static struct kunit_case syncfw_test_cases[] = {
	KUNIT_CASE(pt_signals_when_reached),
	KUNIT_CASE(signal_records_given_timestamp),
	KUNIT_CASE(lockless_check_keeps_given_timestamp),
	KUNIT_CASE(reached_point_is_born_signalled),
	KUNIT_CASE(reached_bare_point_born_signalled),
	KUNIT_CASE(reached_points_signal_in_seqno_order),
	KUNIT_CASE(signal_stops_at_first_unreached),
	KUNIT_CASE(foreign_signal_left_alone),
	KUNIT_CASE(destroy_fails_pending_points),
	KUNIT_CASE(point_on_destroyed_timeline_fails),
	KUNIT_CASE(cross_timeline_release_in_callback),
	KUNIT_CASE(timeline_freed_after_grace_period),
	KUNIT_CASE(merge_same_timeline_keeps_later),
	KUNIT_CASE(merge_with_itself_yields_one),
	KUNIT_CASE(merge_spans_k_timelines),
	KUNIT_CASE(unordered_points_merge_as_two),
	KUNIT_CASE(merged_fence_reports_error),
	KUNIT_CASE(merged_error_survives_check),
	KUNIT_CASE(merge_signals_by_itself),
	KUNIT_CASE(merge_of_failed_point_fails),
	KUNIT_CASE(wait_timeout_zero_only_checks),
	KUNIT_CASE(huge_timeout_waits),
	KUNIT_CASE(async_wait_runs_callback_once),
	KUNIT_CASE(async_wait_on_signalled_returns_1),
	KUNIT_CASE(async_wait_on_failed_returns_error),
	KUNIT_CASE(cancelled_wait_never_calls_back),
	KUNIT_CASE(cancel_checks_fence),
	KUNIT_CASE(async_wait_sees_destroy),
	KUNIT_CASE(fdget_rejects_bad_fds),
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
MODULE_IMPORT_NS(SYNCFW);
