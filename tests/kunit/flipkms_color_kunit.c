// SPDX-License-Identifier: GPL-2.0+
/*
 * KUnit known-answer tests of flipkms's CRTC colour stages
 * (drivers/flipkms/flipkms_color.c): DEGAMMA_LUT, CTM and GAMMA_LUT, in
 * that order, on the composer's 16-bit line. Each case composes a line of
 * an XRGB16161616 plane (read as it is, so the stages see exactly the
 * values written here) through flipkms_compose_line() with colour stages
 * captured from a CRTC state's blobs, as a commit's flush captures them,
 * and compares it with 16-bit values worked out by hand from the formulas
 * (drm_mode.h's struct drm_color_ctm and struct drm_color_lut, and the
 * rounding Documentation/flipkms.rst states), written here as numbers.
 * Loading the module runs the suite.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <drm/drm_crtc.h>
#include <drm/drm_property.h>

#include "../../drivers/flipkms/flipkms_blend.c"
#include "../../drivers/flipkms/flipkms_color.c"
#include "../../drivers/flipkms/flipkms_formats.c"

/* S31.32 sign-magnitude: whole units, fractions of 2^32, the sign bit. */
#define ONE		BIT_ULL(32)
#define HALF		BIT_ULL(31)
#define QUARTER		BIT_ULL(30)
#define NEG		BIT_ULL(63)

#define MAX_PIXELS	4

struct rgb {
	u16 r, g, b;
};

/* The colour properties of one CRTC state; NULL leaves a stage unset. */
struct stages {
	const struct drm_color_lut *degamma;
	const u64 *ctm;
	const struct drm_color_lut *gamma;
};

static struct drm_property_blob *blob(struct kunit *test, const void *data,
				      size_t length)
{
	struct drm_property_blob *b;

	if (!data)
		return NULL;
	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	b->data = (void *)data;
	b->length = length;
	return b;
}

/*
 * Composes @n pixels of @in (one XRGB16161616 plane filling the line)
 * through @s and expects @want, channel by channel.
 */
static void expect_line(struct kunit *test, const struct stages *s,
			const struct rgb *in, const struct rgb *want, int n)
{
	size_t lut_len = FLIPKMS_LUT_SIZE * sizeof(struct drm_color_lut);
	struct flipkms_pixel line[MAX_PIXELS];
	struct drm_crtc_state *state;
	struct flipkms_frame *frame;
	struct drm_framebuffer *fb;
	u8 buf[MAX_PIXELS * 8];
	int x;

	frame = kunit_kzalloc(test, sizeof(*frame), GFP_KERNEL);
	state = kunit_kzalloc(test, sizeof(*state), GFP_KERNEL);
	fb = kunit_kzalloc(test, sizeof(*fb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, frame);
	KUNIT_ASSERT_NOT_NULL(test, state);
	KUNIT_ASSERT_NOT_NULL(test, fb);
	for (x = 0; x < n; x++) {
		put_unaligned_le16(in[x].b, buf + 8 * x);
		put_unaligned_le16(in[x].g, buf + 8 * x + 2);
		put_unaligned_le16(in[x].r, buf + 8 * x + 4);
		put_unaligned_le16(0, buf + 8 * x + 6);
	}
	fb->format = drm_format_info(DRM_FORMAT_XRGB16161616);
	fb->pitches[0] = sizeof(buf);
	frame->width = n;
	frame->height = 1;
	frame->num_planes = 1;
	frame->planes[0].fb = fb;
	iosys_map_set_vaddr(&frame->planes[0].data[0], buf);
	drm_rect_init(&frame->planes[0].src, 0, 0, n << 16, 1 << 16);
	drm_rect_init(&frame->planes[0].dst, 0, 0, n, 1);

	state->degamma_lut = blob(test, s->degamma, lut_len);
	state->ctm = blob(test, s->ctm, sizeof(struct drm_color_ctm));
	state->gamma_lut = blob(test, s->gamma, lut_len);
	flipkms_color_capture(&frame->color, state);

	flipkms_compose_line(frame, 0, line);
	for (x = 0; x < n; x++) {
		KUNIT_EXPECT_EQ_MSG(test, line[x].r, want[x].r, "pixel %d red", x);
		KUNIT_EXPECT_EQ_MSG(test, line[x].g, want[x].g, "pixel %d green", x);
		KUNIT_EXPECT_EQ_MSG(test, line[x].b, want[x].b, "pixel %d blue", x);
		KUNIT_EXPECT_EQ_MSG(test, line[x].a, 0xffff, "pixel %d alpha", x);
	}
}

static struct drm_color_lut *make_lut(struct kunit *test, u16 (*entry)(int i, int ch))
{
	struct drm_color_lut *lut;
	int i;

	lut = kunit_kcalloc(test, FLIPKMS_LUT_SIZE, sizeof(*lut), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lut);
	for (i = 0; i < FLIPKMS_LUT_SIZE; i++)
		lut[i] = (struct drm_color_lut){
			.red = entry(i, 0), .green = entry(i, 1), .blue = entry(i, 2),
		};
	return lut;
}

/* Unset stages leave the line as the planes made it. */
static void color_none(struct kunit *test)
{
	static const struct rgb in[] = { { 0x1234, 0x5678, 0x9abc }, { 0xffff, 0, 1 } };
	struct stages s = {};

	expect_line(test, &s, in, in, ARRAY_SIZE(in));
}

/* R' = B, G' = R, B' = G. */
static void color_ctm_channel_swap(struct kunit *test)
{
	static const u64 m[9] = { 0, 0, ONE, ONE, 0, 0, 0, ONE, 0 };
	static const struct rgb in[] = { { 0x1234, 0x5678, 0x9abc }, { 0xffff, 0, 0x8000 } };
	static const struct rgb want[] = { { 0x9abc, 0x1234, 0x5678 }, { 0x8000, 0xffff, 0 } };
	struct stages s = { .ctm = m };

	expect_line(test, &s, in, want, ARRAY_SIZE(in));
}

/* 0.5 on the diagonal: halves round up (0x5679 / 2 = 0x2b3c.8, 0xffff / 2 = 0x7fff.8). */
static void color_ctm_half(struct kunit *test)
{
	static const u64 m[9] = { HALF, 0, 0, 0, HALF, 0, 0, 0, HALF };
	static const struct rgb in[] = { { 0x1234, 0x5679, 0xffff }, { 1, 2, 0 } };
	static const struct rgb want[] = { { 0x091a, 0x2b3d, 0x8000 }, { 1, 1, 0 } };
	struct stages s = { .ctm = m };

	expect_line(test, &s, in, want, ARRAY_SIZE(in));
}

/*
 * Sign-magnitude, not two's complement: R' = 0.5 R - 0.25 G + 0.75 B,
 * G' = G - R (negative: 0), B' = -0 R + B (minus zero is zero).
 * (0x8000, 0x4000, 0x2000): 0x4000 - 0x1000 + 0x1800 = 0x4800.
 * (0x1235, 0x0fff, 0x0001): 0x91a.8 - 0x3ff.c + 0.c = 0x51b.8, up to 0x51c;
 * G' = 0x0fff - 0x1235 < 0: 0.
 */
static void color_ctm_negative(struct kunit *test)
{
	static const u64 m[9] = {
		HALF, NEG | QUARTER, HALF | QUARTER,
		NEG | ONE, ONE, 0,
		NEG, 0, ONE,
	};
	static const struct rgb in[] = {
		{ 0x8000, 0x4000, 0x2000 }, { 0x1235, 0x0fff, 0x0001 },
	};
	static const struct rgb want[] = {
		{ 0x4800, 0, 0x2000 }, { 0x051c, 0, 0x0001 },
	};
	struct stages s = { .ctm = m };

	expect_line(test, &s, in, want, ARRAY_SIZE(in));
}

/*
 * Results above full scale clamp to 0xffff (2.0 x 0xc000; 1 + 1 + 1); a
 * coefficient of 10000 saturates at 8192 - 2^-32, which takes 1 to
 * 8191.99.. and rounds to 0x2000; 2^-17 + 2^-32 takes 0xffff to 0.50000..,
 * rounded up to 1.
 */
static void color_ctm_clamp_saturate(struct kunit *test)
{
	static const u64 m[9] = {
		2 * ONE, 0, 0,
		ONE, ONE, ONE,
		10000 * ONE, BIT_ULL(15) + 1, 0,
	};
	static const struct rgb in[] = {
		{ 0xc000, 0xffff, 0xffff }, { 1, 0, 0 }, { 0, 0xffff, 0 },
	};
	static const struct rgb want[] = {
		{ 0xffff, 0xffff, 0xffff }, { 2, 1, 0x2000 }, { 0, 0xffff, 1 },
	};
	struct stages s = { .ctm = m };

	expect_line(test, &s, in, want, ARRAY_SIZE(in));
}

/* Entry i = i * 0x100. */
static u16 ramp_256(int i, int ch)
{
	return i * 0x100;
}

/*
 * Degamma on its own: 0x8080 (8-bit 0x80) lands on entry 128, 0x8000 at
 * 127 + 32895/65535 (0x7f00 + 256 * 32895 / 65535 = 0x7f00 + 128.49..,
 * truncated), 0x1234 at 18 + 8670/65535 (0x1200 + 33.87..), 0xffff on 255.
 */
static void color_degamma_ramp(struct kunit *test)
{
	static const struct rgb in[] = {
		{ 0x8080, 0x8000, 0x1234 }, { 0xffff, 0, 0x0101 },
	};
	static const struct rgb want[] = {
		{ 0x8000, 0x7f80, 0x1221 }, { 0xff00, 0, 0x0100 },
	};
	struct stages s = { .degamma = make_lut(test, ramp_256) };

	expect_line(test, &s, in, want, ARRAY_SIZE(in));
}

/* Degamma: red to 0, green and blue identity (i * 0x101, exact). */
static u16 drop_red(int i, int ch)
{
	return ch == 0 ? 0 : i * 0x101;
}

/* Gamma: inverted, 0xffff - i * 0x101. */
static u16 invert(int i, int ch)
{
	return 0xffff - i * 0x101;
}

/*
 * All three, in the DRM order. (0x4000, 0x8000, 0xc000): degamma drops
 * red, (0, 0x8000, 0xc000); the CTM swaps red and green, (0x8000, 0,
 * 0xc000); gamma inverts, 0x8000 at 127 + 32895/65535: 0x8080 - 129 =
 * 0x7fff, 0 to 0xffff, 0xc000 at 191 + 16575/65535: 0x4040 - 65 =
 * 0x3fff. CTM before degamma would give (0xffff, 0xbfff, 0x3fff).
 */
static void color_degamma_ctm_gamma_order(struct kunit *test)
{
	static const u64 m[9] = { 0, ONE, 0, ONE, 0, 0, 0, 0, ONE };
	static const struct rgb in[] = { { 0x4000, 0x8000, 0xc000 } };
	static const struct rgb want[] = { { 0x7fff, 0xffff, 0x3fff } };
	struct stages s = {
		.degamma = make_lut(test, drop_red),
		.ctm = m,
		.gamma = make_lut(test, invert),
	};

	expect_line(test, &s, in, want, ARRAY_SIZE(in));
}

static struct kunit_case flipkms_color_cases[] = {
	KUNIT_CASE(color_none),
	KUNIT_CASE(color_ctm_channel_swap),
	KUNIT_CASE(color_ctm_half),
	KUNIT_CASE(color_ctm_negative),
	KUNIT_CASE(color_ctm_clamp_saturate),
	KUNIT_CASE(color_degamma_ramp),
	KUNIT_CASE(color_degamma_ctm_gamma_order),
	{}
};

static struct kunit_suite flipkms_color_suite = {
	.name = "flipkms_color",
	.test_cases = flipkms_color_cases,
};

kunit_test_suite(flipkms_color_suite);

MODULE_DESCRIPTION("KUnit known-answer tests of flipkms's CRTC colour stages");
MODULE_LICENSE("GPL");
