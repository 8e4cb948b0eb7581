/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * A frame: what one commit puts on a CRTC, captured when it is flushed,
 * with references on its framebuffers, which keep them and their mappings
 * (flipkms_fb.c) for as long as anybody may compose it. It is what the
 * CRTC shows from the vblank that latches the commit until the vblank
 * that latches the next one; CRCs, frame.ppm and writeback compose it
 * without any modeset lock.
 */

#ifndef _FLIPKMS_FRAME_H
#define _FLIPKMS_FRAME_H

#include <linux/iosys-map.h>
#include <linux/kref.h>
#include <linux/llist.h>

#include <drm/drm_color_mgmt.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_rect.h>

#include "flipkms_drv.h"

/**
 * struct flipkms_frame_plane - one visible plane of a frame
 * @fb:		its framebuffer; the frame holds a reference
 * @data:	where each colour plane starts, in the mapping @fb keeps
 * @src:	the source rectangle, 16.16 fixed point
 * @dst:	where it lands on the CRTC
 * @zpos:	its normalized zpos
 */
struct flipkms_frame_plane {
	struct drm_framebuffer *fb;
	struct iosys_map data[DRM_FORMAT_MAX_PLANES];
	struct drm_rect src;
	struct drm_rect dst;
	unsigned int zpos;
};

/**
 * struct flipkms_frame - a CRTC's content, as one commit set it
 * @kref:	the output's pending and shown slots, queued CRC requests and
 *		compositions in progress each hold one
 * @free_link:	queued for release in process context (the last reference
 *		on a framebuffer frees it, which sleeps)
 * @seqno:	the number of the commit whose flush filled it in
 * @width:	the mode's active width
 * @height:	and height
 * @has_lut:	whether @lut applies
 * @lut:	a copy of the CRTC's GAMMA_LUT
 * @num_planes:	entries of @planes in use
 * @planes:	the visible planes, lowest zpos first
 * @crc_done:	@crc holds the frame's CRC (set once, with release order)
 * @crc:	CRC32 of the composed frame, ARGB16161616 little endian
 * @readers:	compositions promised that still have to read its buffers (a
 *		CRC not yet computed, a writeback job not yet written, a
 *		frame.ppm being made): the latch that takes the frame off
 *		screen holds its fences and events until they are done
 */
struct flipkms_frame {
	struct kref kref;
	struct llist_node free_link;
	u64 seqno;
	int width, height;
	bool has_lut;
	struct drm_color_lut lut[FLIPKMS_LUT_SIZE];
	unsigned int num_planes;
	struct flipkms_frame_plane planes[2 + FLIPKMS_MAX_OVERLAYS];
	bool crc_done;
	u32 crc;
	atomic_t readers;
};

static inline struct flipkms_frame *flipkms_frame_get(struct flipkms_frame *frame)
{
	if (frame)
		kref_get(&frame->kref);
	return frame;
}

void flipkms_frame_put(struct flipkms_frame *frame);
void flipkms_frames_drain(void);

/* flipkms_composer.c */
void flipkms_latch_shown(struct flipkms_output *out,
			 struct flipkms_frame *replaced, u64 seqno,
			 struct list_head *events, ktime_t when, bool async);
void flipkms_frame_read_done(struct flipkms_output *out,
			     struct flipkms_frame *frame);

/* flipkms_fb.c */
bool flipkms_fb_data(const struct drm_framebuffer *fb, struct iosys_map *data);

#endif /* _FLIPKMS_FRAME_H */
