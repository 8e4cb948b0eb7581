// SPDX-License-Identifier: MIT
/*
 * gamma: flipkms's CRTC gamma LUT, through both interfaces userspace has:
 *
 *   GAMMA_LUT / GAMMA_LUT_SIZE	atomic properties (256 entries)
 *   drmModeCrtcSetGamma		the legacy ioctl, mapped by the DRM core
 *					onto GAMMA_LUT
 *
 * The composed frame (frame.ppm) shows the LUT applied: identity leaves a
 * frame as it was, an inverting LUT inverts it, a LUT of the wrong size is
 * refused with EINVAL and changes nothing, and removing the LUT restores
 * the frame.
 *
 * usage: gamma flipkms
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm_fourcc.h>

#include "kms.h"

#define LUT_SIZE	256
#define COLOUR		0x20a0f0

static char crtc_dir[96];

enum ramp { IDENTITY, INVERT };

static void fill_lut(struct drm_color_lut *lut, int n, enum ramp ramp)
{
	int i;

	for (i = 0; i < n; i++) {
		uint16_t v = (uint32_t)i * 0xffff / (n - 1);

		if (ramp == INVERT)
			v = 0xffff - v;
		lut[i] = (struct drm_color_lut){ .red = v, .green = v, .blue = v };
	}
}

/* A blocking commit of GAMMA_LUT = @blob (0 removes the LUT); 0 or -errno. */
static int set_gamma_lut(struct kms_dev *dev, const struct kms_pipe *pipe, uint32_t blob)
{
	uint32_t prop = kms_prop_id(dev->fd, pipe->crtc_id, DRM_MODE_OBJECT_CRTC, "GAMMA_LUT");
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret;

	if (!req || !prop) {
		drmModeAtomicFree(req);
		return -ENOENT;
	}
	drmModeAtomicAddProperty(req, pipe->crtc_id, prop, blob);
	ret = drmModeAtomicCommit(dev->fd, req, 0, NULL) ? -errno : 0;
	drmModeAtomicFree(req);
	return ret;
}

/* GAMMA_LUT set to a fresh blob of @n entries of @ramp; 0 or -errno. */
static int commit_ramp(struct kms_dev *dev, const struct kms_pipe *pipe, int n, enum ramp ramp)
{
	struct drm_color_lut *lut = calloc(n, sizeof(*lut));
	uint32_t blob = 0;
	int ret;

	if (!lut)
		return -ENOMEM;
	fill_lut(lut, n, ramp);
	ret = drmModeCreatePropertyBlob(dev->fd, lut, n * sizeof(*lut), &blob) ? -errno : 0;
	free(lut);
	if (ret)
		return ret;
	ret = set_gamma_lut(dev, pipe, blob);
	drmModeDestroyPropertyBlob(dev->fd, blob);
	return ret;
}

static long inverted(long rgb)
{
	return rgb < 0 ? rgb : ~rgb & 0xffffff;
}

static void test_properties(struct kms_dev *dev, const struct kms_pipe *pipe)
{
	drmModeCrtc *crtc = drmModeGetCrtc(dev->fd, pipe->crtc_id);
	uint64_t size = 0;

	check_int("gamma-lut-size-property",
		  LUT_SIZE, kms_prop_get(dev->fd, pipe->crtc_id, DRM_MODE_OBJECT_CRTC,
					 "GAMMA_LUT_SIZE", &size) ? -1 : (long long)size);
	check_int("legacy-gamma-size", LUT_SIZE, crtc ? crtc->gamma_size : -1);
	check("no-degamma-or-ctm",
	      !kms_prop_id(dev->fd, pipe->crtc_id, DRM_MODE_OBJECT_CRTC, "DEGAMMA_LUT") &&
	      !kms_prop_id(dev->fd, pipe->crtc_id, DRM_MODE_OBJECT_CRTC, "CTM"),
	      "expected only GAMMA_LUT, the composer applies nothing else");
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
		  set_gamma_lut(dev, pipe, pipe->mode_blob));
	check_int("lut-of-unknown-blob-rejected", -EINVAL, set_gamma_lut(dev, pipe, 0x7fffffff));

	check_int("lut-removed", 0, set_gamma_lut(dev, pipe, 0));
	check_int("removing-lut-restores-frame", plain, kms_frame_pixel(crtc_dir, 10, 10));
}

static void test_legacy(struct kms_dev *dev, const struct kms_pipe *pipe, long plain)
{
	uint16_t r[LUT_SIZE], g[LUT_SIZE], b[LUT_SIZE];
	struct drm_color_lut lut[LUT_SIZE];
	uint64_t blob = 0;
	int i;

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
	check_int("legacy-wrong-size-rejected", -EINVAL,
		  drmModeCrtcSetGamma(dev->fd, pipe->crtc_id, LUT_SIZE / 2, r, g, b) ? -errno : 0);
	check_int("lut-removed-after-legacy", 0, set_gamma_lut(dev, pipe, 0));
	check_int("frame-restored-after-legacy", plain, kms_frame_pixel(crtc_dir, 10, 10));
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
		"the gamma LUT and frame.ppm are flipkms's (usage: gamma flipkms)");
	require(kms_open(&dev, driver, KMS_CAP_ATOMIC) == 0, "open flipkms");
	require(kms_pipes(&dev, &pipe, 1) == 1, "a pipe");
	require(kms_crtc_debugfs_dir(&dev, &pipe, crtc_dir, sizeof(crtc_dir)) == 0,
		"flipkms debugfs directory");
	require(kms_fb_create(dev.fd, pipe.mode.hdisplay, pipe.mode.vdisplay, DRM_FORMAT_XRGB8888,
			      1, &fb) == 0 && kms_fb_fill(dev.fd, &fb, COLOUR) == 0,
		"framebuffer");
	require(kms_modeset(&dev, &pipe, NULL, &fb) == 0, "modeset");
	plain = kms_frame_pixel(crtc_dir, 10, 10);
	check_int("frame-without-lut", COLOUR, plain);

	test_properties(&dev, &pipe);
	test_atomic(&dev, &pipe, plain);
	test_legacy(&dev, &pipe, plain);

	kms_disable(&dev, &pipe);
	kms_fb_destroy(dev.fd, &fb);
	kms_close(&dev);
	return finish();
}
