// SPDX-License-Identifier: GPL-2.0+
/*
 * configfs: devices built at run time, laid out as mainline vkms's (6.19)
 * so that a vkms script maps one to one (with "flipkms" for "vkms"):
 *
 *   flipkms/DEVICE/enabled                 0/1: build or unplug the device
 *   flipkms/DEVICE/planes/P/type           0 overlay (default), 1 primary,
 *                                          2 cursor (enum drm_plane_type)
 *   flipkms/DEVICE/planes/P/supported_formats  +FOURCC, -FOURCC, +*, -*
 *                                          (default: all of flipkms's)
 *   flipkms/DEVICE/planes/P/zpos           0-255, -1 (default): in order
 *   flipkms/DEVICE/planes/P/possible_crtcs/      links to crtcs/C
 *   flipkms/DEVICE/crtcs/C/writeback       0 (default)/1
 *   flipkms/DEVICE/crtcs/C/refresh_hz      30-240 (default 60), and the
 *     signal_delay_us, drop_vblanks,      defaults (0) of the debugfs
 *     stall_commit_ms, fence_error,       controls of the same names,
 *     vrr_hold                            taken as the device is enabled
 *   flipkms/DEVICE/encoders/E/possible_crtcs/    links to crtcs/C
 *   flipkms/DEVICE/connectors/N/status     1 connected (default),
 *                                          2 disconnected, 3 unknown
 *                                          (enum drm_connector_status)
 *   flipkms/DEVICE/connectors/N/possible_encoders/ links to encoders/E
 *   flipkms/DEVICE/connectors/N/type       15 Virtual (default), or the
 *                                          DRM_MODE_CONNECTOR_* of a
 *                                          monitor: 1-4, 7, 10-12, 14-17
 *   flipkms/DEVICE/connectors/N/preferred_mode   WxH (preferred_mode's)
 *   flipkms/DEVICE/connectors/N/width_mm   physical size, 0 (default):
 *   flipkms/DEVICE/connectors/N/height_mm  the preferred mode at 96 dpi
 *   flipkms/DEVICE/connectors/N/vrr_range  MIN-MAX Hz (vrr_range's first)
 *   flipkms/DEVICE/connectors/N/edid       a user EDID that replaces the
 *                                          generated one, "\n" to go back
 *   flipkms/DEVICE/connectors/N/dynamic    0 (default)/1: may be added to
 *                                          and removed from an enabled
 *                                          device
 *   flipkms/DEVICE/connectors/N/enabled    1 (default)/0: built; on an
 *                                          enabled device, 1 adds a
 *                                          dynamic connector, 0 removes it
 *
 * The topology is fixed while the device is enabled: mkdir, writes and
 * links fail with EBUSY, except for dynamic connectors: mkdir in
 * connectors/ makes one (dynamic, not enabled), and one that is not
 * enabled takes links and monitor attributes. configfs cannot refuse an
 * unlink or the rmdir of an object nothing links to; those change the
 * description only, for the next enable (the rmdir of an enabled dynamic
 * connector removes it). A connector's status, vrr_range and edid may
 * change at any time: on an enabled device that is a hot-plug. Writing 1
 * to enabled checks the description
 * (EINVAL and a message naming what flipkms cannot build) and builds the
 * device, the platform device flipkms-DEVICE with a DRM card of its own
 * (/sys/devices/platform/flipkms-DEVICE/drm/cardN); writing 0 unplugs it,
 * even with clients holding it open.
 * Documentation/ABI/testing/configfs-flipkms is the full ABI.
 */

#include <linux/configfs.h>
#include <linux/err.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include <drm/drm_fourcc.h>
#include <drm/drm_probe_helper.h>

#include "flipkms_config.h"
#include "flipkms_drv.h"

/**
 * struct flipkms_cfs_device - a device directory
 * @group:	flipkms/DEVICE
 * @planes:	its planes/
 * @crtcs:	its crtcs/
 * @encoders:	its encoders/
 * @connectors:	its connectors/
 * @lock:	protects @config (and every object in it) and @fkms
 * @config:	the description
 * @fkms:	the device built from it while enabled, else NULL
 */
struct flipkms_cfs_device {
	struct config_group group;
	struct config_group planes;
	struct config_group crtcs;
	struct config_group encoders;
	struct config_group connectors;
	struct mutex lock; /* see @lock above */
	struct flipkms_config *config;
	struct flipkms_device *fkms;
};

/**
 * struct flipkms_cfs_object - a plane, CRTC, encoder or connector directory
 * @group:	the directory
 * @links:	its possible_crtcs/ or possible_encoders/ (not for CRTCs)
 * @dev:	the device directory it belongs to
 * @obj:	its object in the description: what links to it point to
 * @link_set:	the object's own links, or NULL
 * @link_type:	the type of directory they may point to
 */
struct flipkms_cfs_object {
	struct config_group group;
	struct config_group links;
	struct flipkms_cfs_device *dev;
	void *obj;
	struct xarray *link_set;
	const struct config_item_type *link_type;
};

static struct flipkms_cfs_device *to_cfs_device(struct config_item *item)
{
	return container_of(to_config_group(item), struct flipkms_cfs_device, group);
}

static struct flipkms_cfs_object *to_cfs_object(struct config_item *item)
{
	return container_of(to_config_group(item), struct flipkms_cfs_object, group);
}

static struct flipkms_cfs_object *links_to_cfs_object(struct config_item *item)
{
	return container_of(to_config_group(item), struct flipkms_cfs_object, links);
}

/* Links: possible_crtcs/ and possible_encoders/ */

static const struct config_item_type flipkms_crtc_type;
static const struct config_item_type flipkms_encoder_type;
static const struct config_item_type flipkms_connector_type;

/*
 * A dynamic connector not built now: on an enabled device, its links and
 * monitor may still change. Under the device's lock.
 */
static bool flipkms_connector_unbuilt(struct flipkms_cfs_object *cfs)
{
	struct flipkms_config_connector *connector = cfs->obj;

	return cfs->group.cg_item.ci_type == &flipkms_connector_type &&
	       connector->dynamic && !connector->out;
}

/* Whether the connector's monitor is fixed now: EBUSY. Under the device's lock. */
static bool flipkms_connector_busy(struct flipkms_cfs_object *cfs)
{
	return cfs->dev->fkms && !flipkms_connector_unbuilt(cfs);
}

static int flipkms_links_allow(struct config_item *src, struct config_item *target)
{
	struct flipkms_cfs_object *from = links_to_cfs_object(src), *to;
	int ret;

	if (target->ci_type != from->link_type)
		return -EINVAL;
	to = to_cfs_object(target);
	if (to->dev != from->dev)
		return -EINVAL;

	mutex_lock(&from->dev->lock);
	if (from->dev->fkms && !flipkms_connector_unbuilt(from))
		ret = -EBUSY;
	else
		ret = flipkms_config_link(from->link_set, to->obj);
	mutex_unlock(&from->dev->lock);
	return ret;
}

static void flipkms_links_drop(struct config_item *src, struct config_item *target)
{
	struct flipkms_cfs_object *from = links_to_cfs_object(src);

	mutex_lock(&from->dev->lock);
	flipkms_config_unlink(from->link_set, to_cfs_object(target)->obj);
	mutex_unlock(&from->dev->lock);
}

static struct configfs_item_operations flipkms_links_ops = {
	.allow_link	= flipkms_links_allow,
	.drop_link	= flipkms_links_drop,
};

static const struct config_item_type flipkms_links_type = {
	.ct_item_ops	= &flipkms_links_ops,
	.ct_owner	= THIS_MODULE,
};

/* The attributes; each object's removal comes with its directory's release. */

static ssize_t flipkms_plane_type_show(struct config_item *item, char *page)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_plane *plane = cfs->obj;
	unsigned int type;

	mutex_lock(&cfs->dev->lock);
	type = plane->type;
	mutex_unlock(&cfs->dev->lock);
	return sprintf(page, "%u\n", type);
}

static ssize_t flipkms_plane_type_store(struct config_item *item,
					const char *page, size_t count)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_plane *plane = cfs->obj;
	unsigned int type;
	int ret = 0;

	if (kstrtouint(page, 10, &type) ||
	    (type != DRM_PLANE_TYPE_OVERLAY && type != DRM_PLANE_TYPE_PRIMARY &&
	     type != DRM_PLANE_TYPE_CURSOR))
		return -EINVAL;
	mutex_lock(&cfs->dev->lock);
	if (cfs->dev->fkms)
		ret = -EBUSY;
	else
		plane->type = type;
	mutex_unlock(&cfs->dev->lock);
	return ret ?: count;
}

/* A 0/1 attribute of @cfs's object, read under the device's lock. */
static ssize_t flipkms_cfs_bool_show(struct flipkms_cfs_object *cfs,
				     const bool *field, char *page)
{
	bool value;

	mutex_lock(&cfs->dev->lock);
	value = *field;
	mutex_unlock(&cfs->dev->lock);
	return sprintf(page, "%d\n", value);
}

/* A 0/1 attribute of the topology: EINVAL, or EBUSY while the device is enabled. */
static ssize_t flipkms_cfs_bool_store(struct flipkms_cfs_object *cfs, bool *field,
				      const char *page, size_t count)
{
	bool value;
	int ret = 0;

	if (kstrtobool(page, &value))
		return -EINVAL;
	mutex_lock(&cfs->dev->lock);
	if (cfs->dev->fkms)
		ret = -EBUSY;
	else
		*field = value;
	mutex_unlock(&cfs->dev->lock);
	return ret ?: count;
}

static ssize_t flipkms_crtc_writeback_show(struct config_item *item, char *page)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_crtc *crtc = cfs->obj;

	return flipkms_cfs_bool_show(cfs, &crtc->writeback, page);
}

static ssize_t flipkms_crtc_writeback_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_crtc *crtc = cfs->obj;

	return flipkms_cfs_bool_store(cfs, &crtc->writeback, page, count);
}

/* While enabled, what the connector reports: debugfs's connected may have changed it. */
static ssize_t flipkms_connector_status_show(struct config_item *item, char *page)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_connector *connector = cfs->obj;
	unsigned int status;

	mutex_lock(&cfs->dev->lock);
	status = connector->out ? READ_ONCE(connector->out->status) : connector->status;
	mutex_unlock(&cfs->dev->lock);
	return sprintf(page, "%u\n", status);
}

/* On an enabled device, a change is a hot-plug: clients are told to probe. */
static ssize_t flipkms_connector_status_store(struct config_item *item,
					      const char *page, size_t count)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_connector *connector = cfs->obj;
	struct flipkms_output *out;
	unsigned int status;

	if (kstrtouint(page, 10, &status) ||
	    (status != connector_status_connected &&
	     status != connector_status_disconnected &&
	     status != connector_status_unknown))
		return -EINVAL;
	mutex_lock(&cfs->dev->lock);
	connector->status = status;
	out = connector->out;
	if (out && READ_ONCE(out->status) != status) {
		WRITE_ONCE(out->status, status);
		drm_kms_helper_hotplug_event(out->crtc.dev);
	}
	mutex_unlock(&cfs->dev->lock);
	return count;
}

/*
 * The formats a plane offers, as vkms's series writes them: "+FOURCC"
 * adds one of flipkms's formats ("+AR24"), "-FOURCC" takes it away, "+*"
 * and "-*" all of them. Read: the fourccs offered, space-separated.
 */
static ssize_t flipkms_plane_supported_formats_show(struct config_item *item,
						    char *page)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_plane *plane = cfs->obj;
	const u32 *formats;
	unsigned int i, n;
	ssize_t len = 0;

	formats = flipkms_plane_formats(&n);
	mutex_lock(&cfs->dev->lock);
	for (i = 0; i < n; i++)
		if (plane->formats & BIT_ULL(i))
			len += sprintf(page + len, "%s%c%c%c%c", len ? " " : "",
				       formats[i] & 0xff, (formats[i] >> 8) & 0xff,
				       (formats[i] >> 16) & 0xff, formats[i] >> 24);
	mutex_unlock(&cfs->dev->lock);
	return len + sprintf(page + len, "\n");
}

static ssize_t flipkms_plane_supported_formats_store(struct config_item *item,
						     const char *page, size_t count)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_plane *plane = cfs->obj;
	size_t len = strcspn(page, "\n");
	u64 mask = 0;
	const u32 *formats;
	unsigned int i, n;
	int ret = 0;

	formats = flipkms_plane_formats(&n);
	if ((page[0] != '+' && page[0] != '-') || (len != 2 && len != 5))
		return -EINVAL;
	if (len == 2 && page[1] == '*')
		mask = U64_MAX;
	for (i = 0; len == 5 && i < n; i++)
		if (formats[i] == fourcc_code(page[1], page[2], page[3], page[4]))
			mask = BIT_ULL(i);
	if (!mask)
		return -EINVAL;
	mutex_lock(&cfs->dev->lock);
	if (cfs->dev->fkms)
		ret = -EBUSY;
	else if (page[0] == '+')
		plane->formats |= mask;
	else
		plane->formats &= ~mask;
	mutex_unlock(&cfs->dev->lock);
	return ret ?: count;
}

/* The plane's immutable zpos, 0-255, or -1 (the default) for flipkms's order. */
static ssize_t flipkms_plane_zpos_show(struct config_item *item, char *page)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_plane *plane = cfs->obj;
	int zpos;

	mutex_lock(&cfs->dev->lock);
	zpos = plane->zpos;
	mutex_unlock(&cfs->dev->lock);
	return sprintf(page, "%d\n", zpos);
}

static ssize_t flipkms_plane_zpos_store(struct config_item *item,
					const char *page, size_t count)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_plane *plane = cfs->obj;
	int zpos, ret = 0;

	if (kstrtoint(page, 10, &zpos) || zpos < -1 || zpos > FLIPKMS_MAX_ZPOS)
		return -EINVAL;
	mutex_lock(&cfs->dev->lock);
	if (cfs->dev->fkms)
		ret = -EBUSY;
	else
		plane->zpos = zpos;
	mutex_unlock(&cfs->dev->lock);
	return ret ?: count;
}

/*
 * The monitor on a connector. Its type, preferred mode and physical size
 * are fixed while the connector is built; its refresh range and EDID may
 * change at any time, as another monitor plugged in would: the card sends
 * a hotplug uevent and the connector's next probe has them.
 */

#define FLIPKMS_CONNECTOR_SHOW(attr, fmt, ...)					\
static ssize_t flipkms_connector_##attr##_show(struct config_item *item,	\
					       char *page)			\
{										\
	struct flipkms_cfs_object *cfs = to_cfs_object(item);			\
	struct flipkms_config_connector *connector = cfs->obj;			\
	ssize_t len;								\
										\
	mutex_lock(&cfs->dev->lock);						\
	len = sprintf(page, fmt "\n", __VA_ARGS__);				\
	mutex_unlock(&cfs->dev->lock);						\
	return len;								\
}

FLIPKMS_CONNECTOR_SHOW(type, "%d", connector->type)
FLIPKMS_CONNECTOR_SHOW(preferred_mode, "%ux%u", connector->width, connector->height)
FLIPKMS_CONNECTOR_SHOW(width_mm, "%u", connector->width_mm)
FLIPKMS_CONNECTOR_SHOW(height_mm, "%u", connector->height_mm)
FLIPKMS_CONNECTOR_SHOW(vrr_range, "%u-%u", flipkms_vrr_min_hz(connector->vrr_range),
		       flipkms_vrr_max_hz(connector->vrr_range))

/* Sets @field to @value unless the connector is built (EBUSY). */
static ssize_t flipkms_connector_set(struct flipkms_cfs_object *cfs,
				     unsigned int *field, unsigned int value,
				     size_t count)
{
	int ret = 0;

	mutex_lock(&cfs->dev->lock);
	if (flipkms_connector_busy(cfs))
		ret = -EBUSY;
	else
		*field = value;
	mutex_unlock(&cfs->dev->lock);
	return ret ?: count;
}

static ssize_t flipkms_connector_type_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_connector *connector = cfs->obj;
	int type, ret = 0;

	if (kstrtoint(page, 10, &type) || !flipkms_config_connector_type_ok(type))
		return -EINVAL;
	mutex_lock(&cfs->dev->lock);
	if (flipkms_connector_busy(cfs))
		ret = -EBUSY;
	else
		connector->type = type;
	mutex_unlock(&cfs->dev->lock);
	return ret ?: count;
}

static ssize_t flipkms_connector_preferred_mode_store(struct config_item *item,
						      const char *page, size_t count)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_connector *connector = cfs->obj;
	unsigned int width, height;
	int ret = 0;

	if (flipkms_output_parse_mode(page, &width, &height))
		return -EINVAL;
	mutex_lock(&cfs->dev->lock);
	if (flipkms_connector_busy(cfs)) {
		ret = -EBUSY;
	} else {
		connector->width = width;
		connector->height = height;
	}
	mutex_unlock(&cfs->dev->lock);
	return ret ?: count;
}

static ssize_t flipkms_connector_width_mm_store(struct config_item *item,
						const char *page, size_t count)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_connector *connector = cfs->obj;
	unsigned int mm;

	if (kstrtouint(page, 10, &mm) || mm > FLIPKMS_MAX_MM)
		return -EINVAL;
	return flipkms_connector_set(cfs, &connector->width_mm, mm, count);
}

static ssize_t flipkms_connector_height_mm_store(struct config_item *item,
						 const char *page, size_t count)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_connector *connector = cfs->obj;
	unsigned int mm;

	if (kstrtouint(page, 10, &mm) || mm > FLIPKMS_MAX_MM)
		return -EINVAL;
	return flipkms_connector_set(cfs, &connector->height_mm, mm, count);
}

/* As debugfs's crtc-<i>/vrr_range: EINVAL, or ERANGE for a rate out of 30-255. */
static ssize_t flipkms_connector_vrr_range_store(struct config_item *item,
						 const char *page, size_t count)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_connector *connector = cfs->obj;
	struct flipkms_output *out;
	u32 range;
	int ret;

	ret = flipkms_vrr_parse(page, &range);
	if (ret)
		return ret;
	mutex_lock(&cfs->dev->lock);
	connector->vrr_range = range;
	out = connector->out;
	if (out) {
		WRITE_ONCE(out->vrr_range, range);
		drm_kms_helper_hotplug_event(out->crtc.dev);
	}
	mutex_unlock(&cfs->dev->lock);
	return count;
}

/* The user EDID as written, nothing while the generated one is in use. */
static ssize_t flipkms_connector_edid_show(struct config_item *item, char *page)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_connector *connector = cfs->obj;
	size_t len;

	mutex_lock(&cfs->dev->lock);
	len = connector->edid_len;
	if (len)
		memcpy(page, connector->edid, len);
	mutex_unlock(&cfs->dev->lock);
	return len;
}

/*
 * A whole EDID in one write (configfs passes up to 4095 bytes), checked by
 * flipkms_config_edid_check(); a lone newline (echo > edid) goes back to
 * the generated EDID.
 */
static ssize_t flipkms_connector_edid_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_connector *connector = cfs->obj;
	bool clear = count == 1 && page[0] == '\n';
	u8 *edid = NULL;
	int ret = 0;

	if (!clear) {
		ret = flipkms_config_edid_check(page, count);
		if (ret)
			return ret;
		edid = kmemdup(page, count, GFP_KERNEL);
		if (!edid)
			return -ENOMEM;
	}
	mutex_lock(&cfs->dev->lock);
	if (connector->out)
		ret = flipkms_output_set_edid(connector->out, edid,
					      clear ? 0 : count);
	if (!ret) {
		swap(connector->edid, edid);
		connector->edid_len = clear ? 0 : count;
		if (connector->out)
			drm_kms_helper_hotplug_event(connector->out->crtc.dev);
	}
	mutex_unlock(&cfs->dev->lock);
	kfree(edid);
	return ret ?: count;
}

static ssize_t flipkms_connector_dynamic_show(struct config_item *item, char *page)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_connector *connector = cfs->obj;

	return flipkms_cfs_bool_show(cfs, &connector->dynamic, page);
}

/* Part of the topology: fixed while the device is enabled. */
static ssize_t flipkms_connector_dynamic_store(struct config_item *item,
					       const char *page, size_t count)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_connector *connector = cfs->obj;

	return flipkms_cfs_bool_store(cfs, &connector->dynamic, page, count);
}

static ssize_t flipkms_connector_enabled_show(struct config_item *item, char *page)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_connector *connector = cfs->obj;

	return flipkms_cfs_bool_show(cfs, &connector->enabled, page);
}

/*
 * Adds @connector to its encoder's output on the enabled device: EINVAL
 * unless it links to exactly one encoder of the device as built, EBUSY
 * if that output has a connector, or one removed that a CRTC still
 * drives. Under the device's lock.
 */
static int flipkms_connector_hot_add(struct flipkms_config_connector *connector)
{
	struct flipkms_config_encoder *encoder;
	int ret;

	encoder = flipkms_config_connector_encoder(connector);
	if (!encoder || !encoder->out)
		return -EINVAL;
	ret = flipkms_output_hot_add(encoder->out, connector);
	if (ret)
		return ret;
	connector->out = encoder->out;
	return 0;
}

/* Under the device's lock. */
static void flipkms_connector_hot_remove(struct flipkms_config_connector *connector)
{
	flipkms_output_hot_remove(connector->out);
	connector->out = NULL;
}

/*
 * On a disabled device, whether the connector is built with it. On an
 * enabled one, a dynamic connector is added or removed at once, as an MST
 * port appears or goes; any other is fixed (EBUSY).
 */
static ssize_t flipkms_connector_enabled_store(struct config_item *item,
					       const char *page, size_t count)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_connector *connector = cfs->obj;
	bool enabled;
	int ret = 0;

	if (kstrtobool(page, &enabled))
		return -EINVAL;
	mutex_lock(&cfs->dev->lock);
	if (cfs->dev->fkms && !connector->dynamic)
		ret = -EBUSY;
	else if (cfs->dev->fkms && enabled && !connector->out)
		ret = flipkms_connector_hot_add(connector);
	else if (cfs->dev->fkms && !enabled && connector->out)
		flipkms_connector_hot_remove(connector);
	if (!ret)
		connector->enabled = enabled;
	mutex_unlock(&cfs->dev->lock);
	return ret ?: count;
}

/*
 * A CRTC's refresh rate and the defaults of its debugfs fault controls
 * (crtc-<i>/ in the card's debugfs directory), which take them as the
 * device is enabled; fixed while it is (debugfs changes them then).
 */
static ssize_t flipkms_crtc_show(struct flipkms_cfs_object *cfs,
				 const unsigned int *field, char *page)
{
	unsigned int value;

	mutex_lock(&cfs->dev->lock);
	value = *field;
	mutex_unlock(&cfs->dev->lock);
	return sprintf(page, "%u\n", value);
}

static ssize_t flipkms_crtc_store(struct flipkms_cfs_object *cfs,
				  unsigned int *field, unsigned int min,
				  unsigned int max, const char *page, size_t count)
{
	unsigned int value;
	int ret = 0;

	if (kstrtouint(page, 10, &value) || value < min || value > max)
		return -EINVAL;
	mutex_lock(&cfs->dev->lock);
	if (cfs->dev->fkms)
		ret = -EBUSY;
	else
		*field = value;
	mutex_unlock(&cfs->dev->lock);
	return ret ?: count;
}

/* The CRTC's unsigned int at @offset in struct flipkms_config_crtc. */
static unsigned int *flipkms_crtc_field(struct config_item *item, size_t offset)
{
	return (unsigned int *)((u8 *)to_cfs_object(item)->obj + offset);
}

#define FLIPKMS_CRTC_ATTR(attr, offset, min, max)				\
static unsigned int *flipkms_crtc_##attr(struct config_item *item)		\
{										\
	return flipkms_crtc_field(item, offset);				\
}										\
										\
static ssize_t flipkms_crtc_##attr##_show(struct config_item *item, char *page) \
{										\
	return flipkms_crtc_show(to_cfs_object(item),				\
				 flipkms_crtc_##attr(item), page);		\
}										\
										\
static ssize_t flipkms_crtc_##attr##_store(struct config_item *item,		\
					   const char *page, size_t count)	\
{										\
	return flipkms_crtc_store(to_cfs_object(item),				\
				  flipkms_crtc_##attr(item), min, max,		\
				  page, count);					\
}										\
										\
CONFIGFS_ATTR(flipkms_crtc_, attr)

#define FLIPKMS_CRTC_OFFSET(field) offsetof(struct flipkms_config_crtc, field)

FLIPKMS_CRTC_ATTR(refresh_hz, FLIPKMS_CRTC_OFFSET(refresh),
		  FLIPKMS_MIN_REFRESH, FLIPKMS_MAX_REFRESH);
FLIPKMS_CRTC_ATTR(signal_delay_us, FLIPKMS_CRTC_OFFSET(signal_delay_us),
		  0, FLIPKMS_MAX_SIGNAL_DELAY_US);
FLIPKMS_CRTC_ATTR(drop_vblanks, FLIPKMS_CRTC_OFFSET(drop_vblanks),
		  0, FLIPKMS_MAX_DROP_VBLANKS);
FLIPKMS_CRTC_ATTR(stall_commit_ms, FLIPKMS_CRTC_OFFSET(stall_ms),
		  0, FLIPKMS_MAX_STALL_MS);
FLIPKMS_CRTC_ATTR(fence_error, FLIPKMS_CRTC_OFFSET(fence_error), 0, MAX_ERRNO);
FLIPKMS_CRTC_ATTR(vrr_hold, FLIPKMS_CRTC_OFFSET(vrr_hold),
		  0, FLIPKMS_MAX_VRR_HOLD);

CONFIGFS_ATTR(flipkms_plane_, type);
CONFIGFS_ATTR(flipkms_plane_, supported_formats);
CONFIGFS_ATTR(flipkms_plane_, zpos);
CONFIGFS_ATTR(flipkms_crtc_, writeback);
CONFIGFS_ATTR(flipkms_connector_, status);
CONFIGFS_ATTR(flipkms_connector_, type);
CONFIGFS_ATTR(flipkms_connector_, preferred_mode);
CONFIGFS_ATTR(flipkms_connector_, width_mm);
CONFIGFS_ATTR(flipkms_connector_, height_mm);
CONFIGFS_ATTR(flipkms_connector_, vrr_range);
CONFIGFS_ATTR(flipkms_connector_, edid);
CONFIGFS_ATTR(flipkms_connector_, dynamic);
CONFIGFS_ATTR(flipkms_connector_, enabled);

static struct configfs_attribute *flipkms_plane_attrs[] = {
	&flipkms_plane_attr_type,
	&flipkms_plane_attr_supported_formats,
	&flipkms_plane_attr_zpos,
	NULL,
};

static struct configfs_attribute *flipkms_crtc_attrs[] = {
	&flipkms_crtc_attr_writeback,
	&flipkms_crtc_attr_refresh_hz,
	&flipkms_crtc_attr_signal_delay_us,
	&flipkms_crtc_attr_drop_vblanks,
	&flipkms_crtc_attr_stall_commit_ms,
	&flipkms_crtc_attr_fence_error,
	&flipkms_crtc_attr_vrr_hold,
	NULL,
};

static struct configfs_attribute *flipkms_connector_attrs[] = {
	&flipkms_connector_attr_status,
	&flipkms_connector_attr_type,
	&flipkms_connector_attr_preferred_mode,
	&flipkms_connector_attr_width_mm,
	&flipkms_connector_attr_height_mm,
	&flipkms_connector_attr_vrr_range,
	&flipkms_connector_attr_edid,
	&flipkms_connector_attr_dynamic,
	&flipkms_connector_attr_enabled,
	NULL,
};

#define FLIPKMS_CFS_RELEASE(kind)						\
static void flipkms_##kind##_release(struct config_item *item)			\
{										\
	struct flipkms_cfs_object *cfs = to_cfs_object(item);			\
										\
	mutex_lock(&cfs->dev->lock);						\
	flipkms_config_remove_##kind(cfs->obj);					\
	mutex_unlock(&cfs->dev->lock);						\
	kfree(cfs);								\
}										\
										\
static struct configfs_item_operations flipkms_##kind##_ops = {			\
	.release = flipkms_##kind##_release,					\
}

FLIPKMS_CFS_RELEASE(plane);
FLIPKMS_CFS_RELEASE(crtc);
FLIPKMS_CFS_RELEASE(encoder);

/* A dynamic connector on an enabled device goes with its directory. */
static void flipkms_connector_release(struct config_item *item)
{
	struct flipkms_cfs_object *cfs = to_cfs_object(item);
	struct flipkms_config_connector *connector = cfs->obj;

	mutex_lock(&cfs->dev->lock);
	if (connector->dynamic && connector->out)
		flipkms_connector_hot_remove(connector);
	flipkms_config_remove_connector(connector);
	mutex_unlock(&cfs->dev->lock);
	kfree(cfs);
}

static struct configfs_item_operations flipkms_connector_ops = {
	.release = flipkms_connector_release,
};

static const struct config_item_type flipkms_plane_type = {
	.ct_item_ops	= &flipkms_plane_ops,
	.ct_attrs	= flipkms_plane_attrs,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type flipkms_crtc_type = {
	.ct_item_ops	= &flipkms_crtc_ops,
	.ct_attrs	= flipkms_crtc_attrs,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type flipkms_encoder_type = {
	.ct_item_ops	= &flipkms_encoder_ops,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type flipkms_connector_type = {
	.ct_item_ops	= &flipkms_connector_ops,
	.ct_attrs	= flipkms_connector_attrs,
	.ct_owner	= THIS_MODULE,
};

/* planes/, crtcs/, encoders/ and connectors/: mkdir adds an object */

static struct flipkms_cfs_device *flipkms_parent_device(struct config_group *group)
{
	return to_cfs_device(group->cg_item.ci_parent);
}

static struct config_group *flipkms_object_make(struct config_group *group,
						const char *name)
{
	struct flipkms_cfs_device *dev = flipkms_parent_device(group);
	const struct config_item_type *type = NULL;
	struct flipkms_cfs_object *cfs;
	const char *links = NULL;
	int ret = 0;

	cfs = kzalloc(sizeof(*cfs), GFP_KERNEL);
	if (!cfs)
		return ERR_PTR(-ENOMEM);
	cfs->dev = dev;

	mutex_lock(&dev->lock);
	if (dev->fkms && group != &dev->connectors) {
		ret = -EBUSY;
	} else if (group == &dev->planes) {
		struct flipkms_config_plane *plane = flipkms_config_add_plane(dev->config, name);

		cfs->obj = plane;
		cfs->link_set = plane ? &plane->crtcs : NULL;
		cfs->link_type = &flipkms_crtc_type;
		type = &flipkms_plane_type;
		links = "possible_crtcs";
	} else if (group == &dev->crtcs) {
		cfs->obj = flipkms_config_add_crtc(dev->config, name);
		type = &flipkms_crtc_type;
	} else if (group == &dev->encoders) {
		struct flipkms_config_encoder *encoder =
			flipkms_config_add_encoder(dev->config, name);

		cfs->obj = encoder;
		cfs->link_set = encoder ? &encoder->crtcs : NULL;
		cfs->link_type = &flipkms_crtc_type;
		type = &flipkms_encoder_type;
		links = "possible_crtcs";
	} else {
		struct flipkms_config_connector *connector =
			flipkms_config_add_connector(dev->config, name);

		/* One made while the device is enabled is for adding later. */
		if (connector && dev->fkms) {
			connector->dynamic = true;
			connector->enabled = false;
		}
		cfs->obj = connector;
		cfs->link_set = connector ? &connector->encoders : NULL;
		cfs->link_type = &flipkms_encoder_type;
		type = &flipkms_connector_type;
		links = "possible_encoders";
	}
	mutex_unlock(&dev->lock);
	if (!ret && !cfs->obj)
		ret = -ENOMEM;
	if (ret) {
		kfree(cfs);
		return ERR_PTR(ret);
	}

	config_group_init_type_name(&cfs->group, name, type);
	if (links) {
		config_group_init_type_name(&cfs->links, links, &flipkms_links_type);
		configfs_add_default_group(&cfs->links, &cfs->group);
	}
	return &cfs->group;
}

static struct configfs_group_operations flipkms_objects_group_ops = {
	.make_group	= flipkms_object_make,
};

static const struct config_item_type flipkms_objects_type = {
	.ct_group_ops	= &flipkms_objects_group_ops,
	.ct_owner	= THIS_MODULE,
};

/* flipkms/DEVICE */

static ssize_t flipkms_device_enabled_show(struct config_item *item, char *page)
{
	struct flipkms_cfs_device *dev = to_cfs_device(item);
	bool enabled;

	mutex_lock(&dev->lock);
	enabled = dev->fkms;
	mutex_unlock(&dev->lock);
	return sprintf(page, "%d\n", enabled);
}

static ssize_t flipkms_device_enabled_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct flipkms_cfs_device *dev = to_cfs_device(item);
	struct flipkms_device *fkms;
	char *name;
	bool enable;
	int ret = 0;

	if (kstrtobool(page, &enable))
		return -EINVAL;

	mutex_lock(&dev->lock);
	if (enable && !dev->fkms) {
		/* The platform device: /sys/devices/platform/flipkms-DIR. */
		name = kasprintf(GFP_KERNEL, "flipkms-%s", config_item_name(item));
		fkms = name ? flipkms_device_create(dev->config, name) : ERR_PTR(-ENOMEM);
		kfree(name);
		if (IS_ERR(fkms))
			ret = PTR_ERR(fkms);
		else
			dev->fkms = fkms;
	} else if (!enable && dev->fkms) {
		flipkms_device_destroy(dev->fkms);
		dev->fkms = NULL;
	}
	mutex_unlock(&dev->lock);
	return ret ?: count;
}

CONFIGFS_ATTR(flipkms_device_, enabled);

static struct configfs_attribute *flipkms_device_attrs[] = {
	&flipkms_device_attr_enabled,
	NULL,
};

/* rmdir: only an empty directory goes, but its device may be enabled. */
static void flipkms_device_release(struct config_item *item)
{
	struct flipkms_cfs_device *dev = to_cfs_device(item);

	if (dev->fkms)
		flipkms_device_destroy(dev->fkms);
	flipkms_config_destroy(dev->config);
	mutex_destroy(&dev->lock);
	kfree(dev);
}

static struct configfs_item_operations flipkms_device_ops = {
	.release	= flipkms_device_release,
};

static const struct config_item_type flipkms_device_type = {
	.ct_item_ops	= &flipkms_device_ops,
	.ct_attrs	= flipkms_device_attrs,
	.ct_owner	= THIS_MODULE,
};

static void flipkms_add_objects_group(struct flipkms_cfs_device *dev,
				      struct config_group *group, const char *name)
{
	config_group_init_type_name(group, name, &flipkms_objects_type);
	configfs_add_default_group(group, &dev->group);
}

/*
 * A device's name goes into its fence timelines' names, "flipkms-DEVICE-crtc-N",
 * which SYNC_IOC_FILE_INFO and the sync debugfs show in 31 characters.
 */
#define FLIPKMS_CFS_NAME_MAX	16

static struct config_group *flipkms_device_make(struct config_group *group,
						const char *name)
{
	struct flipkms_cfs_device *dev;

	if (strlen(name) > FLIPKMS_CFS_NAME_MAX)
		return ERR_PTR(-ENAMETOOLONG);
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	dev->config = flipkms_config_create(name);
	if (!dev->config) {
		kfree(dev);
		return ERR_PTR(-ENOMEM);
	}
	mutex_init(&dev->lock);
	config_group_init_type_name(&dev->group, name, &flipkms_device_type);
	flipkms_add_objects_group(dev, &dev->planes, "planes");
	flipkms_add_objects_group(dev, &dev->crtcs, "crtcs");
	flipkms_add_objects_group(dev, &dev->encoders, "encoders");
	flipkms_add_objects_group(dev, &dev->connectors, "connectors");
	return &dev->group;
}

static struct configfs_group_operations flipkms_root_group_ops = {
	.make_group	= flipkms_device_make,
};

static const struct config_item_type flipkms_root_type = {
	.ct_group_ops	= &flipkms_root_group_ops,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem flipkms_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "flipkms",
			.ci_type = &flipkms_root_type,
		},
	},
	.su_mutex = __MUTEX_INITIALIZER(flipkms_subsys.su_mutex),
};

/**
 * flipkms_configfs_register() - offer flipkms/ in configfs
 *
 * Return: 0 or a negative errno.
 */
int flipkms_configfs_register(void)
{
	config_group_init(&flipkms_subsys.su_group);
	return configfs_register_subsystem(&flipkms_subsys);
}

/**
 * flipkms_configfs_unregister() - take flipkms/ away
 *
 * configfs holds the module while it has a device directory, so there
 * is none left by now.
 */
void flipkms_configfs_unregister(void)
{
	configfs_unregister_subsystem(&flipkms_subsys);
}
