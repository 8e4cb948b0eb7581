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

#include "flipkms_color.h"
#include "flipkms_drv.h"

/**
 * struct flipkms_frame_plane - one visible plane of a frame
 * @fb:		its framebuffer; the frame holds a reference
 * @data:	where each colour plane starts, in the mapping @fb keeps
 * @src:	the source rectangle, 16.16 fixed point
 * @dst:	where it lands on the CRTC
 * @zpos:	its normalized zpos
 * @color_encoding:	the plane's COLOR_ENCODING, for YCbCr formats
 * @color_range:	and its COLOR_RANGE
 * @rotation:	its ROTATION: how @src turns and reflects onto @dst
 *		(flipkms_blend.c)
 */
struct flipkms_frame_plane {
	struct drm_framebuffer *fb;
	struct iosys_map data[DRM_FORMAT_MAX_PLANES];
	struct drm_rect src;
	struct drm_rect dst;
	unsigned int zpos;
	enum drm_color_encoding color_encoding;
	enum drm_color_range color_range;
	unsigned int rotation;
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
 * @color:	the CRTC's colour stages
 * @num_planes:	entries of @planes in use
 * @planes:	the visible planes, lowest zpos first
 * @crc_done:	@crc holds the frame's CRC (set once, with release order)
 * @crc:	CRC32 of the composed frame, ARGB16161616 little endian
 * @readers:	compositions promised that still have to read its buffers (a
 *		CRC not yet computed, a writeback job not yet written, a
 *		frame.ppm being made): the latch that takes the frame off
 *		screen holds its fences and events until they are done
 * @vtotal:	the mode's vertical total, for the line an async flip tears
 * @above:	a torn refresh (flipkms_scan.c): rows above @tear_row come
 *		from @above, a frame or a torn refresh (a reference); it has
 *		no planes of its own
 * @below:	and rows from @tear_row down from @below, the frame an async
 *		flip put on screen (a reference)
 * @tear_row:	the first row of @below
 * @spare:	an async flip's: the torn refresh it may make, allocated
 *		with the frame so that the flip allocates nothing
 */
struct flipkms_frame {
	struct kref kref;
	struct llist_node free_link;
	u64 seqno;
	int width, height;
	struct flipkms_color color;
	unsigned int num_planes;
	struct flipkms_frame_plane planes[2 + FLIPKMS_MAX_OVERLAYS];
	bool crc_done;
	u32 crc;
	atomic_t readers;
	int vtotal;
	struct flipkms_frame *above;
	struct flipkms_frame *below;
	int tear_row;
	struct flipkms_frame *spare;
};

static inline struct flipkms_frame *flipkms_frame_get(struct flipkms_frame *frame)
{
	if (frame)
		kref_get(&frame->kref);
	return frame;
}

void flipkms_frame_put(struct flipkms_frame *frame);
void flipkms_frames_drain(void);
void flipkms_frame_promise(struct flipkms_frame *frame, unsigned int n);
void flipkms_frame_compose_row(const struct flipkms_frame *frame, int y,
			       struct flipkms_pixel *line);

/* flipkms_scan.c: what each refresh scans out */

/**
 * struct flipkms_scan_done - what ending a refresh leaves to do unlocked
 * @vblank_puts:	vblank references of writeback jobs handed their
 *			refresh, to drop once &flipkms_output.lock is let go
 */
struct flipkms_scan_done {
	unsigned int vblank_puts;
};

void flipkms_scan_end(struct flipkms_output *out, ktime_t when, bool force,
		      struct flipkms_scan_done *done);
void flipkms_scan_begin(struct flipkms_output *out, ktime_t start, u64 vblank,
			struct flipkms_scan_done *done);
void flipkms_scan_async(struct flipkms_output *out,
			struct flipkms_frame *frame, ktime_t when,
			struct flipkms_scan_done *done);
void flipkms_scan_finish(struct flipkms_output *out,
			 struct flipkms_scan_done *done);
struct flipkms_frame *flipkms_scan_to_read(struct flipkms_output *out);
void flipkms_scan_crc_off(struct flipkms_output *out);
int flipkms_tear_line(s64 since, s64 period, int vtotal);

/* flipkms_composer.c */
void flipkms_latch_shown(struct flipkms_output *out,
			 struct flipkms_frame *replaced, u64 seqno,
			 struct list_head *events, ktime_t when, bool async);
void flipkms_frame_read_done(struct flipkms_output *out,
			     struct flipkms_frame *frame);
void flipkms_crc_refresh(struct flipkms_output *out,
			 struct flipkms_frame *frame, u64 vblank);

/* flipkms_writeback.c */
void flipkms_writeback_subscribe(struct flipkms_output *out,
				 struct flipkms_frame *scan,
				 unsigned int *readers,
				 struct flipkms_scan_done *done);
void flipkms_writeback_refresh_done(struct flipkms_output *out,
				    struct flipkms_frame *scan,
				    struct flipkms_scan_done *done);

/* flipkms_fb.c */
bool flipkms_fb_data(const struct drm_framebuffer *fb, struct iosys_map *data);

#endif /* _FLIPKMS_FRAME_H */
