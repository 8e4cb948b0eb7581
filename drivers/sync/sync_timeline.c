// SPDX-License-Identifier: GPL-2.0
/*
 * Timelines and their points: each point is a dma_fence whose lock is the
 * timeline's, so signalling a run of points is one critical section.
 */

#include <linux/export.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <syncfw/sync.h>

#include "syncfw_internal.h"

/* Every timeline alive, for the debugfs dump. */
LIST_HEAD(sync_timeline_list);
DEFINE_SPINLOCK(sync_timeline_list_lock);

static const struct dma_fence_ops sync_pt_fence_ops;

static inline struct sync_pt *to_sync_pt(struct dma_fence *fence)
{
	return container_of(fence, struct sync_pt, base);
}

/**
 * dma_fence_to_sync_pt() - the sync point behind a dma_fence, if any
 * @fence: a fence
 *
 * Returns the point, or NULL when @fence was not made by syncfw.
 */
struct sync_pt *dma_fence_to_sync_pt(struct dma_fence *fence)
{
	return fence && fence->ops == &sync_pt_fence_ops ? to_sync_pt(fence) : NULL;
}
EXPORT_SYMBOL_GPL(dma_fence_to_sync_pt);

/**
 * sync_timeline_create() - create a timeline
 * @ops:	its implementation, which must outlive the timeline
 * @size:	bytes to allocate, at least sizeof(struct sync_timeline); the
 *		implementation's struct embeds the timeline at its start
 * @name:	a name for dumps and SYNC_IOC_FILE_INFO (truncated to 31 chars)
 *
 * The timeline holds a reference on syncfw until its last point is gone, so
 * the module cannot be unloaded under a fence that still needs its code.
 *
 * Returns the timeline, or NULL if @size is too small or memory runs out.
 */
struct sync_timeline *sync_timeline_create(const struct sync_timeline_ops *ops,
					   int size, const char *name)
{
	struct sync_timeline *obj;

	if (size < (int)sizeof(*obj) || !ops || !ops->has_signaled)
		return NULL;

	obj = kzalloc(size, GFP_KERNEL);
	if (!obj)
		return NULL;

	kref_init(&obj->kref);
	obj->ops = ops;
	strscpy(obj->name, name, sizeof(obj->name));
	obj->context = dma_fence_context_alloc(1);
	spin_lock_init(&obj->lock);
	INIT_LIST_HEAD(&obj->active_list);
	INIT_LIST_HEAD(&obj->pt_list);

	__module_get(THIS_MODULE);
	spin_lock_irq(&sync_timeline_list_lock);
	list_add_tail(&obj->timeline_list, &sync_timeline_list);
	spin_unlock_irq(&sync_timeline_list_lock);

	return obj;
}
EXPORT_SYMBOL_GPL(sync_timeline_create);

static void sync_timeline_free(struct kref *kref)
{
	struct sync_timeline *obj = container_of(kref, struct sync_timeline,
						 kref);
	unsigned long flags;

	spin_lock_irqsave(&sync_timeline_list_lock, flags);
	list_del(&obj->timeline_list);
	spin_unlock_irqrestore(&sync_timeline_list_lock, flags);

	if (obj->ops->release_obj)
		obj->ops->release_obj(obj);
	kfree(obj);
	module_put(THIS_MODULE);
}

static void sync_timeline_put(struct sync_timeline *obj)
{
	kref_put(&obj->kref, sync_timeline_free);
}

/*
 * Signal every active point whose status the implementation (or the
 * timeline's destruction) has settled. Each point is pinned while it is
 * signalled under the lock: a fence callback may drop what was its last
 * reference, and its release takes this same lock. A point whose last
 * reference is already gone is skipped: nobody can see it any more, and
 * its release is waiting for the lock to take it off the list.
 */
static void sync_timeline_signal_pts(struct sync_timeline *obj,
				     const ktime_t *timestamp)
{
	struct sync_pt *pt, *next;
	unsigned long flags;
	LIST_HEAD(signalled);
	int status;

	spin_lock_irqsave(&obj->lock, flags);
	list_for_each_entry_safe(pt, next, &obj->active_list, active_link) {
		status = obj->ops->has_signaled(pt);
		if (!status && obj->destroyed)
			status = -ENOENT;
		if (!status || !dma_fence_get_rcu(&pt->base))
			continue;

		list_move_tail(&pt->active_link, &signalled);
		/* A lockless dma_fence_is_signaled() may have got there first. */
		if (status < 0 &&
		    !test_bit(DMA_FENCE_FLAG_SIGNALED_BIT, &pt->base.flags))
			dma_fence_set_error(&pt->base, status);
		if (timestamp)
			dma_fence_signal_timestamp_locked(&pt->base, *timestamp);
		else
			dma_fence_signal_locked(&pt->base);
	}
	spin_unlock_irqrestore(&obj->lock, flags);

	/* Only this function can reach the pinned points on its own list. */
	list_for_each_entry_safe(pt, next, &signalled, active_link) {
		list_del_init(&pt->active_link);
		dma_fence_put(&pt->base);
	}
}

/**
 * sync_timeline_signal() - signal the points that have been reached
 * @obj: the timeline
 *
 * Asks &sync_timeline_ops.has_signaled of every active point and signals
 * those that have signalled or failed, stamped with the current time.
 * Call it whenever the timeline's value advances. Safe from any context.
 */
void sync_timeline_signal(struct sync_timeline *obj)
{
	sync_timeline_signal_pts(obj, NULL);
}
EXPORT_SYMBOL_GPL(sync_timeline_signal);

/**
 * sync_timeline_signal_timestamp() - signal reached points at a given time
 * @obj:	the timeline
 * @timestamp:	CLOCK_MONOTONIC time at which the points signalled, e.g. the
 *		vblank that latched a frame; not in the future
 *
 * Like sync_timeline_signal(), but every point signalled now records
 * @timestamp, which SYNC_IOC_FILE_INFO reports as its timestamp_ns.
 */
void sync_timeline_signal_timestamp(struct sync_timeline *obj,
				    ktime_t timestamp)
{
	sync_timeline_signal_pts(obj, &timestamp);
}
EXPORT_SYMBOL_GPL(sync_timeline_signal_timestamp);

/**
 * sync_timeline_destroy() - the creator's last word on a timeline
 * @obj: the timeline
 *
 * Every point that has not signalled yet signals now with -ENOENT, and
 * the creator's reference is dropped. The timeline itself is freed (after
 * &sync_timeline_ops.release_obj) once its last point is gone.
 */
void sync_timeline_destroy(struct sync_timeline *obj)
{
	spin_lock_irq(&obj->lock);
	obj->destroyed = true;
	spin_unlock_irq(&obj->lock);

	sync_timeline_signal(obj);
	sync_timeline_put(obj);
}
EXPORT_SYMBOL_GPL(sync_timeline_destroy);

/**
 * sync_pt_create() - create a point on a timeline
 * @parent:	the timeline
 * @size:	bytes to allocate, at least sizeof(struct sync_pt); the
 *		implementation's struct embeds the point at its start
 * @seqno:	the point's position on @parent; later points have larger
 *		seqnos, as &sync_timeline_ops.compare must agree
 *
 * The point starts active (unless @parent already reached it, in which
 * case the next sync_timeline_signal() signals it) and belongs to the
 * caller until it is given to sync_fence_create() or sync_pt_free(). It
 * holds a reference on &sync_timeline_ops.owner while it exists.
 *
 * Returns the point, or NULL on a bad @size, when memory runs out or when
 * the owner module is going away.
 */
struct sync_pt *sync_pt_create(struct sync_timeline *parent, int size,
			       u64 seqno)
{
	struct sync_pt *pt;
	unsigned long flags;

	if (size < (int)sizeof(*pt))
		return NULL;

	pt = kzalloc(size, GFP_KERNEL);
	if (!pt)
		return NULL;
	if (!try_module_get(parent->ops->owner)) {
		kfree(pt);
		return NULL;
	}

	kref_get(&parent->kref);
	pt->parent = parent;
	dma_fence_init(&pt->base, &sync_pt_fence_ops, &parent->lock,
		       parent->context, seqno);

	spin_lock_irqsave(&parent->lock, flags);
	list_add_tail(&pt->pt_link, &parent->pt_list);
	if (parent->destroyed) {
		INIT_LIST_HEAD(&pt->active_link);
		dma_fence_set_error(&pt->base, -ENOENT);
		dma_fence_signal_locked(&pt->base);
	} else {
		list_add_tail(&pt->active_link, &parent->active_list);
	}
	spin_unlock_irqrestore(&parent->lock, flags);

	return pt;
}
EXPORT_SYMBOL_GPL(sync_pt_create);

/**
 * sync_pt_free() - drop a point that was never given to a fence
 * @pt: the point
 */
void sync_pt_free(struct sync_pt *pt)
{
	dma_fence_put(&pt->base);
}
EXPORT_SYMBOL_GPL(sync_pt_free);

static const char *sync_pt_get_driver_name(struct dma_fence *fence)
{
	return to_sync_pt(fence)->parent->ops->driver_name;
}

static const char *sync_pt_get_timeline_name(struct dma_fence *fence)
{
	return to_sync_pt(fence)->parent->name;
}

static bool sync_pt_enable_signaling(struct dma_fence *fence)
{
	/* Points are signalled from sync_timeline_signal(): nothing to arm. */
	return true;
}

/*
 * Lockless callers (dma_fence_is_signaled()) may signal a point the
 * implementation reports as reached. Failures are left to the timeline,
 * which records the error under its lock before signalling.
 */
static bool sync_pt_signaled(struct dma_fence *fence)
{
	struct sync_pt *pt = to_sync_pt(fence);

	return pt->parent->ops->has_signaled(pt) > 0;
}

static void sync_pt_release(struct dma_fence *fence)
{
	struct sync_pt *pt = to_sync_pt(fence);
	struct sync_timeline *parent = pt->parent;
	struct module *owner;
	unsigned long flags;

	spin_lock_irqsave(&parent->lock, flags);
	list_del(&pt->pt_link);
	if (!list_empty(&pt->active_link))
		list_del(&pt->active_link);
	spin_unlock_irqrestore(&parent->lock, flags);

	if (parent->ops->free_pt)
		parent->ops->free_pt(pt);
	owner = parent->ops->owner;
	dma_fence_free(fence);
	sync_timeline_put(parent);
	module_put(owner);
}

static void sync_pt_fence_value_str(struct dma_fence *fence, char *str,
				    int size)
{
	struct sync_pt *pt = to_sync_pt(fence);

	sync_pt_value_str(pt, str, size);
}

static void sync_pt_timeline_value_str(struct dma_fence *fence, char *str,
				       int size)
{
	sync_timeline_value_str(to_sync_pt(fence)->parent, str, size);
}

static const struct dma_fence_ops sync_pt_fence_ops = {
	.use_64bit_seqno = true,
	.get_driver_name = sync_pt_get_driver_name,
	.get_timeline_name = sync_pt_get_timeline_name,
	.enable_signaling = sync_pt_enable_signaling,
	.signaled = sync_pt_signaled,
	.release = sync_pt_release,
	.fence_value_str = sync_pt_fence_value_str,
	.timeline_value_str = sync_pt_timeline_value_str,
};

/* The value strings every dump uses (seed 009), seqnos without the ops. */
void sync_timeline_value_str(struct sync_timeline *obj, char *str, int size)
{
	if (obj->ops->timeline_value_str)
		obj->ops->timeline_value_str(obj, str, size);
	else
		snprintf(str, size, "?");
}

void sync_pt_value_str(struct sync_pt *pt, char *str, int size)
{
	if (pt->parent->ops->pt_value_str)
		pt->parent->ops->pt_value_str(pt, str, size);
	else
		snprintf(str, size, "%llu", pt->base.seqno);
}
