// SPDX-License-Identifier: MIT
/*
 * kms.c: the helpers declared in kms.h, shared by every test in tests/kms.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>

#include <drm_fourcc.h>

#include "kms.h"

/* --- device ------------------------------------------------------------- */

static bool has_connected_connector(int fd)
{
	drmModeRes *res = drmModeGetResources(fd);
	bool found = false;
	int i;

	if (!res)
		return false;
	for (i = 0; i < res->count_connectors && !found; i++) {
		drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);

		if (c && c->connection == DRM_MODE_CONNECTED && c->count_modes > 0)
			found = true;
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	return found;
}

int kms_open(struct kms_dev *dev, const char *driver, unsigned int caps)
{
	bool any = !driver || !*driver;
	int i;

	memset(dev, 0, sizeof(*dev));
	dev->fd = -1;
	for (i = 0; i < 16; i++) {
		drmVersionPtr v;
		int fd;

		snprintf(dev->path, sizeof(dev->path), "/dev/dri/card%d", i);
		fd = open(dev->path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (v && (any ? has_connected_connector(fd) : !strcmp(v->name, driver))) {
			snprintf(dev->driver, sizeof(dev->driver), "%s", v->name);
			drmFreeVersion(v);
			dev->fd = fd;
			break;
		}
		drmFreeVersion(v);
		close(fd);
	}
	if (dev->fd < 0) {
		comment("no DRM card %s%s%s", any ? "with a connected connector" : "of driver \"",
			any ? "" : driver, any ? "" : "\"");
		errno = ENODEV;
		return -1;
	}
	if (drmSetClientCap(dev->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1) ||
	    ((caps & KMS_CAP_ATOMIC) && drmSetClientCap(dev->fd, DRM_CLIENT_CAP_ATOMIC, 1))) {
		comment("%s: cannot set client caps: %s", dev->path, errno_name(errno));
		close(dev->fd);
		dev->fd = -1;
		return -1;
	}
	comment("%s is %s", dev->path, dev->driver);
	return 0;
}

void kms_close(struct kms_dev *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
}

const char *kms_driver_arg(int argc, char **argv)
{
	return optind < argc ? argv[optind] : NULL;
}

/* --- properties --------------------------------------------------------- */

static drmModePropertyPtr find_prop(int fd, uint32_t obj, uint32_t type, const char *name,
				    uint64_t *value)
{
	drmModeObjectPropertiesPtr props = drmModeObjectGetProperties(fd, obj, type);
	drmModePropertyPtr found = NULL;
	uint32_t i;

	if (!props)
		return NULL;
	for (i = 0; i < props->count_props && !found; i++) {
		drmModePropertyPtr p = drmModeGetProperty(fd, props->props[i]);

		if (p && !strcmp(p->name, name)) {
			found = p;
			if (value)
				*value = props->prop_values[i];
		} else {
			drmModeFreeProperty(p);
		}
	}
	drmModeFreeObjectProperties(props);
	return found;
}

uint32_t kms_prop_id(int fd, uint32_t obj, uint32_t type, const char *name)
{
	drmModePropertyPtr p = find_prop(fd, obj, type, name, NULL);
	uint32_t id = p ? p->prop_id : 0;

	drmModeFreeProperty(p);
	return id;
}

int kms_prop_get(int fd, uint32_t obj, uint32_t type, const char *name, uint64_t *value)
{
	drmModePropertyPtr p = find_prop(fd, obj, type, name, value);

	if (!p) {
		errno = ENOENT;
		return -1;
	}
	drmModeFreeProperty(p);
	return 0;
}

static void plane_props(int fd, uint32_t plane, struct kms_plane_props *p)
{
	const uint32_t t = DRM_MODE_OBJECT_PLANE;

	p->fb_id = kms_prop_id(fd, plane, t, "FB_ID");
	p->crtc_id = kms_prop_id(fd, plane, t, "CRTC_ID");
	p->in_fence_fd = kms_prop_id(fd, plane, t, "IN_FENCE_FD");
	p->src_x = kms_prop_id(fd, plane, t, "SRC_X");
	p->src_y = kms_prop_id(fd, plane, t, "SRC_Y");
	p->src_w = kms_prop_id(fd, plane, t, "SRC_W");
	p->src_h = kms_prop_id(fd, plane, t, "SRC_H");
	p->crtc_x = kms_prop_id(fd, plane, t, "CRTC_X");
	p->crtc_y = kms_prop_id(fd, plane, t, "CRTC_Y");
	p->crtc_w = kms_prop_id(fd, plane, t, "CRTC_W");
	p->crtc_h = kms_prop_id(fd, plane, t, "CRTC_H");
}

/* --- pipes -------------------------------------------------------------- */

static int pick_crtc(int fd, const drmModeRes *res, const drmModeConnector *conn,
		     uint32_t used)
{
	int i, j, found = -1;

	for (i = 0; i < conn->count_encoders && found < 0; i++) {
		drmModeEncoder *enc = drmModeGetEncoder(fd, conn->encoders[i]);

		if (!enc)
			continue;
		for (j = 0; j < res->count_crtcs && found < 0; j++)
			if ((enc->possible_crtcs & (1u << j)) && !(used & (1u << j)))
				found = j;
		drmModeFreeEncoder(enc);
	}
	return found;
}

static void pick_planes(int fd, struct kms_pipe *pipe, uint32_t *used, int nused)
{
	drmModePlaneRes *pres = drmModeGetPlaneResources(fd);
	uint32_t i;
	int k;

	if (!pres)
		return;
	for (i = 0; i < pres->count_planes; i++) {
		drmModePlane *p = drmModeGetPlane(fd, pres->planes[i]);
		uint64_t type = ~0ull;
		bool taken = false;

		if (!p)
			continue;
		for (k = 0; k < nused; k++)
			if (used[k] == p->plane_id)
				taken = true;
		if (!taken && (p->possible_crtcs & (1u << pipe->crtc_index)) &&
		    !kms_prop_get(fd, p->plane_id, DRM_MODE_OBJECT_PLANE, "type", &type)) {
			if (type == DRM_PLANE_TYPE_PRIMARY && !pipe->primary_id)
				pipe->primary_id = p->plane_id;
			else if (type == DRM_PLANE_TYPE_OVERLAY && !pipe->overlay_id)
				pipe->overlay_id = p->plane_id;
			else if (type == DRM_PLANE_TYPE_CURSOR && !pipe->cursor_id)
				pipe->cursor_id = p->plane_id;
		}
		drmModeFreePlane(p);
	}
	drmModeFreePlaneResources(pres);
}

int kms_pipes(struct kms_dev *dev, struct kms_pipe *pipes, int max)
{
	drmModeRes *res = drmModeGetResources(dev->fd);
	uint32_t used_crtcs = 0, used_planes[64];
	int n = 0, nplanes = 0, i, m, idx;

	if (!res)
		return 0;
	for (i = 0; i < res->count_connectors && n < max; i++) {
		drmModeConnector *c = drmModeGetConnector(dev->fd, res->connectors[i]);
		struct kms_pipe *pipe = &pipes[n];

		if (!c || c->connection != DRM_MODE_CONNECTED || c->count_modes == 0 ||
		    (idx = pick_crtc(dev->fd, res, c, used_crtcs)) < 0) {
			drmModeFreeConnector(c);
			continue;
		}
		memset(pipe, 0, sizeof(*pipe));
		pipe->connector_id = c->connector_id;
		pipe->crtc_index = idx;
		pipe->crtc_id = res->crtcs[idx];
		pipe->mode = c->modes[0];
		for (m = 0; m < c->count_modes; m++) {
			if (c->modes[m].type & DRM_MODE_TYPE_PREFERRED) {
				pipe->mode = c->modes[m];
				pipe->has_preferred = true;
				break;
			}
		}
		drmModeFreeConnector(c);

		pick_planes(dev->fd, pipe, used_planes, nplanes);
		if (!pipe->primary_id)
			continue;
		used_crtcs |= 1u << idx;
		if (nplanes + 3 <= (int)(sizeof(used_planes) / sizeof(used_planes[0]))) {
			used_planes[nplanes++] = pipe->primary_id;
			if (pipe->overlay_id)
				used_planes[nplanes++] = pipe->overlay_id;
			if (pipe->cursor_id)
				used_planes[nplanes++] = pipe->cursor_id;
		}

		pipe->conn_props.crtc_id = kms_prop_id(dev->fd, pipe->connector_id,
						       DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID");
		pipe->crtc_props.mode_id = kms_prop_id(dev->fd, pipe->crtc_id,
						       DRM_MODE_OBJECT_CRTC, "MODE_ID");
		pipe->crtc_props.active = kms_prop_id(dev->fd, pipe->crtc_id,
						      DRM_MODE_OBJECT_CRTC, "ACTIVE");
		pipe->crtc_props.out_fence_ptr = kms_prop_id(dev->fd, pipe->crtc_id,
							     DRM_MODE_OBJECT_CRTC, "OUT_FENCE_PTR");
		plane_props(dev->fd, pipe->primary_id, &pipe->primary_props);
		if (pipe->overlay_id)
			plane_props(dev->fd, pipe->overlay_id, &pipe->overlay_props);
		if (pipe->cursor_id)
			plane_props(dev->fd, pipe->cursor_id, &pipe->cursor_props);
		n++;
	}
	drmModeFreeResources(res);
	return n;
}

double kms_mode_period_ns(const drmModeModeInfo *mode)
{
	if (!mode->clock)
		return 0;
	return 1e9 * mode->htotal * mode->vtotal / (mode->clock * 1000.0);
}

drmModeModeInfo kms_mode_at_refresh(const drmModeModeInfo *base, unsigned int hz)
{
	drmModeModeInfo m = *base;

	m.clock = (uint32_t)lround((double)m.htotal * m.vtotal * hz / 1000.0);
	m.vrefresh = hz;
	m.type = DRM_MODE_TYPE_USERDEF;
	snprintf(m.name, sizeof(m.name), "%ux%u@%u", m.hdisplay, m.vdisplay, hz);
	return m;
}

/* --- framebuffers ------------------------------------------------------- */

static int format_bpp(uint32_t format)
{
	switch (format) {
	case DRM_FORMAT_XRGB8888:
	case DRM_FORMAT_ARGB8888:
	case DRM_FORMAT_XBGR8888:
	case DRM_FORMAT_ABGR8888:
	case DRM_FORMAT_RGBX8888:
	case DRM_FORMAT_RGBA8888:
	case DRM_FORMAT_BGRX8888:
	case DRM_FORMAT_BGRA8888:
	case DRM_FORMAT_XRGB2101010:
	case DRM_FORMAT_ARGB2101010:
	case DRM_FORMAT_XBGR2101010:
	case DRM_FORMAT_ABGR2101010:
		return 32;
	case DRM_FORMAT_RGB888:
	case DRM_FORMAT_BGR888:
		return 24;
	case DRM_FORMAT_XRGB16161616:
	case DRM_FORMAT_ARGB16161616:
	case DRM_FORMAT_XBGR16161616:
	case DRM_FORMAT_ABGR16161616:
	case DRM_FORMAT_XRGB16161616F:
	case DRM_FORMAT_ARGB16161616F:
		return 64;
	case DRM_FORMAT_RGB565:
	case DRM_FORMAT_BGR565:
		return 16;
	case DRM_FORMAT_R8:
		return 8;
	default:
		return 0;
	}
}

int kms_fb_create(int fd, uint32_t width, uint32_t height, uint32_t format,
		  unsigned int seed, struct kms_fb *fb)
{
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };
	int bpp = format_bpp(format), ret, err;
	unsigned char *map;
	uint32_t y;

	memset(fb, 0, sizeof(*fb));
	if (!bpp)
		return -EINVAL;
	ret = drmModeCreateDumbBuffer(fd, width, height, bpp, 0, &fb->handle, &fb->pitch,
				      &fb->size);
	if (ret)
		return -errno;
	fb->width = width;
	fb->height = height;
	fb->format = format;

	map = kms_fb_map(fd, fb);
	if (!map)
		goto err_destroy;
	/* Bands of grey whose phase depends on the seed: two fbs differ visibly. */
	for (y = 0; y < height; y++)
		memset(map + (size_t)y * fb->pitch, (int)(((y + seed * 97) / 32 * 40) & 0xff),
		       fb->pitch);
	munmap(map, fb->size);

	handles[0] = fb->handle;
	pitches[0] = fb->pitch;
	if (drmModeAddFB2(fd, width, height, format, handles, pitches, offsets, &fb->fb_id, 0))
		goto err_destroy;
	return 0;

err_destroy:
	err = errno;
	drmModeDestroyDumbBuffer(fd, fb->handle);
	memset(fb, 0, sizeof(*fb));
	return -err;
}

unsigned char *kms_fb_map(int fd, const struct kms_fb *fb)
{
	uint64_t offset;
	void *p;

	/* libdrm's MAP_DUMB fails with errno set by the ioctl. */
	if (drmModeMapDumbBuffer(fd, fb->handle, &offset))
		return NULL;
	p = mmap(NULL, fb->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
	return p == MAP_FAILED ? NULL : p;
}

int kms_fb_fill(int fd, const struct kms_fb *fb, uint32_t xrgb)
{
	uint32_t *px = (uint32_t *)kms_fb_map(fd, fb);
	uint64_t i;

	if (!px)
		return -errno;
	for (i = 0; i < fb->size / 4; i++)
		px[i] = xrgb;
	munmap(px, fb->size);
	return 0;
}

void kms_fb_destroy(int fd, struct kms_fb *fb)
{
	if (fb->fb_id)
		drmModeRmFB(fd, fb->fb_id);
	if (fb->handle)
		drmModeDestroyDumbBuffer(fd, fb->handle);
	memset(fb, 0, sizeof(*fb));
}

/* --- atomic commits ----------------------------------------------------- */

static int add(drmModeAtomicReq *req, uint32_t obj, uint32_t prop, uint64_t value)
{
	if (!prop)
		return -ENOENT;
	return drmModeAtomicAddProperty(req, obj, prop, value) < 0 ? -ENOMEM : 0;
}

int kms_req_plane(drmModeAtomicReq *req, uint32_t plane_id, const struct kms_plane_props *p,
		  uint32_t crtc_id, const struct kms_fb *fb, int in_fence)
{
	int ret = 0;

	if (!fb)
		return add(req, plane_id, p->fb_id, 0) ?: add(req, plane_id, p->crtc_id, 0);
	ret |= add(req, plane_id, p->fb_id, fb->fb_id);
	ret |= add(req, plane_id, p->crtc_id, crtc_id);
	ret |= add(req, plane_id, p->src_x, 0);
	ret |= add(req, plane_id, p->src_y, 0);
	ret |= add(req, plane_id, p->src_w, (uint64_t)fb->width << 16);
	ret |= add(req, plane_id, p->src_h, (uint64_t)fb->height << 16);
	ret |= add(req, plane_id, p->crtc_x, 0);
	ret |= add(req, plane_id, p->crtc_y, 0);
	ret |= add(req, plane_id, p->crtc_w, fb->width);
	ret |= add(req, plane_id, p->crtc_h, fb->height);
	if (in_fence >= 0)
		ret |= add(req, plane_id, p->in_fence_fd, (uint64_t)in_fence);
	return ret ? -EINVAL : 0;
}

static int commit(struct kms_dev *dev, drmModeAtomicReq *req, uint32_t flags, uint64_t cookie)
{
	int ret;

	errno = 0;
	ret = drmModeAtomicCommit(dev->fd, req, flags, (void *)(uintptr_t)cookie);
	return ret ? -errno : 0;
}

int kms_modeset(struct kms_dev *dev, struct kms_pipe *pipe, const drmModeModeInfo *mode,
		const struct kms_fb *fb)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint32_t blob = 0;
	int ret;

	if (!req)
		return -ENOMEM;
	if (drmModeCreatePropertyBlob(dev->fd, mode ? mode : &pipe->mode,
				      sizeof(drmModeModeInfo), &blob)) {
		ret = -errno;
		goto out;
	}
	ret = add(req, pipe->connector_id, pipe->conn_props.crtc_id, pipe->crtc_id) ?:
	      add(req, pipe->crtc_id, pipe->crtc_props.mode_id, blob) ?:
	      add(req, pipe->crtc_id, pipe->crtc_props.active, 1) ?:
	      kms_req_plane(req, pipe->primary_id, &pipe->primary_props, pipe->crtc_id, fb, -1);
	if (!ret)
		ret = commit(dev, req, DRM_MODE_ATOMIC_ALLOW_MODESET, 0);
	if (ret) {
		drmModeDestroyPropertyBlob(dev->fd, blob);
	} else {
		if (pipe->mode_blob)
			drmModeDestroyPropertyBlob(dev->fd, pipe->mode_blob);
		pipe->mode_blob = blob;
	}
out:
	drmModeAtomicFree(req);
	return ret;
}

int kms_disable(struct kms_dev *dev, struct kms_pipe *pipe)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret;

	if (!req)
		return -ENOMEM;
	ret = add(req, pipe->connector_id, pipe->conn_props.crtc_id, 0) ?:
	      add(req, pipe->crtc_id, pipe->crtc_props.mode_id, 0) ?:
	      add(req, pipe->crtc_id, pipe->crtc_props.active, 0) ?:
	      kms_req_plane(req, pipe->primary_id, &pipe->primary_props, 0, NULL, -1);
	if (!ret && pipe->overlay_id)
		ret = kms_req_plane(req, pipe->overlay_id, &pipe->overlay_props, 0, NULL, -1);
	if (!ret)
		ret = commit(dev, req, DRM_MODE_ATOMIC_ALLOW_MODESET, 0);
	if (!ret && pipe->mode_blob) {
		drmModeDestroyPropertyBlob(dev->fd, pipe->mode_blob);
		pipe->mode_blob = 0;
	}
	drmModeAtomicFree(req);
	return ret;
}

int kms_flip_plane(struct kms_dev *dev, const struct kms_pipe *pipe, uint32_t plane_id,
		   const struct kms_plane_props *props, const struct kms_fb *fb,
		   int32_t *out_fence, int in_fence, uint64_t cookie)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret;

	if (!req)
		return -ENOMEM;
	ret = kms_req_plane(req, plane_id, props, pipe->crtc_id, fb, in_fence);
	if (!ret && out_fence) {
		ret = add(req, pipe->crtc_id, pipe->crtc_props.out_fence_ptr,
			  (uint64_t)(uintptr_t)out_fence);
	}
	if (!ret)
		ret = commit(dev, req, DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT, cookie);
	drmModeAtomicFree(req);
	return ret;
}

int kms_flip(struct kms_dev *dev, const struct kms_pipe *pipe, const struct kms_fb *fb,
	     int32_t *out_fence, int in_fence, uint64_t cookie)
{
	return kms_flip_plane(dev, pipe, pipe->primary_id, &pipe->primary_props, fb, out_fence,
			      in_fence, cookie);
}

bool kms_plane_has_format(int fd, uint32_t plane_id, uint32_t format)
{
	drmModePlane *p = drmModeGetPlane(fd, plane_id);
	bool found = false;
	uint32_t i;

	for (i = 0; p && i < p->count_formats; i++)
		if (p->formats[i] == format)
			found = true;
	drmModeFreePlane(p);
	return found;
}

/* --- events ------------------------------------------------------------- */

/* Hands out the next whole event in the buffer: 1, or 0 if there is none. */
static int take_event(struct kms_dev *dev, struct kms_event *ev)
{
	while (dev->evlen - dev->evpos >= sizeof(struct drm_event)) {
		struct drm_event hdr;
		const unsigned char *p = dev->evbuf + dev->evpos;

		memcpy(&hdr, p, sizeof(hdr));
		if (hdr.length < sizeof(hdr) || hdr.length > dev->evlen - dev->evpos)
			break;
		dev->evpos += hdr.length;
		memset(ev, 0, sizeof(*ev));
		ev->type = hdr.type;
		if ((hdr.type == DRM_EVENT_FLIP_COMPLETE || hdr.type == DRM_EVENT_VBLANK) &&
		    hdr.length >= sizeof(struct drm_event_vblank)) {
			struct drm_event_vblank v;

			memcpy(&v, p, sizeof(v));
			ev->crtc_id = v.crtc_id;
			ev->sequence = v.sequence;
			ev->time_us = (int64_t)v.tv_sec * 1000000 + v.tv_usec;
			ev->time_ns = ev->time_us * 1000;
			ev->user_data = v.user_data;
			return 1;
		}
		if (hdr.type == DRM_EVENT_CRTC_SEQUENCE &&
		    hdr.length >= sizeof(struct drm_event_crtc_sequence)) {
			struct drm_event_crtc_sequence s;

			memcpy(&s, p, sizeof(s));
			ev->sequence = s.sequence;
			ev->time_ns = s.time_ns;
			ev->time_us = s.time_ns / 1000;
			ev->user_data = s.user_data;
			return 1;
		}
		/* Any other event type: not ours, skip it. */
	}
	dev->evlen = dev->evpos = 0;
	return 0;
}

int kms_next_event(struct kms_dev *dev, int timeout_ms, struct kms_event *ev)
{
	int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000;
	struct pollfd pfd = { .fd = dev->fd, .events = POLLIN };
	ssize_t n;
	int left, r;

	for (;;) {
		if (take_event(dev, ev))
			return 1;
		left = (int)((deadline - now_ns() + 999999) / 1000000);
		r = poll(&pfd, 1, left > 0 ? left : 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return 0;
		n = read(dev->fd, dev->evbuf, sizeof(dev->evbuf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -1;
		dev->evlen = (size_t)n;
		dev->evpos = 0;
	}
}

int kms_drain_events(struct kms_dev *dev, int quiet_ms)
{
	struct kms_event ev;
	int n = 0;

	while (kms_next_event(dev, quiet_ms, &ev) == 1)
		n++;
	return n;
}

unsigned int kms_vblank_crtc_bits(int index)
{
	if (index == 0)
		return 0;
	if (index == 1)
		return DRM_VBLANK_SECONDARY;
	return ((unsigned int)index << DRM_VBLANK_HIGH_CRTC_SHIFT) & DRM_VBLANK_HIGH_CRTC_MASK;
}

/* --- writeback ---------------------------------------------------------- */

bool kms_writeback_find(struct kms_dev *dev, const struct kms_pipe *pipe,
			struct kms_writeback *wb)
{
	drmModeRes *res = drmModeGetResources(dev->fd);
	int i;

	memset(wb, 0, sizeof(*wb));
	for (i = 0; res && i < res->count_connectors && !wb->id; i++) {
		drmModeConnector *c = drmModeGetConnector(dev->fd, res->connectors[i]);
		drmModeEncoder *e = c && c->count_encoders ?
				    drmModeGetEncoder(dev->fd, c->encoders[0]) : NULL;

		if (c && c->connector_type == DRM_MODE_CONNECTOR_WRITEBACK && e &&
		    (e->possible_crtcs & (1u << pipe->crtc_index)))
			wb->id = c->connector_id;
		drmModeFreeEncoder(e);
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	if (!wb->id)
		return false;
	wb->crtc_id = kms_prop_id(dev->fd, wb->id, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID");
	wb->fb_id = kms_prop_id(dev->fd, wb->id, DRM_MODE_OBJECT_CONNECTOR, "WRITEBACK_FB_ID");
	wb->out_fence_ptr = kms_prop_id(dev->fd, wb->id, DRM_MODE_OBJECT_CONNECTOR,
					"WRITEBACK_OUT_FENCE_PTR");
	return wb->crtc_id && wb->fb_id && wb->out_fence_ptr;
}

int kms_connector_edid(int fd, uint32_t id, unsigned char *edid, size_t max)
{
	drmModePropertyBlobPtr blob;
	uint64_t blob_id;
	int len;

	if (kms_prop_get(fd, id, DRM_MODE_OBJECT_CONNECTOR, "EDID", &blob_id) || !blob_id)
		return -1;
	blob = drmModeGetPropertyBlob(fd, (uint32_t)blob_id);
	if (!blob)
		return -1;
	len = (int)blob->length;
	memcpy(edid, blob->data, (size_t)len < max ? (size_t)len : max);
	drmModeFreePropertyBlob(blob);
	return len;
}

int kms_commit_writeback(struct kms_dev *dev, drmModeAtomicReq *req,
			 const struct kms_writeback *wb, uint32_t crtc_id,
			 const struct kms_fb *out, uint32_t flags)
{
	int32_t fence = -1;
	int ret;

	if (out) {
		drmModeAtomicAddProperty(req, wb->id, wb->crtc_id, crtc_id);
		drmModeAtomicAddProperty(req, wb->id, wb->fb_id, out->fb_id);
		if (!(flags & DRM_MODE_ATOMIC_TEST_ONLY))
			drmModeAtomicAddProperty(req, wb->id, wb->out_fence_ptr,
						 (uint64_t)(uintptr_t)&fence);
	}
	ret = drmModeAtomicCommit(dev->fd, req, flags | DRM_MODE_ATOMIC_ALLOW_MODESET, NULL) ?
	      -errno : 0;
	if (fence >= 0) {
		if (sync_wait(fence, 10000))
			ret = -ETIME;
		close(fence);
	}
	return ret;
}

/* --- fences ------------------------------------------------------------- */

int kms_fence_info(int fd, struct kms_fence_info *info)
{
	struct sync_file_info *fi = sync_file_info(fd);
	struct sync_fence_info *pts;

	memset(info, 0, sizeof(*info));
	if (!fi)
		return -1;
	info->num_points = (int)fi->num_fences;
	info->status = fi->status;
	if (fi->num_fences > 0) {
		pts = sync_get_fence_info(fi);
		info->timestamp_ns = (int64_t)pts[0].timestamp_ns;
		snprintf(info->obj_name, sizeof(info->obj_name), "%s", pts[0].obj_name);
		snprintf(info->driver_name, sizeof(info->driver_name), "%s", pts[0].driver_name);
	}
	sync_file_info_free(fi);
	return 0;
}

int kms_fence_polled(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n = poll(&pfd, 1, 0);

	if (n < 0)
		return -1;
	return n > 0 && (pfd.revents & POLLIN);
}

static void *fence_watch_run(void *arg)
{
	struct kms_fence_watch *w = arg;
	struct pollfd pfd = { .fd = w->fd, .events = POLLIN };
	int n = poll(&pfd, 1, w->timeout_ms);

	w->woke_ns = now_ns();
	if (n < 0 || (n > 0 && (pfd.revents & (POLLERR | POLLNVAL))))
		w->ret = -1;
	else
		w->ret = n > 0;
	return NULL;
}

int kms_fence_watch_start(struct kms_fence_watch *w, int fd, int timeout_ms)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->timeout_ms = timeout_ms;
	w->ret = -1;
	errno = pthread_create(&w->thread, NULL, fence_watch_run, w);
	return errno ? -1 : 0;
}

int kms_fence_watch_end(struct kms_fence_watch *w)
{
	pthread_join(w->thread, NULL);
	return w->ret;
}

bool kms_connector_has_mode(int fd, uint32_t connector, unsigned int w, unsigned int h)
{
	drmModeConnector *c = drmModeGetConnector(fd, connector);
	bool found = false;
	int i;

	for (i = 0; c && i < c->count_modes; i++)
		if (c->modes[i].hdisplay == w && c->modes[i].vdisplay == h)
			found = true;
	drmModeFreeConnector(c);
	return found;
}

/* --- flipkms's debugfs ------------------------------------------------- */

int kms_crtc_debugfs_dir(const struct kms_dev *dev, const struct kms_pipe *pipe,
			 char *buf, size_t len)
{
	int minor;

	if (sscanf(dev->path, "/dev/dri/card%d", &minor) != 1)
		return -1;
	snprintf(buf, len, "/sys/kernel/debug/dri/%d/crtc-%d", minor, pipe->crtc_index);
	return 0;
}

void kms_flipkms_setup(const char *driver, const char *usage, struct kms_dev *dev,
		       struct kms_pipe *pipe, char *crtc_dir, size_t len, struct kms_fb fb[2])
{
	begin("setup");
	require(driver && !strcmp(driver, "flipkms"), usage);
	require(kms_open(dev, driver, KMS_CAP_ATOMIC) == 0, "open flipkms");
	require(kms_pipes(dev, pipe, 1) == 1, "a pipe");
	require(kms_crtc_debugfs_dir(dev, pipe, crtc_dir, len) == 0, "flipkms debugfs directory");
	require(kms_fb_create(dev->fd, pipe->mode.hdisplay, pipe->mode.vdisplay,
			      DRM_FORMAT_XRGB8888, 1, &fb[0]) == 0 &&
		kms_fb_create(dev->fd, pipe->mode.hdisplay, pipe->mode.vdisplay,
			      DRM_FORMAT_XRGB8888, 2, &fb[1]) == 0, "framebuffers");
}

void kms_teardown(struct kms_dev *dev, struct kms_pipe *pipe, struct kms_fb fb[2])
{
	kms_drain_events(dev, 50);
	kms_disable(dev, pipe);
	kms_fb_destroy(dev->fd, &fb[0]);
	kms_fb_destroy(dev->fd, &fb[1]);
	kms_close(dev);
}

int kms_crtc_control(const char *crtc_dir, const char *file, const char *value)
{
	char path[160];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", crtc_dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	close(fd);
	return n < 0 ? -errno : 0;
}

bool kms_frame_ppm(const char *crtc_dir, int w, int h, unsigned char *rgb)
{
	char path[160];
	int pw, ph, max;
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/frame.ppm", crtc_dir);
	f = fopen(path, "rb");
	if (!f)
		return false;
	/* One whitespace byte ends the header, then the rows of RGB. */
	if (fscanf(f, "P6 %d %d %d", &pw, &ph, &max) == 3 && fgetc(f) != EOF && pw == w &&
	    ph == h)
		n = fread(rgb, 3, (size_t)w * h, f);
	fclose(f);
	return n == (size_t)w * h;
}

long kms_frame_pixel(const char *crtc_dir, int x, int y)
{
	unsigned char rgb[3];
	char path[160];
	int w, h, max;
	long ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/frame.ppm", crtc_dir);
	f = fopen(path, "rb");
	if (!f)
		return -1;
	/* One whitespace byte ends the header, then the rows of RGB. */
	if (fscanf(f, "P6 %d %d %d", &w, &h, &max) == 3 && fgetc(f) != EOF &&
	    x < w && y < h && fseek(f, ((long)y * w + x) * 3, SEEK_CUR) == 0 &&
	    fread(rgb, 1, 3, f) == 3)
		ret = (long)rgb[0] << 16 | rgb[1] << 8 | rgb[2];
	fclose(f);
	return ret;
}

int kms_crc_open(const char *crtc_dir, int flags)
{
	char path[160];
	int ctl, data;

	snprintf(path, sizeof(path), "%s/crc/control", crtc_dir);
	ctl = open(path, O_WRONLY);
	require(ctl >= 0 && write(ctl, "auto", 4) == 4, "select CRC source auto");
	close(ctl);
	snprintf(path, sizeof(path), "%s/crc/data", crtc_dir);
	data = open(path, O_RDONLY | flags);
	require(data >= 0, "open crc/data");
	return data;
}

bool kms_crc_next(int data, bool nonblock, struct kms_crc_entry *e)
{
	struct pollfd pfd = { .fd = data, .events = POLLIN };
	char line[64];
	ssize_t n;

	for (;;) {
		n = read(data, line, sizeof(line) - 1);
		if (n > 0)
			break;
		if (n < 0 && nonblock && errno == EAGAIN && poll(&pfd, 1, 10000) == 1)
			continue;
		comment("crc/data read: %s", n ? errno_name(errno) : "end of file");
		return false;
	}
	line[n] = '\0';
	return sscanf(line, "%lx %lx", &e->frame, &e->crc) == 2;
}

int kms_crtc_status(const char *crtc_dir, int crtc, struct kms_crtc_status *st)
{
	char path[160], line[256];
	int at = -1;
	FILE *f;

	st->vblanks = st->missed = st->dropped = st->flips = -1;
	st->compositions = st->crc_entries = st->crc_dropped = -1;
	snprintf(path, sizeof(path), "%s/../flipkms_status", crtc_dir);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "crtc-", 5)) {
			at = atoi(line + 5);
			continue;
		}
		if (at != crtc)
			continue;
		if (sscanf(line, " vblanks %lld, missed %lld, dropped %lld, flips %lld",
			   &st->vblanks, &st->missed, &st->dropped, &st->flips) >= 1)
			continue;
		sscanf(line, " compositions %lld, crc entries %lld, crc dropped %lld",
		       &st->compositions, &st->crc_entries, &st->crc_dropped);
	}
	fclose(f);
	return 0;
}

long long kms_vblanks_without_entry(const char *crtc_dir, int crtc, char *what, size_t len)
{
	struct kms_crtc_status st;

	if (kms_crtc_status(crtc_dir, crtc, &st) || st.missed < 0 || st.dropped < 0 ||
	    st.crc_dropped < 0)
		return -1;
	snprintf(what, len, "missed %lld, dropped %lld, crc dropped %lld", st.missed, st.dropped,
		 st.crc_dropped);
	return st.missed + st.dropped + st.crc_dropped;
}

uint32_t kms_crc32_le(uint32_t crc, const unsigned char *p, size_t n)
{
	int k;

	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return crc;
}

bool kms_mode_of_size(const struct kms_dev *dev, const struct kms_pipe *pipe, int w, int h,
		      drmModeModeInfo *mode)
{
	drmModeConnector *c = drmModeGetConnector(dev->fd, pipe->connector_id);
	bool found = false;
	int m;

	/* The last such mode, as the tests that looked for it took. */
	for (m = 0; c && m < c->count_modes; m++) {
		if (c->modes[m].hdisplay == w && c->modes[m].vdisplay == h) {
			*mode = c->modes[m];
			found = true;
		}
	}
	drmModeFreeConnector(c);
	return found;
}

int kms_uevent_open(void)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		close(fd);
		return -1;
	}
	return fd;
}
