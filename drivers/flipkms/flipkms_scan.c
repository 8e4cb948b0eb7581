// SPDX-License-Identifier: GPL-2.0+
/*
 * Refreshes: what each scanout of a CRTC shows, torn by async flips.
 *
 * A refresh starts at a vblank, at its ideal time (which a synchronous
 * flip's event and out-fence carry), with the frame then on screen. It
 * scans the mode's vtotal lines in one period, at period / vtotal each:
 * the vdisplay active lines first, top to bottom, then the vertical
 * blanking, which ends at the next vblank. An async flip at time t puts
 * its frame on screen at once: rows from the line the beam has reached,
 * (t - start) * vtotal / period, down come from it, the rows above from
 * what the refresh showed there before (a torn refresh: a frame whose
 * @above and @below are the two). A flip in the blanking tears nothing:
 * the refresh is over, the next one shows the new frame whole.
 *
 * CRCs and writeback compose a refresh once it is over, when the next
 * vblank ends it (flipkms_scan_end()): vblank N's CRC entry, of the
 * refresh vblank N started, is added at vblank N + 1. Their promises
 * (flipkms_frame_promise()) cover every frame the refresh shows, each
 * taken as the frame goes on screen, so the latch that takes one off
 * screen holds its fences and events until the refresh is composed.
 *
 * All of it is under &flipkms_output.lock, which orders it with latches;
 * an async flip also holds &flipkms_output.vblank_lock, taken first as a
 * flush takes it, for the refresh timing (flipkms_scan_async()).
 */

#include <linux/math64.h>

#include <drm/drm_vblank.h>

#include "flipkms_drv.h"
#include "flipkms_frame.h"

/**
 * flipkms_tear_line() - the line the beam scans at a time of a refresh
 * @since:	the time since the refresh started, in ns (0 or more)
 * @period:	the refresh's period, in ns
 * @vtotal:	the mode's vertical total
 *
 * Return: The line, from 0; vdisplay or more is the vertical blanking.
 */
int flipkms_tear_line(s64 since, s64 period, int vtotal)
{
	if (since <= 0 || period <= 0)
		return 0;
	return div64_s64(since * vtotal, period);
}

/*
 * The start of the refresh scanning at @when: on the mode's vblank grid,
 * which the timer may be late for; under VRR the latest refresh, whose
 * blanking lasts until the timer starts the next (flipkms_vrr.c).
 */
static ktime_t flipkms_refresh_at(struct flipkms_output *out, ktime_t when,
				  s64 *period)
{
	s64 since;
	ktime_t start;

	lockdep_assert_held(&out->vblank_lock);
	*period = ktime_to_ns(out->period);
	since = ktime_to_ns(ktime_sub(when, out->anchor));
	start = out->anchor;
	if (out->vrr)
		start = out->refresh_at;
	else if (since > 0 && *period > 0)
		start = ktime_add_ns(start, div64_s64(since, *period) * *period);
	return start;
}

/**
 * flipkms_scan_end() - the refresh in progress is over
 * @out:	the output, its lock held
 * @when:	the vblank that ends it
 * @force:	end it even if it started at @when (the frame on screen
 *		changed without a vblank: the CRTC went off)
 * @done:	collects what is left to do once the lock is let go
 *
 * Unless it started at @when or later: its CRC entry (if CRCs were on as
 * it began) is added or queued, and the writeback jobs that wait for it
 * get it to write.
 */
void flipkms_scan_end(struct flipkms_output *out, ktime_t when, bool force,
		      struct flipkms_scan_done *done)
{
	struct flipkms_frame *ended = out->scan;

	lockdep_assert_held(&out->lock);
	if (!ended || (!force && !ktime_before(out->scan_start, when)))
		return;
	if (out->scan_crc)
		flipkms_crc_refresh(out, flipkms_frame_get(ended), out->scan_vblank);
	flipkms_writeback_refresh_done(out, ended, done);
	out->scan = NULL;
	out->scan_crc = false;
	out->scan_readers = 0;
	flipkms_frame_put(ended);
}

/**
 * flipkms_scan_begin() - a refresh starts, or goes on, at a vblank
 * @out:	the output, its lock held
 * @start:	the vblank's time
 * @vblank:	its count
 * @done:	collects what is left to do once the lock is let go
 *
 * With none in progress, the refresh starting at @start shows the frame on
 * screen. CRCs (if on) and the writeback jobs latched since subscribe to
 * the refresh in progress: they will compose it once it is over.
 */
void flipkms_scan_begin(struct flipkms_output *out, ktime_t start, u64 vblank,
			struct flipkms_scan_done *done)
{
	lockdep_assert_held(&out->lock);
	if (!out->scan) {
		out->scan = flipkms_frame_get(out->shown);
		out->scan_start = start;
	}
	/* Begun by an async flip before this vblank's timer: its count. */
	if (out->scan_start == start)
		out->scan_vblank = vblank;
	if (out->scan && !out->scan_crc && READ_ONCE(out->crc_enabled)) {
		out->scan_crc = true;
		out->scan_readers++;
		flipkms_frame_promise(out->scan, 1);
	}
	flipkms_writeback_subscribe(out, out->scan, &out->scan_readers, done);
}

/**
 * flipkms_scan_async() - an async flip puts @frame on screen at @when
 * @out:	the output, its vblank_lock and then its lock held, @frame
 *		not yet on screen
 * @frame:	the flip's frame
 * @when:	the time it takes effect
 * @done:	collects what is left to do once the lock is let go
 *
 * The vblank timer may not have begun the refresh @when falls in yet (it
 * runs late, or vblank interrupts are off): then it is begun here. A flip
 * that lands in its active lines tears it.
 */
void flipkms_scan_async(struct flipkms_output *out,
			struct flipkms_frame *frame, ktime_t when,
			struct flipkms_scan_done *done)
{
	struct flipkms_frame *torn = frame ? frame->spare : NULL;
	s64 period;
	ktime_t start = flipkms_refresh_at(out, when, &period);
	ktime_t last;
	u64 vblank;
	int line;

	lockdep_assert_held(&out->lock);
	if (!out->scan || ktime_after(start, out->scan_start)) {
		flipkms_scan_end(out, start, false, done);
		/* The count the core will give that vblank. */
		last = READ_ONCE(out->last_vblank);
		vblank = drm_crtc_vblank_count(&out->crtc);
		if (ktime_after(start, last) && period > 0)
			vblank += div64_s64(ktime_to_ns(ktime_sub(start, last)), period);
		flipkms_scan_begin(out, start, vblank, done);
	}
	if (!torn || !out->scan || out->scan->width != frame->width ||
	    out->scan->height != frame->height)
		return;
	line = flipkms_tear_line(ktime_to_ns(ktime_sub(when, start)), period,
				 frame->vtotal);
	/* In the blanking: the next refresh shows @frame whole. */
	if (line >= frame->height)
		return;

	frame->spare = NULL;
	torn->seqno = frame->seqno;
	torn->width = frame->width;
	torn->height = frame->height;
	torn->vtotal = frame->vtotal;
	torn->above = out->scan;	/* the refresh's reference moves */
	torn->below = flipkms_frame_get(frame);
	torn->tear_row = line;
	out->scan = torn;
	/* Every composition promised for the refresh reads @frame too. */
	flipkms_frame_promise(frame, out->scan_readers);
}

/**
 * flipkms_scan_finish() - what ending a refresh left to do, unlocked
 * @out:	the output
 * @done:	from flipkms_scan_end() and flipkms_scan_begin()
 */
void flipkms_scan_finish(struct flipkms_output *out,
			 struct flipkms_scan_done *done)
{
	while (done->vblank_puts) {
		done->vblank_puts--;
		drm_crtc_vblank_put(&out->crtc);
	}
}

/**
 * flipkms_scan_to_read() - the picture on screen, to compose now
 * @out: the output
 *
 * The refresh in progress, torn as far as async flips have torn it, when
 * its lowest rows show the frame on screen; otherwise (a flip in the
 * blanking, or latched by a vblank that has not begun its refresh yet) the
 * frame on screen, which the rest of the scan, or the next one, shows.
 *
 * Return: A reference with a promise to read it (flipkms_frame_read_done()),
 * or NULL while the CRTC is off.
 */
struct flipkms_frame *flipkms_scan_to_read(struct flipkms_output *out)
{
	struct flipkms_frame *frame;
	unsigned long flags;

	spin_lock_irqsave(&out->lock, flags);
	frame = out->scan;
	if (!frame || (frame->below ?: frame) != out->shown)
		frame = out->shown;
	frame = flipkms_frame_get(frame);
	flipkms_frame_promise(frame, 1);
	spin_unlock_irqrestore(&out->lock, flags);
	return frame;
}

/**
 * flipkms_scan_crc_off() - CRCs are off: the refresh in progress needs none
 * @out: the output, whose source was just turned off
 */
void flipkms_scan_crc_off(struct flipkms_output *out)
{
	unsigned long flags;

	spin_lock_irqsave(&out->lock, flags);
	if (out->scan_crc) {
		out->scan_crc = false;
		out->scan_readers--;
		flipkms_frame_read_done(out, out->scan);
	}
	spin_unlock_irqrestore(&out->lock, flags);
}
