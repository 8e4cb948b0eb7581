// SPDX-License-Identifier: MIT
/*
 * in-fence: a flip waits for its IN_FENCE_FD. With a plane's IN_FENCE_FD set
 * to an unsignalled sw_sync fence (whose fd we close right after the commit:
 * the kernel keeps its own reference), a nonblocking flip is accepted but
 * does not complete: no flip event for several vblank periods and its
 * out-fence stays unsignalled. Once the sw_sync timeline is advanced the
 * event arrives, and both its timestamp and the out-fence's are later than
 * the advance. Checked on the primary plane and, if the CRTC has one, on an
 * overlay plane. Since 6.4 the waiting in-fence carries a deadline, the
 * start of the next vblank (before 6.4 sw_sync has none to report). Last,
 * a flip whose in-fence signals with an error (its timeline closed) still
 * completes.
 *
 * usage: in-fence DRIVER
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

#define OVERLAY_SIZE	256

struct target {
	const char *tag;
	uint32_t plane_id;
	const struct kms_plane_props *props;
	struct kms_fb *fb[2];
};

static int waiting_ms;

static void test_in_fence(struct kms_dev *dev, const struct kms_pipe *pipe,
			  const struct target *t)
{
	int tl, fence, ret, seen;
	int32_t out = -1;
	int64_t t_commit, t_inc;
	struct kms_fence_info info;
	struct kms_event ev;
	char name[96];

	snprintf(name, sizeof(name), "%s-in-fence-commit-accepted", t->tag);
	begin(name);
	tl = sw_sync_timeline_create();
	require(tl >= 0, "sw_sync timeline");
	fence = sw_sync_fence_create(tl, "in-fence", 1);
	require(fence >= 0, "sw_sync fence");
	kms_drain_events(dev, 20);
	t_commit = now_ns();
	ret = kms_flip_plane(dev, pipe, t->plane_id, t->props, t->fb[1], &out, fence, 1);
	close(fence);
	if (!check(name, ret == 0, "expected the commit to succeed, got %s", errno_name(-ret))) {
		close(tl);
		return;
	}

	snprintf(name, sizeof(name), "%s-flip-waits-for-in-fence", t->tag);
	begin(name);
	ret = kms_next_event(dev, waiting_ms, &ev);
	check(name, ret == 0, "expected no flip event for %d ms, got %s after %.1f ms", waiting_ms,
	      ret == 1 ? "one" : errno_name(errno), (now_ns() - t_commit) / 1e6);
	snprintf(name, sizeof(name), "%s-out-fence-waits-for-in-fence", t->tag);
	seen = out >= 0 ? kms_fence_polled(out) : -1;
	check(name, seen == 0, "expected an unsignalled out-fence, got %s",
	      seen == 1 ? "signalled" : out < 0 ? "no fence" : "poll error");

	snprintf(name, sizeof(name), "%s-flip-completes-after-in-fence-signals", t->tag);
	begin(name);
	t_inc = now_ns();
	require(sw_sync_timeline_inc(tl, 1) == 0, "sw_sync_timeline_inc");
	if (ret == 0)
		ret = kms_next_event(dev, 1000, &ev);
	if (check(name, ret == 1 && ev.type == DRM_EVENT_FLIP_COMPLETE,
		  "expected a flip event within 1 s of the signal, got %s",
		  ret == 1 ? "another event" : ret == 0 ? "none" : errno_name(errno))) {
		snprintf(name, sizeof(name), "%s-flip-event-later-than-in-fence-signal", t->tag);
		/* The event is in µs, truncated: its true time is below time_us + 1. */
		check(name, (ev.time_us + 1) * 1000 > t_inc,
		      "expected an event timestamp after %lld ns, got %lld us (%+.3f ms)",
		      (long long)t_inc, (long long)ev.time_us, (ev.time_us * 1000 - t_inc) / 1e6);
	}
	snprintf(name, sizeof(name), "%s-out-fence-later-than-in-fence-signal", t->tag);
	if (out >= 0 && sync_wait(out, 1000) == 0 && kms_fence_info(out, &info) == 0)
		check(name, info.timestamp_ns > t_inc,
		      "expected an out-fence timestamp after %lld ns, got %lld ns (%+.3f ms)",
		      (long long)t_inc, (long long)info.timestamp_ns,
		      (info.timestamp_ns - t_inc) / 1e6);
	else
		not_ok(name, "expected the out-fence to signal within 1 s, got %s",
		       out < 0 ? "no fence" : errno_name(errno));
	if (out >= 0)
		close(out);
	close(tl);
}

/*
 * Since 6.4 the atomic helpers give each plane's in-fence a deadline: the
 * start of the next vblank (drm_crtc_next_vblank_start(): the last vblank's
 * time plus the frame's share before vblank_start). syncfw keeps it and
 * sw_sync reports it: from a vblank on, the commit's deadline is that
 * vblank's time plus period * vdisplay / vtotal, a whole number of
 * periods later. Before 6.4 there are none: SW_SYNC_GET_DEADLINE is ENOTTY.
 */
static void test_deadline(struct kms_dev *dev, const struct kms_pipe *pipe, struct kms_fb *fb)
{
	int64_t period = (int64_t)kms_mode_period_ns(&pipe->mode), offset, vbl_ns, r;
	uint64_t deadline = 0;
	struct kms_event ev;
	int tl, fence, ret;
	drmVBlank vbl;

	begin("in-fence-deadline");
	tl = sw_sync_timeline_create();
	require(tl >= 0, "sw_sync timeline");
	fence = sw_sync_fence_create(tl, "in-fence-deadline", 1);
	require(fence >= 0, "sw_sync fence");
	kms_drain_events(dev, 20);
	memset(&vbl, 0, sizeof(vbl));
	vbl.request.type = DRM_VBLANK_RELATIVE | kms_vblank_crtc_bits(pipe->crtc_index);
	vbl.request.sequence = 1;
	require(drmWaitVBlank(dev->fd, &vbl) == 0, "WAIT_VBLANK");
	vbl_ns = ((int64_t)vbl.reply.tval_sec * 1000000 + vbl.reply.tval_usec) * 1000;
	ret = kms_flip(dev, pipe, fb, NULL, fence, 3);
	require(ret == 0, "in-fence commit");
	/* The commit's worker sets the deadline before it waits. */
	sleep_ms((unsigned int)(3 * period / 1000000) + 1);
	errno = 0;
	ret = sw_sync_fence_deadline(tl, fence, &deadline);
	if (!kernel_at_least(6, 4)) {
		check_fails("in-fence-deadline-absent", ret, ENOTTY, errno);
	} else if (check("in-fence-gets-deadline", ret == 0,
			 "expected a deadline on the waiting in-fence, got %s", errno_name(errno))) {
		offset = period * pipe->mode.vdisplay / pipe->mode.vtotal;
		/* The vblank's time was given in whole µs, truncated. */
		r = ((int64_t)deadline - vbl_ns - offset) % period;
		if (r < 0)
			r += period;
		check("in-fence-deadline-is-vblank-start", (int64_t)deadline > vbl_ns &&
		      (r < 2000 || period - r < 2000),
		      "expected a vblank's time + %lld ns + whole periods after the vblank at %lld ns, got %lld ns (%lld ns off the grid)",
		      (long long)offset, (long long)vbl_ns, (long long)deadline,
		      (long long)(r < period / 2 ? r : r - period));
	}
	require(sw_sync_timeline_inc(tl, 1) == 0, "signal");
	require(kms_next_event(dev, 1000, &ev) == 1, "flip event");
	close(fence);
	close(tl);
}

/* Closing a timeline signals its points with -ENOENT; the flip goes on. */
static void test_in_fence_error(struct kms_dev *dev, const struct kms_pipe *pipe,
				const struct target *t)
{
	int tl, fence, ret;
	struct kms_event ev;
	char name[96];

	snprintf(name, sizeof(name), "%s-flip-completes-when-in-fence-errors", t->tag);
	begin(name);
	tl = sw_sync_timeline_create();
	require(tl >= 0, "sw_sync timeline");
	fence = sw_sync_fence_create(tl, "in-fence-error", 1);
	require(fence >= 0, "sw_sync fence");
	kms_drain_events(dev, 20);
	ret = kms_flip_plane(dev, pipe, t->plane_id, t->props, t->fb[0], NULL, fence, 2);
	close(fence);
	if (ret) {
		not_ok(name, "expected the commit to succeed, got %s", errno_name(-ret));
		close(tl);
		return;
	}
	sleep_ms(20);
	close(tl);
	ret = kms_next_event(dev, 1000, &ev);
	check(name, ret == 1 && ev.type == DRM_EVENT_FLIP_COMPLETE,
	      "expected a flip event within 1 s of the fence's error, got %s",
	      ret == 1 ? "another event" : ret == 0 ? "none" : errno_name(errno));
}

int main(int argc, char **argv)
{
	struct kms_fb fb[2], ofb[2];
	struct kms_pipe pipe;
	struct kms_event ev;
	struct kms_dev dev;
	struct target primary, overlay;
	uint32_t ofmt, ow, oh;
	drmModeRes *res;
	int k, ret;

	watchdog(40);
	begin("setup");
	require(kms_open(&dev, kms_driver_arg(argc, argv), KMS_CAP_ATOMIC) == 0, "open card");
	require(kms_pipes(&dev, &pipe, 1) == 1, "a connected pipe");
	require(pipe.primary_props.in_fence_fd != 0, "an IN_FENCE_FD property");
	for (k = 0; k < 2; k++)
		require(kms_fb_create(dev.fd, pipe.mode.hdisplay, pipe.mode.vdisplay,
				      DRM_FORMAT_XRGB8888, (unsigned int)k, &fb[k]) == 0,
			"dumb framebuffers");
	require(kms_modeset(&dev, &pipe, NULL, &fb[0]) == 0, "modeset");
	/* "No event for >= 3 vblank periods": wait 5, and at least 50 ms. */
	waiting_ms = (int)(5 * kms_mode_period_ns(&pipe.mode) / 1e6) + 1;
	if (waiting_ms < 50)
		waiting_ms = 50;

	primary = (struct target){ "primary", pipe.primary_id, &pipe.primary_props, { &fb[0], &fb[1] } };
	test_in_fence(&dev, &pipe, &primary);
	test_deadline(&dev, &pipe, &fb[0]);

	begin("overlay");
	if (!pipe.overlay_id) {
		skip("overlay-in-fence", "%s has no overlay plane for CRTC %u", dev.driver,
		     pipe.crtc_id);
	} else {
		/* A small overlay, but no smaller than mode_config allows a framebuffer. */
		res = drmModeGetResources(dev.fd);
		require(res != NULL, "drmModeGetResources");
		ow = res->min_width > OVERLAY_SIZE ? res->min_width : OVERLAY_SIZE;
		oh = res->min_height > OVERLAY_SIZE ? res->min_height : OVERLAY_SIZE;
		drmModeFreeResources(res);
		ofmt = kms_plane_has_format(dev.fd, pipe.overlay_id, DRM_FORMAT_XRGB8888)
			? DRM_FORMAT_XRGB8888 : DRM_FORMAT_ARGB8888;
		for (k = 0; k < 2; k++)
			require(kms_fb_create(dev.fd, ow, oh, ofmt,
					      (unsigned int)k + 5, &ofb[k]) == 0,
				"overlay framebuffers");
		overlay = (struct target){ "overlay", pipe.overlay_id, &pipe.overlay_props,
					   { &ofb[0], &ofb[1] } };
		/* Show the overlay first, so that the fenced commit is a pure flip. */
		kms_drain_events(&dev, 20);
		ret = kms_flip_plane(&dev, &pipe, pipe.overlay_id, &pipe.overlay_props, &ofb[0],
				     NULL, -1, 3);
		if (!ret)
			ret = kms_next_event(&dev, 1000, &ev) == 1 ? 0 : -ETIME;
		if (check("overlay-enable", ret == 0, "expected overlay plane %u to show, got %s",
			  pipe.overlay_id, errno_name(-ret)))
			test_in_fence(&dev, &pipe, &overlay);
	}

	test_in_fence_error(&dev, &pipe, &primary);

	kms_drain_events(&dev, 20);
	kms_disable(&dev, &pipe);
	kms_fb_destroy(dev.fd, &fb[0]);
	kms_fb_destroy(dev.fd, &fb[1]);
	if (pipe.overlay_id) {
		kms_fb_destroy(dev.fd, &ofb[0]);
		kms_fb_destroy(dev.fd, &ofb[1]);
	}
	kms_close(&dev);
	return finish();
}
