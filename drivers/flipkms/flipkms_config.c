// SPDX-License-Identifier: GPL-2.0+
/*
 * Device descriptions: the objects of a device and their links, built by
 * the module parameters (the default device) or through configfs, and the
 * check that flipkms can build one. flipkms builds outputs, each a CRTC
 * with its own primary plane, overlays and optional cursor, one encoder
 * and one connector (Documentation/flipkms.rst), so a description must
 * come down to that: a topology vkms would take but flipkms cannot build
 * is refused with a message naming the object at fault.
 */

#include <linux/slab.h>
#include <linux/string.h>

#include <drm/drm_edid.h>
#include <drm/drm_fourcc.h>

#include "flipkms_config.h"
#include "flipkms_drv.h"

/* Links: sets of pointers to the objects linked to */

/**
 * flipkms_config_link() - add @target to a set of links
 * @links:	the set
 * @target:	the object linked to
 *
 * Return: 0, -EEXIST if @target is in the set already, or -ENOMEM.
 */
int flipkms_config_link(struct xarray *links, void *target)
{
	unsigned long i;
	void *entry;
	u32 id;

	xa_for_each(links, i, entry)
		if (entry == target)
			return -EEXIST;
	return xa_alloc(links, &id, target, xa_limit_32b, GFP_KERNEL);
}

/**
 * flipkms_config_unlink() - take @target out of a set of links
 * @links:	the set
 * @target:	the object linked to
 */
void flipkms_config_unlink(struct xarray *links, void *target)
{
	unsigned long i;
	void *entry;

	xa_for_each(links, i, entry)
		if (entry == target)
			xa_erase(links, i);
}

static unsigned int flipkms_links_count(struct xarray *links)
{
	unsigned int n = 0;
	unsigned long i;
	void *entry;

	xa_for_each(links, i, entry)
		n++;
	return n;
}

static void *flipkms_links_first(struct xarray *links)
{
	unsigned long i = 0;

	return xa_find(links, &i, ULONG_MAX, XA_PRESENT);
}

/**
 * flipkms_config_plane_crtc() - the CRTC a checked plane serves
 * @plane:	a plane of a description flipkms_config_check() passed
 *
 * Return: The CRTC.
 */
struct flipkms_config_crtc *
flipkms_config_plane_crtc(struct flipkms_config_plane *plane)
{
	return flipkms_links_first(&plane->crtcs);
}

/**
 * flipkms_config_connector_encoder() - the one encoder a connector links to
 * @connector:	the connector
 *
 * Return: The encoder, or NULL if it links to none or to several.
 */
struct flipkms_config_encoder *
flipkms_config_connector_encoder(struct flipkms_config_connector *connector)
{
	if (flipkms_links_count(&connector->encoders) != 1)
		return NULL;
	return flipkms_links_first(&connector->encoders);
}

/* Objects */

/**
 * flipkms_config_create() - an empty description
 * @name:	the device's name, for messages
 *
 * Return: The description, or NULL without memory.
 */
struct flipkms_config *flipkms_config_create(const char *name)
{
	struct flipkms_config *config = kzalloc(sizeof(*config), GFP_KERNEL);

	if (!config)
		return NULL;
	strscpy(config->name, name, sizeof(config->name));
	INIT_LIST_HEAD(&config->planes);
	INIT_LIST_HEAD(&config->crtcs);
	INIT_LIST_HEAD(&config->encoders);
	INIT_LIST_HEAD(&config->connectors);
	config->fail_output = -1;
	return config;
}

/**
 * flipkms_config_add_plane() - add an overlay plane with every format, linked to nothing
 * @config:	the description
 * @name:	the plane's name
 *
 * Return: The plane, or NULL without memory.
 */
struct flipkms_config_plane *flipkms_config_add_plane(struct flipkms_config *config,
						      const char *name)
{
	struct flipkms_config_plane *plane = kzalloc(sizeof(*plane), GFP_KERNEL);

	if (!plane)
		return NULL;
	strscpy(plane->name, name, sizeof(plane->name));
	plane->type = DRM_PLANE_TYPE_OVERLAY;
	plane->formats = U64_MAX;
	plane->zpos = -1;
	xa_init_flags(&plane->crtcs, XA_FLAGS_ALLOC);
	list_add_tail(&plane->link, &config->planes);
	return plane;
}

/**
 * flipkms_config_add_crtc() - add a 60 Hz CRTC without writeback or faults
 * @config:	the description
 * @name:	the CRTC's name
 *
 * Return: The CRTC, or NULL without memory.
 */
struct flipkms_config_crtc *flipkms_config_add_crtc(struct flipkms_config *config,
						    const char *name)
{
	struct flipkms_config_crtc *crtc = kzalloc(sizeof(*crtc), GFP_KERNEL);

	if (!crtc)
		return NULL;
	strscpy(crtc->name, name, sizeof(crtc->name));
	crtc->refresh = 60;
	list_add_tail(&crtc->link, &config->crtcs);
	return crtc;
}

/**
 * flipkms_config_add_encoder() - add an encoder, linked to nothing
 * @config:	the description
 * @name:	the encoder's name
 *
 * Return: The encoder, or NULL without memory.
 */
struct flipkms_config_encoder *flipkms_config_add_encoder(struct flipkms_config *config,
							  const char *name)
{
	struct flipkms_config_encoder *encoder = kzalloc(sizeof(*encoder), GFP_KERNEL);

	if (!encoder)
		return NULL;
	strscpy(encoder->name, name, sizeof(encoder->name));
	xa_init_flags(&encoder->crtcs, XA_FLAGS_ALLOC);
	list_add_tail(&encoder->link, &config->encoders);
	return encoder;
}

/**
 * flipkms_config_add_connector() - add a connected connector, linked to nothing
 * @config:	the description
 * @name:	the connector's name
 *
 * Return: The connector, or NULL without memory.
 */
struct flipkms_config_connector *
flipkms_config_add_connector(struct flipkms_config *config, const char *name)
{
	struct flipkms_config_connector *connector;

	connector = kzalloc(sizeof(*connector), GFP_KERNEL);
	if (!connector)
		return NULL;
	strscpy(connector->name, name, sizeof(connector->name));
	connector->enabled = true;
	connector->status = connector_status_connected;
	connector->type = DRM_MODE_CONNECTOR_VIRTUAL;
	flipkms_output_default_size(&connector->width, &connector->height);
	connector->vrr_range = flipkms_vrr_default(0);
	xa_init_flags(&connector->encoders, XA_FLAGS_ALLOC);
	list_add_tail(&connector->link, &config->connectors);
	return connector;
}

/*
 * Removing an object frees it with its own links. configfs removes no
 * object that a link points to, so no link to it is left behind.
 */

/**
 * flipkms_config_remove_plane() - take a plane out of its description and free it
 * @plane:	the plane, which no link points to
 */
void flipkms_config_remove_plane(struct flipkms_config_plane *plane)
{
	list_del(&plane->link);
	xa_destroy(&plane->crtcs);
	kfree(plane);
}

/**
 * flipkms_config_remove_crtc() - take a CRTC out of its description and free it
 * @crtc:	the CRTC, which no plane or encoder links to
 */
void flipkms_config_remove_crtc(struct flipkms_config_crtc *crtc)
{
	list_del(&crtc->link);
	kfree(crtc);
}

/**
 * flipkms_config_remove_encoder() - take an encoder out of its description and free it
 * @encoder:	the encoder, which no connector links to
 */
void flipkms_config_remove_encoder(struct flipkms_config_encoder *encoder)
{
	list_del(&encoder->link);
	xa_destroy(&encoder->crtcs);
	kfree(encoder);
}

/**
 * flipkms_config_remove_connector() - take a connector out of its description and free it
 * @connector:	the connector, with its user EDID if it has one
 */
void flipkms_config_remove_connector(struct flipkms_config_connector *connector)
{
	list_del(&connector->link);
	xa_destroy(&connector->encoders);
	kfree(connector->edid);
	kfree(connector);
}

/* The monitor */

/**
 * flipkms_config_connector_type_ok() - whether a connector may have @type
 * @type:	a DRM_MODE_CONNECTOR_* number
 *
 * The types a monitor or panel plugs into: VGA, DVI-I, DVI-D, DVI-A, LVDS,
 * DisplayPort, HDMI-A, HDMI-B, eDP, Virtual, DSI and DPI. Not TV outputs,
 * whose modes are TV standards, nor writeback, SPI, USB or Unknown.
 *
 * Return: true for those.
 */
bool flipkms_config_connector_type_ok(int type)
{
	switch (type) {
	case DRM_MODE_CONNECTOR_VGA:
	case DRM_MODE_CONNECTOR_DVII:
	case DRM_MODE_CONNECTOR_DVID:
	case DRM_MODE_CONNECTOR_DVIA:
	case DRM_MODE_CONNECTOR_LVDS:
	case DRM_MODE_CONNECTOR_DisplayPort:
	case DRM_MODE_CONNECTOR_HDMIA:
	case DRM_MODE_CONNECTOR_HDMIB:
	case DRM_MODE_CONNECTOR_eDP:
	case DRM_MODE_CONNECTOR_VIRTUAL:
	case DRM_MODE_CONNECTOR_DSI:
	case DRM_MODE_CONNECTOR_DPI:
		return true;
	default:
		return false;
	}
}

/* Whether the EDID_LENGTH bytes of @block sum to 0 modulo 256. */
static bool flipkms_edid_block_sums(const u8 *block)
{
	u8 sum = 0;
	int i;

	for (i = 0; i < EDID_LENGTH; i++)
		sum += block[i];
	return !sum;
}

/**
 * flipkms_config_edid_check() - whether a user EDID may stand for a monitor
 * @edid:	its bytes
 * @len:	their number
 *
 * Whole blocks, 1 to FLIPKMS_EDID_MAX_BLOCKS, as many as the base block's
 * extension count says, an exact header and every block valid as the DRM
 * core checks it. The check is strict where the core's is lenient: it
 * repairs a header with a few wrong bytes, which here is refused.
 *
 * Return: 0 or -EINVAL.
 */
int flipkms_config_edid_check(const u8 *edid, size_t len)
{
	static const u8 header[] = { 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00 };
	u8 *copy;
	size_t i;
	bool ok;

	if (!len || len % EDID_LENGTH ||
	    len > FLIPKMS_EDID_MAX_BLOCKS * EDID_LENGTH ||
	    len != (edid[0x7e] + 1) * EDID_LENGTH ||
	    memcmp(edid, header, sizeof(header)))
		return -EINVAL;
	for (i = 0; i < len; i += EDID_LENGTH)
		if (!flipkms_edid_block_sums(edid + i))
			return -EINVAL;
	/* The core's check may repair what it checks: it gets a copy. */
	copy = kmemdup(edid, len, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	ok = drm_edid_is_valid((struct edid *)copy);
	kfree(copy);
	return ok ? 0 : -EINVAL;
}

/**
 * flipkms_config_destroy() - free a description and all its objects
 * @config:	the description, or NULL
 */
void flipkms_config_destroy(struct flipkms_config *config)
{
	struct flipkms_config_connector *connector, *next_connector;
	struct flipkms_config_encoder *encoder, *next_encoder;
	struct flipkms_config_plane *plane, *next_plane;
	struct flipkms_config_crtc *crtc, *next_crtc;

	if (!config)
		return;
	list_for_each_entry_safe(plane, next_plane, &config->planes, link)
		flipkms_config_remove_plane(plane);
	list_for_each_entry_safe(connector, next_connector, &config->connectors, link)
		flipkms_config_remove_connector(connector);
	list_for_each_entry_safe(encoder, next_encoder, &config->encoders, link)
		flipkms_config_remove_encoder(encoder);
	list_for_each_entry_safe(crtc, next_crtc, &config->crtcs, link)
		flipkms_config_remove_crtc(crtc);
	kfree(config);
}

/* The module parameters' device */

static struct flipkms_config_plane *flipkms_default_plane(struct flipkms_config *config,
							  struct flipkms_config_crtc *crtc,
							  enum drm_plane_type type,
							  const char *name)
{
	struct flipkms_config_plane *plane = flipkms_config_add_plane(config, name);

	if (!plane)
		return NULL;
	plane->type = type;
	return flipkms_config_link(&plane->crtcs, crtc) ? NULL : plane;
}

/* One output: its CRTC, primary, overlays, cursor, encoder and connector. */
static int flipkms_default_output(struct flipkms_config *config, unsigned int i,
				  unsigned int overlays, bool cursor)
{
	struct flipkms_config_connector *connector;
	struct flipkms_config_encoder *encoder;
	struct flipkms_config_crtc *crtc;
	char name[FLIPKMS_CONFIG_NAME_LEN];
	unsigned int j;

	snprintf(name, sizeof(name), "crtc-%u", i);
	crtc = flipkms_config_add_crtc(config, name);
	if (!crtc)
		return -ENOMEM;
	crtc->writeback = true;

	snprintf(name, sizeof(name), "primary-%u", i);
	if (!flipkms_default_plane(config, crtc, DRM_PLANE_TYPE_PRIMARY, name))
		return -ENOMEM;
	for (j = 0; j < overlays; j++) {
		snprintf(name, sizeof(name), "overlay-%u-%u", i, j);
		if (!flipkms_default_plane(config, crtc, DRM_PLANE_TYPE_OVERLAY, name))
			return -ENOMEM;
	}
	snprintf(name, sizeof(name), "cursor-%u", i);
	if (cursor && !flipkms_default_plane(config, crtc, DRM_PLANE_TYPE_CURSOR, name))
		return -ENOMEM;

	snprintf(name, sizeof(name), "encoder-%u", i);
	encoder = flipkms_config_add_encoder(config, name);
	if (!encoder || flipkms_config_link(&encoder->crtcs, crtc))
		return -ENOMEM;
	snprintf(name, sizeof(name), "connector-%u", i);
	connector = flipkms_config_add_connector(config, name);
	if (!connector || flipkms_config_link(&connector->encoders, encoder))
		return -ENOMEM;
	connector->vrr_range = flipkms_vrr_default(i);
	return 0;
}

/**
 * flipkms_config_default() - the device the module parameters describe
 * @outputs:	how many outputs
 * @overlays:	overlay planes per output
 * @cursor:	give each output a cursor plane
 *
 * Each output has writeback, and its connector is connected.
 *
 * Return: The description, or NULL without memory.
 */
struct flipkms_config *flipkms_config_default(unsigned int outputs,
					      unsigned int overlays,
					      bool cursor)
{
	struct flipkms_config *config = flipkms_config_create("default");
	unsigned int i;

	if (!config)
		return NULL;
	config->fbdev = true;
	for (i = 0; i < outputs; i++) {
		if (flipkms_default_output(config, i, overlays, cursor)) {
			flipkms_config_destroy(config);
			return NULL;
		}
	}
	return config;
}

/* The check */

#define flipkms_refuse(config, fmt, ...) ({				\
	pr_err("flipkms: %s: " fmt "\n", (config)->name, ##__VA_ARGS__);	\
	-EINVAL;							\
})

/**
 * flipkms_config_plane_formats() - the formats a plane of @type may offer
 * @type:	primary, overlay or cursor
 *
 * Return: A mask over flipkms_plane_formats(): all of them, for a cursor
 * the RGB ones.
 */
u64 flipkms_config_plane_formats(enum drm_plane_type type)
{
	unsigned int i, n;
	const u32 *formats = flipkms_plane_formats(&n);
	u64 mask = 0;

	for (i = 0; i < n; i++)
		if (type != DRM_PLANE_TYPE_CURSOR ||
		    !drm_format_info(formats[i])->is_yuv)
			mask |= BIT_ULL(i);
	return mask;
}

/* Each plane serves one CRTC: one primary and at most one cursor each. */
static int flipkms_check_planes(struct flipkms_config *config)
{
	unsigned int overlays[FLIPKMS_MAX_OUTPUTS] = { 0 };
	struct flipkms_config_plane *plane;
	struct flipkms_config_crtc *crtc;
	unsigned int n;

	list_for_each_entry(plane, &config->planes, link) {
		if (!(plane->formats & flipkms_config_plane_formats(plane->type)))
			return flipkms_refuse(config,
					      "plane %s offers no format flipkms has for its type",
					      plane->name);
		n = flipkms_links_count(&plane->crtcs);
		if (n != 1)
			return flipkms_refuse(config,
					      "plane %s has %u possible CRTCs: a flipkms plane serves exactly one",
					      plane->name, n);
		crtc = flipkms_links_first(&plane->crtcs);
		if (plane->type == DRM_PLANE_TYPE_PRIMARY) {
			if (crtc->primary)
				return flipkms_refuse(config,
						      "CRTC %s has two primary planes, %s and %s",
						      crtc->name, crtc->primary->name, plane->name);
			crtc->primary = plane;
		} else if (plane->type == DRM_PLANE_TYPE_CURSOR) {
			if (crtc->cursor)
				return flipkms_refuse(config,
						      "CRTC %s has two cursor planes, %s and %s",
						      crtc->name, crtc->cursor->name, plane->name);
			crtc->cursor = plane;
		} else if (++overlays[crtc->index] > FLIPKMS_MAX_OVERLAYS) {
			return flipkms_refuse(config,
					      "CRTC %s has more than %d overlay planes",
					      crtc->name, FLIPKMS_MAX_OVERLAYS);
		}
	}
	list_for_each_entry(crtc, &config->crtcs, link)
		if (!crtc->primary)
			return flipkms_refuse(config,
					      "CRTC %s has no primary plane",
					      crtc->name);
	return 0;
}

/* Each CRTC drives one encoder, which feeds one connector. */
static int flipkms_check_outputs(struct flipkms_config *config)
{
	struct flipkms_config_connector *connector;
	struct flipkms_config_encoder *encoder;
	struct flipkms_config_crtc *crtc;
	unsigned int n;

	list_for_each_entry(encoder, &config->encoders, link) {
		n = flipkms_links_count(&encoder->crtcs);
		if (n != 1)
			return flipkms_refuse(config,
					      "encoder %s has %u possible CRTCs: a flipkms encoder has exactly one",
					      encoder->name, n);
		crtc = flipkms_links_first(&encoder->crtcs);
		if (crtc->encoder)
			return flipkms_refuse(config,
					      "CRTC %s has two encoders, %s and %s",
					      crtc->name, crtc->encoder->name, encoder->name);
		crtc->encoder = encoder;
		encoder->connector = NULL;
		encoder->hot_pluggable = false;
	}
	list_for_each_entry(connector, &config->connectors, link) {
		n = flipkms_links_count(&connector->encoders);
		/* One not built now is checked as it is added (configfs). */
		if (!connector->enabled) {
			if (connector->dynamic && n == 1) {
				encoder = flipkms_links_first(&connector->encoders);
				encoder->hot_pluggable = true;
			}
			continue;
		}
		if (n != 1)
			return flipkms_refuse(config,
					      "connector %s has %u possible encoders: a flipkms connector has exactly one",
					      connector->name, n);
		encoder = flipkms_links_first(&connector->encoders);
		encoder->hot_pluggable |= connector->dynamic;
		if (encoder->connector)
			return flipkms_refuse(config,
					      "encoder %s has two connectors, %s and %s",
					      encoder->name, encoder->connector->name,
					      connector->name);
		encoder->connector = connector;
	}
	list_for_each_entry(crtc, &config->crtcs, link) {
		if (!crtc->encoder)
			return flipkms_refuse(config, "CRTC %s has no encoder", crtc->name);
		if (!crtc->encoder->connector && !crtc->encoder->hot_pluggable)
			return flipkms_refuse(config,
					      "encoder %s has no connector, enabled or dynamic",
					      crtc->encoder->name);
	}
	return 0;
}

/**
 * flipkms_config_check() - whether flipkms can build @config
 * @config:	the description
 *
 * Numbers the CRTCs and finds each one's primary, cursor, encoder and
 * connector for the device's creation.
 *
 * Return: 0, or -EINVAL with a message naming what flipkms cannot build.
 */
int flipkms_config_check(struct flipkms_config *config)
{
	struct flipkms_config_crtc *crtc;
	unsigned int n = 0;
	int ret;

	list_for_each_entry(crtc, &config->crtcs, link) {
		crtc->index = n++;
		crtc->primary = NULL;
		crtc->cursor = NULL;
		crtc->encoder = NULL;
	}
	if (n < 1 || n > FLIPKMS_MAX_OUTPUTS)
		return flipkms_refuse(config,
				      "%u CRTCs: flipkms builds 1 to %d",
				      n, FLIPKMS_MAX_OUTPUTS);
	config->num_crtcs = n;

	ret = flipkms_check_planes(config);
	if (ret)
		return ret;
	return flipkms_check_outputs(config);
}
