// SPDX-License-Identifier: GPL-2.0+
/*
 * Outputs: a virtual encoder and connector per CRTC. The connector offers
 * the DMT modes from 1024x768 up, 1920x1080 preferred, plus CVT modes up to
 * 3840x2160 and 1920x1080 at the other rates compositors are tested at.
 */

#include <drm/drm_atomic_helper.h>
#include <drm/drm_edid.h>
#include <drm/drm_modes.h>
#include <drm/drm_probe_helper.h>

#include "flipkms_drv.h"

/* Modes beyond the DMT table: 1920x1080 at other rates, 2560x1440, 4K. */
static const struct {
	int width, height, refresh;
} flipkms_extra_modes[] = {
	{ 1920, 1080, 30 }, { 1920, 1080, 120 }, { 1920, 1080, 144 },
	{ 1920, 1080, 240 }, { 2560, 1440, 60 }, { 3840, 2160, 30 },
	{ 3840, 2160, 60 },
};

static inline struct flipkms_output *connector_to_flipkms_output(struct drm_connector *connector)
{
	return container_of(connector, struct flipkms_output, connector);
}

/*
 * The preferred mode is 1920x1080 at the output's refresh rate: DMT's at
 * 60 Hz, CVT with reduced blanking at any other rate set through debugfs.
 */
static int flipkms_connector_add_preferred(struct drm_connector *connector)
{
	u32 refresh = READ_ONCE(connector_to_flipkms_output(connector)->refresh);
	struct drm_display_mode *mode;

	if (refresh == 60) {
		drm_set_preferred_mode(connector, 1920, 1080);
		return 0;
	}

	mode = drm_cvt_mode(connector->dev, 1920, 1080, refresh, true, false,
			    false);
	if (!mode)
		return 0;
	mode->type = DRM_MODE_TYPE_DRIVER | DRM_MODE_TYPE_PREFERRED;
	drm_mode_probed_add(connector, mode);
	return 1;
}

static int flipkms_connector_get_modes(struct drm_connector *connector)
{
	struct drm_display_mode *mode;
	int count, i;

	count = drm_add_modes_noedid(connector, 3840, 2160);
	count += flipkms_connector_add_preferred(connector);

	for (i = 0; i < ARRAY_SIZE(flipkms_extra_modes); i++) {
		mode = drm_cvt_mode(connector->dev, flipkms_extra_modes[i].width,
				    flipkms_extra_modes[i].height,
				    flipkms_extra_modes[i].refresh, true, false,
				    false);
		if (!mode)
			continue;
		mode->type = DRM_MODE_TYPE_DRIVER;
		drm_mode_probed_add(connector, mode);
		count++;
	}

	return count;
}

/* The offered list starts at 1024x768; user modes go through the CRTC. */
static enum drm_mode_status flipkms_connector_mode_valid(struct drm_connector *connector,
							 struct drm_display_mode *mode)
{
	if (mode->hdisplay < 1024 || mode->vdisplay < 768)
		return MODE_BAD;
	return MODE_OK;
}

static const struct drm_connector_helper_funcs flipkms_connector_helper_funcs = {
	.get_modes = flipkms_connector_get_modes,
	.mode_valid = flipkms_connector_mode_valid,
};

static enum drm_connector_status flipkms_connector_detect(struct drm_connector *connector,
							  bool force)
{
	return READ_ONCE(connector_to_flipkms_output(connector)->connected) ?
	       connector_status_connected : connector_status_disconnected;
}

static const struct drm_connector_funcs flipkms_connector_funcs = {
	.detect = flipkms_connector_detect,
	.fill_modes = drm_helper_probe_single_connector_modes,
	.reset = drm_atomic_helper_connector_reset,
	.atomic_duplicate_state = drm_atomic_helper_connector_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_connector_destroy_state,
};

/**
 * flipkms_output_init() - the encoder and connector of an output
 * @out:	the output, whose CRTC is initialised
 * @index:	its index
 *
 * Returns 0 or a negative errno.
 */
int flipkms_output_init(struct flipkms_output *out, unsigned int index)
{
	struct drm_device *drm = out->crtc.dev;
	int ret;

	ret = drmm_encoder_init(drm, &out->encoder, NULL,
				DRM_MODE_ENCODER_VIRTUAL, NULL);
	if (ret)
		return ret;
	out->encoder.possible_crtcs = drm_crtc_mask(&out->crtc);

	ret = drmm_connector_init(drm, &out->connector,
				  &flipkms_connector_funcs,
				  DRM_MODE_CONNECTOR_VIRTUAL, NULL);
	if (ret)
		return ret;
	drm_connector_helper_add(&out->connector,
				 &flipkms_connector_helper_funcs);

	return drm_connector_attach_encoder(&out->connector, &out->encoder);
}
