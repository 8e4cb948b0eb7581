/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * One line of a composed frame: the pixel arithmetic of the composer, on
 * its own so that the KUnit suite can hold it against a reference model.
 */

#ifndef _FLIPKMS_BLEND_H
#define _FLIPKMS_BLEND_H

#include <linux/types.h>

#include <drm/drm_mode.h>

struct flipkms_frame;
struct flipkms_frame_plane;

/*
 * One composed pixel; its layout is ARGB16161616's, which the CRC covers,
 * and it is aligned as a u64 for the composer's whole-pixel stores.
 */
struct flipkms_pixel {
	u16 b, g, r, a;
} __aligned(8);

/*
 * Where the framebuffer pixel that shows one destination pixel to the
 * right of another is, relative to that one's: a plane's ROTATION turns
 * rows of the destination into columns (rotate-90/270) or reverses them.
 * The core reflects first, then rotates counter-clockwise (drm_rect_rotate()).
 * A rotation of 0 (no rotate-* bit: a frame built by hand) reads as rotate-0.
 */
static inline void flipkms_rotation_step(unsigned int rotation, int *dx, int *dy)
{
	switch (rotation & DRM_MODE_ROTATE_MASK) {
	case DRM_MODE_ROTATE_90:
		*dx = 0;
		*dy = 1;
		break;
	case DRM_MODE_ROTATE_180:
		*dx = -1;
		*dy = 0;
		break;
	case DRM_MODE_ROTATE_270:
		*dx = 0;
		*dy = -1;
		break;
	default:
		*dx = 1;
		*dy = 0;
	}
	if (rotation & DRM_MODE_REFLECT_X)
		*dx = -*dx;
	if (rotation & DRM_MODE_REFLECT_Y)
		*dy = -*dy;
}

void flipkms_compose_line(const struct flipkms_frame *frame, int y,
			  struct flipkms_pixel *line);

/* flipkms_formats.c: the formats the fast paths leave to it */
bool flipkms_format_fetchable(u32 format);
void flipkms_format_fetch(const struct flipkms_frame_plane *fp, int sx, int sy,
			  int n, struct flipkms_pixel *dst);
bool flipkms_format_store(u32 format, const struct flipkms_pixel *line, int n,
			  u8 *dst);

#endif /* _FLIPKMS_BLEND_H */
