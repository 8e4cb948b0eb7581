// SPDX-License-Identifier: GPL-2.0+
/*
 * KUnit tests of flipkms's line composer (drivers/flipkms/flipkms_blend.c)
 * against a reference model: the straightforward composer it replaced, one
 * pixel at a time, every channel and alpha blended in 16 bits. On random
 * frames (formats: the fast paths' and some with alpha that
 * flipkms_formats.c reads; plane counts, positions partly off the CRTC,
 * pitches, pixels, gamma LUTs) every line must come out bit for bit the
 * same, which makes the CRC, frame.ppm, capture and writeback the same:
 * they are all made of these lines. Loading the module runs the suite.
 *
 * The composer is compiled into this module from its source, as it is into
 * flipkms.ko: flipkms exports nothing.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "../../drivers/flipkms/flipkms_blend.c"
#include "../../drivers/flipkms/flipkms_formats.c"
#include "../../drivers/flipkms/flipkms_color.c"

/* The reference model. */

static void model_read_pixel(u32 format, const u8 *src, struct flipkms_pixel *px)
{
	u32 v32;
	u16 v;

	switch (format) {
	case DRM_FORMAT_ARGB8888:
	case DRM_FORMAT_XRGB8888:
		px->b = src[0] * 257;
		px->g = src[1] * 257;
		px->r = src[2] * 257;
		px->a = format == DRM_FORMAT_ARGB8888 ? src[3] * 257 : 0xffff;
		break;
	case DRM_FORMAT_ARGB16161616:
	case DRM_FORMAT_XRGB16161616:
		px->b = get_unaligned_le16(src);
		px->g = get_unaligned_le16(src + 2);
		px->r = get_unaligned_le16(src + 4);
		px->a = format == DRM_FORMAT_ARGB16161616 ?
			get_unaligned_le16(src + 6) : 0xffff;
		break;
	case DRM_FORMAT_RGB565:
		v = get_unaligned_le16(src);
		px->r = (v >> 11) * 0xffff / 31;
		px->g = ((v >> 5) & 0x3f) * 0xffff / 63;
		px->b = (v & 0x1f) * 0xffff / 31;
		px->a = 0xffff;
		break;
	case DRM_FORMAT_ABGR8888:
		px->r = src[0] * 257;
		px->g = src[1] * 257;
		px->b = src[2] * 257;
		px->a = src[3] * 257;
		break;
	case DRM_FORMAT_BGRA8888:
		px->a = src[0] * 257;
		px->r = src[1] * 257;
		px->g = src[2] * 257;
		px->b = src[3] * 257;
		break;
	case DRM_FORMAT_ARGB2101010:
		v32 = get_unaligned_le32(src);
		px->b = (v32 & 0x3ff) * 0xffff / 1023;
		px->g = ((v32 >> 10) & 0x3ff) * 0xffff / 1023;
		px->r = ((v32 >> 20) & 0x3ff) * 0xffff / 1023;
		px->a = (v32 >> 30) * 0xffff / 3;
		break;
	case DRM_FORMAT_ABGR16161616:
		px->r = get_unaligned_le16(src);
		px->g = get_unaligned_le16(src + 2);
		px->b = get_unaligned_le16(src + 4);
		px->a = get_unaligned_le16(src + 6);
		break;
	default:
		memset(px, 0, sizeof(*px));
	}
}

static void model_blend(struct flipkms_pixel *dst, const struct flipkms_pixel *src)
{
	u32 keep = 0xffff - src->a;

	dst->r = min_t(u32, src->r + dst->r * keep / 0xffff, 0xffff);
	dst->g = min_t(u32, src->g + dst->g * keep / 0xffff, 0xffff);
	dst->b = min_t(u32, src->b + dst->b * keep / 0xffff, 0xffff);
	dst->a = min_t(u32, src->a + dst->a * keep / 0xffff, 0xffff);
}

static u16 model_gamma(const struct drm_color_lut *lut, u16 value, int channel)
{
	u32 pos = (u32)value * (FLIPKMS_LUT_SIZE - 1);
	u32 lo = pos / 0xffff, hi = min_t(u32, lo + 1, FLIPKMS_LUT_SIZE - 1);
	u16 a = channel == 0 ? lut[lo].red : channel == 1 ? lut[lo].green : lut[lo].blue;
	u16 b = channel == 0 ? lut[hi].red : channel == 1 ? lut[hi].green : lut[hi].blue;

	return a + div_s64(((s64)b - a) * (pos % 0xffff), 0xffff);
}

static void model_compose_line(const struct flipkms_frame *frame, int y,
			       struct flipkms_pixel *line)
{
	const struct flipkms_frame_plane *fp;
	const struct drm_framebuffer *fb;
	struct flipkms_pixel px;
	unsigned int i, cpp;
	const u8 *row;
	int x, sx, sy;

	for (x = 0; x < frame->width; x++)
		line[x] = (struct flipkms_pixel){ .a = 0xffff };
	for (i = 0; i < frame->num_planes; i++) {
		fp = &frame->planes[i];
		if (y < fp->dst.y1 || y >= fp->dst.y2)
			continue;
		fb = fp->fb;
		cpp = fb->format->cpp[0];
		sy = (fp->src.y1 >> 16) + y - fp->dst.y1;
		sx = fp->src.x1 >> 16;
		row = (const u8 *)fp->data[0].vaddr + sy * fb->pitches[0] + sx * cpp;
		for (x = max(fp->dst.x1, 0); x < min(fp->dst.x2, frame->width); x++) {
			model_read_pixel(fb->format->format, row + (x - fp->dst.x1) * cpp, &px);
			model_blend(&line[x], &px);
		}
	}
	if (!frame->color.gamma)
		return;
	for (x = 0; x < frame->width; x++) {
		line[x].r = model_gamma(frame->color.gamma_lut, line[x].r, 0);
		line[x].g = model_gamma(frame->color.gamma_lut, line[x].g, 1);
		line[x].b = model_gamma(frame->color.gamma_lut, line[x].b, 2);
	}
}

/* Random frames. */

#define MAX_WIDTH	300
#define MAX_HEIGHT	6

static const u32 formats[] = {
	DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_XRGB16161616,
	DRM_FORMAT_ARGB16161616, DRM_FORMAT_RGB565,
	/* With alpha, blended from flipkms_formats.c's intermediate. */
	DRM_FORMAT_ABGR8888, DRM_FORMAT_BGRA8888, DRM_FORMAT_ARGB2101010,
	DRM_FORMAT_ABGR16161616,
};

struct test_frame {
	struct flipkms_frame frame;
	struct drm_framebuffer fbs[ARRAY_SIZE(((struct flipkms_frame *)0)->planes)];
};

static u32 rnd(struct rnd_state *state, u32 n)
{
	return prandom_u32_state(state) % n;
}

/*
 * Channel values that hit the fast paths' edges as often as the middle:
 * 0, full scale, or anything (premultiplied or not, as clients get it
 * wrong too).
 */
static u32 edgy(struct rnd_state *state, u32 full)
{
	switch (rnd(state, 4)) {
	case 0: return 0;
	case 1: return full;
	default: return rnd(state, full + 1);
	}
}

static void fill_pixels(struct rnd_state *state, u32 format, u8 *p, int n)
{
	bool clear;
	int i;

	for (i = 0; i < n; i++) {
		/* Transparent black, as an overlay mostly is. */
		clear = !rnd(state, 3);
		switch (format) {
		case DRM_FORMAT_RGB565:
			put_unaligned_le16(prandom_u32_state(state), p);
			p += 2;
			break;
		case DRM_FORMAT_XRGB8888:
		case DRM_FORMAT_ARGB8888:
		case DRM_FORMAT_ABGR8888:
		case DRM_FORMAT_BGRA8888:
		case DRM_FORMAT_ARGB2101010:
			p[0] = clear ? 0 : edgy(state, 0xff);
			p[1] = clear ? 0 : edgy(state, 0xff);
			p[2] = clear ? 0 : edgy(state, 0xff);
			p[3] = clear ? 0 : edgy(state, 0xff);
			p += 4;
			break;
		default:
			put_unaligned_le16(clear ? 0 : edgy(state, 0xffff), p);
			put_unaligned_le16(clear ? 0 : edgy(state, 0xffff), p + 2);
			put_unaligned_le16(clear ? 0 : edgy(state, 0xffff), p + 4);
			put_unaligned_le16(clear ? 0 : edgy(state, 0xffff), p + 6);
			p += 8;
		}
	}
}

/*
 * A plane whose source is a random part of a random buffer, landing
 * anywhere that shows at least a pixel of it: as the atomic check leaves
 * it, or partly off the CRTC, which the composer clips too.
 */
static int add_plane(struct kunit *test, struct rnd_state *state,
		     struct test_frame *tf, unsigned int i)
{
	struct flipkms_frame *frame = &tf->frame;
	struct flipkms_frame_plane *fp = &frame->planes[i];
	struct drm_framebuffer *fb = &tf->fbs[i];
	int fw, fh, sx, sy, sw, sh, dx, dy;
	u8 *buf;

	fb->format = drm_format_info(formats[rnd(state, ARRAY_SIZE(formats))]);
	fw = 1 + rnd(state, MAX_WIDTH + 16);
	fh = 1 + rnd(state, MAX_HEIGHT + 2);
	fb->width = fw;
	fb->height = fh;
	fb->pitches[0] = fw * fb->format->cpp[0] + rnd(state, 3) * 4;
	buf = kunit_kzalloc(test, (size_t)fb->pitches[0] * fh, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	fill_pixels(state, fb->format->format, buf, fb->pitches[0] * fh / fb->format->cpp[0]);

	sx = rnd(state, fw);
	sy = rnd(state, fh);
	sw = 1 + rnd(state, fw - sx);
	sh = 1 + rnd(state, fh - sy);
	dx = (int)rnd(state, frame->width + sw - 1) - (sw - 1);
	dy = (int)rnd(state, frame->height + sh - 1) - (sh - 1);
	if (rnd(state, 2)) {
		/* Clipped to the CRTC, as drm_atomic_helper_check_plane_state() does. */
		sx += max(0, -dx);
		sw -= max(0, -dx) + max(0, dx + sw - frame->width);
		sy += max(0, -dy);
		sh -= max(0, -dy) + max(0, dy + sh - frame->height);
		dx = max(dx, 0);
		dy = max(dy, 0);
	}
	fp->fb = fb;
	iosys_map_set_vaddr(&fp->data[0], buf);
	drm_rect_init(&fp->src, sx << 16, sy << 16, sw << 16, sh << 16);
	drm_rect_init(&fp->dst, dx, dy, sw, sh);
	fp->zpos = i;
	return 0;
}

/* Fills @tf, which comes zeroed, with a random frame. */
static void random_frame(struct kunit *test, struct rnd_state *state,
			 struct test_frame *tf)
{
	struct flipkms_frame *frame = &tf->frame;
	unsigned int i;

	frame->width = 1 + rnd(state, MAX_WIDTH);
	frame->height = 1 + rnd(state, MAX_HEIGHT);
	frame->num_planes = 1 + rnd(state, ARRAY_SIZE(frame->planes));
	for (i = 0; i < frame->num_planes; i++)
		KUNIT_ASSERT_EQ(test, add_plane(test, state, tf, i), 0);
	if (rnd(state, 3))
		return;
	frame->color.gamma = true;
	for (i = 0; i < FLIPKMS_LUT_SIZE; i++)
		frame->color.gamma_lut[i] = (struct drm_color_lut){
			.red = prandom_u32_state(state),
			.green = edgy(state, 0xffff),
			.blue = i * 0xffff / (FLIPKMS_LUT_SIZE - 1),
		};
}

static const char *plane_desc(const struct flipkms_frame_plane *fp, char *buf, size_t len)
{
	snprintf(buf, len, "%p4cc src " DRM_RECT_FP_FMT " dst " DRM_RECT_FMT,
		 &fp->fb->format->format, DRM_RECT_FP_ARG(&fp->src), DRM_RECT_ARG(&fp->dst));
	return buf;
}

/* Composes every line both ways; the first difference fails the case. */
static void expect_same_lines(struct kunit *test, const struct flipkms_frame *frame, u64 seed)
{
	struct flipkms_pixel *want, *got;
	char desc[96];
	unsigned int i;
	int x, y;

	want = kunit_kmalloc_array(test, frame->width, sizeof(*want), GFP_KERNEL);
	got = kunit_kmalloc_array(test, frame->width, sizeof(*got), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, got);
	for (y = 0; y < frame->height; y++) {
		model_compose_line(frame, y, want);
		memset(got, 0xa5, frame->width * sizeof(*got));
		flipkms_compose_line(frame, y, got);
		if (!memcmp(want, got, frame->width * sizeof(*got)))
			continue;
		for (x = 0; !memcmp(&want[x], &got[x], sizeof(*got)); x++)
			;
		/* KUnit's failure line keeps little; the details go first. */
		kunit_info(test, "seed %llu, %dx%d frame, lut %d, line %d, x %d",
			   seed, frame->width, frame->height, frame->color.gamma, y, x);
		kunit_info(test, "r g b a: model %04x %04x %04x %04x, composer %04x %04x %04x %04x",
			   want[x].r, want[x].g, want[x].b, want[x].a,
			   got[x].r, got[x].g, got[x].b, got[x].a);
		KUNIT_FAIL(test, "line %d differs from the model's", y);
		for (i = 0; i < frame->num_planes; i++)
			kunit_info(test, "plane %u: %s", i,
				   plane_desc(&frame->planes[i], desc, sizeof(desc)));
		return;
	}
}

static void blend_random_frames(struct kunit *test)
{
	struct rnd_state state;
	struct test_frame *tf;
	u64 seed;
	int n;

	for (n = 0; n < 400 && !test->status; n++) {
		/* Each frame's buffers go with it: a fresh frame each time. */
		tf = kunit_kzalloc(test, sizeof(*tf), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, tf);
		seed = 0x666c6970ULL + n;
		prandom_seed_state(&state, seed);
		random_frame(test, &state, tf);
		expect_same_lines(test, &tf->frame, seed);
		kunit_cleanup(test);
	}
}

/* make bench's composer workload: XRGB8888 primary, ARGB8888 overlay and cursor. */
static void blend_bench_planes(struct kunit *test)
{
	static const u32 fourcc[] = {
		DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_ARGB8888,
	};
	struct rnd_state state;
	struct test_frame *tf;
	unsigned int i;
	int size;
	u8 *buf;

	tf = kunit_kzalloc(test, sizeof(*tf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tf);
	prandom_seed_state(&state, 1920);
	tf->frame.width = 1920;
	tf->frame.height = 4;
	tf->frame.num_planes = ARRAY_SIZE(fourcc);
	for (i = 0; i < ARRAY_SIZE(fourcc); i++) {
		size = i == 2 ? 64 : 1920;
		tf->fbs[i].format = drm_format_info(fourcc[i]);
		tf->fbs[i].pitches[0] = size * 4;
		buf = kunit_kmalloc(test, size * 4 * 4, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, buf);
		fill_pixels(&state, fourcc[i], buf, size * 4);
		tf->frame.planes[i] = (struct flipkms_frame_plane){
			.fb = &tf->fbs[i],
			.data[0] = { .vaddr = buf },
			.zpos = i,
		};
		drm_rect_init(&tf->frame.planes[i].src, 0, 0, size << 16, 4 << 16);
		drm_rect_init(&tf->frame.planes[i].dst, i == 2 ? 1000 : 0, 0, size, 4);
	}
	expect_same_lines(test, &tf->frame, 1920);
}

/* The model itself: one pixel worked out by hand. */
static void blend_model_by_hand(struct kunit *test)
{
	u8 pixel[4] = { 0x00, 0x40, 0x80, 0x80 };	/* B G R A, premultiplied */
	struct flipkms_pixel dst = { .r = 0xffff, .g = 0xffff, .b = 0xffff, .a = 0xffff };
	struct flipkms_pixel px;

	model_read_pixel(DRM_FORMAT_ARGB8888, pixel, &px);
	model_blend(&dst, &px);
	/* 0x80 * 257 + 0xffff * (0xffff - 0x80 * 257) / 0xffff */
	KUNIT_EXPECT_EQ(test, dst.r, 0x8080 + 0x7f7f);
	KUNIT_EXPECT_EQ(test, dst.g, 0x4040 + 0x7f7f);
	KUNIT_EXPECT_EQ(test, dst.b, 0x7f7f);
	KUNIT_EXPECT_EQ(test, dst.a, 0xffff);
}

static struct kunit_case flipkms_blend_cases[] = {
	KUNIT_CASE(blend_model_by_hand),
	KUNIT_CASE(blend_bench_planes),
	KUNIT_CASE(blend_random_frames),
	{}
};

static struct kunit_suite flipkms_blend_suite = {
	.name = "flipkms_blend",
	.test_cases = flipkms_blend_cases,
};

kunit_test_suite(flipkms_blend_suite);

MODULE_DESCRIPTION("KUnit tests of flipkms's line composer against a reference model");
MODULE_LICENSE("GPL");
