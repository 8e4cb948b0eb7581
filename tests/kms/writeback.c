// SPDX-License-Identifier: MIT
/*
 * writeback: what flipkms composes comes back pixel-exact through its
 * writeback connector, and WRITEBACK_OUT_FENCE_PTR signals once the buffer
 * is written. At 640x480, with random content:
 *
 *   primary-<format>	the primary plane alone, in each of its formats
 *   overlay		an ARGB8888 overlay with random (premultiplied)
 *			alpha over the primary, blended as flipkms blends
 *   cursor		an opaque ARGB8888 cursor
 *   wb-ar24		the same frame into an ARGB8888 buffer: alpha 0xff
 *   primary-window	a primary plane smaller than the CRTC, inside it
 *			and (primary-partly-off) clipped by its edges, an
 *			overlay-without-primary, and no-plane at all: black
 *			wherever no plane is
 *   released-buffer	at the largest mode, the buffer a writeback commit
 *			showed is handed back by the next flip's event and
 *			drawn into at once: the written-back image is still
 *			the commit's (that event waits for the writeback)
 *   own-frame		a job whose commit is flushed after a vblank latched
 *			an earlier commit (a legacy cursor move, which does
 *			not wait for its flip) gets its own commit's frame,
 *			and its fence signals once that commit is on screen
 *   bad buffers	a wrong size or format fails the commit with EINVAL
 *
 * The expected frame is computed here from the buffers' bytes with the
 * composer's arithmetic (Documentation/flipkms.rst): 16 bits a channel,
 * premultiplied "over" an opaque black background, the top 8 bits written.
 *
 * usage: writeback flipkms
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

#define W	640
#define H	480

struct px16 {
	uint32_t r, g, b, a;
};

struct layer {
	uint32_t plane_id;
	const struct kms_plane_props *props;
	struct kms_fb *fb;
	int x, y;
};

static unsigned int seed = 1;

static unsigned int cpp(uint32_t format)
{
	return format == DRM_FORMAT_RGB565 ? 2 :
	       format == DRM_FORMAT_XRGB16161616 || format == DRM_FORMAT_ARGB16161616 ? 8 : 4;
}

/* Random content; ARGB pixels premultiplied (no channel above alpha). */
static void fill_random(int fd, const struct kms_fb *fb)
{
	unsigned char *map = kms_fb_map(fd, fb);
	uint32_t x, y, c;
	uint16_t *p16;

	require(map != NULL, "map a framebuffer");
	for (y = 0; y < fb->height; y++) {
		unsigned char *row = map + (size_t)y * fb->pitch;

		for (x = 0; x < fb->width; x++) {
			unsigned char *p = row + x * cpp(fb->format);
			uint32_t a8 = rand_r(&seed) % 256, a16 = rand_r(&seed) % 65536;

			switch (fb->format) {
			case DRM_FORMAT_ARGB8888:
				for (c = 0; c < 3; c++)
					p[c] = (unsigned char)(a8 ? rand_r(&seed) % (a8 + 1) : 0);
				p[3] = (unsigned char)a8;
				break;
			case DRM_FORMAT_ARGB16161616:
				p16 = (uint16_t *)p;
				for (c = 0; c < 3; c++)
					p16[c] = (uint16_t)(rand_r(&seed) % (a16 + 1));
				p16[3] = (uint16_t)a16;
				break;
			default:
				for (c = 0; c < cpp(fb->format); c++)
					p[c] = (unsigned char)rand_r(&seed);
			}
		}
	}
	munmap(map, fb->size);
}

static uint32_t expand(uint32_t v, unsigned int bits)
{
	return v * 0xffff / ((1u << bits) - 1);
}

/* A source pixel as the composer reads it. */
static struct px16 read_px(uint32_t format, const unsigned char *p)
{
	const uint16_t *p16 = (const uint16_t *)p;
	uint16_t v;

	switch (format) {
	case DRM_FORMAT_XRGB8888:
	case DRM_FORMAT_ARGB8888:
		return (struct px16){ p[2] * 257u, p[1] * 257u, p[0] * 257u,
				      format == DRM_FORMAT_ARGB8888 ? p[3] * 257u : 0xffff };
	case DRM_FORMAT_XRGB16161616:
	case DRM_FORMAT_ARGB16161616:
		return (struct px16){ p16[2], p16[1], p16[0],
				      format == DRM_FORMAT_ARGB16161616 ? p16[3] : 0xffff };
	default:
		v = p16[0];
		return (struct px16){ expand(v >> 11, 5), expand((v >> 5) & 0x3f, 6),
				      expand(v & 0x1f, 5), 0xffff };
	}
}

static uint32_t over(uint32_t src, uint32_t dst, uint32_t keep)
{
	uint32_t v = src + dst * keep / 0xffff;

	return v > 0xffff ? 0xffff : v;
}

/* The frame the layers make, as 0xAARRGGBB words. */
static uint32_t *expected_frame(int fd, const struct layer *layers, int n)
{
	uint32_t *out = calloc((size_t)W * H, sizeof(*out));
	struct px16 *acc = calloc((size_t)W * H, sizeof(*acc));
	int i, x, y;

	require(out && acc, "memory");
	for (i = 0; i < W * H; i++)
		acc[i].a = 0xffff;
	for (i = 0; i < n; i++) {
		const struct kms_fb *fb = layers[i].fb;
		unsigned char *map = kms_fb_map(fd, fb);

		require(map != NULL, "map a framebuffer");
		for (y = 0; y < (int)fb->height; y++)
			for (x = 0; x < (int)fb->width; x++) {
				int cx = layers[i].x + x, cy = layers[i].y + y;
				struct px16 s, *d;
				uint32_t keep;

				if (cx < 0 || cy < 0 || cx >= W || cy >= H)
					continue;
				s = read_px(fb->format, map + (size_t)y * fb->pitch +
							x * cpp(fb->format));
				d = &acc[cy * W + cx];
				keep = 0xffff - s.a;
				d->r = over(s.r, d->r, keep);
				d->g = over(s.g, d->g, keep);
				d->b = over(s.b, d->b, keep);
				d->a = over(s.a, d->a, keep);
			}
		munmap(map, fb->size);
	}
	for (i = 0; i < W * H; i++)
		out[i] = 0xffu << 24 | (acc[i].r >> 8) << 16 | (acc[i].g >> 8) << 8 | acc[i].b >> 8;
	free(acc);
	return out;
}

static void add_layer(drmModeAtomicReq *req, const struct kms_pipe *pipe, const struct layer *l)
{
	const struct kms_plane_props *p = l->props;

	kms_req_plane(req, l->plane_id, p, pipe->crtc_id, l->fb, -1);
	drmModeAtomicAddProperty(req, l->plane_id, p->crtc_x, (uint64_t)l->x);
	drmModeAtomicAddProperty(req, l->plane_id, p->crtc_y, (uint64_t)l->y);
}

/*
 * One commit: @layers on, the pipe's other planes off (the primary too),
 * written back to @out.
 */
static int commit(struct kms_dev *dev, const struct kms_pipe *pipe, const struct kms_writeback *wb,
		  const struct layer *layers, int n, const struct kms_fb *out, int32_t *fence)
{
	uint32_t planes[3] = { pipe->primary_id, pipe->overlay_id, pipe->cursor_id };
	const struct kms_plane_props *props[3] = {
		&pipe->primary_props, &pipe->overlay_props, &pipe->cursor_props,
	};
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int i, j, ret;
	bool used;

	for (i = 0; i < n; i++)
		add_layer(req, pipe, &layers[i]);
	for (j = 0; j < 3; j++) {
		for (used = false, i = 0; i < n; i++)
			used |= layers[i].plane_id == planes[j];
		if (planes[j] && !used)
			kms_req_plane(req, planes[j], props[j], 0, NULL, -1);
	}
	drmModeAtomicAddProperty(req, wb->id, wb->crtc_id, pipe->crtc_id);
	drmModeAtomicAddProperty(req, wb->id, wb->fb_id, out->fb_id);
	*fence = -1;
	drmModeAtomicAddProperty(req, wb->id, wb->out_fence_ptr, (uint64_t)(uintptr_t)fence);
	ret = drmModeAtomicCommit(dev->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL) ? -errno : 0;
	drmModeAtomicFree(req);
	return ret;
}

/* Commits, waits for the fence and compares every pixel. */
static void check_frame(struct kms_dev *dev, const struct kms_pipe *pipe, const struct kms_writeback *wb,
			const char *name, const struct layer *layers, int n,
			const struct kms_fb *out)
{
	uint32_t *want = expected_frame(dev->fd, layers, n), mask;
	struct kms_fence_info info;
	const uint32_t *got;
	unsigned char *map;
	int32_t fence;
	int ret, bad = 0, first = -1, i;
	char what[96];

	begin(name);
	ret = commit(dev, pipe, wb, layers, n, out, &fence);
	if (!check(name, ret == 0 && fence >= 0, "commit %s, fence %d", errno_name(-ret), fence)) {
		free(want);
		return;
	}
	snprintf(what, sizeof(what), "%s-fence-signals", name);
	check(what, sync_wait(fence, 10000) == 0 && kms_fence_info(fence, &info) == 0 &&
	      info.status == 1, "expected the writeback fence signalled within 10 s");
	close(fence);

	map = kms_fb_map(dev->fd, out);
	require(map != NULL, "map the writeback buffer");
	/* XRGB8888's X byte is undefined; ARGB8888's alpha must be opaque. */
	mask = out->format == DRM_FORMAT_ARGB8888 ? 0xffffffff : 0x00ffffff;
	for (i = 0; i < W * H; i++) {
		got = (const uint32_t *)(map + (size_t)(i / W) * out->pitch) + i % W;
		if ((*got & mask) != (want[i] & mask) && !bad++)
			first = i;
	}
	snprintf(what, sizeof(what), "%s-pixel-exact", name);
	check(what, !bad, "%d of %d pixels differ, first at (%d, %d): %08x, expected %08x", bad,
	      W * H, first % W, first / W,
	      first >= 0 ? *((const uint32_t *)(map + (size_t)(first / W) * out->pitch) + first % W)
			 : 0,
	      first >= 0 ? want[first] : 0);
	munmap(map, out->size);
	free(want);
}

/*
 * A primary plane smaller than the CRTC, anywhere on it or partly off it,
 * and a CRTC with no primary plane: what no plane covers is black.
 */
static void test_windowed_primary(struct kms_dev *dev, const struct kms_pipe *pipe,
				  const struct kms_writeback *wb, struct kms_fb *overlay,
				  const struct kms_fb *out)
{
	struct layer l[1];
	struct kms_fb small;

	require(kms_fb_create(dev->fd, 300, 200, DRM_FORMAT_XRGB8888, 9, &small) == 0,
		"a 300x200 framebuffer");
	fill_random(dev->fd, &small);
	l[0] = (struct layer){ pipe->primary_id, &pipe->primary_props, &small, 170, 140 };
	check_frame(dev, pipe, wb, "primary-window", l, 1, out);
	/* Clipped by the CRTC's left and bottom edges. */
	l[0] = (struct layer){ pipe->primary_id, &pipe->primary_props, &small, -120, 380 };
	check_frame(dev, pipe, wb, "primary-partly-off", l, 1, out);
	l[0] = (struct layer){ pipe->overlay_id, &pipe->overlay_props, overlay, 100, 50 };
	check_frame(dev, pipe, wb, "overlay-without-primary", l, 1, out);
	check_frame(dev, pipe, wb, "no-plane", l, 0, out);
	kms_fb_destroy(dev->fd, &small);
}

/* Pixel (@x, @y) of a 32 bpp buffer, RGB only. */
static long buffer_pixel(int fd, const struct kms_fb *fb, int x, int y)
{
	unsigned char *map = kms_fb_map(fd, fb);
	uint32_t v;

	if (!map)
		return -1;
	v = *(const uint32_t *)(map + (size_t)y * fb->pitch + 4 * x);
	munmap(map, fb->size);
	return v & 0xffffff;
}

/*
 * A cursor move C is flushed but held back by dropped vblanks; then a
 * writeback commit W, which stalls between queueing its job and its
 * flush. The vblank that latches C comes in that window: W's job must not
 * take C's frame, and its fence must wait until W is on screen.
 */
static void test_own_frame(struct kms_dev *dev, const struct kms_pipe *pipe,
			   const struct kms_writeback *wb, const struct kms_fb *cursor,
			   const struct kms_fb *out)
{
	struct kms_fb old, new;
	struct kms_fence_info wb_info = { 0 }, flip_info = { 0 };
	drmModeAtomicReq *req;
	char dir[96];
	int32_t wb_fence = -1, flip_fence = -1;
	int ret, flip_done;
	struct kms_event ev;
	long px;

	begin("own-frame");
	require(kms_crtc_debugfs_dir(dev, pipe, dir, sizeof(dir)) == 0, "debugfs directory");
	require(kms_fb_create(dev->fd, W, H, DRM_FORMAT_XRGB8888, 9, &old) == 0 &&
		kms_fb_create(dev->fd, W, H, DRM_FORMAT_XRGB8888, 10, &new) == 0 &&
		kms_fb_fill(dev->fd, &old, 0x0000ff) == 0 &&
		kms_fb_fill(dev->fd, &new, 0xff0000) == 0, "framebuffers");

	/* The old primary plane and a cursor, blocking. */
	req = drmModeAtomicAlloc();
	kms_req_plane(req, pipe->primary_id, &pipe->primary_props, pipe->crtc_id, &old, -1);
	kms_req_plane(req, pipe->cursor_id, &pipe->cursor_props, pipe->crtc_id, cursor, -1);
	kms_req_plane(req, pipe->overlay_id, &pipe->overlay_props, 0, NULL, -1);
	ret = drmModeAtomicCommit(dev->fd, req, 0, NULL) ? -errno : 0;
	drmModeAtomicFree(req);
	require(ret == 0, "show the old primary plane and the cursor");

	/* C: flushed, not latched for 12 vblanks (200 ms at 60 Hz). */
	require(kms_crtc_control(dir, "drop_vblanks", "12") == 0, "write drop_vblanks");
	require(drmModeMoveCursor(dev->fd, pipe->crtc_id, 8, 8) == 0, "move the cursor");
	/* W: its job is queued, then its tail sleeps 600 ms before the flush. */
	require(kms_crtc_control(dir, "stall_commit_ms", "600") == 0, "write stall_commit_ms");
	req = drmModeAtomicAlloc();
	kms_req_plane(req, pipe->primary_id, &pipe->primary_props, pipe->crtc_id, &new, -1);
	drmModeAtomicAddProperty(req, wb->id, wb->crtc_id, pipe->crtc_id);
	drmModeAtomicAddProperty(req, wb->id, wb->fb_id, out->fb_id);
	drmModeAtomicAddProperty(req, wb->id, wb->out_fence_ptr, (uint64_t)(uintptr_t)&wb_fence);
	drmModeAtomicAddProperty(req, pipe->crtc_id, pipe->crtc_props.out_fence_ptr,
				 (uint64_t)(uintptr_t)&flip_fence);
	ret = drmModeAtomicCommit(dev->fd, req,
				  DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT, NULL) ?
	      -errno : 0;
	drmModeAtomicFree(req);
	require(ret == 0 && wb_fence >= 0 && flip_fence >= 0,
		"writeback commit with both fences");

	ret = sync_wait(wb_fence, 10000);
	flip_done = kms_fence_polled(flip_fence);
	check("own-frame-wb-fence-signals", ret == 0, "expected the writeback fence within 10 s");
	check("own-frame-wb-fence-after-the-flip", flip_done == 1,
	      "expected the commit's out-fence signalled when its writeback fence is, got %s",
	      flip_done ? "an error" : "unsignalled");
	require(sync_wait(flip_fence, 10000) == 0, "the out-fence signals");
	kms_fence_info(wb_fence, &wb_info);
	kms_fence_info(flip_fence, &flip_info);
	check("own-frame-wb-fence-not-stamped-before-the-flip",
	      wb_info.timestamp_ns >= flip_info.timestamp_ns,
	      "writeback fence %+.3f ms from the flip's", (wb_info.timestamp_ns -
							  flip_info.timestamp_ns) / 1e6);
	px = buffer_pixel(dev->fd, out, W / 2, H / 2);
	check("own-frame-written-back", px == 0xff0000,
	      "expected the commit's primary plane 0xff0000 in the buffer, got %#lx", px);
	check("own-frame-flip-event", kms_next_event(dev, 5000, &ev) == 1 &&
	      ev.type == DRM_EVENT_FLIP_COMPLETE, "expected the commit's flip event");
	close(wb_fence);
	close(flip_fence);
	kms_fb_destroy(dev->fd, &old);
	kms_fb_destroy(dev->fd, &new);
}

static void test_released_buffer(struct kms_dev *dev, struct kms_pipe *pipe, const struct kms_writeback *wb)
{
	struct kms_fb shown, next, out;
	drmModeModeInfo mode = pipe->mode;
	drmModeAtomicReq *req;
	struct kms_event ev;
	int32_t fence = -1;
	drmModeConnector *c;
	int i, ret;
	long px;

	begin("released-buffer");
	c = drmModeGetConnector(dev->fd, pipe->connector_id);
	for (i = 0; c && i < c->count_modes; i++)
		if (c->modes[i].hdisplay * c->modes[i].vdisplay > mode.hdisplay * mode.vdisplay)
			mode = c->modes[i];
	drmModeFreeConnector(c);
	require(kms_fb_create(dev->fd, mode.hdisplay, mode.vdisplay, DRM_FORMAT_XRGB8888, 11,
			      &shown) == 0 &&
		kms_fb_create(dev->fd, mode.hdisplay, mode.vdisplay, DRM_FORMAT_XRGB8888, 12,
			      &next) == 0 &&
		kms_fb_create(dev->fd, mode.hdisplay, mode.vdisplay, DRM_FORMAT_XRGB8888, 13,
			      &out) == 0 &&
		kms_fb_fill(dev->fd, &shown, 0x0000ff) == 0 &&
		kms_fb_fill(dev->fd, &next, 0xff0000) == 0, "framebuffers");
	require(kms_modeset(dev, pipe, &mode, &next) == 0, "modeset to the largest mode");

	/* The writeback commit: @shown on screen and written back. */
	req = drmModeAtomicAlloc();
	kms_req_plane(req, pipe->primary_id, &pipe->primary_props, pipe->crtc_id, &shown, -1);
	kms_req_plane(req, pipe->overlay_id, &pipe->overlay_props, 0, NULL, -1);
	kms_req_plane(req, pipe->cursor_id, &pipe->cursor_props, 0, NULL, -1);
	drmModeAtomicAddProperty(req, wb->id, wb->crtc_id, pipe->crtc_id);
	drmModeAtomicAddProperty(req, wb->id, wb->fb_id, out.fb_id);
	drmModeAtomicAddProperty(req, wb->id, wb->out_fence_ptr, (uint64_t)(uintptr_t)&fence);
	ret = drmModeAtomicCommit(dev->fd, req,
				  DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT, NULL) ?
	      -errno : 0;
	drmModeAtomicFree(req);
	require(ret == 0 && fence >= 0, "writeback commit");
	require(kms_next_event(dev, 10000, &ev) == 1, "its flip event");
	/* At once the next flip; its event hands @shown back: draw into it. */
	require(kms_flip(dev, pipe, &next, NULL, -1, 2) == 0, "the next flip");
	require(kms_next_event(dev, 10000, &ev) == 1, "the next flip's event");
	require(kms_fb_fill(dev->fd, &shown, 0x00ff00) == 0, "scribble");
	check("released-buffer-wb-fence-signals", sync_wait(fence, 10000) == 0,
	      "expected the writeback fence within 10 s");
	close(fence);
	px = buffer_pixel(dev->fd, &out, mode.hdisplay / 2, mode.vdisplay - 1);
	check("released-buffer-written-back-whole", px == 0x0000ff,
	      "expected the commit's 0x0000ff at the bottom of the written-back image, got %#lx",
	      px);
	kms_fb_destroy(dev->fd, &shown);
	kms_fb_destroy(dev->fd, &next);
	kms_fb_destroy(dev->fd, &out);
}

int main(int argc, char **argv)
{
	static const uint32_t primary_formats[] = {
		DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_XRGB16161616,
		DRM_FORMAT_ARGB16161616, DRM_FORMAT_RGB565,
	};
	const char *driver = kms_driver_arg(argc, argv);
	struct kms_fb wb_xr24, wb_ar24, wrong, primary, overlay, cursor, f;
	drmModeModeInfo mode;
	struct kms_pipe pipe;
	struct kms_dev dev;
	struct layer l[3];
	struct kms_writeback wb;
	char name[64];
	int32_t fence;
	unsigned int i;
	int ret;

	watchdog(220);
	begin("setup");
	require(driver && !strcmp(driver, "flipkms"), "the writeback connector is flipkms's");
	require(kms_open(&dev, driver, KMS_CAP_ATOMIC) == 0, "open flipkms");
	require(drmSetClientCap(dev.fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1) == 0,
		"DRM_CLIENT_CAP_WRITEBACK_CONNECTORS");
	require(kms_pipes(&dev, &pipe, 1) == 1 && pipe.overlay_id && pipe.cursor_id,
		"a pipe with an overlay and a cursor");
	begin("writeback-connector-per-crtc");
	check("writeback-connector-per-crtc", kms_writeback_find(&dev, &pipe, &wb),
	      "expected a writeback connector with CRTC_ID, WRITEBACK_FB_ID and "
	      "WRITEBACK_OUT_FENCE_PTR for the pipe's CRTC");
	require(wb.id, "a writeback connector");

	mode = pipe.mode;
	require(kms_fb_create(dev.fd, W, H, DRM_FORMAT_XRGB8888, 1, &primary) == 0 &&
		kms_fb_create(dev.fd, W, H, DRM_FORMAT_XRGB8888, 2, &wb_xr24) == 0 &&
		kms_fb_create(dev.fd, W, H, DRM_FORMAT_ARGB8888, 3, &wb_ar24) == 0 &&
		kms_fb_create(dev.fd, 200, 150, DRM_FORMAT_ARGB8888, 4, &overlay) == 0 &&
		kms_fb_create(dev.fd, 64, 64, DRM_FORMAT_ARGB8888, 5, &cursor) == 0,
		"framebuffers");
	/* 640x480: small enough to compose quickly under TCG. */
	require(kms_mode_of_size(&dev, &pipe, W, H, &mode), "a 640x480 mode");
	require(kms_modeset(&dev, &pipe, &mode, &primary) == 0, "modeset 640x480");

	for (i = 0; i < sizeof(primary_formats) / sizeof(primary_formats[0]); i++) {
		snprintf(name, sizeof(name), "primary-%.4s", (const char *)&primary_formats[i]);
		if (!kms_plane_has_format(dev.fd, pipe.primary_id, primary_formats[i])) {
			not_ok(name, "the primary plane does not list the format");
			continue;
		}
		require(kms_fb_create(dev.fd, W, H, primary_formats[i], 6, &f) == 0, "framebuffer");
		fill_random(dev.fd, &f);
		l[0] = (struct layer){ pipe.primary_id, &pipe.primary_props, &f, 0, 0 };
		check_frame(&dev, &pipe, &wb, name, l, 1, &wb_xr24);
		kms_fb_destroy(dev.fd, &f);
	}

	fill_random(dev.fd, &primary);
	fill_random(dev.fd, &overlay);
	fill_random(dev.fd, &cursor);
	test_windowed_primary(&dev, &pipe, &wb, &overlay, &wb_xr24);
	l[0] = (struct layer){ pipe.primary_id, &pipe.primary_props, &primary, 0, 0 };
	l[1] = (struct layer){ pipe.overlay_id, &pipe.overlay_props, &overlay, 100, 50 };
	check_frame(&dev, &pipe, &wb, "overlay", l, 2, &wb_xr24);

	/* An opaque cursor: set every alpha to 0xff, keep the colours. */
	{
		unsigned char *map = kms_fb_map(dev.fd, &cursor);
		uint32_t k;

		require(map != NULL, "map the cursor");
		for (k = 0; k < cursor.size / 4; k++)
			map[4 * k + 3] = 0xff;
		munmap(map, cursor.size);
	}
	l[2] = (struct layer){ pipe.cursor_id, &pipe.cursor_props, &cursor, 300, 200 };
	check_frame(&dev, &pipe, &wb, "cursor", l, 3, &wb_xr24);
	check_frame(&dev, &pipe, &wb, "wb-ar24", l, 3, &wb_ar24);
	test_own_frame(&dev, &pipe, &wb, &cursor, &wb_xr24);

	begin("wrong-size-buffer-einval");
	require(kms_fb_create(dev.fd, W / 2, H, DRM_FORMAT_XRGB8888, 7, &wrong) == 0, "buffer");
	ret = commit(&dev, &pipe, &wb, l, 1, &wrong, &fence);
	check("wrong-size-buffer-einval", ret == -EINVAL && fence == -1,
	      "expected EINVAL and no fence, got %s and %d", errno_name(-ret), fence);
	kms_fb_destroy(dev.fd, &wrong);
	begin("wrong-format-buffer-einval");
	/* One the planes take but the writeback connector does not list. */
	require(kms_fb_create(dev.fd, W, H, DRM_FORMAT_XBGR8888, 8, &wrong) == 0, "buffer");
	ret = commit(&dev, &pipe, &wb, l, 1, &wrong, &fence);
	check("wrong-format-buffer-einval", ret == -EINVAL && fence == -1,
	      "expected EINVAL and no fence, got %s and %d", errno_name(-ret), fence);
	kms_fb_destroy(dev.fd, &wrong);

	test_released_buffer(&dev, &pipe, &wb);

	/* Detach the writeback connector: a disabled CRTC may keep none. */
	{
		drmModeAtomicReq *req = drmModeAtomicAlloc();

		drmModeAtomicAddProperty(req, wb.id, wb.crtc_id, 0);
		check("writeback-connector-detaches",
		      drmModeAtomicCommit(dev.fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL) == 0,
		      "detaching failed: %s", errno_name(errno));
		drmModeAtomicFree(req);
	}
	check_int("crtc-disables-after-writeback", 0, kms_disable(&dev, &pipe));
	kms_fb_destroy(dev.fd, &primary);
	kms_fb_destroy(dev.fd, &overlay);
	kms_fb_destroy(dev.fd, &cursor);
	kms_fb_destroy(dev.fd, &wb_xr24);
	kms_fb_destroy(dev.fd, &wb_ar24);
	kms_close(&dev);
	return finish();
}
