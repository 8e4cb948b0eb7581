/* SPDX-License-Identifier: MIT */
/*
 * format-pixels: a pattern of pseudo-random pixels drawn into a buffer in
 * any plane format flipkms offers, with each pixel's answer: the 16-bit,
 * premultiplied value the format's definition gives it, computed here from
 * that definition (drm_fourcc.h's layouts, ITU-R's YCbCr formulas in
 * floating point), not from the driver's code. Documentation/flipkms.rst,
 * "Formats", states the rules the answers follow.
 *
 * How far a driver's 16-bit value may lie from the answer (fp_tolerance())
 * follows from the precision: an RGB channel of n <= 16 bits has an exact
 * 16-bit value by the documented rule c * 0xffff / (2^n - 1) rounded down,
 * and a half float of [0, 1] one rounded to nearest, so those must match
 * exactly (tolerance 0). A YCbCr pixel's exact value is a fraction that is
 * rarely a whole 16-bit step; the driver rounds it to nearest from 32.32
 * fixed point (within 2^-14 of a step), so near a tie it may land on the
 * other side: tolerance 1 step of 16 bits (1/65535 of full scale, 1/257 of
 * an 8-bit step), which no wrong coefficient, range or chroma sample fits.
 */
#ifndef FLIPFENCE_TESTS_KMS_FORMAT_PIXELS_H
#define FLIPFENCE_TESTS_KMS_FORMAT_PIXELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A pixel's answer: 16 bits a channel, premultiplied; a = 0xffff if opaque. */
struct fp_pixel {
	uint16_t r, g, b, a;
};

struct fp_format;

/* The largest pattern fp_draw() draws, in pixels. */
#define FP_MAX_PIXELS	4096

/* The description of @fourcc, or NULL if this file cannot draw it. */
const struct fp_format *fp_find(uint32_t fourcc);
/* drm_fourcc.h's name of @fourcc (XRGB8888), else its four characters in @buf. */
const char *fp_name(uint32_t fourcc, char buf[5]);
bool fp_is_yuv(const struct fp_format *f);
bool fp_has_alpha(const struct fp_format *f);
/* The number of buffer planes (1 to 3). */
int fp_planes(const struct fp_format *f);
/* How far a channel may lie from its answer, in 16-bit steps (see above). */
int fp_tolerance(const struct fp_format *f);

/*
 * The layout of a @w x @h framebuffer of @f in one buffer: each plane's
 * pitch (its minimum rounded up to 8, plus 8 bytes of padding that must
 * not be read) and offset (the first plane at 64 bytes, not 0). Returns
 * the bytes the buffer needs.
 */
size_t fp_layout(const struct fp_format *f, int w, int h, uint32_t pitches[4],
		 uint32_t offsets[4]);
/* The least pitch the DRM core allows for plane @plane of a @w wide buffer. */
uint32_t fp_min_pitch(const struct fp_format *f, int plane, int w);

/* YCbCr conversion: Kr and Kb of the encoding, and whether full range. */
struct fp_yuv {
	double kr, kb;
	bool full;
};

/*
 * Draws pattern @seed into @buf laid out by fp_layout() and writes the
 * @w x @h answers into @want (row by row; at most FP_MAX_PIXELS, else
 * nothing is drawn). @yuv is used by YCbCr formats
 * only. X bits and P010/P012's padding bits hold noise, which the format
 * says is not read. Chroma is sampled per block of hsub x vsub pixels from
 * the framebuffer's origin (Documentation/flipkms.rst, "Chroma siting").
 */
void fp_draw(const struct fp_format *f, unsigned char *buf, const uint32_t *pitches,
	     const uint32_t *offsets, int w, int h, uint32_t seed, const struct fp_yuv *yuv,
	     struct fp_pixel *want);

/*
 * A writeback buffer's pixel at @p read back: each channel the top bits of
 * the 16 composed, so the answer's channel c reads as c >> (16 - n).
 * Returns false if @fourcc is no packed RGB format this file knows.
 */
bool fp_read_back(uint32_t fourcc, const unsigned char *p, const struct fp_pixel *answer,
		  bool *equal);
/* Bytes a pixel of packed RGB @fourcc, or 0. */
int fp_packed_bytes(uint32_t fourcc);

#endif /* FLIPFENCE_TESTS_KMS_FORMAT_PIXELS_H */
