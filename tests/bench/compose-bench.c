// SPDX-License-Identifier: MIT
/*
 * compose-bench: how many frames a virtual display driver's composer makes
 * per second at 1920x1080 with a primary plane, a full-screen ARGB8888
 * overlay (with -n, an NV12 one, as a video player's; with -r, a 1080x1920
 * ARGB8888 one turned 90 degrees, as a portrait video or a rotated
 * display's content) and a 64x64 ARGB8888 cursor; with -c, the CRTC's
 * colour stages set too (DEGAMMA_LUT, CTM and GAMMA_LUT, as a
 * colour-managed compositor sets them).
 *
 * The primary plane flips between two buffers at every vblank, so that every
 * frame is new, while a CRC source is set; the mode runs at 240 Hz so that
 * the vblank rate is rarely the limit. Compositions are counted by the
 * kernel, never by how promptly this program reads CRC entries: flipkms
 * counts its own (flipkms_status); vkms keeps no count, so its composer's
 * runs are counted by a kprobe named flipfence_vkms_compose on
 * vkms_composer_worker (tests/bench/guest.sh defines it), read from
 * kprobe_profile. Without either, "counted_by" says "crc-bursts": vkms adds
 * an entry for each vblank a composition covered, all at once when it
 * finishes, so a burst of entries read within 1 ms of each other is one
 * composition, which depends on this program keeping up. Frames per second
 * are compositions per second of wall time; frames per vblank says whether
 * the composer keeps up (1.0). Prints one JSON object.
 *
 * usage: compose-bench [-n | -r] [-c] [-t SECONDS] DRIVER
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

#define HZ	240

static void fail(const char *what, int err)
{
	fprintf(stderr, "compose-bench: %s: %s\n", what, strerror(err));
	exit(1);
}

/* The first number after @key on a line of @path, or -1. */
static long count_in(const char *path, const char *key)
{
	char line[256], *at;
	long n = -1;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	while (n < 0 && fgets(line, sizeof(line), f)) {
		at = strstr(line, key);
		if (at)
			n = strtol(at + strlen(key), NULL, 10);
	}
	fclose(f);
	return n;
}

/* A 1920x1080 NV12 framebuffer of a grey ramp with colour; 0 or -errno. */
static int nv12_create(int fd, struct kms_fb *fb)
{
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 }, x, y;
	uint64_t offset;
	unsigned char *map;

	memset(fb, 0, sizeof(*fb));
	if (drmModeCreateDumbBuffer(fd, 1920, 1080 * 3 / 2, 8, 0, &fb->handle, &fb->pitch,
				    &fb->size) ||
	    drmModeMapDumbBuffer(fd, fb->handle, &offset))
		return -errno;
	map = mmap(NULL, fb->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
	if (map == MAP_FAILED)
		return -errno;
	for (y = 0; y < 1080 * 3 / 2; y++)
		for (x = 0; x < 1920; x++)
			map[y * fb->pitch + x] = (unsigned char)(y < 1080 ? 16 + x % 220 : 64 + y % 128);
	munmap(map, fb->size);
	handles[0] = handles[1] = fb->handle;
	pitches[0] = pitches[1] = fb->pitch;
	offsets[1] = fb->pitch * 1080;
	fb->width = 1920;
	fb->height = 1080;
	fb->format = DRM_FORMAT_NV12;
	return drmModeAddFB2(fd, 1920, 1080, DRM_FORMAT_NV12, handles, pitches, offsets,
			     &fb->fb_id, 0) ? -errno : 0;
}

/*
 * DEGAMMA_LUT (an sRGB-like x^2.2), CTM (a colour-space change: rows that
 * mix all three channels, negative coefficients included) and GAMMA_LUT
 * (x^(1/2.2)) on @req for @crtc; false if the CRTC has no such properties.
 */
static bool colour_stages(int fd, uint32_t crtc, drmModeAtomicReq *req)
{
	static const double ctm[9] = { 1.2249, -0.2247, -0.0002, -0.0420, 1.0419, 0.0001,
				       -0.0197, -0.0786, 1.0979 };
	const char *names[3] = { "DEGAMMA_LUT", "CTM", "GAMMA_LUT" };
	struct drm_color_lut lut[2][256];
	struct drm_color_ctm m;
	uint32_t blob[3], prop;
	double v;
	int i, k;

	for (i = 0; i < 256; i++)
		for (k = 0; k < 2; k++) {
			v = 65535 * pow(i / 255.0, k ? 1 / 2.2 : 2.2) + 0.5;
			lut[k][i] = (struct drm_color_lut){ .red = (uint16_t)v, .green = (uint16_t)v,
							    .blue = (uint16_t)v };
		}
	/* S31.32 sign-magnitude */
	for (i = 0; i < 9; i++)
		m.matrix[i] = (uint64_t)llround(fabs(ctm[i]) * 4294967296.0) |
			      (ctm[i] < 0 ? 1ULL << 63 : 0);
	if (drmModeCreatePropertyBlob(fd, lut[0], sizeof(lut[0]), &blob[0]) ||
	    drmModeCreatePropertyBlob(fd, &m, sizeof(m), &blob[1]) ||
	    drmModeCreatePropertyBlob(fd, lut[1], sizeof(lut[1]), &blob[2]))
		return false;
	for (k = 0; k < 3; k++) {
		prop = kms_prop_id(fd, crtc, DRM_MODE_OBJECT_CRTC, names[k]);
		if (!prop)
			return false;
		drmModeAtomicAddProperty(req, crtc, prop, blob[k]);
	}
	return true;
}

/* The kernel's count of compositions on CRTC 0, or -1; @how says whose. */
static long compositions(const char *crtc_dir, const char **how)
{
	char path[160];
	long n;

	snprintf(path, sizeof(path), "%s/../flipkms_status", crtc_dir);
	n = count_in(path, " compositions ");
	*how = "flipkms_status";
	if (n < 0) {
		n = count_in("/sys/kernel/debug/tracing/kprobe_profile",
			     "flipfence_vkms_compose ");
		*how = "kprobe vkms_composer_worker";
	}
	if (n < 0)
		*how = "crc-bursts";
	return n;
}

int main(int argc, char **argv)
{
	struct kms_fb primary, primary2, overlay, cursor;
	struct pollfd pfd[2];
	struct kms_event ev;
	long composed0, composed;
	const char *counted_by;
	unsigned int flips = 0;
	drmModeAtomicReq *req;
	drmModeModeInfo mode;
	struct kms_pipe pipe;
	struct kms_dev dev;
	unsigned long frame, crc, first = 0, last = 0;
	double seconds = 5;
	char dir[96], path[160], line[128];
	int opt, ctl, data, ret;
	bool nv12 = false, rot90 = false, colour = false;
	long entries = 0, frames = 0;
	int64_t start, t, prev;
	ssize_t n;

	while ((opt = getopt(argc, argv, "nrct:")) != -1) {
		if (opt == 'n' || opt == 'r' || opt == 'c') {
			nv12 |= opt == 'n';
			rot90 |= opt == 'r';
			colour |= opt == 'c';
			continue;
		}
		if (opt != 't' || (nv12 && rot90)) {
			fprintf(stderr, "usage: %s [-n | -r] [-c] [-t SECONDS] DRIVER\n", argv[0]);
			return 2;
		}
		seconds = atof(optarg);
	}
	if (kms_open(&dev, kms_driver_arg(argc, argv), KMS_CAP_ATOMIC) ||
	    kms_pipes(&dev, &pipe, 1) != 1)
		fail("no pipe", ENODEV);
	if (!pipe.overlay_id || !pipe.cursor_id)
		fail("need an overlay and a cursor plane", ENODEV);
	/* 1920x1080 with reduced blanking, whatever the connector prefers. */
	mode = pipe.mode;
	mode.hdisplay = 1920;
	mode.vdisplay = 1080;
	mode.hsync_start = 1968;
	mode.hsync_end = 2000;
	mode.htotal = 2080;
	mode.vsync_start = 1083;
	mode.vsync_end = 1088;
	mode.vtotal = 1111;
	mode = kms_mode_at_refresh(&mode, HZ);
	if (kms_fb_create(dev.fd, 1920, 1080, DRM_FORMAT_XRGB8888, 1, &primary) ||
	    kms_fb_create(dev.fd, 1920, 1080, DRM_FORMAT_XRGB8888, 4, &primary2) ||
	    (nv12 ? nv12_create(dev.fd, &overlay) :
		    kms_fb_create(dev.fd, rot90 ? 1080 : 1920, rot90 ? 1920 : 1080,
				  DRM_FORMAT_ARGB8888, 2, &overlay)) ||
	    kms_fb_create(dev.fd, 64, 64, DRM_FORMAT_ARGB8888, 3, &cursor))
		fail("framebuffers", ENOMEM);
	ret = kms_modeset(&dev, &pipe, &mode, &primary);
	if (ret)
		fail("modeset 1920x1080@240", -ret);

	req = drmModeAtomicAlloc();
	kms_req_plane(req, pipe.overlay_id, &pipe.overlay_props, pipe.crtc_id, &overlay, -1);
	if (rot90) {
		/* 1080x1920 turned counter-clockwise fills the 1920x1080 CRTC. */
		drmModeAtomicAddProperty(req, pipe.overlay_id, pipe.overlay_props.crtc_w, 1920);
		drmModeAtomicAddProperty(req, pipe.overlay_id, pipe.overlay_props.crtc_h, 1080);
		drmModeAtomicAddProperty(req, pipe.overlay_id,
					 kms_prop_id(dev.fd, pipe.overlay_id, DRM_MODE_OBJECT_PLANE,
						     "rotation"), DRM_MODE_ROTATE_90);
	}
	kms_req_plane(req, pipe.cursor_id, &pipe.cursor_props, pipe.crtc_id, &cursor, -1);
	if (colour && !colour_stages(dev.fd, pipe.crtc_id, req))
		fail("DEGAMMA_LUT, CTM and GAMMA_LUT", ENOTSUP);
	if (drmModeAtomicCommit(dev.fd, req, 0, NULL))
		fail("enable overlay and cursor", errno);
	drmModeAtomicFree(req);

	if (kms_crtc_debugfs_dir(&dev, &pipe, dir, sizeof(dir)))
		fail("debugfs", ENOENT);
	snprintf(path, sizeof(path), "%s/crc/control", dir);
	ctl = open(path, O_WRONLY);
	if (ctl < 0 || write(ctl, "auto", 4) != 4)
		fail(path, errno);
	close(ctl);
	snprintf(path, sizeof(path), "%s/crc/data", dir);
	data = open(path, O_RDONLY);
	if (data < 0)
		fail(path, errno);
	/* The first entry can wait for the source to start; time from there. */
	n = read(data, line, sizeof(line) - 1);
	start = now_ns();
	prev = start;
	composed0 = compositions(dir, &counted_by);
	if (n > 0) {
		line[n] = '\0';
		sscanf(line, "%lx %lx", &first, &crc);
		last = first;
	}
	if (kms_flip(&dev, &pipe, &primary2, NULL, -1, 1))
		fail("flip", errno);
	pfd[0] = (struct pollfd){ .fd = data, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = dev.fd, .events = POLLIN };
	while (n > 0 && now_ns() - start < (int64_t)(seconds * 1e9)) {
		if (poll(pfd, 2, 5000) <= 0)
			fail("poll", errno ? errno : ETIMEDOUT);
		if (pfd[1].revents & POLLIN) {
			/* Flipped: flip again, to the other buffer. */
			if (kms_next_event(&dev, 0, &ev) == 1 &&
			    kms_flip(&dev, &pipe, ++flips % 2 ? &primary : &primary2, NULL, -1, 1))
				fail("flip", errno);
		}
		if (!(pfd[0].revents & POLLIN))
			continue;
		n = read(data, line, sizeof(line) - 1);
		if (n <= 0)
			break;
		line[n] = '\0';
		t = now_ns();
		if (sscanf(line, "%lx %lx", &frame, &crc) == 2) {
			entries++;
			frames += t - prev > 1000000;
			last = frame;
		}
		prev = t;
	}
	composed = compositions(dir, &counted_by);
	if (composed0 >= 0 && composed >= composed0)
		frames = composed - composed0;
	else
		counted_by = "crc-bursts";
	kms_next_event(&dev, 1000, &ev);
	seconds = (now_ns() - start) / 1e9;
	close(data);
	printf("{ \"driver\": \"%s\", \"mode\": \"1920x1080@%d\", \"planes\": "
	       "\"primary XRGB8888 + overlay %s 1920x1080 + cursor ARGB8888 64x64\", "
	       "\"colour_stages\": %s, \"seconds\": %.3f, \"crc_entries\": %ld, \"frames\": %ld, "
	       "\"counted_by\": \"%s\", "
	       "\"vblanks\": %lu, \"frames_per_s\": %.2f, \"frames_per_vblank\": %.3f }\n",
	       dev.driver, HZ,
	       nv12 ? "NV12" : rot90 ? "ARGB8888 1080x1920 rotate-90 to" : "ARGB8888",
	       colour ? "true" : "false", seconds, entries, frames, counted_by, last - first,
	       frames / seconds,
	       last > first ? (double)frames / (last - first) : 0);
	kms_disable(&dev, &pipe);
	kms_close(&dev);
	return 0;
}
