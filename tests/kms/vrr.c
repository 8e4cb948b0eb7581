// SPDX-License-Identifier: MIT
/*
 * vrr: flipkms's connector is an adaptive-sync monitor and its CRTC
 * follows VRR_ENABLED (Documentation/flipkms.rst, Variable refresh).
 *
 *   - vrr_capable reads 1; the EDID's range limits descriptor and the
 *     range the DRM core parsed from it (the connector's debugfs
 *     vrr_range) are the driver's, 48-144 Hz by default; a range written
 *     to crtc-<i>/vrr_range shows in both after a probe; bad ones are
 *     refused (ERANGE out of 30-255, EINVAL for MIN > MAX or no MIN-MAX)
 *   - at 120 Hz with VRR on, flips paced at 1.5 periods start their
 *     refresh at their flush, off the mode's grid; flips back to back
 *     never refresh sooner than one period after the previous refresh;
 *     without flips the frame repeats every 1/48 s (CRTC_GET_SEQUENCE,
 *     and a WAIT_VBLANK event)
 *   - faults: flips held by crtc-<i>/vrr_hold are shown at the end of the
 *     longest frame, and the next one at its flush again; a range written
 *     while VRR is on (a monitor switching ranges) sets the longest frame
 *     from the next commit
 *   - async flips: one flushed in the blanking the display holds after a
 *     refresh starts the next refresh (one more count, at or after
 *     submit, placed by the refresh rules); one that starts none took
 *     effect within the active lines of the latest refresh, and tears it
 *   - VRR off: every refresh on the mode's grid again
 *   - every flip: fence == event to the µs; the event's count steps by
 *     exactly the refreshes the interval allows
 *   - CRCs and writeback follow refreshes (at 320x200, 120 Hz, so that
 *     composing keeps up): with flips at an irregular pace inside, above
 *     and below the range, crc/data has one entry per refresh, numbered
 *     with the counts the flip events carry, consecutive, fewer than the
 *     mode's grid would have; each flip's entry is at the refresh its
 *     event named, with its frame's CRC, different from the other frame's,
 *     and repeated frames repeat it; a writeback job signals after the
 *     refresh that ends its frame's (a repeated frame, or the next flip's),
 *     and writes its frame
 *
 * The times compared are the driver's own (fence timestamps in ns), which
 * the model fixes exactly; the guest's clock only paces the flips.
 *
 * usage: vrr flipkms   (loaded with the default vrr_range, 48-144)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

#define RATE_HZ		120
#define MIN_HZ		48
#define MAX_HZ		144
#define PACED_FLIPS	20
#define FAST_FLIPS	20
#define OFF_FLIPS	10
#define HOLD_FLIPS	3
#define ASYNC_FLIPS	4

static struct kms_dev dev;
static struct kms_pipe kp;	/* the pipe (pipe() is libc's) */
static struct kms_fb fb[2];
static const struct kms_fb *flip_fbs = fb;	/* what flip() shows */
static struct kms_writeback wb;
static struct kms_fb wb_fb;			/* what a writeback job writes */
static drmModeModeInfo vrr_mode;		/* the 120 Hz mode of the refresh model */
static uint32_t vrr_prop;
static int64_t period, longest;

/* One blocking flip: its times and the refresh that showed it. */
struct flip {
	int64_t t0, t1;		/* CLOCK_MONOTONIC around the commit */
	int64_t ts;		/* the out-fence's timestamp */
	int64_t ev_us;		/* the event's */
	uint64_t seq;		/* the event's vblank count */
};

/* A per-flip rule: how many flips broke it, and the first that did. */
struct rule {
	const char *name, *want;
	int bad, seen;
	char first[200];
};

static void rule_see(struct rule *r, bool good, int flip, const struct flip *f,
		     const struct flip *prev)
{
	r->seen++;
	if (good || r->bad++)
		return;
	snprintf(r->first, sizeof(r->first),
		 "flip %d: %" PRId64 " ns after the previous, count +%" PRIu64
		 ", flushed from %" PRId64 " ns after it", flip, f->ts - prev->ts,
		 f->seq - prev->seq, f->t0 - prev->ts);
}

static void rule_report(const struct rule *r)
{
	check(r->name, r->seen > 0 && !r->bad, "expected %s, %d of %d flips broke it (first %s)",
	      r->want, r->bad, r->seen, r->bad ? r->first : "-");
}

/*
 * Flips to flip_fbs[@i % 2], setting VRR_ENABLED to @vrr unless it is < 0,
 * and writing the frame back if @wb_fence (its WRITEBACK_OUT_FENCE_PTR);
 * 0 or -1.
 */
static int flip_wb(int i, int vrr, struct flip *f, int32_t *wb_fence)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	struct kms_fence_info info;
	struct kms_event ev;
	int32_t fence = -1;
	int ret;

	ret = req ? kms_req_plane(req, kp.primary_id, &kp.primary_props, kp.crtc_id,
				  &flip_fbs[i % 2], -1) : -ENOMEM;
	if (!ret && drmModeAtomicAddProperty(req, kp.crtc_id, kp.crtc_props.out_fence_ptr,
					     (uint64_t)(uintptr_t)&fence) < 0)
		ret = -EINVAL;
	if (!ret && vrr >= 0 &&
	    drmModeAtomicAddProperty(req, kp.crtc_id, vrr_prop, (uint64_t)vrr) < 0)
		ret = -EINVAL;
	if (!ret && wb_fence &&
	    (drmModeAtomicAddProperty(req, wb.id, wb.fb_id, wb_fb.fb_id) < 0 ||
	     drmModeAtomicAddProperty(req, wb.id, wb.out_fence_ptr,
				      (uint64_t)(uintptr_t)wb_fence) < 0))
		ret = -EINVAL;
	f->t0 = now_ns();
	if (!ret && drmModeAtomicCommit(dev.fd, req, DRM_MODE_PAGE_FLIP_EVENT, NULL))
		ret = -errno;
	f->t1 = now_ns();
	drmModeAtomicFree(req);
	if (ret || fence < 0) {
		comment("flip %d: commit %s", i, errno_name(-ret));
		return -1;
	}
	ret = kms_next_event(&dev, 2000, &ev) == 1 && ev.type == DRM_EVENT_FLIP_COMPLETE &&
	      !kms_fence_info(fence, &info) && info.status == 1 ? 0 : -1;
	close(fence);
	if (ret) {
		comment("flip %d: no flip event, or its fence not signalled", i);
		return -1;
	}
	f->ts = info.timestamp_ns;
	f->ev_us = ev.time_us;
	f->seq = ev.sequence;
	return 0;
}

static int flip(int i, int vrr, struct flip *f)
{
	return flip_wb(i, vrr, f, NULL);
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000, .tv_nsec = t % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* --- the monitor's range ------------------------------------------------ */

/* The EDID's range limits descriptor's vertical rates; 0 if it has none. */
static int edid_range(unsigned int *min, unsigned int *max)
{
	drmModePropertyBlobRes *blob;
	const unsigned char *e;
	uint64_t id;
	int d, found = 0;

	if (kms_prop_get(dev.fd, kp.connector_id, DRM_MODE_OBJECT_CONNECTOR, "EDID", &id) ||
	    !id || !(blob = drmModeGetPropertyBlob(dev.fd, (uint32_t)id)))
		return 0;
	e = blob->data;
	for (d = 54; blob->length >= 128 && d < 126; d += 18) {
		if (!e[d] && !e[d + 1] && e[d + 3] == 0xfd && e[d + 10] == 0x01) {
			*min = e[d + 5];
			*max = e[d + 6];
			found = 1;
		}
	}
	drmModeFreePropertyBlob(blob);
	return found;
}

/* The DRM core's parsed range, from <debugfs>/<connector>/vrr_range. */
static int core_range(const char *crtc_dir, unsigned int *min, unsigned int *max)
{
	drmModeConnector *c = drmModeGetConnector(dev.fd, kp.connector_id);
	char path[200];
	FILE *f;
	int n = 0;

	if (!c)
		return 0;
	snprintf(path, sizeof(path), "%s/../Virtual-%u/vrr_range", crtc_dir,
		 c->connector_type_id);
	drmModeFreeConnector(c);
	f = fopen(path, "r");
	if (f) {
		n = fscanf(f, "Min: %u Max: %u", min, max);
		fclose(f);
	}
	return n == 2;
}

/* Both ranges after a probe, which regenerates the EDID. */
static void check_ranges(const char *crtc_dir, const char *name, unsigned int min,
			 unsigned int max)
{
	unsigned int emin = 0, emax = 0, cmin = 0, cmax = 0;
	char full[80];

	drmModeFreeConnector(drmModeGetConnector(dev.fd, kp.connector_id));
	snprintf(full, sizeof(full), "edid-range-%s", name);
	check(full, edid_range(&emin, &emax) && emin == min && emax == max,
	      "expected a range limits descriptor of %u-%u Hz, got %u-%u", min, max, emin, emax);
	snprintf(full, sizeof(full), "core-range-%s", name);
	check(full, core_range(crtc_dir, &cmin, &cmax) && cmin == min && cmax == max,
	      "expected the core's monitor_range %u-%u Hz, got %u-%u", min, max, cmin, cmax);
}

static void test_range(const char *crtc_dir)
{
	static const struct {
		const char *value;
		int err;
	} bad[] = {
		{ "0-100", -ERANGE }, { "29-100", -ERANGE }, { "48-256", -ERANGE },
		{ "100-50", -EINVAL }, { "48", -EINVAL }, { "fast", -EINVAL },
	};
	uint64_t capable = 0;
	char name[64];
	unsigned int i;
	int ret;

	begin("range");
	check("vrr-capable-is-1",
	      !kms_prop_get(dev.fd, kp.connector_id, DRM_MODE_OBJECT_CONNECTOR, "vrr_capable",
			    &capable) && capable == 1,
	      "expected the connector's vrr_capable to read 1, got %" PRIu64, capable);
	check("vrr-enabled-property", vrr_prop != 0, "expected the CRTC to have VRR_ENABLED");
	check_ranges(crtc_dir, "default", MIN_HZ, MAX_HZ);
	ret = kms_crtc_control(crtc_dir, "vrr_range", "40-100");
	check("range-written", !ret, "expected 40-100 to be taken, got %s", errno_name(-ret));
	check_ranges(crtc_dir, "written", 40, 100);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = kms_crtc_control(crtc_dir, "vrr_range", bad[i].value);
		snprintf(name, sizeof(name), "range-%s-refused", bad[i].value);
		check(name, ret == bad[i].err, "expected %s, got %s", errno_name(-bad[i].err),
		      ret ? errno_name(-ret) : "success");
	}
	check_ranges(crtc_dir, "kept-after-refusals", 40, 100);
	require(kms_crtc_control(crtc_dir, "vrr_range", "48-144") == 0, "the default range back");
	drmModeFreeConnector(drmModeGetConnector(dev.fd, kp.connector_id));
}

/* --- the refresh model -------------------------------------------------- */

static struct rule fence_is_event = { .name = "fence-is-event",
				      .want = "fence ns / 1000 == event us" },
	count_is_refreshes = { .name = "count-steps-by-refreshes",
			       .want = "count +k after (k-1) repeated frames and a flip: "
				       "(k-1) x longest + period <= interval <= k x longest" },
	not_before_flip = { .name = "refresh-not-before-commit",
			    .want = "a fence timestamp after the commit began" };

/* The rules every flip under VRR keeps. */
static void see_vrr_flip(int i, const struct flip *f, const struct flip *prev)
{
	int64_t interval = f->ts - prev->ts, k = (int64_t)(f->seq - prev->seq);

	rule_see(&fence_is_event, f->ts / 1000 == f->ev_us, i, f, prev);
	rule_see(&not_before_flip, f->ts >= f->t0, i, f, prev);
	rule_see(&count_is_refreshes,
		 k >= 1 && interval >= (k - 1) * longest + period && interval <= k * longest,
		 i, f, prev);
}

/* A legacy async (tearing) flip to flip_fbs[@i % 2]: its event's time and count; 0 or -1. */
static int async_flip(int i, struct flip *f)
{
	struct kms_event ev;

	f->t0 = now_ns();
	if (drmModePageFlip(dev.fd, kp.crtc_id, flip_fbs[i % 2].fb_id,
			    DRM_MODE_PAGE_FLIP_ASYNC | DRM_MODE_PAGE_FLIP_EVENT, NULL)) {
		comment("async flip %d: %s", i, errno_name(errno));
		return -1;
	}
	if (kms_next_event(&dev, 2000, &ev) != 1 || ev.type != DRM_EVENT_FLIP_COMPLETE) {
		comment("async flip %d: no flip event", i);
		return -1;
	}
	f->t1 = now_ns();
	f->ts = ev.time_us * 1000;	/* no out-fence: the event's µs */
	f->ev_us = ev.time_us;
	f->seq = ev.sequence;
	return 0;
}

/*
 * Async flip @f after the refresh @prev, by the rules: a new refresh placed
 * as a flip's (1 us of slack: the event has whole µs), or none, and then
 * on screen within @prev's active lines.
 */
static void see_async_flip(int i, const struct flip *f, const struct flip *prev,
			   struct rule *starts, struct rule *tears)
{
	int64_t interval = f->ts - prev->ts, k = (int64_t)(f->seq - prev->seq);
	int64_t active = period * vrr_mode.vdisplay / vrr_mode.vtotal;
	/* How far into the k-th frame the display repeated since @prev, if it tore that. */
	int64_t into_repeat = interval - k * longest;

	if (k == 0)
		rule_see(tears, interval >= 0 && interval < active + 1000, i, f, prev);
	else if (into_repeat > 1000)
		/* Flushed late (a slow guest), after the repeat began: it tore it. */
		rule_see(tears, into_repeat < active + 1000, i, f, prev);
	else
		rule_see(starts, k >= 1 && f->ts >= f->t0 - 1000 &&
			 interval >= (k - 1) * longest + period - 1000 &&
			 interval <= k * longest + 1000,
			 i, f, prev);
}

/* Async flips under VRR, in the held blanking and right after a refresh, from @prev. */
static void test_async(struct flip *prev)
{
	struct rule starts = { .name = "async-in-blanking-starts-refresh",
			       .want = "a refresh counted, at or after submit, where a flip's would be" },
		    tears = { .name = "async-without-refresh-in-active-lines",
			      .want = "an async flip that starts no refresh on screen within the "
				      "latest refresh's active lines" };
	struct flip f, g;
	int i;

	begin("vrr-async");
	/* A slow guest may flush a flip meant for the blanking after a repeat: try again. */
	for (i = 0; i < 3 * ASYNC_FLIPS && starts.seen < ASYNC_FLIPS; i++) {
		/* Half a period into the blanking the display holds. */
		sleep_until(prev->ts + period * 3 / 2);
		require(async_flip(2 * i, &f) == 0, "an async flip in the blanking");
		see_async_flip(2 * i, &f, prev, &starts, &tears);
		if (f.seq != prev->seq)
			*prev = f;
		/* At once: in the active lines of that refresh, if the guest is quick. */
		require(async_flip(2 * i + 1, &g) == 0, "an async flip right after");
		see_async_flip(2 * i + 1, &g, prev, &starts, &tears);
		if (g.seq != prev->seq)
			*prev = g;
	}
	comment("%d of %d async flips started a refresh, %d tore one", starts.seen,
		2 * i, tears.seen);
	check("async-in-blanking-conclusive", starts.seen >= ASYNC_FLIPS,
	      "expected the %d async flips flushed in the blanking to start a refresh, %d did",
	      ASYNC_FLIPS, starts.seen);
	rule_report(&starts);
	if (tears.seen)
		rule_report(&tears);
	else
		ok("async-without-refresh-in-active-lines");
	/* A synchronous flip: the rules after this compare exact fence times. */
	require(flip(1, -1, prev) == 0, "a flip after the async flips");
}

/* Distance of @t from the nearest multiple of the period. */
static int64_t off_grid(int64_t t)
{
	int64_t r = t % period;

	return r < period - r ? r : period - r;
}

/* The vrr_hold fault, then a range change, from the refresh @prev. */
static void test_faults(const char *crtc_dir, struct flip *prev)
{
	struct rule held = { .name = "held-flips-shown-at-longest-frame",
			     .want = "an interval of a whole number of longest frames, as many counts" };
	int64_t shorter = 1000000000 / 60;
	uint64_t seq = 0, ns = 0;
	struct flip f;
	int i, ret;

	begin("vrr-hold");
	require(kms_crtc_control(crtc_dir, "vrr_hold", "3") == 0, "vrr_hold");
	for (i = 0; i <= HOLD_FLIPS; i++) {
		sleep_until(prev->ts + period * 3 / 2);
		require(flip(i, -1, &f) == 0, "a flip with vrr_hold");
		see_vrr_flip(i, &f, prev);
		if (i < HOLD_FLIPS)
			rule_see(&held, f.ts - prev->ts == (int64_t)(f.seq - prev->seq) * longest,
				 i, &f, prev);
		else
			check("hold-spent",
			      f.ts - prev->ts != (int64_t)(f.seq - prev->seq) * longest,
			      "expected flip %d, after %d held, at its flush again, got %" PRId64
			      " ns (count +%" PRIu64 ") after the previous refresh", i, HOLD_FLIPS,
			      f.ts - prev->ts, f.seq - prev->seq);
		*prev = f;
	}
	rule_report(&held);

	begin("range-change");
	require(kms_crtc_control(crtc_dir, "vrr_range", "60-144") == 0, "a range of 60-144 Hz");
	/* The range is in force from the refresh that latches the next commit. */
	require(flip(0, -1, prev) == 0, "a flip after the range change");
	sleep_until(prev->ts + 4 * shorter + shorter / 2);
	ret = drmCrtcGetSequence(dev.fd, kp.crtc_id, &seq, &ns) ? errno : 0;
	check("range-change-sets-longest-frame",
	      !ret && seq > prev->seq &&
	      (int64_t)ns - prev->ts == (int64_t)(seq - prev->seq) * shorter,
	      "expected count +k at k x %" PRId64 " ns (k >= 1) after the flip, got +%" PRId64
	      " at %" PRId64 " ns (CRTC_GET_SEQUENCE: %s)", shorter, (int64_t)(seq - prev->seq),
	      (int64_t)ns - prev->ts, ret ? errno_name(ret) : "ok");
	require(kms_crtc_control(crtc_dir, "vrr_range", "48-144") == 0, "the default range back");
}

static void test_vrr(const char *crtc_dir)
{
	struct rule paced = { .name = "paced-flips-refresh-at-flush",
			      .want = "an interval off the mode's grid (> 1 us from a multiple of the period)" },
		    fast = { .name = "fast-flips-wait-for-max-rate",
			     .want = "an interval of at least one period" };
	struct flip prev, f;
	uint64_t seq = 0;
	uint64_t ns = 0;
	int i, ret, direct = 0, bound = 0;
	struct kms_event ev;
	drmVBlank vbl;

	begin("vrr-on");
	require(flip(0, 1, &prev) == 0, "a flip that turns VRR on");
	for (i = 1; i <= PACED_FLIPS; i++) {
		sleep_until(prev.ts + period * 3 / 2);
		require(flip(i, -1, &f) == 0, "a paced flip");
		see_vrr_flip(i, &f, &prev);
		/* One refresh later: it started at the flush, not on a grid. */
		if (f.seq == prev.seq + 1) {
			direct++;
			rule_see(&paced, off_grid(f.ts - prev.ts) > 1000, i, &f, &prev);
		}
		prev = f;
	}
	comment("%d of %d paced flips refreshed next (the rest after a repeated frame)",
		direct, PACED_FLIPS);
	check("paced-flips-conclusive", direct >= PACED_FLIPS / 4,
	      "expected at least %d flips flushed within the range, got %d", PACED_FLIPS / 4,
	      direct);
	rule_report(&paced);

	for (i = 0; i < FAST_FLIPS; i++) {
		require(flip(i, -1, &f) == 0, "a fast flip");
		see_vrr_flip(i, &f, &prev);
		rule_see(&fast, f.ts - prev.ts >= period, i, &f, &prev);
		bound += f.seq == prev.seq + 1 && f.ts - prev.ts == period;
		prev = f;
	}
	comment("%d of %d back-to-back flips waited exactly one period", bound, FAST_FLIPS);
	check("fast-flips-conclusive", bound > 0,
	      "expected some flips to wait exactly one period (%" PRId64 " ns), none did", period);
	rule_report(&fast);
	test_async(&prev);
	test_faults(crtc_dir, &prev);
	/* The range goes back to 48-144 Hz with the next flip. */
	require(flip(0, -1, &prev) == 0, "a flip back to the default range");

	/* No flips: the display repeats its frame at the range's minimum. */
	sleep_until(prev.ts + 5 * longest + longest / 2);
	check("get-sequence-succeeds", !drmCrtcGetSequence(dev.fd, kp.crtc_id, &seq, &ns),
	      "CRTC_GET_SEQUENCE failed: %s", errno_name(errno));
	check("idle-refreshes-at-min-rate",
	      seq > prev.seq && (int64_t)ns - prev.ts == (int64_t)(seq - prev.seq) * longest,
	      "expected count +k at k x %" PRId64 " ns (k >= 1) after the last flip, got +%" PRIu64
	      " at %" PRId64 " ns", longest, seq - prev.seq, (int64_t)ns - prev.ts);
	memset(&vbl, 0, sizeof(vbl));
	vbl.request.type = DRM_VBLANK_ABSOLUTE | DRM_VBLANK_EVENT | kms_vblank_crtc_bits(kp.crtc_index);
	vbl.request.sequence = (unsigned int)seq + 2;
	memset(&ev, 0, sizeof(ev));
	ret = drmWaitVBlank(dev.fd, &vbl) ? -errno : kms_next_event(&dev, 1000, &ev);
	check("wait-vblank-follows-refreshes",
	      ret == 1 && ev.type == DRM_EVENT_VBLANK && ev.sequence == seq + 2 &&
	      ev.time_us == ((int64_t)ns + 2 * longest) / 1000,
	      "expected a vblank event for count %" PRIu64 " at %" PRId64 " us, got %s: type %u,"
	      " count %" PRIu64 " at %" PRId64 " us", seq + 2, ((int64_t)ns + 2 * longest) / 1000,
	      ret < 0 ? errno_name(-ret) : ret ? "an event" : "none", ev.type, ev.sequence,
	      ev.time_us);

	begin("vrr-off");
	/* The commit that turns VRR off is latched under VRR; the grid starts at its refresh. */
	require(flip(0, 0, &prev) == 0, "a flip that turns VRR off");
	f = prev;
	for (i = 1; i <= OFF_FLIPS; i++) {
		struct flip g;

		sleep_until(f.ts + period * 3 / 2);
		require(flip(i, -1, &g) == 0, "a flip with VRR off");
		rule_see(&fence_is_event, g.ts / 1000 == g.ev_us, i, &g, &f);
		bound = (g.ts - prev.ts) % period == 0 &&
			g.seq - prev.seq == (uint64_t)((g.ts - prev.ts) / period);
		if (!bound) {
			check("vrr-off-on-mode-grid", false,
			      "flip %d: %" PRId64 " ns and count +%" PRIu64 " after the switch, "
			      "expected a whole number of %" PRId64 " ns periods and as many counts",
			      i, g.ts - prev.ts, g.seq - prev.seq, period);
			break;
		}
		f = g;
	}
	if (i > OFF_FLIPS)
		ok("vrr-off-on-mode-grid");
}

/* --- CRCs and writeback follow refreshes -------------------------------- */

#define CAP_W		320	/* the smallest mode: compositions keep up */
#define CAP_H		200
#define CRC_FLIPS	20
#define MAX_ENTRIES	256

static struct kms_fb cap_fb[2];
static const uint32_t cap_rgb[2] = { 0x0000ff, 0xff0000 };

/*
 * The pause between a flip's refresh and the next flip, in tenths of the
 * mode's period: inside the range (a refresh at the flush), above it (one
 * that waits for the period) and below it (repeated frames first).
 */
static const int crc_pace[] = { 13, 22, 16, 40, 11, 24, 65, 18, 14, 31 };

struct crc_log {
	struct kms_crc_entry e[MAX_ENTRIES];
	int n;
};

/* The entries crc/data has ready; with @until, up to that of vblank @until. */
static bool crc_read(int data, struct crc_log *log, uint64_t until)
{
	struct pollfd pfd = { .fd = data, .events = POLLIN };

	while (log->n < MAX_ENTRIES) {
		if (until && log->n && log->e[log->n - 1].frame >= until)
			return true;
		if (!until && poll(&pfd, 1, 0) != 1)
			return true;
		if (!kms_crc_next(data, true, &log->e[log->n]))
			return false;
		log->n++;
	}
	comment("more than %d CRC entries", MAX_ENTRIES);
	return false;
}

static const struct kms_crc_entry *crc_entry(const struct crc_log *log, uint64_t frame)
{
	int k;

	for (k = 0; k < log->n; k++)
		if (log->e[k].frame == frame)
			return &log->e[k];
	return NULL;
}

/* Whether every pixel written back is @rgb; else the first that is not in *@seen. */
static bool written_back(uint32_t rgb, long *seen)
{
	const uint32_t *px;
	uint32_t x, y;
	bool ok = true;

	*seen = -1;
	px = (const uint32_t *)kms_fb_map(dev.fd, &wb_fb);
	if (!px)
		return false;
	for (y = 0; y < wb_fb.height && ok; y++) {
		for (x = 0; x < wb_fb.width && ok; x++) {
			uint32_t v = px[y * (wb_fb.pitch / 4) + x] & 0xffffff;

			ok = v == rgb;
			*seen = v;
		}
	}
	munmap((void *)px, wb_fb.size);
	return ok;
}

/* Routes the writeback connector to the CRTC (@on) or off it, with VRR_ENABLED @vrr. */
static int route_writeback(bool on, int vrr)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret = -ENOMEM;

	if (req && drmModeAtomicAddProperty(req, wb.id, wb.crtc_id, on ? kp.crtc_id : 0) >= 0 &&
	    drmModeAtomicAddProperty(req, kp.crtc_id, vrr_prop, (uint64_t)vrr) >= 0)
		ret = drmModeAtomicCommit(dev.fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL) ?
		      -errno : 0;
	drmModeAtomicFree(req);
	return ret;
}

/* The 320x200 mode at 120 Hz, the CRTC on it, VRR on, writeback routed. */
static void capture_setup(void)
{
	drmModeModeInfo base = {
		.hdisplay = CAP_W, .hsync_start = 328, .hsync_end = 360, .htotal = 400,
		.vdisplay = CAP_H, .vsync_start = 203, .vsync_end = 207, .vtotal = 210,
	};
	drmModeModeInfo mode = kms_mode_at_refresh(&base, RATE_HZ);
	int k, ret;

	begin("capture-setup");
	require(drmSetClientCap(dev.fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1) == 0 &&
		kms_writeback_find(&dev, &kp, &wb), "a writeback connector");
	for (k = 0; k < 2; k++)
		require(kms_fb_create(dev.fd, CAP_W, CAP_H, DRM_FORMAT_XRGB8888, 5 + k,
				      &cap_fb[k]) == 0 &&
			kms_fb_fill(dev.fd, &cap_fb[k], cap_rgb[k]) == 0, "framebuffers");
	require(kms_fb_create(dev.fd, CAP_W, CAP_H, DRM_FORMAT_XRGB8888, 7, &wb_fb) == 0,
		"a writeback framebuffer");
	require(kms_modeset(&dev, &kp, &mode, &cap_fb[0]) == 0, "a modeset to 320x200 at 120 Hz");
	period = (int64_t)mode.htotal * mode.vtotal * 1000000 / mode.clock;
	ret = route_writeback(true, 1);
	require(!ret, "the writeback connector routed, VRR on");
	flip_fbs = cap_fb;
}

/* Flips at an irregular pace with CRCs on: their entries, by the rules above. */
static void test_crc(const char *crtc_dir, struct flip *last)
{
	static struct crc_log log;
	struct flip f[CRC_FLIPS + 1];
	const struct kms_crc_entry *e;
	char before[96], after[96], first_bad[160] = "-";
	long long lost_before, lost_after;
	uint64_t from, to, s, last_frame = 0;
	unsigned long crc_of[2] = { 0, 0 };
	int i, k, data, in = 0, gaps = 0, disorder = 0, bad_at = 0, bad_repeat = 0, repeats = 0;
	int64_t grid;
	bool known;

	begin("crc-follows-refreshes");
	lost_before = kms_vblanks_without_entry(crtc_dir, kp.crtc_index, before, sizeof(before));
	require(lost_before >= 0, "flipkms_status's missed, dropped and crc dropped counts");
	data = kms_crc_open(crtc_dir, O_NONBLOCK);
	require(flip(0, -1, &f[0]) == 0, "the first flip with CRCs on");
	for (i = 1; i <= CRC_FLIPS; i++) {
		sleep_until(f[i - 1].ts + period * crc_pace[i % 10] / 10);
		require(flip(i, -1, &f[i]) == 0, "a flip at an irregular pace");
		see_vrr_flip(i, &f[i], &f[i - 1]);
		require(crc_read(data, &log, 0), "the CRC entries so far");
	}
	/* The last refresh's entry comes when the next refresh ends it. */
	require(crc_read(data, &log, f[CRC_FLIPS].seq), "the last flip's CRC entry");
	lost_after = kms_vblanks_without_entry(crtc_dir, kp.crtc_index, after, sizeof(after));
	close(data);
	require(lost_after >= 0, "flipkms_status's counts after the flips");
	*last = f[CRC_FLIPS];

	/* From the first flip's refresh to the last's, one entry each. */
	from = f[0].seq;
	to = f[CRC_FLIPS].seq;
	for (k = 0; k < log.n; k++) {
		if (log.e[k].frame < from || log.e[k].frame > to)
			continue;
		if (in && log.e[k].frame <= last_frame)
			disorder++;
		else
			gaps += (int)(log.e[k].frame - (in ? last_frame + 1 : from));
		last_frame = log.e[k].frame;
		in++;
	}
	gaps += in ? (int)(to - last_frame) : (int)(to - from + 1);
	grid = (f[CRC_FLIPS].ts - f[0].ts) / period + 1;
	comment("refreshes %" PRIu64 "-%" PRIu64 ": %d entries over %" PRId64 " ns, %" PRId64
		" vblanks on the mode's grid; flipkms_status before: %s, after: %s", from, to, in,
		f[CRC_FLIPS].ts - f[0].ts, grid, before, after);
	check("crc-one-entry-per-refresh",
	      !disorder && gaps <= lost_after - lost_before,
	      "expected an entry for each of refreshes %" PRIu64 "-%" PRIu64 " in order (gaps only"
	      " for vblanks flipkms_status says were lost: %lld), got %d entries, %d refreshes"
	      " without one, %d out of order", from, to, lost_after - lost_before, in, gaps,
	      disorder);
	check("crc-entries-follow-refreshes-not-grid", (int64_t)(to - from + 1) < grid,
	      "expected fewer refreshes than the mode's %" PRId64 " vblanks in %" PRId64 " ns, the"
	      " event counts say %" PRIu64, grid, f[CRC_FLIPS].ts - f[0].ts, to - from + 1);

	/* Each flip's entry is at its event's count, the refreshes before it the old frame's. */
	known = (e = crc_entry(&log, f[0].seq)) != NULL;
	crc_of[0] = e ? e->crc : 0;
	known &= (e = crc_entry(&log, f[1].seq)) != NULL;
	crc_of[1] = e ? e->crc : 0;
	check("crc-differs-with-content", known && crc_of[0] != crc_of[1],
	      "expected the entries of the first two flips' refreshes (%" PRIu64 ", %" PRIu64
	      ") to differ, got %s%08lx and %08lx", f[0].seq, f[1].seq,
	      known ? "" : "no entry for one: ", crc_of[0], crc_of[1]);
	for (i = 1; i <= CRC_FLIPS; i++) {
		e = crc_entry(&log, f[i].seq);
		if ((!e || e->crc != crc_of[i % 2]) && !bad_at++)
			snprintf(first_bad, sizeof(first_bad), "flip %d, event count %" PRIu64
				 ": %s%08lx, expected %08lx", i, f[i].seq, e ? "" : "no entry ",
				 e ? e->crc : 0, crc_of[i % 2]);
		for (s = f[i - 1].seq + 1; s < f[i].seq; s++) {
			e = crc_entry(&log, s);
			repeats++;
			bad_repeat += e && e->crc != crc_of[(i - 1) % 2];
		}
	}
	check("crc-at-each-flip's-refresh", !bad_at,
	      "expected each flip's entry at its event's count with its frame's CRC, %d of %d"
	      " were not (first: %s)", bad_at, CRC_FLIPS, first_bad);
	check("crc-of-repeated-frame-repeats", repeats > 0 && !bad_repeat,
	      "expected repeated frames (%d) with the CRC of the frame they repeat, %d without",
	      repeats, bad_repeat);
}

/*
 * A flip written back: its job's fence signals once the refresh showing
 * its frame has ended, at the next refresh: flip @i + 1's one and a half
 * periods later if @then, else a repeated frame 1/MIN s later; and it
 * writes that frame.
 */
static void test_writeback(const char *name, int i, struct flip *prev, bool then)
{
	struct kms_fence_info info = { 0 };
	char full[80];
	struct flip f, g = { 0 };
	int64_t end;
	int32_t fence = -1;
	long seen;
	bool shown;

	begin(name);
	sleep_until(prev->ts + period * 3 / 2);
	require(flip_wb(i, -1, &f, &fence) == 0 && fence >= 0, "a flip written back");
	if (then) {
		sleep_until(f.ts + period * 3 / 2);
		require(flip(i + 1, -1, &g) == 0, "the flip after it");
	}
	require(sync_wait(fence, 5000) == 0 && kms_fence_info(fence, &info) == 0,
		"the writeback fence signals");
	close(fence);
	/* The refresh after the flip's: the next flip's, else a repeated frame. */
	end = then && g.seq == f.seq + 1 ? g.ts : f.ts + longest;
	comment("%s: flip at %" PRId64 " ns, next refresh %" PRId64 " ns later (%s), writeback"
		" fence %" PRId64 " ns after the flip", name, f.ts, end - f.ts,
		then && g.seq == f.seq + 1 ? "the next flip's" : "a repeated frame",
		info.timestamp_ns - f.ts);
	check(name, info.timestamp_ns >= end,
	      "expected the writeback fence at or after the refresh that ends the flip's,"
	      " %" PRId64 " ns after it, got %" PRId64 " ns after it", end - f.ts,
	      info.timestamp_ns - f.ts);
	shown = written_back(cap_rgb[i % 2], &seen);
	snprintf(full, sizeof(full), "%s-writes-its-frame", name);
	check(full, shown, "expected every pixel written back to be %06x, got %06lx",
	      cap_rgb[i % 2], seen);
	*prev = then ? g : f;
}

static void test_capture(const char *crtc_dir)
{
	struct flip last;

	capture_setup();
	test_crc(crtc_dir, &last);
	test_writeback("writeback-after-repeated-frame", 0, &last, false);
	test_writeback("writeback-after-next-flip", 1, &last, true);
	require(route_writeback(false, 0) == 0, "the writeback connector off the CRTC, VRR off");
}

int main(int argc, char **argv)
{
	drmModeModeInfo mode;
	char crtc_dir[128];

	watchdog(60);
	kms_flipkms_setup(kms_driver_arg(argc, argv), "usage: vrr flipkms", &dev, &kp,
			  crtc_dir, sizeof(crtc_dir), fb);
	vrr_prop = kms_prop_id(dev.fd, kp.crtc_id, DRM_MODE_OBJECT_CRTC, "VRR_ENABLED");
	test_range(crtc_dir);
	require(vrr_prop != 0, "VRR_ENABLED");

	begin("modeset");
	mode = kms_mode_at_refresh(&kp.mode, RATE_HZ);
	vrr_mode = mode;
	/* The core's frame duration, which the driver's period is. */
	period = (int64_t)mode.htotal * mode.vtotal * 1000000 / mode.clock;
	longest = 1000000000 / MIN_HZ;
	require(kms_modeset(&dev, &kp, &mode, &fb[0]) == 0, "a modeset at 120 Hz");
	comment("%s: period %" PRId64 " ns, longest frame %" PRId64 " ns", mode.name, period,
		longest);
	test_vrr(crtc_dir);
	test_capture(crtc_dir);
	rule_report(&fence_is_event);
	rule_report(&not_before_flip);
	rule_report(&count_is_refreshes);

	/* The 320x200 framebuffers go with the card. */
	kms_teardown(&dev, &kp, fb);
	return finish();
}
