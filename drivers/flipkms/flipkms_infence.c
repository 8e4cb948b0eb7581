// SPDX-License-Identifier: GPL-2.0+
/*
 * Optionally bounded in-fence waits. The atomic helpers wait for a plane's
 * fence without a timeout, as every KMS driver does, and by default so does
 * flipkms: the dma-fence rules make the fence's producer responsible for
 * signalling it in finite time (a GPU driver's job timeout), and a display
 * that shows a buffer before its fence signals shows whatever is in it.
 *
 * infence_timeout_ms, off (0) by default, is a robustness and fault knob
 * for setups that want a bound anyway: each plane fence is then replaced
 * by a stand-in, a point on the device's "in-fences" timeline, that
 * signals when the real fence does or fails with -ETIMEDOUT after the
 * timeout; the flip then goes ahead and the timeout is counted and logged.
 * That breaks IN_FENCE_FD's contract (the plane may be scanned out while
 * its producer still writes it), which is why it is not the default.
 * Stand-ins show in syncfw's debugfs dump like any point.
 *
 * The bound covers whatever the plane waits for: an IN_FENCE_FD or the
 * implicit fences of its buffer, which userspace can set as well
 * (DMA_BUF_IOCTL_IMPORT_SYNC_FILE). Stand-ins settle in the order their
 * fences do, not in the order they were made, so their timeline is
 * unordered: each stand-in has a fence context of its own.
 */

#include <linux/dma-fence.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <drm/drm_device.h>

#include <syncfw/sync.h>

#include "flipkms_drv.h"
#include "flipkms_trace.h"

#define FLIPKMS_INFENCE_TIMEOUT_MAX_MS	60000

/* 0: no bound, the helpers wait for the fence itself. */
static unsigned int infence_timeout_ms;

static int flipkms_set_infence_timeout(const char *val,
				       const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, FLIPKMS_INFENCE_TIMEOUT_MAX_MS);
}

static const struct kernel_param_ops flipkms_infence_timeout_ops = {
	.set = flipkms_set_infence_timeout,
	.get = param_get_uint,
};

module_param_cb(infence_timeout_ms, &flipkms_infence_timeout_ops,
		&infence_timeout_ms, 0644);
MODULE_PARM_DESC(infence_timeout_ms,
		 "Fault/robustness knob: a flip goes ahead this long after its in-fence if that has not signalled, breaking IN_FENCE_FD's contract (ms, 1-60000; default 0: wait for the fence, as every KMS driver does)");

/**
 * struct flipkms_infences - the stand-ins of one device
 * @obj:	their timeline
 * @name:	the device's name, for messages: a stand-in's timer may
 *		outlive the device (its commit failed, say), not the timeline
 * @lock:	protects @pending
 * @pending:	stand-ins not settled yet, through their @link, for the
 *		unplug to settle
 * @next_seqno:	the number of the latest stand-in (written under @obj.lock)
 * @timeouts:	in-fences that did not signal in time
 */
struct flipkms_infences {
	struct syncfw_timeline obj;
	char name[32];
	spinlock_t lock; /* see @lock above */
	struct list_head pending;
	u64 next_seqno;
	atomic64_t timeouts;
};

/**
 * struct flipkms_infence - a stand-in for one plane's in-fence
 * @pt:		the point that stands in
 * @fence:	the real fence, held while @cb or @timer may still touch it
 * @users:	how many of @cb and @timer may still touch @fence; the last
 *		to be done with it drops it, so that a foreign fence (and
 *		its driver) is not kept after it signalled or timed out
 * @driver:	@fence's driver name, copied while it was unsignalled: the
 *		driver of a signalled fence may be gone, and its ops with it
 * @timeline:	@fence's timeline name, likewise
 * @seqno:	@fence's seqno, likewise
 * @since:	when the wait began, for the trace event that ends it
 * @timeout_ms:	its bound, for the message if it runs out
 * @cb:		on @fence; holds a reference on the stand-in while queued,
 *		which it hands on to @signal
 * @signal:	signals the stand-in after @fence did, outside @fence's lock
 * @timer:	the timeout, armed once @cb is queued; holds a reference on
 *		the stand-in while queued
 * @status:	0 while waiting, 1 once @fence signalled, -ETIMEDOUT, or
 *		-ENODEV if the device was unplugged first
 * @link:	in &flipkms_infences.pending until settled
 */
struct flipkms_infence {
	struct syncfw_pt pt;
	struct dma_fence *fence;
	atomic_t users;
	char driver[32];
	char timeline[32];
	u64 seqno;
	ktime_t since;
	unsigned int timeout_ms;
	struct dma_fence_cb cb;
	struct irq_work signal;
	struct hrtimer timer;
	atomic_t status;
	struct list_head link;
};

static inline struct flipkms_infences *to_infences(struct syncfw_timeline *obj)
{
	return container_of(obj, struct flipkms_infences, obj);
}

static inline struct flipkms_infence *to_infence(struct syncfw_pt *pt)
{
	return container_of(pt, struct flipkms_infence, pt);
}

static int flipkms_infence_has_signaled(struct syncfw_pt *pt)
{
	return atomic_read(&to_infence(pt)->status);
}

/* @n of the fence's users are done with it. */
static void flipkms_infence_unuse(struct flipkms_infence *in, int n)
{
	if (atomic_sub_and_test(n, &in->users))
		dma_fence_put(in->fence);
}

static void flipkms_infence_value_str(struct syncfw_pt *pt, char *str, int size)
{
	struct flipkms_infence *in = to_infence(pt);

	snprintf(str, size, "wait %llu for %s:%s:%llu", pt->base.seqno,
		 in->driver, in->timeline, in->seqno);
}

static void flipkms_infences_value_str(struct syncfw_timeline *obj, char *str,
				       int size)
{
	struct flipkms_infences *set = to_infences(obj);

	snprintf(str, size, "%llu waits, %lld timed out",
		 READ_ONCE(set->next_seqno), atomic64_read(&set->timeouts));
}

static const struct sync_timeline_ops flipkms_infence_ops = {
	.owner = THIS_MODULE,
	.driver_name = "flipkms",
	.has_signaled = flipkms_infence_has_signaled,
	.timeline_value_str = flipkms_infences_value_str,
	.pt_value_str = flipkms_infence_value_str,
	.unordered = true,
};

/* The first of the fence and the timer to get here settles the stand-in. */
static bool flipkms_infence_settle(struct flipkms_infence *in, int status)
{
	struct flipkms_infences *set = to_infences(in->pt.parent);
	unsigned long flags;

	if (atomic_cmpxchg(&in->status, 0, status))
		return false;
	spin_lock_irqsave(&set->lock, flags);
	list_del_init(&in->link);
	spin_unlock_irqrestore(&set->lock, flags);
	trace_flipkms_in_fence(in->driver, in->timeline, in->seqno, status,
			       ktime_to_ns(ktime_sub(ktime_get(), in->since)));
	sync_timeline_signal(in->pt.parent);
	return true;
}

static void flipkms_infence_signal_work(struct irq_work *work)
{
	struct flipkms_infence *in = container_of(work, struct flipkms_infence,
						  signal);

	flipkms_infence_settle(in, 1);
	if (hrtimer_try_to_cancel(&in->timer) == 1) {
		/* The timer will not run: done with the fence for it too. */
		flipkms_infence_unuse(in, 2);
		dma_fence_put(&in->pt.base);
	} else {
		flipkms_infence_unuse(in, 1);
	}
	dma_fence_put(&in->pt.base);
}

/*
 * This runs under the lock of @fence, which may be another timeline's: the
 * stand-in's timeline is signalled from an irq_work instead of nesting its
 * lock in there, as dma_fence_array does.
 */
static void flipkms_infence_signalled(struct dma_fence *fence,
				      struct dma_fence_cb *cb)
{
	struct flipkms_infence *in = container_of(cb, struct flipkms_infence, cb);

	irq_work_queue(&in->signal);
}

static enum hrtimer_restart flipkms_infence_timeout(struct hrtimer *timer)
{
	struct flipkms_infence *in = container_of(timer, struct flipkms_infence,
						  timer);
	struct flipkms_infences *set = to_infences(in->pt.parent);

	if (flipkms_infence_settle(in, -ETIMEDOUT)) {
		atomic64_inc(&set->timeouts);
		pr_warn_ratelimited("flipkms %s: in-fence %s:%s:%llu not signalled after %u ms, flipping anyway\n",
				    set->name, in->driver, in->timeline,
				    in->seqno, in->timeout_ms);
	}
	if (dma_fence_remove_callback(in->fence, &in->cb)) {
		/* The callback will not run: done with the fence for it too. */
		flipkms_infence_unuse(in, 2);
		dma_fence_put(&in->pt.base);
	} else {
		flipkms_infence_unuse(in, 1);
	}
	dma_fence_put(&in->pt.base);

	return HRTIMER_NORESTART;
}

/**
 * flipkms_infence_bound() - a stand-in for @fence that signals in time
 * @set:	the device's stand-ins
 * @fence:	the plane's fence (the caller keeps its reference)
 *
 * Return: A new reference to the stand-in, a new reference to @fence if it
 * has signalled already or no bound is set, or NULL when memory runs out.
 */
struct dma_fence *flipkms_infence_bound(struct flipkms_infences *set,
					struct dma_fence *fence)
{
	unsigned int timeout_ms = READ_ONCE(infence_timeout_ms);
	struct flipkms_infence *in;
	struct syncfw_pt *pt;
	u64 seqno;
	int ret;

	if (!timeout_ms || dma_fence_is_signaled(fence))
		return dma_fence_get(fence);

	spin_lock_irq(&set->obj.lock);
	seqno = set->next_seqno + 1;
	WRITE_ONCE(set->next_seqno, seqno);
	spin_unlock_irq(&set->obj.lock);

	pt = sync_pt_create(&set->obj, sizeof(*in), seqno);
	if (!pt)
		return NULL;
	in = to_infence(pt);
	strscpy(in->driver, fence->ops->get_driver_name(fence), sizeof(in->driver));
	strscpy(in->timeline, fence->ops->get_timeline_name(fence),
		sizeof(in->timeline));
	in->seqno = fence->seqno;
	in->since = ktime_get();
	in->timeout_ms = timeout_ms;
	INIT_LIST_HEAD(&in->cb.node);
	init_irq_work(&in->signal, flipkms_infence_signal_work);
	hrtimer_init(&in->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	in->timer.function = flipkms_infence_timeout;
	/* Whole now: the dump and has_signaled may see it from here on. */
	sync_pt_publish(pt);
	spin_lock_irq(&set->lock);
	list_add_tail(&in->link, &set->pending);
	spin_unlock_irq(&set->lock);

	/*
	 * The callback first, then the timer: a timer that fires must find
	 * the callback queued (or already run), never half set up.
	 */
	dma_fence_get(&pt->base);
	in->fence = dma_fence_get(fence);
	atomic_set(&in->users, 2);
	ret = dma_fence_add_callback(fence, &in->cb, flipkms_infence_signalled);
	if (ret) {
		/* Signalled meanwhile: settle now, no callback, no timer. */
		flipkms_infence_unuse(in, 2);
		dma_fence_put(&pt->base);
		flipkms_infence_settle(in, 1);
		return &pt->base;
	}
	dma_fence_get(&pt->base);
	hrtimer_start(&in->timer, ms_to_ktime(timeout_ms), HRTIMER_MODE_REL);

	return &pt->base;
}

struct flipkms_infences *flipkms_infences_create(struct drm_device *drm)
{
	struct syncfw_timeline *obj;

	obj = sync_timeline_create(&flipkms_infence_ops,
				   sizeof(struct flipkms_infences),
				   "flipkms-in-fences");
	if (!obj)
		return NULL;
	strscpy(to_infences(obj)->name, dev_name(drm->dev),
		sizeof(to_infences(obj)->name));
	spin_lock_init(&to_infences(obj)->lock);
	INIT_LIST_HEAD(&to_infences(obj)->pending);

	return to_infences(obj);
}

/*
 * Unplug: nothing is scanned out any more, so the flips behind stand-ins
 * go ahead now, as if their bound ran out, rather than hold the unplug's
 * shutdown for the atomic helpers' timeouts. Their timers and callbacks
 * still run and find them settled.
 */
void flipkms_infences_unplug(struct flipkms_infences *set)
{
	struct flipkms_infence *in;

	for (;;) {
		spin_lock_irq(&set->lock);
		in = list_first_entry_or_null(&set->pending,
					      struct flipkms_infence, link);
		if (in) {
			/* Listed, so unsettled: its timer or callback holds it. */
			list_del_init(&in->link);
			dma_fence_get(&in->pt.base);
		}
		spin_unlock_irq(&set->lock);
		if (!in)
			break;
		flipkms_infence_settle(in, -ENODEV);
		dma_fence_put(&in->pt.base);
	}
}

void flipkms_infences_destroy(struct flipkms_infences *set)
{
	sync_timeline_destroy(&set->obj);
}

u64 flipkms_infences_timeouts(struct flipkms_infences *set)
{
	return atomic64_read(&set->timeouts);
}
