// SPDX-License-Identifier: MIT
/*
 * addfb: a framebuffer no plane can show is refused when it is made, with
 * EINVAL, whether or not the client passes DRM_MODE_FB_MODIFIERS (as
 * mainline's drm_gem_fb_init_with_funcs() does for every atomic driver),
 * rather than accepted and failing the first commit that uses it:
 *
 *   yuyv-without-modifiers	ADDFB2 of YUYV, no modifier flag
 *   legacy-depth-8/15	legacy ADDFB of C8 and XRGB1555
 *   addfb25-bad-modifier	XRGB8888 with DRM_FORMAT_MOD_INVALID and the
 *				flag (IGT kms_addfb_basic's case)
 *
 * and the formats the planes list are still taken: XRGB8888 and NV12 by
 * ADDFB2 with and without the flag, legacy depth 24, 16 and 30. No framebuffer is left
 * behind by a refused call.
 *
 * With -i and vkms loaded as well (tests/kms/with-module.sh vkms -- ...),
 * a buffer of vkms's imported into flipkms through PRIME makes no
 * framebuffer either (imported-dma-buf-refused): flipkms keeps its
 * framebuffers mapped and composes them from system memory, which it does
 * for its own shmem objects only; another driver's dma-buf would stay
 * pinned and mapped for as long as the framebuffer lives.
 *
 * usage: addfb [-i] flipkms
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

#define W	64
#define H	64

static uint32_t handle, pitch;

/* ADDFB2 of @format (one buffer for every colour plane); 0 or -errno. */
static int addfb2(int fd, uint32_t format, int nplanes, const uint64_t *modifier,
		  uint32_t *id)
{
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };
	uint64_t mods[4] = { 0 };
	int i;

	for (i = 0; i < nplanes; i++) {
		handles[i] = handle;
		pitches[i] = pitch;
		offsets[i] = (uint32_t)i * pitch * H;
		if (modifier)
			mods[i] = *modifier;
	}
	*id = 0;
	if (drmModeAddFB2WithModifiers(fd, W, H, format, handles, pitches, offsets,
				       modifier ? mods : NULL, id,
				       modifier ? DRM_MODE_FB_MODIFIERS : 0))
		return -errno;
	return 0;
}

/* Legacy ADDFB of @depth and @bpp; 0 or -errno. */
static int addfb(int fd, uint8_t depth, uint8_t bpp, uint32_t *id)
{
	*id = 0;
	if (drmModeAddFB(fd, W, H, depth, bpp, pitch, handle, id))
		return -errno;
	return 0;
}

/* @ret of a call that made @id (read after the call), against @want. */
static void expect(int fd, const char *name, int ret, const uint32_t *id, int want)
{
	check(name, ret == want, "expected %s, got %s", want ? errno_name(-want) : "success",
	      ret ? errno_name(-ret) : "success");
	if (!ret && *id)
		drmModeRmFB(fd, *id);
}

int main(int argc, char **argv)
{
	const char *driver;
	const uint64_t invalid = DRM_FORMAT_MOD_INVALID, linear = DRM_FORMAT_MOD_LINEAR;
	struct kms_dev dev;
	uint64_t size;
	bool import = false;
	uint32_t id;
	int opt;

	while ((opt = getopt(argc, argv, "i")) != -1) {
		if (opt != 'i') {
			fprintf(stderr, "usage: %s [-i] flipkms\n", argv[0]);
			return 2;
		}
		import = true;
	}
	driver = kms_driver_arg(argc, argv);
	watchdog(20);
	begin("setup");
	require(driver && !strcmp(driver, "flipkms"), "usage: addfb flipkms");
	require(kms_open(&dev, driver, KMS_CAP_ATOMIC) == 0, "open flipkms");
	/* Room for two planes of 64 x 64 at 4 bytes a pixel. */
	require(drmModeCreateDumbBuffer(dev.fd, W, 2 * H, 32, 0, &handle, &pitch, &size) == 0,
		"a dumb buffer");

	begin("refused");
	expect(dev.fd, "yuyv-without-modifiers",
	       addfb2(dev.fd, DRM_FORMAT_YUYV, 1, NULL, &id), &id, -EINVAL);
	expect(dev.fd, "yuyv-linear-modifier",
	       addfb2(dev.fd, DRM_FORMAT_YUYV, 1, &linear, &id), &id, -EINVAL);
	expect(dev.fd, "legacy-depth-8", addfb(dev.fd, 8, 8, &id), &id, -EINVAL);
	expect(dev.fd, "legacy-depth-15", addfb(dev.fd, 15, 16, &id), &id, -EINVAL);
	expect(dev.fd, "addfb25-bad-modifier",
	       addfb2(dev.fd, DRM_FORMAT_XRGB8888, 1, &invalid, &id), &id, -EINVAL);

	begin("taken");
	expect(dev.fd, "xrgb8888-without-modifiers",
	       addfb2(dev.fd, DRM_FORMAT_XRGB8888, 1, NULL, &id), &id, 0);
	expect(dev.fd, "xrgb8888-linear-modifier",
	       addfb2(dev.fd, DRM_FORMAT_XRGB8888, 1, &linear, &id), &id, 0);
	expect(dev.fd, "legacy-depth-24", addfb(dev.fd, 24, 32, &id), &id, 0);
	expect(dev.fd, "legacy-depth-16", addfb(dev.fd, 16, 16, &id), &id, 0);
	expect(dev.fd, "legacy-depth-30", addfb(dev.fd, 30, 32, &id), &id, 0);
	expect(dev.fd, "nv12-without-modifiers",
	       addfb2(dev.fd, DRM_FORMAT_NV12, 2, NULL, &id), &id, 0);
	expect(dev.fd, "nv12-linear-modifier",
	       addfb2(dev.fd, DRM_FORMAT_NV12, 2, &linear, &id), &id, 0);

	begin("imported-dma-buf-refused");
	if (import) {
		struct kms_dev vkms;
		uint32_t vh, vpitch, imported;
		uint64_t vsize;
		int fd, ret;

		if (kms_open(&vkms, "vkms", 0)) {
			not_ok("imported-dma-buf-refused", "no vkms card to export a buffer");
		} else {
			require(drmModeCreateDumbBuffer(vkms.fd, W, H, 32, 0, &vh, &vpitch,
							&vsize) == 0 &&
				drmPrimeHandleToFD(vkms.fd, vh, DRM_CLOEXEC, &fd) == 0 &&
				drmPrimeFDToHandle(dev.fd, fd, &imported) == 0,
				"a vkms buffer imported into flipkms");
			{
				uint32_t handles[4] = { imported }, pitches[4] = { vpitch };
				uint32_t offsets[4] = { 0 };

				id = 0;
				ret = drmModeAddFB2(dev.fd, W, H, DRM_FORMAT_XRGB8888, handles,
						    pitches, offsets, &id, 0) ? -errno : 0;
			}
			expect(dev.fd, "imported-dma-buf-refused", ret, &id, -EINVAL);
			drmCloseBufferHandle(dev.fd, imported);
			close(fd);
			drmModeDestroyDumbBuffer(vkms.fd, vh);
			kms_close(&vkms);
		}
	}

	begin("nothing-left-behind");
	{
		drmModeRes *res = drmModeGetResources(dev.fd);

		check("nothing-left-behind", res && res->count_fbs == 0,
		      "expected no framebuffer of this client, got %d", res ? res->count_fbs : -1);
		drmModeFreeResources(res);
	}
	drmModeDestroyDumbBuffer(dev.fd, handle);
	kms_close(&dev);
	return finish();
}
