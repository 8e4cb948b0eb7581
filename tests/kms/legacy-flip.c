// SPDX-License-Identifier: MIT
/*
 * legacy-flip: the pre-atomic page-flip path. After a legacy drmModeSetCrtc,
 * every drmModePageFlip with DRM_MODE_PAGE_FLIP_EVENT delivers one flip event
 * for the right CRTC with the caller's user data, with a strictly increasing
 * sequence and non-decreasing timestamps; and a second flip while one is
 * still pending is refused with EBUSY.
 *
 * usage: legacy-flip [-n FLIPS] DRIVER     FLIPS defaults to 300
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

#define FLIP_SECONDS	30

static int page_flip(int fd, const struct kms_pipe *pipe, const struct kms_fb *fb,
		     uint64_t cookie)
{
	return drmModePageFlip(fd, pipe->crtc_id, fb->fb_id, DRM_MODE_PAGE_FLIP_EVENT,
			       (void *)(uintptr_t)cookie) ? -errno : 0;
}

int main(int argc, char **argv)
{
	int flips = 300, done = 0, events = 0, bad_meta = 0, bad_seq = 0, bad_time = 0;
	int64_t prev_us = 0, start, t_end;
	char first_meta[128] = "-", first_seq[96] = "-", first_time[96] = "-";
	uint64_t prev_seq = 0;
	uint32_t connector;
	struct kms_fb fb[2];
	struct kms_pipe pipe;
	struct kms_event ev;
	struct kms_dev dev;
	int i, opt, ret, k, tries;
	bool setup_failed;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n') {
			fprintf(stderr, "usage: %s [-n FLIPS] DRIVER\n", argv[0]);
			return 2;
		}
		flips = atoi(optarg);
	}
	watchdog(40);
	begin("setup");
	/* No atomic cap: this client only speaks the legacy ioctls. */
	require(kms_open(&dev, kms_driver_arg(argc, argv), 0) == 0, "open card");
	require(kms_pipes(&dev, &pipe, 1) == 1, "a connected pipe");
	for (k = 0; k < 2; k++)
		require(kms_fb_create(dev.fd, pipe.mode.hdisplay, pipe.mode.vdisplay,
				      DRM_FORMAT_XRGB8888, (unsigned int)k, &fb[k]) == 0,
			"dumb framebuffers");

	begin("legacy-setcrtc");
	connector = pipe.connector_id;
	ret = drmModeSetCrtc(dev.fd, pipe.crtc_id, fb[0].fb_id, 0, 0, &connector, 1, &pipe.mode)
		? -errno : 0;
	if (!check("legacy-setcrtc", ret == 0, "expected success, got %s", errno_name(-ret)))
		return finish();

	begin("legacy-flips");
	start = now_ns();
	t_end = start + (int64_t)FLIP_SECONDS * 1000000000;
	for (i = 0; i < flips && now_ns() < t_end; i++) {
		ret = page_flip(dev.fd, &pipe, &fb[(i + 1) % 2], (uint64_t)i + 1);
		if (ret) {
			comment("flip %d: drmModePageFlip failed: %s", i, errno_name(-ret));
			break;
		}
		done++;
		ret = kms_next_event(&dev, 1000, &ev);
		if (ret != 1) {
			comment("flip %d: no flip event within 1 s (%s)", i,
				ret == 0 ? "timeout" : errno_name(errno));
			break;
		}
		events++;
		if ((ev.type != DRM_EVENT_FLIP_COMPLETE || ev.user_data != (uint64_t)i + 1 ||
		     (ev.crtc_id && ev.crtc_id != pipe.crtc_id)) && !bad_meta++)
			snprintf(first_meta, sizeof(first_meta),
				 "flip %d: type %u user data %llu crtc %u", i, ev.type,
				 (unsigned long long)ev.user_data, ev.crtc_id);
		if (i > 0 && ev.sequence <= prev_seq && !bad_seq++)
			snprintf(first_seq, sizeof(first_seq), "flip %d: %llu after %llu", i,
				 (unsigned long long)ev.sequence, (unsigned long long)prev_seq);
		if (ev.time_us < prev_us && !bad_time++)
			snprintf(first_time, sizeof(first_time), "flip %d: %lld us after %lld us",
				 i, (long long)ev.time_us, (long long)prev_us);
		prev_seq = ev.sequence;
		prev_us = ev.time_us;
	}
	comment("%s: %d legacy flips in %.1f s at %s", dev.driver, done, (now_ns() - start) / 1e9,
		pipe.mode.name);
	check("legacy-flip-every-flip-succeeds", done == flips,
	      "expected %d flips within %d s, got %d", flips, FLIP_SECONDS, done);
	check("legacy-flip-every-flip-has-event", events == done && done > 0,
	      "expected %d events, got %d", done, events);
	check("legacy-flip-event-is-this-flip", !bad_meta && events > 0,
	      "expected a flip event for CRTC %u with the flip's user data, got %d bad (first %s)",
	      pipe.crtc_id, bad_meta, first_meta);
	check("legacy-flip-sequence-increases", !bad_seq && events > 0,
	      "expected strictly increasing sequences, got %d bad (first %s)", bad_seq, first_seq);
	check("legacy-flip-timestamps-non-decreasing", !bad_time && events > 0,
	      "expected non-decreasing timestamps, got %d bad (first %s)", bad_time, first_time);

	/*
	 * Right after an event the next vblank is a whole frame away, so a
	 * flip made then stays pending while a second one is tried. On a slow
	 * (debug, emulated) guest the two ioctls can still straddle a vblank:
	 * then both flips succeed legitimately, and the try is repeated.
	 */
	begin("legacy-flip-while-pending-ebusy");
	setup_failed = false;
	for (tries = 1; tries <= 5; tries++) {
		kms_drain_events(&dev, 50);
		ret = page_flip(dev.fd, &pipe, &fb[0], 1000);
		if (ret || kms_next_event(&dev, 1000, &ev) != 1) {
			setup_failed = true;
			break;
		}
		ret = page_flip(dev.fd, &pipe, &fb[1], 1001);
		if (!ret)
			ret = page_flip(dev.fd, &pipe, &fb[0], 1002);
		if (ret)
			break;
	}
	if (setup_failed) {
		not_ok("legacy-flip-while-pending-ebusy", "setup failed: first flip %s",
		       ret ? errno_name(-ret) : "sent no event");
	} else {
		comment("second flip refused on try %d of 5", tries > 5 ? 5 : tries);
		check("legacy-flip-while-pending-ebusy", ret == -EBUSY,
		      "expected the second flip to fail with EBUSY, got %s", errno_name(-ret));
	}
	ret = kms_drain_events(&dev, 100);
	check("legacy-flip-refused-flip-sends-no-event", ret == 1,
	      "expected only the pending flip's event, got %d events", ret);

	drmModeSetCrtc(dev.fd, pipe.crtc_id, 0, 0, 0, NULL, 0, NULL);
	kms_fb_destroy(dev.fd, &fb[0]);
	kms_fb_destroy(dev.fd, &fb[1]);
	kms_close(&dev);
	return finish();
}
