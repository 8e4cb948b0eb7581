/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * A CRTC's colour management as a frame captures it: DEGAMMA_LUT, CTM and
 * GAMMA_LUT, applied in that order to each composed line.
 */

#ifndef _FLIPKMS_COLOR_H
#define _FLIPKMS_COLOR_H

#include <linux/types.h>

#include <drm/drm_color_mgmt.h>

#include "flipkms_drv.h"

struct drm_crtc_state;
struct flipkms_pixel;

/**
 * struct flipkms_color - the colour stages of a frame
 * @degamma:	whether @degamma_lut applies
 * @ctm:	whether @matrix applies
 * @gamma:	whether @gamma_lut applies
 * @degamma_lut: a copy of the CRTC's DEGAMMA_LUT
 * @matrix:	the CTM, row by row, each coefficient as a two's complement
 *		fixed-point number with 32 fraction bits, saturated to
 *		[-2^13, 2^13)
 * @gamma_lut:	a copy of the CRTC's GAMMA_LUT
 */
struct flipkms_color {
	bool degamma, ctm, gamma;
	struct drm_color_lut degamma_lut[FLIPKMS_LUT_SIZE];
	s64 matrix[9];
	struct drm_color_lut gamma_lut[FLIPKMS_LUT_SIZE];
};

/* Whether any stage applies: without one, lines skip the colour stage. */
static inline bool flipkms_color_active(const struct flipkms_color *color)
{
	return color->degamma || color->ctm || color->gamma;
}

int flipkms_color_check(const struct drm_crtc_state *state);
void flipkms_color_capture(struct flipkms_color *color,
			   const struct drm_crtc_state *state);
void flipkms_color_line(const struct flipkms_color *color,
			struct flipkms_pixel *line, int n);

#endif /* _FLIPKMS_COLOR_H */
