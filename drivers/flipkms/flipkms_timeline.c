// SPDX-License-Identifier: GPL-2.0+
/*
 * The glue to the sync framework: each CRTC's completed flips are a syncfw
 * timeline whose value is the number of the latest commit on screen, and
 * each out-fence is the point of one commit on it.
 */

#include <linux/module.h>
#include <linux/slab.h>

#include <syncfw/sync.h>

#include "flipkms_drv.h"
#include "flipkms_trace.h"

/**
 * struct flipkms_timeline - a CRTC's timeline of completed flips
 * @obj:	the sync timeline
 * @value:	the latest commit latched; written under @obj.lock, read
 *		locklessly by flipkms_timeline_value() and the dump
 * @fail_seqno:	a commit whose fence fails (fault injection), or 0
 * @fail_error:	the errno it fails with
 */
struct flipkms_timeline {
	struct syncfw_timeline obj;
	u64 value;
	u64 fail_seqno;
	int fail_error;
};

static inline struct flipkms_timeline *to_flipkms_timeline(struct syncfw_timeline *obj)
{
	return container_of(obj, struct flipkms_timeline, obj);
}

static int flipkms_pt_has_signaled(struct syncfw_pt *pt)
{
	struct flipkms_timeline *tl = to_flipkms_timeline(pt->parent);

	if (tl->value < pt->base.seqno)
		return 0;
	if (pt->base.seqno == tl->fail_seqno)
		return tl->fail_error;
	return 1;
}

static void flipkms_timeline_value_str(struct syncfw_timeline *obj, char *str,
				       int size)
{
	snprintf(str, size, "flip %llu", READ_ONCE(to_flipkms_timeline(obj)->value));
}

static void flipkms_pt_value_str(struct syncfw_pt *pt, char *str, int size)
{
	snprintf(str, size, "flip %llu", pt->base.seqno);
}

static const struct sync_timeline_ops flipkms_timeline_ops = {
	.owner = THIS_MODULE,
	.driver_name = "flipkms",
	.has_signaled = flipkms_pt_has_signaled,
	.timeline_value_str = flipkms_timeline_value_str,
	.pt_value_str = flipkms_pt_value_str,
};

struct flipkms_timeline *flipkms_timeline_create(const char *name)
{
	struct syncfw_timeline *obj;

	obj = sync_timeline_create(&flipkms_timeline_ops,
				   sizeof(struct flipkms_timeline), name);

	return obj ? to_flipkms_timeline(obj) : NULL;
}

/* Flips still waiting for their vblank then fail with -ENOENT. */
void flipkms_timeline_destroy(struct flipkms_timeline *tl)
{
	sync_timeline_destroy(&tl->obj);
}

/* The out-fence of commit @seqno: a new reference, or NULL. */
struct dma_fence *flipkms_timeline_point(struct flipkms_timeline *tl,
					 u64 seqno)
{
	struct syncfw_pt *pt;

	pt = sync_pt_create(&tl->obj, sizeof(*pt), seqno);
	if (!pt)
		return NULL;
	sync_pt_publish(pt);

	return &pt->base;
}

/*
 * Commit @seqno is on screen since @when: it and every commit before it
 * are done. Timelines never go back, whatever order callers come in. The
 * value moves and its points signal in one critical section, so no point
 * is ever seen reached without @when on it.
 */
void flipkms_timeline_advance(struct flipkms_timeline *tl, u64 seqno,
			      ktime_t when)
{
	unsigned long flags;

	spin_lock_irqsave(&tl->obj.lock, flags);
	if (seqno > tl->value)
		WRITE_ONCE(tl->value, seqno);
	sync_timeline_signal_timestamp_locked(&tl->obj, when);
	trace_flipkms_out_fence_signaled(tl->obj.name, tl->value, when);
	spin_unlock_irqrestore(&tl->obj.lock, flags);
}

/* Commit @seqno's fence will fail with @error when it is latched. */
void flipkms_timeline_fail(struct flipkms_timeline *tl, u64 seqno, int error)
{
	unsigned long flags;

	spin_lock_irqsave(&tl->obj.lock, flags);
	tl->fail_error = error;
	tl->fail_seqno = seqno;
	spin_unlock_irqrestore(&tl->obj.lock, flags);
}

u64 flipkms_timeline_value(struct flipkms_timeline *tl)
{
	return READ_ONCE(tl->value);
}
