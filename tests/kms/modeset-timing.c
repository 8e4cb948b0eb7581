// SPDX-License-Identifier: MIT
/*
 * modeset-timing: which vblank latches a commit, and which time its event
 * and out-fence carry, in every state of a CRTC.
 *
 *   enable	a modeset from off, with OUT_FENCE_PTR and an event: both
 *		carry the time of the first vblank of the new mode (not 0, not
 *		before the submit), and the next flip lands a whole number of
 *		periods of that mode later
 *   mode	the same for a change of mode while on
 *   disable	a commit that turns the CRTC off: its event and fence carry
 *		the last vblank's time and sequence: on the previous flip's
 *		grid, no later than the event
 *   edges	flips submitted at random points of the frame, while other
 *		threads hammer SYNC_IOC_FILE_INFO and poll() on the fence:
 *		no fence is stamped before its submit, every fence equals its
 *		event and lies on the vblank grid (a whole number of periods
 *		after the first)
 *   cycles	DPMS off/on, mode switches and disables with flips in flight,
 *		over and over (a deadlock hangs the test, lockdep reports)
 *
 * usage: modeset-timing [-n EDGE_FLIPS] [-c CYCLES] [-r HZ] flipkms
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drmMode.h>

#include "kms.h"

static struct kms_dev dev;
static struct kms_pipe pipe_;
static struct kms_fb fb[2];

/* A commit of the whole pipe: @mode NULL turns it off. 0 or -errno. */
static int commit_pipe(const drmModeModeInfo *mode, const struct kms_fb *f,
		       int32_t *out_fence, bool nonblock, uint64_t cookie)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint32_t blob = 0, flags = DRM_MODE_ATOMIC_ALLOW_MODESET;
	int ret = 0;

	if (!req)
		return -ENOMEM;
	if (mode && drmModeCreatePropertyBlob(dev.fd, mode, sizeof(*mode), &blob))
		ret = -errno;
	if (!ret &&
	    (drmModeAtomicAddProperty(req, pipe_.connector_id, pipe_.conn_props.crtc_id,
				      mode ? pipe_.crtc_id : 0) < 0 ||
	     drmModeAtomicAddProperty(req, pipe_.crtc_id, pipe_.crtc_props.mode_id, blob) < 0 ||
	     drmModeAtomicAddProperty(req, pipe_.crtc_id, pipe_.crtc_props.active, !!mode) < 0))
		ret = -ENOMEM;
	if (!ret)
		ret = kms_req_plane(req, pipe_.primary_id, &pipe_.primary_props,
				    mode ? pipe_.crtc_id : 0, mode ? f : NULL, -1);
	if (!ret && out_fence &&
	    drmModeAtomicAddProperty(req, pipe_.crtc_id, pipe_.crtc_props.out_fence_ptr,
				     (uint64_t)(uintptr_t)out_fence) < 0)
		ret = -ENOMEM;
	if (out_fence)
		flags |= DRM_MODE_PAGE_FLIP_EVENT;
	if (nonblock)
		flags |= DRM_MODE_ATOMIC_NONBLOCK;
	if (!ret && drmModeAtomicCommit(dev.fd, req, flags, (void *)(uintptr_t)cookie))
		ret = -errno;
	drmModeAtomicFree(req);
	if (blob)
		drmModeDestroyPropertyBlob(dev.fd, blob);
	return ret;
}

/* What one commit with an event and an out-fence gave back. */
struct result {
	int64_t submit_ns, event_ns, fence_ns;
	uint64_t seq;
	char why[160];
};

/* Waits for @cookie's event and its fence; false with @r->why on failure. */
static bool collect(int32_t fence, uint64_t cookie, struct result *r)
{
	struct kms_fence_info info;
	struct kms_event ev;
	int ret;

	ret = kms_next_event(&dev, 2000, &ev);
	if (ret != 1 || ev.user_data != cookie) {
		snprintf(r->why, sizeof(r->why), "no event %llu within 2 s (%s)",
			 (unsigned long long)cookie,
			 ret == 1 ? "another event" : errno_name(errno));
		return false;
	}
	r->event_ns = ev.time_us * 1000;
	r->seq = ev.sequence;
	if (fence < 0 || sync_wait(fence, 1000) || kms_fence_info(fence, &info) ||
	    info.status != 1) {
		snprintf(r->why, sizeof(r->why), "fence %d not signalled after its event", fence);
		return false;
	}
	r->fence_ns = info.timestamp_ns;
	return true;
}

/* The frame duration DRM computes for @mode (drm_calc_timestamping_constants). */
static int64_t frame_ns(const drmModeModeInfo *mode)
{
	return (int64_t)mode->htotal * mode->vtotal * 1000000 / mode->clock;
}

/* The fence time equals the event's, which is in µs, truncated. */
static bool same_time(const struct result *r)
{
	return r->fence_ns / 1000 * 1000 == r->event_ns;
}

static void check_transition(const char *tag, const drmModeModeInfo *mode)
{
	struct result r = { 0 }, next = { 0 };
	int32_t fence = -1, nfence = -1;
	int64_t period = frame_ns(mode), frames, rest;
	char name[96];
	bool got;

	snprintf(name, sizeof(name), "%s-event-and-fence", tag);
	begin(name);
	kms_drain_events(&dev, 20);
	r.submit_ns = now_ns();
	got = check(name, commit_pipe(mode, &fb[0], &fence, true, 1) == 0 && collect(fence, 1, &r),
		    "expected the nonblocking modeset's event and fence, got %s",
		    r.why[0] ? r.why : "a failed commit");
	if (fence >= 0)
		close(fence);
	if (!got)
		return;
	snprintf(name, sizeof(name), "%s-fence-equals-event", tag);
	check(name, same_time(&r), "expected equal times, got fence %lld ns, event %lld ns",
	      (long long)r.fence_ns, (long long)r.event_ns);
	snprintf(name, sizeof(name), "%s-latched-after-submit", tag);
	check(name, r.fence_ns >= r.submit_ns && r.seq > 0,
	      "expected a vblank after the submit at %lld ns with a sequence, got %lld ns seq %llu",
	      (long long)r.submit_ns, (long long)r.fence_ns, (unsigned long long)r.seq);

	snprintf(name, sizeof(name), "%s-next-flip-on-new-mode-grid", tag);
	begin(name);
	next.submit_ns = now_ns();
	if (!check(name, kms_flip(&dev, &pipe_, &fb[1], &nfence, -1, 2) == 0 &&
			 collect(nfence, 2, &next),
		   "expected the next flip, got %s", next.why[0] ? next.why : "a failed commit")) {
		if (nfence >= 0)
			close(nfence);
		return;
	}
	close(nfence);
	frames = (next.fence_ns - r.fence_ns + period / 2) / period;
	rest = next.fence_ns - r.fence_ns - frames * period;
	check(name, frames >= 1 && llabs(rest) <= 1 && next.seq - r.seq == (uint64_t)frames,
	      "expected a whole number of %lld ns periods and as many sequences, got %lld ns (%lld frames %+lld ns) and %llu sequences",
	      (long long)period, (long long)(next.fence_ns - r.fence_ns), (long long)frames,
	      (long long)rest, (unsigned long long)(next.seq - r.seq));
}

static void check_disable(const drmModeModeInfo *mode)
{
	struct result last = { 0 }, r = { 0 };
	int64_t period = frame_ns(mode), frames = -1, collected;
	int32_t fence = -1;
	bool got;

	begin("disable-event-and-fence");
	kms_drain_events(&dev, 20);
	if (!check("disable-prior-flip", kms_flip(&dev, &pipe_, &fb[0], &fence, -1, 3) == 0 &&
						 collect(fence, 3, &last),
		   "expected a flip before the disable, got %s", last.why))
		return;
	close(fence);
	fence = -1;
	r.submit_ns = now_ns();
	got = check("disable-event-and-fence",
		    commit_pipe(NULL, NULL, &fence, true, 4) == 0 && collect(fence, 4, &r),
		    "expected the disable's event and fence, got %s",
		    r.why[0] ? r.why : "a failed commit");
	collected = now_ns();
	if (fence >= 0)
		close(fence);
	if (!got)
		return;
	check("disable-fence-equals-event", same_time(&r),
	      "expected equal times, got fence %lld ns, event %lld ns", (long long)r.fence_ns,
	      (long long)r.event_ns);
	/*
	 * The CRTC's last vblank: one on the grid of the previous flip (the
	 * timer runs until the commit worker turns the CRTC off, so it may
	 * come after the submit), never one later than the event.
	 */
	if (r.fence_ns >= last.fence_ns && !((r.fence_ns - last.fence_ns) % period))
		frames = (r.fence_ns - last.fence_ns) / period;
	check("disable-stamped-with-last-vblank",
	      frames >= 0 && r.fence_ns <= collected && r.seq == last.seq + (uint64_t)frames,
	      "expected a vblank a whole number of %lld ns periods after the last flip's (%lld ns, seq %llu) and before the event, got %lld ns seq %llu",
	      (long long)period, (long long)last.fence_ns, (unsigned long long)last.seq,
	      (long long)r.fence_ns, (unsigned long long)r.seq);
}

/* The lookers: FILE_INFO and poll on whatever fence is newest. */
static volatile int newest = -1, stop_looking;

static void *look(void *arg)
{
	(void)arg;
	while (!stop_looking) {
		int fd = newest;

		if (fd >= 0) {
			struct kms_fence_info info;

			kms_fence_info(fd, &info);
			kms_fence_polled(fd);
		}
	}
	return NULL;
}

static void check_edges(const drmModeModeInfo *mode, int flips)
{
	int64_t period = frame_ns(mode), first = 0, t_end, off;
	int early = 0, unequal = 0, off_grid = 0, failed = 0, done = 0, i;
	char early_msg[160] = "", equal_msg[160] = "", grid_msg[160] = "", fail_msg[200] = "";
	pthread_t lookers[2];
	unsigned int seed = 1;

	begin("edges-setup");
	require(commit_pipe(mode, &fb[0], NULL, false, 0) == 0, "modeset for the edges");
	kms_drain_events(&dev, 20);
	for (i = 0; i < 2; i++)
		require(pthread_create(&lookers[i], NULL, look, NULL) == 0, "looker thread");
	t_end = now_ns() + 200 * 1000000000LL;
	for (i = 0; i < flips && now_ns() < t_end; i++) {
		struct result r = { 0 };
		int32_t fence = -1;

		/* Somewhere in the frame, often right at its edges. */
		off = rand_r(&seed) % 4 ? rand_r(&seed) % period : period - 1 - rand_r(&seed) % 50000;
		if (off > 0)
			usleep((useconds_t)(off / 1000));
		r.submit_ns = now_ns();
		if (kms_flip(&dev, &pipe_, &fb[(i + 1) % 2], &fence, -1, 100 + (uint64_t)i) ||
		    fence < 0) {
			if (!failed++)
				snprintf(fail_msg, sizeof(fail_msg), "flip %d: commit failed", i);
			break;
		}
		newest = fence;
		if (!collect(fence, 100 + (uint64_t)i, &r)) {
			if (!failed++)
				snprintf(fail_msg, sizeof(fail_msg), "flip %d: %s", i, r.why);
			newest = -1;
			close(fence);
			break;
		}
		newest = -1;
		close(fence);
		done++;
		if (r.fence_ns < r.submit_ns && !early++)
			snprintf(early_msg, sizeof(early_msg), "flip %d: stamped %lld ns before its submit",
				 i, (long long)(r.submit_ns - r.fence_ns));
		if (!same_time(&r) && !unequal++)
			snprintf(equal_msg, sizeof(equal_msg), "flip %d: fence %lld event %lld", i,
				 (long long)r.fence_ns, (long long)r.event_ns);
		if (!first)
			first = r.fence_ns;
		else if ((r.fence_ns - first) % period && !off_grid++)
			snprintf(grid_msg, sizeof(grid_msg), "flip %d: %lld ns off the grid", i,
				 (long long)((r.fence_ns - first) % period));
	}
	stop_looking = 1;
	for (i = 0; i < 2; i++)
		pthread_join(lookers[i], NULL);
	comment("edges: %d flips at %.3f ms a frame", done, period / 1e6);
	check("edges-all-flips-complete", !failed && done == flips,
	      "expected %d flips within 200 s, got %d (%s)", flips, done, fail_msg);
	check("edges-never-stamped-before-submit", !early,
	      "expected no fence earlier than its submit, got %d of %d (first %s)", early, done,
	      early_msg);
	check("edges-fence-equals-event", !unequal, "expected equal times, got %d of %d (first %s)",
	      unequal, done, equal_msg);
	check("edges-on-vblank-grid", !off_grid,
	      "expected every fence a whole number of periods after the first, got %d of %d (first %s)",
	      off_grid, done, grid_msg);
}

static void check_cycles(const drmModeModeInfo *fast, int cycles)
{
	drmModeModeInfo slow = kms_mode_at_refresh(&pipe_.mode, 50);
	int i, ret = 0, step = 0;
	int32_t fence;

	begin("cycles");
	for (i = 0; i < cycles && !ret; i++) {
		/* A flip in flight, then DPMS off, on, a mode switch, off. */
		fence = -1;
		step = 1;
		ret = commit_pipe(fast, &fb[0], NULL, false, 0);
		if (!ret) {
			step = 2;
			ret = kms_flip(&dev, &pipe_, &fb[1], &fence, -1, 9);
		}
		if (!ret) {
			step = 3;
			ret = commit_pipe(NULL, NULL, NULL, false, 0);
		}
		if (!ret) {
			step = 4;
			ret = commit_pipe(&slow, &fb[0], NULL, false, 0);
		}
		if (!ret) {
			step = 5;
			ret = kms_flip(&dev, &pipe_, &fb[1], NULL, -1, 9);
		}
		if (!ret) {
			step = 6;
			ret = commit_pipe(fast, &fb[1], NULL, false, 0);
		}
		if (fence >= 0) {
			if (!ret && sync_wait(fence, 2000))
				ret = -ETIME, step = 7;
			close(fence);
		}
		kms_drain_events(&dev, 0);
	}
	check("cycles-survive", !ret, "expected %d cycles, got %s at step %d of cycle %d", cycles,
	      errno_name(-ret), step, i - 1);
}

int main(int argc, char **argv)
{
	int edges = 2000, cycles = 100, hz = 240, opt, k;
	drmModeModeInfo fast, other;

	while ((opt = getopt(argc, argv, "n:c:r:")) != -1) {
		switch (opt) {
		case 'n':
			edges = atoi(optarg);
			break;
		case 'c':
			cycles = atoi(optarg);
			break;
		case 'r':
			hz = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-n EDGE_FLIPS] [-c CYCLES] [-r HZ] flipkms\n",
				argv[0]);
			return 2;
		}
	}
	watchdog(280);
	begin("setup");
	require(kms_open(&dev, kms_driver_arg(argc, argv), KMS_CAP_ATOMIC) == 0, "open card");
	require(kms_pipes(&dev, &pipe_, 1) == 1, "a connected pipe");
	require(pipe_.crtc_props.out_fence_ptr != 0, "an OUT_FENCE_PTR property");
	for (k = 0; k < 2; k++)
		require(kms_fb_create(dev.fd, pipe_.mode.hdisplay, pipe_.mode.vdisplay,
				      DRM_FORMAT_XRGB8888, (unsigned int)k, &fb[k]) == 0,
			"dumb framebuffers");
	fast = kms_mode_at_refresh(&pipe_.mode, (unsigned int)hz);
	other = kms_mode_at_refresh(&pipe_.mode, 75);

	require(commit_pipe(NULL, NULL, NULL, false, 0) == 0, "start from off");
	check_transition("enable", &pipe_.mode);
	check_transition("mode-change", &other);
	check_disable(&other);
	check_transition("enable-after-disable", &pipe_.mode);
	check_edges(&fast, edges);
	check_cycles(&fast, cycles);

	kms_teardown(&dev, &pipe_, fb);
	return finish();
}
