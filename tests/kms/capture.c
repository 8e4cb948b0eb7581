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
 *			frame numbers that never repeat and skip no more
 *			vblanks than flipkms_status says had no entry (missed:
 *			the timer fired late, on a loaded host; crc dropped:
 *			the composer was 64 vblanks behind, as the debug
 *			kernel's first 1080p composition can be; dropped:
 *			injected), read with blocking reads and with poll() +
 *			O_NONBLOCK reads
 *   released-buffer	flipping between two buffers and drawing a marker
 *			colour into the one a flip event hands back, at once:
 *			every CRC entry is the CRC of one of the two frames,
 *			never of a half-drawn marker (the composition of a
 *			frame may finish long after its vblank; the next
 *			flip's event waits for it)
 *   no-stale-entries	entries still waiting for their frame's CRC when
 *			the source is turned off never reach the next session
 *
 * usage: capture flipkms
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

#define ENTRIES	100

static char crtc_dir[96];

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
	struct kms_crc_entry e, prev = { 0, 0 };
	unsigned long old_crc = 0, new_crc = 0;
	struct kms_event ev;
	bool found = false;
	int data, i;

	begin("crc-at-the-flip");
	flip_to(dev, pipe, &fb[0], &ev);
	data = kms_crc_open(crtc_dir, 0);
	require(kms_crc_next(data, false, &e), "a CRC entry");
	old_crc = e.crc;
	flip_to(dev, pipe, &fb[1], &ev);
	comment("flip shown at vblank %llu", (unsigned long long)ev.sequence);
	for (i = 0; i < 2 * ENTRIES && !found; i++) {
		prev = e;
		require(kms_crc_next(data, false, &e), "a CRC entry");
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
	struct kms_crc_entry e, first;
	unsigned long skipped = 0, repeated = 0, changed = 0;
	long long lost_before, lost_after, explained;
	char name[64], before[96], after[96];
	uint64_t at_modeset;
	int data, i;

	snprintf(name, sizeof(name), "%s-reads-after-modeset", tag);
	begin(name);
	require(kms_disable(dev, pipe) == 0, "disable");
	require(kms_modeset(dev, pipe, NULL, fb) == 0, "modeset");
	at_modeset = vblank_count(dev, pipe);
	lost_before = kms_vblanks_without_entry(crtc_dir, pipe->crtc_index, before,
						sizeof(before));
	require(lost_before >= 0, "flipkms_status's missed, dropped and crc dropped counts");
	data = kms_crc_open(crtc_dir, nonblock ? O_NONBLOCK : 0);
	require(kms_crc_next(data, nonblock, &first), "a first CRC entry");
	e = first;
	for (i = 1; i < ENTRIES; i++) {
		unsigned long last = e.frame;

		if (!kms_crc_next(data, nonblock, &e))
			break;
		if (e.frame <= last)
			repeated++;
		else
			skipped += e.frame - last - 1;
		changed += e.crc != first.crc;
	}
	lost_after = kms_vblanks_without_entry(crtc_dir, pipe->crtc_index, after, sizeof(after));
	close(data);
	require(lost_after >= 0, "flipkms_status's counts after the reads");
	explained = lost_after - lost_before;
	if (skipped)
		comment("%s: %lu vblanks without an entry; flipkms_status before: %s, after: %s",
			tag, skipped, before, after);

	check(name, i == ENTRIES, "expected %d entries, read %d", ENTRIES, i);
	/* A vblank with no entry must be one the driver counted as such. */
	snprintf(name, sizeof(name), "%s-entry-for-every-vblank", tag);
	check(name, !repeated && (long long)skipped <= explained,
	      "%lu frame numbers repeated and %lu vblanks skipped in %d entries from %lu, of which flipkms_status counted %lld as missed, dropped or crc dropped",
	      repeated, skipped, i, first.frame, explained);
	snprintf(name, sizeof(name), "%s-entries-start-after-modeset", tag);
	check(name, first.frame >= at_modeset, "first entry %lu, modeset at vblank %llu",
	      first.frame, (unsigned long long)at_modeset);
	snprintf(name, sizeof(name), "%s-static-frame-same-crc", tag);
	check(name, changed == 0, "%lu of %d entries differ from the first", changed, i);
}

/* Reads CRC entries in the background until told to stop. */
struct crc_reader {
	pthread_t thread;
	int fd;
	volatile bool stop;
	struct kms_crc_entry e[4096];
	int n;
};

static void *crc_reader_run(void *arg)
{
	struct crc_reader *r = arg;
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	struct kms_crc_entry e;
	char line[64];
	ssize_t n;

	while (!r->stop) {
		if (poll(&pfd, 1, 50) != 1)
			continue;
		n = read(r->fd, line, sizeof(line) - 1);
		if (n <= 0)
			continue;
		line[n] = '\0';
		if (sscanf(line, "%lx %lx", &e.frame, &e.crc) == 2 &&
		    r->n < (int)(sizeof(r->e) / sizeof(r->e[0])))
			r->e[r->n++] = e;
	}
	return NULL;
}

/* The CRC of the frame @fb shows, steady: the entry of a vblank after its flip. */
static unsigned long steady_crc(struct kms_dev *dev, const struct kms_pipe *pipe,
				const struct kms_fb *fb, int data)
{
	struct kms_event ev;
	struct kms_crc_entry e;
	int i;

	flip_to(dev, pipe, fb, &ev);
	for (i = 0; i < 1000; i++) {
		require(kms_crc_next(data, false, &e), "a CRC entry");
		if (e.frame > ev.sequence)
			return e.crc;
	}
	require(false, "an entry after the flip");
	return 0;
}

/* Fills rows [@y0, @y1) of a 32 bpp dumb buffer with @xrgb. */
static void paint_rows(struct kms_dev *dev, const struct kms_fb *fb, uint32_t y0, uint32_t y1,
		       uint32_t xrgb)
{
	unsigned char *p = kms_fb_map(dev->fd, fb);
	uint32_t *px;
	uint64_t i;

	require(p != NULL, "map a dumb buffer");
	px = (uint32_t *)(p + (size_t)y0 * fb->pitch);
	for (i = 0; i < (uint64_t)(y1 - y0) * fb->pitch / 4; i++)
		px[i] = xrgb;
	munmap(p, fb->size);
}

/*
 * Three buffers in turn at the largest mode (the slowest composition), each
 * flip submitted as soon as the previous one's event arrives, and the
 * buffer that event hands back scribbled at once (its bottom rows, which a
 * composition reads last) with a marker; a buffer is repainted just before
 * it is shown again. Every CRC entry must be that of one of the three
 * frames.
 */
static void test_released_buffer(struct kms_dev *dev, struct kms_pipe *pipe)
{
	static const uint32_t colour[3] = { 0x0000ff, 0xff0000, 0xffffff };
	static struct crc_reader r;
	drmModeModeInfo mode = pipe->mode;
	unsigned long known[3];
	struct kms_fb fb[3];
	struct kms_event ev;
	int i, bad = 0, first = -1, data, band;
	drmModeConnector *c;

	begin("released-buffer");
	c = drmModeGetConnector(dev->fd, pipe->connector_id);
	for (i = 0; c && i < c->count_modes; i++)
		if (c->modes[i].hdisplay * c->modes[i].vdisplay > mode.hdisplay * mode.vdisplay)
			mode = c->modes[i];
	drmModeFreeConnector(c);
	comment("%ux%u", mode.hdisplay, mode.vdisplay);
	for (i = 0; i < 3; i++)
		require(kms_fb_create(dev->fd, mode.hdisplay, mode.vdisplay, DRM_FORMAT_XRGB8888,
				      (unsigned int)i, &fb[i]) == 0 &&
			kms_fb_fill(dev->fd, &fb[i], colour[i]) == 0, "framebuffers");
	require(kms_modeset(dev, pipe, &mode, &fb[0]) == 0, "modeset to the largest mode");
	band = mode.vdisplay / 16;

	data = kms_crc_open(crtc_dir, 0);
	for (i = 0; i < 3; i++)
		known[i] = steady_crc(dev, pipe, &fb[i], data);
	close(data);
	comment("CRCs %08lx, %08lx and %08lx", known[0], known[1], known[2]);
	require(known[0] != known[1] && known[1] != known[2] && known[0] != known[2],
		"three different CRCs");

	r.fd = kms_crc_open(crtc_dir, O_NONBLOCK);
	r.stop = false;
	r.n = 0;
	require(!pthread_create(&r.thread, NULL, crc_reader_run, &r), "reader thread");
	/* fb[2] is on screen. */
	require(kms_flip(dev, pipe, &fb[0], NULL, -1, 1) == 0, "flip");
	for (i = 0; i < 12; i++) {
		int released = (i + 2) % 3, next = (i + 1) % 3;

		require(kms_next_event(dev, 10000, &ev) == 1 && ev.type == DRM_EVENT_FLIP_COMPLETE,
			"flip event");
		/* Handed back: draw into it at once, as a client would. */
		paint_rows(dev, &fb[released], mode.vdisplay - band, mode.vdisplay, 0x00ff00);
		/* The next buffer, scribbled last time round, painted again. */
		if (i)
			paint_rows(dev, &fb[next], mode.vdisplay - band, mode.vdisplay,
				   colour[next]);
		require(kms_flip(dev, pipe, &fb[next], NULL, -1, 1) == 0, "flip");
	}
	require(kms_next_event(dev, 10000, &ev) == 1, "last flip event");
	/* The last frame's entries, then stop. */
	sleep_ms(2000);
	r.stop = true;
	pthread_join(r.thread, NULL);
	close(r.fd);
	for (i = 0; i < r.n; i++) {
		if (r.e[i].crc != known[0] && r.e[i].crc != known[1] && r.e[i].crc != known[2] &&
		    !bad++)
			first = i;
	}
	comment("%d CRC entries while flipping", r.n);
	check("released-buffer-entries", r.n > 0, "expected entries, got none");
	check("released-buffer-crcs-are-frames-shown", bad == 0,
	      "%d of %d entries are the CRC of none of the frames, first at vblank %lu: %08lx",
	      bad, r.n, first >= 0 ? r.e[first].frame : 0, first >= 0 ? r.e[first].crc : 0);
	for (i = 0; i < 3; i++)
		kms_fb_destroy(dev->fd, &fb[i]);
}

/* Entries queued when the source goes off must not reach the next session. */
static void test_no_stale_entries(struct kms_dev *dev, const struct kms_pipe *pipe,
				  const struct kms_fb fb[2])
{
	struct kms_event ev;
	struct kms_crc_entry e;
	uint64_t at_open;
	int data;

	begin("no-stale-entries");
	data = kms_crc_open(crtc_dir, 0);
	/* A new frame: its CRC takes a composition, its vblanks queue. */
	flip_to(dev, pipe, &fb[0], &ev);
	sleep_ms(100);
	close(data);
	at_open = vblank_count(dev, pipe);
	data = kms_crc_open(crtc_dir, 0);
	require(kms_crc_next(data, false, &e), "a CRC entry");
	close(data);
	check("no-stale-entries", e.frame >= at_open,
	      "the first entry of a new session is for vblank %lu, opened at %llu", e.frame,
	      (unsigned long long)at_open);
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
	test_no_stale_entries(&dev, &pipe, fb);
	test_released_buffer(&dev, &pipe);

	kms_disable(&dev, &pipe);
	kms_fb_destroy(dev.fd, &fb[0]);
	kms_fb_destroy(dev.fd, &fb[1]);
	kms_close(&dev);
	return finish();
}
