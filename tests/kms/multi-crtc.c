// SPDX-License-Identifier: MIT
/*
 * multi-crtc: several CRTCs flip independently, each on its own fence
 * timeline. With two connected pipes (flipkms outputs=2) both are modeset,
 * then each frame both flip (one nonblocking commit each) with an out-fence
 * and a flip event. For each CRTC every flip's event arrives with that CRTC's
 * id, its fence is signalled by then, stamped with the event's timestamp,
 * fences signal in commit order and sequences increase; every fence of one
 * CRTC names the same timeline (SYNC_IOC_FILE_INFO obj_name), and the two
 * CRTCs' timelines have different names. Skipped with fewer than two pipes.
 *
 * usage: multi-crtc [-n FRAMES] DRIVER     FRAMES defaults to 120
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

#define PIPES	2

struct tally {
	const char *name, *want;
	int bad;
	char first[200];
};

static void __attribute__((format(printf, 4, 5)))
tally_bad(struct tally *t, int frame, uint32_t crtc, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->bad++)
		return;
	n = snprintf(t->first, sizeof(t->first), "frame %d CRTC %u: ", frame, crtc);
	va_start(ap, fmt);
	vsnprintf(t->first + n, sizeof(t->first) - (size_t)n, fmt, ap);
	va_end(ap);
}

struct state {
	struct kms_pipe pipe;
	struct kms_fb fb[2];
	int32_t fence;
	bool got_event;
	struct kms_event ev;
	int64_t prev_ts;
	uint64_t prev_seq;
	char timeline[32];
};

int main(int argc, char **argv)
{
	struct tally commit = { .name = "multi-crtc-flip-commits", .want = "a successful commit" },
		     event = { .name = "multi-crtc-flip-event-arrives", .want = "an event for its CRTC within 1 s" },
		     fence = { .name = "multi-crtc-out-fence-signalled-by-event", .want = "a sync_file signalled by its event" },
		     stamp = { .name = "multi-crtc-out-fence-timestamp-is-event-timestamp", .want = "|fence_ns/1000 - event_us| <= 1" },
		     order = { .name = "multi-crtc-out-fences-signal-in-order-per-crtc", .want = "non-decreasing timestamps" },
		     seq = { .name = "multi-crtc-sequence-increases-per-crtc", .want = "increasing sequences" },
		     same = { .name = "multi-crtc-timeline-stable-per-crtc", .want = "the CRTC's first fence's timeline name" };
	struct tally *all[] = { &commit, &event, &fence, &stamp, &order, &seq, &same };
	struct kms_pipe pipes[PIPES];
	struct state st[PIPES];
	struct kms_fence_info info;
	int frames = 120, done = 0, f, p, k, n, ret, opt, pending;
	struct kms_event ev;
	struct kms_dev dev;
	int64_t start;
	unsigned int t;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n') {
			fprintf(stderr, "usage: %s [-n FRAMES] DRIVER\n", argv[0]);
			return 2;
		}
		frames = atoi(optarg);
	}
	watchdog(40);
	begin("setup");
	require(kms_open(&dev, kms_driver_arg(argc, argv), KMS_CAP_ATOMIC) == 0, "open card");
	n = kms_pipes(&dev, pipes, PIPES);
	/* The manifest loads the driver with two outputs: fewer is a failure. */
	if (n < PIPES)
		comment("%s has %d CRTC%s with a connected connector", dev.driver, n,
			n == 1 ? "" : "s");
	require(n >= PIPES, "two CRTCs with a connected connector");
	memset(st, 0, sizeof(st));
	for (p = 0; p < PIPES; p++) {
		st[p].pipe = pipes[p];
		for (k = 0; k < 2; k++)
			require(kms_fb_create(dev.fd, pipes[p].mode.hdisplay, pipes[p].mode.vdisplay,
					      DRM_FORMAT_XRGB8888, (unsigned int)(k + 2 * p),
					      &st[p].fb[k]) == 0, "dumb framebuffers");
	}
	begin("multi-crtc-modeset");
	for (p = 0, ret = 0; p < PIPES && !ret; p++)
		ret = kms_modeset(&dev, &st[p].pipe, NULL, &st[p].fb[0]);
	if (!check("multi-crtc-modeset", ret == 0, "expected both modesets to succeed, got %s",
		   errno_name(-ret)))
		return finish();
	comment("%s: CRTC %u (%s) and CRTC %u (%s), %d frames", dev.driver, st[0].pipe.crtc_id,
		st[0].pipe.mode.name, st[1].pipe.crtc_id, st[1].pipe.mode.name, frames);

	begin("multi-crtc-flipping");
	start = now_ns();
	for (f = 0; f < frames; f++) {
		pending = 0;
		for (p = 0; p < PIPES; p++) {
			st[p].fence = -1;
			st[p].got_event = false;
			ret = kms_flip(&dev, &st[p].pipe, &st[p].fb[(f + 1) % 2], &st[p].fence, -1,
				       (uint64_t)(f * PIPES + p));
			if (ret)
				tally_bad(&commit, f, st[p].pipe.crtc_id, "%s", errno_name(-ret));
			else
				pending++;
		}
		while (pending > 0) {
			if (kms_next_event(&dev, 1000, &ev) != 1)
				break;
			for (p = 0; p < PIPES; p++)
				if (ev.user_data == (uint64_t)(f * PIPES + p) && !st[p].got_event)
					break;
			if (p == PIPES || ev.type != DRM_EVENT_FLIP_COMPLETE ||
			    (ev.crtc_id && ev.crtc_id != st[p].pipe.crtc_id)) {
				tally_bad(&event, f, ev.crtc_id, "unexpected event type %u user data %llu",
					  ev.type, (unsigned long long)ev.user_data);
				continue;
			}
			st[p].got_event = true;
			st[p].ev = ev;
			pending--;
			/* Checked at once: "signalled by the time its event arrives". */
			if (st[p].fence < 0 || kms_fence_polled(st[p].fence) != 1)
				tally_bad(&fence, f, st[p].pipe.crtc_id, "fence %d not signalled at its event",
					  st[p].fence);
		}
		for (p = 0; p < PIPES; p++) {
			struct state *s = &st[p];
			uint32_t crtc = s->pipe.crtc_id;

			if (!s->got_event) {
				tally_bad(&event, f, crtc, "no event");
				if (s->fence >= 0)
					close(s->fence);
				continue;
			}
			if (s->fence < 0)
				continue;
			if (sync_wait(s->fence, 1000) || kms_fence_info(s->fence, &info) ||
			    info.status != 1) {
				tally_bad(&fence, f, crtc, "status %d (%s)", info.status,
					  errno_name(errno));
				close(s->fence);
				continue;
			}
			if (llabs(info.timestamp_ns / 1000 - s->ev.time_us) > 1)
				tally_bad(&stamp, f, crtc, "fence %lld ns, event %lld us",
					  (long long)info.timestamp_ns, (long long)s->ev.time_us);
			if (info.timestamp_ns < s->prev_ts)
				tally_bad(&order, f, crtc, "%lld ns after %lld ns",
					  (long long)info.timestamp_ns, (long long)s->prev_ts);
			if (f > 0 && s->ev.sequence <= s->prev_seq)
				tally_bad(&seq, f, crtc, "%llu after %llu",
					  (unsigned long long)s->ev.sequence,
					  (unsigned long long)s->prev_seq);
			if (!s->timeline[0])
				snprintf(s->timeline, sizeof(s->timeline), "%s", info.obj_name);
			else if (strcmp(s->timeline, info.obj_name))
				tally_bad(&same, f, crtc, "\"%s\" after \"%s\"", info.obj_name,
					  s->timeline);
			s->prev_ts = info.timestamp_ns;
			s->prev_seq = s->ev.sequence;
			close(s->fence);
		}
		if (event.bad || commit.bad)
			break;
		done++;
	}
	comment("%d frames on %d CRTCs in %.1f s; timelines \"%s\" and \"%s\"", done, PIPES,
		(now_ns() - start) / 1e9, st[0].timeline, st[1].timeline);
	check("multi-crtc-all-frames-flipped", done == frames, "expected %d frames, got %d",
	      frames, done);
	for (t = 0; t < sizeof(all) / sizeof(all[0]); t++)
		check(all[t]->name, !all[t]->bad && done > 0,
		      "expected %s on every flip, got %d failing (first %s)", all[t]->want,
		      all[t]->bad, all[t]->bad ? all[t]->first : "-");
	check("multi-crtc-timelines-differ", st[0].timeline[0] && st[1].timeline[0] &&
					       strcmp(st[0].timeline, st[1].timeline),
	      "expected two different non-empty timeline names, got \"%s\" and \"%s\"",
	      st[0].timeline, st[1].timeline);

	kms_drain_events(&dev, 50);
	for (p = 0; p < PIPES; p++) {
		kms_disable(&dev, &st[p].pipe);
		kms_fb_destroy(dev.fd, &st[p].fb[0]);
		kms_fb_destroy(dev.fd, &st[p].fb[1]);
	}
	kms_close(&dev);
	return finish();
}
