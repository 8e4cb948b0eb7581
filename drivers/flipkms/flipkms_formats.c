// SPDX-License-Identifier: GPL-2.0+
/*
 * Pixel formats: a span of a plane's pixels read into the composer's
 * intermediate (struct flipkms_pixel: 16 bits a channel, premultiplied
 * alpha, the DRM default blend mode), and a composed line written out in a
 * writeback format. flipkms_blend.c reads XRGB8888, ARGB8888, XRGB16161616,
 * ARGB16161616 and RGB565 of unrotated planes itself, on its fast paths;
 * every other format a plane offers, and every format of a rotated or
 * reflected plane, comes through flipkms_format_fetch(), which walks the
 * framebuffer in the order the plane's ROTATION shows it
 * (flipkms_rotation_step()): along a row, back along it, or down or up a
 * column.
 *
 * Into 16 bits (the rules Documentation/flipkms.rst states):
 * - an n-bit unsigned channel c is c * 0xffff / (2^n - 1), rounded down:
 *   8 bits is c * 257, 10 bits c * 64 + c / 16 and a bit, 2 bits c * 0x5555;
 * - a half float is clamped to [0, 1] (NaN to 0) and rounded to nearest;
 * - YCbCr is converted as ITU-R BT.601, BT.709 or BT.2020 (non-constant
 *   luminance) define it, from code values of the format's depth, with
 *   limited (16-235/240 scaled to the depth) or full range, rounded to
 *   nearest and clamped. Each pixel takes the chroma sample of the block
 *   of hsub x vsub pixels it is in, counted from the framebuffer's origin,
 *   not from the source rectangle: DRM defines no chroma siting property
 *   and no filtering, so chroma is sited at the block's top left pixel and
 *   not interpolated, as in mainline vkms. The block is the luma
 *   sample's own, whichever way the walk goes: a rotated plane's chroma
 *   turns with its luma.
 *
 * Out of 16 bits (writeback): each channel's upper bits, alpha opaque,
 * as the XRGB8888 writeback always wrote.
 */

#include <linux/math64.h>
#include <linux/minmax.h>

#include "flipkms_compat.h"
#if FLIPKMS_HAS_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#include <drm/drm_color_mgmt.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>

#include "flipkms_blend.h"
#include "flipkms_frame.h"

/* Channel values into 16 bits */

static u16 flipkms_unorm(u32 c, unsigned int bits)
{
	return c * 0xffff / ((1U << bits) - 1);
}

/* A half float, clamped to [0, 1], as a 16-bit unorm rounded to nearest. */
static u16 flipkms_half(u16 h)
{
	u32 exp = (h >> 10) & 0x1f, mant = h & 0x3ff, shift;

	if (h & 0x8000 || (exp == 0x1f && mant))	/* negative or NaN */
		return 0;
	if (exp >= 15)					/* 1.0 or more */
		return 0xffff;
	/* value = mant * 2^-24 (subnormal) or (1024 + mant) * 2^(exp - 25) */
	shift = exp ? 25 - exp : 24;
	if (exp)
		mant += 1024;
	return (mant * 0xffffU + (1U << (shift - 1))) >> shift;
}

/* RGB formats, one whole pixel at a time */

static void flipkms_rgb8(struct flipkms_pixel *px, u8 r, u8 g, u8 b, u8 a)
{
	*px = (struct flipkms_pixel){ .r = r * 257, .g = g * 257, .b = b * 257,
				      .a = a * 257 };
}

/* A 2:10:10:10 pixel with its colour channels at @rs, @gs and @bs. */
static void flipkms_rgb10(struct flipkms_pixel *px, u32 v, bool alpha,
			  unsigned int rs, unsigned int bs)
{
	*px = (struct flipkms_pixel){
		.r = flipkms_unorm((v >> rs) & 0x3ff, 10),
		.g = flipkms_unorm((v >> 10) & 0x3ff, 10),
		.b = flipkms_unorm((v >> bs) & 0x3ff, 10),
		.a = alpha ? flipkms_unorm(v >> 30, 2) : 0xffff,
	};
}

/* One pixel of a single-plane RGB format at @p; false if not one. */
static bool flipkms_fetch_rgb(u32 format, const u8 *p, struct flipkms_pixel *px)
{
	u16 v;

	switch (format) {
	/* The fast paths' formats, for rotated planes */
	case DRM_FORMAT_XRGB8888:
		flipkms_rgb8(px, p[2], p[1], p[0], 0xff);
		break;
	case DRM_FORMAT_ARGB8888:
		flipkms_rgb8(px, p[2], p[1], p[0], p[3]);
		break;
	case DRM_FORMAT_XRGB16161616:
	case DRM_FORMAT_ARGB16161616:
		*px = (struct flipkms_pixel){
			.b = get_unaligned_le16(p),
			.g = get_unaligned_le16(p + 2),
			.r = get_unaligned_le16(p + 4),
			.a = format == DRM_FORMAT_ARGB16161616 ?
			     get_unaligned_le16(p + 6) : 0xffff,
		};
		break;
	case DRM_FORMAT_RGB565:
		v = get_unaligned_le16(p);
		*px = (struct flipkms_pixel){
			.r = flipkms_unorm(v >> 11, 5),
			.g = flipkms_unorm((v >> 5) & 0x3f, 6),
			.b = flipkms_unorm(v & 0x1f, 5),
			.a = 0xffff,
		};
		break;
	/* The others */
	case DRM_FORMAT_XBGR8888:
		flipkms_rgb8(px, p[0], p[1], p[2], 0xff);
		break;
	case DRM_FORMAT_ABGR8888:
		flipkms_rgb8(px, p[0], p[1], p[2], p[3]);
		break;
	case DRM_FORMAT_RGBX8888:
		flipkms_rgb8(px, p[3], p[2], p[1], 0xff);
		break;
	case DRM_FORMAT_RGBA8888:
		flipkms_rgb8(px, p[3], p[2], p[1], p[0]);
		break;
	case DRM_FORMAT_BGRX8888:
		flipkms_rgb8(px, p[1], p[2], p[3], 0xff);
		break;
	case DRM_FORMAT_BGRA8888:
		flipkms_rgb8(px, p[1], p[2], p[3], p[0]);
		break;
	case DRM_FORMAT_RGB888:
		flipkms_rgb8(px, p[2], p[1], p[0], 0xff);
		break;
	case DRM_FORMAT_BGR888:
		flipkms_rgb8(px, p[0], p[1], p[2], 0xff);
		break;
	case DRM_FORMAT_BGR565:
		v = get_unaligned_le16(p);
		*px = (struct flipkms_pixel){
			.r = flipkms_unorm(v & 0x1f, 5),
			.g = flipkms_unorm((v >> 5) & 0x3f, 6),
			.b = flipkms_unorm(v >> 11, 5),
			.a = 0xffff,
		};
		break;
	case DRM_FORMAT_XRGB2101010:
	case DRM_FORMAT_ARGB2101010:
		flipkms_rgb10(px, get_unaligned_le32(p),
			      format == DRM_FORMAT_ARGB2101010, 20, 0);
		break;
	case DRM_FORMAT_XBGR2101010:
	case DRM_FORMAT_ABGR2101010:
		flipkms_rgb10(px, get_unaligned_le32(p),
			      format == DRM_FORMAT_ABGR2101010, 0, 20);
		break;
	case DRM_FORMAT_XBGR16161616:
	case DRM_FORMAT_ABGR16161616:
		*px = (struct flipkms_pixel){
			.r = get_unaligned_le16(p),
			.g = get_unaligned_le16(p + 2),
			.b = get_unaligned_le16(p + 4),
			.a = format == DRM_FORMAT_ABGR16161616 ?
			     get_unaligned_le16(p + 6) : 0xffff,
		};
		break;
	case DRM_FORMAT_XRGB16161616F:
	case DRM_FORMAT_ARGB16161616F:
		*px = (struct flipkms_pixel){
			.b = flipkms_half(get_unaligned_le16(p)),
			.g = flipkms_half(get_unaligned_le16(p + 2)),
			.r = flipkms_half(get_unaligned_le16(p + 4)),
			.a = format == DRM_FORMAT_ARGB16161616F ?
			     flipkms_half(get_unaligned_le16(p + 6)) : 0xffff,
		};
		break;
	case DRM_FORMAT_R8:
		flipkms_rgb8(px, p[0], p[0], p[0], 0xff);
		break;
	default:
		return false;
	}
	return true;
}

/*
 * R1, R2 and R4: 8 / bits pixels a byte, the leftmost in the byte's most
 * significant bits ("[7:0] R0:R1:..." in drm_fourcc.h), shown as grey.
 */
static void flipkms_fetch_rn(const struct flipkms_frame_plane *fp,
			     unsigned int bits, int sx, int sy, int n,
			     struct flipkms_pixel *dst)
{
	const u8 *data = fp->data[0].vaddr;
	unsigned int per_byte = 8 / bits, mask = (1U << bits) - 1, c;
	int x, dx, dy;

	flipkms_rotation_step(fp->rotation, &dx, &dy);
	for (x = 0; x < n; x++, sx += dx, sy += dy) {
		c = data[sy * fp->fb->pitches[0] + sx / per_byte] >>
		    (8 - bits - (sx % per_byte) * bits);
		c = flipkms_unorm(c & mask, bits);
		dst[x] = (struct flipkms_pixel){ .r = c, .g = c, .b = c,
						 .a = 0xffff };
	}
}

/* YCbCr */

/*
 * The conversion of one plane's code values into 16-bit RGB: each output
 * is a sum of code values less their offset, times factors in units of
 * 2^-32 of an output step.
 */
struct flipkms_yuv {
	unsigned int depth;	/* code value bits */
	s32 y_off, c_off;
	s64 y, r_cr, g_cb, g_cr, b_cb;
};

/* Kr and Kb of each encoding, in units of 10^-4 (exact in the ITU texts). */
static const struct {
	u32 kr, kb;
} flipkms_yuv_k[] = {
	[DRM_COLOR_YCBCR_BT601] = { 2990, 1140 },
	[DRM_COLOR_YCBCR_BT709] = { 2126, 722 },
	[DRM_COLOR_YCBCR_BT2020] = { 2627, 593 },
};

/* 0xffff * 2^32 * num / den */
static s64 flipkms_yuv_factor(u64 num, u64 den)
{
	return mul_u64_u64_div_u64(0xffffULL << 32, num, den);
}

/*
 * R = Y' + 2 (1 - Kr) Cr', B = Y' + 2 (1 - Kb) Cb', G = (Y' - Kr R - Kb B) / Kg
 * with Y' = (Y - y_off) / y_span and Cx' = (Cx - c_off) / c_span.
 */
static void flipkms_yuv_init(struct flipkms_yuv *m, unsigned int depth,
			     enum drm_color_encoding enc,
			     enum drm_color_range range)
{
	u32 kr, kb, kg, y_span, c_span;

	if (enc >= ARRAY_SIZE(flipkms_yuv_k))
		enc = DRM_COLOR_YCBCR_BT601;
	kr = flipkms_yuv_k[enc].kr;
	kb = flipkms_yuv_k[enc].kb;
	kg = 10000 - kr - kb;
	m->depth = depth;
	if (range == DRM_COLOR_YCBCR_FULL_RANGE) {
		m->y_off = 0;
		y_span = (1U << depth) - 1;
		m->c_off = 1U << (depth - 1);
		c_span = y_span;
	} else {
		m->y_off = 16U << (depth - 8);
		y_span = 219U << (depth - 8);
		m->c_off = 128U << (depth - 8);
		c_span = 224U << (depth - 8);
	}
	m->y = flipkms_yuv_factor(1, y_span);
	m->r_cr = flipkms_yuv_factor(2 * (10000 - kr), 10000ULL * c_span);
	m->b_cb = flipkms_yuv_factor(2 * (10000 - kb), 10000ULL * c_span);
	m->g_cr = flipkms_yuv_factor(2ULL * kr * (10000 - kr),
				     10000ULL * kg * c_span);
	m->g_cb = flipkms_yuv_factor(2ULL * kb * (10000 - kb),
				     10000ULL * kg * c_span);
}

static u16 flipkms_yuv_out(s64 v)
{
	return clamp_val((v + (1LL << 31)) >> 32, 0, 0xffff);
}

static void flipkms_yuv_pixel(const struct flipkms_yuv *m, u32 y, u32 cb,
			      u32 cr, struct flipkms_pixel *px)
{
	s64 luma = m->y * ((s32)y - m->y_off);
	s32 u = (s32)cb - m->c_off, v = (s32)cr - m->c_off;

	*px = (struct flipkms_pixel){
		.r = flipkms_yuv_out(luma + m->r_cr * v),
		.g = flipkms_yuv_out(luma - m->g_cb * u - m->g_cr * v),
		.b = flipkms_yuv_out(luma + m->b_cb * u),
		.a = 0xffff,
	};
}

/* Code value of a 1-byte sample, or of a 2-byte one with @depth MSBs. */
static u32 flipkms_sample(const u8 *p, unsigned int size, unsigned int depth)
{
	return size == 1 ? *p : get_unaligned_le16(p) >> (16 - depth);
}

static bool flipkms_cb_second(u32 format)
{
	switch (format) {
	case DRM_FORMAT_NV21:
	case DRM_FORMAT_NV61:
	case DRM_FORMAT_NV42:
	case DRM_FORMAT_YVU420:
	case DRM_FORMAT_YVU422:
	case DRM_FORMAT_YVU444:
		return true;
	}
	return false;
}

/* A YCbCr format with 2 (Y, CbCr interleaved) or 3 (Y, Cb, Cr) planes. */
static void flipkms_fetch_yuv(const struct flipkms_frame_plane *fp, int sx,
			      int sy, int n, struct flipkms_pixel *dst)
{
	const struct drm_framebuffer *fb = fp->fb;
	const struct drm_format_info *info = fb->format;
	unsigned int size = info->cpp[0], depth = size == 1 ? 8 : 16;
	unsigned int csize = info->num_planes == 2 ? info->cpp[1] / 2 : info->cpp[1];
	unsigned int pitch1 = fb->pitches[1], pitch2;
	const u8 *luma, *c1, *c2, *row1, *row2;
	struct flipkms_yuv m;
	int x, cx, cy, dx, dy;
	u32 cb, cr;

	if (info->format == DRM_FORMAT_P010)
		depth = 10;
	else if (info->format == DRM_FORMAT_P012)
		depth = 12;
	flipkms_yuv_init(&m, depth, fp->color_encoding, fp->color_range);
	flipkms_rotation_step(fp->rotation, &dx, &dy);

	luma = fp->data[0].vaddr;
	c1 = fp->data[1].vaddr;
	if (info->num_planes == 2) {	/* the second sample follows the first */
		c2 = c1 + csize;
		pitch2 = pitch1;
	} else {
		c2 = fp->data[2].vaddr;
		pitch2 = fb->pitches[2];
	}
	if (flipkms_cb_second(info->format)) {
		swap(c1, c2);
		swap(pitch1, pitch2);
	}

	/* Each luma sample takes the chroma of its own block. */
	for (x = 0; x < n; x++, sx += dx, sy += dy) {
		cx = sx / info->hsub * info->cpp[1];
		cy = sy / info->vsub;
		row1 = c1 + cy * pitch1;
		row2 = c2 + cy * pitch2;
		cb = flipkms_sample(row1 + cx, csize, depth);
		cr = flipkms_sample(row2 + cx, csize, depth);
		flipkms_yuv_pixel(&m, flipkms_sample(luma + sy * fb->pitches[0] +
						     sx * size, size, depth),
				  cb, cr, &dst[x]);
	}
}

/**
 * flipkms_format_fetch() - read a span of a plane into the intermediate
 * @fp:		the plane, of any format flipkms_format_fetchable() takes
 * @sx:		the framebuffer pixel the span's first destination pixel shows
 * @sy:		its row
 * @n:		the span's length; it goes on from (@sx, @sy) in the
 *		direction the plane's rotation gives, within the framebuffer
 * @dst:	@n pixels, written whole: premultiplied, alpha 0xffff for
 *		formats without alpha
 */
void flipkms_format_fetch(const struct flipkms_frame_plane *fp, int sx, int sy,
			  int n, struct flipkms_pixel *dst)
{
	const struct drm_framebuffer *fb = fp->fb;
	u32 format = fb->format->format;
	unsigned int cpp = fb->format->cpp[0];
	const u8 *src;
	int x, dx, dy, step;

	switch (format) {
	case DRM_FORMAT_R1:
		flipkms_fetch_rn(fp, 1, sx, sy, n, dst);
		return;
	case DRM_FORMAT_R2:
		flipkms_fetch_rn(fp, 2, sx, sy, n, dst);
		return;
	case DRM_FORMAT_R4:
		flipkms_fetch_rn(fp, 4, sx, sy, n, dst);
		return;
	}
	if (fb->format->is_yuv) {
		flipkms_fetch_yuv(fp, sx, sy, n, dst);
		return;
	}
	flipkms_rotation_step(fp->rotation, &dx, &dy);
	step = dx * (int)cpp + dy * (int)fb->pitches[0];
	src = (const u8 *)fp->data[0].vaddr + sy * fb->pitches[0] + sx * cpp;
	for (x = 0; x < n; x++, src += step)
		flipkms_fetch_rgb(format, src, &dst[x]);
}

/**
 * flipkms_format_fetchable() - whether flipkms_format_fetch() reads @format
 * @format: a DRM fourcc
 *
 * Return: true if it does.
 */
bool flipkms_format_fetchable(u32 format)
{
	struct flipkms_pixel px;
	static const u8 zero[8];

	switch (format) {
	case DRM_FORMAT_R1:
	case DRM_FORMAT_R2:
	case DRM_FORMAT_R4:
	case DRM_FORMAT_NV12:
	case DRM_FORMAT_NV21:
	case DRM_FORMAT_NV16:
	case DRM_FORMAT_NV61:
	case DRM_FORMAT_NV24:
	case DRM_FORMAT_NV42:
	case DRM_FORMAT_YUV420:
	case DRM_FORMAT_YVU420:
	case DRM_FORMAT_YUV422:
	case DRM_FORMAT_YVU422:
	case DRM_FORMAT_YUV444:
	case DRM_FORMAT_YVU444:
	case DRM_FORMAT_P010:
	case DRM_FORMAT_P012:
	case DRM_FORMAT_P016:
		return true;
	}
	return flipkms_fetch_rgb(format, zero, &px);
}

/* Writeback */

static u32 flipkms_pack10(const struct flipkms_pixel *px, unsigned int rs,
			  unsigned int bs)
{
	return 3U << 30 | (u32)(px->r >> 6) << rs | (u32)(px->g >> 6) << 10 |
	       (u32)(px->b >> 6) << bs;
}

/**
 * flipkms_format_store() - write composed pixels in a writeback format
 * @format:	one of the writeback connector's formats
 * @line:	@n composed pixels
 * @n:		how many
 * @dst:	where the first goes
 *
 * Return: False for a format it cannot write (nothing is written).
 */
bool flipkms_format_store(u32 format, const struct flipkms_pixel *line, int n,
			  u8 *dst)
{
	const struct flipkms_pixel *px;
	int x;

	for (x = 0; x < n; x++) {
		px = &line[x];
		switch (format) {
		case DRM_FORMAT_XRGB8888:
		case DRM_FORMAT_ARGB8888:
			put_unaligned_le32(0xffU << 24 | (px->r >> 8) << 16 |
					   (px->g >> 8) << 8 | px->b >> 8, dst);
			dst += 4;
			break;
		case DRM_FORMAT_ABGR8888:
			put_unaligned_le32(0xffU << 24 | (px->b >> 8) << 16 |
					   (px->g >> 8) << 8 | px->r >> 8, dst);
			dst += 4;
			break;
		case DRM_FORMAT_XRGB2101010:
		case DRM_FORMAT_ARGB2101010:
			put_unaligned_le32(flipkms_pack10(px, 20, 0), dst);
			dst += 4;
			break;
		case DRM_FORMAT_XBGR2101010:
		case DRM_FORMAT_ABGR2101010:
			put_unaligned_le32(flipkms_pack10(px, 0, 20), dst);
			dst += 4;
			break;
		case DRM_FORMAT_XRGB16161616:
		case DRM_FORMAT_ARGB16161616:
			put_unaligned_le16(px->b, dst);
			put_unaligned_le16(px->g, dst + 2);
			put_unaligned_le16(px->r, dst + 4);
			put_unaligned_le16(0xffff, dst + 6);
			dst += 8;
			break;
		case DRM_FORMAT_RGB565:
			put_unaligned_le16((px->r >> 11) << 11 |
					   (px->g >> 10) << 5 | px->b >> 11, dst);
			dst += 2;
			break;
		default:
			return false;
		}
	}
	return true;
}
