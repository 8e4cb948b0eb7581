// SPDX-License-Identifier: MIT
/*
 * vblank: the vblank counter and its timestamps. DRM_IOCTL_WAIT_VBLANK
 * relative 1 returns a larger sequence and a recent timestamp;
 * drmCrtcGetSequence reports the counter and drmCrtcQueueSequence delivers a
 * DRM_EVENT_CRTC_SEQUENCE event for the queued sequence; and vblank
 * timestamps are one mode period apart: the mean interval (per vblank, so a
 * missed wait does not matter) is within 1 % of
 * 1e9 * htotal * vtotal / (clock * 1000) ns, and so is every single interval.
 * With -r the same period check runs on user modes at 144 Hz and 30 Hz.
 *
 * usage: vblank [-r] DRIVER
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

/* Measure each period over this long (and over at least MIN_FRAMES frames). */
#define MEASURE_NS	1200000000LL
#define MIN_FRAMES	30

static int wait_vblank(int fd, const struct kms_pipe *pipe, unsigned int rel,
		       uint64_t *seq, int64_t *us)
{
	drmVBlank vbl;

	memset(&vbl, 0, sizeof(vbl));
	vbl.request.type = DRM_VBLANK_RELATIVE | kms_vblank_crtc_bits(pipe->crtc_index);
	vbl.request.sequence = rel;
	if (drmWaitVBlank(fd, &vbl))
		return -errno;
	*seq = vbl.reply.sequence;
	*us = (int64_t)vbl.reply.tval_sec * 1000000 + vbl.reply.tval_usec;
	return 0;
}

static void test_wait_vblank(struct kms_dev *dev, const struct kms_pipe *pipe)
{
	uint64_t seq0 = 0, seq1 = 0;
	int64_t us0 = 0, us1 = 0, now_us;
	int ret;

	begin("wait-vblank-relative-1");
	ret = wait_vblank(dev->fd, pipe, 0, &seq0, &us0);
	if (!ret)
		ret = wait_vblank(dev->fd, pipe, 1, &seq1, &us1);
	now_us = now_ns() / 1000;
	if (!check("wait-vblank-relative-1", ret == 0, "expected success, got %s",
		   errno_name(-ret)))
		return;
	check("wait-vblank-sequence-advances", (uint32_t)(seq1 - seq0) >= 1,
	      "expected a sequence > %llu, got %llu", (unsigned long long)seq0,
	      (unsigned long long)seq1);
	check("wait-vblank-has-timestamp", us1 > us0 && us1 <= now_us && us1 > now_us - 1000000,
	      "expected a timestamp after %lld us within 1 s before %lld us, got %lld us",
	      (long long)us0, (long long)now_us, (long long)us1);
}

static void test_crtc_sequence(struct kms_dev *dev, const struct kms_pipe *pipe)
{
	uint64_t seq = 0, queued = 0, cookie = 0x5e9c0de, uns = 0;
	int64_t ns, now;
	struct kms_event ev;
	int ret;

	begin("crtc-get-sequence");
	ret = drmCrtcGetSequence(dev->fd, pipe->crtc_id, &seq, &uns) ? -errno : 0;
	ns = (int64_t)uns;
	now = now_ns();
	if (!check("crtc-get-sequence", ret == 0 && ns > 0 && ns <= now,
		   "expected success with a past timestamp, got %s, %lld ns (now %lld)",
		   errno_name(-ret), (long long)ns, (long long)now))
		return;

	begin("crtc-queue-sequence");
	ret = drmCrtcQueueSequence(dev->fd, pipe->crtc_id, DRM_CRTC_SEQUENCE_RELATIVE, 1,
				   &queued, cookie) ? -errno : 0;
	if (!check("crtc-queue-sequence", ret == 0 && queued > seq,
		   "expected success queueing a sequence > %llu, got %s, %llu",
		   (unsigned long long)seq, errno_name(-ret), (unsigned long long)queued))
		return;
	ret = kms_next_event(dev, 1000, &ev);
	if (!check("crtc-sequence-event-arrives", ret == 1 && ev.type == DRM_EVENT_CRTC_SEQUENCE,
		   "expected a DRM_EVENT_CRTC_SEQUENCE within 1 s, got %s type %u",
		   ret == 1 ? "event" : ret == 0 ? "timeout" : errno_name(errno),
		   ret == 1 ? ev.type : 0))
		return;
	check("crtc-sequence-event-matches", ev.user_data == cookie && ev.sequence == queued &&
					       ev.time_ns > ns,
	      "expected user data %#llx sequence %llu after %lld ns, got %#llx %llu %lld ns",
	      (unsigned long long)cookie, (unsigned long long)queued, (long long)ns,
	      (unsigned long long)ev.user_data, (unsigned long long)ev.sequence,
	      (long long)ev.time_ns);
}

/* Vblank timestamps of the current mode are @mode's period apart. */
static void test_period(struct kms_dev *dev, const struct kms_pipe *pipe,
			const drmModeModeInfo *mode, const char *tag)
{
	double period = kms_mode_period_ns(mode), mean, err, worst = 0, iv;
	int64_t us = 0, first_us = 0, prev_us, start = now_ns();
	uint64_t seq = 0, first_seq = 0, prev_seq;
	int frames = 0, waits = 0, skipped = 0, ret;
	char name[64], worst_at[64] = "-";

	snprintf(name, sizeof(name), "vblank-period-%s", tag);
	begin(name);
	ret = wait_vblank(dev->fd, pipe, 1, &first_seq, &first_us);
	prev_seq = first_seq;
	prev_us = first_us;
	while (!ret && (now_ns() - start < MEASURE_NS || frames < MIN_FRAMES)) {
		ret = wait_vblank(dev->fd, pipe, 1, &seq, &us);
		if (ret || seq <= prev_seq)
			break;
		waits++;
		skipped += (int)(seq - prev_seq - 1);
		iv = (double)(us - prev_us) * 1000.0 / (double)(seq - prev_seq);
		if (fabs(iv - period) > worst) {
			worst = fabs(iv - period);
			snprintf(worst_at, sizeof(worst_at), "%.0f ns at sequence %llu", iv,
				 (unsigned long long)seq);
		}
		frames = (int)(seq - first_seq);
		prev_seq = seq;
		prev_us = us;
	}
	if (!check(name, ret == 0 && frames >= MIN_FRAMES,
		   "expected %d+ vblanks, got %d (%s)", MIN_FRAMES, frames, errno_name(-ret)))
		return;
	mean = (double)(prev_us - first_us) * 1000.0 / frames;
	err = mean - period;
	comment("%s: %s clock %u: mean vblank interval %.0f ns, expected %.0f ns, error %+.0f ns "
		"(%.4f %%) over %d frames, %d waits, %d vblanks skipped, worst interval %s",
		tag, mode->name, mode->clock, mean, period, err, 100.0 * err / period, frames,
		waits, skipped, worst_at);
	snprintf(name, sizeof(name), "vblank-period-%s-mean-within-1pct", tag);
	check(name, fabs(err) <= period / 100, "expected %.0f ns +- 1 %%, got %.0f ns", period,
	      mean);
	snprintf(name, sizeof(name), "vblank-period-%s-each-within-1pct", tag);
	check(name, worst <= period / 100, "expected every interval %.0f ns +- 1 %%, got %s",
	      period, worst_at);
}

static void test_user_mode(struct kms_dev *dev, struct kms_pipe *pipe, const struct kms_fb *fb,
			   unsigned int hz)
{
	drmModeModeInfo mode = kms_mode_at_refresh(&pipe->mode, hz);
	char name[64], tag[16];
	int ret;

	snprintf(tag, sizeof(tag), "%uhz", hz);
	snprintf(name, sizeof(name), "user-mode-%s-modeset", tag);
	begin(name);
	ret = kms_modeset(dev, pipe, &mode, fb);
	if (!check(name, ret == 0, "expected the modeset to %s to succeed, got %s", mode.name,
		   errno_name(-ret)))
		return;
	test_period(dev, pipe, &mode, tag);
}

int main(int argc, char **argv)
{
	bool user_modes = false;
	struct kms_pipe pipe;
	struct kms_dev dev;
	struct kms_fb fb;
	int opt;

	while ((opt = getopt(argc, argv, "r")) != -1) {
		if (opt != 'r') {
			fprintf(stderr, "usage: %s [-r] DRIVER\n", argv[0]);
			return 2;
		}
		user_modes = true;
	}
	watchdog(40);
	begin("setup");
	require(kms_open(&dev, kms_driver_arg(argc, argv), KMS_CAP_ATOMIC) == 0, "open card");
	require(kms_pipes(&dev, &pipe, 1) == 1, "a connected pipe");
	require(kms_fb_create(dev.fd, pipe.mode.hdisplay, pipe.mode.vdisplay, DRM_FORMAT_XRGB8888,
			      0, &fb) == 0, "dumb framebuffer");
	require(kms_modeset(&dev, &pipe, NULL, &fb) == 0, "modeset");

	test_wait_vblank(&dev, &pipe);
	test_crtc_sequence(&dev, &pipe);
	test_period(&dev, &pipe, &pipe.mode, "preferred");
	if (user_modes) {
		test_user_mode(&dev, &pipe, &fb, 144);
		test_user_mode(&dev, &pipe, &fb, 30);
	}

	kms_drain_events(&dev, 20);
	kms_disable(&dev, &pipe);
	kms_fb_destroy(dev.fd, &fb);
	kms_close(&dev);
	return finish();
}
