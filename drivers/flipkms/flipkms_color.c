// SPDX-License-Identifier: GPL-2.0+
/*
 * The CRTC's colour management, after blending: DEGAMMA_LUT, then CTM,
 * then GAMMA_LUT, the order drm_color_mgmt.c defines, each on the
 * composer's 16 bits per channel and each giving 16 bits again. A stage
 * whose property is unset passes the line through; with none set, lines
 * skip this file altogether. The line is opaque (flipkms_blend.c), so
 * alpha is left alone.
 *
 * - A LUT has FLIPKMS_LUT_SIZE entries; entry i is the output for input
 *   i / (size - 1) of full scale, and an input between two entries is
 *   interpolated linearly: lo + (hi - lo) * frac / 0xffff, the division
 *   truncating towards zero, so that the result rounds towards entry
 *   lo's value. An 8-bit value c * 257 lands exactly on entry c. Entries
 *   may fall as well as rise: nothing here needs them monotonic, so
 *   drm_color_lut_check() tests nothing.
 * - The CTM is struct drm_color_ctm: out = M x (R, G, B), row by row,
 *   each coefficient S31.32 sign-magnitude. Coefficients keep all 32
 *   fraction bits and saturate at [-2^13, 2^13 - 2^-32]
 *   (drm_color_ctm_s31_32_to_qm_n(c, 14, 32)), which keeps the sum of
 *   three products of a 16-bit value exact in 64 bits; a coefficient
 *   that large already takes 1/8192 of full scale to full scale. Each
 *   output is the exact sum rounded to the nearest integer, halves up,
 *   then clamped to [0, 0xffff]: a negative result is 0.
 */

#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include <drm/drm_crtc.h>
#include <drm/drm_print.h>

#include "flipkms_blend.h"
#include "flipkms_color.h"

/* Integer bits of a CTM coefficient, sign included. */
#define FLIPKMS_CTM_INT_BITS	14

/**
 * flipkms_color_check() - check the colour properties of a CRTC state
 * @state: the new CRTC state
 *
 * The DRM core has refused blobs of a length that is no whole number of
 * LUT entries, or not one CTM; a LUT must also have exactly
 * FLIPKMS_LUT_SIZE entries.
 *
 * Return: 0 or -EINVAL.
 */
int flipkms_color_check(const struct drm_crtc_state *state)
{
	const struct drm_property_blob *luts[] = {
		state->degamma_lut, state->gamma_lut,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(luts); i++) {
		if (luts[i] && drm_color_lut_size(luts[i]) != FLIPKMS_LUT_SIZE) {
			drm_dbg_atomic(state->crtc->dev,
				       "[CRTC:%d] %s LUT has %d entries, not %d\n",
				       state->crtc->base.id, i ? "gamma" : "degamma",
				       drm_color_lut_size(luts[i]), FLIPKMS_LUT_SIZE);
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * flipkms_color_capture() - copy a CRTC state's colour stages
 * @color:	where, in a frame
 * @state:	a CRTC state that passed flipkms_color_check()
 */
void flipkms_color_capture(struct flipkms_color *color,
			   const struct drm_crtc_state *state)
{
	const struct drm_color_ctm *ctm;
	unsigned int i;

	color->degamma = !!state->degamma_lut;
	if (color->degamma)
		memcpy(color->degamma_lut, state->degamma_lut->data,
		       sizeof(color->degamma_lut));
	color->ctm = !!state->ctm;
	if (color->ctm) {
		ctm = state->ctm->data;
		for (i = 0; i < ARRAY_SIZE(color->matrix); i++)
			color->matrix[i] = drm_color_ctm_s31_32_to_qm_n(ctm->matrix[i],
									FLIPKMS_CTM_INT_BITS,
									32);
	}
	color->gamma = !!state->gamma_lut;
	if (color->gamma)
		memcpy(color->gamma_lut, state->gamma_lut->data,
		       sizeof(color->gamma_lut));
}

/* The two entries around @value and how far it lies from the lower one. */
static void flipkms_lut_index(u16 value, u32 *lo, u32 *hi, u32 *frac)
{
	u32 pos = (u32)value * (FLIPKMS_LUT_SIZE - 1);

	*lo = pos / 0xffff;
	*hi = min_t(u32, *lo + 1, FLIPKMS_LUT_SIZE - 1);
	*frac = pos % 0xffff;
}

static u16 flipkms_lerp(u16 lo, u16 hi, u32 frac)
{
	return lo + div_s64(((s64)hi - lo) * frac, 0xffff);
}

static void flipkms_color_lut(const struct drm_color_lut *lut,
			      struct flipkms_pixel *line, int n)
{
	u32 lo, hi, frac;
	int x;

	for (x = 0; x < n; x++) {
		flipkms_lut_index(line[x].r, &lo, &hi, &frac);
		line[x].r = flipkms_lerp(lut[lo].red, lut[hi].red, frac);
		flipkms_lut_index(line[x].g, &lo, &hi, &frac);
		line[x].g = flipkms_lerp(lut[lo].green, lut[hi].green, frac);
		flipkms_lut_index(line[x].b, &lo, &hi, &frac);
		line[x].b = flipkms_lerp(lut[lo].blue, lut[hi].blue, frac);
	}
}

/* One output channel: a row of the matrix times (r, g, b), rounded, clamped. */
static u16 flipkms_ctm_row(const s64 *row, u16 r, u16 g, u16 b)
{
	/* |coefficient| <= 2^45 and each value < 2^16: no overflow. */
	s64 sum = row[0] * r + row[1] * g + row[2] * b;

	if (sum <= 0)
		return 0;
	return min_t(s64, (sum + (1LL << 31)) >> 32, 0xffff);
}

static void flipkms_color_ctm(const s64 *m, struct flipkms_pixel *line, int n)
{
	u16 r, g, b;
	int x;

	for (x = 0; x < n; x++) {
		r = line[x].r;
		g = line[x].g;
		b = line[x].b;
		line[x].r = flipkms_ctm_row(m, r, g, b);
		line[x].g = flipkms_ctm_row(m + 3, r, g, b);
		line[x].b = flipkms_ctm_row(m + 6, r, g, b);
	}
}

/**
 * flipkms_color_line() - apply a frame's colour stages to a composed line
 * @color:	the stages
 * @line:	the line, opaque
 * @n:		its pixels
 */
void flipkms_color_line(const struct flipkms_color *color,
			struct flipkms_pixel *line, int n)
{
	if (color->degamma)
		flipkms_color_lut(color->degamma_lut, line, n);
	if (color->ctm)
		flipkms_color_ctm(color->matrix, line, n);
	if (color->gamma)
		flipkms_color_lut(color->gamma_lut, line, n);
}
