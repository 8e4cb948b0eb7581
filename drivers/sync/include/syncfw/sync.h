/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syncfw: the Android sync framework, rebuilt on dma_fence.
 *
 * A driver describes a hardware (or software) timeline with a
 * struct syncfw_timeline and its ops. Each point on it, a struct syncfw_pt,
 * is a dma_fence on the timeline's fence context whose seqno is its
 * position on the timeline. (The structs carry a syncfw_ prefix because
 * drivers/dma-buf/sync_debug.h already names mainline sw_sync's.) A
 * struct sync_fence is a handle on a sync_file holding one point, or a
 * dma_fence_array of points from several timelines after a merge.
 * Installed in an fd it is an ordinary sync_file: poll(), SYNC_IOC_MERGE,
 * SYNC_IOC_FILE_INFO and DRM's IN_FENCE_FD all work on it.
 *
 * Documentation/sync.rst describes the object model and its lifetimes.
 * Every function is exported in the SYNCFW symbol namespace: a module
 * that uses them says MODULE_IMPORT_NS(SYNCFW).
 */

#ifndef _SYNCFW_SYNC_H
#define _SYNCFW_SYNC_H

#include <linux/atomic.h>
#include <linux/dma-fence.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct sync_file;
struct syncfw_pt;
struct syncfw_timeline;

/**
 * struct sync_timeline_ops - what a timeline implementation provides
 * @owner:		the module implementing the ops (THIS_MODULE); every
 *			point pins it, since its ops may run as long as the
 *			point is referenced
 * @driver_name:	name of the implementation, reported as the fence's
 *			driver name
 * @has_signaled:	returns 1 if @pt has signalled, 0 if it has not, or a
 *			negative errno if it failed. Called with the
 *			timeline's lock held, only for published points, so
 *			it sees every field the creator filled in; it must
 *			only read state. A status it reports once must not
 *			change. Unless @unordered, a point it reports settled
 *			implies that every point with a lower seqno is: a
 *			signal asks it from the lowest seqno up and stops at
 *			the first point not reached
 * @free_pt:		optional, called before a point's memory is freed,
 *			from the release of its last reference: in any
 *			context, hardirq and fence callbacks under another
 *			(or the same) timeline's lock included. It must not
 *			sleep nor take any timeline's lock
 * @release_obj:	optional, called before the timeline's memory is
 *			freed, once its creator has destroyed it and its last
 *			point is gone: in the same contexts as @free_pt, with
 *			the same rules
 * @timeline_value_str:	optional, writes the timeline's current value into
 *			@str for the debugfs dump and dma_fence's debug ops.
 *			Runs without the timeline's lock, with syncfw's list
 *			of timelines locked (interrupts off): it must not
 *			take the timeline's lock (that would invert the lock
 *			order) nor sleep, and reads the value with READ_ONCE()
 * @pt_value_str:	optional, writes the value of @pt into @str; runs only
 *			for published points, under the timeline's list_lock
 *			(interrupts off), with the same rules
 * @unordered:		the points settle in no particular order (each has a
 *			status of its own, not a position on the timeline), so
 *			each gets a dma_fence context of its own; seqnos then
 *			only name points in the dumps
 *
 * Points are ordered by the seqnos given to sync_pt_create(): dma_fence,
 * SYNC_IOC_MERGE and DRM all compare them, so a timeline has no other
 * order. dma_fence requires the fences of one context to signal in that
 * order; a timeline whose points cannot must be @unordered. Without the
 * value_str ops the dumps print seqnos.
 */
struct sync_timeline_ops {
	struct module *owner;
	const char *driver_name;
	int (*has_signaled)(struct syncfw_pt *pt);
	void (*free_pt)(struct syncfw_pt *pt);
	void (*release_obj)(struct syncfw_timeline *obj);
	void (*timeline_value_str)(struct syncfw_timeline *obj, char *str,
				   int size);
	void (*pt_value_str)(struct syncfw_pt *pt, char *str, int size);
	bool unordered;
};

/**
 * struct syncfw_timeline - a sequence of points that signal in order
 * @kref:		held by the creator until sync_timeline_destroy() and
 *			by every point
 * @ops:		the implementation
 * @name:		for dumps and SYNC_IOC_FILE_INFO's obj_name
 * @context:		the dma_fence context shared by all points, unless
 *			&sync_timeline_ops.unordered
 * @lock:		the dma_fence lock of every point, taken with
 *			interrupts off (spin_lock_irqsave()). Protects
 *			@destroyed and whatever &sync_timeline_ops.has_signaled
 *			reads: change that state only under @lock, and signal
 *			in the same critical section
 *			(sync_timeline_signal_locked()), so that no point is
 *			ever seen reached but unsignalled
 * @destroyed:		set by sync_timeline_destroy(); points still active
 *			then signal with -ENOENT
 * @list_lock:		protects @active_list, @active_tree and @pt_list;
 *			taken inside @lock, and alone by a point's release, so
 *			releasing a point never needs @lock
 * @active_list:	published points not yet signalled: in seqno order
 *			(publication order among equal seqnos), so that a
 *			signal stops at the first point not reached; in
 *			publication order on an unordered timeline
 * @active_tree:	the same points by seqno, to find a new point's place
 *			in @active_list; empty on an unordered timeline
 * @pt_list:		every published point alive, for the debugfs dump
 * @timeline_list:	membership in syncfw's list of timelines
 * @pin:		a file whose f_op->owner is syncfw; the timeline's
 *			release puts it, its file release frees the memory,
 *			and the VFS then drops that module reference
 *			(Documentation/sync.rst, Lifetimes, says what this
 *			does and does not cover)
 * @rcu:		frees the memory after a grace period
 *
 * Implementations embed this at the start of their own timeline struct.
 */
struct syncfw_timeline {
	struct kref kref;
	const struct sync_timeline_ops *ops;
	char name[32];
	u64 context;

	spinlock_t lock; /* see @lock above */
	bool destroyed;

	spinlock_t list_lock; /* see @list_lock above */
	struct list_head active_list;
	struct rb_root active_tree;
	struct list_head pt_list;

	struct list_head timeline_list;
	struct file *pin;
	struct rcu_head rcu;
};

/**
 * struct syncfw_pt - one point on a timeline
 * @base:		the dma_fence; its seqno is the point's position and
 *			its timestamp the time its status changed
 * @parent:		the timeline; the point holds a reference on it
 * @active_link:	membership in &syncfw_timeline.active_list while the
 *			point is published and has not signalled
 * @active_node:	membership in &syncfw_timeline.active_tree at the same
 *			time, on an ordered timeline
 * @pt_link:		membership in &syncfw_timeline.pt_list once published
 * @name:		the name sync_fence_create() gave the point's fence,
 *			for the dump; empty for points that are not a fence
 *			of their own
 * @deadline_ns:	the earliest deadline a waiter set on the point's
 *			fence (dma_fence_set_deadline(), kernels from 6.4),
 *			CLOCK_MONOTONIC ns; KTIME_MAX while none was. Written
 *			under the timeline's lock, read without it.
 *
 * Implementations embed this at the start of their own point struct.
 * A point lives as long as references to its dma_fence do.
 */
struct syncfw_pt {
	struct dma_fence base;
	struct syncfw_timeline *parent;
	struct list_head active_link;
	struct rb_node active_node;
	struct list_head pt_link;
	char name[32];
	atomic64_t deadline_ns;
};

/**
 * struct sync_fence - a handle on a sync_file made of sync points
 * @fence:	the sync_file's fence: one point or a dma_fence_array of
 *		points (a reference)
 * @sync_file:	the sync_file whose file reference the handle owns; NULL
 *		for a handle taken from an fd with sync_fence_fdget()
 */
struct sync_fence {
	struct dma_fence *fence;
	struct sync_file *sync_file;
};

struct sync_fence_waiter;

/**
 * typedef sync_callback_t - callback of an asynchronous wait
 * @fence:	the fence given to sync_fence_wait_async()
 * @waiter:	the waiter given to sync_fence_wait_async()
 *
 * Runs once, in atomic context, with the lock of the signalling fence
 * held (for a syncfw point, its timeline's lock): it must not signal that
 * timeline, and should leave signalling any other timeline to an irq_work
 * or work item, as dma_fence_array does, rather than nest timeline locks.
 * It may drop references, the last ones included.
 */
typedef void (*sync_callback_t)(struct sync_fence *fence,
				struct sync_fence_waiter *waiter);

/**
 * struct sync_fence_waiter - an asynchronous wait, allocated by the caller
 * @cb:		the dma_fence callback it queues
 * @callback:	called when the fence signals
 * @fence:	the fence waited on, while queued
 */
struct sync_fence_waiter {
	struct dma_fence_cb cb;
	sync_callback_t callback;
	struct sync_fence *fence;
};

/**
 * sync_fence_waiter_init() - prepare a waiter for sync_fence_wait_async()
 * @waiter:	the waiter
 * @callback:	what to call when the fence signals
 *
 * A waiter that was initialised but never queued can be cancelled safely:
 * sync_fence_cancel_async() then returns -ENOENT.
 */
static inline void sync_fence_waiter_init(struct sync_fence_waiter *waiter,
					  sync_callback_t callback)
{
	INIT_LIST_HEAD(&waiter->cb.node);
	waiter->callback = callback;
	waiter->fence = NULL;
}

/* API for timeline implementations */

struct syncfw_timeline *sync_timeline_create(const struct sync_timeline_ops *ops,
					     int size, const char *name);
void sync_timeline_destroy(struct syncfw_timeline *obj);
void sync_timeline_signal(struct syncfw_timeline *obj);
void sync_timeline_signal_timestamp(struct syncfw_timeline *obj,
				    ktime_t timestamp);
void sync_timeline_signal_locked(struct syncfw_timeline *obj);
void sync_timeline_signal_timestamp_locked(struct syncfw_timeline *obj,
					   ktime_t timestamp);

struct syncfw_pt *sync_pt_create(struct syncfw_timeline *parent, int size,
				 u64 seqno);
void sync_pt_publish(struct syncfw_pt *pt);
void sync_pt_free(struct syncfw_pt *pt);

/* API for fence users */

struct sync_fence *sync_fence_create(const char *name, struct syncfw_pt *pt);
struct sync_fence *sync_fence_fdget(int fd);
void sync_fence_put(struct sync_fence *fence);
void sync_fence_install(struct sync_fence *fence, int fd);
struct sync_fence *sync_fence_merge(const char *name, struct sync_fence *a,
				    struct sync_fence *b);
int sync_fence_wait(struct sync_fence *fence, long timeout);
int sync_fence_wait_async(struct sync_fence *fence,
			  struct sync_fence_waiter *waiter);
int sync_fence_cancel_async(struct sync_fence *fence,
			    struct sync_fence_waiter *waiter);

#endif /* _SYNCFW_SYNC_H */
