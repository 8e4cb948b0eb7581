// SPDX-License-Identifier: GPL-2.0+
/*
 * CRTCs: an hrtimer plays the vblank interrupt, and the first vblank whose
 * ideal time follows a commit's flush latches it: the CRTC's flip timeline
 * advances to the commit's number and its event goes out, both stamped
 * with that vblank's ideal time. A commit that turns the CRTC off is done
 * at once, stamped with the last vblank's time, as the core stamps the
 * event. An async (tearing) flip is latched at once too, stamped with the
 * time it went on screen (flipkms_flip_async()). Under VRR the timer runs
 * from refresh to refresh instead, each started by a flip or by the
 * range's longest frame (flipkms_vrr.c); the core counts refreshes by the
 * counter this file keeps, whatever their length.
 */

#include <linux/delay.h>
#include <linux/dma-fence.h>
#include <linux/slab.h>

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_drv.h>
#include <drm/drm_print.h>
#include <drm/drm_vblank.h>

#include "flipkms_drv.h"
#include "flipkms_frame.h"
#include "flipkms_trace.h"

/* Latching */

/**
 * struct flipkms_delayed_signal - an out-fence signal put off by a fault
 * @timer:	fires at @when
 * @link:	in &flipkms_output.delayed, until reaped or torn down
 * @out:	the output
 * @seqno:	the commit to signal
 * @when:	when, and the timestamp it gets
 * @done:	signalled already, under &flipkms_output.lock
 *
 * The timer never frees its own entry: whoever takes it off the list
 * first makes sure the timer is not running (flipkms_reap_delayed(),
 * flipkms_flush_delayed_signals()), so teardown can wait for it and no
 * timer calls into a timeline that teardown destroyed.
 */
struct flipkms_delayed_signal {
	struct hrtimer timer;
	struct list_head link;
	struct flipkms_output *out;
	u64 seqno;
	ktime_t when;
	bool done;
};

/* Signals under the output's lock, so that teardown can order against it. */
static enum hrtimer_restart flipkms_delayed_signal_fire(struct hrtimer *timer)
{
	struct flipkms_delayed_signal *d =
		container_of(timer, struct flipkms_delayed_signal, timer);
	struct flipkms_output *out = d->out;
	unsigned long flags;
	bool cookie;

	cookie = dma_fence_begin_signalling();
	spin_lock_irqsave(&out->lock, flags);
	if (!d->done) {
		d->done = true;
		flipkms_timeline_advance(out->timeline, d->seqno, d->when);
	}
	spin_unlock_irqrestore(&out->lock, flags);
	dma_fence_end_signalling(cookie);
	return HRTIMER_NORESTART;
}

/* Frees the signals that are done and whose timer has returned. */
static void flipkms_reap_delayed(struct flipkms_output *out)
{
	struct flipkms_delayed_signal *d, *next;
	unsigned long flags;
	LIST_HEAD(reaped);

	spin_lock_irqsave(&out->lock, flags);
	list_for_each_entry_safe(d, next, &out->delayed, link) {
		/* 0: neither queued nor running, so it is really over. */
		if (d->done && hrtimer_try_to_cancel(&d->timer) == 0)
			list_move(&d->link, &reaped);
	}
	spin_unlock_irqrestore(&out->lock, flags);

	list_for_each_entry_safe(d, next, &reaped, link)
		kfree(d);
}

/* Signal commit @seqno at @when, later than now; false if out of memory. */
static bool flipkms_delay_signal(struct flipkms_output *out, u64 seqno,
				 ktime_t when)
{
	struct flipkms_delayed_signal *d;
	unsigned long flags;

	flipkms_reap_delayed(out);
	d = kzalloc(sizeof(*d), GFP_ATOMIC);
	if (!d)
		return false;

	hrtimer_init(&d->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	d->timer.function = flipkms_delayed_signal_fire;
	d->out = out;
	d->seqno = seqno;
	d->when = when;
	spin_lock_irqsave(&out->lock, flags);
	list_add_tail(&d->link, &out->delayed);
	hrtimer_start(&d->timer, when, HRTIMER_MODE_ABS);
	spin_unlock_irqrestore(&out->lock, flags);

	return true;
}

/* The latest stamp a delayed signal not yet done will carry, or 0. */
static ktime_t flipkms_delayed_until(struct flipkms_output *out)
{
	struct flipkms_delayed_signal *d;
	unsigned long flags;
	ktime_t until = 0;

	spin_lock_irqsave(&out->lock, flags);
	list_for_each_entry(d, &out->delayed, link) {
		if (!d->done && ktime_after(d->when, until))
			until = d->when;
	}
	spin_unlock_irqrestore(&out->lock, flags);
	return until;
}

/* Teardown: every delayed signal is signalled now, and every timer done. */
static void flipkms_flush_delayed_signals(struct flipkms_output *out)
{
	struct flipkms_delayed_signal *d;
	bool done, cookie;

	cookie = dma_fence_begin_signalling();
	for (;;) {
		spin_lock_irq(&out->lock);
		d = list_first_entry_or_null(&out->delayed,
					     struct flipkms_delayed_signal, link);
		if (d)
			list_del(&d->link);
		spin_unlock_irq(&out->lock);
		if (!d)
			break;

		/* Waits for a timer running now; none can start again. */
		hrtimer_cancel(&d->timer);
		spin_lock_irq(&out->lock);
		done = d->done;
		d->done = true;
		spin_unlock_irq(&out->lock);
		if (!done)
			flipkms_timeline_advance(out->timeline, d->seqno,
						 ktime_get());
		kfree(d);
	}
	dma_fence_end_signalling(cookie);
}

/**
 * flipkms_send_events() - send flip events stamped with a given time
 * @out:	the output
 * @events:	the events, taken off this list
 * @vblank:	the vblank count they carry
 * @when:	the time they carry
 *
 * What drm_crtc_send_vblank_event() does, with the count and time given
 * rather than the latest vblank's: for a latch held past later vblanks,
 * and for an async flip, which takes effect between two vblanks. The
 * fences are the timeline's to signal (signalled already, or by a delayed
 * signal), so they are taken off the events.
 *
 * Context: any; takes the device's event lock.
 */
void flipkms_send_events(struct flipkms_output *out, struct list_head *events,
			 u64 vblank, ktime_t when)
{
	struct timespec64 tv = ktime_to_timespec64(when);
	struct drm_device *drm = out->crtc.dev;
	struct drm_pending_vblank_event *e, *next;
	unsigned long flags;

	spin_lock_irqsave(&drm->event_lock, flags);
	list_for_each_entry_safe(e, next, events, base.link) {
		list_del(&e->base.link);
		dma_fence_put(e->base.fence);
		e->base.fence = NULL;
		e->pipe = drm_crtc_index(&out->crtc);
		if (e->event.base.type == DRM_EVENT_FLIP_COMPLETE ||
		    e->event.base.type == DRM_EVENT_VBLANK) {
			e->event.vbl.sequence = vblank;
			e->event.vbl.tv_sec = tv.tv_sec;
			e->event.vbl.tv_usec = tv.tv_nsec / 1000;
		}
		drm_send_event_timestamp_locked(drm, &e->base, when);
	}
	spin_unlock_irqrestore(&drm->event_lock, flags);
}

/*
 * Show commit @seqno, with the events of every commit latched with it. The
 * fences are signalled before the events are sent, so that they carry our
 * timestamp rather than the one sending the event would give them (they
 * are equal). A signal delay (fault injection) takes the fences off the
 * events, which then cannot signal them, and signals them later. An
 * @async flip took effect at @when, between vblanks: its events carry
 * @when and the vblank count, which has not moved.
 */
void flipkms_latch(struct flipkms_output *out, u64 seqno,
		   struct list_head *events, ktime_t when, bool async)
{
	u32 delay_us = READ_ONCE(out->signal_delay_us);
	int error = atomic_xchg(&out->fence_error, 0);
	struct drm_device *drm = out->crtc.dev;
	struct drm_pending_vblank_event *e, *next;
	ktime_t at = ktime_add_us(when, delay_us);
	ktime_t until = flipkms_delayed_until(out);
	unsigned long flags;
	bool delayed;

	if (error)
		flipkms_timeline_fail(out->timeline, seqno, -error);

	/*
	 * A signal delay lowered while earlier signals wait: this commit's
	 * fence waits for theirs and carries their stamp, rather than signal
	 * them early with its own.
	 */
	if (ktime_after(until, at))
		at = until;
	delayed = ktime_after(at, when) && flipkms_delay_signal(out, seqno, at);
	trace_flipkms_latch(drm_crtc_index(&out->crtc), seqno, when,
			    delayed ? at : when, -error, async);
	if (delayed) {
		list_for_each_entry(e, events, base.link) {
			dma_fence_put(e->base.fence);
			e->base.fence = NULL;
		}
	} else {
		flipkms_timeline_advance(out->timeline, seqno, when);
	}

	atomic64_inc(&out->flips);
	if (async) {
		flipkms_send_events(out, events,
				    drm_crtc_vblank_count(&out->crtc), when);
		return;
	}
	spin_lock_irqsave(&drm->event_lock, flags);
	list_for_each_entry_safe(e, next, events, base.link) {
		list_del(&e->base.link);
		drm_crtc_send_vblank_event(&out->crtc, e);
	}
	spin_unlock_irqrestore(&drm->event_lock, flags);
}

/*
 * Latch what waits for the vblank of ideal time @when, if anything does.
 * A timer that runs late must not latch a commit flushed after @when: that
 * commit waits for the next vblank. @force latches whatever is pending.
 */
static void flipkms_latch_pending(struct flipkms_output *out, ktime_t when,
				  bool force)
{
	struct flipkms_frame *old = NULL;
	unsigned long flags;
	LIST_HEAD(events);
	bool pending;
	u64 seqno;

	spin_lock_irqsave(&out->lock, flags);
	pending = out->pending &&
		  (force || !ktime_after(out->pending_flushed, when));
	seqno = out->pending_seqno;
	if (pending) {
		list_splice_init(&out->pending_events, &events);
		out->pending = false;
		/* On screen before the events let the commit clean up. */
		old = out->shown;
		out->shown = out->pending_frame;
		out->pending_frame = NULL;
		if (out->shown)
			flipkms_writeback_latched(out, out->shown);
	}
	spin_unlock_irqrestore(&out->lock, flags);

	if (pending) {
		/* Held while compositions of @old must read its buffers. */
		flipkms_latch_shown(out, old, seqno, &events, when, false);
		drm_crtc_vblank_put(&out->crtc);
	}
	/* Releasing queues work, a wake-up: after the waiters' wake-ups. */
	flipkms_frame_put(old);
}

/*
 * The vblank interrupt. Under @vblank_lock it moves the timer on by whole
 * periods and takes the vblank's time; then, without the lock, it has the
 * DRM core handle the vblank and latches what waits for it; last, under the
 * lock again, it decides whether the timer goes on (flipkms_enable_vblank()
 * may have asked it to restart on a new grid meanwhile).
 */
static enum hrtimer_restart flipkms_vblank(struct hrtimer *timer)
{
	struct flipkms_output *out = container_of(timer, struct flipkms_output,
						  vblank_timer);
	enum hrtimer_restart restart;
	ktime_t when, before;
	bool handled, cookie, vrr;
	u32 enables, before_count;
	u64 frames;

	spin_lock(&out->vblank_lock);
	/*
	 * Off; or turned off and on again while this expiry was on its way,
	 * so that enable_vblank queued the timer anew (moving a queued timer
	 * on is a bug): this expiry is void.
	 */
	if (!out->vblank_on || hrtimer_is_queued(timer)) {
		spin_unlock(&out->vblank_lock);
		return HRTIMER_NORESTART;
	}
	/* Forward first, as hardware updates its registers before the irq. */
	vrr = out->vrr;
	if (vrr) {
		/* Scheduled below, once this refresh has latched or not. */
		when = hrtimer_get_expires(timer);
		frames = 1 + flipkms_vrr_skip(out, &when);
	} else {
		frames = hrtimer_forward_now(timer, out->period);
		when = ktime_sub(hrtimer_get_expires(timer), out->period);
	}
	if (frames > 1)
		atomic64_add(frames - 1, &out->missed_vblanks);
	out->refresh_at = when;
	out->refreshes += frames;
	/* A dropped vblank never happened: no count, no latch. */
	if (atomic_add_unless(&out->drop_vblanks, -1, 0)) {
		if (vrr)
			hrtimer_set_expires(timer, flipkms_vrr_next(out));
		spin_unlock(&out->vblank_lock);
		atomic64_inc(&out->dropped_vblanks);
		return HRTIMER_RESTART;
	}
	before = out->last_vblank;
	before_count = out->vblank_count;
	/* What get_vblank_timestamp and _counter tell the core. */
	WRITE_ONCE(out->last_vblank, when);
	out->vblank_count = out->refreshes;
	out->in_vblank = true;
	enables = out->enables;
	spin_unlock(&out->vblank_lock);

	/* The vblank signals out-fences: nothing in it may wait for one. */
	cookie = dma_fence_begin_signalling();
	/* False if the core has turned vblanks off: then nothing happened. */
	handled = drm_crtc_handle_vblank(&out->crtc);
	if (handled) {
		atomic64_inc(&out->vblanks);
		trace_flipkms_vblank(drm_crtc_index(&out->crtc),
				     drm_crtc_vblank_count(&out->crtc), when,
				     frames - 1);
		flipkms_composer_vblank_end(out, when);
		flipkms_latch_pending(out, when, false);
		flipkms_composer_vblank(out, when);
	}
	dma_fence_end_signalling(cookie);

	spin_lock(&out->vblank_lock);
	out->in_vblank = false;
	/* Unless an enable has set them since, the core's time stays. */
	if (!handled && out->enables == enables) {
		WRITE_ONCE(out->last_vblank, before);
		out->vblank_count = before_count;
	}
	/* The commit latched brings its VRR state (flipkms_latch_pending()). */
	if (handled && out->vrr_flip && !ktime_after(out->vrr_flip, when))
		flipkms_vrr_latched(out, when);
	if (out->rearm) {
		/* Turned off and on again meanwhile: restart on the new grid. */
		out->rearm = false;
		hrtimer_set_expires(timer, out->rearm_at);
		restart = HRTIMER_RESTART;
	} else if (handled && out->vblank_on) {
		if (out->vrr)
			hrtimer_set_expires(timer, flipkms_vrr_next(out));
		else if (vrr)
			/* VRR off: the grid starts again at this refresh. */
			hrtimer_set_expires(timer, ktime_add(when, out->period));
		restart = HRTIMER_RESTART;
	} else {
		restart = HRTIMER_NORESTART;
	}
	spin_unlock(&out->vblank_lock);
	return restart;
}

/*
 * The first vblank of the mode's grid after @now. The display scans out
 * from atomic_enable on, whether vblank interrupts are on or not, so its
 * vblanks stay a whole number of periods after the anchor.
 */
static ktime_t flipkms_next_vblank(const struct flipkms_output *out, ktime_t now)
{
	s64 since = ktime_to_ns(ktime_sub(now, out->anchor));
	u32 period = ktime_to_ns(out->period);

	return ktime_add_ns(out->anchor,
			    (div_u64(max_t(s64, since, 0), period) + 1) * period);
}

/*
 * The refreshes that went by while vblank interrupts were off: on the
 * mode's grid, or under VRR, with no flip (a flip holds a vblank
 * reference), the repeated frames of the range's longest period. They
 * are counted, the latest becomes the latest refresh, and the next one
 * is returned.
 */
static ktime_t flipkms_catch_up(struct flipkms_output *out, ktime_t now)
{
	s64 since = ktime_to_ns(ktime_sub(now, out->refresh_at));
	s64 step = ktime_to_ns(out->period);
	u64 passed;
	ktime_t next;

	if (out->vrr) {
		step = ktime_to_ns(out->vrr_max);
		passed = since > 0 ? div64_u64(since, step) : 0;
		out->refresh_at = ktime_add_ns(out->refresh_at, passed * step);
		out->refreshes += passed;
		return flipkms_vrr_next(out);
	}
	next = flipkms_next_vblank(out, now);
	/* The grid's vblanks after the latest refresh, which lies on it. */
	since = ktime_to_ns(ktime_sub(next, out->refresh_at)) - step / 2;
	out->refreshes += since > 0 ? div64_u64(since, step) : 0;
	out->refresh_at = ktime_sub(next, out->period);
	return next;
}

/* CRTC functions */

/*
 * The timer starts on the first vblank of the grid still to come, and the
 * latest one is the core's time: the vblanks that passed while interrupts
 * were off are counted, and the phase is the mode's. Called under the
 * core's vblank locks. A timer callback still running after a disable must
 * not find its timer queued under it (its hrtimer_forward() would WARN and
 * move nothing): it restarts the timer itself as it returns.
 */
static int flipkms_enable_vblank(struct drm_crtc *crtc)
{
	struct flipkms_output *out = crtc_to_flipkms_output(crtc);
	unsigned long flags;
	ktime_t next;
	s64 period;

	spin_lock_irqsave(&out->vblank_lock, flags);
	period = ktime_to_ns(out->period);
	/*
	 * atomic_check let no other period through; a timer re-armed every
	 * nanosecond would never leave the hard-irq.
	 */
	if (WARN_ONCE(period < FLIPKMS_MIN_PERIOD_NS || period > FLIPKMS_MAX_PERIOD_NS,
		      "flipkms: [CRTC:%d] vblank period %lld ns out of range\n",
		      crtc->base.id, period))
		out->period = ns_to_ktime(clamp(period, FLIPKMS_MIN_PERIOD_NS,
						FLIPKMS_MAX_PERIOD_NS));
	next = flipkms_catch_up(out, ktime_get());
	WRITE_ONCE(out->last_vblank, out->refresh_at);
	out->vblank_count = out->refreshes;
	out->vblank_on = true;
	out->enables++;
	if (out->in_vblank) {
		out->rearm = true;
		out->rearm_at = next;
	} else {
		hrtimer_start(&out->vblank_timer, next, HRTIMER_MODE_ABS);
	}
	spin_unlock_irqrestore(&out->vblank_lock, flags);
	return 0;
}

/*
 * Called under the vblank locks that the timer's drm_crtc_handle_vblank()
 * takes, and from inside the timer callback itself when its
 * drm_crtc_vblank_put() drops the last reference with drm.vblankoffdelay
 * < 0: waiting for a running timer here would deadlock. Cancel it if it is
 * queued; if it is running, it sees @vblank_on cleared and stops.
 */
static void flipkms_disable_vblank(struct drm_crtc *crtc)
{
	struct flipkms_output *out = crtc_to_flipkms_output(crtc);
	unsigned long flags;

	spin_lock_irqsave(&out->vblank_lock, flags);
	out->vblank_on = false;
	out->rearm = false;
	hrtimer_try_to_cancel(&out->vblank_timer);
	spin_unlock_irqrestore(&out->vblank_lock, flags);
}

/*
 * The ideal time of the latest vblank, exact to the ns of the period, and
 * its count, each read under the lock that updates both together: the
 * core reads the count again after the time and retries if it moved.
 */
static bool flipkms_get_vblank_timestamp(struct drm_crtc *crtc, int *max_error,
					 ktime_t *vblank_time,
					 bool in_vblank_irq)
{
	struct flipkms_output *out = crtc_to_flipkms_output(crtc);
	unsigned long flags;

	spin_lock_irqsave(&out->vblank_lock, flags);
	*vblank_time = out->last_vblank;
	spin_unlock_irqrestore(&out->vblank_lock, flags);
	*max_error = 0;
	return true;
}

/*
 * A hardware frame counter, as amdgpu's: with one (max_vblank_count set),
 * the core counts vblanks by it rather than by dividing the time between
 * two timestamps by the mode's frame duration, which under VRR would count
 * a frame three times as long as the mode's as three vblanks.
 */
static u32 flipkms_get_vblank_counter(struct drm_crtc *crtc)
{
	struct flipkms_output *out = crtc_to_flipkms_output(crtc);
	unsigned long flags;
	u32 count;

	spin_lock_irqsave(&out->vblank_lock, flags);
	count = out->vblank_count;
	spin_unlock_irqrestore(&out->vblank_lock, flags);
	return count;
}

/* OUT_FENCE_PTR hands out the commit's point on the flip timeline. */
static struct dma_fence *flipkms_create_out_fence(struct drm_crtc *crtc,
						  struct drm_crtc_state *state)
{
	struct flipkms_crtc_state *fstate = to_flipkms_crtc_state(state);
	struct flipkms_output *out = crtc_to_flipkms_output(crtc);
	struct dma_fence *fence;
	u64 seqno;

	if (WARN_ON(fstate->seqno))
		return ERR_PTR(-EINVAL);

	spin_lock_irq(&out->lock);
	seqno = ++out->next_seqno;
	spin_unlock_irq(&out->lock);

	fence = flipkms_timeline_point(out->timeline, seqno);
	if (!fence)
		return ERR_PTR(-ENOMEM);

	fstate->seqno = seqno;
	return fence;
}

/**
 * flipkms_assign_seqnos() - number the commits of an accepted state
 * @state: the state being committed
 *
 * Commits without an out-fence get their number here; the ioctl holds the
 * CRTC's lock from fence creation to this point, so numbers follow the
 * order in which commits are made on each CRTC.
 */
void flipkms_assign_seqnos(struct drm_atomic_state *state)
{
	struct drm_crtc_state *crtc_state;
	struct flipkms_output *out;
	struct drm_crtc *crtc;
	int i;

	for_each_new_crtc_in_state(state, crtc, crtc_state, i) {
		if (to_flipkms_crtc_state(crtc_state)->seqno)
			continue;
		out = crtc_to_flipkms_output(crtc);
		spin_lock_irq(&out->lock);
		to_flipkms_crtc_state(crtc_state)->seqno = ++out->next_seqno;
		spin_unlock_irq(&out->lock);
	}
}

/**
 * flipkms_stall_commits() - apply the stall fault to a commit
 * @state: the state being committed, from the commit tail
 *
 * A CRTC told to stall its next commit sleeps here before the flush.
 */
void flipkms_stall_commits(struct drm_atomic_state *state)
{
	struct drm_crtc_state *crtc_state;
	struct drm_crtc *crtc;
	int i, ms;

	for_each_new_crtc_in_state(state, crtc, crtc_state, i) {
		ms = atomic_xchg(&crtc_to_flipkms_output(crtc)->stall_ms, 0);
		if (ms > 0)
			msleep(ms);
	}
}

static struct drm_crtc_state *flipkms_crtc_duplicate_state(struct drm_crtc *crtc)
{
	struct flipkms_crtc_state *state;

	if (WARN_ON(!crtc->state))
		return NULL;

	state = kzalloc(sizeof(*state), GFP_KERNEL);
	if (!state)
		return NULL;

	__drm_atomic_helper_crtc_duplicate_state(crtc, &state->base);
	return &state->base;
}

/**
 * flipkms_output_shown() - the frame on screen
 * @out: the output
 *
 * Return: A reference to the frame the latest latch put on screen, or NULL
 * while the CRTC is off.
 */
struct flipkms_frame *flipkms_output_shown(struct flipkms_output *out)
{
	struct flipkms_frame *frame;
	unsigned long flags;

	spin_lock_irqsave(&out->lock, flags);
	frame = flipkms_frame_get(out->shown);
	spin_unlock_irqrestore(&out->lock, flags);
	return frame;
}

static void flipkms_crtc_destroy_state(struct drm_crtc *crtc,
				       struct drm_crtc_state *state)
{
	/* Only a checked state that was never flushed still has its frame. */
	flipkms_frame_put(to_flipkms_crtc_state(state)->frame);
	__drm_atomic_helper_crtc_destroy_state(state);
	kfree(to_flipkms_crtc_state(state));
}

static void flipkms_crtc_reset(struct drm_crtc *crtc)
{
	struct flipkms_crtc_state *state = kzalloc(sizeof(*state), GFP_KERNEL);

	if (crtc->state)
		flipkms_crtc_destroy_state(crtc, crtc->state);
	__drm_atomic_helper_crtc_reset(crtc, state ? &state->base : NULL);
}

static int flipkms_crtc_late_register(struct drm_crtc *crtc)
{
	flipkms_debugfs_crtc_init(crtc_to_flipkms_output(crtc));
	return 0;
}

static const struct drm_crtc_funcs flipkms_crtc_funcs = {
	.set_config		= drm_atomic_helper_set_config,
	.destroy		= drm_crtc_cleanup,
	.page_flip		= drm_atomic_helper_page_flip,
	.reset			= flipkms_crtc_reset,
	.atomic_duplicate_state	= flipkms_crtc_duplicate_state,
	.atomic_destroy_state	= flipkms_crtc_destroy_state,
	.enable_vblank		= flipkms_enable_vblank,
	.disable_vblank		= flipkms_disable_vblank,
	.get_vblank_timestamp	= flipkms_get_vblank_timestamp,
	.get_vblank_counter	= flipkms_get_vblank_counter,
	.create_out_fence	= flipkms_create_out_fence,
	.late_register		= flipkms_crtc_late_register,
	.get_crc_sources	= flipkms_get_crc_sources,
	.verify_crc_source	= flipkms_verify_crc_source,
	.set_crc_source		= flipkms_set_crc_source,
};

/* CRTC helper functions */

static enum drm_mode_status flipkms_crtc_mode_valid(struct drm_crtc *crtc,
						    const struct drm_display_mode *mode)
{
	int refresh = drm_mode_vrefresh(mode);

	if (mode->clock <= 0 || mode->htotal <= mode->hdisplay ||
	    mode->vtotal <= mode->vdisplay)
		return MODE_BAD;
	if (mode->hdisplay < FLIPKMS_MIN_WIDTH || mode->vdisplay < FLIPKMS_MIN_HEIGHT)
		return MODE_BAD_HVALUE;
	if (mode->hdisplay > FLIPKMS_MAX_WIDTH || mode->vdisplay > FLIPKMS_MAX_HEIGHT)
		return MODE_BAD_VVALUE;
	if (refresh < FLIPKMS_MIN_REFRESH || refresh > FLIPKMS_MAX_REFRESH)
		return MODE_BAD;
	if (mode->flags & DRM_MODE_FLAG_INTERLACE)
		return MODE_NO_INTERLACE;
	if (mode->flags & DRM_MODE_FLAG_DBLSCAN)
		return MODE_NO_DBLESCAN;
	if (mode->vscan > 1)
		return MODE_NO_VSCAN;

	return MODE_OK;
}

/*
 * The vblank timer runs on the frame duration drm_calc_timestamping_constants()
 * computes from the adjusted mode: crtc_htotal x crtc_vtotal (vscan and
 * doublescan folded into crtc_vtotal by drm_mode_set_crtcinfo(), interlace
 * halving it twice) in a signed 32-bit product. mode_valid's refresh rate
 * does not see that product overflow, so a mode whose refresh reads 60 Hz
 * can give a period of a few ns or a negative one: the timer would then
 * re-fire without end in hard-irq. Only a period computed in 64 bits
 * within the refresh range, from a product the core computes exactly, is
 * accepted; interlace, doublescan and vscan, of no use to a virtual CRTC,
 * are refused.
 */
static int flipkms_crtc_check_timing(struct drm_crtc *crtc,
				     const struct drm_display_mode *mode)
{
	u64 frame = (u64)mode->crtc_htotal * mode->crtc_vtotal;
	u64 period;

	if (mode->flags & (DRM_MODE_FLAG_INTERLACE | DRM_MODE_FLAG_DBLSCAN) ||
	    mode->vscan > 1) {
		drm_dbg_atomic(crtc->dev,
			       "[CRTC:%d] interlace, doublescan and vscan are not supported\n",
			       crtc->base.id);
		return -EINVAL;
	}
	if (mode->crtc_clock <= 0 || !frame || frame > INT_MAX) {
		drm_dbg_atomic(crtc->dev,
			       "[CRTC:%d] clock %d kHz, %d x %d total: no frame duration\n",
			       crtc->base.id, mode->crtc_clock, mode->crtc_htotal,
			       mode->crtc_vtotal);
		return -EINVAL;
	}
	period = div_u64(frame * NSEC_PER_MSEC, mode->crtc_clock);
	if (period < FLIPKMS_MIN_PERIOD_NS || period > FLIPKMS_MAX_PERIOD_NS) {
		drm_dbg_atomic(crtc->dev,
			       "[CRTC:%d] frame duration %llu ns is outside %lld-%lld ns\n",
			       crtc->base.id, period, FLIPKMS_MIN_PERIOD_NS,
			       FLIPKMS_MAX_PERIOD_NS);
		return -EINVAL;
	}
	return 0;
}

/* Whether a plane shows the same part of its framebuffer at the same place. */
static bool flipkms_plane_kept(const struct drm_plane_state *old,
			       const struct drm_plane_state *new)
{
	return old->crtc == new->crtc &&
	       old->crtc_x == new->crtc_x && old->crtc_y == new->crtc_y &&
	       old->crtc_w == new->crtc_w && old->crtc_h == new->crtc_h &&
	       old->src_x == new->src_x && old->src_y == new->src_y &&
	       old->src_w == new->src_w && old->src_h == new->src_h &&
	       old->rotation == new->rotation && old->alpha == new->alpha &&
	       old->pixel_blend_mode == new->pixel_blend_mode &&
	       old->zpos == new->zpos &&
	       old->color_encoding == new->color_encoding &&
	       old->color_range == new->color_range;
}

/*
 * An async flip replaces the primary plane's framebuffer and nothing else,
 * as the 6.12 core's atomic ioctl requires of every property (the legacy
 * page flip changes nothing else either). Whatever else gets here is
 * refused with the core's -EINVAL: a CRTC off before or after, a modeset
 * or colour change, another plane changed, the primary plane moved or
 * left without a framebuffer.
 */
static int flipkms_crtc_check_async(struct drm_crtc *crtc,
				    struct drm_atomic_state *state)
{
	struct drm_crtc_state *old = drm_atomic_get_old_crtc_state(state, crtc);
	struct drm_crtc_state *new = drm_atomic_get_new_crtc_state(state, crtc);
	struct drm_plane_state *old_ps, *new_ps;
	struct drm_plane *plane;
	const char *why = NULL;
	int i;

	if (!old->active || !new->active)
		why = "the CRTC is off";
	else if (drm_atomic_crtc_needs_modeset(new))
		why = "a modeset";
	else if (new->color_mgmt_changed)
		why = "a colour management change";
	for_each_oldnew_plane_in_state(state, plane, old_ps, new_ps, i) {
		if (why)
			break;
		if (old_ps->crtc != crtc && new_ps->crtc != crtc)
			continue;
		if (plane->type != DRM_PLANE_TYPE_PRIMARY && old_ps->fb != new_ps->fb)
			why = "a plane other than the primary changes";
		else if (!flipkms_plane_kept(old_ps, new_ps) || !new_ps->fb)
			why = "a plane moves or goes off";
	}
	if (!why)
		return 0;
	drm_dbg_atomic(crtc->dev, "[CRTC:%d] async flip refused: %s\n",
		       crtc->base.id, why);
	return -EINVAL;
}

/*
 * The mode must give the vblank timer a sane period; a degamma or gamma LUT
 * must have exactly the advertised number of entries; an async flip may
 * change the primary plane's framebuffer only.
 */
static int flipkms_crtc_atomic_check(struct drm_crtc *crtc,
				     struct drm_atomic_state *state)
{
	struct drm_crtc_state *crtc_state = drm_atomic_get_new_crtc_state(state, crtc);
	int ret;

	/*
	 * An unplugged device sets no mode again: drm_ioctl() stops its
	 * clients, this an in-kernel one (fbdev's restore). Turning off, as
	 * the unplug's own shutdown does, still works, and so does taking a
	 * plane off a lit CRTC (the core's removal of the fbdev's
	 * framebuffer as its client goes, which WARNs if it fails).
	 */
	if (crtc_state->active && drm_atomic_crtc_needs_modeset(crtc_state) &&
	    drm_dev_is_unplugged(crtc->dev))
		return -ENODEV;

	if (crtc_state->async_flip) {
		ret = flipkms_crtc_check_async(crtc, state);
		if (ret)
			return ret;
	}

	if (crtc_state->enable) {
		ret = flipkms_crtc_check_timing(crtc, &crtc_state->adjusted_mode);
		if (ret)
			return ret;
	}

	ret = flipkms_color_check(crtc_state);
	if (ret)
		return ret;
	/* The flush cannot fail: it gets the memory for its frame here. */
	return flipkms_frame_alloc(to_flipkms_crtc_state(crtc_state));
}

/*
 * The scanout of the new mode starts now: its vblanks lie a whole number
 * of periods after this moment for as long as the mode lasts, whenever
 * vblank interrupts are turned on (flipkms_next_vblank()). The period is
 * the core's frame duration of the adjusted mode, which atomic_check
 * bounded and drm_atomic_helper_commit_modeset_disables() computed.
 */
static void flipkms_crtc_atomic_enable(struct drm_crtc *crtc,
				       struct drm_atomic_state *state)
{
	struct drm_vblank_crtc *vblank = &crtc->dev->vblank[drm_crtc_index(crtc)];
	struct flipkms_output *out = crtc_to_flipkms_output(crtc);
	ktime_t now = ktime_get();

	spin_lock_irq(&out->vblank_lock);
	out->period = ns_to_ktime(vblank->framedur_ns);
	out->anchor = now;
	out->refresh_at = now;
	WRITE_ONCE(out->last_vblank, now);
	out->vblank_count = out->refreshes;
	/* A mode starts on its grid; its flush may turn VRR on. */
	out->vrr = false;
	out->vrr_flip = 0;
	spin_unlock_irq(&out->vblank_lock);
	drm_crtc_vblank_on(crtc);
}

/* Commits still waiting are done now, at the last vblank's time. */
static void flipkms_crtc_atomic_disable(struct drm_crtc *crtc,
					struct drm_atomic_state *state)
{
	struct flipkms_output *out = crtc_to_flipkms_output(crtc);

	flipkms_latch_pending(out, READ_ONCE(out->last_vblank), true);
	drm_crtc_vblank_off(crtc);
}

/*
 * An async flip goes on screen now, between two vblanks: it is latched at
 * once, its fence and event stamped with the time of the swap and the
 * vblank count, which does not move (a vblank reference held meanwhile
 * makes that count current even if vblank interrupts were off). The
 * commit helpers make a flip wait for the previous one's flip_done or
 * refuse it with -EBUSY, so a synchronous flip is not normally pending
 * here; if one is, the async flip is made synchronous so that it lands
 * after it, in order, and this returns false. So it is, too, under VRR in
 * the blanking, where it starts a refresh (flipkms_vrr_async_refreshes()).
 */
static bool flipkms_flip_async(struct flipkms_output *out,
			       struct flipkms_frame *frame, u64 seqno,
			       struct list_head *events)
{
	bool vblank = !drm_crtc_vblank_get(&out->crtc);
	struct flipkms_scan_done done = {};
	struct flipkms_frame *old;
	ktime_t now;

	/* The refresh it lands in is the timer's, as for a flush. */
	spin_lock_irq(&out->vblank_lock);
	spin_lock(&out->lock);
	now = ktime_get();
	if (out->pending || flipkms_vrr_async_refreshes(out, frame, now)) {
		spin_unlock(&out->lock);
		spin_unlock_irq(&out->vblank_lock);
		if (vblank)
			drm_crtc_vblank_put(&out->crtc);
		return false;
	}
	old = out->shown;
	/* It tears the refresh it lands in (flipkms_scan.c). */
	flipkms_scan_async(out, frame, now, &done);
	out->shown = frame;
	if (frame)
		flipkms_writeback_latched(out, frame);
	spin_unlock(&out->lock);
	spin_unlock_irq(&out->vblank_lock);
	flipkms_scan_finish(out, &done);

	trace_flipkms_commit_flush(drm_crtc_index(&out->crtc), seqno, now, true,
				   true);
	flipkms_latch_shown(out, old, seqno, events, now, true);
	if (vblank)
		drm_crtc_vblank_put(&out->crtc);
	flipkms_frame_put(old);
	return true;
}

/*
 * Queue the commit for the next vblank. Usually the commit helpers wait for
 * the previous commit's flip before the next one flushes, but legacy cursor
 * updates do not wait: every commit flushed before a vblank is latched by
 * it, the timeline advancing to the latest. One vblank reference covers
 * them. A CRTC without vblanks (being disabled) latches at once, stamped
 * with its last vblank's time as the core stamps the event.
 */
static void flipkms_crtc_atomic_flush(struct drm_crtc *crtc,
				      struct drm_atomic_state *state)
{
	struct drm_crtc_state *old_state = drm_atomic_get_old_crtc_state(state, crtc);
	struct drm_crtc_state *crtc_state = drm_atomic_get_new_crtc_state(state, crtc);
	struct flipkms_crtc_state *fstate = to_flipkms_crtc_state(crtc_state);
	struct flipkms_output *out = crtc_to_flipkms_output(crtc);
	struct drm_pending_vblank_event *event = crtc_state->event;
	struct flipkms_frame *frame = fstate->frame, *old;
	struct flipkms_scan_done done = {};
	u64 seqno = fstate->seqno;
	LIST_HEAD(now);
	bool queued;

	crtc_state->event = NULL;
	fstate->frame = NULL;
	/*
	 * Off before and after (pulled into the commit by a property or a
	 * connector change): nothing is shown and nothing can wait, the core
	 * refuses an event there. Latching would spend an injected fault and
	 * count a flip.
	 */
	if (!crtc_state->active && !old_state->active && !event) {
		flipkms_frame_put(frame);
		return;
	}
	flipkms_frame_fill(frame, crtc_state);
	if (event)
		list_add_tail(&event->base.link, &now);
	if (crtc_state->async_flip && crtc_state->active && old_state->active &&
	    flipkms_flip_async(out, frame, seqno, &now))
		return;

	if (!crtc_state->active || drm_crtc_vblank_get(crtc)) {
		spin_lock_irq(&out->lock);
		old = out->shown;
		out->shown = frame;
		if (frame)
			flipkms_writeback_latched(out, frame);
		/* No vblank to end the refresh: it ends now. */
		flipkms_scan_end(out, 0, true, &done);
		flipkms_scan_begin(out, READ_ONCE(out->last_vblank),
				   drm_crtc_vblank_count(crtc), &done);
		spin_unlock_irq(&out->lock);
		flipkms_scan_finish(out, &done);
		trace_flipkms_commit_flush(drm_crtc_index(crtc), seqno,
					   ktime_get(), false, false);
		flipkms_latch_shown(out, old, seqno, &now,
				    READ_ONCE(out->last_vblank), false);
		flipkms_frame_put(old);
		return;
	}

	/* The refresh that latches the commit knows at once whether it does. */
	spin_lock_irq(&out->vblank_lock);
	spin_lock(&out->lock);
	queued = out->pending;
	out->pending = true;
	out->pending_seqno = max(out->pending_seqno, seqno);
	out->pending_flushed = ktime_get();
	trace_flipkms_commit_flush(drm_crtc_index(crtc), seqno,
				   out->pending_flushed, true, false);
	list_splice_tail(&now, &out->pending_events);
	/* A frame superseded before any vblank latched it is never shown. */
	old = out->pending_frame;
	out->pending_frame = frame;
	flipkms_vrr_flushed(out, crtc_state->vrr_enabled, out->pending_flushed);
	spin_unlock(&out->lock);
	spin_unlock_irq(&out->vblank_lock);
	flipkms_frame_put(old);

	if (queued)
		drm_crtc_vblank_put(crtc);
}

static const struct drm_crtc_helper_funcs flipkms_crtc_helper_funcs = {
	.mode_valid	= flipkms_crtc_mode_valid,
	.atomic_check	= flipkms_crtc_atomic_check,
	.atomic_flush	= flipkms_crtc_atomic_flush,
	.atomic_enable	= flipkms_crtc_atomic_enable,
	.atomic_disable	= flipkms_crtc_atomic_disable,
};

/**
 * flipkms_crtc_init() - set up the CRTC of an output and its timeline
 * @out:	the output
 * @index:	its index, for the timeline's name
 * @primary:	its primary plane
 * @cursor:	its cursor plane, or NULL
 *
 * Return: 0 or a negative errno.
 */
int flipkms_crtc_init(struct flipkms_output *out, unsigned int index,
		      struct drm_plane *primary, struct drm_plane *cursor)
{
	struct drm_device *drm = primary->dev;
	char name[32];
	int ret;

	spin_lock_init(&out->lock);
	spin_lock_init(&out->vblank_lock);
	INIT_LIST_HEAD(&out->delayed);
	INIT_LIST_HEAD(&out->pending_events);
	out->status = connector_status_connected;
	out->refresh = 60;
	hrtimer_init(&out->vblank_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	out->vblank_timer.function = flipkms_vblank;

	ret = flipkms_composer_init(out);
	if (ret)
		return ret;

	/* "flipkms-crtc-0" on the default device, "flipkms-DIR-crtc-0" on others. */
	snprintf(name, sizeof(name), "%s-crtc-%u", dev_name(drm->dev), index);
	out->timeline = flipkms_timeline_create(name);
	if (!out->timeline) {
		ret = -ENOMEM;
		goto err_composer;
	}

	/* The CRTC itself is the mode config's to clean up, like the planes. */
	ret = drm_crtc_init_with_planes(drm, &out->crtc, primary, cursor,
					&flipkms_crtc_funcs, NULL);
	if (ret)
		goto err_timeline;
	drm_crtc_helper_add(&out->crtc, &flipkms_crtc_helper_funcs);
	/*
	 * DEGAMMA_LUT, CTM and GAMMA_LUT (flipkms_color.c); the core maps
	 * legacy gamma ioctls onto GAMMA_LUT and clears the other two.
	 */
	ret = drm_mode_crtc_set_gamma_size(&out->crtc, FLIPKMS_LUT_SIZE);
	if (ret)
		goto err_timeline;
	drm_crtc_enable_color_mgmt(&out->crtc, FLIPKMS_LUT_SIZE, true,
				   FLIPKMS_LUT_SIZE);

	return 0;

err_timeline:
	flipkms_timeline_destroy(out->timeline);
	out->timeline = NULL;
err_composer:
	flipkms_composer_fini(out);
	return ret;
}

/*
 * After the last commit, for an output whose flipkms_crtc_init()
 * succeeded: the timers are stopped and the timeline let go. From the
 * device's release (flipkms_drv.c), which every atomic state's reference
 * on the DRM device holds off: a commit still in flight at unplug (behind
 * an in-fence, say) finds its outputs whole when it runs.
 */
void flipkms_crtc_fini(struct flipkms_output *out)
{
	hrtimer_cancel(&out->vblank_timer);
	flipkms_composer_fini(out);
	flipkms_flush_delayed_signals(out);
	flipkms_timeline_destroy(out->timeline);
	out->timeline = NULL;
	flipkms_writeback_fini(out);
	/* Off since the shutdown: nothing left on screen or pending. */
	flipkms_frame_put(out->pending_frame);
	out->pending_frame = NULL;
	flipkms_frame_put(out->shown);
	out->shown = NULL;
	flipkms_frames_drain();
}
