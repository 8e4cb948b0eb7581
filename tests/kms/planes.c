// SPDX-License-Identifier: MIT
/*
 * planes: every plane of the pipe (primary, and overlay and cursor if there
 * are any) shows a framebuffer of each format it advertises, in an atomic
 * commit; the cursor does so at the size the driver advertises with
 * DRM_CAP_CURSOR_WIDTH/HEIGHT, and the legacy drmModeSetCursor() shows and
 * hides a buffer of that size and one of 64x64 (DRM's default cursor size).
 *
 * usage: planes DRIVER
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <drm_fourcc.h>

#include "kms.h"

#define OVERLAY_SIZE	256

/* What kms_fb_create() draws; YCbCr is tests/kms/formats.c's. */
static const uint32_t known[] = {
	DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_XRGB16161616,
	DRM_FORMAT_ARGB16161616, DRM_FORMAT_RGB565,
	DRM_FORMAT_XBGR8888, DRM_FORMAT_ABGR8888, DRM_FORMAT_RGBX8888, DRM_FORMAT_RGBA8888,
	DRM_FORMAT_BGRX8888, DRM_FORMAT_BGRA8888, DRM_FORMAT_XRGB2101010,
	DRM_FORMAT_ARGB2101010, DRM_FORMAT_XBGR2101010, DRM_FORMAT_ABGR2101010,
	DRM_FORMAT_RGB888, DRM_FORMAT_BGR888, DRM_FORMAT_XBGR16161616,
	DRM_FORMAT_ABGR16161616, DRM_FORMAT_XRGB16161616F, DRM_FORMAT_ARGB16161616F,
	DRM_FORMAT_BGR565, DRM_FORMAT_R8,
};

static bool is_known(uint32_t format)
{
	unsigned int i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i] == format)
			return true;
	return false;
}

static const char *fourcc(uint32_t f)
{
	static char s[5];

	snprintf(s, sizeof(s), "%c%c%c%c", f & 0xff, (f >> 8) & 0xff, (f >> 16) & 0xff, f >> 24);
	return s;
}

static int commit_plane(struct kms_dev *dev, const struct kms_pipe *pipe, uint32_t plane,
			const struct kms_plane_props *props, const struct kms_fb *fb)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret;

	require(req != NULL, "drmModeAtomicAlloc");
	ret = kms_req_plane(req, plane, props, pipe->crtc_id, fb, -1);
	if (!ret)
		ret = drmModeAtomicCommit(dev->fd, req, 0, NULL) ? -errno : 0;
	drmModeAtomicFree(req);
	return ret;
}

static void test_plane(struct kms_dev *dev, const struct kms_pipe *pipe, const char *type,
		       uint32_t plane_id, uint32_t w, uint32_t h)
{
	struct kms_plane_props props;
	drmModePlane *plane = drmModeGetPlane(dev->fd, plane_id);
	struct kms_fb fb;
	char name[96];
	uint32_t i;
	int ret;

	require(plane != NULL, "drmModeGetPlane");
	if (plane_id == pipe->primary_id)
		props = pipe->primary_props;
	else
		props = (struct kms_plane_props){
			kms_prop_id(dev->fd, plane_id, DRM_MODE_OBJECT_PLANE, "FB_ID"),
			kms_prop_id(dev->fd, plane_id, DRM_MODE_OBJECT_PLANE, "CRTC_ID"),
			0,
			kms_prop_id(dev->fd, plane_id, DRM_MODE_OBJECT_PLANE, "SRC_X"),
			kms_prop_id(dev->fd, plane_id, DRM_MODE_OBJECT_PLANE, "SRC_Y"),
			kms_prop_id(dev->fd, plane_id, DRM_MODE_OBJECT_PLANE, "SRC_W"),
			kms_prop_id(dev->fd, plane_id, DRM_MODE_OBJECT_PLANE, "SRC_H"),
			kms_prop_id(dev->fd, plane_id, DRM_MODE_OBJECT_PLANE, "CRTC_X"),
			kms_prop_id(dev->fd, plane_id, DRM_MODE_OBJECT_PLANE, "CRTC_Y"),
			kms_prop_id(dev->fd, plane_id, DRM_MODE_OBJECT_PLANE, "CRTC_W"),
			kms_prop_id(dev->fd, plane_id, DRM_MODE_OBJECT_PLANE, "CRTC_H"),
		};
	for (i = 0; i < plane->count_formats; i++) {
		uint32_t f = plane->formats[i];

		snprintf(name, sizeof(name), "%s-shows-%s-%ux%u", type, fourcc(f), w, h);
		if (!is_known(f)) {
			skip(name, "plane %u advertises %s, which this test cannot draw (add it to known[] and kms_fb_create())",
			     plane_id, fourcc(f));
			continue;
		}
		begin(name);
		ret = kms_fb_create(dev->fd, w, h, f, i, &fb);
		if (ret) {
			not_ok(name, "expected a framebuffer, got %s", errno_name(-ret));
			continue;
		}
		ret = commit_plane(dev, pipe, plane_id, &props, &fb);
		check(name, ret == 0, "expected the commit to succeed, got %s", errno_name(-ret));
		/* The primary keeps its last framebuffer until the pipe is disabled. */
		if (plane_id != pipe->primary_id)
			commit_plane(dev, pipe, plane_id, &props, NULL);
		kms_fb_destroy(dev->fd, &fb);
	}
	drmModeFreePlane(plane);
}

/* drmModeSetCursor() shows a @w x @h ARGB buffer, then hides the cursor. */
static void legacy_cursor(struct kms_dev *dev, const struct kms_pipe *pipe, const char *name,
			  uint32_t w, uint32_t h)
{
	uint32_t handle = 0, pitch;
	uint64_t size;
	int ret;

	begin(name);
	require(drmModeCreateDumbBuffer(dev->fd, w, h, 32, 0, &handle, &pitch, &size) == 0,
		"cursor dumb buffer");
	ret = drmModeSetCursor(dev->fd, pipe->crtc_id, handle, w, h) ? -errno : 0;
	if (!ret)
		ret = drmModeSetCursor(dev->fd, pipe->crtc_id, 0, 0, 0) ? -errno : 0;
	check(name, ret == 0, "expected drmModeSetCursor(%ux%u) and hiding it to succeed, got %s",
	      w, h, errno_name(-ret));
	drmModeDestroyDumbBuffer(dev->fd, handle);
}

int main(int argc, char **argv)
{
	uint64_t cw = 64, ch = 64;
	struct kms_pipe pipe;
	struct kms_dev dev;
	drmModeRes *res;
	struct kms_fb fb;
	uint32_t ow, oh;

	watchdog(40);
	begin("setup");
	require(kms_open(&dev, kms_driver_arg(argc, argv), KMS_CAP_ATOMIC) == 0, "open card");
	require(kms_pipes(&dev, &pipe, 1) == 1, "a connected pipe");
	require(kms_fb_create(dev.fd, pipe.mode.hdisplay, pipe.mode.vdisplay, DRM_FORMAT_XRGB8888,
			      0, &fb) == 0, "dumb framebuffer");
	require(kms_modeset(&dev, &pipe, NULL, &fb) == 0, "modeset");
	res = drmModeGetResources(dev.fd);
	require(res != NULL, "drmModeGetResources");
	ow = res->min_width > OVERLAY_SIZE ? res->min_width : OVERLAY_SIZE;
	oh = res->min_height > OVERLAY_SIZE ? res->min_height : OVERLAY_SIZE;
	comment("%s: framebuffers %ux%u..%ux%u, planes primary %u overlay %u cursor %u",
		dev.driver, res->min_width, res->min_height, res->max_width, res->max_height,
		pipe.primary_id, pipe.overlay_id, pipe.cursor_id);
	drmModeFreeResources(res);

	test_plane(&dev, &pipe, "primary", pipe.primary_id, pipe.mode.hdisplay,
		   pipe.mode.vdisplay);
	if (pipe.overlay_id)
		test_plane(&dev, &pipe, "overlay", pipe.overlay_id, ow, oh);
	else
		skip("overlay", "%s has no overlay plane for CRTC %u", dev.driver, pipe.crtc_id);

	if (!pipe.cursor_id) {
		skip("cursor", "%s has no cursor plane for CRTC %u", dev.driver, pipe.crtc_id);
	} else {
		drmGetCap(dev.fd, DRM_CAP_CURSOR_WIDTH, &cw);
		drmGetCap(dev.fd, DRM_CAP_CURSOR_HEIGHT, &ch);
		test_plane(&dev, &pipe, "cursor", pipe.cursor_id, (uint32_t)cw, (uint32_t)ch);

		legacy_cursor(&dev, &pipe, "legacy-set-cursor-cap-size", (uint32_t)cw, (uint32_t)ch);
		/* DRM's default cursor size, and what legacy clients use. */
		legacy_cursor(&dev, &pipe, "legacy-set-cursor-64x64", 64, 64);
	}

	kms_disable(&dev, &pipe);
	kms_fb_destroy(dev.fd, &fb);
	kms_close(&dev);
	return finish();
}
