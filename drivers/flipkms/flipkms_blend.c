// SPDX-License-Identifier: GPL-2.0+
/*
 * One line of a frame: its visible planes in zpos order over an opaque
 * black background, in 16 bits per channel with premultiplied alpha (the
 * DRM default blend mode), then through the CRTC's colour stages if it has
 * any (flipkms_color.c).
 *
 * The result is bit-identical to the straightforward model, one pixel at a
 * time: dst = src + dst * (0xffff - src alpha) / 0xffff for each channel and
 * alpha, rounded down and clamped to 0xffff (tests/kunit/flipkms_blend_kunit.c
 * holds that model and compares the two on random frames). The loops here
 * skip the work that cannot change a bit of it:
 *
 * - The background is opaque and "over" keeps an opaque destination
 *   opaque, so the line's alpha is 0xffff throughout: it is never computed.
 * - Over the bare background, and wherever the source is opaque, "over"
 *   is the source itself (src + 0 * dst, or src + dst * 0): a plain
 *   conversion, row by row, with no blending.
 * - 8-bit alpha a is a * 257 in 16 bits and 0xffff is 255 * 257, so
 *   d * (0xffff - a * 257) / 0xffff is exactly d * (255 - a) / 255: 8-bit
 *   formats blend without going through a 16-bit alpha.
 * - A transparent source pixel of colour zero leaves the line as it is.
 * - The format is looked at once per plane and line, not per pixel, and
 *   each plane only over the span its destination (clipped to the CRTC by
 *   the atomic check) covers.
 *
 * Those fast paths read XRGB8888, ARGB8888, XRGB16161616, ARGB16161616 and
 * RGB565 themselves; every other format is read into the intermediate by
 * flipkms_formats.c, a span at a time, and blended from there.
 *
 * A rotated or reflected plane (its ROTATION anything but rotate-0) takes
 * that second way in every format: flipkms_formats.c walks its framebuffer
 * in the order the destination row shows it, from the pixel
 * flipkms_source_pixel() finds for the row's first one. The fast paths
 * stay as they were for rotate-0.
 */

#include <linux/math64.h>
#include <linux/minmax.h>

#include "flipkms_compat.h"
#if FLIPKMS_HAS_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#include <drm/drm_blend.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>

#include "flipkms_blend.h"
#include "flipkms_frame.h"

#define FLIPKMS_OPAQUE	0xffff

static const struct flipkms_pixel flipkms_background = { .a = FLIPKMS_OPAQUE };

static u16 expand(u32 value, unsigned int bits)
{
	return value * 0xffff / ((1 << bits) - 1);
}

static bool flipkms_known_format(u32 format)
{
	switch (format) {
	case DRM_FORMAT_ARGB8888:
	case DRM_FORMAT_XRGB8888:
	case DRM_FORMAT_ARGB16161616:
	case DRM_FORMAT_XRGB16161616:
	case DRM_FORMAT_RGB565:
		return true;
	}
	return false;
}

static void flipkms_fill(struct flipkms_pixel *dst, int n)
{
	int x;

	for (x = 0; x < n; x++)
		dst[x] = flipkms_background;
}

/*
 * A whole pixel as a u64, b in bits 0-15 to a in bits 48-63: one load or
 * store on a little-endian CPU, where that is the struct's own layout.
 */
static u64 flipkms_get(const struct flipkms_pixel *px)
{
#ifdef __LITTLE_ENDIAN
	return *(const u64 *)px;
#else
	return px->b | (u64)px->g << 16 | (u64)px->r << 32 | (u64)px->a << 48;
#endif
}

static void flipkms_set(struct flipkms_pixel *px, u64 bits)
{
#ifdef __LITTLE_ENDIAN
	*(u64 *)px = bits;
#else
	*px = (struct flipkms_pixel){
		.b = bits, .g = bits >> 16, .r = bits >> 32, .a = bits >> 48,
	};
#endif
}

/*
 * An XRGB8888 or ARGB8888 pixel read as a little-endian u32 (B, G, R from
 * the lowest byte), each channel c as c * 257, opaque: b, g and r go to the
 * low byte of their 16-bit lanes, and with c < 256, c * 257 is c | c << 8.
 */
static void flipkms_put8(struct flipkms_pixel *px, u32 v)
{
	u64 s = (v & 0xff) | (u64)(v & 0xff00) << 8 | (u64)(v & 0xff0000) << 16;

	flipkms_set(px, s | s << 8 | (u64)FLIPKMS_OPAQUE << 48);
}

/* An XRGB16161616 or ARGB16161616 pixel at @src, as it is, opaque. */
static void flipkms_put16(struct flipkms_pixel *px, const u8 *src)
{
	*px = (struct flipkms_pixel){
		.b = get_unaligned_le16(src),
		.g = get_unaligned_le16(src + 2),
		.r = get_unaligned_le16(src + 4),
		.a = FLIPKMS_OPAQUE,
	};
}

/* @n pixels of @format at @src into @dst as they are, alpha 0xffff. */
static void flipkms_convert(u32 format, const u8 *src, int n,
			    struct flipkms_pixel *dst)
{
	int x;
	u16 v;

	switch (format) {
	case DRM_FORMAT_ARGB8888:
	case DRM_FORMAT_XRGB8888:
		for (x = 0; x < n; x++, src += 4)
			flipkms_put8(&dst[x], get_unaligned_le32(src));
		break;
	case DRM_FORMAT_ARGB16161616:
	case DRM_FORMAT_XRGB16161616:
		for (x = 0; x < n; x++, src += 8)
			flipkms_put16(&dst[x], src);
		break;
	case DRM_FORMAT_RGB565:
		for (x = 0; x < n; x++, src += 2) {
			v = get_unaligned_le16(src);
			dst[x] = (struct flipkms_pixel){
				.r = expand(v >> 11, 5),
				.g = expand((v >> 5) & 0x3f, 6),
				.b = expand(v & 0x1f, 5),
				.a = FLIPKMS_OPAQUE,
			};
		}
		break;
	}
}

static u16 flipkms_over16(u32 src, u32 dst, u32 keep)
{
	return min_t(u32, src + dst * keep / 0xffff, 0xffff);
}

/*
 * The framebuffer pixel (*@sx, *@sy) that destination pixel (@x, @y) of
 * @fp shows. drm_atomic_helper_check_plane_state() clipped @src and @dst
 * alike, @src in framebuffer coordinates and unrotated, so the offset in
 * @dst turns back into an offset in @src: undo the rotation (the core's is
 * counter-clockwise), then the reflection (the core reflects first).
 */
static void flipkms_source_pixel(const struct flipkms_frame_plane *fp, int x,
				 int y, int *sx, int *sy)
{
	int dx = x - fp->dst.x1, dy = y - fp->dst.y1, ox, oy, w, h;

	if (drm_rotation_90_or_270(fp->rotation)) {
		w = drm_rect_height(&fp->dst);	/* the source's width */
		h = drm_rect_width(&fp->dst);
	} else {
		w = drm_rect_width(&fp->dst);
		h = drm_rect_height(&fp->dst);
	}
	switch (fp->rotation & DRM_MODE_ROTATE_MASK) {
	case DRM_MODE_ROTATE_90:
		ox = w - 1 - dy;
		oy = dx;
		break;
	case DRM_MODE_ROTATE_180:
		ox = w - 1 - dx;
		oy = h - 1 - dy;
		break;
	case DRM_MODE_ROTATE_270:
		ox = dy;
		oy = h - 1 - dx;
		break;
	default:
		ox = dx;
		oy = dy;
	}
	if (fp->rotation & DRM_MODE_REFLECT_X)
		ox = w - 1 - ox;
	if (fp->rotation & DRM_MODE_REFLECT_Y)
		oy = h - 1 - oy;
	*sx = (fp->src.x1 >> 16) + ox;
	*sy = (fp->src.y1 >> 16) + oy;
}

/* Pixels flipkms_format_fetch() reads at a time, on the stack. */
#define FLIPKMS_FETCH_SPAN	32

/*
 * @n pixels of a plane in a format of flipkms_formats.c at (@sx, @sy), as
 * the only thing on the line so far (@bare) or over it.
 */
static void flipkms_compose_fetched(const struct flipkms_frame_plane *fp,
				    int sx, int sy, int n, bool bare,
				    struct flipkms_pixel *dst)
{
	struct flipkms_pixel span[FLIPKMS_FETCH_SPAN];
	int x, i, len, dx, dy;
	u32 keep;

	if (!fp->fb->format->has_alpha) {
		flipkms_format_fetch(fp, sx, sy, n, dst);
		return;
	}
	flipkms_rotation_step(fp->rotation, &dx, &dy);
	for (x = 0; x < n; x += len) {
		len = min(n - x, FLIPKMS_FETCH_SPAN);
		flipkms_format_fetch(fp, sx + x * dx, sy + x * dy, len, span);
		for (i = 0; i < len; i++) {
			keep = bare ? 0 : 0xffff - span[i].a;
			if (!keep) {
				dst[x + i] = span[i];
				dst[x + i].a = FLIPKMS_OPAQUE;
				continue;
			}
			dst[x + i].b = flipkms_over16(span[i].b, dst[x + i].b, keep);
			dst[x + i].g = flipkms_over16(span[i].g, dst[x + i].g, keep);
			dst[x + i].r = flipkms_over16(span[i].r, dst[x + i].r, keep);
		}
	}
}

/* One channel: 8-bit @src over 16-bit @dst, in the 16 bits at @shift of each. */
static u64 flipkms_over8(u32 src, u64 dst, u32 keep, unsigned int shift)
{
	u32 d = (dst >> shift) & 0xffff;

	u32 c = (src >> (shift / 2)) & 0xff;	/* byte 0, 1 or 2 */

	return (u64)min_t(u32, c * 257 + d * keep / 255, 0xffff) << shift;
}

/* ARGB8888 over an opaque line; keep is 255 - alpha. */
static void flipkms_blend_argb8888(const u8 *src, int n,
				   struct flipkms_pixel *dst)
{
	u32 keep, v;
	int x;
	u64 d;

	for (x = 0; x < n; x++, src += 4) {
		v = get_unaligned_le32(src);
		keep = 255 - (v >> 24);
		if (!keep) {
			flipkms_put8(&dst[x], v);
		} else if (v) {
			d = flipkms_get(&dst[x]);
			flipkms_set(&dst[x], flipkms_over8(v, d, keep, 0) |
					     flipkms_over8(v, d, keep, 16) |
					     flipkms_over8(v, d, keep, 32) |
					     (u64)FLIPKMS_OPAQUE << 48);
		}
	}
}

/* ARGB16161616 over an opaque line; keep is 0xffff - alpha. */
static void flipkms_blend_argb16161616(const u8 *src, int n,
				       struct flipkms_pixel *dst)
{
	u32 keep;
	int x;

	for (x = 0; x < n; x++, src += 8) {
		keep = 0xffff - get_unaligned_le16(src + 6);
		if (!keep) {
			flipkms_put16(&dst[x], src);
			continue;
		}
		dst[x].b = flipkms_over16(get_unaligned_le16(src), dst[x].b, keep);
		dst[x].g = flipkms_over16(get_unaligned_le16(src + 2), dst[x].g, keep);
		dst[x].r = flipkms_over16(get_unaligned_le16(src + 4), dst[x].r, keep);
	}
}

/**
 * flipkms_compose_line() - compose one line of a frame
 * @frame:	the frame
 * @y:		the line, 0 to @frame->height - 1
 * @line:	@frame->width pixels, written whole
 *
 * Planes of formats the plane does not take (none reach a frame) are left
 * out, as transparent.
 */
void flipkms_compose_line(const struct flipkms_frame *frame, int y,
			  struct flipkms_pixel *line)
{
	const struct flipkms_frame_plane *fp;
	const struct drm_framebuffer *fb;
	bool bare = true;	/* only background on the line so far */
	int x0, x1, sx, sy;
	unsigned int i, cpp;
	const u8 *src;
	u32 format;

	for (i = 0; i < frame->num_planes; i++) {
		fp = &frame->planes[i];
		fb = fp->fb;
		format = fb->format->format;
		x0 = max(fp->dst.x1, 0);
		x1 = min(fp->dst.x2, frame->width);
		if (y < fp->dst.y1 || y >= fp->dst.y2 || x0 >= x1)
			continue;
		flipkms_source_pixel(fp, x0, y, &sx, &sy);
		if (!flipkms_known_format(format) ||
		    (fp->rotation & ~DRM_MODE_ROTATE_0)) {
			if (!flipkms_format_fetchable(format))
				continue;
			if (bare) {
				flipkms_fill(line, x0);
				flipkms_fill(line + x1, frame->width - x1);
			}
			flipkms_compose_fetched(fp, sx, sy, x1 - x0, bare, line + x0);
			bare = false;
			continue;
		}
		cpp = fb->format->cpp[0];
		src = (const u8 *)fp->data[0].vaddr + sy * fb->pitches[0] + sx * cpp;

		if (bare) {
			flipkms_fill(line, x0);
			flipkms_fill(line + x1, frame->width - x1);
			flipkms_convert(format, src, x1 - x0, line + x0);
			bare = false;
		} else if (format == DRM_FORMAT_ARGB8888) {
			flipkms_blend_argb8888(src, x1 - x0, line + x0);
		} else if (format == DRM_FORMAT_ARGB16161616) {
			flipkms_blend_argb16161616(src, x1 - x0, line + x0);
		} else {
			flipkms_convert(format, src, x1 - x0, line + x0);
		}
	}
	if (bare)
		flipkms_fill(line, frame->width);
	if (flipkms_color_active(&frame->color))
		flipkms_color_line(&frame->color, line, frame->width);
}
