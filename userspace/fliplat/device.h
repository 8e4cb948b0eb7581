/* SPDX-License-Identifier: MIT */
/*
 * fliplat's view of a KMS device: the outputs it flips on, each a connector
 * with a CRTC, its primary plane, a mode and two framebuffers.
 */
#ifndef FLIPLAT_DEVICE_H
#define FLIPLAT_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include <xf86drmMode.h>

#include "options.h"

struct fl_fb {
	uint32_t fb_id, handle, pitch;
	uint64_t size;
};

/* What an output's objects showed before fliplat set its mode, to put back. */
struct fl_saved {
	bool valid;
	uint64_t conn_crtc, active;
	/*
	 * The mode itself: its blob may be the kernel's (fbdev's), freed once
	 * our modeset replaces it, so restoring makes a blob of its own.
	 */
	bool has_mode;
	drmModeModeInfo mode;
	uint64_t fb, plane_crtc, src[4], dst[4];
	drmModeCrtc *crtc;	/* without atomic: drmModeGetCrtc() */
};

struct fl_output {
	uint32_t connector_id, crtc_id, plane_id;
	int crtc_index;
	char connector[32];
	drmModeModeInfo mode;
	struct fl_fb fb[2];
	/* Property ids; those of atomic only are 0 for --legacy. */
	uint32_t conn_crtc_id;
	uint32_t crtc_mode_id, crtc_active, crtc_out_fence_ptr;
	uint32_t plane_fb_id, plane_crtc_id, plane_in_fence_fd;
	uint32_t plane_src[4], plane_crtc[4];	/* x, y, w, h */
	uint32_t mode_blob;
	/* --vrr: the CRTC's VRR_ENABLED and the range refreshes follow. */
	uint32_t crtc_vrr_enabled;
	unsigned int vrr_min_hz, vrr_max_hz;
	struct fl_saved saved;
};

struct fl_device {
	int fd;
	char path[64];
	char driver[64], desc[128];
	bool atomic;
	bool modeset;		/* the outputs show our framebuffers: restore them */
	bool unplugged;		/* ENODEV: the device is gone, nothing to restore */
	unsigned int noutputs;
	struct fl_output outputs[FL_MAX_CRTCS];
};

/*
 * Opens the device @o names (or finds one), becomes DRM master, picks the
 * outputs, modes and planes @o asks for and makes their framebuffers.
 * Returns FL_EXIT_OK, or another FL_EXIT_* after printing why.
 */
int fl_device_open(struct fl_device *dev, const struct fl_options *o);
/*
 * Sets every output's mode with its first framebuffer, after saving what the
 * outputs showed; FL_EXIT_*.
 */
int fl_device_modeset(struct fl_device *dev, const struct fl_options *o);
/* Puts back what the outputs showed before fl_device_modeset(), then closes. */
void fl_device_close(struct fl_device *dev);

/* One frame's duration of @mode in ns, from its timings. */
int64_t fl_mode_period_ns(const drmModeModeInfo *mode);

#endif /* FLIPLAT_DEVICE_H */
