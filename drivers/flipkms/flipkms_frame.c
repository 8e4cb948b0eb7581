// SPDX-License-Identifier: GPL-2.0+
/*
 * Frames: each commit's content is captured when the commit is flushed
 * (its memory was allocated when it was checked) and travels with it: to
 * the output's pending slot, then to the shown slot at the vblank that
 * latches it (flipkms_crtc.c). A frame holds a reference on each of its
 * framebuffers, and a framebuffer keeps the mapping the commit's
 * prepare_fb made until it is destroyed (flipkms_fb.c), so composing a
 * frame needs no modeset lock and cannot race the plane cleanup of a later
 * commit, and the flush neither maps nor sleeps nor fails. The last
 * reference may go in the vblank timer; dropping the framebuffers, which
 * may free them, then waits for a work item.
 */

#include <linux/slab.h>
#include <linux/workqueue.h>

#include <drm/drm_framebuffer.h>

#include "flipkms_frame.h"

static LLIST_HEAD(flipkms_frames_to_free);

static void flipkms_frame_free(struct flipkms_frame *frame)
{
	unsigned int i;

	for (i = 0; i < frame->num_planes; i++)
		drm_framebuffer_put(frame->planes[i].fb);
	/* A torn refresh lets its frames go; they queue behind this one. */
	flipkms_frame_put(frame->above);
	flipkms_frame_put(frame->below);
	kfree(frame->spare);
	kfree(frame);
}

static void flipkms_frames_free_work(struct work_struct *work)
{
	struct flipkms_frame *frame, *next;
	struct llist_node *list = llist_del_all(&flipkms_frames_to_free);

	llist_for_each_entry_safe(frame, next, list, free_link)
		flipkms_frame_free(frame);
}

static DECLARE_WORK(flipkms_frames_free, flipkms_frames_free_work);

static void flipkms_frame_release(struct kref *kref)
{
	struct flipkms_frame *frame = container_of(kref, struct flipkms_frame,
						   kref);

	if (llist_add(&frame->free_link, &flipkms_frames_to_free))
		schedule_work(&flipkms_frames_free);
}

/**
 * flipkms_frame_put() - drop a reference to a frame
 * @frame: the frame, or NULL
 *
 * Safe in any context: the framebuffers are let go from a work item.
 */
void flipkms_frame_put(struct flipkms_frame *frame)
{
	if (frame)
		kref_put(&frame->kref, flipkms_frame_release);
}

/*
 * Teardown: frees what flipkms_frame_put() has queued so far, and what
 * freeing a torn refresh queued in turn.
 */
void flipkms_frames_drain(void)
{
	do {
		flush_work(&flipkms_frames_free);
	} while (!llist_empty(&flipkms_frames_to_free));
}

/**
 * flipkms_frame_promise() - promise compositions of a frame
 * @frame:	a frame or a torn refresh, or NULL
 * @n:		how many compositions
 *
 * Counts them in the readers of each frame whose rows it shows, which
 * flipkms_frame_read_done() counts down again: the latch that takes one of
 * them off screen holds its fences and events until they are done.
 */
void flipkms_frame_promise(struct flipkms_frame *frame, unsigned int n)
{
	for (; frame && n; frame = frame->above) {
		if (frame->below)
			atomic_add(n, &frame->below->readers);
		else
			atomic_add(n, &frame->readers);
	}
}

/* Adds @ps to @frame in zpos order, read through its kept mapping. */
static void flipkms_frame_add_plane(struct flipkms_frame *frame,
				    const struct drm_plane_state *ps)
{
	struct flipkms_frame_plane plane = {
		.fb = ps->fb,
		.src = ps->src,
		.dst = ps->dst,
		.zpos = ps->normalized_zpos,
		.color_encoding = ps->color_encoding,
		.color_range = ps->color_range,
		.rotation = ps->rotation,
	};
	unsigned int i;

	if (!ps->fb || !ps->visible ||
	    WARN_ON(frame->num_planes == ARRAY_SIZE(frame->planes)))
		return;
	/* Every commit that showed the fb had prepare_fb map it for good. */
	if (WARN_ON_ONCE(!flipkms_fb_data(ps->fb, plane.data)))
		return;
	drm_framebuffer_get(ps->fb);

	/* Insertion sort: a handful of planes. */
	for (i = frame->num_planes; i > 0 && frame->planes[i - 1].zpos > plane.zpos; i--)
		frame->planes[i] = frame->planes[i - 1];
	frame->planes[i] = plane;
	frame->num_planes++;
}

/**
 * flipkms_frame_alloc() - memory for the frame a commit will show
 * @fstate: a CRTC state being checked
 *
 * Called from the CRTC's atomic_check, where a commit can still fail, so
 * that the flush, which cannot, only fills the frame in. A CRTC that will
 * be off gets none.
 *
 * Return: 0 or -ENOMEM.
 */
int flipkms_frame_alloc(struct flipkms_crtc_state *fstate)
{
	struct flipkms_frame *frame;

	if (!fstate->base.active || fstate->frame)
		return 0;
	frame = kzalloc(sizeof(*frame), GFP_KERNEL);
	if (!frame)
		return -ENOMEM;
	kref_init(&frame->kref);
	/* An async flip may tear the refresh it lands in. */
	if (fstate->base.async_flip) {
		frame->spare = kzalloc(sizeof(*frame->spare), GFP_KERNEL);
		if (!frame->spare) {
			kfree(frame);
			return -ENOMEM;
		}
		kref_init(&frame->spare->kref);
	}
	fstate->frame = frame;
	return 0;
}

/**
 * flipkms_frame_fill() - capture what a flushed commit shows
 * @frame:	from flipkms_frame_alloc(), or NULL for a CRTC that is off
 * @crtc_state:	the CRTC's state, swapped in
 *
 * Called from atomic_flush: the plane states of the CRTC are the commit's
 * (or ones it left alone), and no later commit can swap its own in before
 * this commit's hw_done.
 */
void flipkms_frame_fill(struct flipkms_frame *frame,
			const struct drm_crtc_state *crtc_state)
{
	const struct flipkms_crtc_state *fstate =
		container_of(crtc_state, struct flipkms_crtc_state, base);
	struct drm_plane *plane;

	if (!frame)
		return;
	frame->seqno = fstate->seqno;
	frame->width = crtc_state->mode.hdisplay;
	frame->height = crtc_state->mode.vdisplay;
	frame->vtotal = crtc_state->adjusted_mode.crtc_vtotal;
	flipkms_color_capture(&frame->color, crtc_state);
	drm_for_each_plane_mask(plane, crtc_state->crtc->dev, crtc_state->plane_mask)
		flipkms_frame_add_plane(frame, plane->state);
}
