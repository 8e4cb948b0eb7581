/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * flipkms: the description a device is built from. The module parameters
 * describe the default device, configfs (flipkms_configfs.c) any other.
 * Objects and their links follow mainline vkms's configfs: planes link to
 * the CRTCs they may serve, encoders to CRTCs, connectors to encoders.
 */

#ifndef _FLIPKMS_CONFIG_H
#define _FLIPKMS_CONFIG_H

#include <linux/list.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include <drm/drm_connector.h>
#include <drm/drm_plane.h>

/* Object names as messages quote them, e.g. configfs directory names. */
#define FLIPKMS_CONFIG_NAME_LEN	32

/* A user EDID: 1 to 8 blocks of EDID_LENGTH (128) bytes, in one write. */
#define FLIPKMS_EDID_MAX_BLOCKS	8
/* The highest zpos a plane may be given. */
#define FLIPKMS_MAX_ZPOS	255
/* A physical size: what an EDID's size in cm can say, in mm. */
#define FLIPKMS_MAX_MM		2550

struct flipkms_config_connector;
struct flipkms_config_encoder;
struct flipkms_output;

/**
 * struct flipkms_config_plane - a plane
 * @link:	in &flipkms_config.planes
 * @name:	for messages
 * @type:	primary, overlay or cursor
 * @formats:	the formats it offers, bit i for flipkms_plane_formats()[i]
 * @zpos:	its place in the stack, -1 for flipkms's order
 * @crtcs:	the CRTCs it may serve (struct flipkms_config_crtc)
 */
struct flipkms_config_plane {
	struct list_head link;
	char name[FLIPKMS_CONFIG_NAME_LEN];
	enum drm_plane_type type;
	u64 formats;
	int zpos;
	struct xarray crtcs;
};

/**
 * struct flipkms_config_crtc - a CRTC, and the output flipkms builds on it
 * @link:	in &flipkms_config.crtcs
 * @name:	for messages
 * @writeback:	give it a writeback connector
 * @refresh:	the preferred mode's rate, in Hz
 * @signal_delay_us: the faults debugfs controls, as the device starts
 * @drop_vblanks: likewise
 * @stall_ms:	likewise (stall_commit_ms)
 * @fence_error: likewise
 * @vrr_hold:	likewise
 * @index:	its index on the device, set by flipkms_config_check()
 * @primary:	its primary plane, set likewise
 * @cursor:	its cursor plane or NULL, set likewise
 * @encoder:	its encoder, set likewise
 */
struct flipkms_config_crtc {
	struct list_head link;
	char name[FLIPKMS_CONFIG_NAME_LEN];
	bool writeback;
	unsigned int refresh;
	unsigned int signal_delay_us;
	unsigned int drop_vblanks;
	unsigned int stall_ms;
	unsigned int fence_error;
	unsigned int vrr_hold;
	unsigned int index;
	struct flipkms_config_plane *primary;
	struct flipkms_config_plane *cursor;
	struct flipkms_config_encoder *encoder;
};

/**
 * struct flipkms_config_encoder - an encoder
 * @link:	in &flipkms_config.encoders
 * @name:	for messages
 * @crtcs:	the CRTCs it may be driven by (struct flipkms_config_crtc)
 * @connector:	the connector it feeds as the device is built, or NULL,
 *		set by flipkms_config_check()
 * @hot_pluggable: a dynamic connector links to it, set likewise
 * @out:	the output built for it while its device exists, for
 *		dynamic connectors
 */
struct flipkms_config_encoder {
	struct list_head link;
	char name[FLIPKMS_CONFIG_NAME_LEN];
	struct xarray crtcs;
	struct flipkms_config_connector *connector;
	bool hot_pluggable;
	struct flipkms_output *out;
};

/**
 * struct flipkms_config_connector - a connector and the monitor on it
 * @link:	in &flipkms_config.connectors
 * @name:	for messages
 * @status:	what detection reports: connected, disconnected or unknown
 * @type:	its DRM_MODE_CONNECTOR_* type
 * @width:	width of the preferred mode
 * @height:	height of the preferred mode
 * @width_mm:	the monitor's physical width, 0: the preferred mode's at 96 dpi
 * @height_mm:	its physical height, likewise
 * @vrr_range:	its refresh range, flipkms_vrr_pack()ed
 * @edid:	a user EDID that replaces the generated one, or NULL
 * @edid_len:	its length in bytes
 * @encoders:	the encoders that may feed it (struct flipkms_config_encoder)
 * @dynamic:	it may be added to and removed from an enabled device
 * @enabled:	it is built: with the device, or added while it is enabled
 * @out:	the output it is on while its device exists and it is
 *		built, for hot-plug
 */
struct flipkms_config_connector {
	struct list_head link;
	char name[FLIPKMS_CONFIG_NAME_LEN];
	bool dynamic;
	bool enabled;
	enum drm_connector_status status;
	int type;
	unsigned int width, height;
	unsigned int width_mm, height_mm;
	u32 vrr_range;
	u8 *edid;
	size_t edid_len;
	struct xarray encoders;
	struct flipkms_output *out;
};

/**
 * struct flipkms_config - a whole device
 * @name:		for messages
 * @planes:		its planes, in the order their overlays stack
 * @crtcs:		its CRTCs, in index order
 * @encoders:		its encoders
 * @connectors:		its connectors
 * @num_crtcs:		how many CRTCs, counted by flipkms_config_check()
 * @fbdev:		emulate an fbdev on the first output
 * @fail_output:	test only: creating this output fails, -1 for none
 */
struct flipkms_config {
	char name[FLIPKMS_CONFIG_NAME_LEN];
	struct list_head planes;
	struct list_head crtcs;
	struct list_head encoders;
	struct list_head connectors;
	unsigned int num_crtcs;
	bool fbdev;
	int fail_output;
};

struct flipkms_config *flipkms_config_create(const char *name);
void flipkms_config_destroy(struct flipkms_config *config);
struct flipkms_config *flipkms_config_default(unsigned int outputs,
					      unsigned int overlays,
					      bool cursor);
int flipkms_config_check(struct flipkms_config *config);

struct flipkms_config_plane *flipkms_config_add_plane(struct flipkms_config *config,
						      const char *name);
struct flipkms_config_crtc *flipkms_config_add_crtc(struct flipkms_config *config,
						    const char *name);
struct flipkms_config_encoder *flipkms_config_add_encoder(struct flipkms_config *config,
							  const char *name);
struct flipkms_config_connector *
flipkms_config_add_connector(struct flipkms_config *config, const char *name);
void flipkms_config_remove_plane(struct flipkms_config_plane *plane);
void flipkms_config_remove_crtc(struct flipkms_config_crtc *crtc);
void flipkms_config_remove_encoder(struct flipkms_config_encoder *encoder);
void flipkms_config_remove_connector(struct flipkms_config_connector *connector);

struct flipkms_config_crtc *
flipkms_config_plane_crtc(struct flipkms_config_plane *plane);
struct flipkms_config_encoder *
flipkms_config_connector_encoder(struct flipkms_config_connector *connector);
int flipkms_config_link(struct xarray *links, void *target);
bool flipkms_config_connector_type_ok(int type);
u64 flipkms_config_plane_formats(enum drm_plane_type type);
int flipkms_config_edid_check(const u8 *edid, size_t len);
void flipkms_config_unlink(struct xarray *links, void *target);

#endif /* _FLIPKMS_CONFIG_H */
