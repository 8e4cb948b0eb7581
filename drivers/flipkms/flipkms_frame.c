// SPDX-License-Identifier: GPL-2.0+
/*
 * Frames: each commit's content is captured when the commit is flushed
 * (its memory was allocated when it was checked) and travels with it: to
 * the output's pending slot, then to the shown slot at the vblank that
 * latches it (flipkms_crtc.c). A frame maps its buffers itself (the GEM
 * vmap is reference counted and prepare_fb mapped them already, so this
 * only counts), so composing it needs no modeset lock and cannot race the
 * plane cleanup of a later commit. The last reference may go in the
 * vblank timer; the unmapping then waits for a work item.
 */

#include <linux/slab.h>
#include <linux/workqueue.h>

#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_framebuffer_helper.h>

#include "flipkms_frame.h"

static LLIST_HEAD(flipkms_frames_to_free);

static void flipkms_frame_free(struct flipkms_frame *frame)
{
	unsigned int i;

	for (i = 0; i < frame->num_planes; i++) {
		drm_gem_fb_vunmap(frame->planes[i].fb, frame->planes[i].map);
		drm_framebuffer_put(frame->planes[i].fb);
	}
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
 * Safe in any context: the buffers are unmapped from a work item.
 */
void flipkms_frame_put(struct flipkms_frame *frame)
{
	if (frame)
		kref_put(&frame->kref, flipkms_frame_release);
}

/* Teardown: frees what flipkms_frame_put() has queued so far. */
void flipkms_frames_drain(void)
{
	flush_work(&flipkms_frames_free);
}

/* Adds @ps to @frame in zpos order, with the frame's own mapping. */
static void flipkms_frame_add_plane(struct flipkms_frame *frame,
				    const struct drm_plane_state *ps)
{
	struct flipkms_frame_plane plane = {
		.fb = ps->fb,
		.src = ps->src,
		.dst = ps->dst,
		.zpos = ps->normalized_zpos,
	};
	unsigned int i;

	if (!ps->fb || !ps->visible ||
	    WARN_ON(frame->num_planes == ARRAY_SIZE(frame->planes)))
		return;
	/*
	 * prepare_fb mapped the buffer for the shadow plane already, so this
	 * only counts; a plane that cannot be mapped is left out, as black.
	 */
	if (WARN_ON_ONCE(drm_gem_fb_vmap(ps->fb, plane.map, plane.data)))
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
 * Returns 0 or -ENOMEM.
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
	struct drm_plane *plane;

	if (!frame)
		return;
	frame->width = crtc_state->mode.hdisplay;
	frame->height = crtc_state->mode.vdisplay;
	/* atomic_check took only LUTs of exactly this size. */
	if (crtc_state->gamma_lut) {
		memcpy(frame->lut, crtc_state->gamma_lut->data, sizeof(frame->lut));
		frame->has_lut = true;
	}
	drm_for_each_plane_mask(plane, crtc_state->crtc->dev, crtc_state->plane_mask)
		flipkms_frame_add_plane(frame, plane->state);
}
