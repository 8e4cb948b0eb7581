// SPDX-License-Identifier: MIT
/*
 * flip-fences: atomic nonblocking page flips with OUT_FENCE_PTR and
 * DRM_MODE_PAGE_FLIP_EVENT. For every flip the out-fence is a real sync_file
 * with one point, it is signalled by the time the flip event is read, its
 * SYNC_IOC_FILE_INFO timestamp is the event's timestamp (to the event's
 * microsecond precision), fences signal in commit order (timestamps never go
 * back) and event sequence numbers strictly increase.
 *
 * usage: flip-fences [-n FLIPS] [-r HZ] DRIVER
 *   FLIPS defaults to 1000; HZ (a user mode at that refresh rate) lets a slow
 *   debug kernel make them in the time the test has.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

/*
 * The flipping stops here, whatever -n says, so the program stays < 165 s:
 * 1000 flips take 17 s on the lean kernel, 35 s on the debug one (TCG),
 * and a loaded host must not make a slow run read as a failed one.
 */
#define FLIP_SECONDS	150

/* A per-flip property: how many flips broke it, and what the first one saw. */
struct tally {
	const char *name, *want;
	int bad;
	char first[160];
};

static void __attribute__((format(printf, 3, 4)))
tally_bad(struct tally *t, int flip, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->bad++)
		return;
	n = snprintf(t->first, sizeof(t->first), "flip %d: ", flip);
	va_start(ap, fmt);
	vsnprintf(t->first + n, sizeof(t->first) - (size_t)n, fmt, ap);
	va_end(ap);
}

static void tally_report(const struct tally *t, int flips)
{
	check(t->name, !t->bad && flips > 0, "expected %s for all %d flips, got %d failing (first %s)",
	      t->want, flips, t->bad, t->bad ? t->first : "-");
}

int main(int argc, char **argv)
{
	struct tally committed = { .name = "flip-commit-succeeds", .want = "a successful commit" },
		     sync_file = { .name = "out-fence-is-sync-file", .want = "a sync_file with 1 point" },
		     event = { .name = "flip-event-arrives", .want = "a flip event within 1 s" },
		     by_event = { .name = "out-fence-signalled-by-event", .want = "the fence signalled when its event is read" },
		     signals = { .name = "out-fence-signals-ok", .want = "status 1 and a timestamp" },
		     stamp = { .name = "out-fence-timestamp-is-event-timestamp", .want = "|fence_ns/1000 - event_us| <= 1" },
		     order = { .name = "out-fences-signal-in-commit-order", .want = "timestamps non-decreasing" },
		     seq = { .name = "flip-event-sequence-increases", .want = "a sequence larger than the previous flip's" };
	struct tally *all[] = { &committed, &sync_file, &event, &by_event, &signals, &stamp, &order,
				&seq };
	int64_t prev_ts = 0, max_diff_ns = 0, start, t_end;
	uint64_t prev_seq = 0;
	int flips = 1000, hz = 0, done = 0, missed = 0, i, opt, ret;
	drmModeModeInfo mode;
	struct kms_fence_info info;
	struct kms_fb fb[2];
	struct kms_pipe pipe;
	struct kms_event ev;
	struct kms_dev dev;
	int32_t fence;
	unsigned int k;

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		switch (opt) {
		case 'n':
			flips = atoi(optarg);
			break;
		case 'r':
			hz = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-n FLIPS] [-r HZ] DRIVER\n", argv[0]);
			return 2;
		}
	}
	watchdog(165);
	begin("setup");
	require(kms_open(&dev, kms_driver_arg(argc, argv), KMS_CAP_ATOMIC) == 0, "open card");
	require(kms_pipes(&dev, &pipe, 1) == 1, "a connected pipe");
	require(pipe.crtc_props.out_fence_ptr != 0, "an OUT_FENCE_PTR property");
	for (k = 0; k < 2; k++)
		require(kms_fb_create(dev.fd, pipe.mode.hdisplay, pipe.mode.vdisplay,
				      DRM_FORMAT_XRGB8888, k, &fb[k]) == 0, "dumb framebuffers");
	mode = hz ? kms_mode_at_refresh(&pipe.mode, hz) : pipe.mode;
	require(kms_modeset(&dev, &pipe, &mode, &fb[0]) == 0, "modeset");
	comment("%s: %d flips on CRTC %u at %s (%.3f ms a frame)", dev.driver, flips,
		pipe.crtc_id, mode.name, kms_mode_period_ns(&mode) / 1e6);

	begin("flipping");
	start = now_ns();
	t_end = start + (int64_t)FLIP_SECONDS * 1000000000;
	for (i = 0; i < flips && now_ns() < t_end; i++) {
		fence = -1;
		ret = kms_flip(&dev, &pipe, &fb[(i + 1) % 2], &fence, -1, (uint64_t)i);
		if (ret) {
			tally_bad(&committed, i, "%s", errno_name(-ret));
			break;
		}
		done++;
		if (fence < 0 || kms_fence_info(fence, &info) || info.num_points != 1)
			tally_bad(&sync_file, i, "fd %d, %d points (%s)", fence,
				  fence < 0 ? 0 : info.num_points, errno_name(errno));

		ret = kms_next_event(&dev, 1000, &ev);
		if (ret != 1 || ev.type != DRM_EVENT_FLIP_COMPLETE || ev.user_data != (uint64_t)i) {
			tally_bad(&event, i, "%s type %u user data %llu",
				  ret == 1 ? "event" : ret == 0 ? "timeout" : errno_name(errno),
				  ret == 1 ? ev.type : 0, ret == 1 ? (unsigned long long)ev.user_data : 0);
			if (fence >= 0)
				close(fence);
			break;
		}
		if (fence < 0)
			continue;

		if (kms_fence_polled(fence) != 1)
			tally_bad(&by_event, i, "not signalled at event (seq %llu)",
				  (unsigned long long)ev.sequence);
		if (sync_wait(fence, 1000) || kms_fence_info(fence, &info) || info.status != 1 ||
		    info.timestamp_ns <= 0) {
			tally_bad(&signals, i, "status %d timestamp %lld (%s)", info.status,
				  (long long)info.timestamp_ns, errno_name(errno));
		} else {
			int64_t diff_us = info.timestamp_ns / 1000 - ev.time_us;
			int64_t diff_ns = llabs(info.timestamp_ns - ev.time_us * 1000);

			if (diff_ns > max_diff_ns)
				max_diff_ns = diff_ns;
			if (llabs(diff_us) > 1)
				tally_bad(&stamp, i, "fence %lld ns, event %lld us",
					  (long long)info.timestamp_ns, (long long)ev.time_us);
			if (info.timestamp_ns < prev_ts)
				tally_bad(&order, i, "%lld ns after previous %lld ns",
					  (long long)info.timestamp_ns, (long long)prev_ts);
			prev_ts = info.timestamp_ns;
		}
		if (i > 0 && ev.sequence <= prev_seq)
			tally_bad(&seq, i, "%llu after %llu", (unsigned long long)ev.sequence,
				  (unsigned long long)prev_seq);
		if (i > 0 && ev.sequence > prev_seq + 1)
			missed += (int)(ev.sequence - prev_seq - 1);
		prev_seq = ev.sequence;
		close(fence);
	}

	comment("flips=%d max|fence-event|=%lld ns (%.3f us) missed-vblanks=%d in %.1f s", done,
		(long long)max_diff_ns, max_diff_ns / 1000.0, missed, (now_ns() - start) / 1e9);
	check("all-flips-completed", done == flips && !event.bad,
	      "expected %d flips within %d s, got %d", flips, FLIP_SECONDS, done);
	for (k = 0; k < sizeof(all) / sizeof(all[0]); k++)
		tally_report(all[k], done);

	kms_teardown(&dev, &pipe, fb);
	return finish();
}
