// SPDX-License-Identifier: GPL-2.0+
/*
 * Known answers for flipkms's pixel formats (drivers/flipkms/flipkms_formats.c):
 * pixels of each format, written here byte by byte, must read as the 16-bit
 * values written here too, worked out by hand or, for YCbCr, with exact
 * rational arithmetic from the ITU-R definitions (tests/kunit/yuv-vectors.py
 * prints the table):
 *
 *   Kr, Kb:  BT.601 0.299, 0.114; BT.709 0.2126, 0.0722; BT.2020 0.2627, 0.0593
 *   limited: Y' = (Y - 16) / 219, C' = (C - 128) / 224 (codes scaled by 2^(n-8))
 *   full:    Y' = Y / (2^n - 1),  C' = (C - 2^(n-1)) / (2^n - 1)
 *   R = Y' + 2 (1 - Kr) Cr', B = Y' + 2 (1 - Kb) Cb', G = (Y' - Kr R - Kb B) / Kg
 *   each clamped to [0, 1], times 0xffff, rounded to nearest
 *
 * Chroma is sited per DRM's subsampling blocks, counted from the
 * framebuffer's origin: a source rectangle starting inside a block, at an
 * odd size, still takes that block's sample. The writeback side's packing
 * has known answers too.
 *
 * The composer is compiled into this module from its source, as it is into
 * flipkms.ko: flipkms exports nothing.
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "../../drivers/flipkms/flipkms_blend.c"
#include "../../drivers/flipkms/flipkms_formats.c"
#include "../../drivers/flipkms/flipkms_color.c"

struct px_answer {
	u32 format;
	u8 bytes[8];
	u16 r, g, b, a;
};

/* One pixel of each format flipkms_formats.c reads. */
static const struct px_answer rgb_answers[] = {
	{ DRM_FORMAT_XBGR8888, { 0x10, 0x20, 0x30, 0x99 }, 0x1010, 0x2020, 0x3030, 0xffff },
	{ DRM_FORMAT_ABGR8888, { 0x10, 0x20, 0x30, 0x40 }, 0x1010, 0x2020, 0x3030, 0x4040 },
	{ DRM_FORMAT_RGBX8888, { 0x99, 0x30, 0x20, 0x10 }, 0x1010, 0x2020, 0x3030, 0xffff },
	{ DRM_FORMAT_RGBA8888, { 0x40, 0x30, 0x20, 0x10 }, 0x1010, 0x2020, 0x3030, 0x4040 },
	{ DRM_FORMAT_BGRX8888, { 0x99, 0x10, 0x20, 0x30 }, 0x1010, 0x2020, 0x3030, 0xffff },
	{ DRM_FORMAT_BGRA8888, { 0x40, 0x10, 0x20, 0x30 }, 0x1010, 0x2020, 0x3030, 0x4040 },
	{ DRM_FORMAT_RGB888, { 0x30, 0x20, 0x10 }, 0x1010, 0x2020, 0x3030, 0xffff },
	{ DRM_FORMAT_BGR888, { 0x10, 0x20, 0x30 }, 0x1010, 0x2020, 0x3030, 0xffff },
	/* b 31, g 0, r 1: r = 0xffff / 31 */
	{ DRM_FORMAT_BGR565, { 0x01, 0xf8 }, 0x0842, 0x0000, 0xffff, 0xffff },
	/* r 1023, g 512, b 1 (0x3ff80001); 512 * 0xffff / 1023 = 0x801f */
	{ DRM_FORMAT_XRGB2101010, { 0x01, 0x00, 0xf8, 0x3f }, 0xffff, 0x801f, 0x0040, 0xffff },
	{ DRM_FORMAT_ARGB2101010, { 0x01, 0x00, 0xf8, 0xbf }, 0xffff, 0x801f, 0x0040, 0xaaaa },
	{ DRM_FORMAT_XBGR2101010, { 0x01, 0x00, 0xf8, 0xff }, 0x0040, 0x801f, 0xffff, 0xffff },
	{ DRM_FORMAT_ABGR2101010, { 0x01, 0x00, 0xf8, 0x7f }, 0x0040, 0x801f, 0xffff, 0x5555 },
	{ DRM_FORMAT_XBGR16161616, { 0x34, 0x12, 0x78, 0x56, 0xbc, 0x9a, 0, 0 },
	  0x1234, 0x5678, 0x9abc, 0xffff },
	{ DRM_FORMAT_ABGR16161616, { 0x34, 0x12, 0x78, 0x56, 0xbc, 0x9a, 0xf0, 0xde },
	  0x1234, 0x5678, 0x9abc, 0xdef0 },
	/* b 1.0, g 0.5 (32767.5 rounds up), r 0.25, x NaN */
	{ DRM_FORMAT_XRGB16161616F, { 0x00, 0x3c, 0x00, 0x38, 0x00, 0x34, 0x00, 0x7e },
	  0x4000, 0x8000, 0xffff, 0xffff },
	/* b -1.0 (clamped), g 2.0 (clamped), r 2^-10 (63.999), a 0.75 (49151.25) */
	{ DRM_FORMAT_ARGB16161616F, { 0x00, 0xbc, 0x00, 0x40, 0x00, 0x14, 0x00, 0x3a },
	  0x0040, 0xffff, 0x0000, 0xbfff },
	{ DRM_FORMAT_R8, { 0x80 }, 0x8080, 0x8080, 0x8080, 0xffff },
};

static struct drm_framebuffer test_fb(u32 format, unsigned int width)
{
	struct drm_framebuffer fb = { .format = drm_format_info(format), .width = width,
				      .height = 1 };

	fb.pitches[0] = 16;
	return fb;
}

static void expect_px(struct kunit *test, const char *what, u32 format,
		      const struct flipkms_pixel *got, u16 r, u16 g, u16 b, u16 a)
{
	if (got->r == r && got->g == g && got->b == b && got->a == a)
		return;
	KUNIT_FAIL(test, "%s %p4cc: r g b a %04x %04x %04x %04x, expected %04x %04x %04x %04x",
		   what, &format, got->r, got->g, got->b, got->a, r, g, b, a);
}

static void formats_rgb_known_answers(struct kunit *test)
{
	const struct px_answer *k;
	struct drm_framebuffer fb;
	struct flipkms_frame_plane fp = {};
	struct flipkms_pixel px;
	u8 buf[16];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rgb_answers); i++) {
		k = &rgb_answers[i];
		fb = test_fb(k->format, 2);
		KUNIT_ASSERT_TRUE(test, flipkms_format_fetchable(k->format));
		/* The second pixel of the row, after one of other bytes. */
		memset(buf, 0xee, sizeof(buf));
		memcpy(buf + fb.format->cpp[0], k->bytes, fb.format->cpp[0]);
		fp.fb = &fb;
		iosys_map_set_vaddr(&fp.data[0], buf);
		flipkms_format_fetch(&fp, 1, 0, 1, &px);
		expect_px(test, "pixel", k->format, &px, k->r, k->g, k->b, k->a);
	}
}

/* R1, R2, R4: pixels packed from the byte's top bits, read from an odd x. */
static void formats_rn_known_answers(struct kunit *test)
{
	static const struct {
		u32 format;
		u8 byte;
		u16 grey[3];	/* pixels 1 to 3 */
	} answers[] = {
		{ DRM_FORMAT_R1, 0xa0, { 0x0000, 0xffff, 0x0000 } },	/* 1 0 1 0 ... */
		{ DRM_FORMAT_R2, 0xd8, { 0x5555, 0xaaaa, 0x0000 } },	/* 3 1 2 0 */
		{ DRM_FORMAT_R4, 0x8f, { 0xffff, 0x0000, 0x0000 } },	/* 8 15 | 0 0 */
	};
	struct flipkms_frame_plane fp = {};
	struct flipkms_pixel px[3];
	struct drm_framebuffer fb;
	u8 buf[16] = {};
	unsigned int i, x;

	for (i = 0; i < ARRAY_SIZE(answers); i++) {
		fb = test_fb(answers[i].format, 8);
		buf[0] = answers[i].byte;
		fp.fb = &fb;
		iosys_map_set_vaddr(&fp.data[0], buf);
		flipkms_format_fetch(&fp, 1, 0, 3, px);
		for (x = 0; x < 3; x++)
			expect_px(test, "grey", answers[i].format, &px[x], answers[i].grey[x],
				  answers[i].grey[x], answers[i].grey[x], 0xffff);
	}
}

/* YCbCr: code values of 8 bits, each encoding and range. */
struct yuv_answer {
	enum drm_color_encoding enc;
	enum drm_color_range range;
	u8 ycbcr[3];
	u16 rgb[3];
};

#define BT601	DRM_COLOR_YCBCR_BT601
#define BT709	DRM_COLOR_YCBCR_BT709
#define BT2020	DRM_COLOR_YCBCR_BT2020
#define LIMITED	DRM_COLOR_YCBCR_LIMITED_RANGE
#define FULL	DRM_COLOR_YCBCR_FULL_RANGE

static const struct yuv_answer yuv_answers[] = {
	{ BT601, LIMITED, { 235, 128, 128 }, { 0xffff, 0xffff, 0xffff } },
	{ BT601, LIMITED, { 16, 128, 128 }, { 0x0000, 0x0000, 0x0000 } },
	{ BT601, LIMITED, { 100, 141, 111 }, { 0x46f4, 0x6af4, 0x7c84 } },
	{ BT601, LIMITED, { 180, 110, 150 }, { 0xe2f4, 0xb4d4, 0x9b41 } },
	{ BT601, LIMITED, { 81, 90, 240 }, { 0xff6f, 0x0000, 0x0000 } },
	{ BT601, FULL, { 235, 128, 128 }, { 0xebeb, 0xebeb, 0xebeb } },
	{ BT601, FULL, { 16, 128, 128 }, { 0x1010, 0x1010, 0x1010 } },
	{ BT601, FULL, { 100, 141, 111 }, { 0x4c77, 0x6c16, 0x7b84 } },
	{ BT601, FULL, { 180, 110, 150 }, { 0xd3ab, 0xab26, 0x94af } },
	{ BT601, FULL, { 81, 90, 240 }, { 0xeef4, 0x0e26, 0x0db8 } },
	{ BT709, LIMITED, { 235, 128, 128 }, { 0xffff, 0xffff, 0xffff } },
	{ BT709, LIMITED, { 16, 128, 128 }, { 0x0000, 0x0000, 0x0000 } },
	{ BT709, LIMITED, { 100, 141, 111 }, { 0x4398, 0x6881, 0x7dc2 } },
	{ BT709, LIMITED, { 180, 110, 150 }, { 0xe74d, 0xb7ca, 0x9988 } },
	{ BT709, LIMITED, { 81, 90, 240 }, { 0xffff, 0x1832, 0x0000 } },
	{ BT709, FULL, { 235, 128, 128 }, { 0xebeb, 0xebeb, 0xebeb } },
	{ BT709, FULL, { 16, 128, 128 }, { 0x1010, 0x1010, 0x1010 } },
	{ BT709, FULL, { 100, 141, 111 }, { 0x4984, 0x69ef, 0x7c9c } },
	{ BT709, FULL, { 180, 110, 150 }, { 0xd77c, 0xadc0, 0x932c } },
	{ BT709, FULL, { 81, 90, 240 }, { 0xffff, 0x23d4, 0x0a87 } },
	{ BT2020, LIMITED, { 235, 128, 128 }, { 0xffff, 0xffff, 0xffff } },
	{ BT2020, LIMITED, { 16, 128, 128 }, { 0x0000, 0x0000, 0x0000 } },
	{ BT2020, LIMITED, { 100, 141, 111 }, { 0x458b, 0x6ad9, 0x7e24 } },
	{ BT2020, LIMITED, { 180, 110, 150 }, { 0xe4c8, 0xb4ba, 0x9901 } },
	{ BT2020, LIMITED, { 81, 90, 240 }, { 0xffff, 0x09ff, 0x0000 } },
	{ BT2020, FULL, { 235, 128, 128 }, { 0xebeb, 0xebeb, 0xebeb } },
	{ BT2020, FULL, { 16, 128, 128 }, { 0x1010, 0x1010, 0x1010 } },
	{ BT2020, FULL, { 100, 141, 111 }, { 0x4b39, 0x6bfe, 0x7cf2 } },
	{ BT2020, FULL, { 180, 110, 150 }, { 0xd545, 0xab0f, 0x92b5 } },
	{ BT2020, FULL, { 81, 90, 240 }, { 0xf71e, 0x175a, 0x098b } },
};

/*
 * A @w x @h framebuffer of a YCbCr @format in @buf, all black (limited
 * range: Y 16, Cb Cr 128) but for the luma of pixel (@px, @py) and the
 * chroma of the block it is in, which hold @ycbcr, in code values of 8
 * bits scaled to the format's depth (limited range keeps its meaning).
 */
static void yuv_fb(struct drm_framebuffer *fb, struct flipkms_frame_plane *fp, u32 format,
		   int w, int h, int px, int py, const u8 *ycbcr, u8 *buf)
{
	const struct drm_format_info *info = drm_format_info(format);
	unsigned int size = info->cpp[0], shift = size == 1 ? 0 : 8;
	unsigned int cw = DIV_ROUND_UP(w, info->hsub), ch = DIV_ROUND_UP(h, info->vsub);
	bool swapped = format == DRM_FORMAT_NV21 || format == DRM_FORMAT_NV61 ||
		       format == DRM_FORMAT_NV42 || format == DRM_FORMAT_YVU420 ||
		       format == DRM_FORMAT_YVU422 || format == DRM_FORMAT_YVU444;
	u8 *plane[3];
	unsigned int i, x, y, v;

	*fb = (struct drm_framebuffer){ .format = info, .width = w, .height = h };
	*fp = (struct flipkms_frame_plane){ .fb = fb };
	for (i = 0; i < info->num_planes; i++) {
		/* Pitches with slack, and planes apart, as clients lay them out. */
		fb->pitches[i] = (i ? cw * info->cpp[i] : w * size) + 4;
		plane[i] = buf + i * 256;
		iosys_map_set_vaddr(&fp->data[i], plane[i]);
	}
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			v = (x == px && y == py ? ycbcr[0] : 16) << shift;
			if (size == 1)
				plane[0][y * fb->pitches[0] + x] = v;
			else
				put_unaligned_le16(v, plane[0] + y * fb->pitches[0] + x * 2);
		}
	for (y = 0; y < ch; y++)
		for (x = 0; x < cw; x++)
			for (i = 0; i < 2; i++) {
				bool mine = x == px / info->hsub && y == py / info->vsub;
				/* sample i: Cb first unless the format swaps them */
				unsigned int c = (swapped ? 1 - i : i);
				u8 *p;

				v = (mine ? ycbcr[1 + c] : 128) << shift;
				if (info->num_planes == 2)
					p = plane[1] + y * fb->pitches[1] + x * info->cpp[1] +
					    i * size;
				else
					p = plane[1 + i] + y * fb->pitches[1 + i] + x * size;
				if (size == 1)
					*p = v;
				else
					put_unaligned_le16(v, p);
			}
}

/* Every encoding and range, through NV12's fetch, at a 2x2 block's last pixel. */
static void formats_yuv_known_answers(struct kunit *test)
{
	const struct yuv_answer *k;
	struct flipkms_frame_plane fp;
	struct drm_framebuffer fb;
	struct flipkms_pixel px;
	unsigned int i;
	u8 *buf;

	buf = kunit_kzalloc(test, 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(yuv_answers); i++) {
		k = &yuv_answers[i];
		yuv_fb(&fb, &fp, DRM_FORMAT_NV12, 4, 2, 1, 1, k->ycbcr, buf);
		fp.color_encoding = k->enc;
		fp.color_range = k->range;
		flipkms_format_fetch(&fp, 1, 1, 1, &px);
		if (px.r != k->rgb[0] || px.g != k->rgb[1] || px.b != k->rgb[2] ||
		    px.a != 0xffff)
			KUNIT_FAIL(test,
				   "enc %d range %d YCbCr %u %u %u: RGBA %04x %04x %04x %04x, want %04x %04x %04x",
				   k->enc, k->range, k->ycbcr[0], k->ycbcr[1], k->ycbcr[2],
				   px.r, px.g, px.b, px.a, k->rgb[0], k->rgb[1], k->rgb[2]);
	}
}

/*
 * Every YCbCr format, through the composer: a 5x3 framebuffer (odd, so the
 * last chroma column and row cover one pixel) whose source starts at x 3,
 * inside a 2-wide block. Pixel (4, 2) holds BT.709 limited (100, 141, 111);
 * pixel (3, 2), in another block (or its own, unsubsampled), stays black.
 */
static void formats_yuv_layouts(struct kunit *test)
{
	static const u32 yuv_formats[] = {
		DRM_FORMAT_NV12, DRM_FORMAT_NV21, DRM_FORMAT_NV16, DRM_FORMAT_NV61,
		DRM_FORMAT_NV24, DRM_FORMAT_NV42, DRM_FORMAT_YUV420, DRM_FORMAT_YVU420,
		DRM_FORMAT_YUV422, DRM_FORMAT_YVU422, DRM_FORMAT_YUV444, DRM_FORMAT_YVU444,
		DRM_FORMAT_P010, DRM_FORMAT_P012, DRM_FORMAT_P016,
	};
	static const u8 ycbcr[3] = { 100, 141, 111 };
	struct flipkms_frame *frame;
	struct flipkms_pixel line[2];
	struct drm_framebuffer fb;
	unsigned int i;
	u32 format;
	u8 *buf;

	buf = kunit_kzalloc(test, 1024, GFP_KERNEL);
	frame = kunit_kzalloc(test, sizeof(*frame), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, frame);
	frame->width = 2;
	frame->height = 1;
	frame->num_planes = 1;
	for (i = 0; i < ARRAY_SIZE(yuv_formats); i++) {
		format = yuv_formats[i];
		KUNIT_ASSERT_TRUE(test, flipkms_format_fetchable(format));
		memset(buf, 0, 1024);
		yuv_fb(&fb, &frame->planes[0], format, 5, 3, 4, 2, ycbcr, buf);
		frame->planes[0].color_encoding = DRM_COLOR_YCBCR_BT709;
		drm_rect_init(&frame->planes[0].src, 3 << 16, 2 << 16, 2 << 16, 1 << 16);
		drm_rect_init(&frame->planes[0].dst, 0, 0, 2, 1);
		flipkms_compose_line(frame, 0, line);
		expect_px(test, "block of its own", format, &line[0], 0, 0, 0, 0xffff);
		expect_px(test, "the coloured pixel", format, &line[1], 0x4398, 0x6881, 0x7dc2,
			  0xffff);
	}
}

/* Deeper code values: 10-bit BT.2020 and full-range ones (P010, P012, P016). */
static void formats_yuv_deep_answers(struct kunit *test)
{
	static const struct {
		u32 format;
		enum drm_color_encoding enc;
		enum drm_color_range range;
		u16 ycbcr[3];	/* as stored: the code value in the top bits */
		u16 rgb[3];
	} answers[] = {
		{ DRM_FORMAT_P010, BT2020, LIMITED, { 940 << 6, 512 << 6, 512 << 6 },
		  { 0xffff, 0xffff, 0xffff } },
		{ DRM_FORMAT_P010, BT2020, LIMITED, { 502 << 6, 400 << 6, 700 << 6 },
		  { 0xcf34, 0x6693, 0x43cb } },
		{ DRM_FORMAT_P010, BT709, FULL, { 1023 << 6, 512 << 6, 512 << 6 },
		  { 0xffff, 0xffff, 0xffff } },
		{ DRM_FORMAT_P010, BT709, FULL, { 300 << 6, 800 << 6, 100 << 6 },
		  { 0x0000, 0x6dd6, 0xd0ce } },
		{ DRM_FORMAT_P012, BT709, LIMITED, { 2000 << 4, 1500 << 4, 2500 << 4 },
		  { 45634, 30626, 14024 } },
		{ DRM_FORMAT_P016, BT601, FULL, { 40000, 20000, 50000 },
		  { 64159, 32088, 17375 } },
	};
	struct flipkms_frame_plane fp = {};
	struct drm_framebuffer fb;
	struct flipkms_pixel px;
	u8 luma[2], chroma[4];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(answers); i++) {
		fb = (struct drm_framebuffer){ .format = drm_format_info(answers[i].format),
					       .width = 1, .height = 1,
					       .pitches = { 2, 4 } };
		put_unaligned_le16(answers[i].ycbcr[0], luma);
		put_unaligned_le16(answers[i].ycbcr[1], chroma);
		put_unaligned_le16(answers[i].ycbcr[2], chroma + 2);
		fp.fb = &fb;
		iosys_map_set_vaddr(&fp.data[0], luma);
		iosys_map_set_vaddr(&fp.data[1], chroma);
		fp.color_encoding = answers[i].enc;
		fp.color_range = answers[i].range;
		flipkms_format_fetch(&fp, 0, 0, 1, &px);
		expect_px(test, "deep", answers[i].format, &px, answers[i].rgb[0],
			  answers[i].rgb[1], answers[i].rgb[2], 0xffff);
	}
}

/* The writeback formats: one composed pixel, packed. */
static void formats_store_known_answers(struct kunit *test)
{
	static const struct {
		u32 format;
		unsigned int size;
		u8 bytes[8];
	} answers[] = {
		{ DRM_FORMAT_XRGB8888, 4, { 0x00, 0x80, 0xff, 0xff } },
		{ DRM_FORMAT_ARGB8888, 4, { 0x00, 0x80, 0xff, 0xff } },
		{ DRM_FORMAT_ABGR8888, 4, { 0xff, 0x80, 0x00, 0xff } },
		/* 3 << 30 | 1023 << 20 | 512 << 10 | 1 */
		{ DRM_FORMAT_XRGB2101010, 4, { 0x01, 0x00, 0xf8, 0xff } },
		{ DRM_FORMAT_ARGB2101010, 4, { 0x01, 0x00, 0xf8, 0xff } },
		/* 3 << 30 | 1 << 20 | 512 << 10 | 1023 */
		{ DRM_FORMAT_XBGR2101010, 4, { 0xff, 0x03, 0x18, 0xc0 } },
		{ DRM_FORMAT_ABGR2101010, 4, { 0xff, 0x03, 0x18, 0xc0 } },
		{ DRM_FORMAT_XRGB16161616, 8, { 0x7f, 0x00, 0x3f, 0x80, 0xff, 0xff, 0xff, 0xff } },
		{ DRM_FORMAT_ARGB16161616, 8, { 0x7f, 0x00, 0x3f, 0x80, 0xff, 0xff, 0xff, 0xff } },
		/* r 31, g 32, b 0 */
		{ DRM_FORMAT_RGB565, 2, { 0x00, 0xfc } },
	};
	/* r full, g just over half of 10 bits (512), b 1 of 10 bits */
	const struct flipkms_pixel px = { .r = 0xffff, .g = 0x803f, .b = 0x007f, .a = 0x1234 };
	u8 out[8];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(answers); i++) {
		memset(out, 0xee, sizeof(out));
		KUNIT_EXPECT_TRUE(test, flipkms_format_store(answers[i].format, &px, 1, out));
		if (memcmp(out, answers[i].bytes, answers[i].size))
			KUNIT_FAIL(test, "%p4cc: stored %*ph, expected %*ph", &answers[i].format,
				   answers[i].size, out, answers[i].size, answers[i].bytes);
	}
	KUNIT_EXPECT_FALSE(test, flipkms_format_store(DRM_FORMAT_NV12, &px, 1, out));
}

static struct kunit_case flipkms_formats_cases[] = {
	KUNIT_CASE(formats_rgb_known_answers),
	KUNIT_CASE(formats_rn_known_answers),
	KUNIT_CASE(formats_yuv_known_answers),
	KUNIT_CASE(formats_yuv_layouts),
	KUNIT_CASE(formats_yuv_deep_answers),
	KUNIT_CASE(formats_store_known_answers),
	{}
};

static struct kunit_suite flipkms_formats_suite = {
	.name = "flipkms_formats",
	.test_cases = flipkms_formats_cases,
};

kunit_test_suite(flipkms_formats_suite);

MODULE_DESCRIPTION("KUnit known answers for flipkms's pixel formats");
MODULE_LICENSE("GPL");
