// SPDX-License-Identifier: GPL-2.0+
/*
 * Outputs: a virtual encoder and connector per CRTC. Each connector has an
 * EDID of its own (flipkms_edid.c) and offers the DMT modes from 640x480
 * up to 3840x2160, plus CVT modes up to 3840x2160 and 1920x1080 at the
 * other rates compositors are tested at. The preferred mode's size is a
 * module parameter, its rate the output's refresh_hz. An EDID set through
 * the DRM core's debugfs edid_override stands for the whole monitor: the
 * connector then offers its modes only.
 */

#include <linux/module.h>

#include <drm/drm_atomic_helper.h>
#include <drm/drm_edid.h>
#include <drm/drm_modes.h>
#include <drm/drm_probe_helper.h>

#include "flipkms_compat.h"
#include "flipkms_drv.h"

#define FLIPKMS_MODES_MIN_WIDTH		640
#define FLIPKMS_MODES_MIN_HEIGHT	480
#define FLIPKMS_MODES_MAX_WIDTH		3840
#define FLIPKMS_MODES_MAX_HEIGHT	2160

static char *preferred_mode = "1920x1080";
module_param(preferred_mode, charp, 0444);
MODULE_PARM_DESC(preferred_mode,
		 "Size of every output's preferred mode, WxH from 640x480 to 3840x2160 (default 1920x1080)");

static unsigned int preferred_width, preferred_height;

/* Modes beyond the DMT table: 1920x1080 at other rates, 2560x1440, 4K. */
static const struct {
	int width, height, refresh;
} flipkms_extra_modes[] = {
	{ 1920, 1080, 30 }, { 1920, 1080, 120 }, { 1920, 1080, 144 },
	{ 1920, 1080, 240 }, { 2560, 1440, 60 }, { 3840, 2160, 30 },
	{ 3840, 2160, 60 },
};

/**
 * flipkms_output_parse_params() - check the outputs' module parameters
 *
 * Returns 0, or -EINVAL with a message for a preferred_mode that is not
 * WxH within the offered range.
 */
int flipkms_output_parse_params(void)
{
	unsigned int w, h;
	char end;

	if (sscanf(preferred_mode, "%ux%u%c", &w, &h, &end) != 2 ||
	    w < FLIPKMS_MODES_MIN_WIDTH || w > FLIPKMS_MODES_MAX_WIDTH ||
	    h < FLIPKMS_MODES_MIN_HEIGHT || h > FLIPKMS_MODES_MAX_HEIGHT) {
		pr_err("flipkms: preferred_mode must be WxH from %ux%u to %ux%u, not '%s'\n",
		       FLIPKMS_MODES_MIN_WIDTH, FLIPKMS_MODES_MIN_HEIGHT,
		       FLIPKMS_MODES_MAX_WIDTH, FLIPKMS_MODES_MAX_HEIGHT, preferred_mode);
		return -EINVAL;
	}
	preferred_width = w;
	preferred_height = h;
	return 0;
}

static inline struct flipkms_output *connector_to_flipkms_output(struct drm_connector *connector)
{
	return container_of(connector, struct flipkms_output, connector);
}

/*
 * The preferred size at @refresh: DMT's mode if the table has one (60 Hz),
 * else CVT with reduced blanking, which rounds the width down to a
 * multiple of 8.
 */
static struct drm_display_mode *flipkms_preferred(struct drm_device *drm,
						  u32 refresh)
{
	struct drm_display_mode *mode = NULL;

	if (refresh == 60)
		mode = drm_mode_find_dmt(drm, preferred_width, preferred_height,
					 60, false);
	if (!mode)
		mode = drm_cvt_mode(drm, preferred_width, preferred_height,
				    refresh, true, false, false);
	return mode;
}

/*
 * The generated EDID, whose first detailed timing is the preferred mode
 * (at 60 Hz when the preferred rate does not fit a detailed timing).
 */
static int flipkms_connector_add_edid(struct drm_connector *connector,
				      const struct drm_display_mode *preferred)
{
	struct flipkms_output *out = connector_to_flipkms_output(connector);
	struct drm_display_mode *dtd = NULL;
	u8 edid[EDID_LENGTH];
	int count;

	if (!flipkms_edid_fits(preferred)) {
		dtd = flipkms_preferred(connector->dev, 60);
		if (!dtd)
			return 0;
	}
	flipkms_edid_build(edid, drm_crtc_index(&out->crtc), dtd ?: preferred,
			   READ_ONCE(out->vrr_range));
	if (dtd)
		drm_mode_destroy(connector->dev, dtd);

	drm_connector_update_edid_property(connector, (struct edid *)edid);
	count = drm_add_edid_modes(connector, (struct edid *)edid);
	return count;
}

static int flipkms_connector_get_modes(struct drm_connector *connector)
{
	u32 refresh = READ_ONCE(connector_to_flipkms_output(connector)->refresh);
	struct drm_display_mode *mode, *preferred;
	int count, i;

#if FLIPKMS_HAS_EDID_OVERRIDE_UPDATE
	count = drm_edid_override_connector_update(connector);
	if (count)
		return count;
#else
	if (connector->override_edid)
		return drm_add_edid_modes(connector,
					  connector->edid_blob_ptr->data);
#endif

	preferred = flipkms_preferred(connector->dev, refresh);
	if (!preferred)
		return drm_add_modes_noedid(connector, FLIPKMS_MODES_MAX_WIDTH,
					    FLIPKMS_MODES_MAX_HEIGHT);

	count = flipkms_connector_add_edid(connector, preferred);
	count += drm_add_modes_noedid(connector, FLIPKMS_MODES_MAX_WIDTH,
				      FLIPKMS_MODES_MAX_HEIGHT);
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

	/* Exactly one preferred mode: ours, whatever the EDID marked. */
	list_for_each_entry(mode, &connector->probed_modes, head)
		mode->type &= ~DRM_MODE_TYPE_PREFERRED;
	preferred->type = DRM_MODE_TYPE_DRIVER | DRM_MODE_TYPE_PREFERRED;
	drm_mode_probed_add(connector, preferred);

	return count + 1;
}

/* Modes from 640x480 are offered; smaller user modes go through the CRTC. */
static enum drm_mode_status flipkms_connector_mode_valid(struct drm_connector *connector,
							 struct drm_display_mode *mode)
{
	if (mode->hdisplay < FLIPKMS_MODES_MIN_WIDTH ||
	    mode->vdisplay < FLIPKMS_MODES_MIN_HEIGHT)
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
	return READ_ONCE(connector_to_flipkms_output(connector)->status);
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
	/* The core gives virtual connectors none: ours has an EDID. */
	drm_connector_attach_edid_property(&out->connector);
	/* An adaptive-sync monitor, whatever its range (flipkms_vrr.c). */
	flipkms_vrr_init(out, index);
	ret = drm_connector_attach_vrr_capable_property(&out->connector);
	if (ret)
		return ret;
	drm_connector_set_vrr_capable_property(&out->connector, true);

	return drm_connector_attach_encoder(&out->connector, &out->encoder);
}
