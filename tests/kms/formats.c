// SPDX-License-Identifier: MIT
/*
 * formats: flipkms's YCbCr and deep-colour plane formats, shown and read
 * back. At 640x480, one frame of an XRGB2101010 primary under an NV12
 * overlay of an odd size (33x17) hanging 3 pixels off the left edge, so
 * the source starts inside a chroma block; then a P010 overlay:
 *
 *   formats-listed		primary and overlay list the YCbCr, 10-bit and
 *				half-float formats; the cursor no YCbCr
 *   color-properties		COLOR_ENCODING (BT.601/709/2020) and COLOR_RANGE
 *				on the planes that take YCbCr, not on the cursor
 *   writeback-formats		the writeback connector offers 10-bit and 16-bit
 *   nv12-*, p010-*		the written-back pixels (XRGB2101010 and
 *				XRGB8888) are the known answers: the ITU-R
 *				conversion (values from tests/kunit/yuv-vectors.py)
 *				and 10-bit RGB kept exactly, each block's chroma
 *				at the right columns; frame.ppm agrees
 *   crc-*			the CRC of the frame is the CRC of the same frame
 *				drawn in XRGB16161616 with the known answers'
 *				16-bit values, and changes with COLOR_ENCODING
 *   bad input		the core's EINVAL for a chroma pitch too small, a
 *				chroma plane beyond the buffer or without a
 *				handle, NV12 on the cursor, an encoding not
 *				offered and an NV12 writeback buffer
 *
 * Then every format the planes list, as the kernel lists them (a format
 * this test cannot draw fails), at 320x200 and 240 Hz, one commit each:
 * the format on every plane that lists it at once, a pattern of known
 * answers (format-pixels.c) on each of an odd size, the primary windowed,
 * the overlay over it and off the left edge, the cursor over both (so
 * alpha blends), YCbCr formats through all six encodings and ranges in
 * turn:
 *
 *   FMT-known-answers		every pixel of the XRGB16161616 writeback is
 *				the answer of the planes blended by the
 *				model's "over", within format-pixels.h's
 *				tolerance (0 for RGB, 1 step of 16 bits
 *				for YCbCr)
 *   FMT-crc-ppm-agree		the frame's CRC is the CRC of those
 *				written-back lines, frame.ppm their top 8 bits
 *   writeback-FMT-known-answers	the same frame written back in each
 *				writeback format is the 16-bit frame's top bits
 *   documented-formats-are-the-driver's
 *				Documentation/flipkms.rst's table of formats
 *				per plane and writeback says what the driver
 *				lists, and lists all of it
 *   every-format-*, unlisted-format-on-plane-einval
 *				odd sizes accepted; a pitch a byte short, a
 *				plane past its buffer (ADDFB2) and a format
 *				on a plane that does not list it (commit)
 *				get the core's EINVAL
 *
 * usage: formats flipkms
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "format-pixels.h"
#include "kms.h"

#define W	640
#define H	480
/* The overlay: 33x17 at (-3, 20); columns from 16 on hold colour B. */
#define OV_W	33
#define OV_H	17
#define OV_X	(-3)
#define OV_Y	20
#define SPLIT	16

/* Limited range, 8-bit codes of the two overlay colours. */
static const uint8_t yuv_a[3] = { 100, 141, 111 }, yuv_b[3] = { 180, 110, 150 };

/* Their RGB, 16 bits a channel, per encoding/range (tests/kunit/yuv-vectors.py). */
static const uint16_t bt709_a[3] = { 0x4398, 0x6881, 0x7dc2 };
static const uint16_t bt709_b[3] = { 0xe74d, 0xb7ca, 0x9988 };
static const uint16_t bt601_a[3] = { 0x46f4, 0x6af4, 0x7c84 };
static const uint16_t bt601_b[3] = { 0xe2f4, 0xb4d4, 0x9b41 };
/* P010, BT.2020 limited, 10-bit codes 502, 400, 700. */
static const uint16_t p010_yuv[3] = { 502, 400, 700 };
static const uint16_t p010_rgb[3] = { 0xcf34, 0x6693, 0x43cb };

/* The primary's 10-bit colour, and as 16 bits: c * 0xffff / 1023. */
static const uint16_t prim10[3] = { 700, 300, 100 };

static char crtc_dir[96];

static uint16_t unorm10(uint16_t c)
{
	return (uint16_t)(c * 0xffffu / 1023);
}

/* A dumb buffer of @rows rows of @width units of @bpp bits, mapped. */
static unsigned char *dumb(int fd, uint32_t width, uint32_t rows, uint32_t bpp,
			   struct kms_fb *fb)
{
	unsigned char *p;

	memset(fb, 0, sizeof(*fb));
	require(drmModeCreateDumbBuffer(fd, width, rows, bpp, 0, &fb->handle, &fb->pitch,
					&fb->size) == 0, "dumb buffer");
	p = kms_fb_map(fd, fb);
	require(p != NULL, "map the dumb buffer");
	return p;
}

/* ADDFB2 of @fb with @n planes at @offsets (pitches @pitches); 0 or -errno. */
static int addfb(int fd, struct kms_fb *fb, uint32_t w, uint32_t h, uint32_t format,
		 const uint32_t *pitches, const uint32_t *offsets, int n)
{
	uint32_t handles[4] = { 0 }, p[4] = { 0 }, o[4] = { 0 };
	int i;

	for (i = 0; i < n; i++) {
		handles[i] = fb->handle;
		p[i] = pitches[i];
		o[i] = offsets[i];
	}
	fb->width = w;
	fb->height = h;
	fb->format = format;
	return drmModeAddFB2(fd, w, h, format, handles, p, o, &fb->fb_id, 0) ? -errno : 0;
}

/* A one-colour 640x480 buffer, 10-bit or 16-bit RGB. */
static void rgb_fb(int fd, uint32_t format, struct kms_fb *fb)
{
	bool deep = format == DRM_FORMAT_XRGB16161616;
	unsigned char *map = dumb(fd, W, H, deep ? 64 : 32, fb);
	uint32_t x, y, v = 3u << 30 | prim10[0] << 20 | prim10[1] << 10 | prim10[2];
	uint16_t *p;

	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++) {
			if (!deep) {
				memcpy(map + y * fb->pitch + 4 * x, &v, 4);
				continue;
			}
			p = (uint16_t *)(map + y * fb->pitch + 8 * x);
			p[0] = unorm10(prim10[2]);
			p[1] = unorm10(prim10[1]);
			p[2] = unorm10(prim10[0]);
			p[3] = 0xffff;
		}
	munmap(map, fb->size);
	require(addfb(fd, fb, W, H, format, &fb->pitch, (uint32_t[]){ 0 }, 1) == 0,
		"ADDFB2 of an RGB buffer");
}

/* The NV12 overlay: colour A left of column SPLIT, B from it on. */
static void nv12_fb(int fd, struct kms_fb *fb)
{
	unsigned char *map = dumb(fd, OV_W + 1, OV_H + (OV_H + 1) / 2, 8, fb);
	unsigned char *uv = map + fb->pitch * OV_H;
	uint32_t x, y;

	for (y = 0; y < OV_H; y++)
		for (x = 0; x < OV_W; x++)
			map[y * fb->pitch + x] = x < SPLIT ? yuv_a[0] : yuv_b[0];
	for (y = 0; y < (OV_H + 1) / 2; y++)
		for (x = 0; x < (OV_W + 1) / 2; x++) {
			uv[y * fb->pitch + 2 * x] = 2 * x < SPLIT ? yuv_a[1] : yuv_b[1];
			uv[y * fb->pitch + 2 * x + 1] = 2 * x < SPLIT ? yuv_a[2] : yuv_b[2];
		}
	munmap(map, fb->size);
	require(addfb(fd, fb, OV_W, OV_H, DRM_FORMAT_NV12,
		      (uint32_t[]){ fb->pitch, fb->pitch },
		      (uint32_t[]){ 0, fb->pitch * OV_H }, 2) == 0,
		"ADDFB2 of an odd-sized NV12 buffer");
}

/* The same overlay in XRGB16161616, holding the known answers of @a and @b. */
static void rgb16_overlay(int fd, const uint16_t *a, const uint16_t *b, struct kms_fb *fb)
{
	unsigned char *map = dumb(fd, OV_W, OV_H, 64, fb);
	const uint16_t *c;
	uint16_t *p;
	uint32_t x, y;

	for (y = 0; y < OV_H; y++)
		for (x = 0; x < OV_W; x++) {
			c = x < SPLIT ? a : b;
			p = (uint16_t *)(map + y * fb->pitch + 8 * x);
			p[0] = c[2];
			p[1] = c[1];
			p[2] = c[0];
			p[3] = 0xffff;
		}
	munmap(map, fb->size);
	require(addfb(fd, fb, OV_W, OV_H, DRM_FORMAT_XRGB16161616, &fb->pitch,
		      (uint32_t[]){ 0 }, 1) == 0, "ADDFB2 of the RGB16 overlay");
}

/* A P010 overlay of the one colour p010_yuv, odd-sized too. */
static void p010_fb(int fd, struct kms_fb *fb)
{
	unsigned char *map = dumb(fd, OV_W + 1, OV_H + (OV_H + 1) / 2, 16, fb);
	uint16_t *row;
	uint32_t x, y;

	for (y = 0; y < OV_H; y++) {
		row = (uint16_t *)(map + y * fb->pitch);
		for (x = 0; x < OV_W; x++)
			row[x] = p010_yuv[0] << 6;
	}
	for (y = 0; y < (OV_H + 1) / 2; y++) {
		row = (uint16_t *)(map + (OV_H + y) * fb->pitch);
		for (x = 0; x < (OV_W + 1) / 2; x++) {
			row[2 * x] = p010_yuv[1] << 6;
			row[2 * x + 1] = p010_yuv[2] << 6;
		}
	}
	munmap(map, fb->size);
	require(addfb(fd, fb, OV_W, OV_H, DRM_FORMAT_P010,
		      (uint32_t[]){ fb->pitch, fb->pitch },
		      (uint32_t[]){ 0, fb->pitch * OV_H }, 2) == 0,
		"ADDFB2 of an odd-sized P010 buffer");
}

/* The value of enum property @prop of @obj named @name, or -1. */
static long long enum_value(int fd, uint32_t obj, const char *prop, const char *name)
{
	drmModePropertyRes *p = drmModeGetProperty(fd, kms_prop_id(fd, obj,
							DRM_MODE_OBJECT_PLANE, prop));
	long long v = -1;
	int i;

	for (i = 0; p && i < p->count_enums; i++)
		if (!strcmp(p->enums[i].name, name))
			v = (long long)p->enums[i].value;
	drmModeFreeProperty(p);
	return v;
}

struct frame {
	const struct kms_fb *primary, *overlay;
	long long encoding, range;	/* -1: leave as is */
};

/*
 * A blocking commit of @f, written back into @out if not NULL, whose fence
 * is waited for. @flags: DRM_MODE_ATOMIC_TEST_ONLY to only check. 0 or -errno.
 */
static int commit(struct kms_dev *dev, const struct kms_pipe *pipe, const struct kms_writeback *wb,
		  const struct frame *f, const struct kms_fb *out, uint32_t flags)
{
	const struct kms_plane_props *o = &pipe->overlay_props;
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret;

	kms_req_plane(req, pipe->primary_id, &pipe->primary_props, pipe->crtc_id, f->primary, -1);
	kms_req_plane(req, pipe->overlay_id, o, pipe->crtc_id, f->overlay, -1);
	if (f->overlay) {
		drmModeAtomicAddProperty(req, pipe->overlay_id, o->crtc_x, (uint64_t)(int64_t)OV_X);
		drmModeAtomicAddProperty(req, pipe->overlay_id, o->crtc_y, OV_Y);
	}
	if (f->encoding >= 0)
		drmModeAtomicAddProperty(req, pipe->overlay_id,
					 kms_prop_id(dev->fd, pipe->overlay_id,
						     DRM_MODE_OBJECT_PLANE, "COLOR_ENCODING"),
					 (uint64_t)f->encoding);
	if (f->range >= 0)
		drmModeAtomicAddProperty(req, pipe->overlay_id,
					 kms_prop_id(dev->fd, pipe->overlay_id,
						     DRM_MODE_OBJECT_PLANE, "COLOR_RANGE"),
					 (uint64_t)f->range);
	ret = kms_commit_writeback(dev, req, wb, pipe->crtc_id, out, flags);
	drmModeAtomicFree(req);
	return ret;
}

/* Pixel (@x, @y) of a mapped 32 bpp buffer. */
static uint32_t pixel_at(const unsigned char *map, const struct kms_fb *fb, int x, int y)
{
	uint32_t v;

	memcpy(&v, map + (size_t)y * fb->pitch + 4 * x, 4);
	return v;
}

/* Pixel (@x, @y) of a 32 bpp writeback buffer, or 0. */
static uint32_t wb_pixel(int fd, const struct kms_fb *fb, int x, int y)
{
	const unsigned char *map = kms_fb_map(fd, fb);
	uint32_t v;

	if (!map)
		return 0;
	v = pixel_at(map, fb, x, y);
	munmap((void *)map, fb->size);
	return v;
}

static uint32_t pack10(const uint16_t *rgb)
{
	return 3u << 30 | (uint32_t)(rgb[0] >> 6) << 20 | (uint32_t)(rgb[1] >> 6) << 10 |
	       rgb[2] >> 6;
}

static uint32_t pack8(const uint16_t *rgb)
{
	return (uint32_t)(rgb[0] >> 8) << 16 | (uint32_t)(rgb[1] >> 8) << 8 | rgb[2] >> 8;
}

/*
 * Every pixel of the overlay's visible part and of a ring around it, in a
 * 10-bit writeback of the frame: A or B by source column, else the primary.
 */
static void check_written_back(int fd, const char *name, const struct kms_fb *out,
			       const uint16_t *a, const uint16_t *b)
{
	const uint16_t prim[3] = { unorm10(prim10[0]), unorm10(prim10[1]), unorm10(prim10[2]) };
	const unsigned char *map = kms_fb_map(fd, out);
	uint32_t want, got, first_want = 0, first_got = 0;
	int x, y, bad = 0, fx = 0, fy = 0;

	require(map != NULL, "map the writeback buffer");
	for (y = OV_Y - 1; y <= OV_Y + OV_H; y++)
		for (x = 0; x <= OV_X + OV_W; x++) {
			if (y < OV_Y || y >= OV_Y + OV_H || x >= OV_X + OV_W)
				want = pack10(prim);
			else
				want = pack10(x - OV_X < SPLIT ? a : b);
			got = pixel_at(map, out, x, y);
			if (got != want && !bad++) {
				fx = x;
				fy = y;
				first_want = want;
				first_got = got;
			}
		}
	munmap((void *)map, out->size);
	check(name, !bad, "%d pixels differ, first at (%d, %d): %08x, expected %08x", bad, fx,
	      fy, first_got, first_want);
}

/* The CRC of the frame on screen: the second entry after CRCs are turned on. */
static long frame_crc(void)
{
	int data = kms_crc_open(crtc_dir, 0);
	struct kms_crc_entry e;
	bool got;

	got = kms_crc_next(data, false, &e) && kms_crc_next(data, false, &e);
	close(data);
	return got ? (long)e.crc : -1;
}

static void test_listed(struct kms_dev *dev, const struct kms_pipe *pipe, const struct kms_writeback *wb)
{
	static const uint32_t wanted[] = {
		DRM_FORMAT_NV12, DRM_FORMAT_YUV420, DRM_FORMAT_P010, DRM_FORMAT_XRGB2101010,
		DRM_FORMAT_ABGR2101010, DRM_FORMAT_ARGB16161616F, DRM_FORMAT_RGB888,
		DRM_FORMAT_R8,
	};
	static const uint32_t wb_wanted[] = {
		DRM_FORMAT_XRGB2101010, DRM_FORMAT_ARGB2101010, DRM_FORMAT_XRGB16161616,
		DRM_FORMAT_RGB565, DRM_FORMAT_ABGR8888,
	};
	drmModePropertyBlobRes *blob;
	uint64_t blob_id = 0;
	const uint32_t *f;
	bool all = true, found;
	unsigned int i, j;

	for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		all &= kms_plane_has_format(dev->fd, pipe->primary_id, wanted[i]) &&
		       kms_plane_has_format(dev->fd, pipe->overlay_id, wanted[i]);
	check("formats-listed", all && kms_plane_has_format(dev->fd, pipe->cursor_id,
							     DRM_FORMAT_ARGB8888) &&
	      !kms_plane_has_format(dev->fd, pipe->cursor_id, DRM_FORMAT_NV12),
	      "expected NV12, YUV420, P010, XR30, AB30, AR4H, RG24 and R8 on primary and "
	      "overlay, and the cursor with AR24 but no NV12");

	check("color-properties",
	      enum_value(dev->fd, pipe->overlay_id, "COLOR_ENCODING", "ITU-R BT.601 YCbCr") >= 0 &&
	      enum_value(dev->fd, pipe->overlay_id, "COLOR_ENCODING", "ITU-R BT.709 YCbCr") >= 0 &&
	      enum_value(dev->fd, pipe->primary_id, "COLOR_ENCODING", "ITU-R BT.2020 YCbCr") >= 0 &&
	      enum_value(dev->fd, pipe->overlay_id, "COLOR_RANGE", "YCbCr limited range") >= 0 &&
	      enum_value(dev->fd, pipe->overlay_id, "COLOR_RANGE", "YCbCr full range") >= 0 &&
	      !kms_prop_id(dev->fd, pipe->cursor_id, DRM_MODE_OBJECT_PLANE, "COLOR_ENCODING"),
	      "expected COLOR_ENCODING with BT.601/709/2020 and COLOR_RANGE limited/full on "
	      "primary and overlay, none on the cursor");

	kms_prop_get(dev->fd, wb->id, DRM_MODE_OBJECT_CONNECTOR, "WRITEBACK_PIXEL_FORMATS",
		     &blob_id);
	blob = drmModeGetPropertyBlob(dev->fd, (uint32_t)blob_id);
	for (all = blob != NULL, i = 0; blob && i < sizeof(wb_wanted) / sizeof(wb_wanted[0]); i++) {
		f = blob->data;
		for (found = false, j = 0; j < blob->length / 4; j++)
			found |= f[j] == wb_wanted[i];
		all &= found;
	}
	drmModeFreePropertyBlob(blob);
	check("writeback-formats", all,
	      "expected XR30, AR30, XR48, RG16 and AB24 in WRITEBACK_PIXEL_FORMATS");
}

static void test_bad_input(struct kms_dev *dev, const struct kms_pipe *pipe, const struct kms_writeback *wb,
			   const struct kms_fb *primary, const struct kms_fb *nv12)
{
	drmModeAtomicReq *req;
	struct kms_fb big;
	unsigned char *map;
	uint32_t handles[4] = { nv12->handle }, pitches[4] = { 0 }, offsets[4] = { 0 }, id = 0;
	int ret;

	begin("bad-input");
	/* The control: the same call, right, makes a framebuffer. */
	pitches[0] = pitches[1] = nv12->pitch;
	handles[1] = nv12->handle;
	offsets[1] = nv12->pitch * OV_H;
	ret = drmModeAddFB2(dev->fd, OV_W, OV_H, DRM_FORMAT_NV12, handles, pitches, offsets,
			    &id, 0) ? -errno : 0;
	check_int("nv12-addfb2-control-accepted", 0, ret);
	if (!ret)
		drmModeRmFB(dev->fd, id);
	pitches[1] = OV_W - 1;	/* 17 Cb:Cr pairs need 34 bytes */
	handles[1] = nv12->handle;
	offsets[1] = nv12->pitch * OV_H;
	ret = drmModeAddFB2(dev->fd, OV_W, OV_H, DRM_FORMAT_NV12, handles, pitches, offsets,
			    &id, 0) ? -errno : 0;
	check_int("nv12-chroma-pitch-too-small-einval", -EINVAL, ret);
	pitches[1] = nv12->pitch;
	offsets[1] = (uint32_t)nv12->size;
	ret = drmModeAddFB2(dev->fd, OV_W, OV_H, DRM_FORMAT_NV12, handles, pitches, offsets,
			    &id, 0) ? -errno : 0;
	check_int("nv12-chroma-beyond-buffer-einval", -EINVAL, ret);
	handles[1] = 0;
	offsets[1] = nv12->pitch * OV_H;
	ret = drmModeAddFB2(dev->fd, OV_W, OV_H, DRM_FORMAT_NV12, handles, pitches, offsets,
			    &id, 0) ? -errno : 0;
	check_int("nv12-chroma-without-handle-einval", -EINVAL, ret);

	req = drmModeAtomicAlloc();
	kms_req_plane(req, pipe->cursor_id, &pipe->cursor_props, pipe->crtc_id, nv12, -1);
	ret = drmModeAtomicCommit(dev->fd, req, DRM_MODE_ATOMIC_TEST_ONLY, NULL) ? -errno : 0;
	drmModeAtomicFree(req);
	check_int("nv12-on-cursor-einval", -EINVAL, ret);

	ret = commit(dev, pipe, wb, &(struct frame){ primary, nv12, 3, -1 }, NULL,
		     DRM_MODE_ATOMIC_TEST_ONLY);
	check_int("encoding-not-offered-einval", -EINVAL, ret);
	ret = commit(dev, pipe, wb, &(struct frame){ primary, nv12, 2, 1 }, NULL,
		     DRM_MODE_ATOMIC_TEST_ONLY);
	check_int("encoding-offered-accepted", 0, ret);

	map = dumb(dev->fd, W, H + H / 2, 8, &big);
	munmap(map, big.size);
	require(addfb(dev->fd, &big, W, H, DRM_FORMAT_NV12, (uint32_t[]){ big.pitch, big.pitch },
		      (uint32_t[]){ 0, big.pitch * H }, 2) == 0, "a 640x480 NV12 buffer");
	ret = commit(dev, pipe, wb, &(struct frame){ primary, nv12, -1, -1 }, &big,
		     DRM_MODE_ATOMIC_TEST_ONLY);
	check_int("nv12-writeback-buffer-einval", -EINVAL, ret);
	ret = commit(dev, pipe, wb, &(struct frame){ primary, nv12, -1, -1 }, primary,
		     DRM_MODE_ATOMIC_TEST_ONLY);
	check_int("xr30-writeback-buffer-accepted", 0, ret);
	kms_fb_destroy(dev->fd, &big);
}

/* --- every format every plane offers, and every writeback format -------- */

/* A user mode of 320x200 at 240 Hz: small frames, quick vblanks. */
#define WALK_W	320
#define WALK_H	200
#define WALK_HZ	240

enum { PRIMARY, OVERLAY, CURSOR, PLANES };

/*
 * Where each plane shows its pattern, in zpos order: odd sizes (the YCbCr
 * chroma planes round up), a windowed primary, an overlay hanging 3 pixels
 * off the left edge (its source starts inside a chroma block) and over the
 * primary, a cursor over both (alpha formats blend there).
 */
static const struct {
	const char *name;
	int x, y, w, h;
} walk_place[PLANES] = {
	[PRIMARY] = { "primary", 2, 3, 45, 29 },
	[OVERLAY] = { "overlay", -3, 20, 33, 17 },
	[CURSOR] = { "cursor", 24, 26, 16, 16 },
};

struct walk {
	struct kms_dev *dev;
	const struct kms_pipe *pipe;
	const struct kms_writeback *wb;
	uint32_t plane_id[PLANES];
	const struct kms_plane_props *props[PLANES];
	drmModePlane *plane[PLANES];
	long long encoding[3], range[2];	/* BT.601/709/2020; limited/full */
	struct kms_fb out16;			/* the XRGB16161616 writeback buffer */
	/* The framebuffers on screen, kept until the next commit replaces them. */
	struct kms_fb shown[PLANES];
	bool on[PLANES];
	struct fp_pixel want[WALK_W * WALK_H];	/* the frame's answers */
};

static bool lists(const drmModePlane *p, uint32_t fourcc)
{
	uint32_t i;

	for (i = 0; p && i < p->count_formats; i++)
		if (p->formats[i] == fourcc)
			return true;
	return false;
}

/* The model's "over" (Documentation/flipkms.rst): src + dst * (1 - a), down, clamped. */
static uint16_t over(uint16_t src, uint16_t dst, uint16_t a)
{
	uint32_t v = src + (uint32_t)dst * (0xffff - a) / 0xffff;

	return v > 0xffff ? 0xffff : (uint16_t)v;
}

/* @pattern (of plane @p's place) into the frame's answers. */
static void walk_blend(struct walk *w, int p, const struct fp_pixel *pattern)
{
	struct fp_pixel *d, s;
	int x, y, cx, cy;

	for (y = 0; y < walk_place[p].h; y++)
		for (x = 0; x < walk_place[p].w; x++) {
			cx = walk_place[p].x + x;
			cy = walk_place[p].y + y;
			if (cx < 0 || cy < 0 || cx >= WALK_W || cy >= WALK_H)
				continue;
			s = pattern[y * walk_place[p].w + x];
			d = &w->want[cy * WALK_W + cx];
			*d = (struct fp_pixel){ over(s.r, d->r, s.a), over(s.g, d->g, s.a),
						over(s.b, d->b, s.a), 0xffff };
		}
}

/* A framebuffer of pattern @seed in @f, its answers in @pattern; 0 or -errno. */
static int walk_fb(struct walk *w, const struct fp_format *f, uint32_t fourcc, int p,
		   uint32_t seed, const struct fp_yuv *yuv, struct kms_fb *fb,
		   struct fp_pixel *pattern)
{
	uint32_t pitches[4], offsets[4];
	size_t size = fp_layout(f, walk_place[p].w, walk_place[p].h, pitches, offsets);
	unsigned char *map = dumb(w->dev->fd, 64, (uint32_t)(size / 64), 8, fb);

	memset(map, 0x5a, fb->size);	/* padding and gaps: noise never read */
	fp_draw(f, map, pitches, offsets, walk_place[p].w, walk_place[p].h, seed, yuv, pattern);
	munmap(map, fb->size);
	return addfb(w->dev->fd, fb, (uint32_t)walk_place[p].w, (uint32_t)walk_place[p].h, fourcc,
		     pitches, offsets, fp_planes(f));
}

/*
 * One blocking commit of @fbs (NULL: the plane off) with a writeback job
 * into @out, its fence waited for; YCbCr planes get @enc and @range. 0 or -errno.
 */
static int walk_commit(struct walk *w, struct kms_fb *const *fbs, long long enc,
		       long long range, const struct kms_fb *out)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int p, ret;

	for (p = 0; p < PLANES; p++) {
		kms_req_plane(req, w->plane_id[p], w->props[p], w->pipe->crtc_id, fbs[p], -1);
		if (!fbs[p])
			continue;
		drmModeAtomicAddProperty(req, w->plane_id[p], w->props[p]->crtc_x,
					 (uint64_t)(int64_t)walk_place[p].x);
		drmModeAtomicAddProperty(req, w->plane_id[p], w->props[p]->crtc_y,
					 (uint64_t)(int64_t)walk_place[p].y);
		if (enc < 0 || p == CURSOR)
			continue;
		drmModeAtomicAddProperty(req, w->plane_id[p],
					 kms_prop_id(w->dev->fd, w->plane_id[p], DRM_MODE_OBJECT_PLANE,
						     "COLOR_ENCODING"), (uint64_t)enc);
		drmModeAtomicAddProperty(req, w->plane_id[p],
					 kms_prop_id(w->dev->fd, w->plane_id[p], DRM_MODE_OBJECT_PLANE,
						     "COLOR_RANGE"), (uint64_t)range);
	}
	ret = kms_commit_writeback(w->dev, req, w->wb, w->pipe->crtc_id, out, 0);
	drmModeAtomicFree(req);
	return ret;
}

/*
 * The written-back frame against the answers, each channel within @tol
 * steps of 16 bits; its CRC (over ARGB16161616 lines, as flipkms's) into
 * @crc. The number of pixels off, the first described in @why.
 */
static int walk_compare(struct walk *w, const unsigned char *map, int tol, uint32_t *crc,
			char *why, size_t len)
{
	const struct fp_pixel *a;
	const unsigned char *row;
	uint16_t px[4];
	int x, y, bad = 0;

	*crc = 0;
	for (y = 0; y < WALK_H; y++) {
		row = map + (size_t)y * w->out16.pitch;
		*crc = kms_crc32_le(*crc, row, WALK_W * 8);
		for (x = 0; x < WALK_W; x++) {
			memcpy(px, row + 8 * x, 8);
			a = &w->want[y * WALK_W + x];
			if (abs(px[2] - a->r) <= tol && abs(px[1] - a->g) <= tol &&
			    abs(px[0] - a->b) <= tol)
				continue;
			if (!bad++)
				snprintf(why, len, "at (%d, %d) %04x %04x %04x, expected %04x %04x %04x "
					 "within %d", x, y, px[2], px[1], px[0], a->r, a->g, a->b, tol);
		}
	}
	return bad;
}

/* Pixels of frame.ppm that are not the written-back frame's top 8 bits; -1: no PPM. */
static int walk_ppm_differs(const struct walk *w, const unsigned char *map)
{
	static unsigned char rgb[WALK_W * WALK_H * 3];
	int x, y, bad = 0;
	uint16_t px[4];
	size_t n;

	if (!kms_frame_ppm(crtc_dir, WALK_W, WALK_H, rgb))
		return -1;
	for (y = 0; y < WALK_H; y++)
		for (x = 0; x < WALK_W; x++) {
			memcpy(px, map + (size_t)y * w->out16.pitch + 8 * x, 8);
			n = 3 * ((size_t)y * WALK_W + x);
			bad += rgb[n] != px[2] >> 8 || rgb[n + 1] != px[1] >> 8 ||
			       rgb[n + 2] != px[0] >> 8;
		}
	return bad;
}

/*
 * @fourcc on every plane that lists it, at once, in one commit: its
 * written-back pixels are the answers, and the frame's CRC and frame.ppm
 * are the written-back frame. @index picks the YCbCr encoding and range,
 * so that consecutive YCbCr formats go through all six.
 */
static void walk_format(struct walk *w, uint32_t fourcc, int index)
{
	static struct fp_pixel pattern[FP_MAX_PIXELS];
	const struct fp_format *f = fp_find(fourcc);
	char buf[5];
	const char *fname = fp_name(fourcc, buf);
	struct kms_fb fb[PLANES], *fbs[PLANES] = { NULL };
	struct fp_yuv yuv = { 0.299, 0.114, index / 3 % 2 };
	const double k[3][2] = { { 0.299, 0.114 }, { 0.2126, 0.0722 }, { 0.2627, 0.0593 } };
	char name[64], agree[64], why[160] = "";
	const unsigned char *map;
	long long enc = -1, range = -1;
	int p, ret = 0, bad, ppm_bad;
	uint32_t crc;
	long shown;

	snprintf(name, sizeof(name), "%s-known-answers", fname);
	snprintf(agree, sizeof(agree), "%s-crc-ppm-agree", fname);
	begin(name);
	if (!f) {
		not_ok(name, "the driver offers %s, which this test cannot draw", fname);
		not_ok(agree, "not shown");
		return;
	}
	if (fp_is_yuv(f)) {
		yuv.kr = k[index % 3][0];
		yuv.kb = k[index % 3][1];
		enc = w->encoding[index % 3];
		range = w->range[yuv.full];
	}
	for (p = 0; p < WALK_W * WALK_H; p++)
		w->want[p] = (struct fp_pixel){ 0, 0, 0, 0xffff };
	for (p = 0; p < PLANES && !ret; p++) {
		if (!lists(w->plane[p], fourcc))
			continue;
		ret = walk_fb(w, f, fourcc, p, (uint32_t)(fourcc * 31 + p), &yuv, &fb[p], pattern);
		if (ret) {
			snprintf(why, sizeof(why), "ADDFB2 of a %dx%d buffer for the %s: %s",
				 walk_place[p].w, walk_place[p].h, walk_place[p].name,
				 errno_name(-ret));
			drmModeDestroyDumbBuffer(w->dev->fd, fb[p].handle);
			break;
		}
		fbs[p] = &fb[p];
		walk_blend(w, p, pattern);
	}
	if (!ret) {
		ret = walk_commit(w, fbs, enc, range, &w->out16);
		if (ret)
			snprintf(why, sizeof(why), "the commit failed: %s", errno_name(-ret));
	}
	map = ret ? NULL : kms_fb_map(w->dev->fd, &w->out16);
	if (!map) {
		not_ok(name, "%s", ret ? why : "cannot map the writeback buffer");
		not_ok(agree, "not shown");
	} else {
		bad = walk_compare(w, map, fp_tolerance(f), &crc, why, sizeof(why));
		check(name, !bad, "%d pixels off the answers, first %s", bad, why);
		shown = frame_crc();
		ppm_bad = walk_ppm_differs(w, map);
		check(agree, shown == (long)crc && ppm_bad == 0,
		      "CRC %lx, of the written-back frame %x; frame.ppm: %d pixels differ "
		      "(-1: unreadable)", shown, crc, ppm_bad);
		munmap((void *)map, w->out16.size);
	}
	/*
	 * A commit that failed changed nothing; one that succeeded took the
	 * previous framebuffers off screen. Removing one on screen would turn
	 * its plane off, so the shown ones stay until then.
	 */
	for (p = 0; p < PLANES; p++) {
		if (ret) {
			if (fbs[p])
				kms_fb_destroy(w->dev->fd, fbs[p]);
			continue;
		}
		if (w->on[p])
			kms_fb_destroy(w->dev->fd, &w->shown[p]);
		w->on[p] = fbs[p] != NULL;
		if (fbs[p])
			w->shown[p] = fb[p];
	}
}

/* WRITEBACK_PIXEL_FORMATS of @wb, @n of them (free() it), or NULL. */
static uint32_t *wb_formats(int fd, const struct kms_writeback *wb, uint32_t *n)
{
	drmModePropertyBlobRes *blob;
	uint64_t blob_id = 0;
	uint32_t *f = NULL;

	*n = 0;
	kms_prop_get(fd, wb->id, DRM_MODE_OBJECT_CONNECTOR, "WRITEBACK_PIXEL_FORMATS", &blob_id);
	blob = drmModeGetPropertyBlob(fd, (uint32_t)blob_id);
	if (blob && (f = malloc(blob->length)) != NULL) {
		memcpy(f, blob->data, blob->length);
		*n = blob->length / 4;
	}
	drmModeFreePropertyBlob(blob);
	return f;
}

/*
 * The frame on screen written back in @fourcc: each pixel the top bits of
 * the 16-bit one in @ref (the XRGB16161616 writeback of the same frame),
 * alpha all ones.
 */
static void walk_writeback(struct walk *w, uint32_t fourcc, const unsigned char *ref)
{
	char buf[5], name[64], why[128] = "";
	int bytes = fp_packed_bytes(fourcc), x, y, bad = 0, ret;
	const unsigned char *map;
	struct fp_pixel a;
	struct kms_fb out;
	uint16_t px[4];
	bool equal;

	snprintf(name, sizeof(name), "writeback-%s-known-answers", fp_name(fourcc, buf));
	begin(name);
	if (!bytes) {
		not_ok(name, "the connector offers a format this test cannot read");
		return;
	}
	munmap(dumb(w->dev->fd, WALK_W, WALK_H, (uint32_t)bytes * 8, &out), out.size);
	require(addfb(w->dev->fd, &out, WALK_W, WALK_H, fourcc, &out.pitch, (uint32_t[]){ 0 },
		      1) == 0, "ADDFB2 of the writeback buffer");
	ret = walk_commit(w, (struct kms_fb *[]){ w->on[0] ? &w->shown[0] : NULL,
						  w->on[1] ? &w->shown[1] : NULL,
						  w->on[2] ? &w->shown[2] : NULL },
			  -1, -1, &out);
	map = ret ? NULL : kms_fb_map(w->dev->fd, &out);
	if (!map) {
		not_ok(name, "the commit failed: %s", errno_name(-ret));
		kms_fb_destroy(w->dev->fd, &out);
		return;
	}
	for (y = 0; y < WALK_H; y++)
		for (x = 0; x < WALK_W; x++) {
			memcpy(px, ref + (size_t)y * w->out16.pitch + 8 * x, 8);
			a = (struct fp_pixel){ px[2], px[1], px[0], 0xffff };
			fp_read_back(fourcc, map + (size_t)y * out.pitch + (size_t)bytes * x, &a,
				     &equal);
			if (!equal && !bad++)
				snprintf(why, sizeof(why), "(%d, %d), of %04x %04x %04x", x, y,
					 a.r, a.g, a.b);
		}
	check(name, !bad, "%d pixels are not the 16-bit frame's top bits, first at %s", bad, why);
	munmap((void *)map, out.size);
	kms_fb_destroy(w->dev->fd, &out);
}

/*
 * Documentation/flipkms.rst's table of formats per plane: each row's yes
 * and no are what the planes and the writeback connector list, and every
 * format they list has a row.
 */
static void walk_documented(struct walk *w, const uint32_t *wbf, uint32_t nwb)
{
	static const char *const doc = "Documentation/flipkms.rst", *const cols[4] = {
		"primary", "overlay", "cursor", "writeback" };
	const char *name = "documented-formats-are-the-driver's";
	char line[256], fmt[64], col[4][16], why[160] = "", buf[5];
	uint32_t all[128], i, j, n = 0;
	bool in_table = false, has_row[128] = { false }, want, said;
	int rows = 0, bad = 0, c, k;
	FILE *f;

	/* Every format some plane or the writeback connector lists, once. */
	for (c = 0; c < PLANES + 1; c++) {
		const uint32_t *list = c < PLANES ? w->plane[c]->formats : wbf;
		uint32_t count = c < PLANES ? w->plane[c]->count_formats : nwb;

		for (i = 0; i < count; i++) {
			for (j = 0; j < n && all[j] != list[i]; j++)
				;
			if (j == n && n < 128)
				all[n++] = list[i];
		}
	}
	begin(name);
	f = fopen(doc, "r");
	if (!f) {
		not_ok(name, "cannot read %s", doc);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		k = sscanf(line, "%63s %15s %15s %15s %15s", fmt, col[0], col[1], col[2], col[3]);
		if (!in_table) {
			in_table = k == 5 && !strcmp(fmt, "Format") && !strcmp(col[3], "writeback");
			continue;
		}
		if (line[0] == '=')
			continue;
		if (k <= 0)
			break;
		rows++;
		for (j = 0; j < n && strcmp(fp_name(all[j], buf), fmt); j++)
			;
		for (c = 0; c < 4; c++) {
			said = sscanf(line, "%*s %15s %15s %15s %15s", col[0], col[1], col[2],
				      col[3]) == 4 && !strcmp(col[c], "yes");
			if (j == n) {
				want = false;
			} else if (c < PLANES) {
				want = lists(w->plane[c], all[j]);
			} else {
				for (want = false, i = 0; i < nwb; i++)
					want |= wbf[i] == all[j];
			}
			if (said != want && !bad++)
				snprintf(why, sizeof(why), "%s: the table says %s for the %s", fmt,
					 said ? "yes" : "no", cols[c]);
		}
		if (j < n)
			has_row[j] = true;
	}
	fclose(f);
	for (j = 0; j < n; j++)
		if (!has_row[j] && !bad++)
			snprintf(why, sizeof(why), "%s: listed by the driver, no row",
				 fp_name(all[j], buf));
	check(name, rows > 0 && !bad, "%d rows, %d disagreements with the driver, first %s",
	      rows, bad, why);
}

/*
 * What the DRM core refuses, for every format of @all: ADDFB2 with a
 * plane's pitch a byte below its minimum, or with its last plane reaching
 * past the buffer (EINVAL); and a commit putting a format on a plane that
 * does not list it (EINVAL). The odd-sized control is accepted.
 */
static void walk_bad_input(struct walk *w, const uint32_t *all, uint32_t n)
{
	char first[4][96] = { "", "", "", "" };
	int bad[4] = { 0, 0, 0, 0 }, unlisted = 0, p, i, ret, last;
	uint32_t pitches[4], offsets[4], k;
	const struct fp_format *f;
	drmModeAtomicReq *req;
	struct kms_fb fb, tmp;
	const char *fname;
	char buf[5];
	size_t size;

	begin("bad-input-every-format");
	for (k = 0; k < n; k++) {
		f = fp_find(all[k]);
		if (!f)
			continue;	/* its known-answers check failed already */
		fname = fp_name(all[k], buf);
		size = fp_layout(f, OV_W, OV_H, pitches, offsets);
		munmap(dumb(w->dev->fd, 64, (uint32_t)(size / 64), 8, &fb), fb.size);
		ret = addfb(w->dev->fd, &fb, OV_W, OV_H, all[k], pitches, offsets, fp_planes(f));
		if (ret && !bad[0]++)
			snprintf(first[0], sizeof(first[0]), "%s: %s", fname, errno_name(-ret));
		if (!ret)
			drmModeRmFB(w->dev->fd, fb.fb_id);
		for (i = 0; i < fp_planes(f); i++) {
			tmp = fb;
			pitches[i] = fp_min_pitch(f, i, OV_W) - 1;
			ret = addfb(w->dev->fd, &tmp, OV_W, OV_H, all[k], pitches, offsets,
				    fp_planes(f));
			fp_layout(f, OV_W, OV_H, pitches, offsets);
			if (!ret)
				drmModeRmFB(w->dev->fd, tmp.fb_id);
			if (ret != -EINVAL && !bad[1]++)
				snprintf(first[1], sizeof(first[1]), "%s plane %d: %s", fname, i,
					 errno_name(-ret));
		}
		last = fp_planes(f) - 1;
		offsets[last] = (uint32_t)fb.size - pitches[last];
		ret = addfb(w->dev->fd, &tmp, OV_W, OV_H, all[k], pitches, offsets, fp_planes(f));
		if (!ret)
			drmModeRmFB(w->dev->fd, tmp.fb_id);
		if (ret != -EINVAL && !bad[2]++)
			snprintf(first[2], sizeof(first[2]), "%s: %s", fname, errno_name(-ret));
		fp_layout(f, OV_W, OV_H, pitches, offsets);
		/* On each plane that does not list it, through a commit. */
		for (p = 0; p < PLANES && !addfb(w->dev->fd, &tmp, OV_W, OV_H, all[k], pitches,
						  offsets, fp_planes(f)); p++) {
			if (!lists(w->plane[p], all[k])) {
				req = drmModeAtomicAlloc();
				kms_req_plane(req, w->plane_id[p], w->props[p], w->pipe->crtc_id,
					      &tmp, -1);
				ret = drmModeAtomicCommit(w->dev->fd, req,
							  DRM_MODE_ATOMIC_TEST_ONLY, NULL) ? -errno : 0;
				drmModeAtomicFree(req);
				unlisted++;
				if (ret != -EINVAL && !bad[3]++)
					snprintf(first[3], sizeof(first[3]), "%s on the %s: %s",
						 fname, walk_place[p].name, errno_name(-ret));
			}
			drmModeRmFB(w->dev->fd, tmp.fb_id);
		}
		drmModeDestroyDumbBuffer(w->dev->fd, fb.handle);
	}
	check("every-format-odd-size-accepted", !bad[0], "%d refused, first %s", bad[0],
	      first[0]);
	/* The default device's cursor lists no YCbCr: there are cases to try. */
	check("unlisted-format-on-plane-einval", !bad[3] && unlisted > 0,
	      "%d of %d not refused, first %s", bad[3], unlisted, first[3]);
	check("every-format-short-pitch-einval", !bad[1], "%d not refused, first %s", bad[1],
	      first[1]);
	check("every-format-plane-past-buffer-einval", !bad[2], "%d not refused, first %s",
	      bad[2], first[2]);
}

/* Every format of every plane, every writeback format, the table and the bad input. */
static void test_walk(struct kms_dev *dev, struct kms_pipe *pipe, const struct kms_writeback *wb,
		      const long long *encoding, const long long *range)
{
	static const drmModeModeInfo base = {
		.hdisplay = WALK_W, .hsync_start = 328, .hsync_end = 360, .htotal = 400,
		.vdisplay = WALK_H, .vsync_start = 203, .vsync_end = 207, .vtotal = 210,
	};
	static unsigned char ref[WALK_W * WALK_H * 8];
	drmModeModeInfo mode = kms_mode_at_refresh(&base, WALK_HZ);
	uint32_t all[128], n = 0, nwb, i, j;
	static struct walk w;
	const unsigned char *map;
	struct kms_fb first;
	uint32_t *wbf;
	int64_t start;
	int p, yuv = 0;

	begin("walk-setup");
	w.dev = dev;
	w.pipe = pipe;
	w.wb = wb;
	w.plane_id[PRIMARY] = pipe->primary_id;
	w.plane_id[OVERLAY] = pipe->overlay_id;
	w.plane_id[CURSOR] = pipe->cursor_id;
	w.props[PRIMARY] = &pipe->primary_props;
	w.props[OVERLAY] = &pipe->overlay_props;
	w.props[CURSOR] = &pipe->cursor_props;
	memcpy(w.encoding, encoding, sizeof(w.encoding));
	memcpy(w.range, range, sizeof(w.range));
	for (p = 0; p < PLANES; p++) {
		w.plane[p] = drmModeGetPlane(dev->fd, w.plane_id[p]);
		require(w.plane[p] != NULL, "the planes' format lists");
		for (i = 0; i < w.plane[p]->count_formats; i++) {
			for (j = 0; j < n && all[j] != w.plane[p]->formats[i]; j++)
				;
			if (j == n && n < 128)
				all[n++] = w.plane[p]->formats[i];
		}
	}
	wbf = wb_formats(dev->fd, wb, &nwb);
	require(wbf != NULL, "WRITEBACK_PIXEL_FORMATS");
	munmap(dumb(dev->fd, WALK_W, WALK_H, 64, &w.out16), w.out16.size);
	require(addfb(dev->fd, &w.out16, WALK_W, WALK_H, DRM_FORMAT_XRGB16161616, &w.out16.pitch,
		      (uint32_t[]){ 0 }, 1) == 0, "the XRGB16161616 writeback buffer");
	require(kms_fb_create(dev->fd, WALK_W, WALK_H, DRM_FORMAT_XRGB8888, 1, &first) == 0 &&
		kms_modeset(dev, pipe, &mode, &first) == 0, "a modeset to 320x200 at 240 Hz");
	comment("%u formats on the planes (primary %u, overlay %u, cursor %u), %u for writeback",
		n, w.plane[PRIMARY]->count_formats, w.plane[OVERLAY]->count_formats,
		w.plane[CURSOR]->count_formats, nwb);

	start = now_ns();
	for (i = 0; i < n; i++) {
		const struct fp_format *f = fp_find(all[i]);

		walk_format(&w, all[i], f && fp_is_yuv(f) ? yuv++ : 0);
		if (i == 0)
			kms_fb_destroy(dev->fd, &first);	/* off screen now */
	}
	map = kms_fb_map(dev->fd, &w.out16);
	require(map != NULL, "map the last frame written back");
	memcpy(ref, map, sizeof(ref));
	munmap((void *)map, w.out16.size);
	for (i = 0; i < nwb; i++)
		walk_writeback(&w, wbf[i], ref);
	walk_documented(&w, wbf, nwb);
	walk_bad_input(&w, all, n);
	comment("the walk took %.1f s", (now_ns() - start) / 1e9);

	for (p = 0; p < PLANES; p++) {
		if (w.on[p])
			kms_fb_destroy(dev->fd, &w.shown[p]);
		drmModeFreePlane(w.plane[p]);
	}
	kms_fb_destroy(dev->fd, &w.out16);
	free(wbf);
}

int main(int argc, char **argv)
{
	const char *driver = kms_driver_arg(argc, argv);
	struct kms_fb primary, primary16, nv12, rgb16, p010, out10, out8;
	long long bt601, bt709, bt2020, limited, full;
	drmModeModeInfo mode;
	struct kms_pipe pipe;
	struct kms_dev dev;
	long crc_yuv, crc_rgb, crc_601;
	struct kms_writeback wb;
	int ret;

	watchdog(50);	/* before the manifest's 60 s */
	begin("setup");
	require(driver && !strcmp(driver, "flipkms"), "usage: formats flipkms");
	require(kms_open(&dev, driver, KMS_CAP_ATOMIC) == 0, "open flipkms");
	require(drmSetClientCap(dev.fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1) == 0,
		"DRM_CLIENT_CAP_WRITEBACK_CONNECTORS");
	require(kms_pipes(&dev, &pipe, 1) == 1 && pipe.overlay_id && pipe.cursor_id,
		"a pipe with an overlay and a cursor");
	require(kms_writeback_find(&dev, &pipe, &wb), "a writeback connector");
	require(kms_crtc_debugfs_dir(&dev, &pipe, crtc_dir, sizeof(crtc_dir)) == 0,
		"flipkms debugfs directory");
	test_listed(&dev, &pipe, &wb);

	begin("setup");
	bt601 = enum_value(dev.fd, pipe.overlay_id, "COLOR_ENCODING", "ITU-R BT.601 YCbCr");
	bt709 = enum_value(dev.fd, pipe.overlay_id, "COLOR_ENCODING", "ITU-R BT.709 YCbCr");
	bt2020 = enum_value(dev.fd, pipe.overlay_id, "COLOR_ENCODING", "ITU-R BT.2020 YCbCr");
	limited = enum_value(dev.fd, pipe.overlay_id, "COLOR_RANGE", "YCbCr limited range");
	full = enum_value(dev.fd, pipe.overlay_id, "COLOR_RANGE", "YCbCr full range");
	require(bt601 >= 0 && bt709 >= 0 && bt2020 >= 0 && limited >= 0 && full >= 0,
		"the colour properties' values");
	require(kms_mode_of_size(&dev, &pipe, W, H, &mode), "a 640x480 mode");
	rgb_fb(dev.fd, DRM_FORMAT_XRGB2101010, &primary);
	rgb_fb(dev.fd, DRM_FORMAT_XRGB16161616, &primary16);
	rgb_fb(dev.fd, DRM_FORMAT_XRGB2101010, &out10);
	require(kms_fb_create(dev.fd, W, H, DRM_FORMAT_XRGB8888, 1, &out8) == 0, "XR24 buffer");
	nv12_fb(dev.fd, &nv12);
	p010_fb(dev.fd, &p010);
	rgb16_overlay(dev.fd, bt709_a, bt709_b, &rgb16);
	require(kms_modeset(&dev, &pipe, &mode, &primary) == 0, "modeset 640x480, XR30 primary");

	begin("nv12-bt709-xr30");
	ret = commit(&dev, &pipe, &wb, &(struct frame){ &primary, &nv12, bt709, limited }, &out10,
		     0);
	require(ret == 0, "NV12 overlay over an XR30 primary, written back");
	check_written_back(dev.fd, "nv12-bt709-xr30", &out10, bt709_a, bt709_b);

	begin("nv12-bt709-xr24");
	ret = commit(&dev, &pipe, &wb, &(struct frame){ &primary, &nv12, -1, -1 }, &out8, 0);
	check_int("nv12-bt709-xr24", 0, ret);
	check_int("nv12-xr24-last-odd-column", pack8(bt709_b),
		  wb_pixel(dev.fd, &out8, OV_X + OV_W - 1, OV_Y + OV_H - 1) & 0xffffff);
	check_int("nv12-xr24-clipped-first-column", pack8(bt709_a),
		  wb_pixel(dev.fd, &out8, 0, OV_Y) & 0xffffff);
	check_int("nv12-frame-ppm-agrees", pack8(bt709_b),
		  kms_frame_pixel(crtc_dir, SPLIT + OV_X, OV_Y + 1));

	begin("crc");
	crc_yuv = frame_crc();
	ret = commit(&dev, &pipe, &wb, &(struct frame){ &primary16, &rgb16, -1, -1 }, NULL, 0);
	require(ret == 0, "the same frame in XRGB16161616");
	crc_rgb = frame_crc();
	check("crc-nv12-xr30-equals-rgb16-known-answers", crc_yuv >= 0 && crc_yuv == crc_rgb,
	      "CRC %lx of NV12 over XR30, %lx of the XR48 known answers", crc_yuv, crc_rgb);
	ret = commit(&dev, &pipe, &wb, &(struct frame){ &primary, &nv12, bt601, limited }, NULL, 0);
	require(ret == 0, "NV12 in BT.601");
	crc_601 = frame_crc();
	check("crc-follows-color-encoding", crc_601 >= 0 && crc_601 != crc_yuv,
	      "CRC %lx in BT.601, %lx in BT.709: expected them to differ", crc_601, crc_yuv);

	begin("nv12-bt601-xr30");
	ret = commit(&dev, &pipe, &wb, &(struct frame){ &primary, &nv12, -1, -1 }, &out10, 0);
	require(ret == 0, "NV12 in BT.601, written back");
	check_written_back(dev.fd, "nv12-bt601-xr30", &out10, bt601_a, bt601_b);

	begin("p010-bt2020-xr30");
	ret = commit(&dev, &pipe, &wb, &(struct frame){ &primary, &p010, bt2020, limited }, &out10,
		     0);
	require(ret == 0, "P010 overlay, written back");
	check_written_back(dev.fd, "p010-bt2020-xr30", &out10, p010_rgb, p010_rgb);

	test_bad_input(&dev, &pipe, &wb, &primary, &nv12);
	test_walk(&dev, &pipe, &wb, (long long[]){ bt601, bt709, bt2020 },
		  (long long[]){ limited, full });

	{
		drmModeAtomicReq *req = drmModeAtomicAlloc();

		drmModeAtomicAddProperty(req, wb.id, wb.crtc_id, 0);
		drmModeAtomicCommit(dev.fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL);
		drmModeAtomicFree(req);
	}
	kms_disable(&dev, &pipe);
	kms_fb_destroy(dev.fd, &primary);
	kms_fb_destroy(dev.fd, &primary16);
	kms_fb_destroy(dev.fd, &nv12);
	kms_fb_destroy(dev.fd, &p010);
	kms_fb_destroy(dev.fd, &rgb16);
	kms_fb_destroy(dev.fd, &out10);
	kms_fb_destroy(dev.fd, &out8);
	kms_close(&dev);
	return finish();
}
