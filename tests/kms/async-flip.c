// SPDX-License-Identifier: MIT
/*
 * async-flip: tearing page flips (DRM_MODE_PAGE_FLIP_ASYNC). On flipkms an
 * async flip takes effect at once, between vblanks: its event carries the
 * vblank count, which has not moved, and the time of the flip, not a
 * vblank's; its point on the CRTC's flip timeline signals with that same
 * time (fence == event); async and synchronous flips interleave in order
 * on that one timeline. Only the primary plane's framebuffer may change,
 * and only on a CRTC that is on. On 6.12 the atomic ioctl takes the flag
 * too (without an out-fence); it waits for its in-fence like any commit.
 *
 * Every check is one of order, never of duration. A driver without async
 * flips (mainline vkms) gets skip lines.
 *
 * usage: async-flip [-n ROUNDS] DRIVER     ROUNDS of 5 async and 5
 *                                          synchronous flips, default 10
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

#ifndef DRM_CAP_ATOMIC_ASYNC_PAGE_FLIP
#define DRM_CAP_ATOMIC_ASYNC_PAGE_FLIP	0x15
#endif

#define PER_KIND	5	/* flips of each kind in a round */
#define MAX_FLIPS	1000
#define TRIES		20	/* for a flip with no vblank around it */

static const char *const all_checks[] = {
	"async-cap", "atomic-async-cap", "legacy-async-event-count",
	"legacy-async-event-time", "interleaved-every-flip-has-event",
	"interleaved-sequences-non-decreasing", "interleaved-times-non-decreasing",
	"interleaved-sync-events-at-vblanks", "timeline-every-commit-signalled",
	"timeline-signals-in-order", "timeline-stamp-is-event-time",
	"off-crtc-async-flip-refused", "off-crtc-async-flip-no-event-refused",
};

struct flip {
	bool async;
	uint64_t sequence;
	int64_t time_us;
};

static struct kms_dev dev;
static struct kms_pipe kp;
static struct kms_fb fb[2];
static struct flip flips[MAX_FLIPS];
static int nflips;

/* The CRTC's vblank count and the latest vblank's time; false on error. */
static bool vblank_now(uint64_t *count, int64_t *ns)
{
	uint64_t seq, t;

	if (drmCrtcGetSequence(dev.fd, kp.crtc_id, &seq, &t))
		return false;
	*count = seq;
	if (ns)
		*ns = (int64_t)t;
	return true;
}

static int legacy_flip(const struct kms_fb *f, uint32_t flags, uint64_t cookie)
{
	return drmModePageFlip(dev.fd, kp.crtc_id, f->fb_id, flags,
			       (void *)(uintptr_t)cookie) ? -errno : 0;
}

/* A nonblocking atomic commit of @req with @flags | EVENT. 0 or -errno. */
static int atomic_commit(drmModeAtomicReq *req, uint32_t flags, uint64_t cookie)
{
	return drmModeAtomicCommit(dev.fd, req, flags | DRM_MODE_ATOMIC_NONBLOCK |
				   DRM_MODE_PAGE_FLIP_EVENT, (void *)(uintptr_t)cookie) ? -errno : 0;
}

/* An atomic async flip of the primary plane to @f, @in_fence >= 0 its IN_FENCE_FD. */
static int atomic_async_flip(const struct kms_fb *f, int in_fence, uint64_t cookie)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret;

	if (!req)
		return -ENOMEM;
	ret = kms_req_plane(req, kp.primary_id, &kp.primary_props, kp.crtc_id, f,
			    in_fence);
	if (!ret)
		ret = atomic_commit(req, DRM_MODE_PAGE_FLIP_ASYNC, cookie);
	drmModeAtomicFree(req);
	return ret;
}

/* "flip N" of timeline flipkms-crtc-INDEX in syncfw's dump, or -1. */
static long long timeline_value(void)
{
	FILE *f = fopen("/sys/kernel/debug/sync/info", "r");
	char line[256], name[64];
	long long value = -1, v;

	if (!f)
		return -1;
	snprintf(name, sizeof(name), "flipkms-crtc-%d flipkms: flip %%lld", kp.crtc_index);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, name, &v) == 1) {
			value = v;
			break;
		}
	}
	fclose(f);
	return value;
}

/* --- the trace of the timeline's signals -------------------------------- */

static const char *tracefs(void)
{
	return access("/sys/kernel/tracing/trace", W_OK) == 0 ? "/sys/kernel/tracing" :
								"/sys/kernel/debug/tracing";
}

static int trace_write(const char *file, const char *value)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", tracefs(), file);
	return write_text(path, value);
}

/*
 * tracing_on as it is, '1' or '0' ('1' if unreadable): an earlier test may
 * have left tracing off, and the next one may want it as it was.
 */
static char trace_on(void)
{
	char path[128], c = '1';
	FILE *f;

	snprintf(path, sizeof(path), "%s/tracing_on", tracefs());
	f = fopen(path, "r");
	if (f) {
		if (fread(&c, 1, 1, f) != 1)
			c = '1';
		fclose(f);
	}
	return c;
}

/* Signals traced for our timeline: seqno and stamp (ns), in trace order. */
static int traced_signals(long long *seqno, long long *stamp, int max)
{
	char path[128], line[512], want[64];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/trace", tracefs());
	snprintf(want, sizeof(want), "timeline=flipkms-crtc-%d ", kp.crtc_index);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "flipkms_out_fence_signaled: ");

		if (!p || !strstr(p, want))
			continue;
		p = strstr(p, " seqno=");
		if (p && sscanf(p, " seqno=%lld stamp=%lld", &seqno[n], &stamp[n]) == 2)
			n++;
	}
	fclose(f);
	return n;
}

/* --- checks -------------------------------------------------------------- */

static void check_caps(bool *atomic_async)
{
	uint64_t cap = 0;
	int ret;

	begin("async-cap");
	ret = drmGetCap(dev.fd, DRM_CAP_ASYNC_PAGE_FLIP, &cap);
	check("async-cap", ret == 0 && cap == 1, "expected DRM_CAP_ASYNC_PAGE_FLIP 1, got %s %llu",
	      ret ? errno_name(errno) : "ok", (unsigned long long)cap);
	begin("atomic-async-cap");
	cap = 0;
	ret = drmGetCap(dev.fd, DRM_CAP_ATOMIC_ASYNC_PAGE_FLIP, &cap);
	if (ret && errno == EINVAL) {
		skip("atomic-async-cap", "no DRM_CAP_ATOMIC_ASYNC_PAGE_FLIP before 6.8");
		*atomic_async = false;
		return;
	}
	check("atomic-async-cap", ret == 0 && cap == 1,
	      "expected DRM_CAP_ATOMIC_ASYNC_PAGE_FLIP 1, got %s %llu",
	      ret ? errno_name(errno) : "ok", (unsigned long long)cap);
	*atomic_async = ret == 0 && cap == 1;
}

/*
 * One async flip (@flip makes it) with no vblank counted between the
 * count read before it and the one read after its event: its event then
 * carries that count, and a time between the flip and the event.
 */
static void check_async_event(const char *name, int (*flip)(const struct kms_fb *f, int in_fence,
							    uint64_t cookie))
{
	char count_name[96], time_name[96];
	uint64_t before = 0, after = 0;
	int64_t t0 = 0, t1 = 0, vbl_ns = 0;
	struct kms_event ev = { 0 };
	int tries, ret = 0;

	snprintf(count_name, sizeof(count_name), "%s-event-count", name);
	snprintf(time_name, sizeof(time_name), "%s-event-time", name);
	begin(count_name);
	for (tries = 1; tries <= TRIES; tries++) {
		kms_drain_events(&dev, 20);
		if (!vblank_now(&before, &vbl_ns))
			break;
		t0 = now_ns();
		ret = flip(&fb[tries % 2], -1, 500 + (uint64_t)tries);
		if (ret || kms_next_event(&dev, 1000, &ev) != 1)
			break;
		t1 = now_ns();
		if (!vblank_now(&after, NULL))
			break;
		if (after == before)
			break;
	}
	if (ret || tries > TRIES || after != before || ev.type != DRM_EVENT_FLIP_COMPLETE) {
		not_ok(count_name, "no async flip without a vblank around it in %d tries: last %s, "
		       "event sequence %llu, count %llu before and %llu after", TRIES,
		       ret ? errno_name(-ret) : "flipped", (unsigned long long)ev.sequence,
		       (unsigned long long)before, (unsigned long long)after);
		not_ok(time_name, "no event to look at");
		return;
	}
	comment("%s: try %d, count %llu, flip %lld us after the vblank, event %lld us after the flip",
		name, tries, (unsigned long long)before, (long long)(t0 - vbl_ns) / 1000,
		(long long)(ev.time_us - t0 / 1000));
	check(count_name, ev.sequence == before,
	      "expected the vblank count %llu (read before and after), got %llu",
	      (unsigned long long)before, (unsigned long long)ev.sequence);
	check(time_name, ev.time_us >= t0 / 1000 && ev.time_us <= t1 / 1000,
	      "expected a time between the flip (%lld us) and its event's read (%lld us), "
	      "got %lld us (the vblank before was at %lld us)", (long long)t0 / 1000,
	      (long long)t1 / 1000, (long long)ev.time_us, (long long)vbl_ns / 1000);
	if (ev.time_us == vbl_ns / 1000)
		comment("%s: the event's time is the vblank's", name);
}

static int flip_legacy_async(const struct kms_fb *f, int in_fence, uint64_t cookie)
{
	(void)in_fence;
	return legacy_flip(f, DRM_MODE_PAGE_FLIP_ASYNC | DRM_MODE_PAGE_FLIP_EVENT, cookie);
}

static int flip_atomic_async(const struct kms_fb *f, int in_fence, uint64_t cookie)
{
	return atomic_async_flip(f, in_fence, cookie);
}

/* Rounds of async then synchronous legacy flips, each waiting for its event. */
static void run_interleaved(int rounds)
{
	int i, k, ret, bad_seq = 0, bad_time = 0, bad_vbl = 0, at_vbl = 0, shared = 0;
	char first_seq[128] = "-", first_time[128] = "-", first_vbl[128] = "-";
	struct kms_event ev;
	uint64_t count;
	int64_t vbl_ns;

	begin("interleaved-every-flip-has-event");
	nflips = 0;
	for (i = 0; i < rounds && nflips + 2 * PER_KIND <= MAX_FLIPS; i++) {
		for (k = 0; k < 2 * PER_KIND; k++) {
			struct flip *f = &flips[nflips];

			f->async = k < PER_KIND;
			ret = legacy_flip(&fb[nflips % 2], DRM_MODE_PAGE_FLIP_EVENT |
					  (f->async ? DRM_MODE_PAGE_FLIP_ASYNC : 0),
					  (uint64_t)nflips + 1);
			if (ret) {
				comment("flip %d (%s): %s", nflips, f->async ? "async" : "sync",
					errno_name(-ret));
				goto out;
			}
			if (kms_next_event(&dev, 1000, &ev) != 1 ||
			    ev.user_data != (uint64_t)nflips + 1) {
				comment("flip %d: no event of its own within 1 s", nflips);
				goto out;
			}
			f->sequence = ev.sequence;
			f->time_us = ev.time_us;
			/* A synchronous flip's event is its vblank's, the latest one. */
			if (!f->async && vblank_now(&count, &vbl_ns) && count == ev.sequence) {
				at_vbl++;
				if (vbl_ns / 1000 != ev.time_us && !bad_vbl++)
					snprintf(first_vbl, sizeof(first_vbl),
						 "flip %d: %lld us, vblank %llu at %lld us", nflips,
						 (long long)ev.time_us, (unsigned long long)count,
						 (long long)vbl_ns / 1000);
			}
			nflips++;
		}
	}
out:
	check("interleaved-every-flip-has-event", nflips == rounds * 2 * PER_KIND,
	      "expected %d flips with their events, got %d", rounds * 2 * PER_KIND, nflips);
	for (i = 1; i < nflips; i++) {
		const struct flip *a = &flips[i - 1], *b = &flips[i];

		if (b->async && b->sequence == a->sequence)
			shared++;
		/* A synchronous flip moves the count on; an async one never does. */
		if ((b->sequence < a->sequence || (!b->async && b->sequence == a->sequence)) &&
		    !bad_seq++)
			snprintf(first_seq, sizeof(first_seq), "flip %d (%s): %llu after %llu", i,
				 b->async ? "async" : "sync", (unsigned long long)b->sequence,
				 (unsigned long long)a->sequence);
		if (b->time_us < a->time_us && !bad_time++)
			snprintf(first_time, sizeof(first_time), "flip %d: %lld us after %lld us",
				 i, (long long)b->time_us, (long long)a->time_us);
	}
	comment("%d flips; %d async flips in the same refresh as the flip before", nflips, shared);
	check("interleaved-sequences-non-decreasing", !bad_seq && nflips > 1,
	      "expected sequences that never decrease and move on with every synchronous "
	      "flip, got %d bad (first %s)", bad_seq, first_seq);
	check("interleaved-times-non-decreasing", !bad_time && nflips > 1,
	      "expected non-decreasing times, got %d bad (first %s)", bad_time, first_time);
	check("interleaved-sync-events-at-vblanks", !bad_vbl && at_vbl > 0,
	      "expected each synchronous flip's event at its vblank's time, got %d bad of %d "
	      "(first %s)", bad_vbl, at_vbl, first_vbl);
}

/* The timeline advanced once per flip, in order, stamped with each event's time. */
static void check_timeline(long long value_before)
{
	static long long seqno[2 * MAX_FLIPS], stamp[2 * MAX_FLIPS];
	int n, i, bad_order = 0, bad_stamp = 0;
	char first_order[96] = "-", first_stamp[128] = "-";
	long long value_after = timeline_value();

	begin("timeline-every-commit-signalled");
	check("timeline-every-commit-signalled",
	      value_before >= 0 && value_after == value_before + nflips && nflips > 0,
	      "expected flipkms-crtc-%d at flip %lld + %d, got %lld", kp.crtc_index,
	      value_before, nflips, value_after);
	n = traced_signals(seqno, stamp, 2 * MAX_FLIPS);
	for (i = 0; i < n; i++) {
		if (seqno[i] != value_before + 1 + i && !bad_order++)
			snprintf(first_order, sizeof(first_order), "signal %d: flip %lld", i,
				 seqno[i]);
		if (i < nflips && stamp[i] / 1000 != flips[i].time_us && !bad_stamp++)
			snprintf(first_stamp, sizeof(first_stamp),
				 "flip %d (%s): stamp %lld ns, event %lld us", i,
				 flips[i].async ? "async" : "sync", stamp[i],
				 (long long)flips[i].time_us);
	}
	check("timeline-signals-in-order", n == nflips && !bad_order && n > 0,
	      "expected %d signals, flip %lld + 1 on, one at a time; got %d, %d out of order "
	      "(first %s)", nflips, value_before, n, bad_order, first_order);
	check("timeline-stamp-is-event-time", n == nflips && !bad_stamp && n > 0,
	      "expected each signal stamped with its event's time, got %d of %d bad (first %s)",
	      bad_stamp, n, first_stamp);
}

/* 6.12: the atomic form, refused beyond the primary plane's framebuffer. */
static void check_atomic(bool atomic_async)
{
	static const char *const names[] = {
		"atomic-async-flip-event-count", "atomic-async-flip-event-time",
		"atomic-async-out-fence-einval", "atomic-async-move-einval",
		"atomic-async-overlay-einval", "atomic-async-waits-for-in-fence",
	};
	drmModeAtomicReq *req;
	struct kms_event ev;
	int32_t out_fence = -1;
	int64_t t_signal;
	int ret, tl, fence;
	unsigned int i;

	if (!atomic_async) {
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			skip(names[i], "no atomic async flips on this kernel");
		return;
	}
	check_async_event("atomic-async-flip", flip_atomic_async);

	begin("atomic-async-out-fence-einval");
	kms_drain_events(&dev, 20);
	req = drmModeAtomicAlloc();
	require(req != NULL, "atomic request");
	ret = kms_req_plane(req, kp.primary_id, &kp.primary_props, kp.crtc_id, &fb[0], -1);
	if (!ret)
		ret = drmModeAtomicAddProperty(req, kp.crtc_id, kp.crtc_props.out_fence_ptr,
					       (uint64_t)(uintptr_t)&out_fence) < 0 ? -EINVAL : 0;
	require(ret == 0, "request with OUT_FENCE_PTR");
	ret = atomic_commit(req, DRM_MODE_PAGE_FLIP_ASYNC, 600);
	drmModeAtomicFree(req);
	check("atomic-async-out-fence-einval", ret == -EINVAL,
	      "expected EINVAL (the core's: OUT_FENCE_PTR changes), got %s", errno_name(-ret));

	begin("atomic-async-move-einval");
	req = drmModeAtomicAlloc();
	require(req != NULL, "atomic request");
	require(drmModeAtomicAddProperty(req, kp.primary_id, kp.primary_props.fb_id,
					 fb[1].fb_id) >= 0 &&
		drmModeAtomicAddProperty(req, kp.primary_id, kp.primary_props.crtc_x, 1) >= 0,
		"request moving the primary plane");
	ret = atomic_commit(req, DRM_MODE_PAGE_FLIP_ASYNC, 601);
	drmModeAtomicFree(req);
	check("atomic-async-move-einval", ret == -EINVAL,
	      "expected EINVAL for a primary plane moved by an async flip, got %s",
	      errno_name(-ret));

	begin("atomic-async-overlay-einval");
	if (!kp.overlay_id) {
		skip("atomic-async-overlay-einval", "the kp has no overlay plane");
	} else {
		req = drmModeAtomicAlloc();
		require(req != NULL, "atomic request");
		ret = kms_req_plane(req, kp.overlay_id, &kp.overlay_props, kp.crtc_id,
				    &fb[1], -1);
		require(ret == 0, "request showing the overlay");
		ret = atomic_commit(req, DRM_MODE_PAGE_FLIP_ASYNC, 602);
		drmModeAtomicFree(req);
		check("atomic-async-overlay-einval", ret == -EINVAL,
		      "expected EINVAL for an overlay changed by an async flip, got %s",
		      errno_name(-ret));
	}
	ret = kms_drain_events(&dev, 100);
	check("atomic-async-refusals-send-no-event", ret == 0,
	      "expected no event from refused flips, got %d", ret);

	begin("atomic-async-waits-for-in-fence");
	tl = sw_sync_timeline_create();
	require(tl >= 0, "sw_sync timeline");
	fence = sw_sync_fence_create(tl, "async-in-fence", 1);
	require(fence >= 0, "sw_sync fence");
	ret = atomic_async_flip(&fb[0], fence, 603);
	close(fence);
	if (ret) {
		not_ok("atomic-async-waits-for-in-fence", "the flip failed: %s", errno_name(-ret));
		close(tl);
		return;
	}
	ret = kms_next_event(&dev, 200, &ev);
	check("atomic-async-no-event-before-in-fence", ret == 0,
	      "expected no event within 200 ms while the in-fence is unsignalled, got %d", ret);
	t_signal = now_ns();
	require(sw_sync_timeline_inc(tl, 1) == 0, "signal the in-fence");
	ret = kms_next_event(&dev, 1000, &ev);
	check("atomic-async-waits-for-in-fence",
	      ret == 1 && ev.user_data == 603 && ev.time_us >= t_signal / 1000,
	      "expected its event, at or after the in-fence's signal (%lld us), got %d (%lld us)",
	      (long long)t_signal / 1000, ret, (long long)ev.time_us);
	close(tl);
}

/* The CRTC off, its primary plane still holding a framebuffer: refused. */
static void check_off_crtc(void)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret;

	begin("off-crtc-async-flip-refused");
	kms_drain_events(&dev, 50);
	require(req && drmModeAtomicAddProperty(req, kp.crtc_id, kp.crtc_props.active, 0) >= 0,
		"request turning the CRTC off");
	ret = drmModeAtomicCommit(dev.fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL) ? -errno : 0;
	drmModeAtomicFree(req);
	require(ret == 0, "CRTC off, plane kept");
	/*
	 * The core's legacy flip helper refuses a flip on a CRTC that is off
	 * before anything is checked, event or not (flipkms's atomic_check
	 * would refuse it too).
	 */
	ret = legacy_flip(&fb[1], DRM_MODE_PAGE_FLIP_ASYNC | DRM_MODE_PAGE_FLIP_EVENT, 700);
	check("off-crtc-async-flip-refused", ret == -EINVAL,
	      "expected the core's EINVAL for a flip on a CRTC that is off, got %s",
	      errno_name(-ret));
	ret = legacy_flip(&fb[1], DRM_MODE_PAGE_FLIP_ASYNC, 701);
	check("off-crtc-async-flip-no-event-refused", ret == -EINVAL,
	      "expected EINVAL for an async flip on a CRTC that is off, got %s",
	      errno_name(-ret));
	ret = kms_drain_events(&dev, 100);
	check("off-crtc-refusals-send-no-event", ret == 0, "expected no event, got %d", ret);
}

int main(int argc, char **argv)
{
	int rounds = 10, opt;
	const char *driver;
	bool atomic_async = false;
	long long value_before;
	char was_on[2] = "1";
	unsigned int i;
	uint64_t cap = 0;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n') {
			fprintf(stderr, "usage: %s [-n ROUNDS] DRIVER\n", argv[0]);
			return 2;
		}
		rounds = atoi(optarg);
	}
	if (rounds < 1 || rounds * 2 * PER_KIND > MAX_FLIPS) {
		fprintf(stderr, "%s: ROUNDS from 1 to %d\n", argv[0], MAX_FLIPS / 2 / PER_KIND);
		return 2;
	}
	driver = kms_driver_arg(argc, argv);
	watchdog(120);
	begin("setup");
	require(kms_open(&dev, driver, KMS_CAP_ATOMIC) == 0, "open card");
	require(kms_pipes(&dev, &kp, 1) == 1, "a connected kp");
	for (i = 0; i < 2; i++)
		require(kms_fb_create(dev.fd, kp.mode.hdisplay, kp.mode.vdisplay,
				      DRM_FORMAT_XRGB8888, i, &fb[i]) == 0, "dumb framebuffers");
	require(kms_modeset(&dev, &kp, NULL, &fb[0]) == 0, "modeset");

	/* A driver without async flips, such as vkms, has nothing to test. */
	if (drmGetCap(dev.fd, DRM_CAP_ASYNC_PAGE_FLIP, &cap) == 0 && cap == 0 &&
	    strcmp(dev.driver, "flipkms")) {
		for (i = 0; i < sizeof(all_checks) / sizeof(all_checks[0]); i++)
			skip(all_checks[i], "%s has no async page flips", dev.driver);
		kms_teardown(&dev, &kp, fb);
		return finish();
	}

	check_caps(&atomic_async);
	check_async_event("legacy-async", flip_legacy_async);

	/* The trace holds the timeline's signals of the interleaved run only. */
	was_on[0] = trace_on();
	require(trace_write("events/flipkms/flipkms_out_fence_signaled/enable", "1") == 0 &&
		trace_write("trace", "") == 0 && trace_write("tracing_on", "1") == 0,
		"trace the timeline's signals");
	value_before = timeline_value();
	run_interleaved(rounds);
	trace_write("events/flipkms/flipkms_out_fence_signaled/enable", "0");
	check_timeline(value_before);
	trace_write("tracing_on", was_on);

	check_atomic(atomic_async);
	check_off_crtc();
	kms_teardown(&dev, &kp, fb);
	return finish();
}
