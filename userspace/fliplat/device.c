// SPDX-License-Identifier: MIT
/*
 * Finding and preparing the KMS device fliplat flips on. Nothing here is
 * specific to one driver: it takes what the device offers, and says clearly
 * what is missing when it cannot run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>

#include "device.h"

int64_t fl_mode_period_ns(const drmModeModeInfo *mode)
{
	if (!mode->clock)
		return 0;
	return (int64_t)mode->htotal * mode->vtotal * 1000000 / mode->clock;
}

static uint32_t prop_id(int fd, uint32_t obj, uint32_t type, const char *name)
{
	drmModeObjectProperties *props = drmModeObjectGetProperties(fd, obj, type);
	uint32_t id = 0, i;

	for (i = 0; props && i < props->count_props && !id; i++) {
		drmModePropertyRes *p = drmModeGetProperty(fd, props->props[i]);

		if (p && !strcmp(p->name, name))
			id = p->prop_id;
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(props);
	return id;
}

static bool prop_value(int fd, uint32_t obj, uint32_t type, const char *name, uint64_t *value)
{
	drmModeObjectProperties *props = drmModeObjectGetProperties(fd, obj, type);
	bool found = false;
	uint32_t i;

	for (i = 0; props && i < props->count_props && !found; i++) {
		drmModePropertyRes *p = drmModeGetProperty(fd, props->props[i]);

		if (p && !strcmp(p->name, name)) {
			*value = props->prop_values[i];
			found = true;
		}
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(props);
	return found;
}

static bool has_connected_output(int fd)
{
	drmModeRes *res = drmModeGetResources(fd);
	bool found = false;
	int i;

	for (i = 0; res && i < res->count_connectors && !found; i++) {
		drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);

		found = c && c->connection == DRM_MODE_CONNECTED && c->count_modes > 0;
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	return found;
}

/* Opens @path; FL_EXIT_OK or the reason it is unusable, said on stderr if @loud. */
static int open_card(struct fl_device *dev, const char *path, bool loud)
{
	drmVersion *v;
	int fd;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		if (loud)
			fprintf(stderr, "fliplat: %s: %s%s\n", path, strerror(err),
				err == EACCES ? " (run as root or join the video group)" : "");
		return err == EACCES || err == EPERM ? FL_EXIT_PERMISSION : FL_EXIT_NO_DEVICE;
	}
	if (!drmIsKMS(fd)) {
		if (loud)
			fprintf(stderr, "fliplat: %s is not a KMS device\n", path);
		close(fd);
		return FL_EXIT_NO_DEVICE;
	}
	dev->fd = fd;
	snprintf(dev->path, sizeof(dev->path), "%s", path);
	v = drmGetVersion(fd);
	snprintf(dev->driver, sizeof(dev->driver), "%s", v ? v->name : "?");
	snprintf(dev->desc, sizeof(dev->desc), "%s", v && v->desc ? v->desc : "");
	drmFreeVersion(v);
	return FL_EXIT_OK;
}

static int find_card(struct fl_device *dev, const char *want)
{
	int i, ret, denied = 0;
	char path[64];

	if (want) {
		ret = open_card(dev, want, true);
		if (ret == FL_EXIT_OK && !has_connected_output(dev->fd)) {
			fprintf(stderr, "fliplat: %s (%s) has no connected output\n", want,
				dev->driver);
			close(dev->fd);
			return FL_EXIT_NO_DEVICE;
		}
		return ret;
	}
	for (i = 0; i < 64; i++) {
		snprintf(path, sizeof(path), "%s%d", DRM_DIR_NAME "/card", i);
		if (access(path, F_OK))
			continue;
		ret = open_card(dev, path, false);
		if (ret == FL_EXIT_PERMISSION)
			denied++;
		if (ret != FL_EXIT_OK)
			continue;
		if (has_connected_output(dev->fd))
			return FL_EXIT_OK;
		close(dev->fd);
	}
	if (denied) {
		fprintf(stderr, "fliplat: permission denied opening %d KMS device(s) in "
			DRM_DIR_NAME " (run as root or join the video group)\n", denied);
		return FL_EXIT_PERMISSION;
	}
	fputs("fliplat: no KMS device with a connected output in " DRM_DIR_NAME
	      " (is a display driver such as flipkms or vkms loaded?)\n", stderr);
	return FL_EXIT_NO_DEVICE;
}

/* Being DRM master is what lets us modeset; a compositor may hold it. */
static int become_master(struct fl_device *dev)
{
	if (drmIsMaster(dev->fd) || !drmSetMaster(dev->fd))
		return FL_EXIT_OK;
	if (errno == EACCES || errno == EPERM) {
		fprintf(stderr, "fliplat: %s: not allowed to become DRM master (%s); another "
			"process may hold it, or run as root\n", dev->path, strerror(errno));
		return FL_EXIT_PERMISSION;
	}
	fprintf(stderr, "fliplat: %s is busy: another DRM master (a compositor?) holds it (%s)\n",
		dev->path, strerror(errno));
	return FL_EXIT_BUSY;
}

static bool connector_matches(const drmModeConnector *c, const char *name, const char *want)
{
	char *end;
	unsigned long id;

	if (!want)
		return true;
	id = strtoul(want, &end, 10);
	if (!*end)
		return id == c->connector_id;
	return !strcmp(name, want);
}

/* The first CRTC @c can drive that no earlier output took (or @want). */
static int pick_crtc(int fd, const drmModeRes *res, const drmModeConnector *c, uint32_t want,
		     uint32_t taken, int *index)
{
	uint32_t possible = 0;
	int i;

	for (i = 0; i < c->count_encoders; i++) {
		drmModeEncoder *e = drmModeGetEncoder(fd, c->encoders[i]);

		if (e)
			possible |= e->possible_crtcs;
		drmModeFreeEncoder(e);
	}
	for (i = 0; i < res->count_crtcs && i < 32; i++) {
		if (!(possible & (1u << i)) || (taken & (1u << i)))
			continue;
		if (want && res->crtcs[i] != want)
			continue;
		*index = i;
		return 0;
	}
	return -1;
}

static bool mode_matches(const drmModeModeInfo *m, const struct fl_options *o, bool by_refresh)
{
	int64_t period = fl_mode_period_ns(m);

	if (o->width && (m->hdisplay != o->width || m->vdisplay != o->height))
		return false;
	if (by_refresh && o->refresh && period &&
	    llabs(1000000000LL / o->refresh - period) * 1000 > period)
		return false;
	return true;
}

/* A user mode: @base's timings with the pixel clock set for @hz. */
static drmModeModeInfo mode_at_refresh(const drmModeModeInfo *base, unsigned int hz)
{
	drmModeModeInfo m = *base;

	m.clock = (uint32_t)(((uint64_t)m.htotal * m.vtotal * hz + 500) / 1000);
	m.vrefresh = hz;
	m.type = DRM_MODE_TYPE_USERDEF;
	snprintf(m.name, sizeof(m.name), "%ux%u@%u", m.hdisplay, m.vdisplay, hz);
	return m;
}

static int pick_mode(const drmModeConnector *c, const struct fl_options *o, drmModeModeInfo *mode)
{
	const drmModeModeInfo *best = NULL;
	int i, pass;

	/* Exact (size and rate) first, then the size at any rate to retime. */
	for (pass = 0; pass < 2 && !best; pass++) {
		for (i = 0; i < c->count_modes; i++) {
			const drmModeModeInfo *m = &c->modes[i];

			if (!mode_matches(m, o, pass == 0))
				continue;
			if (!best || ((m->type & DRM_MODE_TYPE_PREFERRED) &&
				      !(best->type & DRM_MODE_TYPE_PREFERRED)))
				best = m;
		}
	}
	if (!best)
		return -1;
	*mode = *best;
	if (o->refresh && !mode_matches(best, o, true))
		*mode = mode_at_refresh(best, o->refresh);
	return 0;
}

static uint32_t primary_plane(int fd, int crtc_index, uint32_t taken_planes[], unsigned int n)
{
	drmModePlaneRes *res = drmModeGetPlaneResources(fd);
	uint32_t id = 0, i, k;
	uint64_t type = 0;

	for (i = 0; res && i < res->count_planes && !id; i++) {
		drmModePlane *p = drmModeGetPlane(fd, res->planes[i]);
		bool free_plane = true;

		for (k = 0; k < n; k++)
			free_plane &= taken_planes[k] != res->planes[i];
		if (p && free_plane && (p->possible_crtcs & (1u << crtc_index)) &&
		    prop_value(fd, p->plane_id, DRM_MODE_OBJECT_PLANE, "type", &type) &&
		    type == DRM_PLANE_TYPE_PRIMARY)
			id = p->plane_id;
		drmModeFreePlane(p);
	}
	drmModeFreePlaneResources(res);
	return id;
}

/* The plane's source and destination rectangles, as in fl_output. */
static const char *const plane_src_names[4] = { "SRC_X", "SRC_Y", "SRC_W", "SRC_H" };
static const char *const plane_crtc_names[4] = { "CRTC_X", "CRTC_Y", "CRTC_W", "CRTC_H" };

static void lookup_props(int fd, struct fl_output *out)
{
	int i;

	out->conn_crtc_id = prop_id(fd, out->connector_id, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID");
	out->crtc_mode_id = prop_id(fd, out->crtc_id, DRM_MODE_OBJECT_CRTC, "MODE_ID");
	out->crtc_active = prop_id(fd, out->crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE");
	out->crtc_out_fence_ptr = prop_id(fd, out->crtc_id, DRM_MODE_OBJECT_CRTC,
					  "OUT_FENCE_PTR");
	out->crtc_vrr_enabled = prop_id(fd, out->crtc_id, DRM_MODE_OBJECT_CRTC, "VRR_ENABLED");
	out->plane_fb_id = prop_id(fd, out->plane_id, DRM_MODE_OBJECT_PLANE, "FB_ID");
	out->plane_crtc_id = prop_id(fd, out->plane_id, DRM_MODE_OBJECT_PLANE, "CRTC_ID");
	out->plane_in_fence_fd = prop_id(fd, out->plane_id, DRM_MODE_OBJECT_PLANE, "IN_FENCE_FD");
	for (i = 0; i < 4; i++) {
		out->plane_src[i] = prop_id(fd, out->plane_id, DRM_MODE_OBJECT_PLANE,
					    plane_src_names[i]);
		out->plane_crtc[i] = prop_id(fd, out->plane_id, DRM_MODE_OBJECT_PLANE,
					     plane_crtc_names[i]);
	}
}

/* A dumb XRGB8888 framebuffer of one colour. */
static int make_fb(int fd, const drmModeModeInfo *mode, uint32_t xrgb, struct fl_fb *fb)
{
	struct drm_mode_create_dumb create = {
		.width = mode->hdisplay, .height = mode->vdisplay, .bpp = 32,
	};
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };
	struct drm_mode_map_dumb map = { 0 };
	uint32_t *px;
	uint64_t i;

	if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create))
		return -errno;
	fb->handle = create.handle;
	fb->pitch = create.pitch;
	fb->size = create.size;
	map.handle = create.handle;
	if (!drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map)) {
		px = mmap(NULL, fb->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, map.offset);
		if (px != MAP_FAILED) {
			for (i = 0; i < fb->size / 4; i++)
				px[i] = xrgb;
			munmap(px, fb->size);
		}
	}
	handles[0] = fb->handle;
	pitches[0] = fb->pitch;
	if (drmModeAddFB2(fd, mode->hdisplay, mode->vdisplay, DRM_FORMAT_XRGB8888, handles,
			  pitches, offsets, &fb->fb_id, 0))
		return -errno;
	return 0;
}

static void free_fb(int fd, struct fl_fb *fb)
{
	struct drm_mode_destroy_dumb destroy = { .handle = fb->handle };

	if (fb->fb_id)
		drmModeRmFB(fd, fb->fb_id);
	if (fb->handle)
		drmIoctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy);
	*fb = (struct fl_fb){ 0 };
}

/*
 * The vertical range of the EDID's range limits descriptor (tag 0xFD), in
 * Hz; false if the connector has no EDID or the EDID no such descriptor.
 */
static bool edid_vrr_range(int fd, uint32_t connector, unsigned int *min, unsigned int *max)
{
	drmModePropertyBlobRes *blob;
	const uint8_t *e, *d;
	uint64_t id = 0;
	bool found = false;
	size_t k;

	if (!prop_value(fd, connector, DRM_MODE_OBJECT_CONNECTOR, "EDID", &id) || !id)
		return false;
	blob = drmModeGetPropertyBlob(fd, (uint32_t)id);
	if (!blob)
		return false;
	e = blob->data;
	/* The four 18-byte descriptors of the base block. */
	for (k = 0; blob->length >= 128 && k < 4 && !found; k++) {
		d = e + 54 + 18 * k;
		if (d[0] || d[1] || d[3] != 0xfd)
			continue;
		/* Byte 4's bits 0 and 1: 255 Hz more for the minimum and maximum. */
		*min = d[5] + (d[4] & 1 ? 255 : 0);
		*max = d[6] + (d[4] & 2 ? 255 : 0);
		found = *min && *min <= *max;
	}
	drmModeFreePropertyBlob(blob);
	return found;
}

/*
 * --vrr: a vrr_capable connector, a CRTC with VRR_ENABLED, a range (given,
 * or the EDID's) and a mode inside it, where VRR applies; FL_EXIT_*.
 */
static int check_vrr(const struct fl_device *dev, struct fl_output *out,
		     const struct fl_options *o)
{
	uint64_t capable = 0;
	unsigned int hz = out->mode.vrefresh;

	if (!prop_value(dev->fd, out->connector_id, DRM_MODE_OBJECT_CONNECTOR, "vrr_capable",
			&capable) || !capable) {
		fprintf(stderr, "fliplat: %s's connector %s is not vrr_capable: no variable "
			"refresh to measure (drop --vrr)\n", dev->driver, out->connector);
		return FL_EXIT_UNSUPPORTED;
	}
	if (!out->crtc_vrr_enabled) {
		fprintf(stderr, "fliplat: %s's CRTC %u has no VRR_ENABLED property (drop --vrr)\n",
			dev->driver, out->crtc_id);
		return FL_EXIT_UNSUPPORTED;
	}
	out->vrr_min_hz = o->vrr_min_hz;
	out->vrr_max_hz = o->vrr_max_hz;
	if (!out->vrr_min_hz &&
	    !edid_vrr_range(dev->fd, out->connector_id, &out->vrr_min_hz, &out->vrr_max_hz)) {
		fprintf(stderr, "fliplat: %s's EDID has no range limits: give the range, "
			"--vrr-range MIN-MAX\n", out->connector);
		return FL_EXIT_UNSUPPORTED;
	}
	if (hz < out->vrr_min_hz || hz > out->vrr_max_hz) {
		fprintf(stderr, "fliplat: mode %s at %u Hz is outside the VRR range %u-%u Hz, "
			"where the display keeps its fixed refresh (pick a --refresh inside)\n",
			out->mode.name, hz, out->vrr_min_hz, out->vrr_max_hz);
		return FL_EXIT_UNSUPPORTED;
	}
	return FL_EXIT_OK;
}

/* What a mode needs from the driver for @o's flips; FL_EXIT_*. */
static int check_features(const struct fl_device *dev, struct fl_output *out,
			  const struct fl_options *o)
{
	if (!fl_mode_has_fence(o->mode))
		return FL_EXIT_OK;
	if (!out->crtc_out_fence_ptr) {
		fprintf(stderr, "fliplat: %s's CRTC %u has no OUT_FENCE_PTR property: no "
			"out-fences to measure (try --legacy)\n", dev->driver, out->crtc_id);
		return FL_EXIT_UNSUPPORTED;
	}
	if (o->mode == FL_MODE_INFENCE && !out->plane_in_fence_fd) {
		fprintf(stderr, "fliplat: %s's plane %u has no IN_FENCE_FD property (drop "
			"--infence)\n", dev->driver, out->plane_id);
		return FL_EXIT_UNSUPPORTED;
	}
	return o->vrr ? check_vrr(dev, out, o) : FL_EXIT_OK;
}

static int pick_outputs(struct fl_device *dev, const struct fl_options *o)
{
	drmModeRes *res = drmModeGetResources(dev->fd);
	uint32_t taken = 0, planes[FL_MAX_CRTCS] = { 0 };
	int i, ret = FL_EXIT_OK, rejected_mode = 0;

	if (!res) {
		fprintf(stderr, "fliplat: %s: no KMS resources (%s)\n", dev->path, strerror(errno));
		return FL_EXIT_NO_DEVICE;
	}
	for (i = 0; i < res->count_connectors && dev->noutputs < FL_MAX_CRTCS; i++) {
		drmModeConnector *c = drmModeGetConnector(dev->fd, res->connectors[i]);
		struct fl_output *out = &dev->outputs[dev->noutputs];
		char name[32];

		if (!c)
			continue;
		snprintf(name, sizeof(name), "%s-%u", drmModeGetConnectorTypeName(c->connector_type)
			 ?: "Unknown", c->connector_type_id);
		if (c->connection != DRM_MODE_CONNECTED || !c->count_modes ||
		    !connector_matches(c, name, o->connector)) {
			drmModeFreeConnector(c);
			continue;
		}
		*out = (struct fl_output){ .connector_id = c->connector_id };
		snprintf(out->connector, sizeof(out->connector), "%s", name);
		if (pick_mode(c, o, &out->mode)) {
			rejected_mode++;
			drmModeFreeConnector(c);
			continue;
		}
		if (pick_crtc(dev->fd, res, c, o->crtc_id, taken, &out->crtc_index)) {
			drmModeFreeConnector(c);
			/* --crtcs all: outputs beyond the CRTCs there are stay dark. */
			if (o->all_outputs && dev->noutputs)
				continue;
			fprintf(stderr, "fliplat: no %sCRTC for connector %s\n",
				o->crtc_id ? "such " : "free ", name);
			ret = FL_EXIT_NO_DEVICE;
			break;
		}
		drmModeFreeConnector(c);
		out->crtc_id = res->crtcs[out->crtc_index];
		out->plane_id = primary_plane(dev->fd, out->crtc_index, planes, dev->noutputs);
		if (!out->plane_id) {
			fprintf(stderr, "fliplat: no primary plane for CRTC %u\n", out->crtc_id);
			ret = FL_EXIT_UNSUPPORTED;
			break;
		}
		planes[dev->noutputs] = out->plane_id;
		taken |= 1u << out->crtc_index;
		lookup_props(dev->fd, out);
		ret = check_features(dev, out, o);
		if (ret)
			break;
		dev->noutputs++;
		if (!o->all_outputs)
			break;
	}
	drmModeFreeResources(res);
	if (ret == FL_EXIT_OK && !dev->noutputs) {
		if (rejected_mode)
			fprintf(stderr, "fliplat: no connected output of %s offers mode %ux%u\n",
				dev->path, o->width, o->height);
		else
			fprintf(stderr, "fliplat: %s has no connected connector%s%s\n", dev->path,
				o->connector ? " named " : "", o->connector ?: "");
		ret = FL_EXIT_NO_DEVICE;
	}
	return ret;
}

/*
 * Event timestamps must be CLOCK_MONOTONIC to be compared with the fences'
 * and ours (IGT's kms_flip refuses the same devices).
 */
static int check_monotonic(const struct fl_device *dev)
{
	uint64_t monotonic = 0;

	if (drmGetCap(dev->fd, DRM_CAP_TIMESTAMP_MONOTONIC, &monotonic) || !monotonic) {
		fprintf(stderr, "fliplat: %s (%s) does not stamp its events with "
			"CLOCK_MONOTONIC (DRM_CAP_TIMESTAMP_MONOTONIC): its times cannot be "
			"compared with the fences'\n", dev->path, dev->driver);
		return FL_EXIT_UNSUPPORTED;
	}
	return FL_EXIT_OK;
}

/* --async: the driver must take DRM_MODE_PAGE_FLIP_ASYNC (vkms does not). */
static int check_async(const struct fl_device *dev, const struct fl_options *o)
{
	uint64_t async = 0;

	if (o->mode != FL_MODE_ASYNC)
		return FL_EXIT_OK;
	if (drmGetCap(dev->fd, DRM_CAP_ASYNC_PAGE_FLIP, &async) || !async) {
		fprintf(stderr, "fliplat: %s (%s) has no async page flips "
			"(DRM_CAP_ASYNC_PAGE_FLIP is 0): no tearing flips to measure "
			"(drop --async)\n", dev->path, dev->driver);
		return FL_EXIT_UNSUPPORTED;
	}
	return FL_EXIT_OK;
}

int fl_device_open(struct fl_device *dev, const struct fl_options *o)
{
	unsigned int i;
	int ret, k;

	memset(dev, 0, sizeof(*dev));
	dev->fd = -1;
	ret = find_card(dev, o->device);
	if (ret)
		return ret;
	ret = become_master(dev);
	if (ret)
		goto fail;
	ret = check_monotonic(dev);
	if (!ret)
		ret = check_async(dev, o);
	if (ret)
		goto fail;
	drmSetClientCap(dev->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
	dev->atomic = !drmSetClientCap(dev->fd, DRM_CLIENT_CAP_ATOMIC, 1);
	if (!dev->atomic && fl_mode_has_fence(o->mode)) {
		fprintf(stderr, "fliplat: %s (%s) has no atomic modesetting: no out-fences "
			"(try --legacy)\n", dev->path, dev->driver);
		ret = FL_EXIT_UNSUPPORTED;
		goto fail;
	}
	ret = pick_outputs(dev, o);
	if (ret)
		goto fail;
	for (i = 0; i < dev->noutputs; i++) {
		for (k = 0; k < 2; k++) {
			/* Two shades, so that every flip changes the picture. */
			if (make_fb(dev->fd, &dev->outputs[i].mode, k ? 0x203040 : 0x406080,
				    &dev->outputs[i].fb[k])) {
				fprintf(stderr, "fliplat: cannot make a %ux%u framebuffer: %s\n",
					dev->outputs[i].mode.hdisplay,
					dev->outputs[i].mode.vdisplay, strerror(errno));
				ret = FL_EXIT_FAILED;
				goto fail;
			}
		}
	}
	return FL_EXIT_OK;
fail:
	fl_device_close(dev);
	return ret;
}

/*
 * Adds the properties of @out that fliplat sets, with these values, to @req;
 * the first error of drmModeAtomicAddProperty() (-errno), else 0.
 */
static int add_output(drmModeAtomicReq *req, const struct fl_output *out, uint64_t conn_crtc,
		      uint64_t mode_id, uint64_t active, uint64_t fb, uint64_t plane_crtc,
		      const uint64_t src[4], const uint64_t dst[4])
{
	int ret, k;

	ret = drmModeAtomicAddProperty(req, out->connector_id, out->conn_crtc_id, conn_crtc);
	if (ret >= 0)
		ret = drmModeAtomicAddProperty(req, out->crtc_id, out->crtc_mode_id, mode_id);
	if (ret >= 0)
		ret = drmModeAtomicAddProperty(req, out->crtc_id, out->crtc_active, active);
	if (ret >= 0)
		ret = drmModeAtomicAddProperty(req, out->plane_id, out->plane_fb_id, fb);
	if (ret >= 0)
		ret = drmModeAtomicAddProperty(req, out->plane_id, out->plane_crtc_id, plane_crtc);
	for (k = 0; k < 4 && ret >= 0; k++) {
		ret = drmModeAtomicAddProperty(req, out->plane_id, out->plane_src[k], src[k]);
		if (ret >= 0)
			ret = drmModeAtomicAddProperty(req, out->plane_id, out->plane_crtc[k],
						       dst[k]);
	}
	return ret < 0 ? ret : 0;
}

static int atomic_modeset(struct fl_device *dev, bool vrr)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	unsigned int i;
	int ret = 0;

	if (!req)
		return -ENOMEM;
	for (i = 0; i < dev->noutputs && !ret; i++) {
		struct fl_output *out = &dev->outputs[i];
		uint64_t src[4] = { 0, 0, (uint64_t)out->mode.hdisplay << 16,
				    (uint64_t)out->mode.vdisplay << 16 };
		uint64_t dst[4] = { 0, 0, out->mode.hdisplay, out->mode.vdisplay };

		if (drmModeCreatePropertyBlob(dev->fd, &out->mode, sizeof(out->mode),
					      &out->mode_blob))
			ret = -errno;
		else
			ret = add_output(req, out, out->crtc_id, out->mode_blob, 1,
					 out->fb[0].fb_id, out->crtc_id, src, dst);
		/* VRR is active from the refresh that latches the modeset. */
		if (!ret && vrr)
			ret = drmModeAtomicAddProperty(req, out->crtc_id, out->crtc_vrr_enabled,
						       1) < 0 ? -EINVAL : 0;
	}
	if (!ret)
		ret = drmModeAtomicCommit(dev->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL) ?
		      -errno : 0;
	drmModeAtomicFree(req);
	return ret;
}

/* Copies the mode in blob @mode_id (0: none) into @s. */
static bool save_mode(int fd, uint64_t mode_id, struct fl_saved *s)
{
	drmModePropertyBlobRes *blob;

	if (!mode_id)
		return true;
	blob = drmModeGetPropertyBlob(fd, (uint32_t)mode_id);
	s->has_mode = blob && blob->length == sizeof(s->mode);
	if (s->has_mode)
		memcpy(&s->mode, blob->data, sizeof(s->mode));
	drmModeFreePropertyBlob(blob);
	return s->has_mode;
}

/* Reads what @out's connector, CRTC and plane show now into @out->saved. */
static void save_output(int fd, bool atomic, struct fl_output *out)
{
	struct fl_saved *s = &out->saved;
	uint64_t mode_id;
	bool ok;
	int k;

	memset(s, 0, sizeof(*s));
	if (!atomic) {
		s->crtc = drmModeGetCrtc(fd, out->crtc_id);
		s->valid = s->crtc;
		return;
	}
	ok = prop_value(fd, out->connector_id, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID",
			&s->conn_crtc) &&
	     prop_value(fd, out->crtc_id, DRM_MODE_OBJECT_CRTC, "MODE_ID", &mode_id) &&
	     save_mode(fd, mode_id, s) &&
	     prop_value(fd, out->crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE", &s->active) &&
	     prop_value(fd, out->plane_id, DRM_MODE_OBJECT_PLANE, "FB_ID", &s->fb) &&
	     prop_value(fd, out->plane_id, DRM_MODE_OBJECT_PLANE, "CRTC_ID", &s->plane_crtc);
	for (k = 0; k < 4 && ok; k++)
		ok = prop_value(fd, out->plane_id, DRM_MODE_OBJECT_PLANE, plane_src_names[k],
				&s->src[k]) &&
		     prop_value(fd, out->plane_id, DRM_MODE_OBJECT_PLANE, plane_crtc_names[k],
				&s->dst[k]);
	s->valid = ok;
}

/*
 * Puts back what fl_device_modeset() found, before our framebuffers go
 * (removing a framebuffer on show would switch the output off instead).
 * If the old state cannot be restored (its framebuffer is gone, say), the
 * outputs are switched off, so that nothing keeps scanning out ours.
 */
static void restore_outputs(struct fl_device *dev)
{
	static const uint64_t zero[4];
	uint32_t blobs[FL_MAX_CRTCS] = { 0 };
	drmModeAtomicReq *req;
	unsigned int i;
	int ret = 0;

	if (!dev->atomic) {
		for (i = 0; i < dev->noutputs; i++) {
			struct fl_output *out = &dev->outputs[i];
			drmModeCrtc *c = out->saved.crtc;
			bool on = c && c->buffer_id && c->mode_valid;

			if (drmModeSetCrtc(dev->fd, out->crtc_id, on ? c->buffer_id : 0,
					   on ? c->x : 0, on ? c->y : 0,
					   on ? &out->connector_id : NULL, on,
					   on ? &c->mode : NULL) && on)
				drmModeSetCrtc(dev->fd, out->crtc_id, 0, 0, 0, NULL, 0, NULL);
		}
		return;
	}
	req = drmModeAtomicAlloc();
	for (i = 0; req && i < dev->noutputs && !ret; i++) {
		const struct fl_output *out = &dev->outputs[i];
		const struct fl_saved *s = &out->saved;

		if (!s->valid)
			ret = -EINVAL;
		else if (s->has_mode &&
			 drmModeCreatePropertyBlob(dev->fd, &s->mode, sizeof(s->mode), &blobs[i]))
			ret = -errno;
		else
			ret = add_output(req, out, s->conn_crtc, blobs[i], s->active, s->fb,
					 s->plane_crtc, s->src, s->dst);
		/* --vrr set it; nothing else fliplat knows of did. */
		if (!ret && out->vrr_min_hz)
			ret = drmModeAtomicAddProperty(req, out->crtc_id, out->crtc_vrr_enabled,
						       0) < 0 ? -EINVAL : 0;
	}
	if (!req)
		ret = -ENOMEM;
	else if (!ret && drmModeAtomicCommit(dev->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL))
		ret = -errno;
	drmModeAtomicFree(req);
	/* The committed state holds its own reference to each mode. */
	for (i = 0; i < dev->noutputs; i++)
		if (blobs[i])
			drmModeDestroyPropertyBlob(dev->fd, blobs[i]);
	if (!ret)
		return;
	fprintf(stderr, "fliplat: could not restore what the outputs showed before (%s); "
		"switching them off\n", strerror(-ret));
	req = drmModeAtomicAlloc();
	for (i = 0, ret = 0; req && i < dev->noutputs && !ret; i++)
		ret = add_output(req, &dev->outputs[i], 0, 0, 0, 0, 0, zero, zero);
	if (req && !ret)
		drmModeAtomicCommit(dev->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL);
	drmModeAtomicFree(req);
}

int fl_device_modeset(struct fl_device *dev, const struct fl_options *o)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < dev->noutputs; i++)
		save_output(dev->fd, dev->atomic, &dev->outputs[i]);
	/* Even a failed modeset may have changed some outputs: restore them all. */
	dev->modeset = true;
	if (dev->atomic && fl_mode_has_fence(o->mode)) {
		ret = atomic_modeset(dev, o->vrr);
	} else {
		for (i = 0; i < dev->noutputs && !ret; i++) {
			struct fl_output *out = &dev->outputs[i];

			if (drmModeSetCrtc(dev->fd, out->crtc_id, out->fb[0].fb_id, 0, 0,
					   &out->connector_id, 1, &out->mode))
				ret = -errno;
		}
	}
	if (!ret)
		return FL_EXIT_OK;
	fprintf(stderr, "fliplat: setting mode %s on %s failed: %s\n", dev->outputs[0].mode.name,
		dev->path, strerror(-ret));
	return ret == -EACCES || ret == -EPERM ? FL_EXIT_PERMISSION :
	       ret == -EINVAL || ret == -ERANGE ? FL_EXIT_NO_DEVICE : FL_EXIT_FAILED;
}

void fl_device_close(struct fl_device *dev)
{
	unsigned int i;

	if (dev->fd < 0)
		return;
	if (dev->modeset && !dev->unplugged)
		restore_outputs(dev);
	for (i = 0; i < dev->noutputs; i++) {
		drmModeFreeCrtc(dev->outputs[i].saved.crtc);
		free_fb(dev->fd, &dev->outputs[i].fb[0]);
		free_fb(dev->fd, &dev->outputs[i].fb[1]);
		if (dev->outputs[i].mode_blob)
			drmModeDestroyPropertyBlob(dev->fd, dev->outputs[i].mode_blob);
	}
	close(dev->fd);
	dev->fd = -1;
}
