// SPDX-License-Identifier: MIT
/*
 * format-pixels: patterns of known answers in every plane format flipkms
 * offers (see format-pixels.h). The layouts are drm_fourcc.h's, written out
 * here as where each channel lies in a little-endian word.
 */
#include <math.h>
#include <string.h>

#include <drm_fourcc.h>

#include "format-pixels.h"

/* Newer than Debian 12's libdrm headers (drm_fourcc.h in Linux 6.1). */
#ifndef DRM_FORMAT_R1
#define DRM_FORMAT_R1	fourcc_code('R', '1', ' ', ' ')
#define DRM_FORMAT_R2	fourcc_code('R', '2', ' ', ' ')
#define DRM_FORMAT_R4	fourcc_code('R', '4', ' ', ' ')
#endif

enum fp_kind {
	FP_PACKED,	/* unsigned channels in a little-endian word */
	FP_HALF,	/* half floats in a little-endian word */
	FP_GREY,	/* R1-R8: bpp-bit grey, the leftmost pixel in the top bits */
	FP_YUV,		/* Y plane, then CbCr interleaved or Cb and Cr planes */
};

enum { R, G, B, A };

struct fp_format {
	uint32_t fourcc;
	const char *name;		/* drm_fourcc.h's, without DRM_FORMAT_ */
	enum fp_kind kind;
	unsigned int bpp;		/* packed, half, grey: bits a pixel */
	uint8_t shift[4], width[4];	/* packed, half: R, G, B, A; width 0: none */
	/* YCbCr: subsampling, planes, code value bits, bytes a sample */
	unsigned int hsub, vsub, planes, depth, bytes;
	bool cr_first;			/* NV21, YVU420, ...: Cr before Cb */
};

#define PACKED(f, bits, rs, rw, gs, gw, bs, bw, as, aw) \
	{ .fourcc = (f), .name = &#f[11], .kind = FP_PACKED, .bpp = (bits), \
	  .shift = { rs, gs, bs, as }, .width = { rw, gw, bw, aw } }
#define HALF(f, as, aw) \
	{ .fourcc = (f), .name = &#f[11], .kind = FP_HALF, .bpp = 64, \
	  .shift = { 32, 16, 0, as }, .width = { 16, 16, 16, aw } }
#define GREY(f, bits) { .fourcc = (f), .name = &#f[11], .kind = FP_GREY, .bpp = (bits) }
#define YUV(f, h, v, n, d, sz, swap) \
	{ .fourcc = (f), .name = &#f[11], .kind = FP_YUV, .hsub = (h), .vsub = (v), .planes = (n), \
	  .depth = (d), .bytes = (sz), .cr_first = (swap) }

static const struct fp_format fp_formats[] = {
	PACKED(DRM_FORMAT_XRGB8888, 32, 16, 8, 8, 8, 0, 8, 0, 0),
	PACKED(DRM_FORMAT_ARGB8888, 32, 16, 8, 8, 8, 0, 8, 24, 8),
	PACKED(DRM_FORMAT_XBGR8888, 32, 0, 8, 8, 8, 16, 8, 0, 0),
	PACKED(DRM_FORMAT_ABGR8888, 32, 0, 8, 8, 8, 16, 8, 24, 8),
	PACKED(DRM_FORMAT_RGBX8888, 32, 24, 8, 16, 8, 8, 8, 0, 0),
	PACKED(DRM_FORMAT_RGBA8888, 32, 24, 8, 16, 8, 8, 8, 0, 8),
	PACKED(DRM_FORMAT_BGRX8888, 32, 8, 8, 16, 8, 24, 8, 0, 0),
	PACKED(DRM_FORMAT_BGRA8888, 32, 8, 8, 16, 8, 24, 8, 0, 8),
	PACKED(DRM_FORMAT_RGB888, 24, 16, 8, 8, 8, 0, 8, 0, 0),
	PACKED(DRM_FORMAT_BGR888, 24, 0, 8, 8, 8, 16, 8, 0, 0),
	PACKED(DRM_FORMAT_RGB565, 16, 11, 5, 5, 6, 0, 5, 0, 0),
	PACKED(DRM_FORMAT_BGR565, 16, 0, 5, 5, 6, 11, 5, 0, 0),
	PACKED(DRM_FORMAT_XRGB2101010, 32, 20, 10, 10, 10, 0, 10, 0, 0),
	PACKED(DRM_FORMAT_ARGB2101010, 32, 20, 10, 10, 10, 0, 10, 30, 2),
	PACKED(DRM_FORMAT_XBGR2101010, 32, 0, 10, 10, 10, 20, 10, 0, 0),
	PACKED(DRM_FORMAT_ABGR2101010, 32, 0, 10, 10, 10, 20, 10, 30, 2),
	PACKED(DRM_FORMAT_XRGB16161616, 64, 32, 16, 16, 16, 0, 16, 0, 0),
	PACKED(DRM_FORMAT_ARGB16161616, 64, 32, 16, 16, 16, 0, 16, 48, 16),
	PACKED(DRM_FORMAT_XBGR16161616, 64, 0, 16, 16, 16, 32, 16, 0, 0),
	PACKED(DRM_FORMAT_ABGR16161616, 64, 0, 16, 16, 16, 32, 16, 48, 16),
	HALF(DRM_FORMAT_XRGB16161616F, 0, 0),
	HALF(DRM_FORMAT_ARGB16161616F, 48, 16),
	GREY(DRM_FORMAT_R1, 1),
	GREY(DRM_FORMAT_R2, 2),
	GREY(DRM_FORMAT_R4, 4),
	GREY(DRM_FORMAT_R8, 8),
	YUV(DRM_FORMAT_NV12, 2, 2, 2, 8, 1, false),
	YUV(DRM_FORMAT_NV21, 2, 2, 2, 8, 1, true),
	YUV(DRM_FORMAT_NV16, 2, 1, 2, 8, 1, false),
	YUV(DRM_FORMAT_NV61, 2, 1, 2, 8, 1, true),
	YUV(DRM_FORMAT_NV24, 1, 1, 2, 8, 1, false),
	YUV(DRM_FORMAT_NV42, 1, 1, 2, 8, 1, true),
	YUV(DRM_FORMAT_YUV420, 2, 2, 3, 8, 1, false),
	YUV(DRM_FORMAT_YVU420, 2, 2, 3, 8, 1, true),
	YUV(DRM_FORMAT_YUV422, 2, 1, 3, 8, 1, false),
	YUV(DRM_FORMAT_YVU422, 2, 1, 3, 8, 1, true),
	YUV(DRM_FORMAT_YUV444, 1, 1, 3, 8, 1, false),
	YUV(DRM_FORMAT_YVU444, 1, 1, 3, 8, 1, true),
	YUV(DRM_FORMAT_P010, 2, 2, 2, 10, 2, false),
	YUV(DRM_FORMAT_P012, 2, 2, 2, 12, 2, false),
	YUV(DRM_FORMAT_P016, 2, 2, 2, 16, 2, false),
};

const struct fp_format *fp_find(uint32_t fourcc)
{
	size_t i;

	for (i = 0; i < sizeof(fp_formats) / sizeof(fp_formats[0]); i++)
		if (fp_formats[i].fourcc == fourcc)
			return &fp_formats[i];
	return NULL;
}

const char *fp_name(uint32_t fourcc, char buf[5])
{
	const struct fp_format *f = fp_find(fourcc);
	int i;

	if (f)
		return f->name;
	for (i = 0; i < 4; i++)
		buf[i] = (char)(fourcc >> (8 * i));
	buf[4] = '\0';
	return buf;
}

bool fp_is_yuv(const struct fp_format *f)
{
	return f->kind == FP_YUV;
}

bool fp_has_alpha(const struct fp_format *f)
{
	return (f->kind == FP_PACKED || f->kind == FP_HALF) && f->width[A];
}

int fp_planes(const struct fp_format *f)
{
	return f->kind == FP_YUV ? (int)f->planes : 1;
}

int fp_tolerance(const struct fp_format *f)
{
	return f->kind == FP_YUV ? 1 : 0;
}

static uint32_t div_up(uint32_t a, uint32_t b)
{
	return (a + b - 1) / b;
}

uint32_t fp_min_pitch(const struct fp_format *f, int plane, int w)
{
	if (f->kind != FP_YUV)
		return div_up((uint32_t)w * f->bpp, 8);
	if (plane == 0)
		return (uint32_t)w * f->bytes;
	return div_up((uint32_t)w, f->hsub) * f->bytes * (f->planes == 2 ? 2 : 1);
}

size_t fp_layout(const struct fp_format *f, int w, int h, uint32_t pitches[4],
		 uint32_t offsets[4])
{
	size_t at = 64;
	uint32_t rows;
	int i;

	memset(pitches, 0, 4 * sizeof(*pitches));
	memset(offsets, 0, 4 * sizeof(*offsets));
	for (i = 0; i < fp_planes(f); i++) {
		rows = i ? div_up((uint32_t)h, f->vsub) : (uint32_t)h;
		pitches[i] = (fp_min_pitch(f, i, w) + 7) / 8 * 8 + 8;
		offsets[i] = (uint32_t)at;
		at = (at + (size_t)pitches[i] * rows + 63) / 64 * 64;
	}
	return at;
}

/* --- the pattern ---------------------------------------------------------- */

static uint32_t next(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/*
 * A channel value of @bits bits: the first pixels of a pattern take the
 * extremes (0 and all ones), the rest are random.
 */
static uint32_t value(uint32_t *s, unsigned int bits, int i)
{
	uint32_t max = bits >= 32 ? 0xffffffffu : (1u << bits) - 1;

	if (i < 2)
		return i ? max : 0;
	return next(s) & max;
}

/* The documented rule: c * 0xffff / (2^n - 1), rounded down. */
static uint16_t unorm(uint32_t c, unsigned int bits)
{
	return (uint16_t)((uint64_t)c * 0xffff / ((1u << bits) - 1));
}

static uint16_t to16(double v)
{
	if (isnan(v) || v < 0)
		return 0;
	if (v > 1)
		return 0xffff;
	return (uint16_t)floor(v * 65535 + 0.5);
}

static double half_value(uint16_t h)
{
	int e = h >> 10 & 0x1f, m = h & 0x3ff;
	double v;

	if (e == 0x1f)
		v = m ? NAN : INFINITY;
	else
		v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
	return h & 0x8000 ? -v : v;
}

/* Half floats mostly in [0, 1], some above, negative, infinite or NaN. */
static uint16_t half_pattern(uint32_t *s, int i)
{
	static const uint16_t edges[] = { 0x0000, 0x3c00, 0x0001, 0x3bff, 0x8400, 0x7c00,
					  0x7e00, 0x4000 };
	uint32_t r = next(s);

	if (i < (int)(sizeof(edges) / sizeof(edges[0])))
		return edges[i];
	/* exponents 0-15: from subnormals up to 1.0 and a little beyond */
	return (uint16_t)((r >> 16) % 16 << 10 | (r & 0x3ff));
}

static void put_le(unsigned char *p, uint64_t v, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void draw_packed(const struct fp_format *f, unsigned char *row, int x, uint32_t *s,
			int i, struct fp_pixel *want)
{
	uint16_t v16[4];
	uint64_t word, c;
	int k;

	/* X bits (everything no channel takes) hold noise. */
	word = (uint64_t)next(s) << 32 | next(s);
	for (k = R; k <= A; k++) {
		if (!f->width[k]) {
			v16[k] = 0xffff;
			continue;
		}
		c = f->kind == FP_HALF ? half_pattern(s, i) : value(s, f->width[k], i + k);
		word &= ~((((uint64_t)1 << f->width[k]) - 1) << f->shift[k]);
		word |= c << f->shift[k];
		v16[k] = f->kind == FP_HALF ? to16(half_value((uint16_t)c)) :
					      unorm((uint32_t)c, f->width[k]);
	}
	put_le(row + (size_t)x * f->bpp / 8, word, f->bpp / 8);
	*want = (struct fp_pixel){ v16[R], v16[G], v16[B], v16[A] };
}

static void draw_grey(const struct fp_format *f, unsigned char *row, int x, uint32_t *s,
		      int i, struct fp_pixel *want)
{
	unsigned int per_byte = 8 / f->bpp, shift = 8 - f->bpp - (x % per_byte) * f->bpp;
	uint32_t c = value(s, f->bpp, i);
	uint16_t v = unorm(c, f->bpp);

	row[x / per_byte] = (unsigned char)((row[x / per_byte] & ~(((1u << f->bpp) - 1) << shift)) |
					    c << shift);
	*want = (struct fp_pixel){ v, v, v, 0xffff };
}

/* The ITU-R conversion of code values of @depth bits, exactly. */
static struct fp_pixel yuv_answer(const struct fp_yuv *m, unsigned int depth, uint32_t y,
				  uint32_t cb, uint32_t cr)
{
	double yo = 0, ys = (1u << depth) - 1, co = 1u << (depth - 1), cs = ys;
	double yy, u, v, r, g, b;

	if (!m->full) {
		yo = 16 << (depth - 8);
		ys = 219 << (depth - 8);
		co = 128 << (depth - 8);
		cs = 224 << (depth - 8);
	}
	yy = (y - yo) / ys;
	u = (cb - co) / cs;
	v = (cr - co) / cs;
	r = yy + 2 * (1 - m->kr) * v;
	b = yy + 2 * (1 - m->kb) * u;
	g = (yy - m->kr * r - m->kb * b) / (1 - m->kr - m->kb);
	return (struct fp_pixel){ to16(r), to16(g), to16(b), 0xffff };
}

/* A sample of @f's depth at @p; 2-byte samples keep it in the top bits. */
static void put_sample(const struct fp_format *f, unsigned char *p, uint32_t v, uint32_t *s)
{
	if (f->bytes == 1)
		*p = (unsigned char)v;
	else
		put_le(p, v << (16 - f->depth) | (next(s) & ((1u << (16 - f->depth)) - 1)), 2);
}

static void draw_yuv(const struct fp_format *f, unsigned char *buf, const uint32_t *pitches,
		     const uint32_t *offsets, int w, int h, uint32_t *s, const struct fp_yuv *m,
		     struct fp_pixel *want)
{
	int cw = (int)div_up((uint32_t)w, f->hsub), ch = (int)div_up((uint32_t)h, f->vsub);
	uint32_t cb[FP_MAX_PIXELS], cr[FP_MAX_PIXELS];
	unsigned char *p, *pcb, *pcr;
	uint32_t y;
	int i, x, row;

	for (i = 0; i < cw * ch; i++) {
		cb[i] = value(s, f->depth, i + 1);
		cr[i] = value(s, f->depth, i);
	}
	for (row = 0; row < ch; row++)
		for (x = 0; x < cw; x++) {
			if (f->planes == 2) {
				pcb = buf + offsets[1] + (size_t)row * pitches[1] + 2 * f->bytes * x;
				pcr = pcb + f->bytes;
			} else {
				pcb = buf + offsets[1] + (size_t)row * pitches[1] + f->bytes * x;
				pcr = buf + offsets[2] + (size_t)row * pitches[2] + f->bytes * x;
			}
			if (f->cr_first) {
				p = pcb;
				pcb = pcr;
				pcr = p;
			}
			put_sample(f, pcb, cb[row * cw + x], s);
			put_sample(f, pcr, cr[row * cw + x], s);
		}
	for (row = 0; row < h; row++)
		for (x = 0; x < w; x++) {
			y = value(s, f->depth, row * w + x);
			put_sample(f, buf + offsets[0] + (size_t)row * pitches[0] + f->bytes * x, y, s);
			i = row / (int)f->vsub * cw + x / (int)f->hsub;
			want[row * w + x] = yuv_answer(m, f->depth, y, cb[i], cr[i]);
		}
}

void fp_draw(const struct fp_format *f, unsigned char *buf, const uint32_t *pitches,
	     const uint32_t *offsets, int w, int h, uint32_t seed, const struct fp_yuv *yuv,
	     struct fp_pixel *want)
{
	uint32_t s = seed | 1;
	unsigned char *row;
	int x, y;

	if (w * h > FP_MAX_PIXELS)
		return;
	if (f->kind == FP_YUV) {
		draw_yuv(f, buf, pitches, offsets, w, h, &s, yuv, want);
		return;
	}
	for (y = 0; y < h; y++) {
		row = buf + offsets[0] + (size_t)y * pitches[0];
		for (x = 0; x < w; x++) {
			if (f->kind == FP_GREY)
				draw_grey(f, row, x, &s, y * w + x, &want[y * w + x]);
			else
				draw_packed(f, row, x, &s, y * w + x, &want[y * w + x]);
		}
	}
}

int fp_packed_bytes(uint32_t fourcc)
{
	const struct fp_format *f = fp_find(fourcc);

	return f && f->kind == FP_PACKED ? (int)f->bpp / 8 : 0;
}

bool fp_read_back(uint32_t fourcc, const unsigned char *p, const struct fp_pixel *answer,
		  bool *equal)
{
	const struct fp_format *f = fp_find(fourcc);
	const uint16_t want[3] = { answer->r, answer->g, answer->b };
	uint64_t word;
	uint32_t got;
	int k;

	if (!f || f->kind != FP_PACKED)
		return false;
	word = get_le(p, f->bpp / 8);
	*equal = true;
	for (k = R; k <= B; k++) {
		got = (uint32_t)(word >> f->shift[k]) & ((1u << f->width[k]) - 1);
		*equal &= got == (uint32_t)(want[k] >> (16 - f->width[k]));
	}
	/* Written back opaque: an alpha channel, if any, all ones. */
	if (f->width[A])
		*equal &= ((word >> f->shift[A]) & ((1u << f->width[A]) - 1)) ==
			  (1u << f->width[A]) - 1;
	return true;
}
