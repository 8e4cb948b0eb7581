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
 * usage: formats flipkms
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>

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
	int32_t fence = -1;
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
	if (out) {
		drmModeAtomicAddProperty(req, wb->id, wb->crtc_id, pipe->crtc_id);
		drmModeAtomicAddProperty(req, wb->id, wb->fb_id, out->fb_id);
		if (!(flags & DRM_MODE_ATOMIC_TEST_ONLY))
			drmModeAtomicAddProperty(req, wb->id, wb->out_fence_ptr,
						 (uint64_t)(uintptr_t)&fence);
	}
	/* Attaching the writeback connector is a modeset. */
	ret = drmModeAtomicCommit(dev->fd, req, flags | DRM_MODE_ATOMIC_ALLOW_MODESET, NULL) ?
	      -errno : 0;
	drmModeAtomicFree(req);
	if (fence >= 0) {
		if (sync_wait(fence, 10000))
			ret = -ETIME;
		close(fence);
	}
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
