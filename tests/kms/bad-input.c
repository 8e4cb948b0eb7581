// SPDX-License-Identifier: MIT
/*
 * bad-input: atomic commits that must fail, fail cleanly. Each of these is
 * refused with the errno the DRM uAPI gives it, sends no flip event, leaks no
 * file descriptor and leaves the CRTC flipping normally afterwards:
 *
 *   IN_FENCE_FD of a closed fd or of a pipe        EINVAL (or EBADF)
 *   OUT_FENCE_PTR in read-only memory              EFAULT
 *   a flip (with event and out-fence) on a disabled CRTC   EINVAL
 *   MODE_ID of a mode with clock 0, or with hdisplay 65535
 *     (struct drm_mode_modeinfo.hdisplay is a __u16, so 100000 cannot even
 *     be written; 65535 is far beyond any mode the driver lists)  EINVAL
 *     (a driver other than flipkms whose primary plane may leave part of
 *     the CRTC uncovered and that limits no mode's size, 6.12's vkms,
 *     takes the wide mode: skipped there; flipkms limits its modes)
 *   a property id that does not exist             an error (ENOENT)
 *   a second nonblocking flip while one is pending EBUSY
 *
 * and, on flipkms, modes whose refresh rate reads 30-240 Hz but whose frame
 * duration as the DRM core computes it (drm_calc_timestamping_constants():
 * a signed 32-bit crtc_htotal x crtc_vtotal, with vscan and doublescan
 * folded into crtc_vtotal by drm_mode_set_crtcinfo(), an interlaced one
 * halved twice) is tiny, negative or beyond 240 Hz, committed with no plane
 * as any DRM master can: EINVAL. A vblank timer on such a mode re-fires
 * without end in hard-irq and the guest hangs, so a flip completing after
 * them shows the guest alive. (6.1's vkms takes these modes: the cases are
 * skipped there.)
 *
 * and then 1000 such failing commits in a row change nothing in
 * /proc/self/fd, and each failure after the out-fence was set up leaves -1
 * in the OUT_FENCE_PTR slot.
 *
 * usage: bad-input DRIVER
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

#define FAILING_COMMITS	1000
#define UNKNOWN_PROP	0x7ffffff0u

static struct kms_dev dev;
static struct kms_pipe kpipe;
static struct kms_fb fb[2];
static int base_fds, quiet_ms, closed_fd, pipe_fd[2];
static int32_t *ro_slot;

/* What goes wrong in a commit, on top of a normal primary-plane flip. */
enum fault {
	FAULT_NONE,
	FAULT_IN_FENCE_CLOSED,
	FAULT_IN_FENCE_PIPE,
	FAULT_OUT_FENCE_READONLY,
	FAULT_SRC_BEYOND_FB,
	FAULT_UNKNOWN_PROP,
	NR_FAULTS
};

static const char *const fault_names[] = {
	"none", "in-fence-closed-fd", "in-fence-pipe-fd", "out-fence-readonly",
	"src-beyond-fb", "unknown-property",
};

static void add(drmModeAtomicReq *req, uint32_t obj, uint32_t prop, uint64_t value)
{
	require(prop && drmModeAtomicAddProperty(req, obj, prop, value) >= 0, "atomic property");
}

/*
 * A nonblocking flip with event to fb[@which], with @fault; @out (may be
 * NULL) is the OUT_FENCE_PTR slot for faults that do not replace it.
 */
static int flip(int which, enum fault fault, int32_t *out)
{
	const struct kms_plane_props *p = &kpipe.primary_props;
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	const struct kms_fb *f = &fb[which];
	uint32_t plane = kpipe.primary_id;
	int ret;

	require(req != NULL, "drmModeAtomicAlloc");
	add(req, plane, p->fb_id, f->fb_id);
	add(req, plane, p->crtc_id, kpipe.crtc_id);
	add(req, plane, p->src_x, 0);
	add(req, plane, p->src_y, 0);
	add(req, plane, p->src_w,
	    (uint64_t)(f->width + (fault == FAULT_SRC_BEYOND_FB ? 64 : 0)) << 16);
	add(req, plane, p->src_h, (uint64_t)f->height << 16);
	add(req, plane, p->crtc_x, 0);
	add(req, plane, p->crtc_y, 0);
	add(req, plane, p->crtc_w, f->width);
	add(req, plane, p->crtc_h, f->height);
	if (fault == FAULT_IN_FENCE_CLOSED)
		add(req, plane, p->in_fence_fd, (uint64_t)closed_fd);
	if (fault == FAULT_IN_FENCE_PIPE)
		add(req, plane, p->in_fence_fd, (uint64_t)pipe_fd[0]);
	if (fault == FAULT_OUT_FENCE_READONLY)
		out = ro_slot;
	if (out)
		add(req, kpipe.crtc_id, kpipe.crtc_props.out_fence_ptr, (uint64_t)(uintptr_t)out);
	if (fault == FAULT_UNKNOWN_PROP)
		require(drmModeAtomicAddProperty(req, kpipe.crtc_id, UNKNOWN_PROP, 1) >= 0,
			"atomic property");
	errno = 0;
	ret = drmModeAtomicCommit(dev.fd, req, DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT,
				  (void *)(uintptr_t)0xf11b) ? -errno : 0;
	drmModeAtomicFree(req);
	return ret;
}

/* A valid flip after the failures: it is accepted and its event arrives. */
static void check_crtc_works(const char *name)
{
	struct kms_event ev;
	int ret, got = 0;

	kms_drain_events(&dev, quiet_ms);
	ret = flip(1, FAULT_NONE, NULL);
	if (!ret)
		got = kms_next_event(&dev, 1000, &ev);
	check(name, !ret && got == 1, "expected a valid flip and its event, got %s, %s",
	      errno_name(-ret), got == 1 ? "event" : "no event");
	if (!ret && got == 1)
		ret = flip(0, FAULT_NONE, NULL);
	if (!ret)
		kms_next_event(&dev, 1000, &ev);
}

static void check_no_fd_leak(const char *name)
{
	int n = count_open_fds();

	check(name, n == base_fds, "expected %d open fds, got %d", base_fds, n);
}

/* The commit fails as @want (0: any error), sends no event and leaks no fd. */
static void check_refused(const char *what, enum fault fault, int want, int alt)
{
	char name[96];
	int32_t out = -1;
	int ret, events;

	snprintf(name, sizeof(name), "%s-rejected", what);
	begin(name);
	kms_drain_events(&dev, quiet_ms);
	ret = flip(1, fault, fault == FAULT_OUT_FENCE_READONLY ? NULL : &out);
	comment("%s: commit returned %s", what, errno_name(-ret));
	if (want)
		check(name, ret == -want || (alt && ret == -alt), "expected %s%s%s, got %s",
		      errno_name(want), alt ? " or " : "", alt ? errno_name(alt) : "",
		      errno_name(-ret));
	else
		check(name, ret < 0, "expected an error, got success");
	snprintf(name, sizeof(name), "%s-sends-no-event", what);
	events = kms_drain_events(&dev, quiet_ms);
	check(name, events == 0, "expected no event, got %d", events);
	if (out >= 0)
		close(out);
	snprintf(name, sizeof(name), "%s-leaks-no-fd", what);
	check_no_fd_leak(name);
	snprintf(name, sizeof(name), "crtc-works-after-%s", what);
	check_crtc_works(name);
}

static void test_disabled_crtc(void)
{
	int32_t out = -1;
	int ret;

	begin("flip-on-disabled-crtc");
	require(kms_disable(&dev, &kpipe) == 0, "disable");
	kms_drain_events(&dev, quiet_ms);
	ret = flip(1, FAULT_NONE, &out);
	check("flip-on-disabled-crtc-einval", ret == -EINVAL, "expected EINVAL, got %s",
	      errno_name(-ret));
	check("flip-on-disabled-crtc-out-fence-is-minus-1", out == -1, "expected -1, got %d", out);
	check_int("flip-on-disabled-crtc-sends-no-event", 0, kms_drain_events(&dev, quiet_ms));
	if (out >= 0)
		close(out);
	check_no_fd_leak("flip-on-disabled-crtc-leaks-no-fd");
	require(kms_modeset(&dev, &kpipe, NULL, &fb[0]) == 0, "modeset again");
	check_crtc_works("crtc-works-after-re-enable");
}

/*
 * Whether the driver takes a primary plane smaller than the mode (6.12's
 * vkms does: its planes may be positioned, and it checks no mode's size;
 * 6.1's refuses with EINVAL). Such a vkms has nothing against a 65535
 * pixel wide mode (flipkms, whose planes may be positioned too, checks the
 * mode's size: it is not asked).
 */
static bool primary_may_uncover(void)
{
	struct kms_fb small;
	bool takes;

	require(kms_fb_create(dev.fd, 64, 64, DRM_FORMAT_XRGB8888, 3, &small) == 0, "64x64 fb");
	takes = kms_modeset(&dev, &kpipe, NULL, &small) == 0;
	require(kms_modeset(&dev, &kpipe, NULL, &fb[0]) == 0, "modeset back");
	kms_fb_destroy(dev.fd, &small);
	return takes;
}

static void test_bad_modes(void)
{
	drmModeModeInfo m;
	int ret;

	begin("mode-clock-0-einval");
	m = kpipe.mode;
	m.clock = 0;
	ret = kms_modeset(&dev, &kpipe, &m, &fb[0]);
	check("mode-clock-0-einval", ret == -EINVAL, "expected EINVAL, got %s", errno_name(-ret));

	begin("mode-hdisplay-65535-einval");
	m = kpipe.mode;
	m.hdisplay = m.hsync_start = m.hsync_end = m.htotal = 65535;
	snprintf(m.name, sizeof(m.name), "65535x%u", m.vdisplay);
	if (strcmp(dev.driver, "flipkms") && primary_may_uncover()) {
		skip("mode-hdisplay-65535-einval",
		     "%s lets the primary plane leave part of the CRTC uncovered and limits no mode: it takes this one by design",
		     dev.driver);
	} else {
		ret = kms_modeset(&dev, &kpipe, &m, &fb[0]);
		check("mode-hdisplay-65535-einval", ret == -EINVAL, "expected EINVAL, got %s",
		      errno_name(-ret));
	}

	/* Whatever happened, go back to the preferred mode. */
	require(kms_modeset(&dev, &kpipe, NULL, &fb[0]) == 0, "modeset again");
	check_crtc_works("crtc-works-after-bad-modes");
}

/* A blocking modeset of the CRTC to @mode with no plane on it. 0 or -errno. */
static int modeset_no_plane(const drmModeModeInfo *mode)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint32_t blob = 0;
	int ret;

	require(req != NULL, "drmModeAtomicAlloc");
	require(drmModeCreatePropertyBlob(dev.fd, mode, sizeof(*mode), &blob) == 0, "mode blob");
	add(req, kpipe.connector_id, kpipe.conn_props.crtc_id, kpipe.crtc_id);
	add(req, kpipe.crtc_id, kpipe.crtc_props.mode_id, blob);
	add(req, kpipe.crtc_id, kpipe.crtc_props.active, 1);
	add(req, kpipe.primary_id, kpipe.primary_props.fb_id, 0);
	add(req, kpipe.primary_id, kpipe.primary_props.crtc_id, 0);
	errno = 0;
	ret = drmModeAtomicCommit(dev.fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL) ? -errno : 0;
	drmModeAtomicFree(req);
	drmModeDestroyPropertyBlob(dev.fd, blob);
	return ret;
}

static drmModeModeInfo make_mode(uint32_t clock, uint16_t hd, uint16_t hss, uint16_t hse,
				 uint16_t ht, uint16_t vd, uint16_t vss, uint16_t vse, uint16_t vt,
				 uint16_t vscan, uint32_t flags)
{
	drmModeModeInfo m = {
		.clock = clock, .hdisplay = hd, .hsync_start = hss, .hsync_end = hse,
		.htotal = ht, .vdisplay = vd, .vsync_start = vss, .vsync_end = vse,
		.vtotal = vt, .vscan = vscan, .flags = flags, .type = DRM_MODE_TYPE_USERDEF,
	};

	snprintf(m.name, sizeof(m.name), "%ux%u", hd, vd);
	return m;
}

/*
 * The frame durations in the comments are the core's (32-bit) ones, from
 * its arithmetic compiled on the host; each mode passes
 * drm_mode_validate_basic() and its drm_mode_vrefresh() is in 30-240 Hz.
 */
static void test_bad_timings(void)
{
	static const struct {
		const char *name;
		uint32_t clock;
		uint16_t h[4], v[4], vscan;
		uint32_t flags;
	} bad[] = {
		/* 60 Hz, framedur 8589 ns: a 116 kHz timer */
		{ "vscan-32999-8589ns", 130135516, { 320, 321, 322, 327 }, { 200, 200, 201, 201 },
		  32999, 0 },
		/* 60 Hz, framedur -819044 ns: a timer that never stops */
		{ "vscan-33616-negative", 130136276, { 320, 320, 321, 321 }, { 200, 200, 201, 201 },
		  33616, 0 },
		/* 60 Hz, framedur -759788975 ns */
		{ "dblscan-40000x30000-negative", 144000000, { 1920, 1920, 1920, 40000 },
		  { 1080, 1080, 1080, 30000 }, 0, DRM_MODE_FLAG_DBLSCAN },
		/* 240 Hz by its field rate; the core halves it twice: a 481 Hz timer */
		{ "interlaced-481hz", 50400, { 640, 656, 752, 800 }, { 480, 490, 492, 525 }, 0,
		  DRM_MODE_FLAG_INTERLACE },
		/* harmless periods, but vscan and doublescan are refused outright */
		{ "vscan-2-60hz", 7887, { 320, 321, 322, 327 }, { 200, 200, 201, 201 }, 2, 0 },
		{ "dblscan-60hz", 7887, { 320, 321, 322, 327 }, { 200, 200, 201, 201 }, 0,
		  DRM_MODE_FLAG_DBLSCAN },
		/* 65535 x 65535 overflows an int: drm_mode_vrefresh() reads 0 */
		{ "total-65535x65535", 257698037, { 1920, 1920, 1920, 65535 },
		  { 1080, 1080, 1080, 65535 }, 0, 0 },
	};
	drmModeModeInfo m;
	char name[96];
	unsigned int i;
	int ret;

	if (strcmp(dev.driver, "flipkms")) {
		skip("mode-bad-timings", "%s takes these modes (its vblank timer would hang the guest)",
		     dev.driver);
		return;
	}
	/* The same shape at an honest 60 Hz is taken: the refusals are the timing's. */
	begin("mode-320x200-60hz-accepted");
	m = make_mode(3944, 320, 321, 322, 327, 200, 200, 201, 201, 0, 0);
	ret = modeset_no_plane(&m);
	check("mode-320x200-60hz-accepted", ret == 0, "expected success, got %s", errno_name(-ret));

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(name, sizeof(name), "mode-%s-einval", bad[i].name);
		begin(name);
		m = make_mode(bad[i].clock, bad[i].h[0], bad[i].h[1], bad[i].h[2], bad[i].h[3],
			      bad[i].v[0], bad[i].v[1], bad[i].v[2], bad[i].v[3], bad[i].vscan,
			      bad[i].flags);
		ret = modeset_no_plane(&m);
		check(name, ret == -EINVAL, "expected EINVAL, got %s", errno_name(-ret));
	}

	require(kms_modeset(&dev, &kpipe, NULL, &fb[0]) == 0, "modeset again");
	check_crtc_works("crtc-works-after-bad-timings");
}

/*
 * Right after an event the next vblank is a frame away, so a second flip
 * straight after a first must find it pending. Tries 3 times, so that one
 * descheduled moment of the guest does not decide the result.
 */
static void test_ebusy(void)
{
	int32_t out = -1;
	struct kms_event ev;
	int ret = 0, tries;

	begin("second-flip-while-pending-ebusy");
	for (tries = 1; tries <= 3; tries++) {
		kms_drain_events(&dev, quiet_ms);
		require(flip(1, FAULT_NONE, NULL) == 0 && kms_next_event(&dev, 1000, &ev) == 1,
			"a flip and its event");
		require(flip(0, FAULT_NONE, NULL) == 0, "a flip");
		out = -1;
		ret = flip(1, FAULT_NONE, &out);
		if (ret == -EBUSY)
			break;
		if (!ret && out >= 0)
			close(out);
	}
	check("second-flip-while-pending-ebusy", ret == -EBUSY,
	      "expected EBUSY, got %s (3 tries)", errno_name(-ret));
	check("second-flip-while-pending-out-fence-is-minus-1", ret == -EBUSY && out == -1,
	      "expected EBUSY and -1, got %s and %d", errno_name(-ret), out);
	check_int("second-flip-while-pending-sends-one-event", 1, kms_drain_events(&dev, quiet_ms));
	check_no_fd_leak("second-flip-while-pending-leaks-no-fd");
}

/*
 * FAILING_COMMITS failures in a row: after each pending flip, an EBUSY flip
 * with an out-fence, then the faults of check_refused() in turn.
 */
static void test_many_failures(void)
{
	int failed = 0, succeeded = 0, late = 0, not_reset = 0, events = 0, busy = 0, other = 0;
	int other_err = 0, n, ret, i;
	enum fault fault = FAULT_IN_FENCE_CLOSED;
	char first_reset[64] = "-";
	struct kms_event ev;
	int32_t out;

	begin("many-failing-commits");
	kms_drain_events(&dev, quiet_ms);
	for (i = 0; failed < FAILING_COMMITS && i < 3 * FAILING_COMMITS; i++) {
		if (i % 10 == 0) {
			/* A pending flip, then an EBUSY one with an out-fence. */
			if (i)
				events += kms_next_event(&dev, 1000, &ev) == 1;
			require(flip(i / 10 % 2, FAULT_NONE, NULL) == 0, "a flip");
			out = -1;
			ret = flip((i / 10 + 1) % 2, FAULT_NONE, &out);
			busy += ret == -EBUSY;
			if (ret && ret != -EBUSY && !other++)
				other_err = -ret;
		} else {
			out = -1;
			ret = flip(1, fault, fault == FAULT_OUT_FENCE_READONLY ? NULL : &out);
		}
		if (!ret) {
			/*
			 * An EBUSY probe that came after its pending flip had
			 * already latched (a slow guest) is a valid flip: let
			 * it end and do not count it. Anything else is a bug.
			 */
			if (i % 10)
				succeeded++;
			else
				late++;
			if (out >= 0)
				close(out);
			events += kms_next_event(&dev, 1000, &ev) == 1;
			continue;
		}
		failed++;
		if ((i % 10 == 0 || fault == FAULT_SRC_BEYOND_FB) && out != -1 && !not_reset++)
			snprintf(first_reset, sizeof(first_reset), "%d after %s", out,
				 i % 10 ? fault_names[fault] : "EBUSY");
		if (i % 10)
			fault = fault + 1 == NR_FAULTS ? FAULT_IN_FENCE_CLOSED : fault + 1;
	}
	kms_drain_events(&dev, quiet_ms);
	comment("%d failing commits (%d EBUSY), %d invalid commits accepted, %d EBUSY probes "
		"too late to find their flip pending, in %d tries", failed, busy, succeeded, late, i);
	check("many-failing-commits-fail", failed == FAILING_COMMITS && !succeeded,
	      "expected %d failures and no invalid commit accepted, got %d failures and %d accepted",
	      FAILING_COMMITS, failed, succeeded);
	check("many-failing-commits-ebusy-probes", busy > 0 && !other,
	      "expected EBUSY (or, if too late, success) for each flip straight after a flip, "
	      "got %d EBUSY, %d late, %d other errors (first %s)", busy, late, other,
	      errno_name(other_err));
	check("many-failing-commits-out-fence-is-minus-1", !not_reset,
	      "expected -1 in OUT_FENCE_PTR after each failure, got %d otherwise (first %s)",
	      not_reset, first_reset);
	n = count_open_fds();
	check("many-failing-commits-leak-no-fds", n == base_fds,
	      "expected %d open fds after %d failing commits, got %d", base_fds, failed, n);
	check_crtc_works("crtc-works-after-many-failing-commits");
}

int main(int argc, char **argv)
{
	int k;

	watchdog(40);
	begin("setup");
	require(kms_open(&dev, kms_driver_arg(argc, argv), KMS_CAP_ATOMIC) == 0, "open card");
	require(kms_pipes(&dev, &kpipe, 1) == 1, "a connected pipe");
	require(kpipe.crtc_props.out_fence_ptr && kpipe.primary_props.in_fence_fd,
		"OUT_FENCE_PTR and IN_FENCE_FD properties");
	for (k = 0; k < 2; k++)
		require(kms_fb_create(dev.fd, kpipe.mode.hdisplay, kpipe.mode.vdisplay,
				      DRM_FORMAT_XRGB8888, (unsigned int)k, &fb[k]) == 0,
			"dumb framebuffers");
	require(kms_modeset(&dev, &kpipe, NULL, &fb[0]) == 0, "modeset");
	quiet_ms = (int)(3 * kms_mode_period_ns(&kpipe.mode) / 1e6) + 1;

	/* An fd number that is certainly not open, a pipe, a read-only page. */
	for (closed_fd = 900; fcntl(closed_fd, F_GETFD) != -1 || errno != EBADF; closed_fd++)
		;
	require(pipe2(pipe_fd, O_CLOEXEC) == 0, "pipe");
	ro_slot = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	require(ro_slot != MAP_FAILED, "read-only mapping");
	check_crtc_works("crtc-works-before");
	base_fds = count_open_fds();

	check_refused("in-fence-closed-fd", FAULT_IN_FENCE_CLOSED, EINVAL, EBADF);
	check_refused("in-fence-pipe-fd", FAULT_IN_FENCE_PIPE, EINVAL, EBADF);
	check_refused("out-fence-readonly", FAULT_OUT_FENCE_READONLY, EFAULT, 0);
	check_refused("unknown-property", FAULT_UNKNOWN_PROP, 0, 0);
	check_refused("src-beyond-fb", FAULT_SRC_BEYOND_FB, 0, 0);
	test_disabled_crtc();
	test_bad_modes();
	test_bad_timings();
	test_ebusy();
	test_many_failures();

	kms_drain_events(&dev, quiet_ms);
	kms_disable(&dev, &kpipe);
	kms_fb_destroy(dev.fd, &fb[0]);
	kms_fb_destroy(dev.fd, &fb[1]);
	kms_close(&dev);
	return finish();
}
