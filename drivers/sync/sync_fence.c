// SPDX-License-Identifier: GPL-2.0
/*
 * Fences: handles on sync_files made of sync points. The sync_file is the
 * fence userspace sees. The functions here are the 2013 framework's fence
 * API (seed 003), for drivers that wait on, merge or hand out fences in
 * the kernel.
 */

#include <linux/dma-fence-array.h>
#include <linux/dma-fence-unwrap.h>
#include <linux/export.h>
#include <linux/file.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/ratelimit.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sync_file.h>

#include <syncfw/sync.h>

#include "syncfw_internal.h"

/*
 * A handle on a new sync_file for @fence, named @name for
 * SYNC_IOC_FILE_INFO; the handle takes over the caller's reference.
 */
static struct sync_fence *sync_fence_alloc(const char *name,
					   struct dma_fence *fence)
{
	struct sync_file *sync_file;
	struct sync_fence *handle;

	handle = kzalloc(sizeof(*handle), GFP_KERNEL);
	if (!handle)
		return NULL;

	sync_file = sync_file_create(fence);
	if (!sync_file) {
		kfree(handle);
		return NULL;
	}
	strscpy(sync_file->user_name, name, sizeof(sync_file->user_name));
	handle->fence = fence;
	handle->sync_file = sync_file;

	return handle;
}

/**
 * sync_fence_create() - make a fence of one point
 * @name:	the fence's name, as SYNC_IOC_FILE_INFO and the dump report it
 * @pt:		an unpublished point; the fence takes it over on success
 *
 * Publishes @pt (sync_pt_publish()): a point its timeline has already
 * reached signals right away.
 *
 * Context: process context; may sleep (allocates).
 *
 * Return: the fence, or NULL when memory runs out or @pt was published
 * already (@pt stays the caller's).
 */
struct sync_fence *sync_fence_create(const char *name, struct syncfw_pt *pt)
{
	struct sync_fence *fence;

	if (WARN_ON(sync_pt_published(pt)))
		return NULL;

	fence = sync_fence_alloc(name, &pt->base);
	if (!fence)
		return NULL;

	strscpy(pt->name, name, sizeof(pt->name));
	sync_pt_publish(pt);

	return fence;
}
EXPORT_SYMBOL_NS_GPL(sync_fence_create, SYNCFW);

/**
 * sync_fence_fdget() - take a fence from a sync_file fd
 * @fd: any sync_file, made by syncfw or not (DRM's out-fences, for one)
 *
 * Context: process context; may sleep (allocates).
 *
 * Return: a new handle that the caller releases with sync_fence_put(), or
 * NULL if @fd is not a sync_file or memory runs out.
 */
struct sync_fence *sync_fence_fdget(int fd)
{
	struct sync_fence *handle;
	struct dma_fence *fence;

	fence = sync_file_get_fence(fd);
	if (!fence)
		return NULL;

	handle = kzalloc(sizeof(*handle), GFP_KERNEL);
	if (!handle) {
		dma_fence_put(fence);
		return NULL;
	}
	handle->fence = fence;

	return handle;
}
EXPORT_SYMBOL_NS_GPL(sync_fence_fdget, SYNCFW);

/**
 * sync_fence_put() - release a fence handle
 * @fence: the handle; it is freed
 *
 * The fence itself lives on while fds or other users hold it.
 */
void sync_fence_put(struct sync_fence *fence)
{
	if (fence->sync_file)
		fput(fence->sync_file->file);
	dma_fence_put(fence->fence);
	kfree(fence);
}
EXPORT_SYMBOL_NS_GPL(sync_fence_put, SYNCFW);

/**
 * sync_fence_install() - hand a fence to userspace
 * @fence:	a handle from sync_fence_create() or sync_fence_merge();
 *		consumed
 * @fd:		an fd from get_unused_fd_flags()
 *
 * Cannot fail: do everything that can (copy_to_user() of @fd, say)
 * before, while the handle and @fd can still be put back. A handle from
 * sync_fence_fdget() has no file of its own to install: that is a bug in
 * the caller, which WARNs, and both @fence and @fd are still released.
 */
void sync_fence_install(struct sync_fence *fence, int fd)
{
	if (WARN_ON(!fence->sync_file)) {
		put_unused_fd(fd);
		sync_fence_put(fence);
		return;
	}
	fd_install(fd, fence->sync_file->file);
	dma_fence_put(fence->fence);
	kfree(fence);
}
EXPORT_SYMBOL_NS_GPL(sync_fence_install, SYNCFW);

/* Add the points of @fence to @pts, keeping only the latest per timeline. */
static void sync_fence_collect(struct dma_fence **pts, unsigned int *num,
			       struct dma_fence *fence)
{
	struct dma_fence_unwrap iter;
	struct dma_fence *f;
	unsigned int i;

	dma_fence_unwrap_for_each(f, &iter, fence) {
		for (i = 0; i < *num; i++) {
			if (pts[i]->context != f->context)
				continue;
			if (dma_fence_is_later(f, pts[i])) {
				dma_fence_put(pts[i]);
				pts[i] = dma_fence_get(f);
			}
			break;
		}
		if (i == *num)
			pts[(*num)++] = dma_fence_get(f);
	}
}

static unsigned int sync_fence_count(struct dma_fence *fence)
{
	struct dma_fence_unwrap iter;
	struct dma_fence *f;
	unsigned int num = 0;

	dma_fence_unwrap_for_each(f, &iter, fence)
		num++;

	return num;
}

/**
 * sync_fence_merge() - make a fence that signals when two others have
 * @name:	the new fence's name
 * @a:		a fence
 * @b:		another fence, or @a again
 *
 * The new fence holds the points of both; of two points on one timeline
 * only the later (by seqno) is kept (seed 005), so merging fences that
 * span k timelines yields k points, whatever the order of @a and @b. The
 * point list is complete before the fence can be seen or signalled (seed
 * 010). @a and @b are not changed.
 *
 * Unlike dma_fence_unwrap_merge(), which SYNC_IOC_MERGE uses, points that
 * have signalled are kept, as in 2013: the merged fence reports their
 * errors and the dump their timestamps. Signalling is enabled on the
 * merged fence at once, so it signals, with the error of a point that
 * failed, as soon as its last point has, whoever looks.
 *
 * Context: process context; may sleep (allocates).
 *
 * Return: the new fence, or NULL when memory runs out.
 */
struct sync_fence *sync_fence_merge(const char *name, struct sync_fence *a,
				    struct sync_fence *b)
{
	struct dma_fence_array *array;
	struct dma_fence **pts, *merged;
	struct sync_fence *fence;
	unsigned int num = 0;

	pts = kcalloc(sync_fence_count(a->fence) + sync_fence_count(b->fence),
		      sizeof(*pts), GFP_KERNEL);
	if (!pts)
		return NULL;

	sync_fence_collect(pts, &num, a->fence);
	sync_fence_collect(pts, &num, b->fence);

	if (num == 1) {
		merged = pts[0];
		kfree(pts);
	} else {
		array = dma_fence_array_create(num, pts,
					       dma_fence_context_alloc(1), 1,
					       false);
		if (!array)
			goto err_put_pts;
		merged = &array->base;
		/*
		 * Activate the points now, as 2013 did: the array's callbacks
		 * record a failed point's error as it fails, so the merged
		 * fence reports it to a check (sync_fence_wait(..., 0),
		 * FILE_INFO) without relying on the core's lockless scan of
		 * the array, which lost it on a 6.1 kernel without patch 0002.
		 */
		dma_fence_enable_sw_signaling(merged);
	}

	fence = sync_fence_alloc(name, merged);
	if (!fence)
		dma_fence_put(merged);

	return fence;

err_put_pts:
	while (num--)
		dma_fence_put(pts[num]);
	kfree(pts);
	return NULL;
}
EXPORT_SYMBOL_NS_GPL(sync_fence_merge, SYNCFW);

/*
 * msecs_to_jiffies() takes an unsigned int, and turns UINT_MAX ms into an
 * unbounded wait: clamp a positive timeout there, never truncate it (2^32
 * ms once meant 0 ms). The clamp must be unsigned: as a long, UINT_MAX is
 * -1 on 32-bit, where a clamp of type long made every wait unbounded. The
 * BUILD_BUG_ON()s in sync_fence_wait() catch that in scripts/lint's i386
 * compile.
 */
static inline unsigned int sync_wait_ms(long timeout)
{
	return min_t(unsigned long, timeout, UINT_MAX);
}

static void sync_fence_dump(struct sync_fence *fence, long timeout)
{
	static DEFINE_RATELIMIT_STATE(dumps, 5 * HZ, 10);
	char value[32], reached[32];
	struct dma_fence_unwrap iter;
	struct dma_fence *f;

	/* One dump is many lines: print whole ones, or none. */
	if (!__ratelimit(&dumps))
		return;
	pr_info("syncfw: wait timed out after %ld ms on fence %s\n", timeout,
		fence->sync_file ? fence->sync_file->user_name : "(from fd)");
	dma_fence_unwrap_for_each(f, &iter, fence->fence) {
		value[0] = '\0';
		reached[0] = '\0';
		if (f->ops->fence_value_str)
			f->ops->fence_value_str(f, value, sizeof(value));
		if (f->ops->timeline_value_str)
			f->ops->timeline_value_str(f, reached, sizeof(reached));
		pr_info("syncfw:   %s %s point %s (timeline at %s): %d\n",
			f->ops->get_driver_name(f), f->ops->get_timeline_name(f),
			value, reached, dma_fence_get_status(f));
	}
}

/**
 * sync_fence_wait() - wait for a fence to signal
 * @fence:	the fence
 * @timeout:	in milliseconds: 0 only checks, a negative value waits for
 *		as long as it takes
 *
 * The wait sees the final status whatever the timing of the signaller:
 * dma_fence_wait_timeout() sleeps with set_current_state() before it tests
 * the signalled bit, which pairs with the signaller's atomic
 * test_and_set_bit() before its wake-up (seeds 007, 008). A wait that
 * times out after a positive @timeout logs the fence's points (rate
 * limited); a check (@timeout 0) logs nothing (seed 011). Timeouts too
 * long for jiffies wait as long as it takes.
 *
 * Context: process context, and may sleep, unless @timeout is 0: a check
 * never sleeps and is allowed in atomic context.
 *
 * Return: 0 once signalled, the fence's error if it failed, -ETIME if it
 * had not signalled in time, or -ERESTARTSYS if a signal interrupted.
 */
int sync_fence_wait(struct sync_fence *fence, long timeout)
{
	long wait, ret;
	int status;

	BUILD_BUG_ON(sync_wait_ms(1) != 1);
	BUILD_BUG_ON(sync_wait_ms(LONG_MAX) < INT_MAX);

	if (timeout) {
		might_sleep();
		wait = timeout < 0 ? MAX_SCHEDULE_TIMEOUT :
			  msecs_to_jiffies(sync_wait_ms(timeout));
		ret = dma_fence_wait_timeout(fence->fence, true, wait);
		if (ret < 0)
			return ret;
		if (!ret && timeout > 0 && !dma_fence_is_signaled(fence->fence)) {
			sync_fence_dump(fence, timeout);
			return -ETIME;
		}
	}

	status = dma_fence_get_status(fence->fence);
	if (!status)
		return -ETIME;

	return status < 0 ? status : 0;
}
EXPORT_SYMBOL_NS_GPL(sync_fence_wait, SYNCFW);

static void sync_fence_waiter_func(struct dma_fence *f, struct dma_fence_cb *cb)
{
	struct sync_fence_waiter *waiter =
		container_of(cb, struct sync_fence_waiter, cb);

	waiter->callback(waiter->fence, waiter);
}

/**
 * sync_fence_wait_async() - call back when a fence signals
 * @fence:	the fence; keep the handle until the callback has run or the
 *		wait was cancelled
 * @waiter:	initialised with sync_fence_waiter_init(), queued on at most
 *		one fence at a time
 *
 * The callback runs exactly once, when @fence signals or fails, unless
 * sync_fence_cancel_async() removes the waiter first (seed 002).
 *
 * Context: any; the callback runs in the signaller's context
 * (&typedef sync_callback_t).
 *
 * Return: 0 if the waiter is queued; if @fence has already signalled the
 * callback is not called, and it returns 1, or the fence's error if it
 * failed (as 2013's returned the fence's status).
 */
int sync_fence_wait_async(struct sync_fence *fence,
			  struct sync_fence_waiter *waiter)
{
	waiter->fence = fence;
	if (!dma_fence_add_callback(fence->fence, &waiter->cb,
				    sync_fence_waiter_func))
		return 0;

	waiter->fence = NULL;
	return dma_fence_get_status(fence->fence);
}
EXPORT_SYMBOL_NS_GPL(sync_fence_wait_async, SYNCFW);

/**
 * sync_fence_cancel_async() - cancel an asynchronous wait
 * @fence:	the fence given to sync_fence_wait_async()
 * @waiter:	the waiter
 *
 * The fence's lock orders this against the signaller: either the waiter
 * is removed and its callback will never run, or the callback has already
 * returned. @fence must be the handle given to sync_fence_wait_async(),
 * not another handle on the same dma_fence (that is -EINVAL too).
 *
 * Context: any.
 *
 * Return: 0 if the waiter was removed, -ENOENT if its callback already ran
 * or it was never queued, or -EINVAL if it was queued on another handle
 * (whose fence's lock guards it: nothing is touched).
 */
int sync_fence_cancel_async(struct sync_fence *fence,
			    struct sync_fence_waiter *waiter)
{
	if (!waiter->fence)
		return -ENOENT;
	if (waiter->fence != fence)
		return -EINVAL;

	return dma_fence_remove_callback(fence->fence, &waiter->cb) ? 0 : -ENOENT;
}
EXPORT_SYMBOL_NS_GPL(sync_fence_cancel_async, SYNCFW);
