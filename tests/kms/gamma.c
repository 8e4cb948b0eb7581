// SPDX-License-Identifier: MIT
/*
 * gamma: flipkms's CRTC colour management, through every interface
 * userspace has:
 *
 *   DEGAMMA_LUT / DEGAMMA_LUT_SIZE, CTM, GAMMA_LUT / GAMMA_LUT_SIZE
 *					atomic properties (256-entry LUTs)
 *   drmModeCrtcSetGamma		the legacy ioctl, mapped by the DRM core
 *					onto GAMMA_LUT (clearing DEGAMMA_LUT
 *					and CTM)
 *
 * The composed frame shows the stages applied. With one colour: identity
 * leaves a frame as it was, an inverting LUT inverts it, removing the LUT
 * restores it (frame.ppm). With random 16-bit pixels (XRGB16161616) and
 * known answers computed here from the formulas of drm_mode.h and
 * Documentation/flipkms.rst (degamma, then the CTM in S31.32
 * sign-magnitude rounded half up and clamped, then gamma; LUTs
 * interpolated):
 *
 *   <case>-writeback	every written-back pixel is the answer's top 8 bits
 *   <case>-frame-ppm	so is every pixel of frame.ppm
 *   <case>-crc		the CRC entry is the CRC32 of the 16-bit answer
 *
 * for a CTM that rotates the channels, one with negative, fractional and
 * above-one coefficients, and all three stages at once. LUTs of the wrong
 * size are refused with EINVAL by flipkms; blobs whose length is no whole
 * number of LUT entries, or not one CTM, with EINVAL by the DRM core; and
 * a refused commit changes nothing.
 *
 * usage: gamma flipkms
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

#define LUT_SIZE	256
#define COLOUR		0x20a0f0
#define W		640
#define H		480

/* S31.32 sign-magnitude. */
#define ONE		(1ULL << 32)
#define NEG		(1ULL << 63)

static char crtc_dir[96];

enum ramp { NONE, IDENTITY, INVERT, CURVES };

/* The CRTC's colour property ids. */
static uint32_t degamma_prop, ctm_prop, gamma_prop;

static struct kms_writeback wb;

struct rgb16 {
	uint16_t r, g, b;
};

/* The XRGB16161616 source's pixels, as written. */
static struct rgb16 *source;

static uint16_t ramp_entry(enum ramp ramp, int i, int n, int channel)
{
	uint32_t v = (uint32_t)i * 0xffff / (n - 1);

	switch (ramp) {
	case INVERT:
		return 0xffff - v;
	case CURVES:
		/* Red squared, green identity, blue a ramp to 0xff00. */
		return channel == 0 ? (uint64_t)v * v / 0xffff : channel == 1 ? v : (uint32_t)i * 0x100;
	default:
		return v;
	}
}

static void fill_lut(struct drm_color_lut *lut, int n, enum ramp ramp)
{
	int i;

	for (i = 0; i < n; i++)
		lut[i] = (struct drm_color_lut){
			.red = ramp_entry(ramp, i, n, 0),
			.green = ramp_entry(ramp, i, n, 1),
			.blue = ramp_entry(ramp, i, n, 2),
		};
}

/* A blob of @len bytes at @data; its id, or 0 (failing the setup). */
static uint32_t make_blob(int fd, const void *data, size_t len)
{
	uint32_t blob = 0;

	require(drmModeCreatePropertyBlob(fd, data, len, &blob) == 0, "a property blob");
	return blob;
}

/* A blob of @n LUT entries of @ramp. */
static uint32_t lut_blob(int fd, int n, enum ramp ramp)
{
	struct drm_color_lut *lut = calloc(n, sizeof(*lut));
	uint32_t blob;

	require(lut != NULL, "memory");
	fill_lut(lut, n, ramp);
	blob = make_blob(fd, lut, n * sizeof(*lut));
	free(lut);
	return blob;
}

/* A blocking commit of one CRTC property; 0 or -errno. */
static int set_crtc_prop(struct kms_dev *dev, const struct kms_pipe *pipe, uint32_t prop,
			 uint64_t value)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret;

	if (!req || !prop) {
		drmModeAtomicFree(req);
		return -ENOENT;
	}
	drmModeAtomicAddProperty(req, pipe->crtc_id, prop, value);
	ret = drmModeAtomicCommit(dev->fd, req, 0, NULL) ? -errno : 0;
	drmModeAtomicFree(req);
	return ret;
}

/* GAMMA_LUT set to a fresh blob of @n entries of @ramp; 0 or -errno. */
static int commit_ramp(struct kms_dev *dev, const struct kms_pipe *pipe, int n, enum ramp ramp)
{
	uint32_t blob = lut_blob(dev->fd, n, ramp);
	int ret = set_crtc_prop(dev, pipe, gamma_prop, blob);

	drmModeDestroyPropertyBlob(dev->fd, blob);
	return ret;
}

/* A blob of @len bytes as @prop; 0 or -errno. */
static int commit_bytes(struct kms_dev *dev, const struct kms_pipe *pipe, uint32_t prop,
			size_t len)
{
	void *bytes = calloc(1, len);
	uint32_t blob;
	int ret;

	require(bytes != NULL, "memory");
	blob = make_blob(dev->fd, bytes, len);
	free(bytes);
	ret = set_crtc_prop(dev, pipe, prop, blob);
	drmModeDestroyPropertyBlob(dev->fd, blob);
	return ret;
}

static long inverted(long rgb)
{
	return rgb < 0 ? rgb : ~rgb & 0xffffff;
}

/* --- the answers, from the formulas -------------------------------------- */

/*
 * Entry i is the output for input i / 255 of full scale; between entries,
 * lo + (hi - lo) * frac / 0xffff, truncated towards zero as C divides.
 */
static uint16_t lut_apply(const struct drm_color_lut *lut, int channel, uint16_t v)
{
	uint32_t pos = (uint32_t)v * (LUT_SIZE - 1), lo = pos / 0xffff;
	uint32_t hi = lo + 1 < LUT_SIZE ? lo + 1 : LUT_SIZE - 1;
	const uint16_t *a = &lut[lo].red, *b = &lut[hi].red;

	return (uint16_t)(a[channel] + ((int64_t)b[channel] - a[channel]) *
				       (int64_t)(pos % 0xffff) / 0xffff);
}

/* A row of the CTM times (r, g, b): exact, rounded half up, clamped. */
static uint16_t ctm_apply(const uint64_t *row, const struct rgb16 *px)
{
	const uint16_t in[3] = { px->r, px->g, px->b };
	__int128 sum = 0, term;
	int i;

	for (i = 0; i < 3; i++) {
		term = (__int128)(row[i] & ~NEG) * in[i];
		sum += row[i] & NEG ? -term : term;
	}
	if (sum <= 0)
		return 0;
	sum = (sum + (1LL << 31)) >> 32;
	return sum > 0xffff ? 0xffff : (uint16_t)sum;
}

struct colour {
	const char *name;
	enum ramp degamma;
	const uint64_t *ctm;	/* NULL: none */
	enum ramp gamma;
};

static struct rgb16 answer(const struct colour *c, const struct drm_color_lut *degamma,
			   const struct drm_color_lut *gamma, struct rgb16 px)
{
	struct rgb16 in;

	if (c->degamma != NONE)
		px = (struct rgb16){ lut_apply(degamma, 0, px.r), lut_apply(degamma, 1, px.g),
				     lut_apply(degamma, 2, px.b) };
	if (c->ctm) {
		in = px;
		px = (struct rgb16){ ctm_apply(c->ctm, &in), ctm_apply(c->ctm + 3, &in),
				     ctm_apply(c->ctm + 6, &in) };
	}
	if (c->gamma != NONE)
		px = (struct rgb16){ lut_apply(gamma, 0, px.r), lut_apply(gamma, 1, px.g),
				     lut_apply(gamma, 2, px.b) };
	return px;
}

/* --- what flipkms shows -------------------------------------------------- */

/* Random 16-bit pixels into @fb (XRGB16161616) and into source[]. */
static void fill_source(int fd, const struct kms_fb *fb)
{
	unsigned char *map = kms_fb_map(fd, fb);
	unsigned int seed = 30;
	uint16_t *p;
	int x, y;

	require(map != NULL && source != NULL, "map the source");
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++) {
			struct rgb16 *s = &source[y * W + x];

			/* Edges often: 0 and full scale, where clamps bite. */
			*s = (struct rgb16){ rand_r(&seed) % 8 ? rand_r(&seed) : 0xffff,
					     rand_r(&seed) % 8 ? rand_r(&seed) : 0,
					     rand_r(&seed) };
			p = (uint16_t *)(map + (size_t)y * fb->pitch) + 4 * x;
			p[0] = s->b;
			p[1] = s->g;
			p[2] = s->r;
			p[3] = 0;
		}
	munmap(map, fb->size);
}

/* The CRC entry of the next vblank, with the frame unchanged since; -1 if none. */
static long long next_crc(void)
{
	int data = kms_crc_open(crtc_dir, 0);
	struct kms_crc_entry e;
	long long crc = -1;

	if (kms_crc_next(data, false, &e))
		crc = e.crc;
	close(data);
	return crc;
}

/* --- the cases ----------------------------------------------------------- */

/*
 * One commit of @c's properties with a writeback job, then each output
 * against the answer. Blobs are dropped after the commit: the CRTC state
 * keeps its own references.
 */
static void check_colour(struct kms_dev *dev, const struct kms_pipe *pipe,
			 const struct colour *c, const struct kms_fb *wb_fb)
{
	struct drm_color_lut degamma[LUT_SIZE], gamma[LUT_SIZE];
	static unsigned char line[W * 8], ppm[W * H * 3];
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint32_t blobs[3] = { 0, 0, 0 }, want_crc = 0;
	int bad_wb = 0, bad_ppm = 0, first_wb = -1, first_ppm = -1, ret, i, x, y;
	struct kms_fence_info info;
	unsigned char *map;
	uint32_t *want;
	int32_t fence = -1;
	long long crc;
	char name[64];

	want = calloc((size_t)W * H, sizeof(*want));
	require(req != NULL && want != NULL, "memory");
	fill_lut(degamma, LUT_SIZE, c->degamma);
	fill_lut(gamma, LUT_SIZE, c->gamma);
	for (y = 0; y < H; y++) {
		for (x = 0; x < W; x++) {
			struct rgb16 px = answer(c, degamma, gamma, source[y * W + x]);
			uint16_t v[4] = { px.b, px.g, px.r, 0xffff };

			for (i = 0; i < 4; i++) {
				line[8 * x + 2 * i] = v[i] & 0xff;
				line[8 * x + 2 * i + 1] = v[i] >> 8;
			}
			want[y * W + x] = (uint32_t)(px.r >> 8) << 16 | (px.g >> 8) << 8 | px.b >> 8;
		}
		want_crc = kms_crc32_le(want_crc, line, sizeof(line));
	}

	begin(c->name);
	if (c->degamma != NONE)
		blobs[0] = make_blob(dev->fd, degamma, sizeof(degamma));
	if (c->ctm)
		blobs[1] = make_blob(dev->fd, c->ctm, 9 * sizeof(uint64_t));
	if (c->gamma != NONE)
		blobs[2] = make_blob(dev->fd, gamma, sizeof(gamma));
	drmModeAtomicAddProperty(req, pipe->crtc_id, degamma_prop, blobs[0]);
	drmModeAtomicAddProperty(req, pipe->crtc_id, ctm_prop, blobs[1]);
	drmModeAtomicAddProperty(req, pipe->crtc_id, gamma_prop, blobs[2]);
	drmModeAtomicAddProperty(req, wb.id, wb.crtc_id, pipe->crtc_id);
	drmModeAtomicAddProperty(req, wb.id, wb.fb_id, wb_fb->fb_id);
	drmModeAtomicAddProperty(req, wb.id, wb.out_fence_ptr, (uint64_t)(uintptr_t)&fence);
	ret = drmModeAtomicCommit(dev->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL) ? -errno : 0;
	drmModeAtomicFree(req);
	for (i = 0; i < 3; i++)
		if (blobs[i])
			drmModeDestroyPropertyBlob(dev->fd, blobs[i]);
	snprintf(name, sizeof(name), "%s-accepted", c->name);
	if (!check(name, ret == 0 && fence >= 0, "commit %s, fence %d", errno_name(-ret), fence)) {
		free(want);
		return;
	}
	require(sync_wait(fence, 10000) == 0 && kms_fence_info(fence, &info) == 0 &&
		info.status == 1, "the writeback fence signals within 10 s");
	close(fence);

	map = kms_fb_map(dev->fd, wb_fb);
	require(map != NULL, "map the writeback buffer");
	for (i = 0; i < W * H; i++)
		if ((*((uint32_t *)(map + (size_t)(i / W) * wb_fb->pitch) + i % W) & 0xffffff) !=
		    want[i] && !bad_wb++)
			first_wb = i;
	snprintf(name, sizeof(name), "%s-writeback", c->name);
	check(name, !bad_wb, "%d of %d pixels differ, first at (%d, %d): %06x, expected %06x",
	      bad_wb, W * H, first_wb % W, first_wb / W,
	      first_wb < 0 ? 0 : *((uint32_t *)(map + (size_t)(first_wb / W) * wb_fb->pitch) +
				   first_wb % W) & 0xffffff,
	      first_wb < 0 ? 0 : want[first_wb]);
	munmap(map, wb_fb->size);

	snprintf(name, sizeof(name), "%s-frame-ppm", c->name);
	if (kms_frame_ppm(crtc_dir, W, H, ppm)) {
		for (i = 0; i < W * H; i++)
			if ((uint32_t)(ppm[3 * i] << 16 | ppm[3 * i + 1] << 8 | ppm[3 * i + 2]) !=
			    want[i] && !bad_ppm++)
				first_ppm = i;
		check(name, !bad_ppm, "%d of %d pixels differ, first at (%d, %d): %02x%02x%02x, "
		      "expected %06x", bad_ppm, W * H, first_ppm % W, first_ppm / W,
		      ppm[3 * (first_ppm < 0 ? 0 : first_ppm)],
		      ppm[3 * (first_ppm < 0 ? 0 : first_ppm) + 1],
		      ppm[3 * (first_ppm < 0 ? 0 : first_ppm) + 2],
		      first_ppm < 0 ? 0 : want[first_ppm]);
	} else {
		not_ok(name, "frame.ppm is not a %dx%d PPM", W, H);
	}

	snprintf(name, sizeof(name), "%s-crc", c->name);
	crc = next_crc();
	check(name, crc == want_crc, "expected the CRC32 of the 16-bit answer, %08x, got %08llx",
	      want_crc, crc);
	free(want);
}

static void test_properties(struct kms_dev *dev, const struct kms_pipe *pipe)
{
	drmModeCrtc *crtc = drmModeGetCrtc(dev->fd, pipe->crtc_id);
	uint64_t size = 0;

	check_int("gamma-lut-size-property",
		  LUT_SIZE, kms_prop_get(dev->fd, pipe->crtc_id, DRM_MODE_OBJECT_CRTC,
					 "GAMMA_LUT_SIZE", &size) ? -1 : (long long)size);
	check_int("degamma-lut-size-property",
		  LUT_SIZE, kms_prop_get(dev->fd, pipe->crtc_id, DRM_MODE_OBJECT_CRTC,
					 "DEGAMMA_LUT_SIZE", &size) ? -1 : (long long)size);
	check_int("legacy-gamma-size", LUT_SIZE, crtc ? crtc->gamma_size : -1);
	check("colour-properties", degamma_prop && ctm_prop && gamma_prop,
	      "expected DEGAMMA_LUT (%u), CTM (%u) and GAMMA_LUT (%u)", degamma_prop, ctm_prop,
	      gamma_prop);
	drmModeFreeCrtc(crtc);
}

static void test_atomic(struct kms_dev *dev, const struct kms_pipe *pipe, long plain)
{
	check_int("identity-lut-accepted", 0, commit_ramp(dev, pipe, LUT_SIZE, IDENTITY));
	check_int("identity-lut-keeps-frame", plain, kms_frame_pixel(crtc_dir, 10, 10));
	check_int("inverting-lut-accepted", 0, commit_ramp(dev, pipe, LUT_SIZE, INVERT));
	check_int("inverting-lut-inverts-frame", inverted(plain), kms_frame_pixel(crtc_dir, 10, 10));

	check_int("short-lut-rejected", -EINVAL, commit_ramp(dev, pipe, LUT_SIZE - 1, IDENTITY));
	check_int("long-lut-rejected", -EINVAL, commit_ramp(dev, pipe, LUT_SIZE * 2, IDENTITY));
	check_int("rejected-lut-changes-nothing", inverted(plain),
		  kms_frame_pixel(crtc_dir, 10, 10));
	check_int("lut-of-another-blob-kind-rejected", -EINVAL,
		  set_crtc_prop(dev, pipe, gamma_prop, pipe->mode_blob));
	check_int("lut-of-unknown-blob-rejected", -EINVAL,
		  set_crtc_prop(dev, pipe, gamma_prop, 0x7fffffff));

	check_int("lut-removed", 0, set_crtc_prop(dev, pipe, gamma_prop, 0));
	check_int("removing-lut-restores-frame", plain, kms_frame_pixel(crtc_dir, 10, 10));
}

/* Whether CRTC property @name holds a blob of @len bytes equal to @data. */
static bool crtc_blob_is(struct kms_dev *dev, const struct kms_pipe *pipe, const char *name,
			 const void *data, size_t len)
{
	drmModePropertyBlobRes *blob;
	uint64_t id = 0;
	bool same;

	if (kms_prop_get(dev->fd, pipe->crtc_id, DRM_MODE_OBJECT_CRTC, name, &id) || !id)
		return false;
	blob = drmModeGetPropertyBlob(dev->fd, (uint32_t)id);
	same = blob && blob->length == len && !memcmp(blob->data, data, len);
	drmModeFreePropertyBlob(blob);
	return same;
}

/*
 * Out-of-range degamma and CTM blobs, while @c's three stages are set:
 * flipkms's and the core's EINVAL, and the stages stay as they were (by
 * content: a blob id freed by a commit may come back with the next blob).
 */
static void test_bad_blobs(struct kms_dev *dev, const struct kms_pipe *pipe,
			   const struct colour *c)
{
	long shown = kms_frame_pixel(crtc_dir, 10, 10);
	struct drm_color_lut degamma[LUT_SIZE];
	uint32_t blob;

	fill_lut(degamma, LUT_SIZE, c->degamma);
	blob = lut_blob(dev->fd, LUT_SIZE - 1, IDENTITY);
	check_int("short-degamma-lut-rejected", -EINVAL,
		  set_crtc_prop(dev, pipe, degamma_prop, blob));
	drmModeDestroyPropertyBlob(dev->fd, blob);
	blob = lut_blob(dev->fd, LUT_SIZE * 2, IDENTITY);
	check_int("long-degamma-lut-rejected", -EINVAL,
		  set_crtc_prop(dev, pipe, degamma_prop, blob));
	drmModeDestroyPropertyBlob(dev->fd, blob);
	check_int("degamma-lut-of-partial-entries-rejected", -EINVAL,
		  commit_bytes(dev, pipe, degamma_prop, LUT_SIZE * sizeof(struct drm_color_lut) + 4));
	check_int("short-ctm-rejected", -EINVAL, commit_bytes(dev, pipe, ctm_prop, 8 * 8));
	check_int("long-ctm-rejected", -EINVAL, commit_bytes(dev, pipe, ctm_prop, 10 * 8));
	check_int("ctm-of-another-blob-kind-rejected", -EINVAL,
		  set_crtc_prop(dev, pipe, ctm_prop, pipe->mode_blob));
	check_int("ctm-of-unknown-blob-rejected", -EINVAL,
		  set_crtc_prop(dev, pipe, ctm_prop, 0x7fffffff));
	check("rejected-colour-keeps-properties",
	      crtc_blob_is(dev, pipe, "DEGAMMA_LUT", degamma, sizeof(degamma)) &&
	      crtc_blob_is(dev, pipe, "CTM", c->ctm, 9 * sizeof(uint64_t)),
	      "expected DEGAMMA_LUT and CTM to hold the case's LUT and matrix still");
	check_int("rejected-colour-keeps-frame", shown, kms_frame_pixel(crtc_dir, 10, 10));
}

static void test_legacy(struct kms_dev *dev, const struct kms_pipe *pipe, long plain)
{
	uint16_t r[LUT_SIZE], g[LUT_SIZE], b[LUT_SIZE];
	static const uint64_t swap[9] = { 0, ONE, 0, ONE, 0, 0, 0, 0, ONE };
	struct drm_color_lut lut[LUT_SIZE];
	uint64_t blob = 0, degamma = 1, ctm = 1;
	uint32_t blobs[2];
	int i;

	/* Degamma and CTM set: the legacy ioctl clears them. */
	blobs[0] = lut_blob(dev->fd, LUT_SIZE, CURVES);
	blobs[1] = make_blob(dev->fd, swap, sizeof(swap));
	require(set_crtc_prop(dev, pipe, degamma_prop, blobs[0]) == 0 &&
		set_crtc_prop(dev, pipe, ctm_prop, blobs[1]) == 0, "set DEGAMMA_LUT and CTM");
	drmModeDestroyPropertyBlob(dev->fd, blobs[0]);
	drmModeDestroyPropertyBlob(dev->fd, blobs[1]);

	fill_lut(lut, LUT_SIZE, INVERT);
	for (i = 0; i < LUT_SIZE; i++) {
		r[i] = lut[i].red;
		g[i] = lut[i].green;
		b[i] = lut[i].blue;
	}
	check_int("legacy-set-gamma", 0,
		  drmModeCrtcSetGamma(dev->fd, pipe->crtc_id, LUT_SIZE, r, g, b) ? -errno : 0);
	check_int("legacy-gamma-inverts-frame", inverted(plain), kms_frame_pixel(crtc_dir, 10, 10));
	check("legacy-gamma-shows-as-gamma-lut",
	      !kms_prop_get(dev->fd, pipe->crtc_id, DRM_MODE_OBJECT_CRTC, "GAMMA_LUT", &blob) &&
	      blob != 0, "expected a GAMMA_LUT blob after drmModeCrtcSetGamma, got %llu",
	      (unsigned long long)blob);
	check("legacy-gamma-clears-degamma-and-ctm",
	      !kms_prop_get(dev->fd, pipe->crtc_id, DRM_MODE_OBJECT_CRTC, "DEGAMMA_LUT",
			    &degamma) && !degamma &&
	      !kms_prop_get(dev->fd, pipe->crtc_id, DRM_MODE_OBJECT_CRTC, "CTM", &ctm) && !ctm,
	      "expected DEGAMMA_LUT and CTM 0 after drmModeCrtcSetGamma, got %llu and %llu",
	      (unsigned long long)degamma, (unsigned long long)ctm);
	check_int("legacy-wrong-size-rejected", -EINVAL,
		  drmModeCrtcSetGamma(dev->fd, pipe->crtc_id, LUT_SIZE / 2, r, g, b) ? -errno : 0);
	check_int("lut-removed-after-legacy", 0, set_crtc_prop(dev, pipe, gamma_prop, 0));
	check_int("frame-restored-after-legacy", plain, kms_frame_pixel(crtc_dir, 10, 10));
}

/* The known answers, with a writeback job each. */
static void test_pipeline(struct kms_dev *dev, struct kms_pipe *pipe)
{
	/* R' = B, G' = R, B' = G. */
	static const uint64_t rotate[9] = { 0, 0, ONE, ONE, 0, 0, 0, ONE, 0 };
	/* 0.5 R - 0.25 G + 0.75 B; G - R (often negative); 2 B (often above one). */
	static const uint64_t mixed[9] = {
		ONE / 2, NEG | ONE / 4, 3 * ONE / 4,
		NEG | ONE, ONE, 0,
		0, 0, 2 * ONE,
	};
	/* More saturation, as a compositor's colour transform might: 1.2 and -0.1. */
	static const uint64_t saturate[9] = {
		0x133333333ULL, NEG | 0x19999999ULL, NEG | 0x19999999ULL,
		NEG | 0x19999999ULL, 0x133333333ULL, NEG | 0x19999999ULL,
		NEG | 0x19999999ULL, NEG | 0x19999999ULL, 0x133333333ULL,
	};
	static const struct colour cases[] = {
		{ "ctm-rotate", NONE, rotate, NONE },
		{ "ctm-negative-fraction-clamp", NONE, mixed, NONE },
		{ "degamma-ctm-gamma", CURVES, saturate, INVERT },
		{ "no-colour", NONE, NULL, NONE },
	};
	struct kms_fb fb, wb_fb;
	unsigned int i;

	require(kms_fb_create(dev->fd, W, H, DRM_FORMAT_XRGB16161616, 2, &fb) == 0 &&
		kms_fb_create(dev->fd, W, H, DRM_FORMAT_XRGB8888, 3, &wb_fb) == 0,
		"framebuffers");
	source = calloc((size_t)W * H, sizeof(*source));
	fill_source(dev->fd, &fb);
	require(kms_modeset(dev, pipe, &pipe->mode, &fb) == 0, "show the random frame");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		check_colour(dev, pipe, &cases[i], &wb_fb);
		/* All three stages are set now; the last case clears them. */
		if (cases[i].degamma != NONE)
			test_bad_blobs(dev, pipe, &cases[i]);
	}

	/* Detach the writeback connector again: the CRTC goes off later. */
	{
		drmModeAtomicReq *req = drmModeAtomicAlloc();

		require(req != NULL, "memory");
		drmModeAtomicAddProperty(req, wb.id, wb.crtc_id, 0);
		require(drmModeAtomicCommit(dev->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL) == 0,
			"detach the writeback connector");
		drmModeAtomicFree(req);
	}
	free(source);
	kms_fb_destroy(dev->fd, &wb_fb);
	kms_fb_destroy(dev->fd, &fb);
}

int main(int argc, char **argv)
{
	const char *driver = kms_driver_arg(argc, argv);
	struct kms_pipe pipe;
	struct kms_dev dev;
	struct kms_fb fb;
	long plain;

	watchdog(45);	/* before the manifest's 60 s */
	begin("setup");
	require(driver && !strcmp(driver, "flipkms"),
		"the colour stages and frame.ppm are flipkms's (usage: gamma flipkms)");
	require(kms_open(&dev, driver, KMS_CAP_ATOMIC) == 0, "open flipkms");
	require(drmSetClientCap(dev.fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1) == 0,
		"DRM_CLIENT_CAP_WRITEBACK_CONNECTORS");
	require(kms_pipes(&dev, &pipe, 1) == 1, "a pipe");
	require(kms_writeback_find(&dev, &pipe, &wb), "the pipe's writeback connector");
	require(kms_crtc_debugfs_dir(&dev, &pipe, crtc_dir, sizeof(crtc_dir)) == 0,
		"flipkms debugfs directory");
	degamma_prop = kms_prop_id(dev.fd, pipe.crtc_id, DRM_MODE_OBJECT_CRTC, "DEGAMMA_LUT");
	ctm_prop = kms_prop_id(dev.fd, pipe.crtc_id, DRM_MODE_OBJECT_CRTC, "CTM");
	gamma_prop = kms_prop_id(dev.fd, pipe.crtc_id, DRM_MODE_OBJECT_CRTC, "GAMMA_LUT");
	/* 640x480: small enough to compose quickly under TCG. */
	require(kms_mode_of_size(&dev, &pipe, W, H, &pipe.mode), "a 640x480 mode");
	require(kms_fb_create(dev.fd, W, H, DRM_FORMAT_XRGB8888, 1, &fb) == 0 &&
		kms_fb_fill(dev.fd, &fb, COLOUR) == 0, "framebuffer");
	require(kms_modeset(&dev, &pipe, &pipe.mode, &fb) == 0, "modeset");
	plain = kms_frame_pixel(crtc_dir, 10, 10);
	check_int("frame-without-lut", COLOUR, plain);

	test_properties(&dev, &pipe);
	test_atomic(&dev, &pipe, plain);
	test_legacy(&dev, &pipe, plain);
	test_pipeline(&dev, &pipe);

	kms_disable(&dev, &pipe);
	kms_fb_destroy(dev.fd, &fb);
	kms_close(&dev);
	return finish();
}
