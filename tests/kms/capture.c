// SPDX-License-Identifier: MIT
/*
 * capture: flipkms's CRCs and frame.ppm show the frame a vblank latched,
 * one CRC entry per vblank.
 *
 *   latched-frame	a nonblocking flip waiting for its in-fence has
 *			swapped in its plane state, but the screen (frame.ppm
 *			and the CRCs) still shows the frame before it until a
 *			vblank latches it
 *   crc-at-the-flip	the first entry with the new CRC is that of the
 *			vblank the flip event reports, the one before it has
 *			the old CRC
 *   blocking, nonblocking
 *			right after a modeset, 100 consecutive entries with
 *			frame numbers that never skip, read with blocking
 *			reads and with poll() + O_NONBLOCK reads
 *
 * usage: capture flipkms
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

#define ENTRIES	100

static char crtc_dir[96];

struct crc_entry {
	unsigned long frame, crc;
};

static int crc_open(int flags)
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

/* The next entry: each read() of crc/data returns one "frame crc" line. */
static bool crc_next(int data, bool nonblock, struct crc_entry *e)
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

static uint64_t vblank_count(struct kms_dev *dev, const struct kms_pipe *pipe)
{
	uint64_t seq = 0, ns;

	require(drmCrtcGetSequence(dev->fd, pipe->crtc_id, &seq, &ns) == 0,
		"DRM_IOCTL_CRTC_GET_SEQUENCE");
	return seq;
}

/* A flip to @fb, waited for: its event. */
static void flip_to(struct kms_dev *dev, const struct kms_pipe *pipe, const struct kms_fb *fb,
		    struct kms_event *ev)
{
	require(kms_flip(dev, pipe, fb, NULL, -1, 1) == 0, "flip");
	require(kms_next_event(dev, 10000, ev) == 1 && ev->type == DRM_EVENT_FLIP_COMPLETE,
		"flip event");
}

static void test_latched_frame(struct kms_dev *dev, const struct kms_pipe *pipe,
			       const struct kms_fb fb[2])
{
	struct kms_event ev;
	int tl, fence, ret;
	long before, waiting, after;

	begin("latched-frame");
	flip_to(dev, pipe, &fb[0], &ev);
	before = kms_frame_pixel(crtc_dir, 10, 10);
	tl = sw_sync_timeline_create();
	require(tl >= 0, "sw_sync timeline");
	fence = sw_sync_fence_create(tl, "capture", 1);
	require(fence >= 0, "sw_sync fence");
	ret = kms_flip(dev, pipe, &fb[1], NULL, fence, 2);
	close(fence);
	require(ret == 0, "nonblocking flip behind an in-fence");
	/* Several vblanks pass; the flip cannot be latched before the signal. */
	sleep_ms(200);
	waiting = kms_frame_pixel(crtc_dir, 10, 10);
	require(sw_sync_timeline_inc(tl, 1) == 0, "signal the in-fence");
	close(tl);
	require(kms_next_event(dev, 10000, &ev) == 1, "flip event");
	after = kms_frame_pixel(crtc_dir, 10, 10);

	check("latched-frame-before-flip", before == 0x0000ff, "expected 0x0000ff, got %#lx", before);
	check("frame-waiting-for-in-fence-not-shown", waiting == 0x0000ff,
	      "expected the latched 0x0000ff while the flip waits, got %#lx", waiting);
	check("frame-shown-once-latched", after == 0xff0000, "expected 0xff0000, got %#lx", after);
}

static void test_crc_at_flip(struct kms_dev *dev, const struct kms_pipe *pipe,
			     const struct kms_fb fb[2])
{
	struct crc_entry e, prev = { 0, 0 };
	unsigned long old_crc = 0, new_crc = 0;
	struct kms_event ev;
	bool found = false;
	int data, i;

	begin("crc-at-the-flip");
	flip_to(dev, pipe, &fb[0], &ev);
	data = crc_open(0);
	require(crc_next(data, false, &e), "a CRC entry");
	old_crc = e.crc;
	flip_to(dev, pipe, &fb[1], &ev);
	comment("flip shown at vblank %llu", (unsigned long long)ev.sequence);
	for (i = 0; i < 2 * ENTRIES && !found; i++) {
		prev = e;
		require(crc_next(data, false, &e), "a CRC entry");
		found = e.frame >= ev.sequence;
	}
	close(data);
	require(found, "an entry for the flip's vblank");
	new_crc = e.crc;
	check_int("crc-entry-at-flip-vblank", ev.sequence, e.frame);
	check("crc-before-flip-is-old-frame", prev.frame + 1 == e.frame && prev.crc == old_crc,
	      "expected entry %lu with %lx, got %lu with %lx", e.frame - 1, old_crc, prev.frame,
	      prev.crc);
	check("crc-at-flip-is-new-frame", new_crc != old_crc, "expected a new CRC, got %lx again",
	      new_crc);
}

/* After a modeset, ENTRIES entries in a row, for one vblank each. */
static void test_consecutive(struct kms_dev *dev, struct kms_pipe *pipe, const struct kms_fb *fb,
			     bool nonblock)
{
	const char *tag = nonblock ? "nonblocking" : "blocking";
	struct crc_entry e, first;
	unsigned long gaps = 0, changed = 0;
	uint64_t at_modeset;
	char name[64];
	int data, i;

	snprintf(name, sizeof(name), "%s-reads-after-modeset", tag);
	begin(name);
	require(kms_disable(dev, pipe) == 0, "disable");
	require(kms_modeset(dev, pipe, NULL, fb) == 0, "modeset");
	at_modeset = vblank_count(dev, pipe);
	data = crc_open(nonblock ? O_NONBLOCK : 0);
	require(crc_next(data, nonblock, &first), "a first CRC entry");
	e = first;
	for (i = 1; i < ENTRIES; i++) {
		unsigned long last = e.frame;

		if (!crc_next(data, nonblock, &e))
			break;
		gaps += e.frame != last + 1;
		changed += e.crc != first.crc;
	}
	close(data);

	check(name, i == ENTRIES, "expected %d entries, read %d", ENTRIES, i);
	snprintf(name, sizeof(name), "%s-entry-for-every-vblank", tag);
	check(name, gaps == 0, "%lu frame numbers skipped or repeated in %d entries from %lu", gaps,
	      i, first.frame);
	snprintf(name, sizeof(name), "%s-entries-start-after-modeset", tag);
	check(name, first.frame >= at_modeset, "first entry %lu, modeset at vblank %llu",
	      first.frame, (unsigned long long)at_modeset);
	snprintf(name, sizeof(name), "%s-static-frame-same-crc", tag);
	check(name, changed == 0, "%lu of %d entries differ from the first", changed, i);
}

int main(int argc, char **argv)
{
	const char *driver = kms_driver_arg(argc, argv);
	struct kms_pipe pipe;
	struct kms_fb fb[2];
	struct kms_dev dev;

	watchdog(150);
	kms_flipkms_setup(driver, "frame.ppm and the CRCs are flipkms's",
			  &dev, &pipe, crtc_dir, sizeof(crtc_dir), fb);
	require(kms_fb_fill(dev.fd, &fb[0], 0x0000ff) == 0 &&
		kms_fb_fill(dev.fd, &fb[1], 0xff0000) == 0, "paint");
	require(kms_modeset(&dev, &pipe, NULL, &fb[0]) == 0, "modeset");

	test_latched_frame(&dev, &pipe, fb);
	test_crc_at_flip(&dev, &pipe, fb);
	test_consecutive(&dev, &pipe, &fb[0], false);
	test_consecutive(&dev, &pipe, &fb[1], true);

	kms_disable(&dev, &pipe);
	kms_fb_destroy(dev.fd, &fb[0]);
	kms_fb_destroy(dev.fd, &fb[1]);
	kms_close(&dev);
	return finish();
}
