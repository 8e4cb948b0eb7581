// SPDX-License-Identifier: GPL-2.0
/*
 * Timelines and their points: each point is a dma_fence whose lock is the
 * timeline's, so advancing a timeline and signalling the points it reached
 * is one critical section.
 *
 * Lock order (Documentation/sync.rst), every lock taken with interrupts
 * off:
 *   timeline lock -> timeline list_lock
 *   timeline lock -> sync_timeline_list_lock (sync_debug.c) -> list_lock
 * A list_lock is innermost and is never held while anything is called
 * out; a point's release takes only its timeline's list_lock, and a
 * timeline's release only sync_timeline_list_lock, so dropping the last
 * reference to either is safe in any context, fence callbacks under any
 * timeline's lock included. The dump never takes a timeline lock.
 */

#include <linux/anon_inodes.h>
#include <linux/export.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <syncfw/sync.h>

#include "syncfw_internal.h"
#include "syncfw_trace.h"

static const struct dma_fence_ops sync_pt_fence_ops;

/* dma_fence_free() frees the point's memory through its fence. */
static_assert(offsetof(struct syncfw_pt, base) == 0);

static inline struct syncfw_pt *to_sync_pt(struct dma_fence *fence)
{
	return container_of(fence, struct syncfw_pt, base);
}

/*
 * The timeline's last reference is gone and its release has run: free it.
 * This is the pin file's release, so that the VFS, not this module, drops
 * the module reference the pin holds, after this has returned.
 */
static int sync_timeline_pin_release(struct inode *inode, struct file *file)
{
	struct syncfw_timeline *obj = file->private_data;

	/*
	 * After a grace period: a lockless reader that found one of the
	 * timeline's signalled points under RCU may still read its names
	 * (6.17's dma_fence does so without a reference).
	 */
	kfree_rcu(obj, rcu);
	return 0;
}

static const struct file_operations sync_timeline_pin_fops = {
	.owner = THIS_MODULE,
	.release = sync_timeline_pin_release,
};

/**
 * sync_timeline_create() - create a timeline
 * @ops:	its implementation, which must outlive the timeline
 * @size:	bytes to allocate, at least sizeof(struct syncfw_timeline);
 *		the implementation's struct embeds the timeline at its start
 * @name:	a name for dumps and SYNC_IOC_FILE_INFO (truncated to 31 chars)
 *
 * The timeline holds a reference on syncfw until it has been freed, so
 * the module cannot be unloaded under a fence that still needs its code.
 *
 * Context: process context; may sleep (allocates).
 *
 * Return: the timeline, or NULL if @size is too small, @ops has no
 * has_signaled or memory runs out.
 */
struct syncfw_timeline *sync_timeline_create(const struct sync_timeline_ops *ops,
					     int size, const char *name)
{
	struct syncfw_timeline *obj;

	if (size < (int)sizeof(*obj) || !ops || !ops->has_signaled)
		return NULL;

	obj = kzalloc(size, GFP_KERNEL);
	if (!obj)
		return NULL;

	obj->pin = anon_inode_getfile("[syncfw-timeline]",
				      &sync_timeline_pin_fops, obj, O_RDONLY);
	if (IS_ERR(obj->pin)) {
		kfree(obj);
		return NULL;
	}

	kref_init(&obj->kref);
	obj->ops = ops;
	strscpy(obj->name, name, sizeof(obj->name));
	obj->context = dma_fence_context_alloc(1);
	spin_lock_init(&obj->lock);
	spin_lock_init(&obj->list_lock);
	INIT_LIST_HEAD(&obj->active_list);
	obj->active_tree = RB_ROOT;
	INIT_LIST_HEAD(&obj->pt_list);

	sync_debug_add(obj);

	return obj;
}
EXPORT_SYMBOL_NS_GPL(sync_timeline_create, SYNCFW);

/*
 * The last point is gone and the creator has let go. Everything that
 * needs the implementation (its ops may be code of a module that goes away
 * once its last point has) happens now; only the memory and syncfw's own
 * module reference wait for the pin's release, which fput() defers to
 * process context. Callable from any context.
 */
static void sync_timeline_free(struct kref *kref)
{
	struct syncfw_timeline *obj = container_of(kref, struct syncfw_timeline,
						   kref);

	sync_debug_remove(obj);
	if (obj->ops->release_obj)
		obj->ops->release_obj(obj);
	fput(obj->pin);
}

static void sync_timeline_put(struct syncfw_timeline *obj)
{
	kref_put(&obj->kref, sync_timeline_free);
}

/* Call with the timeline's lock held: what the point's status is now. */
static int sync_pt_status_locked(struct syncfw_pt *pt)
{
	struct syncfw_timeline *obj = pt->parent;
	int status = obj->ops->has_signaled(pt);

	return !status && obj->destroyed ? -ENOENT : status;
}

/*
 * Call with the timeline's list_lock held: put a published point on the
 * active list, after the points with a lower or equal seqno on an ordered
 * timeline (found through the tree, so publishing is O(log n) whatever the
 * order of the seqnos), at the end on an unordered one.
 */
static void sync_pt_activate(struct syncfw_timeline *obj, struct syncfw_pt *pt)
{
	struct rb_node **link = &obj->active_tree.rb_node, *parent = NULL;
	struct rb_node *prev;

	if (obj->ops->unordered) {
		list_add_tail(&pt->active_link, &obj->active_list);
		return;
	}

	while (*link) {
		parent = *link;
		if (pt->base.seqno < rb_entry(parent, struct syncfw_pt,
					      active_node)->base.seqno)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&pt->active_node, parent, link);
	rb_insert_color(&pt->active_node, &obj->active_tree);

	prev = rb_prev(&pt->active_node);
	list_add(&pt->active_link,
		 prev ? &rb_entry(prev, struct syncfw_pt, active_node)->active_link :
			&obj->active_list);
}

/* Call with the timeline's list_lock held: take @pt off the active list. */
static void sync_pt_deactivate(struct syncfw_timeline *obj, struct syncfw_pt *pt)
{
	list_del_init(&pt->active_link);
	if (!RB_EMPTY_NODE(&pt->active_node)) {
		rb_erase(&pt->active_node, &obj->active_tree);
		RB_CLEAR_NODE(&pt->active_node);
	}
}

/*
 * Take every active point the implementation (or the timeline's
 * destruction) has settled off the active list and signal it. On an
 * ordered timeline the list is in seqno order and the walk stops at the
 * first point not reached, so a signal costs the points it signals, not
 * all that are pending, and they signal in seqno order, as dma_fence wants
 * of one context: every callback of a point has run before the next point
 * signals. Points signalled together carry one timestamp (the given one,
 * or the time now), so timestamps never decrease along the timeline.
 *
 * Each point is pinned while it is signalled: a fence callback may drop
 * what was its last reference. A point whose last reference is already
 * gone is skipped; nobody can see it, and its release is waiting for
 * list_lock.
 */
static void sync_timeline_signal_pts(struct syncfw_timeline *obj,
				     const ktime_t *timestamp)
{
	bool ordered = !obj->ops->unordered;
	struct syncfw_pt *pt, *next;
	LIST_HEAD(reached);
	ktime_t when;
	int status;

	lockdep_assert_held(&obj->lock);

	spin_lock(&obj->list_lock);
	list_for_each_entry_safe(pt, next, &obj->active_list, active_link) {
		/*
		 * Signalled by someone else (anyone holding a dma_fence may,
		 * the DRM core does with an out-fence whose event it sends):
		 * its status and timestamp stay as they are.
		 */
		if (test_bit(DMA_FENCE_FLAG_SIGNALED_BIT, &pt->base.flags)) {
			sync_pt_deactivate(obj, pt);
			continue;
		}
		status = sync_pt_status_locked(pt);
		if (!status) {
			if (ordered)
				break;
			continue;
		}
		if (!dma_fence_get_rcu(&pt->base))
			continue;
		if (status < 0)
			dma_fence_set_error(&pt->base, status);
		sync_pt_deactivate(obj, pt);
		list_add_tail(&pt->active_link, &reached);
	}
	spin_unlock(&obj->list_lock);

	if (list_empty(&reached))
		return;
	when = timestamp ? *timestamp : ktime_get();

	/* Only this function can reach the pinned points on its own list. */
	list_for_each_entry_safe(pt, next, &reached, active_link) {
		list_del_init(&pt->active_link);
		if (!dma_fence_signal_timestamp_locked(&pt->base, when))
			trace_syncfw_pt_signaled(pt);
		dma_fence_put(&pt->base);
	}
}

/**
 * sync_timeline_signal_locked() - signal the points that have been reached
 * @obj: the timeline, whose lock the caller holds
 *
 * Asks &sync_timeline_ops.has_signaled of the active points, from the
 * lowest seqno up to the first that has not been reached (of every one on
 * an unordered timeline), and signals those that have signalled or
 * failed, in that order, all stamped with the current time.
 * Call it in the critical section that advanced the timeline. Fence
 * callbacks run before it returns.
 *
 * Context: any, with @obj's lock held and interrupts off
 * (spin_lock_irqsave()): a point's release, which may run in hardirq
 * context, takes the timeline's list_lock, which this takes inside it.
 */
void sync_timeline_signal_locked(struct syncfw_timeline *obj)
{
	lockdep_assert_irqs_disabled();
	sync_timeline_signal_pts(obj, NULL);
}
EXPORT_SYMBOL_NS_GPL(sync_timeline_signal_locked, SYNCFW);

/**
 * sync_timeline_signal_timestamp_locked() - signal reached points at a time
 * @obj:	the timeline, whose lock the caller holds
 * @timestamp:	CLOCK_MONOTONIC time at which the points signalled, e.g. the
 *		vblank that latched a frame; not in the future
 *
 * Like sync_timeline_signal_locked(), but every point signalled now
 * records @timestamp, which SYNC_IOC_FILE_INFO reports as its
 * timestamp_ns. No lockless look signals a point, so when the timeline
 * is advanced in the same critical section every point it reached carries
 * @timestamp, whoever looks at it meanwhile (seed 001). A point somebody
 * else signalled (dma_fence_signal()) keeps its own status and timestamp.
 *
 * Context: any, with @obj's lock held and interrupts off, as
 * sync_timeline_signal_locked().
 */
void sync_timeline_signal_timestamp_locked(struct syncfw_timeline *obj,
					   ktime_t timestamp)
{
	lockdep_assert_irqs_disabled();
	sync_timeline_signal_pts(obj, &timestamp);
}
EXPORT_SYMBOL_NS_GPL(sync_timeline_signal_timestamp_locked, SYNCFW);

/**
 * sync_timeline_signal() - signal the points that have been reached
 * @obj: the timeline
 *
 * sync_timeline_signal_locked() in a critical section of its own: for
 * implementations whose has_signaled reads state that only ever moves
 * forward (a settled status, say), so that signalling later is harmless.
 * Safe from any context.
 */
void sync_timeline_signal(struct syncfw_timeline *obj)
{
	unsigned long flags;

	spin_lock_irqsave(&obj->lock, flags);
	sync_timeline_signal_pts(obj, NULL);
	spin_unlock_irqrestore(&obj->lock, flags);
}
EXPORT_SYMBOL_NS_GPL(sync_timeline_signal, SYNCFW);

/**
 * sync_timeline_signal_timestamp() - signal reached points at a given time
 * @obj:	the timeline
 * @timestamp:	CLOCK_MONOTONIC time at which the points signalled
 *
 * sync_timeline_signal_timestamp_locked() in a critical section of its
 * own. Safe from any context.
 */
void sync_timeline_signal_timestamp(struct syncfw_timeline *obj,
				    ktime_t timestamp)
{
	unsigned long flags;

	spin_lock_irqsave(&obj->lock, flags);
	sync_timeline_signal_pts(obj, &timestamp);
	spin_unlock_irqrestore(&obj->lock, flags);
}
EXPORT_SYMBOL_NS_GPL(sync_timeline_signal_timestamp, SYNCFW);

/**
 * sync_timeline_destroy() - the creator's last word on a timeline
 * @obj: the timeline
 *
 * Every point that has not signalled yet signals now with -ENOENT, and
 * the creator's reference is dropped. The timeline itself is freed (after
 * &sync_timeline_ops.release_obj) once its last point is gone.
 */
void sync_timeline_destroy(struct syncfw_timeline *obj)
{
	unsigned long flags;

	spin_lock_irqsave(&obj->lock, flags);
	WRITE_ONCE(obj->destroyed, true);
	sync_timeline_signal_pts(obj, NULL);
	spin_unlock_irqrestore(&obj->lock, flags);

	sync_timeline_put(obj);
}
EXPORT_SYMBOL_NS_GPL(sync_timeline_destroy, SYNCFW);

/**
 * sync_pt_create() - create a point on a timeline
 * @parent:	the timeline
 * @size:	bytes to allocate, at least sizeof(struct syncfw_pt); the
 *		implementation's struct embeds the point at its start
 * @seqno:	the point's position on @parent; later points have larger
 *		seqnos. On an unordered timeline (&sync_timeline_ops.unordered)
 *		only the point's name: the point has a fence context of its own
 *
 * The point is not on its timeline yet: fill in the implementation's
 * fields, then publish it with sync_pt_publish() or by giving it to
 * sync_fence_create(). Until then no op of @parent runs for it and no
 * dump shows it. It belongs to the caller until it is given to
 * sync_fence_create() or sync_pt_free(), and holds a reference on
 * &sync_timeline_ops.owner while it exists.
 *
 * Only the timeline's creator may call this, before sync_timeline_destroy():
 * after it the creator holds no reference, and the timeline is freed once
 * its last point is. While other points still keep a destroyed timeline
 * alive, a call fails (NULL) instead of adding a point to it.
 *
 * Context: process context; may sleep (allocates).
 *
 * Return: the point, or NULL on a bad @size, when memory runs out, when
 * @parent has been destroyed or when the owner module is going away.
 */
struct syncfw_pt *sync_pt_create(struct syncfw_timeline *parent, int size,
				 u64 seqno)
{
	unsigned long flags;
	struct syncfw_pt *pt;
	bool destroyed;

	if (size < (int)sizeof(*pt))
		return NULL;

	pt = kzalloc(size, GFP_KERNEL);
	if (!pt)
		return NULL;
	if (!try_module_get(parent->ops->owner)) {
		kfree(pt);
		return NULL;
	}

	/* Under the lock that orders this against sync_timeline_destroy(). */
	spin_lock_irqsave(&parent->lock, flags);
	destroyed = parent->destroyed;
	if (!destroyed)
		kref_get(&parent->kref);
	spin_unlock_irqrestore(&parent->lock, flags);
	if (destroyed) {
		module_put(parent->ops->owner);
		kfree(pt);
		return NULL;
	}

	pt->parent = parent;
	INIT_LIST_HEAD(&pt->active_link);
	RB_CLEAR_NODE(&pt->active_node);
	INIT_LIST_HEAD(&pt->pt_link);
	atomic64_set(&pt->deadline_ns, KTIME_MAX);
	dma_fence_init(&pt->base, &sync_pt_fence_ops, &parent->lock,
		       parent->ops->unordered ? dma_fence_context_alloc(1) :
						parent->context,
		       seqno);

	return pt;
}
EXPORT_SYMBOL_NS_GPL(sync_pt_create, SYNCFW);

/**
 * sync_pt_publish() - put a point on its timeline
 * @pt: a point from sync_pt_create(), filled in
 *
 * From now on the timeline signals the point when it reaches it. A point
 * the timeline has already reached (or failed, or that was destroyed)
 * signals here, under the timeline's lock, stamped with the current
 * time. Publish a point before anybody else can see its fence.
 */
void sync_pt_publish(struct syncfw_pt *pt)
{
	struct syncfw_timeline *obj = pt->parent;
	unsigned long flags;
	bool foreign;
	int status;

	if (WARN_ON(sync_pt_published(pt)))
		return;

	spin_lock_irqsave(&obj->lock, flags);
	/* A point somebody signalled already is listed, and left alone. */
	foreign = test_bit(DMA_FENCE_FLAG_SIGNALED_BIT, &pt->base.flags);
	status = foreign ? 0 : sync_pt_status_locked(pt);

	spin_lock(&obj->list_lock);
	list_add_tail(&pt->pt_link, &obj->pt_list);
	if (!status && !foreign)
		sync_pt_activate(obj, pt);
	spin_unlock(&obj->list_lock);

	if (status < 0)
		dma_fence_set_error(&pt->base, status);
	if (status && !dma_fence_signal_locked(&pt->base))
		trace_syncfw_pt_signaled(pt);
	spin_unlock_irqrestore(&obj->lock, flags);
}
EXPORT_SYMBOL_NS_GPL(sync_pt_publish, SYNCFW);

/**
 * sync_pt_free() - drop a point that was never given to a fence
 * @pt: the point, published or not
 */
void sync_pt_free(struct syncfw_pt *pt)
{
	dma_fence_put(&pt->base);
}
EXPORT_SYMBOL_NS_GPL(sync_pt_free, SYNCFW);

static const char *sync_pt_get_driver_name(struct dma_fence *fence)
{
	return to_sync_pt(fence)->parent->ops->driver_name;
}

static const char *sync_pt_get_timeline_name(struct dma_fence *fence)
{
	return to_sync_pt(fence)->parent->name;
}

static void sync_pt_release(struct dma_fence *fence)
{
	struct syncfw_pt *pt = to_sync_pt(fence);
	struct syncfw_timeline *parent = pt->parent;
	struct module *owner = parent->ops->owner;
	unsigned long flags;

	spin_lock_irqsave(&parent->list_lock, flags);
	if (sync_pt_published(pt))
		list_del(&pt->pt_link);
	if (!list_empty(&pt->active_link))
		sync_pt_deactivate(parent, pt);
	spin_unlock_irqrestore(&parent->list_lock, flags);

	if (parent->ops->free_pt)
		parent->ops->free_pt(pt);
	dma_fence_free(fence);
	/* The timeline's release may call the owner: keep it until then. */
	sync_timeline_put(parent);
	module_put(owner);
}

static void sync_pt_fence_value_str(struct dma_fence *fence, char *str,
				    int size)
{
	sync_pt_value_str(to_sync_pt(fence), str, size);
}

static void sync_pt_timeline_value_str(struct dma_fence *fence, char *str,
				       int size)
{
	sync_timeline_value_str(to_sync_pt(fence)->parent, str, size);
}

#if SYNCFW_HAVE_FENCE_DEADLINE
/*
 * A waiter needs the point signalled by @deadline: the atomic helpers the
 * start of the vblank a commit must make, SYNC_IOC_SET_DEADLINE whatever
 * userspace says. Only a hint, and no timeline of syncfw's can make its
 * points signal sooner, so the earliest one is kept for whoever wants to
 * see it: the dump, the trace and sw_sync's SW_SYNC_GET_DEADLINE.
 */
static void sync_pt_set_deadline(struct dma_fence *fence, ktime_t deadline)
{
	struct syncfw_pt *pt = to_sync_pt(fence);
	unsigned long flags;
	bool earliest;

	spin_lock_irqsave(fence->lock, flags);
	earliest = deadline < atomic64_read(&pt->deadline_ns);
	if (earliest)
		atomic64_set(&pt->deadline_ns, deadline);
	spin_unlock_irqrestore(fence->lock, flags);
	trace_syncfw_pt_deadline(pt, deadline, earliest);
}
#endif

/*
 * No .signaled op: the timeline signals its points, under its lock and
 * with the timestamp it was given. A lockless dma_fence_is_signaled()
 * (poll, SYNC_IOC_FILE_INFO, a zero timeout wait) reads the signalled bit
 * and never stamps a point with the time it happened to look. No
 * .enable_signaling either: every published point is already on its
 * timeline's active list.
 */
static const struct dma_fence_ops sync_pt_fence_ops = {
	.use_64bit_seqno = true,
	.get_driver_name = sync_pt_get_driver_name,
	.get_timeline_name = sync_pt_get_timeline_name,
	.release = sync_pt_release,
	.fence_value_str = sync_pt_fence_value_str,
	.timeline_value_str = sync_pt_timeline_value_str,
#if SYNCFW_HAVE_FENCE_DEADLINE
	.set_deadline = sync_pt_set_deadline,
#endif
};

struct syncfw_pt *sync_pt_of(struct dma_fence *fence)
{
	return fence->ops == &sync_pt_fence_ops ? to_sync_pt(fence) : NULL;
}

/* The value strings every dump uses (seed 009), seqnos without the ops. */
void sync_timeline_value_str(struct syncfw_timeline *obj, char *str, int size)
{
	if (obj->ops->timeline_value_str)
		obj->ops->timeline_value_str(obj, str, size);
	else
		snprintf(str, size, "?");
}

void sync_pt_value_str(struct syncfw_pt *pt, char *str, int size)
{
	if (pt->parent->ops->pt_value_str)
		pt->parent->ops->pt_value_str(pt, str, size);
	else
		snprintf(str, size, "%llu", pt->base.seqno);
}
