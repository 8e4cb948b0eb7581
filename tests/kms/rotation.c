// SPDX-License-Identifier: MIT
/*
 * rotation: flipkms's ROTATION property, shown and read back. At 640x480,
 * one frame of
 *
 *   a primary turned 90 degrees	a 480x640 XRGB8888 buffer filling the
 *					CRTC (rotate-90)
 *   an overlay turned and mirrored	40x24 of a 48x30 ARGB8888 buffer (its
 *					source inside, at (5, 3)), rotate-90
 *					reflect-y, partly off the right edge;
 *					opaque, half and fully transparent
 *					pixels
 *   a cursor turned and mirrored	32x16 ARGB8888, rotate-270 reflect-x,
 *					partly off the top left corner
 *
 * The expected frame is worked out here from the DRM documentation's
 * definition, each source pixel sent forward to where it lands (reflect
 * first, then turn counter-clockwise), and blended as premultiplied
 * "over" in 16 bits (Documentation/flipkms.rst):
 *
 *   rotation-property		every plane has ROTATION with rotate-0/90/180/270
 *				and reflect-x/y
 *   rotated-writeback		every written-back pixel is the answer's
 *   rotated-frame-ppm		so is every pixel of frame.ppm
 *   rotated-crc		the CRC entry is the CRC32 of the 16-bit answer
 *   rotate-0-restored		the planes are back at rotate-0 for the tests after
 *   bad input			the core's EINVAL for two rotate-* bits and ERANGE
 *				for a turned source the size of the unturned
 *				destination (no scaling), with the controls
 *				accepted
 *
 * usage: rotation flipkms
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

/* The overlay's buffer, source rectangle and place. */
#define OV_FB_W		48
#define OV_FB_H		30
#define OV_SRC_X	5
#define OV_SRC_Y	3
#define OV_W		40
#define OV_H		24
#define OV_X		(W - 10)	/* turned it is 24 wide: 14 columns off */
#define OV_Y		100
#define OV_ROTATION	(DRM_MODE_ROTATE_90 | DRM_MODE_REFLECT_Y)

#define CUR_W		32
#define CUR_H		16
#define CUR_X		(-4)
#define CUR_Y		(-6)
#define CUR_ROTATION	(DRM_MODE_ROTATE_270 | DRM_MODE_REFLECT_X)

static char crtc_dir[96];
static struct kms_writeback wb;

struct rgb16 {
	uint16_t r, g, b;
};

/* The answer: the composed frame, 16 bits a channel. */
static struct rgb16 want[W * H];

/* The primary's pixel (x, y) of its 480x640 buffer: every one differs. */
static uint32_t primary_px(int x, int y)
{
	return (uint32_t)(x & 0xff) << 16 | (uint32_t)(y & 0xff) << 8 | 0x80 |
	       (uint32_t)(x >> 8) << 4 | (uint32_t)(y >> 8);
}

/*
 * An overlay or cursor pixel (@x, @y) of its buffer: alpha 0xff, 0x80 or
 * 0 in turn, colours premultiplied (no more than alpha), all zero where
 * transparent.
 */
static uint32_t argb_px(int x, int y, int salt)
{
	uint32_t a = (const uint32_t[]){ 0xff, 0x80, 0 }[(x + 2 * y + salt) % 3];
	uint32_t r = (uint32_t)(x * 6 + salt) % (a + 1), g = (uint32_t)(y * 10) % (a + 1);

	return a << 24 | r << 16 | g << 8 | a / 2;
}

/* A @w x @h XRGB8888 or ARGB8888 buffer of the pixels @px gives. */
static void make_fb(int fd, int w, int h, uint32_t format, uint32_t (*px)(int, int, int),
		    int salt, struct kms_fb *fb)
{
	unsigned char *map;
	uint32_t v;
	int x, y;

	require(kms_fb_create(fd, (uint32_t)w, (uint32_t)h, format, 0, fb) == 0, "a buffer");
	map = kms_fb_map(fd, fb);
	require(map != NULL, "map a buffer");
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			v = px(x, y, salt);
			memcpy(map + (size_t)y * fb->pitch + 4 * x, &v, 4);
		}
	munmap(map, fb->size);
}

static uint32_t primary_px3(int x, int y, int salt)
{
	(void)salt;
	return primary_px(x, y);
}

/*
 * Where offset (@ox, @oy) of a @w x @h source lands in its destination, as
 * the DRM documentation defines ROTATION: mirrored (reflect-x left to
 * right, reflect-y top to bottom), then turned counter-clockwise.
 */
static void forward(uint32_t rotation, int w, int h, int ox, int oy, int *dx, int *dy)
{
	if (rotation & DRM_MODE_REFLECT_X)
		ox = w - 1 - ox;
	if (rotation & DRM_MODE_REFLECT_Y)
		oy = h - 1 - oy;
	switch (rotation & DRM_MODE_ROTATE_MASK) {
	case DRM_MODE_ROTATE_90:	/* the right column becomes the top row */
		*dx = oy;
		*dy = w - 1 - ox;
		break;
	case DRM_MODE_ROTATE_180:
		*dx = w - 1 - ox;
		*dy = h - 1 - oy;
		break;
	case DRM_MODE_ROTATE_270:	/* the left column becomes the top row, upwards */
		*dx = h - 1 - oy;
		*dy = ox;
		break;
	default:
		*dx = ox;
		*dy = oy;
	}
}

/* 8-bit premultiplied @v over the answer at (@x, @y), if it is on the CRTC. */
static void blend_at(int x, int y, uint32_t v)
{
	uint32_t a = v >> 24, c[3] = { v >> 16 & 0xff, v >> 8 & 0xff, v & 0xff }, o;
	uint16_t *d[3];
	int i;

	if (x < 0 || y < 0 || x >= W || y >= H)
		return;
	d[0] = &want[y * W + x].r;
	d[1] = &want[y * W + x].g;
	d[2] = &want[y * W + x].b;
	for (i = 0; i < 3; i++) {
		o = c[i] * 257 + *d[i] * (255 - a) / 255;
		*d[i] = (uint16_t)(o > 0xffff ? 0xffff : o);
	}
}

/* The answer for the frame the header describes. */
static void work_out_answer(void)
{
	int x, y, dx, dy;

	memset(want, 0, sizeof(want));
	for (y = 0; y < W; y++)		/* the primary's buffer is 480x640 */
		for (x = 0; x < H; x++) {
			forward(DRM_MODE_ROTATE_90, H, W, x, y, &dx, &dy);
			blend_at(dx, dy, 0xffu << 24 | primary_px(x, y));
		}
	for (y = 0; y < OV_H; y++)
		for (x = 0; x < OV_W; x++) {
			forward(OV_ROTATION, OV_W, OV_H, x, y, &dx, &dy);
			blend_at(OV_X + dx, OV_Y + dy, argb_px(OV_SRC_X + x, OV_SRC_Y + y, 1));
		}
	for (y = 0; y < CUR_H; y++)
		for (x = 0; x < CUR_W; x++) {
			forward(CUR_ROTATION, CUR_W, CUR_H, x, y, &dx, &dy);
			blend_at(CUR_X + dx, CUR_Y + dy, argb_px(x, y, 2));
		}
}

static uint32_t rotation_prop(int fd, uint32_t plane)
{
	return kms_prop_id(fd, plane, DRM_MODE_OBJECT_PLANE, "rotation");
}

/* Plane @id showing @fb's rectangle (@sx, @sy, @sw x @sh) at (@x, @y), turned. */
static void add_plane(drmModeAtomicReq *req, int fd, uint32_t crtc, uint32_t id,
		      const struct kms_plane_props *p, const struct kms_fb *fb, int sx, int sy,
		      int sw, int sh, int x, int y, uint32_t rotation)
{
	bool turned = rotation & (DRM_MODE_ROTATE_90 | DRM_MODE_ROTATE_270);

	kms_req_plane(req, id, p, crtc, fb, -1);
	drmModeAtomicAddProperty(req, id, p->src_x, (uint64_t)sx << 16);
	drmModeAtomicAddProperty(req, id, p->src_y, (uint64_t)sy << 16);
	drmModeAtomicAddProperty(req, id, p->src_w, (uint64_t)sw << 16);
	drmModeAtomicAddProperty(req, id, p->src_h, (uint64_t)sh << 16);
	drmModeAtomicAddProperty(req, id, p->crtc_x, (uint64_t)(int64_t)x);
	drmModeAtomicAddProperty(req, id, p->crtc_y, (uint64_t)(int64_t)y);
	drmModeAtomicAddProperty(req, id, p->crtc_w, (uint64_t)(turned ? sh : sw));
	drmModeAtomicAddProperty(req, id, p->crtc_h, (uint64_t)(turned ? sw : sh));
	drmModeAtomicAddProperty(req, id, rotation_prop(fd, id), rotation);
}

/* ROTATION of @plane offers all four turns and both mirrors. */
static bool has_all_rotations(int fd, uint32_t plane)
{
	static const char *const names[] = {
		"rotate-0", "rotate-90", "rotate-180", "rotate-270", "reflect-x", "reflect-y",
	};
	drmModePropertyRes *p = drmModeGetProperty(fd, kms_prop_id(fd, plane,
							DRM_MODE_OBJECT_PLANE, "rotation"));
	unsigned int i, found = 0;
	int j;

	for (i = 0; p && i < sizeof(names) / sizeof(names[0]); i++)
		for (j = 0; j < p->count_enums; j++)
			if (!strcmp(p->enums[j].name, names[i]))
				found++;
	drmModeFreeProperty(p);
	return found == sizeof(names) / sizeof(names[0]);
}

static uint32_t want8(int i)
{
	return (uint32_t)(want[i].r >> 8) << 16 | (uint32_t)(want[i].g >> 8) << 8 |
	       want[i].b >> 8;
}

/* Every pixel of @got (XRGB8888 rows of @pitch bytes, or RGB if !@pitch). */
static void check_pixels(const char *name, const unsigned char *got, size_t pitch)
{
	int i, bad = 0, first = -1;
	uint32_t v, first_v = 0;

	for (i = 0; i < W * H; i++) {
		if (pitch) {
			memcpy(&v, got + (size_t)(i / W) * pitch + 4 * (i % W), 4);
			v &= 0xffffff;
		} else {
			v = (uint32_t)got[3 * i] << 16 | got[3 * i + 1] << 8 | got[3 * i + 2];
		}
		if (v != want8(i) && !bad++) {
			first = i;
			first_v = v;
		}
	}
	check(name, !bad, "%d of %d pixels differ, first at (%d, %d): %06x, expected %06x", bad,
	      W * H, first % W, first / W, first_v, first < 0 ? 0 : want8(first));
}

/* The CRC32 of the answer as the composer's CRC covers it: ARGB16161616 LE. */
static uint32_t want_crc(void)
{
	static unsigned char line[W * 8];
	uint32_t crc = 0;
	int x, y, i;

	for (y = 0; y < H; y++) {
		for (x = 0; x < W; x++) {
			const struct rgb16 *px = &want[y * W + x];
			uint16_t v[4] = { px->b, px->g, px->r, 0xffff };

			for (i = 0; i < 4; i++) {
				line[8 * x + 2 * i] = v[i] & 0xff;
				line[8 * x + 2 * i + 1] = v[i] >> 8;
			}
		}
		crc = kms_crc32_le(crc, line, sizeof(line));
	}
	return crc;
}

static void test_frame(struct kms_dev *dev, const struct kms_pipe *pipe, const struct kms_fb *fbs,
		       const struct kms_fb *out)
{
	static unsigned char ppm[W * H * 3];
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	struct kms_crc_entry e;
	int32_t fence = -1;
	unsigned char *map;
	int ret, data;

	begin("rotated-frame");
	work_out_answer();
	add_plane(req, dev->fd, pipe->crtc_id, pipe->primary_id, &pipe->primary_props, &fbs[0],
		  0, 0, H, W, 0, 0, DRM_MODE_ROTATE_90);
	add_plane(req, dev->fd, pipe->crtc_id, pipe->overlay_id, &pipe->overlay_props, &fbs[1],
		  OV_SRC_X, OV_SRC_Y, OV_W, OV_H, OV_X, OV_Y, OV_ROTATION);
	add_plane(req, dev->fd, pipe->crtc_id, pipe->cursor_id, &pipe->cursor_props, &fbs[2],
		  0, 0, CUR_W, CUR_H, CUR_X, CUR_Y, CUR_ROTATION);
	drmModeAtomicAddProperty(req, wb.id, wb.crtc_id, pipe->crtc_id);
	drmModeAtomicAddProperty(req, wb.id, wb.fb_id, out->fb_id);
	drmModeAtomicAddProperty(req, wb.id, wb.out_fence_ptr, (uint64_t)(uintptr_t)&fence);
	ret = drmModeAtomicCommit(dev->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL) ? -errno : 0;
	drmModeAtomicFree(req);
	if (!check("rotated-commit-accepted", ret == 0 && fence >= 0, "commit %s, fence %d",
		   errno_name(-ret), fence))
		return;
	require(sync_wait(fence, 10000) == 0, "the writeback fence signals within 10 s");
	close(fence);

	map = kms_fb_map(dev->fd, out);
	require(map != NULL, "map the writeback buffer");
	check_pixels("rotated-writeback", map, out->pitch);
	munmap(map, out->size);

	if (kms_frame_ppm(crtc_dir, W, H, ppm))
		check_pixels("rotated-frame-ppm", ppm, 0);
	else
		not_ok("rotated-frame-ppm", "frame.ppm is not a %dx%d PPM", W, H);

	data = kms_crc_open(crtc_dir, 0);
	ret = kms_crc_next(data, false, &e);
	close(data);
	check("rotated-crc", ret && e.crc == want_crc(),
	      "expected the CRC32 of the 16-bit answer, %08x, got %08lx", want_crc(),
	      ret ? e.crc : 0);
}

/* A TEST_ONLY commit of the overlay's source at @rotation, @w x @h on the CRTC. */
static int try_overlay(struct kms_dev *dev, const struct kms_pipe *pipe, const struct kms_fb *fb,
		       uint32_t rotation, int w, int h)
{
	const struct kms_plane_props *p = &pipe->overlay_props;
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret;

	add_plane(req, dev->fd, pipe->crtc_id, pipe->overlay_id, p, fb, OV_SRC_X, OV_SRC_Y,
		  OV_W, OV_H, 0, 0, rotation);
	drmModeAtomicAddProperty(req, pipe->overlay_id, p->crtc_w, (uint64_t)w);
	drmModeAtomicAddProperty(req, pipe->overlay_id, p->crtc_h, (uint64_t)h);
	ret = drmModeAtomicCommit(dev->fd, req, DRM_MODE_ATOMIC_TEST_ONLY, NULL) ? -errno : 0;
	drmModeAtomicFree(req);
	return ret;
}

static void test_bad_input(struct kms_dev *dev, const struct kms_pipe *pipe,
			   const struct kms_fb *overlay)
{
	begin("bad-input");
	check_int("rotate-90-turned-size-accepted", 0,
		  try_overlay(dev, pipe, overlay, DRM_MODE_ROTATE_90, OV_H, OV_W));
	check_int("rotate-90-unturned-size-erange", -ERANGE,
		  try_overlay(dev, pipe, overlay, DRM_MODE_ROTATE_90, OV_W, OV_H));
	check_int("rotate-180-reflect-x-y-accepted", 0,
		  try_overlay(dev, pipe, overlay, DRM_MODE_ROTATE_180 | DRM_MODE_REFLECT_X |
			      DRM_MODE_REFLECT_Y, OV_W, OV_H));
	check_int("two-rotate-bits-einval", -EINVAL,
		  try_overlay(dev, pipe, overlay, DRM_MODE_ROTATE_0 | DRM_MODE_ROTATE_180,
			      OV_W, OV_H));
}

int main(int argc, char **argv)
{
	const char *driver = kms_driver_arg(argc, argv);
	struct kms_fb fbs[3], plain, out;
	drmModeAtomicReq *req;
	struct kms_pipe pipe;
	struct kms_dev dev;

	watchdog(50);	/* before the manifest's 60 s */
	begin("setup");
	require(driver && !strcmp(driver, "flipkms"),
		"frame.ppm and the known answers are flipkms's (usage: rotation flipkms)");
	require(kms_open(&dev, driver, KMS_CAP_ATOMIC) == 0, "open flipkms");
	require(drmSetClientCap(dev.fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1) == 0,
		"DRM_CLIENT_CAP_WRITEBACK_CONNECTORS");
	require(kms_pipes(&dev, &pipe, 1) == 1 && pipe.overlay_id && pipe.cursor_id,
		"a pipe with an overlay and a cursor");
	require(kms_writeback_find(&dev, &pipe, &wb), "the pipe's writeback connector");
	require(kms_crtc_debugfs_dir(&dev, &pipe, crtc_dir, sizeof(crtc_dir)) == 0,
		"flipkms debugfs directory");
	check("rotation-property", has_all_rotations(dev.fd, pipe.primary_id) &&
	      has_all_rotations(dev.fd, pipe.overlay_id) &&
	      has_all_rotations(dev.fd, pipe.cursor_id),
	      "expected rotate-0/90/180/270 and reflect-x/y on primary, overlay and cursor");

	begin("setup");
	/* 640x480: small enough to compose quickly under TCG. */
	require(kms_mode_of_size(&dev, &pipe, W, H, &pipe.mode), "a 640x480 mode");
	make_fb(dev.fd, H, W, DRM_FORMAT_XRGB8888, primary_px3, 0, &fbs[0]);
	make_fb(dev.fd, OV_FB_W, OV_FB_H, DRM_FORMAT_ARGB8888, argb_px, 1, &fbs[1]);
	make_fb(dev.fd, CUR_W, CUR_H, DRM_FORMAT_ARGB8888, argb_px, 2, &fbs[2]);
	require(kms_fb_create(dev.fd, W, H, DRM_FORMAT_XRGB8888, 1, &plain) == 0 &&
		kms_fb_create(dev.fd, W, H, DRM_FORMAT_XRGB8888, 2, &out) == 0, "buffers");
	require(kms_modeset(&dev, &pipe, &pipe.mode, &plain) == 0, "modeset 640x480");

	test_frame(&dev, &pipe, fbs, &out);
	test_bad_input(&dev, &pipe, &fbs[1]);

	/* Planes keep their ROTATION: the tests after this one expect rotate-0. */
	req = drmModeAtomicAlloc();
	drmModeAtomicAddProperty(req, wb.id, wb.crtc_id, 0);
	kms_req_plane(req, pipe.primary_id, &pipe.primary_props, pipe.crtc_id, &plain, -1);
	kms_req_plane(req, pipe.overlay_id, &pipe.overlay_props, 0, NULL, -1);
	kms_req_plane(req, pipe.cursor_id, &pipe.cursor_props, 0, NULL, -1);
	drmModeAtomicAddProperty(req, pipe.primary_id, rotation_prop(dev.fd, pipe.primary_id),
				 DRM_MODE_ROTATE_0);
	drmModeAtomicAddProperty(req, pipe.overlay_id, rotation_prop(dev.fd, pipe.overlay_id),
				 DRM_MODE_ROTATE_0);
	drmModeAtomicAddProperty(req, pipe.cursor_id, rotation_prop(dev.fd, pipe.cursor_id),
				 DRM_MODE_ROTATE_0);
	check_int("rotate-0-restored", 0,
		  drmModeAtomicCommit(dev.fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL) ? -errno : 0);
	drmModeAtomicFree(req);
	kms_disable(&dev, &pipe);
	kms_fb_destroy(dev.fd, &fbs[0]);
	kms_fb_destroy(dev.fd, &fbs[1]);
	kms_fb_destroy(dev.fd, &fbs[2]);
	kms_fb_destroy(dev.fd, &plain);
	kms_fb_destroy(dev.fd, &out);
	kms_close(&dev);
	return finish();
}
