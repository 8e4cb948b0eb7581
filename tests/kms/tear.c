// SPDX-License-Identifier: MIT
/*
 * tear: an async (tearing) flip replaces the scanned-out buffer mid-refresh,
 * and what flipkms composes of that refresh shows the tear
 * (Documentation/flipkms.rst, "Tearing flips"): rows above the line the
 * beam had reached when the flip took effect come from the old buffer,
 * rows from that line down from the new one; a flip in the vertical
 * blanking tears nothing. The line is computed here from the events and
 * the mode: (t - ts) * vtotal / period, ts the vblank that began the
 * refresh (a synchronous flip's event), t the async flip's event; both are
 * whole µs, so the line is known within [lo, hi], one line or two.
 *
 *   writeback-tear		a writeback commit shows A, an async flip to B
 *				lands in the refresh it began: the buffer
 *				written back is A above the line, B from it
 *   writeback-after-refresh	its fence signals once that refresh is over
 *   crc-is-writeback's		that refresh's CRC entry is the CRC of the
 *				pixels written back
 *   ppm-bands			async flips to B, then C, in one refresh:
 *				frame.ppm read in it shows A, B and C bands
 *
 * At 640x480, 30 Hz: quick to compose, a wide refresh to land in.
 * $FLIPFENCE_TEAR_PPM names a file to keep ppm-bands' torn frame in (the
 * demo's picture of the tear).
 *
 * usage: tear flipkms
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

#define W	640
#define H	480
#define TRIES	60
#define RGB_A	0x0000ff
#define RGB_B	0xff0000
#define RGB_C	0x00ff00

static struct kms_dev dev;
static struct kms_pipe kp;
static drmModeModeInfo mode;
static struct kms_fb fb_a, fb_b, fb_c, fb_wb;
static struct kms_writeback wb;
static char crtc_dir[128];

/* The rows [lo, hi] the tear may start at, from the events' µs. */
struct tear {
	int lo, hi;
};

/* Where a flip at @t_us tears a refresh begun at @ts_us, as flipkms says. */
static struct tear tear_at(int64_t ts_us, int64_t t_us)
{
	int64_t period = (int64_t)mode.htotal * mode.vtotal * 1000000 / mode.clock;
	int64_t d = (t_us - ts_us) * 1000;
	struct tear r;

	/* Each time is truncated to the µs: d is within 1 µs either way. */
	r.lo = (int)((d > 1000 ? d - 1000 : 0) * mode.vtotal / period);
	r.hi = (int)((d + 1000) * mode.vtotal / period);
	return r;
}

/*
 * The primary plane to @fb with a flip event, written back if @fence
 * (@flags DRM_MODE_ATOMIC_ALLOW_MODESET the first time: it routes the
 * writeback connector).
 */
static int commit_sync(const struct kms_fb *fb, int32_t *fence, uint32_t flags)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret = kms_req_plane(req, kp.primary_id, &kp.primary_props, kp.crtc_id, fb, -1);

	if (fence) {
		*fence = -1;
		drmModeAtomicAddProperty(req, wb.id, wb.crtc_id, kp.crtc_id);
		drmModeAtomicAddProperty(req, wb.id, wb.fb_id, fb_wb.fb_id);
		drmModeAtomicAddProperty(req, wb.id, wb.out_fence_ptr, (uint64_t)(uintptr_t)fence);
	}
	if (!ret)
		ret = drmModeAtomicCommit(dev.fd, req, DRM_MODE_ATOMIC_NONBLOCK | flags |
					  DRM_MODE_PAGE_FLIP_EVENT, NULL) ? -errno : 0;
	drmModeAtomicFree(req);
	return ret;
}

static int flip_async(const struct kms_fb *fb, struct kms_event *ev)
{
	if (drmModePageFlip(dev.fd, kp.crtc_id, fb->fb_id,
			    DRM_MODE_PAGE_FLIP_ASYNC | DRM_MODE_PAGE_FLIP_EVENT, NULL))
		return -errno;
	return kms_next_event(&dev, 5000, ev) == 1 ? 0 : -ETIMEDOUT;
}

/* Row @y's colour if the whole row has one, else -1. */
static long row_colour(long (*px)(int y, int x), int y)
{
	long c = px(y, 0);
	int x;

	for (x = 1; x < W; x++)
		if (px(y, x) != c)
			return -1;
	return c;
}

/*
 * Whether the rows are @n bands of @colour[0..n-1], band k > 0 starting at
 * a row in [t[k].lo, t[k].hi] (or not at all, its flip in the blanking);
 * the rows the bands start at in @start, or -1 from the first that is
 * wrong.
 */
static bool bands(long (*px)(int y, int x), const long *colour, const struct tear *t, int n,
		  int *start)
{
	int k, y = 0;
	bool ok = true;

	start[0] = 0;
	for (k = 0; k < n; k++) {
		if (k > 0) {
			start[k] = y;
			ok &= (y >= t[k].lo && y <= t[k].hi) || (y == H && t[k].hi >= H);
		}
		for (; y < H && row_colour(px, y) == colour[k]; y++)
			;
	}
	return ok && y == H;
}

/* --- writeback and CRC --------------------------------------------------- */

static unsigned char *wb_map;

static long wb_pixel(int y, int x)
{
	return *(const uint32_t *)(wb_map + (size_t)y * fb_wb.pitch + 4 * x) & 0xffffff;
}

/* flipkms's CRC of the written-back frame: ARGB16161616 lines, c * 257. */
static uint32_t wb_crc(void)
{
	static unsigned char line[W * 8];
	uint32_t crc = 0;
	int x, y, c;

	for (y = 0; y < H; y++) {
		for (x = 0; x < W; x++) {
			uint32_t px = (uint32_t)wb_pixel(y, x) | 0xff000000u;

			for (c = 0; c < 4; c++) {
				line[8 * x + 2 * c] = px >> (8 * c) & 0xff;
				line[8 * x + 2 * c + 1] = px >> (8 * c) & 0xff;
			}
		}
		crc = kms_crc32_le(crc, line, sizeof(line));
	}
	return crc;
}

/* The CRC entry of vblank @frame from crc/data, or false (and why). */
static bool crc_of(int data, uint64_t frame, unsigned long *crc)
{
	struct pollfd pfd = { .fd = data, .events = POLLIN };
	unsigned long f = 0;
	char line[64];
	ssize_t n;

	for (;;) {
		n = read(data, line, sizeof(line) - 1);
		if (n < 0 && errno == EAGAIN && poll(&pfd, 1, 5000) == 1)
			continue;
		if (n <= 0) {
			comment("crc/data: %s after the entry of vblank %lu",
				n ? errno_name(errno) : "end of file", f);
			return false;
		}
		line[n] = '\0';
		if (sscanf(line, "%lx %lx", &f, crc) != 2 || f > frame) {
			comment("crc/data: \"%.*s\", no entry of vblank %llu", (int)strcspn(line, "\n"),
				line, (unsigned long long)frame);
			return false;
		}
		if (f == frame)
			return true;
	}
}

static void check_writeback(void)
{
	struct kms_event sync_ev, async_ev;
	struct kms_fence_info info = { 0 };
	int64_t period_us = (int64_t)mode.htotal * mode.vtotal * 1000 / mode.clock;
	static const long colour[2] = { RGB_A, RGB_B };
	int tries, ret = 0, ctl, data, start[2];
	struct tear t = { 0, 0 }, tears[2];
	unsigned long crc = 0;
	int32_t fence = -1;
	char path[192];
	uint32_t want;
	bool ok;

	begin("writeback-tear");
	snprintf(path, sizeof(path), "%s/crc/control", crtc_dir);
	ctl = open(path, O_WRONLY);
	require(ctl >= 0 && write(ctl, "auto", 4) == 4, "CRC source auto");
	close(ctl);
	snprintf(path, sizeof(path), "%s/crc/data", crtc_dir);
	data = open(path, O_RDONLY | O_NONBLOCK);
	require(data >= 0, "open crc/data");
	require(commit_sync(&fb_a, &fence, DRM_MODE_ATOMIC_ALLOW_MODESET) == 0 &&
		kms_next_event(&dev, 5000, &sync_ev) == 1 && sync_wait(fence, 10000) == 0,
		"route the writeback connector");

	for (tries = 1; tries <= TRIES; tries++) {
		if (fence >= 0)
			close(fence);
		require(commit_sync(&fb_a, NULL, 0) == 0 &&
			kms_next_event(&dev, 5000, &sync_ev) == 1, "show A");
		ret = commit_sync(&fb_a, &fence, 0);
		if (ret || kms_next_event(&dev, 5000, &sync_ev) != 1)
			break;
		ret = flip_async(&fb_b, &async_ev);
		if (ret)
			break;
		if (async_ev.sequence == sync_ev.sequence)
			break;
		comment("try %d: the async flip landed %lld vblanks later", tries,
			(long long)(async_ev.sequence - sync_ev.sequence));
	}
	if (ret || tries > TRIES) {
		not_ok("writeback-tear", "no async flip in the refresh of a writeback in %d "
		       "tries: %s", TRIES, ret ? errno_name(-ret) : "all later");
		close(data);
		return;
	}
	t = tear_at(sync_ev.time_us, async_ev.time_us);
	tears[1] = t;
	comment("try %d: vblank %llu at %lld us, flip %lld us later: rows %d-%d", tries,
		(unsigned long long)sync_ev.sequence, (long long)sync_ev.time_us,
		(long long)(async_ev.time_us - sync_ev.time_us), t.lo, t.hi);
	require(sync_wait(fence, 10000) == 0 && kms_fence_info(fence, &info) == 0,
		"the writeback fence signals");
	close(fence);
	wb_map = kms_fb_map(dev.fd, &fb_wb);
	require(wb_map != NULL, "map writeback");
	ok = bands(wb_pixel, colour, tears, 2, start);
	check("writeback-tear", ok,
	      "expected A (%06x) above a row in %d-%d, B (%06x) from it down; B starts at "
	      "row %d (of %d), whose colour is %06lx (-1: not one)", RGB_A, t.lo, t.hi, RGB_B,
	      start[1], H, start[1] < H ? row_colour(wb_pixel, start[1]) : -1L);
	check("writeback-after-refresh",
	      info.timestamp_ns / 1000 >= sync_ev.time_us + period_us - 1,
	      "expected the writeback fence at or after the refresh's end (%lld us), got %lld us",
	      (long long)(sync_ev.time_us + period_us), (long long)info.timestamp_ns / 1000);
	begin("crc-is-writeback's");
	/* Each value before the call: arguments are evaluated in any order. */
	ok = crc_of(data, sync_ev.sequence, &crc);
	want = wb_crc();
	check("crc-is-writeback's", ok && crc == want,
	      "expected the CRC entry of vblank %llu to be %08x, the written-back pixels', "
	      "got %s%08lx", (unsigned long long)sync_ev.sequence, want, ok ? "" : "none, ",
	      crc);
	munmap(wb_map, fb_wb.size);
	close(data);
}

/* --- frame.ppm ----------------------------------------------------------- */

static unsigned char *ppm;

static long ppm_pixel(int y, int x)
{
	const unsigned char *p = ppm + ((size_t)y * W + x) * 3;

	return (long)p[0] << 16 | p[1] << 8 | p[2];
}

/* frame.ppm's pixels, header skipped, into @ppm. */
static bool read_ppm(void)
{
	static unsigned char buf[W * H * 3];

	ppm = buf;
	return kms_frame_ppm(crtc_dir, W, H, buf);
}

/* The frame read last, as a PPM file at @path, if there is a @path. */
static void keep_ppm(const char *path)
{
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "wb");
	if (!f || fprintf(f, "P6\n%d %d\n255\n", W, H) < 0 ||
	    fwrite(ppm, 1, (size_t)W * H * 3, f) != (size_t)W * H * 3)
		comment("could not write %s", path);
	if (f)
		fclose(f);
}

static void check_ppm(void)
{
	static const long colour[3] = { RGB_A, RGB_B, RGB_C };
	struct kms_event sync_ev, ev_b, ev_c;
	struct tear t[3] = { { 0, 0 } };
	uint64_t seq_after = 0, ns;
	int tries, start[3];
	bool ok;

	begin("ppm-bands");
	for (tries = 1; tries <= TRIES; tries++) {
		require(commit_sync(&fb_a, NULL, 0) == 0 &&
			kms_next_event(&dev, 5000, &sync_ev) == 1, "show A");
		if (flip_async(&fb_b, &ev_b) || flip_async(&fb_c, &ev_c) || !read_ppm() ||
		    drmCrtcGetSequence(dev.fd, kp.crtc_id, &seq_after, &ns))
			continue;
		t[1] = tear_at(sync_ev.time_us, ev_b.time_us);
		t[2] = tear_at(sync_ev.time_us, ev_c.time_us);
		/* Read before the next vblank, both in the active lines. */
		if (seq_after == sync_ev.sequence && ev_c.sequence == sync_ev.sequence &&
		    t[2].hi < H)
			break;
	}
	if (tries > TRIES) {
		not_ok("ppm-bands", "no two async flips and a frame.ppm read within one "
		       "refresh's active lines in %d tries", TRIES);
		return;
	}
	comment("try %d: B at rows %d-%d, C at rows %d-%d", tries, t[1].lo, t[1].hi, t[2].lo,
		t[2].hi);
	ok = bands(ppm_pixel, colour, t, 3, start);
	keep_ppm(getenv("FLIPFENCE_TEAR_PPM"));
	check("ppm-bands", ok,
	      "expected A above a row in %d-%d, B from it, C from a row in %d-%d; B starts at "
	      "row %d, C at %d", t[1].lo, t[1].hi, t[2].lo, t[2].hi, start[1], start[2]);
}

int main(int argc, char **argv)
{
	const char *driver = kms_driver_arg(argc, argv);

	watchdog(120);
	begin("setup");
	require(driver && !strcmp(driver, "flipkms"), "the tear is flipkms's model");
	require(kms_open(&dev, driver, KMS_CAP_ATOMIC) == 0, "open flipkms");
	require(drmSetClientCap(dev.fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1) == 0,
		"DRM_CLIENT_CAP_WRITEBACK_CONNECTORS");
	require(kms_pipes(&dev, &kp, 1) == 1 && kms_writeback_find(&dev, &kp, &wb), "a pipe and its writeback");
	require(kms_crtc_debugfs_dir(&dev, &kp, crtc_dir, sizeof(crtc_dir)) == 0, "debugfs");
	require(kms_mode_of_size(&dev, &kp, W, H, &mode), "a 640x480 mode");
	mode = kms_mode_at_refresh(&mode, 30);
	require(kms_fb_create(dev.fd, W, H, DRM_FORMAT_XRGB8888, 1, &fb_a) == 0 &&
		kms_fb_create(dev.fd, W, H, DRM_FORMAT_XRGB8888, 2, &fb_b) == 0 &&
		kms_fb_create(dev.fd, W, H, DRM_FORMAT_XRGB8888, 3, &fb_c) == 0 &&
		kms_fb_create(dev.fd, W, H, DRM_FORMAT_XRGB8888, 4, &fb_wb) == 0 &&
		kms_fb_fill(dev.fd, &fb_a, RGB_A) == 0 && kms_fb_fill(dev.fd, &fb_b, RGB_B) == 0 &&
		kms_fb_fill(dev.fd, &fb_c, RGB_C) == 0, "framebuffers");
	require(kms_modeset(&dev, &kp, &mode, &fb_a) == 0, "modeset 640x480 at 30 Hz");
	kms_drain_events(&dev, 50);

	check_writeback();
	check_ppm();
	kms_fb_destroy(dev.fd, &fb_c);
	kms_fb_destroy(dev.fd, &fb_wb);
	kms_teardown(&dev, &kp, (struct kms_fb[2]){ fb_a, fb_b });
	return finish();
}
