// SPDX-License-Identifier: MIT
/*
 * faults: flipkms's debugfs controls and fault injection do what
 * Documentation/flipkms.rst says, each by the injected amount:
 *
 *   signal_delay_us	out-fences signal exactly that long after their event
 *   drop_vblanks	the next flip lands that many vblanks later
 *   stall_commit_ms	the next flip's event comes at least that late
 *   fence_error	the next out-fence signals with that error, also
 *			when a second one is set while signal_delay_us
 *			still holds the first one's signal
 *   lowering signal_delay_us
 *			a fence whose signal waits keeps its stamp; the
 *			next flip's fence, undelayed, waits for it
 *   connected		the connector disconnects and reconnects, with uevents
 *   refresh_hz		the preferred mode changes to that rate, and the
 *			vblank period follows it after a modeset
 *   frame.ppm, crc/	the composed frame shows what was drawn, and the
 *			CRC follows the content
 *
 * usage: faults flipkms
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

static char crtc_dir[96];

static int write_control(const char *file, const char *value)
{
	return kms_crtc_control(crtc_dir, file, value);
}

/* One flip with an out-fence; its event and fence fd, or a failed check. */
static bool flip_once(struct kms_dev *dev, const struct kms_pipe *pipe,
		      const struct kms_fb *fb, struct kms_event *ev, int *fence,
		      int64_t *submitted)
{
	int32_t out = -1;
	int ret;

	*submitted = now_ns();
	ret = kms_flip(dev, pipe, fb, &out, -1, 7);
	if (ret || out < 0)
		return false;
	ret = kms_next_event(dev, 6000, ev);
	*fence = out;
	return ret == 1 && ev->type == DRM_EVENT_FLIP_COMPLETE;
}

static void test_signal_delay(struct kms_dev *dev, const struct kms_pipe *pipe,
			      struct kms_fb fb[2])
{
	struct kms_fence_info info;
	int64_t t, delta, worst = 0;
	struct kms_event ev;
	int i, fence, bad = 0, n = 20;

	begin("signal-delay-shifts-fence-by-exactly-the-delay");
	require(write_control("signal_delay_us", "5000") == 0, "write signal_delay_us");
	for (i = 0; i < n; i++) {
		if (!flip_once(dev, pipe, &fb[i & 1], &ev, &fence, &t)) {
			bad++;
			continue;
		}
		if (sync_wait(fence, 2000) || kms_fence_info(fence, &info)) {
			bad++;
		} else {
			/* Event times are whole µs, truncated. */
			delta = info.timestamp_ns - ev.time_us * 1000 - 5000000;
			if (delta < 0 || delta >= 1000)
				bad++;
			if (llabs(delta) > llabs(worst))
				worst = delta;
		}
		close(fence);
	}
	write_control("signal_delay_us", "0");
	check("signal-delay-shifts-fence-by-exactly-the-delay", bad == 0,
	      "expected fence - event = 5000 us for %d flips, got %d off (worst %+lld ns)",
	      n, bad, (long long)worst);
	comment("signal delay 5000 us: fence - event - delay within [0, %lld] ns", (long long)worst);
}

static void test_drop_vblanks(struct kms_dev *dev, const struct kms_pipe *pipe,
			      struct kms_fb fb[2])
{
	struct kms_event a, b;
	int fence;
	int64_t t;
	bool ok1, ok2;

	begin("dropped-vblanks-delay-the-flip");
	ok1 = flip_once(dev, pipe, &fb[0], &a, &fence, &t);
	close(fence);
	require(write_control("drop_vblanks", "6") == 0, "write drop_vblanks");
	ok2 = flip_once(dev, pipe, &fb[1], &b, &fence, &t);
	close(fence);
	check("dropped-vblanks-delay-the-flip", ok1 && ok2 && b.sequence >= a.sequence + 7,
	      "expected the flip at least 7 vblanks after the previous one, got %lld",
	      (long long)(b.sequence - a.sequence));
	check("drop-vblanks-rejects-more-than-240", write_control("drop_vblanks", "241") == -EINVAL,
	      "expected EINVAL for 241");
}

static void test_stall(struct kms_dev *dev, const struct kms_pipe *pipe,
		       struct kms_fb fb[2])
{
	struct kms_event ev;
	int64_t t, took;
	int fence;
	bool ok;

	begin("stalled-commit-flips-late");
	require(write_control("stall_commit_ms", "300") == 0, "write stall_commit_ms");
	ok = flip_once(dev, pipe, &fb[0], &ev, &fence, &t);
	took = now_ns() - t;
	close(fence);
	check("stalled-commit-flips-late", ok && took >= 300000000,
	      "expected the event >= 300 ms after the commit, got %s after %.1f ms",
	      ok ? "it" : "no flip", took / 1e6);
	check("stall-rejects-more-than-5000-ms", write_control("stall_commit_ms", "5001") == -EINVAL,
	      "expected EINVAL for 5001");
}

static void test_fence_error(struct kms_dev *dev, const struct kms_pipe *pipe,
			     struct kms_fb fb[2])
{
	struct kms_fence_info info = { 0 };
	struct kms_event ev;
	int fence, next;
	int64_t t;
	bool ok;

	begin("fence-error-fails-the-next-fence");
	require(write_control("fence_error", "5") == 0, "write fence_error");
	ok = flip_once(dev, pipe, &fb[1], &ev, &fence, &t);
	ok = ok && sync_wait(fence, 2000) == -1 && errno == EIO;
	kms_fence_info(fence, &info);
	close(fence);
	check("fence-error-fails-the-next-fence", ok && info.status == -EIO,
	      "expected status -EIO, got %d", info.status);

	ok = flip_once(dev, pipe, &fb[0], &ev, &fence, &t) && sync_wait(fence, 2000) == 0;
	next = kms_fence_info(fence, &info) ? -1 : info.status;
	close(fence);
	check("fence-error-is-one-shot", ok && next == 1,
	      "expected the following fence to signal, got status %d", next);
}

/* Fences' status after their signal, or 0 if they do not signal in 3 s. */
static int fence_status(int fence, int64_t *stamp)
{
	struct kms_fence_info info = { 0 };

	sync_wait(fence, 3000);
	if (kms_fence_info(fence, &info))
		return 0;
	if (stamp)
		*stamp = info.timestamp_ns;
	return info.status;
}

static void test_fence_errors_in_flight(struct kms_dev *dev, const struct kms_pipe *pipe,
					struct kms_fb fb[2])
{
	struct kms_event ev;
	int f1 = -1, f2 = -1, s1, s2;
	bool ok;
	int64_t t;

	begin("fence-errors-while-signals-delayed");
	require(write_control("signal_delay_us", "300000") == 0, "write signal_delay_us");
	require(write_control("fence_error", "5") == 0, "write fence_error");
	ok = flip_once(dev, pipe, &fb[0], &ev, &f1, &t);
	/* The first fence's signal waits 300 ms: this error is set meanwhile. */
	require(write_control("fence_error", "7") == 0, "write fence_error");
	ok = flip_once(dev, pipe, &fb[1], &ev, &f2, &t) && ok;
	write_control("signal_delay_us", "0");
	s1 = fence_status(f1, NULL);
	s2 = fence_status(f2, NULL);
	close(f1);
	close(f2);
	check("fence-errors-while-signals-delayed-first", ok && s1 == -EIO,
	      "expected the first fence to fail with -EIO, got status %d", s1);
	check("fence-errors-while-signals-delayed-second", ok && s2 == -E2BIG,
	      "expected the second fence to fail with -E2BIG, got status %d", s2);
}

static void test_lower_delay(struct kms_dev *dev, const struct kms_pipe *pipe,
			     struct kms_fb fb[2])
{
	struct kms_event ev1, ev2;
	int f1 = -1, f2 = -1, s1, s2;
	int64_t t, stamp1 = 0, stamp2 = 0, delta;
	bool ok;

	begin("lowered-delay-keeps-waiting-stamp");
	require(write_control("signal_delay_us", "300000") == 0, "write signal_delay_us");
	ok = flip_once(dev, pipe, &fb[0], &ev1, &f1, &t);
	require(write_control("signal_delay_us", "0") == 0, "write signal_delay_us");
	ok = flip_once(dev, pipe, &fb[1], &ev2, &f2, &t) && ok;
	s1 = fence_status(f1, &stamp1);
	s2 = fence_status(f2, &stamp2);
	close(f1);
	close(f2);
	/* Event times are whole µs, truncated. */
	delta = stamp1 - ev1.time_us * 1000 - 300000000;
	check("lowered-delay-keeps-waiting-stamp", ok && s1 == 1 && delta >= 0 && delta < 1000,
	      "expected the first fence 300 ms after its event, got status %d, %+.3f ms off",
	      s1, delta / 1e6);
	check("lowered-delay-next-fence-in-order", ok && s2 == 1 && stamp2 >= stamp1,
	      "expected the next fence signalled no earlier than the first, got status %d, "
	      "%+.3f ms", s2, (stamp2 - stamp1) / 1e6);
}

/* Whether a drm HOTPLUG=1 uevent arrives within @ms. */
static bool hotplug_event(int sock, int ms)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	char buf[4096];
	int64_t end = now_ns() + ms * 1000000LL;
	ssize_t n, i;

	while (now_ns() < end && poll(&p, 1, ms) == 1) {
		n = recv(sock, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			return false;
		buf[n] = '\0';
		for (i = 0; i < n; i += strlen(buf + i) + 1)
			if (!strcmp(buf + i, "HOTPLUG=1"))
				return true;
	}
	return false;
}

static int connector_status(struct kms_dev *dev, uint32_t id)
{
	drmModeConnector *c = drmModeGetConnector(dev->fd, id);
	int status = c ? (int)c->connection : -1;

	drmModeFreeConnector(c);
	return status;
}

static void test_hotplug(struct kms_dev *dev, const struct kms_pipe *pipe)
{
	int sock = kms_uevent_open();

	begin("unplug-disconnects-with-uevent");
	require(sock >= 0, "uevent socket");
	require(write_control("connected", "0") == 0, "write connected");
	check("unplug-sends-hotplug-uevent", hotplug_event(sock, 2000), "expected HOTPLUG=1");
	check_int("unplug-disconnects", DRM_MODE_DISCONNECTED,
		  connector_status(dev, pipe->connector_id));
	require(write_control("connected", "1") == 0, "write connected");
	check("replug-sends-hotplug-uevent", hotplug_event(sock, 2000), "expected HOTPLUG=1");
	check_int("replug-connects", DRM_MODE_CONNECTED, connector_status(dev, pipe->connector_id));
	close(sock);
}

static bool preferred_mode(struct kms_dev *dev, uint32_t id, drmModeModeInfo *mode)
{
	drmModeConnector *c = drmModeGetConnector(dev->fd, id);
	bool found = false;
	int i;

	for (i = 0; c && i < c->count_modes && !found; i++) {
		if (c->modes[i].type & DRM_MODE_TYPE_PREFERRED) {
			*mode = c->modes[i];
			found = true;
		}
	}
	drmModeFreeConnector(c);
	return found;
}

static void test_refresh(struct kms_dev *dev, struct kms_pipe *pipe, struct kms_fb fb[2])
{
	struct kms_event a, b;
	drmModeModeInfo mode;
	double period, got;
	int fence;
	int64_t t;
	bool ok;

	begin("refresh-changes-preferred-mode");
	require(write_control("refresh_hz", "144") == 0, "write refresh_hz");
	ok = preferred_mode(dev, pipe->connector_id, &mode);
	check("refresh-changes-preferred-mode", ok && mode.vrefresh == 144,
	      "expected a preferred mode at 144 Hz, got %s at %u Hz", ok ? mode.name : "none",
	      ok ? mode.vrefresh : 0);
	check("refresh-rejects-300-hz", write_control("refresh_hz", "300") == -EINVAL,
	      "expected EINVAL");
	if (!ok)
		return;

	begin("vblank-period-follows-refresh");
	require(kms_modeset(dev, pipe, &mode, &fb[0]) == 0, "modeset at 144 Hz");
	ok = flip_once(dev, pipe, &fb[1], &a, &fence, &t);
	close(fence);
	ok = ok && flip_once(dev, pipe, &fb[0], &b, &fence, &t);
	close(fence);
	period = kms_mode_period_ns(&mode);
	got = ok && b.sequence > a.sequence ?
	      (b.time_us - a.time_us) * 1000.0 / (double)(b.sequence - a.sequence) : 0;
	check("vblank-period-follows-refresh", ok && got > period - 1000 && got < period + 1000,
	      "expected a %.0f ns period, got %.0f", period, got);

	write_control("refresh_hz", "60");
	require(kms_modeset(dev, pipe, NULL, &fb[0]) == 0, "modeset back to the preferred mode");
}

static void paint(struct kms_dev *dev, const struct kms_fb *fb, uint32_t xrgb)
{
	require(kms_fb_fill(dev->fd, fb, xrgb) == 0, "paint a framebuffer");
}

static long frame_pixel(int x, int y)
{
	return kms_frame_pixel(crtc_dir, x, y);
}

/* One entry of crc/data: each read() returns one "frame crc" line. */
static long crc_read(int data)
{
	unsigned long frame, crc;
	char line[64];
	ssize_t n;

	n = read(data, line, sizeof(line) - 1);
	if (n <= 0) {
		comment("crc/data read: %s", n ? errno_name(errno) : "end of file");
		return -1;
	}
	line[n] = '\0';
	return sscanf(line, "%lx %lx", &frame, &crc) == 2 ? (long)crc : -1;
}

/*
 * The first CRC other than @before, read within @ms. Not a count of entries:
 * on the debug kernel one software composition of a 1080p frame can span
 * dozens of vblanks, whose entries all repeat the last result.
 */
static long crc_after(int data, long before, int ms)
{
	int64_t until = now_ns() + (int64_t)ms * 1000000;
	long crc = -1;

	while (now_ns() < until) {
		crc = crc_read(data);
		if (crc != before)
			break;
	}
	return crc;
}

static void test_composer(struct kms_dev *dev, const struct kms_pipe *pipe, struct kms_fb fb[2])
{
	struct kms_event ev;
	char path[160];
	long red, blue, again;
	int fence, ctl, data;
	int64_t t;

	begin("frame-shows-the-primary-plane");
	paint(dev, &fb[0], 0x123456);
	paint(dev, &fb[1], 0xab0000);
	require(flip_once(dev, pipe, &fb[0], &ev, &fence, &t), "flip");
	close(fence);
	check_int("frame-shows-the-primary-plane", 0x123456, frame_pixel(100, 100));

	begin("crc-follows-content");
	snprintf(path, sizeof(path), "%s/crc/control", crtc_dir);
	ctl = open(path, O_WRONLY);
	require(ctl >= 0 && write(ctl, "auto", 4) == 4, "select CRC source auto");
	close(ctl);
	snprintf(path, sizeof(path), "%s/crc/data", crtc_dir);
	data = open(path, O_RDONLY);
	require(data >= 0, "open crc/data");
	red = crc_read(data);
	require(flip_once(dev, pipe, &fb[1], &ev, &fence, &t), "flip");
	close(fence);
	blue = crc_after(data, red, 5000);
	require(flip_once(dev, pipe, &fb[0], &ev, &fence, &t), "flip");
	close(fence);
	again = crc_after(data, blue, 5000);
	close(data);
	check("crc-changes-with-content", red >= 0 && blue >= 0 && red != blue,
	      "expected two CRCs, got %lx and %lx", red, blue);
	check("crc-is-stable-for-same-content", again == red,
	      "expected %lx again, got %lx", red, again);
	check_int("frame-follows-flip", 0x123456, frame_pixel(0, 0));
}

int main(int argc, char **argv)
{
	const char *driver = kms_driver_arg(argc, argv);
	struct kms_pipe pipe;
	struct kms_fb fb[2];
	struct kms_dev dev;

	watchdog(60);
	kms_flipkms_setup(driver, "these faults are flipkms's (usage: faults flipkms)",
			  &dev, &pipe, crtc_dir, sizeof(crtc_dir), fb);
	require(kms_modeset(&dev, &pipe, NULL, &fb[0]) == 0, "modeset");

	test_signal_delay(&dev, &pipe, fb);
	test_drop_vblanks(&dev, &pipe, fb);
	test_stall(&dev, &pipe, fb);
	test_fence_error(&dev, &pipe, fb);
	test_fence_errors_in_flight(&dev, &pipe, fb);
	test_lower_delay(&dev, &pipe, fb);
	test_hotplug(&dev, &pipe);
	test_refresh(&dev, &pipe, fb);
	test_composer(&dev, &pipe, fb);

	kms_disable(&dev, &pipe);
	kms_fb_destroy(dev.fd, &fb[0]);
	kms_fb_destroy(dev.fd, &fb[1]);
	kms_close(&dev);
	return finish();
}
