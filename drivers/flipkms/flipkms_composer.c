// SPDX-License-Identifier: GPL-2.0+
/*
 * The composer: composes a CRTC's frames a line at a time (flipkms_blend.c)
 * when something needs their pixels, and only then. It serves the DRM CRC
 * interface (source "auto": a CRC32 of the composed frame per vblank) and
 * the frame.ppm debugfs file.
 * It composes what a refresh showed (flipkms_scan.c): the frame a vblank
 * latched (flipkms_frame.h), or the bands of several where async flips
 * tore the refresh, through the framebuffers' kept mappings, so no modeset
 * lock is taken.
 *
 * A composition reads the buffers after the vblank that showed them, but
 * the flip event of the commit that takes a frame off screen hands its
 * buffers back to the client, which may draw into them at once. So that
 * a CRC or a written-back buffer never shows half of the next picture,
 * that latch holds its out-fences and events (not their timestamps, which
 * stay the vblank's) until the compositions promised for the frame it
 * replaced are done (flipkms_latch_shown()). Without a CRC source, a
 * writeback job or a frame.ppm open, nothing is held.
 */

#include <linux/crc32.h>
#include <linux/dma-fence.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include <drm/drm_atomic.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_file.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_vblank.h>

#include "flipkms_blend.h"
#include "flipkms_drv.h"
#include "flipkms_frame.h"

/**
 * flipkms_frame_compose_row() - compose one row of a frame or torn refresh
 * @frame:	the frame, or a torn refresh
 * @y:		the row
 * @line:	room for the row
 *
 * A torn refresh's row is its band's frame's: from @below at and under the
 * tear, from @above over it.
 */
void flipkms_frame_compose_row(const struct flipkms_frame *frame, int y,
			       struct flipkms_pixel *line)
{
	while (frame->below)
		frame = y >= frame->tear_row ? frame->below : frame->above;
	flipkms_compose_line(frame, y, line);
}

/**
 * flipkms_compose_into() - write a frame into a buffer
 * @frame:	the frame
 * @fb:		a framebuffer of the frame's size, in a format
 *		flipkms_format_store() writes
 * @vaddr:	its first colour plane, mapped
 * @line:	room for one composed line of @fb's width
 *
 * Each channel is the composed one's upper bits, alpha (or X) all ones:
 * the composed frame is opaque. Allocates nothing, so that it can run
 * where a fence is signalled.
 *
 * Context: process context; may sleep between lines.
 *
 * Return: 0, or -EINVAL for a buffer that does not fit.
 */
int flipkms_compose_into(const struct flipkms_frame *frame,
			 const struct drm_framebuffer *fb, void *vaddr,
			 struct flipkms_pixel *line)
{
	int y;

	if (fb->width != frame->width || fb->height != frame->height || !vaddr)
		return -EINVAL;
	for (y = 0; y < frame->height; y++) {
		flipkms_frame_compose_row(frame, y, line);
		cond_resched();
		if (!flipkms_format_store(fb->format->format, line, frame->width,
					  (u8 *)vaddr + y * fb->pitches[0]))
			return -EINVAL;
	}
	return 0;
}

/* Latches held until the frame they replace is composed */

/**
 * struct flipkms_held_latch - a latch whose fences and events wait
 * @link:	in &flipkms_output.held, in latch order
 * @replaced:	the frame it took off screen (a reference), or NULL
 * @seqno:	the latest commit it latched
 * @vblank:	the count of the vblank that latched it
 * @when:	that vblank's time, which its fences and events carry (an
 *		async flip's: the time it took effect)
 * @async:	it latched an async flip
 * @events:	its events
 */
struct flipkms_held_latch {
	struct list_head link;
	struct flipkms_frame *replaced;
	u64 seqno;
	u64 vblank;
	ktime_t when;
	bool async;
	struct list_head events;
};

/*
 * Completes a held latch: its fences, then its events, sent as
 * drm_crtc_send_vblank_event() would have at its vblank: that vblank's
 * count and time, not the latest ones.
 */
static void flipkms_release_held(struct flipkms_output *out,
				 struct flipkms_held_latch *h)
{
	LIST_HEAD(none);

	flipkms_latch(out, h->seqno, &none, h->when, h->async);
	flipkms_send_events(out, &h->events, h->vblank, h->when);
	flipkms_frame_put(h->replaced);
}

/*
 * Releases held latches in order, each once the frame it replaced has no
 * composition left to do. A latch stays on the list until it is complete,
 * so that later latches queue behind it and the timeline moves in order.
 */
static void flipkms_release_work(struct work_struct *work)
{
	struct flipkms_output *out = container_of(work, struct flipkms_output,
						  release_work);
	struct flipkms_held_latch *h;
	bool cookie;

	for (;;) {
		spin_lock_irq(&out->lock);
		h = list_first_entry_or_null(&out->held,
					     struct flipkms_held_latch, link);
		if (h && h->replaced && atomic_read(&h->replaced->readers))
			h = NULL;
		spin_unlock_irq(&out->lock);
		if (!h)
			return;

		cookie = dma_fence_begin_signalling();
		flipkms_release_held(out, h);
		dma_fence_end_signalling(cookie);
		spin_lock_irq(&out->lock);
		list_del(&h->link);
		spin_unlock_irq(&out->lock);
		kfree(h);
	}
}

/**
 * flipkms_latch_shown() - complete a latch once its buffers may go back
 * @out:	the output
 * @replaced:	the frame the latch took off screen, or NULL
 * @seqno:	the latest commit latched
 * @events:	their events, taken off this list
 * @when:	the latching vblank's time, or when an async flip took effect
 * @async:	an async flip, latched at once between vblanks
 *
 * Signals the out-fences and sends the events (flipkms_latch()) now, or,
 * while compositions of @replaced are still to read its buffers or an
 * earlier latch is held, holds them, stamped with @when and the current
 * vblank count, until the compositions are done.
 *
 * Context: any; called with no lock held.
 */
void flipkms_latch_shown(struct flipkms_output *out,
			 struct flipkms_frame *replaced, u64 seqno,
			 struct list_head *events, ktime_t when, bool async)
{
	struct flipkms_held_latch *h = NULL;
	unsigned long flags;
	bool hold;

	/* @replaced is off screen: its readers can only go down from here. */
	spin_lock_irqsave(&out->lock, flags);
	hold = !list_empty(&out->held) ||
	       (replaced && atomic_read(&replaced->readers));
	spin_unlock_irqrestore(&out->lock, flags);
	if (hold) {
		h = kmalloc(sizeof(*h), GFP_ATOMIC);
		if (!h)
			atomic64_inc(&out->held_lost);
	}
	if (!hold || !h) {
		flipkms_latch(out, seqno, events, when, async);
		return;
	}

	h->replaced = flipkms_frame_get(replaced);
	h->seqno = seqno;
	h->vblank = drm_crtc_vblank_count(&out->crtc);
	h->when = when;
	h->async = async;
	INIT_LIST_HEAD(&h->events);
	list_splice_init(events, &h->events);
	spin_lock_irqsave(&out->lock, flags);
	list_add_tail(&h->link, &out->held);
	spin_unlock_irqrestore(&out->lock, flags);
	atomic64_inc(&out->held_latches);
	/* It may be ready already; the work looks. */
	queue_work(system_unbound_wq, &out->release_work);
}

/**
 * flipkms_frame_read_done() - a promised composition of @frame is done
 * @out:	its output
 * @frame:	the frame, whose @readers the promise counted, or a torn
 *		refresh, whose frames' @readers it counted
 *
 * Context: any.
 */
void flipkms_frame_read_done(struct flipkms_output *out,
			     struct flipkms_frame *frame)
{
	struct flipkms_frame *shown;

	for (; frame; frame = frame->above) {
		shown = frame->below ?: frame;
		/*
		 * flipkms_latch_shown() lists a held latch, then queues the
		 * work: either this sees the latch listed, or the work it
		 * queues sees this decrement (atomic_dec_and_test() and
		 * queue_work() are both full barriers).
		 */
		if (atomic_dec_and_test(&shown->readers) &&
		    !list_empty_careful(&out->held))
			queue_work(system_unbound_wq, &out->release_work);
	}
}

/* The size of the frame on screen, without a read promise. */
static bool flipkms_shown_size(struct flipkms_output *out, int *width,
			       int *height)
{
	unsigned long flags;
	bool shown;

	spin_lock_irqsave(&out->lock, flags);
	shown = out->shown;
	if (shown) {
		*width = out->shown->width;
		*height = out->shown->height;
	}
	spin_unlock_irqrestore(&out->lock, flags);
	return shown;
}

/* CRCs */

static const char *const flipkms_crc_sources[] = { "auto" };

const char *const *flipkms_get_crc_sources(struct drm_crtc *crtc,
					   size_t *count)
{
	*count = ARRAY_SIZE(flipkms_crc_sources);
	return flipkms_crc_sources;
}

int flipkms_verify_crc_source(struct drm_crtc *crtc, const char *source,
			      size_t *values_cnt)
{
	if (source && strcmp(source, "auto"))
		return -EINVAL;
	*values_cnt = 1;
	return 0;
}

/* Drops the queued CRC requests, with their promises. */
static void flipkms_crc_drain(struct flipkms_output *out)
{
	struct flipkms_crc_request req;

	for (;;) {
		spin_lock_irq(&out->crc_lock);
		if (!out->crc_len) {
			spin_unlock_irq(&out->crc_lock);
			return;
		}
		req = out->crc_queue[out->crc_head];
		out->crc_head = (out->crc_head + 1) % FLIPKMS_CRC_QUEUE;
		out->crc_len--;
		spin_unlock_irq(&out->crc_lock);
		flipkms_frame_read_done(out, req.frame);
		flipkms_frame_put(req.frame);
	}
}

/*
 * The vblank timer must run while CRCs are wanted: hold a vblank reference.
 * Turning CRCs off drops the vblanks still waiting for their CRC, whose
 * entries would otherwise reach the next session (which numbers them in
 * the past).
 */
int flipkms_set_crc_source(struct drm_crtc *crtc, const char *source)
{
	struct flipkms_output *out = crtc_to_flipkms_output(crtc);
	bool enable = source && !strcmp(source, "auto");
	int ret;

	if (source && !enable)
		return -EINVAL;
	if (enable == out->crc_enabled)
		return 0;

	if (enable) {
		/*
		 * crc/data is drm.ko's file: while it is open (the source is
		 * set) nothing else keeps flipkms loaded, and its release
		 * calls back here. Pin the module until then.
		 */
		if (!try_module_get(THIS_MODULE))
			return -ENODEV;
		out->crc_line = kvmalloc_array(crtc->dev->mode_config.max_width,
					       sizeof(*out->crc_line),
					       GFP_KERNEL);
		if (!out->crc_line) {
			module_put(THIS_MODULE);
			return -ENOMEM;
		}
		ret = drm_crtc_vblank_get(crtc);
		if (ret) {
			kvfree(out->crc_line);
			out->crc_line = NULL;
			module_put(THIS_MODULE);
			return ret;
		}
	}
	spin_lock_irq(&out->crc_lock);
	WRITE_ONCE(out->crc_enabled, enable);
	spin_unlock_irq(&out->crc_lock);
	if (enable)
		return 0;
	flipkms_scan_crc_off(out);
	drm_crtc_vblank_put(crtc);
	/* Nothing of this session may reach the next one. */
	cancel_work_sync(&out->crc_work);
	flipkms_crc_drain(out);
	kvfree(out->crc_line);
	out->crc_line = NULL;
	module_put(THIS_MODULE);
	return 0;
}

/* The CRC of @frame, composed the first time it is asked for. */
static int flipkms_frame_crc(struct flipkms_output *out,
			     struct flipkms_frame *frame, u32 *crc)
{
	struct flipkms_pixel *line = out->crc_line;
	u32 value = 0;
	int y;

	/* Pairs with the release below: a frame's CRC is written once. */
	if (smp_load_acquire(&frame->crc_done)) {
		*crc = frame->crc;
		return 0;
	}
	if (WARN_ON_ONCE(!line ||
			 frame->width > out->crtc.dev->mode_config.max_width))
		return -EINVAL;
	for (y = 0; y < frame->height; y++) {
		flipkms_frame_compose_row(frame, y, line);
		value = crc32_le(value, (const u8 *)line,
				 frame->width * sizeof(*line));
		/* A large frame takes long to compose under emulation. */
		cond_resched();
	}
	atomic64_inc(&out->compositions);

	frame->crc = value;
	/* @crc before @crc_done, for readers that do not take crc_lock. */
	smp_store_release(&frame->crc_done, true);
	*crc = value;
	return 0;
}

/* Call with crc_lock held: the entry of @vblank, showing CRC @crc. */
static void flipkms_crc_entry(struct flipkms_output *out, u64 vblank, u32 crc)
{
	lockdep_assert_held(&out->crc_lock);
	if (!drm_crtc_add_crc_entry(&out->crtc, true, vblank, &crc))
		atomic64_inc(&out->crc_entries);
}

/*
 * Entries go out in vblank order: the oldest queued request leaves the
 * queue only once its entry is added, and the vblank timer adds an entry
 * itself only when the queue is empty.
 */
static void flipkms_crc_work(struct work_struct *work)
{
	struct flipkms_output *out = container_of(work, struct flipkms_output,
						  crc_work);
	struct flipkms_crc_request req;
	bool ok, cookie;
	u32 crc;

	for (;;) {
		spin_lock_irq(&out->crc_lock);
		if (!out->crc_len) {
			spin_unlock_irq(&out->crc_lock);
			return;
		}
		req = out->crc_queue[out->crc_head];
		spin_unlock_irq(&out->crc_lock);

		/*
		 * Only this work takes requests off the queue. A held latch's
		 * fences wait for this composition.
		 */
		cookie = dma_fence_begin_signalling();
		ok = !flipkms_frame_crc(out, req.frame, &crc);
		dma_fence_end_signalling(cookie);

		spin_lock_irq(&out->crc_lock);
		if (ok)
			flipkms_crc_entry(out, req.vblank, crc);
		else
			atomic64_inc(&out->crc_dropped);
		out->crc_head = (out->crc_head + 1) % FLIPKMS_CRC_QUEUE;
		out->crc_len--;
		spin_unlock_irq(&out->crc_lock);
		flipkms_frame_read_done(out, req.frame);
		flipkms_frame_put(req.frame);
		/* A composer slower than the vblanks never finds the queue empty. */
		cond_resched();
	}
}

/**
 * flipkms_crc_refresh() - the CRC entry of a refresh that is over
 * @out:	the output
 * @frame:	what the refresh showed, with a reference and a promise to
 *		read it, both passed on here
 * @vblank:	the count of the vblank that began it
 *
 * Every refresh that began while CRCs were on gets an entry with the CRC of
 * what it showed, in vblank order. A frame is composed once, in a work
 * item; until its CRC is known the refreshes wait in order, and while
 * FLIPKMS_CRC_QUEUE of them wait, new ones get no entry (counted in
 * crc_dropped).
 *
 * Context: any; called with &flipkms_output.lock held, which keeps the
 * entries in order.
 */
void flipkms_crc_refresh(struct flipkms_output *out,
			 struct flipkms_frame *frame, u64 vblank)
{
	unsigned long flags;
	unsigned int tail;
	bool queued = false;

	spin_lock_irqsave(&out->crc_lock, flags);
	/* Pairs with flipkms_frame_crc()'s release: @crc is written. */
	if (!out->crc_enabled) {
		/* Turned off since: the queue was drained. */
	} else if (!out->crc_len && smp_load_acquire(&frame->crc_done)) {
		flipkms_crc_entry(out, vblank, frame->crc);
	} else if (out->crc_len == FLIPKMS_CRC_QUEUE) {
		atomic64_inc(&out->crc_dropped);
	} else {
		tail = (out->crc_head + out->crc_len) % FLIPKMS_CRC_QUEUE;
		out->crc_queue[tail] = (struct flipkms_crc_request){
			.vblank = vblank,
			.frame = frame,
		};
		out->crc_len++;
		queued = true;	/* the queue's reference and promise now */
		queue_work(system_unbound_wq, &out->crc_work);
	}
	spin_unlock_irqrestore(&out->crc_lock, flags);
	if (!queued) {
		flipkms_frame_read_done(out, frame);
		flipkms_frame_put(frame);
	}
}

/**
 * flipkms_composer_vblank() - a vblank ends a refresh and begins the next
 * @out:	the output, from its vblank timer, after the vblank's latch
 * @when:	the vblank's ideal time
 */
void flipkms_composer_vblank(struct flipkms_output *out, ktime_t when)
{
	struct flipkms_scan_done done = {};
	unsigned long flags;

	spin_lock_irqsave(&out->lock, flags);
	flipkms_scan_begin(out, when, drm_crtc_vblank_count(&out->crtc), &done);
	spin_unlock_irqrestore(&out->lock, flags);
	flipkms_scan_finish(out, &done);
}

/**
 * flipkms_composer_vblank_end() - a vblank ends the refresh in progress
 * @out:	the output, from its vblank timer, before the vblank's latch
 * @when:	the vblank's ideal time
 *
 * Before the latch, so that a latch taking a frame off screen finds the
 * CRC of the refresh that ended given already, if it was known, and is
 * not held for it.
 */
void flipkms_composer_vblank_end(struct flipkms_output *out, ktime_t when)
{
	struct flipkms_scan_done done = {};
	unsigned long flags;

	spin_lock_irqsave(&out->lock, flags);
	flipkms_scan_end(out, when, false, &done);
	spin_unlock_irqrestore(&out->lock, flags);
	flipkms_scan_finish(out, &done);
}

int flipkms_composer_init(struct flipkms_output *out)
{
	spin_lock_init(&out->crc_lock);
	INIT_WORK(&out->crc_work, flipkms_crc_work);
	INIT_LIST_HEAD(&out->held);
	INIT_WORK(&out->release_work, flipkms_release_work);
	return 0;
}

/*
 * After the vblank timer stopped and the last commit: no request can come
 * in any more. Latches still held are completed now, whatever is left to
 * compose: the CRTC is off, its buffers no longer anybody's concern.
 */
void flipkms_composer_fini(struct flipkms_output *out)
{
	struct flipkms_held_latch *h;

	cancel_work_sync(&out->crc_work);
	flipkms_crc_drain(out);
	kvfree(out->crc_line);
	out->crc_line = NULL;
	/* Off: no refresh in progress is composed any more. */
	flipkms_frame_put(out->scan);
	out->scan = NULL;
	/*
	 * A writeback still composing would give its frame back and queue
	 * the release work again, which would then release the latches
	 * below at the same time as this loop.
	 */
	if (out->wb_ready)
		flush_work(&out->wb_work);
	cancel_work_sync(&out->release_work);
	for (;;) {
		spin_lock_irq(&out->lock);
		h = list_first_entry_or_null(&out->held,
					     struct flipkms_held_latch, link);
		spin_unlock_irq(&out->lock);
		if (!h)
			break;
		flipkms_release_held(out, h);
		spin_lock_irq(&out->lock);
		list_del(&h->link);
		spin_unlock_irq(&out->lock);
		kfree(h);
	}
}

/* frame.ppm: the frame on screen, composed when the file is opened. */

struct flipkms_ppm {
	size_t size;
	char data[];
};

static int flipkms_frame_open(struct inode *inode, struct file *file)
{
	struct flipkms_output *out = inode->i_private;
	struct flipkms_pixel *line = NULL;
	struct flipkms_frame *frame;
	struct flipkms_ppm *ppm;
	int header, x, y, width, height;
	bool cookie;
	u8 *rgb;

	/*
	 * Allocate before the read promise: from the promise on, the next
	 * latch's fences wait for this composition, which must not
	 * allocate. A frame of another size shown meanwhile: again.
	 */
	for (;;) {
		if (!flipkms_shown_size(out, &width, &height))
			return -ENODATA;
		ppm = vmalloc(sizeof(*ppm) + 32 + (size_t)width * height * 3);
		if (ppm)
			line = kvmalloc_array(width, sizeof(*line), GFP_KERNEL);
		if (!line) {
			vfree(ppm);
			return -ENOMEM;
		}
		frame = flipkms_scan_to_read(out);
		if (frame && frame->width == width && frame->height == height)
			break;
		if (frame) {
			flipkms_frame_read_done(out, frame);
			flipkms_frame_put(frame);
		}
		kvfree(line);
		line = NULL;
		vfree(ppm);
		if (!frame)
			return -ENODATA;
	}

	cookie = dma_fence_begin_signalling();
	header = snprintf(ppm->data, 32, "P6\n%d %d\n255\n", frame->width,
			  frame->height);
	rgb = (u8 *)ppm->data + header;
	for (y = 0; y < frame->height; y++) {
		flipkms_frame_compose_row(frame, y, line);
		cond_resched();
		for (x = 0; x < frame->width; x++) {
			*rgb++ = line[x].r >> 8;
			*rgb++ = line[x].g >> 8;
			*rgb++ = line[x].b >> 8;
		}
	}
	ppm->size = rgb - (u8 *)ppm->data;
	file->private_data = ppm;
	dma_fence_end_signalling(cookie);

	kvfree(line);
	flipkms_frame_read_done(out, frame);
	flipkms_frame_put(frame);
	return 0;
}

static ssize_t flipkms_frame_read(struct file *file, char __user *buf,
				  size_t len, loff_t *ppos)
{
	struct flipkms_ppm *ppm = file->private_data;

	return simple_read_from_buffer(buf, len, ppos, ppm->data, ppm->size);
}

static int flipkms_frame_release(struct inode *inode, struct file *file)
{
	vfree(file->private_data);
	return 0;
}

const struct file_operations flipkms_frame_fops = {
	.owner = THIS_MODULE,
	.open = flipkms_frame_open,
	.read = flipkms_frame_read,
	.release = flipkms_frame_release,
	.llseek = default_llseek,
};
