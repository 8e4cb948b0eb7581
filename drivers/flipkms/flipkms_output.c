// SPDX-License-Identifier: GPL-2.0+
/*
 * Outputs: a virtual encoder and connector per CRTC. Each connector has an
 * EDID of its own (flipkms_edid.c) and offers the DMT modes from 640x480
 * up to 3840x2160, plus CVT modes up to 3840x2160 and 1920x1080 at the
 * other rates compositors are tested at. The preferred mode's size and
 * the monitor's physical size come from the device's description (the
 * preferred_mode module parameter, or configfs), the preferred rate is
 * the output's refresh_hz. A user EDID (configfs) or one set through the
 * DRM core's debugfs edid_override stands for the whole monitor: the
 * connector then offers its modes only.
 */

#include <linux/module.h>

#include <drm/drm_atomic_helper.h>
#include <drm/drm_atomic_state_helper.h>
#include <drm/drm_edid.h>
#include <drm/drm_managed.h>
#include <drm/drm_modes.h>
#include <drm/drm_probe_helper.h>

#include "flipkms_compat.h"
#include "flipkms_config.h"
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
 * Return: 0, or -EINVAL with a message for a preferred_mode that is not
 * WxH within the offered range.
 */
int flipkms_output_parse_params(void)
{
	if (flipkms_output_parse_mode(preferred_mode, &preferred_width,
				      &preferred_height)) {
		pr_err("flipkms: preferred_mode must be WxH from %ux%u to %ux%u, not '%s'\n",
		       FLIPKMS_MODES_MIN_WIDTH, FLIPKMS_MODES_MIN_HEIGHT,
		       FLIPKMS_MODES_MAX_WIDTH, FLIPKMS_MODES_MAX_HEIGHT, preferred_mode);
		return -EINVAL;
	}
	return 0;
}

/**
 * flipkms_output_parse_mode() - read a preferred mode's size
 * @text:	"WxH", with an optional trailing newline
 * @width:	set to W on success
 * @height:	set to H on success
 *
 * Return: 0, or -EINVAL for text that is not WxH from 640x480 to 3840x2160.
 */
int flipkms_output_parse_mode(const char *text, unsigned int *width,
			      unsigned int *height)
{
	unsigned int w, h;
	char end = 0;
	int n;

	n = sscanf(text, "%ux%u%c", &w, &h, &end);
	if (n < 2 || (n == 3 && end != '\n') ||
	    w < FLIPKMS_MODES_MIN_WIDTH || w > FLIPKMS_MODES_MAX_WIDTH ||
	    h < FLIPKMS_MODES_MIN_HEIGHT || h > FLIPKMS_MODES_MAX_HEIGHT)
		return -EINVAL;
	*width = w;
	*height = h;
	return 0;
}

/**
 * flipkms_output_default_size() - the preferred_mode module parameter's size
 * @width:	set to its width
 * @height:	set to its height
 */
void flipkms_output_default_size(unsigned int *width, unsigned int *height)
{
	*width = preferred_width;
	*height = preferred_height;
}

static inline struct flipkms_connector *to_flipkms_connector(struct drm_connector *connector)
{
	return container_of(connector, struct flipkms_connector, base);
}

static inline struct flipkms_output *connector_to_flipkms_output(struct drm_connector *connector)
{
	return to_flipkms_connector(connector)->out;
}

/*
 * The output's preferred size at @refresh: DMT's mode if the table has one
 * (60 Hz), else CVT with reduced blanking, which rounds the width down to
 * a multiple of 8.
 */
static struct drm_display_mode *flipkms_preferred(struct flipkms_output *out,
						  u32 refresh)
{
	struct drm_device *drm = out->crtc.dev;
	struct drm_display_mode *mode = NULL;

	if (refresh == 60)
		mode = drm_mode_find_dmt(drm, out->mode_width, out->mode_height,
					 60, false);
	if (!mode)
		mode = drm_cvt_mode(drm, out->mode_width, out->mode_height,
				    refresh, true, false, false);
	return mode;
}

/*
 * The generated EDID, whose first detailed timing is the preferred mode
 * (at 60 Hz when the preferred rate does not fit a detailed timing). Its
 * serial number and name tell the monitors of every device apart: on the
 * default device serial index + 1 and name "flipkms <index>", on device
 * instance N serial N * 100 + index + 1 and name "flipkms N.<index>".
 * The physical size the EDID holds in cm is exact in display_info.
 */
static int flipkms_connector_add_edid(struct drm_connector *connector,
				      const struct drm_display_mode *preferred)
{
	struct flipkms_output *out = connector_to_flipkms_output(connector);
	int instance = to_flipkms_device(connector->dev)->instance;
	unsigned int index = drm_crtc_index(&out->crtc);
	struct drm_display_mode *dtd = NULL;
	u8 edid[EDID_LENGTH];
	char name[14];
	int count;

	if (!flipkms_edid_fits(preferred)) {
		dtd = flipkms_preferred(out, 60);
		if (!dtd)
			return 0;
	}
	if (instance)
		snprintf(name, sizeof(name), "flipkms %d.%u", instance, index);
	else
		snprintf(name, sizeof(name), "flipkms %u", index);
	flipkms_edid_build(edid, instance * 100 + index + 1, name,
			   dtd ?: preferred, READ_ONCE(out->vrr_range),
			   out->width_mm, out->height_mm);
	if (dtd)
		drm_mode_destroy(connector->dev, dtd);

	drm_connector_update_edid_property(connector, (struct edid *)edid);
	count = drm_add_edid_modes(connector, (struct edid *)edid);
	if (out->width_mm && out->height_mm) {
		connector->display_info.width_mm = out->width_mm;
		connector->display_info.height_mm = out->height_mm;
	}
	return count;
}

/* A user EDID stands for the whole monitor. Returns its modes, or -1 if none. */
static int flipkms_connector_user_edid(struct drm_connector *connector)
{
	struct flipkms_output *out = connector_to_flipkms_output(connector);
	int count = -1;

	mutex_lock(&out->monitor_lock);
	if (out->edid) {
		drm_connector_update_edid_property(connector,
						   (struct edid *)out->edid);
		count = drm_add_edid_modes(connector, (struct edid *)out->edid);
	}
	mutex_unlock(&out->monitor_lock);
	return count;
}

static int flipkms_connector_get_modes(struct drm_connector *connector)
{
	struct flipkms_output *out = connector_to_flipkms_output(connector);
	u32 refresh = READ_ONCE(out->refresh);
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
	count = flipkms_connector_user_edid(connector);
	if (count >= 0)
		return count;

	preferred = flipkms_preferred(out, refresh);
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
	if (READ_ONCE(to_flipkms_connector(connector)->removed))
		return connector_status_disconnected;
	return READ_ONCE(connector_to_flipkms_output(connector)->status);
}

/* The last reference is gone: the device's teardown, or a removal's. */
static void flipkms_connector_destroy(struct drm_connector *connector)
{
	struct flipkms_connector *fconn = to_flipkms_connector(connector);

	drm_connector_cleanup(connector);
	atomic_dec(&fconn->out->connectors);
	kfree(fconn);
}

static const struct drm_connector_funcs flipkms_connector_funcs = {
	.detect = flipkms_connector_detect,
	.fill_modes = drm_helper_probe_single_connector_modes,
	.destroy = flipkms_connector_destroy,
	.reset = drm_atomic_helper_connector_reset,
	.atomic_duplicate_state = drm_atomic_helper_connector_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_connector_destroy_state,
};

/**
 * flipkms_output_set_edid() - give the monitor a user EDID, or take it away
 * @out:	the output
 * @edid:	the EDID, which flipkms_config_edid_check() accepts, or NULL
 * @len:	its length, 0 with NULL
 *
 * The connector offers the EDID's modes alone from its next probe on.
 *
 * Return: 0 or -ENOMEM.
 */
int flipkms_output_set_edid(struct flipkms_output *out, const u8 *edid,
			    size_t len)
{
	u8 *copy = NULL;

	if (edid) {
		copy = kmemdup(edid, len, GFP_KERNEL);
		if (!copy)
			return -ENOMEM;
	}
	mutex_lock(&out->monitor_lock);
	swap(out->edid, copy);
	out->edid_len = len;
	mutex_unlock(&out->monitor_lock);
	kfree(copy);
	return 0;
}

/* When the DRM device goes: the user EDID is the output's to free. */
static void flipkms_output_release(struct drm_device *drm, void *data)
{
	struct flipkms_output *out = data;

	kfree(out->edid);
	mutex_destroy(&out->monitor_lock);
}

/**
 * flipkms_output_init() - the encoder of an output, which has no connector yet
 * @out:	the output, whose CRTC is initialised
 *
 * Return: 0 or a negative errno.
 */
int flipkms_output_init(struct flipkms_output *out)
{
	struct drm_device *drm = out->crtc.dev;
	int ret;

	mutex_init(&out->monitor_lock);
	ret = drmm_add_action_or_reset(drm, flipkms_output_release, out);
	if (ret)
		return ret;
	out->status = connector_status_disconnected;

	ret = drmm_encoder_init(drm, &out->encoder, NULL,
				DRM_MODE_ENCODER_VIRTUAL, NULL);
	if (ret)
		return ret;
	out->encoder.possible_crtcs = drm_crtc_mask(&out->crtc);
	return 0;
}

/* The monitor @config describes, on @out from its connector's next probe. */
static int flipkms_output_set_monitor(struct flipkms_output *out,
				      const struct flipkms_config_connector *config)
{
	out->mode_width = config->width;
	out->mode_height = config->height;
	out->width_mm = config->width_mm;
	out->height_mm = config->height_mm;
	WRITE_ONCE(out->vrr_range, config->vrr_range);
	WRITE_ONCE(out->status, config->status);
	return flipkms_output_set_edid(out, config->edid, config->edid_len);
}

/**
 * flipkms_output_connector_add() - give an output its connector and monitor
 * @out:	the output, which has none
 * @config:	the connector and the monitor on it
 *
 * The connector is not registered: the device's registration does that,
 * or flipkms_output_hot_add() on a registered device. The DRM device holds
 * it until its teardown, or until flipkms_output_hot_remove().
 *
 * Return: 0 or a negative errno, with @out left without a connector.
 */
int flipkms_output_connector_add(struct flipkms_output *out,
				 const struct flipkms_config_connector *config)
{
	struct drm_device *drm = out->crtc.dev;
	struct drm_property *vrr_capable = to_flipkms_device(drm)->vrr_capable;
	struct drm_connector_state *state;
	struct flipkms_connector *fconn;
	struct drm_connector *connector;
	int ret;

	ret = flipkms_output_set_monitor(out, config);
	if (ret)
		return ret;
	fconn = kzalloc(sizeof(*fconn), GFP_KERNEL);
	state = kzalloc(sizeof(*state), GFP_KERNEL);
	if (!fconn || !state) {
		kfree(fconn);
		kfree(state);
		return -ENOMEM;
	}
	fconn->out = out;
	connector = &fconn->base;
	/*
	 * Its state first: the connector is on the device's list from its
	 * init on, where any atomic check (handle_conflicting_encoders())
	 * and debugfs's state dump read the state of every connector.
	 */
	__drm_atomic_helper_connector_reset(connector, state);
	ret = drm_connector_init(drm, connector, &flipkms_connector_funcs,
				 config->type);
	if (ret) {
		kfree(state);
		kfree(fconn);
		return ret;
	}
	atomic_inc(&out->connectors);
	drm_connector_helper_add(connector, &flipkms_connector_helper_funcs);
	/* The core gives virtual connectors none: ours has an EDID. */
	if (config->type == DRM_MODE_CONNECTOR_VIRTUAL)
		drm_connector_attach_edid_property(connector);
	/* An adaptive-sync monitor, whatever its range (flipkms_vrr.c). */
	connector->vrr_capable_property = vrr_capable;
	drm_object_attach_property(&connector->base, vrr_capable, 1);
	ret = drm_connector_attach_encoder(connector, &out->encoder);
	if (ret) {
		drm_connector_put(connector);
		return ret;
	}
	out->connector = fconn;
	return 0;
}

/**
 * flipkms_output_hot_add() - plug a connector into a registered device's output
 * @out:	the output, which has none
 * @config:	the connector and the monitor on it
 *
 * As a DP MST hub's port appearing: the connector is made, registered
 * (userspace sees it from then on) and a hotplug event tells clients to
 * probe. Before 6.14 the core has no drm_connector_dynamic_init(): the
 * connector is on the device's list from its init on, so its state is
 * made before (flipkms_output_connector_add()) and its helpers are in
 * place before anyone probing (under the mode config's mutex) can reach
 * it. A connector removed from @out that a CRTC still drives holds the
 * encoder: a new one could not be routed until it is gone.
 *
 * Return: 0, -EBUSY while @out has a connector or a removed one is
 * still held, or another negative errno, with nothing added.
 */
int flipkms_output_hot_add(struct flipkms_output *out,
			   const struct flipkms_config_connector *config)
{
	struct drm_device *drm = out->crtc.dev;
	int ret;

	if (out->connector || atomic_read(&out->connectors))
		return -EBUSY;
	mutex_lock(&drm->mode_config.mutex);
	ret = flipkms_output_connector_add(out, config);
	mutex_unlock(&drm->mode_config.mutex);
	if (ret)
		return ret;
	ret = drm_connector_register(&out->connector->base);
	if (ret) {
		/* A client may have found it meanwhile: take it away as any. */
		flipkms_output_hot_remove(out);
		return ret;
	}
	drm_kms_helper_hotplug_event(drm);
	return 0;
}

/**
 * flipkms_output_hot_remove() - unplug an output's connector
 * @out:	the output, which has a connector
 *
 * As a DP MST port going: the connector is unregistered, reports
 * disconnected and cannot be given a CRTC again; a CRTC that still drives
 * it keeps doing so (its state holds the connector) until a commit moves
 * it off, and then the connector is freed. @out may be given a new one.
 */
void flipkms_output_hot_remove(struct flipkms_output *out)
{
	struct flipkms_connector *fconn = out->connector;

	out->connector = NULL;
	WRITE_ONCE(fconn->removed, true);
	drm_connector_unregister(&fconn->base);
	/* Gone at once unless a CRTC holds it: clients probe after that. */
	drm_connector_put(&fconn->base);
	drm_kms_helper_hotplug_event(out->crtc.dev);
}
