// SPDX-License-Identifier: MIT
/*
 * clocks: flipkms's vblank, event and fence timestamps held against the
 * guest's own CLOCK_MONOTONIC, read as each wait wakes. The other tests
 * check flipkms's arithmetic (event == fence, intervals of one period,
 * fence == event + delay); this one checks that the arithmetic describes
 * what really happened:
 *
 *   vblank-stamp	no WAIT_VBLANK stamp is later than the wake-up it
 *			ended, and the median wake-up comes less than half a
 *			period after its stamp (a stamp a frame stale fails)
 *   vblank-rate	the guest's clock per vblank, from the wake-ups of the
 *			first RATE_SAMPLES vblanks to those of the last
 *			RATE_SAMPLES (the median of those pairs' slopes, so
 *			that a few late wake-ups on a loaded host do not count),
 *			agrees with the mode's period within 1 % (a timer that
 *			runs at another rate than the stamps say fails)
 *   out-fence		a thread blocked in poll() on each flip's out-fence
 *			wakes after the fence's timestamp, which is after the
 *			submit; the median wake-up is within half a period
 *   delayed-fence	with signal_delay_us, the fence is still pending when
 *			the event has been read before the delay ran out, and
 *			its poll() wakes no earlier than event + delay
 *
 * The mode runs at 30 Hz: half a period (16.7 ms) is far above a lean TCG
 * guest's wake-up latency and far below a frame's error. Timing: the lean
 * kernel runs this, the debug one is an order of magnitude slower.
 *
 * usage: clocks flipkms
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kms.h"

#define HZ		30
#define FRAMES		40
#define DELAY_US	100000
#define DELAYED_FLIPS	10
#define RATE_SAMPLES	10	/* first and last vblanks paired for the rate */

static char crtc_dir[96];

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int64_t median(int64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_i64);
	return v[n / 2];
}

/* The median of @lag[0..@n) is below half of @period, or a failed check @name. */
static void check_median_lag(const char *name, int64_t *lag, int n, double period)
{
	int64_t m;

	if (!check(name, n > 0, "expected samples, got none"))
		return;
	m = median(lag, n);
	comment("%s: wake-up - stamp over %d samples: median %.3f ms, max %.3f ms", name, n,
		m / 1e6, lag[n - 1] / 1e6);
	check(name, m < period / 2, "expected the median wake-up within %.1f ms of its stamp, got %.3f ms",
	      period / 2e6, m / 1e6);
}

static void test_vblank(struct kms_dev *dev, const struct kms_pipe *pipe, double period)
{
	int64_t lag[FRAMES], woke[FRAMES], slope[RATE_SAMPLES * RATE_SAMPLES], stamp, worst = 0;
	unsigned int seq[FRAMES];
	int i, j, n = 0, future = 0, pairs = 0;
	int64_t rate;
	drmVBlank vbl;

	begin("vblank-stamp-not-after-wake");
	for (i = 0; i < FRAMES; i++) {
		memset(&vbl, 0, sizeof(vbl));
		vbl.request.type = DRM_VBLANK_RELATIVE | kms_vblank_crtc_bits(pipe->crtc_index);
		vbl.request.sequence = 1;
		if (drmWaitVBlank(dev->fd, &vbl))
			break;
		woke[n] = now_ns();
		seq[n] = vbl.reply.sequence;
		stamp = ((int64_t)vbl.reply.tval_sec * 1000000 + vbl.reply.tval_usec) * 1000;
		if (stamp > woke[n] && stamp - woke[n] > worst)
			worst = stamp - woke[n];
		future += stamp > woke[n];
		lag[n] = woke[n] - stamp;
		n++;
	}
	require(n == FRAMES, "WAIT_VBLANK");
	check("vblank-stamp-not-after-wake", future == 0,
	      "expected no stamp after its wake-up, got %d (worst %.3f ms ahead)", future,
	      worst / 1e6);
	check_median_lag("vblank-wake-within-half-period", lag, n, period);

	begin("vblank-rate-on-guest-clock");
	for (i = 0; i < RATE_SAMPLES; i++)
		for (j = FRAMES - RATE_SAMPLES; j < FRAMES; j++)
			if (seq[j] > seq[i])
				slope[pairs++] = (woke[j] - woke[i]) / (int64_t)(seq[j] - seq[i]);
	rate = pairs ? median(slope, pairs) : 0;
	comment("guest clock: median %lld ns per vblank over %d pairs of wake-ups %u to %u vblanks apart (%lld to %lld ns), mode period %.0f ns",
		(long long)rate, pairs, seq[FRAMES - RATE_SAMPLES] - seq[RATE_SAMPLES - 1],
		seq[FRAMES - 1] - seq[0], pairs ? (long long)slope[0] : 0,
		pairs ? (long long)slope[pairs - 1] : 0, period);
	check("vblank-rate-on-guest-clock", pairs > 0 && rate > period * 0.99 && rate < period * 1.01,
	      "expected %.0f ns +- 1 %% per vblank, got %lld ns (median of %d pairs)", period,
	      (long long)rate, pairs);
}

/* A flip with an out-fence and a watcher on it; the submit time, or a failed setup. */
static int64_t watched_flip(struct kms_dev *dev, const struct kms_pipe *pipe,
			    const struct kms_fb *fb, int i, struct kms_fence_watch *w, int *out)
{
	int64_t submitted = now_ns();
	int32_t fence = -1;

	require(kms_flip(dev, pipe, fb, &fence, -1, (uint64_t)i) == 0 && fence >= 0,
		"flip with an out-fence");
	require(kms_fence_watch_start(w, fence, 3000) == 0, "fence watcher thread");
	*out = fence;
	return submitted;
}

static void test_out_fence(struct kms_dev *dev, const struct kms_pipe *pipe,
			   const struct kms_fb fb[2], double period)
{
	int64_t lag[FRAMES], submitted;
	int i, n = 0, before_submit = 0, after_wake = 0, unsignalled = 0, fence;
	struct kms_fence_watch w;
	struct kms_fence_info info;
	struct kms_event ev;

	begin("out-fence-stamp-between-submit-and-wake");
	for (i = 0; i < FRAMES; i++) {
		submitted = watched_flip(dev, pipe, &fb[i & 1], i, &w, &fence);
		require(kms_next_event(dev, 3000, &ev) == 1, "flip event");
		if (kms_fence_watch_end(&w) != 1 || kms_fence_info(fence, &info) || info.status != 1) {
			unsignalled++;
		} else {
			before_submit += info.timestamp_ns < submitted;
			after_wake += info.timestamp_ns > w.woke_ns;
			lag[n++] = w.woke_ns - info.timestamp_ns;
		}
		close(fence);
	}
	check_int("out-fence-every-one-wakes-its-poller", 0, unsignalled);
	check("out-fence-stamp-between-submit-and-wake", !before_submit && !after_wake,
	      "expected submit <= stamp <= wake-up, got %d stamps before their submit and %d after their wake-up",
	      before_submit, after_wake);
	check_median_lag("out-fence-wake-within-half-period", lag, n, period);
}

static void test_delayed_fence(struct kms_dev *dev, const struct kms_pipe *pipe,
			       const struct kms_fb fb[2], double period)
{
	int64_t lag[DELAYED_FLIPS], due, read;
	int i, n = 0, observed = 0, early = 0, woke_early = 0, polled, fence;
	struct kms_fence_watch w;
	struct kms_fence_info info;
	struct kms_event ev;
	char value[16];

	begin("delayed-fence-pending-at-event");
	snprintf(value, sizeof(value), "%d", DELAY_US);
	require(kms_crtc_control(crtc_dir, "signal_delay_us", value) == 0, "write signal_delay_us");
	for (i = 0; i < DELAYED_FLIPS; i++) {
		watched_flip(dev, pipe, &fb[i & 1], i, &w, &fence);
		require(kms_next_event(dev, 3000, &ev) == 1, "flip event");
		polled = kms_fence_polled(fence);
		read = now_ns();
		/* The event's µs are truncated: @due is never after the true one. */
		due = ev.time_us * 1000 + DELAY_US * 1000LL;
		if (read < due) {
			observed++;
			early += polled != 0;
		}
		if (kms_fence_watch_end(&w) == 1 && !kms_fence_info(fence, &info)) {
			woke_early += w.woke_ns < due;
			lag[n++] = w.woke_ns - info.timestamp_ns;
		}
		close(fence);
	}
	kms_crtc_control(crtc_dir, "signal_delay_us", "0");
	comment("%d of %d events read before their fence was due", observed, DELAYED_FLIPS);
	check("delayed-fence-pending-at-event", observed > 0 && early == 0,
	      "expected the fence pending when its event is read, got %d of %d signalled early",
	      early, observed);
	check("delayed-fence-wakes-after-the-delay", n == DELAYED_FLIPS && woke_early == 0,
	      "expected %d wake-ups >= event + %d us, got %d of %d early", DELAYED_FLIPS, DELAY_US,
	      woke_early, n);
	check_median_lag("delayed-fence-wake-within-half-period", lag, n, period);
}

int main(int argc, char **argv)
{
	drmModeModeInfo mode;
	struct kms_pipe pipe;
	struct kms_fb fb[2];
	struct kms_dev dev;
	double period;

	watchdog(45);	/* before the manifest's 60 s */
	kms_flipkms_setup(kms_driver_arg(argc, argv), "usage: clocks flipkms", &dev, &pipe,
			  crtc_dir, sizeof(crtc_dir), fb);
	mode = kms_mode_at_refresh(&pipe.mode, HZ);
	period = kms_mode_period_ns(&mode);
	require(kms_modeset(&dev, &pipe, &mode, &fb[0]) == 0, "modeset at 30 Hz");

	test_vblank(&dev, &pipe, period);
	test_out_fence(&dev, &pipe, fb, period);
	test_delayed_fence(&dev, &pipe, fb, period);

	kms_teardown(&dev, &pipe, fb);
	return finish();
}
