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
 *   - VRR off: every refresh on the mode's grid again
 *   - every flip: fence == event to the µs; the event's count steps by
 *     exactly the refreshes the interval allows
 *
 * The times compared are the driver's own (fence timestamps in ns), which
 * the model fixes exactly; the guest's clock only paces the flips.
 *
 * usage: vrr flipkms   (loaded with the default vrr_range, 48-144)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kms.h"

#define RATE_HZ		120
#define MIN_HZ		48
#define MAX_HZ		144
#define PACED_FLIPS	20
#define FAST_FLIPS	20
#define OFF_FLIPS	10
#define HOLD_FLIPS	3

static struct kms_dev dev;
static struct kms_pipe kp;	/* the pipe (pipe() is libc's) */
static struct kms_fb fb[2];
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

/* Flips to fb[@i % 2], setting VRR_ENABLED to @vrr unless it is < 0; 0 or -1. */
static int flip(int i, int vrr, struct flip *f)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	struct kms_fence_info info;
	struct kms_event ev;
	int32_t fence = -1;
	int ret;

	ret = req ? kms_req_plane(req, kp.primary_id, &kp.primary_props, kp.crtc_id,
				  &fb[i % 2], -1) : -ENOMEM;
	if (!ret && drmModeAtomicAddProperty(req, kp.crtc_id, kp.crtc_props.out_fence_ptr,
					     (uint64_t)(uintptr_t)&fence) < 0)
		ret = -EINVAL;
	if (!ret && vrr >= 0 &&
	    drmModeAtomicAddProperty(req, kp.crtc_id, vrr_prop, (uint64_t)vrr) < 0)
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
	rule_report(&fence_is_event);
	rule_report(&not_before_flip);
	rule_report(&count_is_refreshes);
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
	/* The core's frame duration, which the driver's period is. */
	period = (int64_t)mode.htotal * mode.vtotal * 1000000 / mode.clock;
	longest = 1000000000 / MIN_HZ;
	require(kms_modeset(&dev, &kp, &mode, &fb[0]) == 0, "a modeset at 120 Hz");
	comment("%s: period %" PRId64 " ns, longest frame %" PRId64 " ns", mode.name, period,
		longest);
	test_vrr(crtc_dir);

	kms_teardown(&dev, &kp, fb);
	return finish();
}
