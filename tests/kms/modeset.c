// SPDX-License-Identifier: MIT
/*
 * modeset: the driver exposes a connected connector with the usual modes,
 * and an atomic modeset of its preferred mode with a dumb-buffer XRGB8888
 * framebuffer lights the pipe up (the CRTC reports the mode and framebuffer
 * and vblanks tick); disabling turns it off (no mode, no vblanks) and enabling
 * it again brings it back.
 *
 * usage: modeset DRIVER
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <drm_fourcc.h>

#include "kms.h"

/* 0 if a vblank of @pipe passes within the wait, else -errno. */
static int wait_one_vblank(int fd, const struct kms_pipe *pipe)
{
	drmVBlank vbl;

	memset(&vbl, 0, sizeof(vbl));
	vbl.request.type = DRM_VBLANK_RELATIVE | kms_vblank_crtc_bits(pipe->crtc_index);
	vbl.request.sequence = 1;
	return drmWaitVBlank(fd, &vbl) ? -errno : 0;
}

/* The CRTC's legacy view agrees with the atomic state we committed. */
static void check_crtc_shows(int fd, const struct kms_pipe *pipe, const struct kms_fb *fb,
			     const char *name)
{
	drmModeCrtc *crtc = drmModeGetCrtc(fd, pipe->crtc_id);
	uint64_t active = 0;

	kms_prop_get(fd, pipe->crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE", &active);
	if (!crtc) {
		not_ok(name, "expected drmModeGetCrtc to work, got %s", errno_name(errno));
		return;
	}
	check(name, crtc->mode_valid && crtc->mode.hdisplay == pipe->mode.hdisplay &&
		    crtc->mode.vdisplay == pipe->mode.vdisplay &&
		    crtc->mode.clock == pipe->mode.clock && crtc->buffer_id == fb->fb_id &&
		    active == 1,
	      "expected active %ux%u clock %u fb %u, got active %llu mode_valid %d %ux%u clock %u fb %u",
	      pipe->mode.hdisplay, pipe->mode.vdisplay, pipe->mode.clock, fb->fb_id,
	      (unsigned long long)active, crtc->mode_valid, crtc->mode.hdisplay,
	      crtc->mode.vdisplay, crtc->mode.clock, crtc->buffer_id);
	drmModeFreeCrtc(crtc);
}

int main(int argc, char **argv)
{
	struct kms_dev dev;
	struct kms_pipe pipe;
	struct kms_fb fb;
	drmModeCrtc *crtc;
	uint64_t active = 1;
	int ret;

	watchdog(40);
	begin("open-card");
	require(kms_open(&dev, kms_driver_arg(argc, argv), KMS_CAP_ATOMIC) == 0, "open card");

	begin("connector-connected");
	if (!check("connector-connected", kms_pipes(&dev, &pipe, 1) == 1,
		   "expected a connected connector with modes and a CRTC, got none"))
		return finish();
	check("connector-has-1024x768", kms_connector_has_mode(dev.fd, pipe.connector_id, 1024, 768),
	      "expected a 1024x768 mode, got none");
	check("connector-has-1920x1080", kms_connector_has_mode(dev.fd, pipe.connector_id, 1920, 1080),
	      "expected a 1920x1080 mode, got none");
	check("connector-has-preferred-mode", pipe.has_preferred,
	      "expected a mode flagged preferred, got none (using %s)", pipe.mode.name);
	comment("connector %u, CRTC %u (index %d), primary plane %u, preferred %s@%u clock %u",
		pipe.connector_id, pipe.crtc_id, pipe.crtc_index, pipe.primary_id, pipe.mode.name,
		pipe.mode.vrefresh, pipe.mode.clock);

	begin("dumb-fb-xrgb8888");
	ret = kms_fb_create(dev.fd, pipe.mode.hdisplay, pipe.mode.vdisplay, DRM_FORMAT_XRGB8888,
			    0, &fb);
	if (!check("dumb-fb-xrgb8888", ret == 0, "expected a framebuffer, got %s",
		   errno_name(-ret)))
		return finish();

	begin("modeset-preferred");
	ret = kms_modeset(&dev, &pipe, NULL, &fb);
	if (!check("modeset-preferred", ret == 0, "expected the commit to succeed, got %s",
		   errno_name(-ret)))
		return finish();
	check_crtc_shows(dev.fd, &pipe, &fb, "modeset-crtc-shows-mode-and-fb");
	ret = wait_one_vblank(dev.fd, &pipe);
	check("modeset-vblanks-tick", ret == 0, "expected a vblank, got %s", errno_name(-ret));

	begin("disable");
	ret = kms_disable(&dev, &pipe);
	check("disable", ret == 0, "expected the commit to succeed, got %s", errno_name(-ret));
	crtc = drmModeGetCrtc(dev.fd, pipe.crtc_id);
	kms_prop_get(dev.fd, pipe.crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE", &active);
	check("disable-crtc-has-no-mode", crtc && !crtc->mode_valid && !crtc->buffer_id &&
					     active == 0,
	      "expected inactive, no mode, no fb, got active %llu mode_valid %d fb %u",
	      (unsigned long long)active, crtc ? crtc->mode_valid : -1,
	      crtc ? crtc->buffer_id : 0);
	drmModeFreeCrtc(crtc);
	ret = wait_one_vblank(dev.fd, &pipe);
	check("disable-stops-vblanks", ret == -EINVAL,
	      "expected DRM_IOCTL_WAIT_VBLANK to fail with EINVAL, got %s", errno_name(-ret));

	begin("re-enable");
	ret = kms_modeset(&dev, &pipe, NULL, &fb);
	check("re-enable", ret == 0, "expected the commit to succeed, got %s", errno_name(-ret));
	check_crtc_shows(dev.fd, &pipe, &fb, "re-enable-crtc-shows-mode-and-fb");
	ret = wait_one_vblank(dev.fd, &pipe);
	check("re-enable-vblanks-tick", ret == 0, "expected a vblank, got %s", errno_name(-ret));

	kms_disable(&dev, &pipe);
	kms_fb_destroy(dev.fd, &fb);
	kms_close(&dev);
	return finish();
}
