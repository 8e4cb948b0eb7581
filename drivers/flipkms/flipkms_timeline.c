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

/* Failures (fault injection) that may wait for their signal at once. */
#define FLIPKMS_TIMELINE_FAILS	16

/**
 * struct flipkms_timeline - a CRTC's timeline of completed flips
 * @obj:	the sync timeline
 * @value:	the latest commit latched; written under @obj.lock, read
 *		locklessly by flipkms_timeline_value() and the dump
 * @fails:	commits whose fences fail (fault injection) and have not
 *		signalled yet, under @obj.lock: several can be in flight
 *		while signal_delay_us holds their signals back
 * @fails.seqno: the commit, 0 for a free slot
 * @fails.error: the errno its fence fails with
 */
struct flipkms_timeline {
	struct syncfw_timeline obj;
	u64 value;
	struct {
		u64 seqno;
		int error;
	} fails[FLIPKMS_TIMELINE_FAILS];
};

static inline struct flipkms_timeline *to_flipkms_timeline(struct syncfw_timeline *obj)
{
	return container_of(obj, struct flipkms_timeline, obj);
}

static int flipkms_pt_has_signaled(struct syncfw_pt *pt)
{
	struct flipkms_timeline *tl = to_flipkms_timeline(pt->parent);
	unsigned int i;

	if (tl->value < pt->base.seqno)
		return 0;
	for (i = 0; i < FLIPKMS_TIMELINE_FAILS; i++) {
		if (tl->fails[i].seqno == pt->base.seqno)
			return tl->fails[i].error;
	}
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
 * is ever seen reached without @when on it. Only a move signals anything,
 * and only a move is traced: a call for a commit already passed (a
 * delayed signal that a later one overtook) changes nothing.
 */
void flipkms_timeline_advance(struct flipkms_timeline *tl, u64 seqno,
			      ktime_t when)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&tl->obj.lock, flags);
	if (seqno > tl->value) {
		WRITE_ONCE(tl->value, seqno);
		sync_timeline_signal_timestamp_locked(&tl->obj, when);
		trace_flipkms_out_fence_signaled(tl->obj.name, seqno, when);
		/* Their points have signalled, with their errors. */
		for (i = 0; i < FLIPKMS_TIMELINE_FAILS; i++) {
			if (tl->fails[i].seqno <= seqno)
				tl->fails[i].seqno = 0;
		}
	}
	spin_unlock_irqrestore(&tl->obj.lock, flags);
}

/*
 * Commit @seqno's fence will fail with @error when it is latched. Up to
 * FLIPKMS_TIMELINE_FAILS failures can wait for their signal; beyond that
 * the oldest is forgotten (its fence then signals without error).
 */
void flipkms_timeline_fail(struct flipkms_timeline *tl, u64 seqno, int error)
{
	unsigned long flags;
	unsigned int i, slot = 0;

	spin_lock_irqsave(&tl->obj.lock, flags);
	for (i = 0; i < FLIPKMS_TIMELINE_FAILS; i++) {
		if (!tl->fails[i].seqno || tl->fails[i].seqno == seqno) {
			slot = i;
			break;
		}
		if (tl->fails[i].seqno < tl->fails[slot].seqno)
			slot = i;
	}
	if (seqno > tl->value) {
		tl->fails[slot].seqno = seqno;
		tl->fails[slot].error = error;
	}
	spin_unlock_irqrestore(&tl->obj.lock, flags);
}

u64 flipkms_timeline_value(struct flipkms_timeline *tl)
{
	return READ_ONCE(tl->value);
}
