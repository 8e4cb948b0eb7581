// SPDX-License-Identifier: GPL-2.0+
/*
 * Known answers for rotated and reflected planes (ROTATION, composed by
 * drivers/flipkms/flipkms_blend.c and walked by flipkms_formats.c): small
 * images with a distinct value in every pixel, turned as the DRM docs
 * define ROTATION (rotate-N turns the image N degrees counter-clockwise,
 * reflect-x mirrors it left to right, reflect-y top to bottom, and the
 * core reflects before it rotates, drm_rect_rotate()), with each expected
 * picture written out by hand below. The source and destination rectangles
 * are clipped by the core's own rectangle helpers, in the order
 * drm_atomic_helper_check_plane_state() uses them, so a plane partly off
 * the CRTC reaches the composer as a real commit would bring it.
 *
 * The composer is compiled into this module from its source, as it is into
 * flipkms.ko: flipkms exports nothing.
 */

#include <kunit/test.h>
#include <linux/module.h>

#include <drm/drm_rect.h>

#include "../../drivers/flipkms/flipkms_blend.c"
#include "../../drivers/flipkms/flipkms_formats.c"
#include "../../drivers/flipkms/flipkms_color.c"

#define R0	DRM_MODE_ROTATE_0
#define R90	DRM_MODE_ROTATE_90
#define R180	DRM_MODE_ROTATE_180
#define R270	DRM_MODE_ROTATE_270
#define RX	DRM_MODE_REFLECT_X
#define RY	DRM_MODE_REFLECT_Y

#define MAX_SIDE	4

/*
 * Puts @fp where a commit of this source and CRTC rectangle would: the
 * destination is the source's size turned (no scaling), and both are
 * clipped to a @crtc_w x @crtc_h CRTC as the core clips them.
 */
static bool place(struct flipkms_frame_plane *fp, unsigned int rotation,
		  int src_x, int src_y, int src_w, int src_h,
		  int crtc_x, int crtc_y, int crtc_w, int crtc_h)
{
	const struct drm_framebuffer *fb = fp->fb;
	struct drm_rect clip = { 0, 0, crtc_w, crtc_h };
	bool turned = drm_rotation_90_or_270(rotation);
	bool visible;

	fp->rotation = rotation;
	drm_rect_init(&fp->src, src_x << 16, src_y << 16, src_w << 16, src_h << 16);
	drm_rect_init(&fp->dst, crtc_x, crtc_y, turned ? src_h : src_w,
		      turned ? src_w : src_h);
	drm_rect_rotate(&fp->src, fb->width << 16, fb->height << 16, rotation);
	visible = drm_rect_clip_scaled(&fp->src, &fp->dst, &clip);
	drm_rect_rotate_inv(&fp->src, fb->width << 16, fb->height << 16, rotation);
	return visible;
}

/* Pixel value @id (1 to 255) as a grey of @format, 16-bit value id * 257. */
static void put_grey(u32 format, u8 id, u8 *p)
{
	switch (format) {
	case DRM_FORMAT_XRGB8888:
	case DRM_FORMAT_ARGB8888:
		put_unaligned_le32(0xffU << 24 | id << 16 | id << 8 | id, p);
		break;
	case DRM_FORMAT_RGB888:
		p[0] = id;
		p[1] = id;
		p[2] = id;
		break;
	case DRM_FORMAT_ARGB16161616:
		put_unaligned_le64(0xffffULL << 48 | (u64)id * 257 << 32 |
				   (u64)id * 257 << 16 | id * 257, p);
		break;
	}
}

/* A @w x @h framebuffer of @format in @buf whose pixels are ids[]. */
static void grey_fb(struct drm_framebuffer *fb, struct flipkms_frame_plane *fp,
		    u32 format, int w, int h, const u8 *ids, u8 *buf)
{
	int x, y;

	*fb = (struct drm_framebuffer){ .format = drm_format_info(format),
					.width = w, .height = h };
	fb->pitches[0] = w * fb->format->cpp[0] + 4;	/* slack, as clients have */
	*fp = (struct flipkms_frame_plane){ .fb = fb };
	iosys_map_set_vaddr(&fp->data[0], buf);
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			put_grey(format, ids[y * w + x],
				 buf + y * fb->pitches[0] + x * fb->format->cpp[0]);
}

static void expect_px(struct kunit *test, const char *what,
		      const struct flipkms_pixel *got, u16 r, u16 g, u16 b)
{
	if (got->r != r || got->g != g || got->b != b || got->a != 0xffff)
		KUNIT_FAIL(test, "%s: r g b a %04x %04x %04x %04x, expected %04x %04x %04x ffff",
			   what, got->r, got->g, got->b, got->a, r, g, b);
}

/*
 * Composes @frame (@w x @h) and expects the grey ids of @want, row by row
 * (0 for the black background).
 */
static void expect_ids(struct kunit *test, const char *what, u32 format,
		       unsigned int rotation, struct flipkms_frame *frame,
		       const u8 *want)
{
	struct flipkms_pixel line[MAX_SIDE];
	u8 got[MAX_SIDE * MAX_SIDE];
	int x, y, w = frame->width, h = frame->height;
	bool same = true;

	for (y = 0; y < h; y++) {
		flipkms_compose_line(frame, y, line);
		for (x = 0; x < w; x++) {
			got[y * w + x] = line[x].r >> 8;
			if (line[x].r != want[y * w + x] * 257 || line[x].g != line[x].r ||
			    line[x].b != line[x].r || line[x].a != 0xffff)
				same = false;
		}
	}
	if (!same)
		KUNIT_FAIL(test, "%s %p4cc rotation %#x: rows %*phN, expected %*phN", what,
			   &format, rotation, w * h, got, w * h, want);
}

/*
 * The 3x2 image
 *	1 2 3
 *	4 5 6
 * in every rotation and reflection, in formats of the fast paths (which a
 * rotated plane leaves) and of flipkms_formats.c, 3 bytes a pixel included.
 */
static void rotation_known_answers(struct kunit *test)
{
	static const u8 image[6] = { 1, 2, 3, 4, 5, 6 };
	static const struct {
		unsigned int rotation;
		int w, h;
		u8 ids[6];
	} answers[] = {
		{ R0, 3, 2, { 1, 2, 3,
			      4, 5, 6 } },
		{ R90, 2, 3, { 3, 6,		/* the right column on top */
			       2, 5,
			       1, 4 } },
		{ R180, 3, 2, { 6, 5, 4,
				3, 2, 1 } },
		{ R270, 2, 3, { 4, 1,		/* the left column on top, upwards */
				5, 2,
				6, 3 } },
		{ R0 | RX, 3, 2, { 3, 2, 1,
				   6, 5, 4 } },
		{ R0 | RY, 3, 2, { 4, 5, 6,
				   1, 2, 3 } },
		{ R0 | RX | RY, 3, 2, { 6, 5, 4,	/* rotate-180 */
					3, 2, 1 } },
		{ R90 | RX, 2, 3, { 1, 4,	/* mirrored, then turned: transposed */
				    2, 5,
				    3, 6 } },
		{ R90 | RY, 2, 3, { 6, 3,
				    5, 2,
				    4, 1 } },
		{ R270 | RX, 2, 3, { 6, 3,	/* the same as rotate-90 reflect-y */
				     5, 2,
				     4, 1 } },
		{ R180 | RX, 3, 2, { 4, 5, 6,	/* reflect-y */
				     1, 2, 3 } },
	};
	static const u32 formats[] = {
		DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_ARGB16161616,
		DRM_FORMAT_RGB888,
	};
	struct flipkms_frame *frame;
	struct drm_framebuffer fb;
	unsigned int i, f;
	u8 *buf;

	frame = kunit_kzalloc(test, sizeof(*frame), GFP_KERNEL);
	buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, frame);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	frame->num_planes = 1;
	for (f = 0; f < ARRAY_SIZE(formats); f++) {
		grey_fb(&fb, &frame->planes[0], formats[f], 3, 2, image, buf);
		for (i = 0; i < ARRAY_SIZE(answers); i++) {
			frame->width = answers[i].w;
			frame->height = answers[i].h;
			KUNIT_ASSERT_TRUE(test, place(&frame->planes[0], answers[i].rotation,
						      0, 0, 3, 2, 0, 0, frame->width,
						      frame->height));
			expect_ids(test, "3x2", formats[f], answers[i].rotation, frame,
				   answers[i].ids);
		}
	}
}

/*
 * A source rectangle inside a larger framebuffer, its turned destination
 * partly off a 4x2 CRTC. The framebuffer, 4x3, and the source, 3x2 at (1, 1):
 *	 1  2  3  4
 *	 5 [6  7  8]
 *	 9 [10 11 12]
 * Turned 90 degrees it is 2 wide and 3 high (8 12 / 7 11 / 6 10); at (2, -1)
 * its top row is off the CRTC. Turned 270 (10 6 / 11 7 / 12 8) at (-1, 0),
 * its left column and bottom row are.
 */
static void rotation_clipped(struct kunit *test)
{
	static const u8 image[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	static const struct {
		unsigned int rotation;
		int crtc_x, crtc_y;
		u8 ids[8];
	} answers[] = {
		{ R90, 2, -1, { 0, 0, 7, 11,
				0, 0, 6, 10 } },
		{ R270, -1, 0, { 6, 0, 0, 0,
				 7, 0, 0, 0 } },
		/* mirrored first (8 7 6 / 12 11 10), then turned: 6 10 / 7 11 / 8 12 */
		{ R90 | RX, 1, 0, { 0, 6, 10, 0,
				    0, 7, 11, 0 } },
	};
	struct flipkms_frame *frame;
	struct drm_framebuffer fb;
	unsigned int i;
	u8 *buf;

	frame = kunit_kzalloc(test, sizeof(*frame), GFP_KERNEL);
	buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, frame);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	frame->width = 4;
	frame->height = 2;
	frame->num_planes = 1;
	grey_fb(&fb, &frame->planes[0], DRM_FORMAT_XRGB8888, 4, 3, image, buf);
	for (i = 0; i < ARRAY_SIZE(answers); i++) {
		KUNIT_ASSERT_TRUE(test, place(&frame->planes[0], answers[i].rotation, 1, 1,
					      3, 2, answers[i].crtc_x, answers[i].crtc_y,
					      frame->width, frame->height));
		expect_ids(test, "clipped", DRM_FORMAT_XRGB8888, answers[i].rotation,
			   frame, answers[i].ids);
	}
}

/*
 * An ARGB8888 overlay turned 180 degrees over an opaque grey primary: the
 * blend follows the turned pixels. The overlay's two pixels, half red
 * premultiplied (alpha 0x80, red 0x40) then transparent, show the other
 * way round: grey 0x8080, then red 0x4040 + 0x8080 * 127 / 255 = 0x803f
 * and green and blue 0x8080 * 127 / 255 = 0x3fff.
 */
static void rotation_blended(struct kunit *test)
{
	static const u8 grey[2] = { 0x80, 0x80 };
	struct flipkms_pixel line[2];
	struct flipkms_frame *frame;
	struct drm_framebuffer fb[2];
	u8 *buf;

	frame = kunit_kzalloc(test, sizeof(*frame), GFP_KERNEL);
	buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, frame);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	frame->width = 2;
	frame->height = 1;
	frame->num_planes = 2;
	grey_fb(&fb[0], &frame->planes[0], DRM_FORMAT_XRGB8888, 2, 1, grey, buf);
	KUNIT_ASSERT_TRUE(test, place(&frame->planes[0], R0, 0, 0, 2, 1, 0, 0, 2, 1));
	fb[1] = (struct drm_framebuffer){ .format = drm_format_info(DRM_FORMAT_ARGB8888),
					  .width = 2, .height = 1, .pitches = { 8 } };
	frame->planes[1] = (struct flipkms_frame_plane){ .fb = &fb[1], .zpos = 1 };
	put_unaligned_le32(0x80400000, buf + 32);
	put_unaligned_le32(0x00000000, buf + 36);
	iosys_map_set_vaddr(&frame->planes[1].data[0], buf + 32);
	KUNIT_ASSERT_TRUE(test, place(&frame->planes[1], R180, 0, 0, 2, 1, 0, 0, 2, 1));

	flipkms_compose_line(frame, 0, line);
	expect_px(test, "transparent", &line[0], 0x8080, 0x8080, 0x8080);
	expect_px(test, "half red", &line[1], 0x803f, 0x3fff, 0x3fff);
}

/*
 * NV12, 4x2, BT.601 limited range, turned 90 degrees: each pixel keeps
 * its own block's chroma. Luma and chroma blocks:
 *	235  16 | 100 100	left block Cb Cr 128 128 (no colour)
 *	 16  16 | 100 100	right block Cb Cr 141 111
 * Turned, the right block's columns come first: two rows of
 * (100, 141, 111) = RGB 0x46f4 0x6af4 0x7c84 (tests/kunit/yuv-vectors.py),
 * then black, then white (the top left pixel) and black.
 */
static void rotation_yuv(struct kunit *test)
{
	static const u8 luma[8] = { 235, 16, 100, 100, 16, 16, 100, 100 };
	static const u8 chroma[4] = { 128, 128, 141, 111 };
	static const u16 c[3] = { 0x46f4, 0x6af4, 0x7c84 };
	struct flipkms_pixel line[2];
	struct flipkms_frame *frame;
	struct drm_framebuffer fb;
	int y;

	frame = kunit_kzalloc(test, sizeof(*frame), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, frame);
	fb = (struct drm_framebuffer){ .format = drm_format_info(DRM_FORMAT_NV12),
				       .width = 4, .height = 2, .pitches = { 4, 4 } };
	frame->planes[0] = (struct flipkms_frame_plane){
		.fb = &fb,
		.color_encoding = DRM_COLOR_YCBCR_BT601,
		.color_range = DRM_COLOR_YCBCR_LIMITED_RANGE,
	};
	iosys_map_set_vaddr(&frame->planes[0].data[0], (void *)luma);
	iosys_map_set_vaddr(&frame->planes[0].data[1], (void *)chroma);
	frame->width = 2;
	frame->height = 4;
	frame->num_planes = 1;
	KUNIT_ASSERT_TRUE(test, place(&frame->planes[0], R90, 0, 0, 4, 2, 0, 0, 2, 4));

	for (y = 0; y < 2; y++) {
		flipkms_compose_line(frame, y, line);
		expect_px(test, "right block", &line[0], c[0], c[1], c[2]);
		expect_px(test, "right block", &line[1], c[0], c[1], c[2]);
	}
	flipkms_compose_line(frame, 2, line);
	expect_px(test, "left block", &line[0], 0, 0, 0);
	expect_px(test, "left block", &line[1], 0, 0, 0);
	flipkms_compose_line(frame, 3, line);
	expect_px(test, "top left pixel", &line[0], 0xffff, 0xffff, 0xffff);
	expect_px(test, "left block", &line[1], 0, 0, 0);
}

static struct kunit_case flipkms_rotation_cases[] = {
	KUNIT_CASE(rotation_known_answers),
	KUNIT_CASE(rotation_clipped),
	KUNIT_CASE(rotation_blended),
	KUNIT_CASE(rotation_yuv),
	{}
};

static struct kunit_suite flipkms_rotation_suite = {
	.name = "flipkms_rotation",
	.test_cases = flipkms_rotation_cases,
};

kunit_test_suite(flipkms_rotation_suite);

MODULE_DESCRIPTION("KUnit known answers for flipkms's rotated and reflected planes");
MODULE_LICENSE("GPL");
