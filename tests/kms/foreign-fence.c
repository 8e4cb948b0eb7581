// SPDX-License-Identifier: MIT
/*
 * foreign-fence: flipkms honours in-fences made by other drivers, the way a
 * compositor hands one GPU's or display's fence to another:
 *
 *   vkms-out-fence	a flip on mainline vkms gives an out-fence; used as
 *			flipkms's IN_FENCE_FD, the flipkms flip lands only
 *			after it signalled (event time >= its timestamp)
 *   merged		SYNC_IOC_MERGE of that kind of fence with an unsignalled
 *			sw_sync fence: the flipkms flip waits for the sw_sync
 *			one too, and completes once it is signalled
 *   flipkms-out-fence	flipkms's own out-fence as the next flip's in-fence
 *   pending-to-vkms	flipkms's out-fence, held pending 200 ms past its
 *			vblank by signal_delay_us, as a vkms flip's in-fence:
 *			when vkms's event is read (before flipkms's), the
 *			fence has signalled, stamped no later than the event
 *   pending-to-self	with signal_delay_us, flipkms's out-fence is pending
 *			after its event; as the next flipkms flip's in-fence,
 *			that flip lands at a vblank after the fence's stamp
 *
 * Needs vkms loaded next to flipkms (tests/kms/with-module.sh vkms -- ...).
 *
 * usage: foreign-fence
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

struct display {
	struct kms_dev dev;
	struct kms_pipe pipe;
	struct kms_fb fb[2];
};

static void display_open(struct display *d, const char *driver)
{
	unsigned int k;

	require(kms_open(&d->dev, driver, KMS_CAP_ATOMIC) == 0, driver);
	require(kms_pipes(&d->dev, &d->pipe, 1) == 1, "a connected pipe");
	for (k = 0; k < 2; k++)
		require(kms_fb_create(d->dev.fd, d->pipe.mode.hdisplay, d->pipe.mode.vdisplay,
				      DRM_FORMAT_XRGB8888, k, &d->fb[k]) == 0, "framebuffers");
	require(kms_modeset(&d->dev, &d->pipe, NULL, &d->fb[0]) == 0, "modeset");
}

static void display_close(struct display *d)
{
	kms_disable(&d->dev, &d->pipe);
	kms_fb_destroy(d->dev.fd, &d->fb[0]);
	kms_fb_destroy(d->dev.fd, &d->fb[1]);
	kms_close(&d->dev);
}

/* A flip's event, or a failed setup. */
static void flip_event(struct display *d, struct kms_event *ev)
{
	require(kms_next_event(&d->dev, 5000, ev) == 1 && ev->type == DRM_EVENT_FLIP_COMPLETE,
		"flip event");
}

/* A flip on @d whose out-fence is returned (still pending, most likely). */
static int pending_out_fence(struct display *d, int k)
{
	int32_t out = -1;

	require(kms_flip(&d->dev, &d->pipe, &d->fb[k & 1], &out, -1, k) == 0 && out >= 0,
		"flip with out-fence");
	return out;
}

static void test_vkms_fence(struct display *fk, struct display *vk)
{
	struct kms_fence_info info;
	struct kms_event ev, vev;
	int in;

	begin("vkms-out-fence-as-in-fence");
	in = pending_out_fence(vk, 1);
	require(kms_fence_info(in, &info) == 0, "vkms fence info");
	comment("vkms fence: driver \"%s\", timeline \"%s\"", info.driver_name, info.obj_name);
	check_int("vkms-out-fence-accepted", 0, kms_flip(&fk->dev, &fk->pipe, &fk->fb[1], NULL, in, 1));
	flip_event(fk, &ev);
	flip_event(vk, &vev);
	require(sync_wait(in, 1000) == 0 && kms_fence_info(in, &info) == 0, "vkms fence signalled");
	check("flip-lands-after-vkms-fence", ev.time_us * 1000 >= info.timestamp_ns - 1000,
	      "expected the flipkms event (%lld us) after the vkms fence (%lld ns)",
	      (long long)ev.time_us, (long long)info.timestamp_ns);
	close(in);
}

static void test_merged(struct display *fk, struct display *vk)
{
	int tl, sw, vf, merged, ret;
	struct kms_event ev;
	int64_t t_inc;

	begin("merged-foreign-fence");
	tl = sw_sync_timeline_create();
	require(tl >= 0, "sw_sync timeline");
	sw = sw_sync_fence_create(tl, "renderer", 1);
	vf = pending_out_fence(vk, 0);
	merged = sync_merge("vkms+sw_sync", vf, sw);
	require(sw >= 0 && merged >= 0, "merged fence");
	flip_event(vk, &ev);
	close(vf);
	close(sw);

	check_int("merged-fence-accepted", 0,
		  kms_flip(&fk->dev, &fk->pipe, &fk->fb[0], NULL, merged, 2));
	ret = kms_next_event(&fk->dev, 200, &ev);
	check("flip-waits-for-sw-sync-half", ret == 0,
	      "expected no flip while the sw_sync fence is pending, got %s",
	      ret == 1 ? "a flip event" : errno_name(errno));
	t_inc = now_ns();
	require(sw_sync_timeline_inc(tl, 1) == 0, "signal the sw_sync fence");
	flip_event(fk, &ev);
	check("flip-lands-after-sw-sync-signal", ev.time_us * 1000 >= t_inc - 1000,
	      "expected the event (%lld us) after the signal (%lld ns)",
	      (long long)ev.time_us, (long long)t_inc);
	close(merged);
	close(tl);
}

/* Fence @in signalled, and before the flip of @ev: a failed check @name if not. */
static void check_signalled_before(const char *name, int in, const struct kms_event *ev)
{
	struct kms_fence_info info;
	bool signalled = kms_fence_info(in, &info) == 0 && info.status == 1;

	check(name, signalled && ev->time_us * 1000 >= info.timestamp_ns,
	      "expected the fence (status %d, %lld ns) to precede the event (%lld us)",
	      info.status, (long long)info.timestamp_ns, (long long)ev->time_us);
}

static void test_own_fence(struct display *fk)
{
	struct kms_event ev;
	int in;

	begin("flipkms-out-fence-as-in-fence");
	in = pending_out_fence(fk, 1);
	flip_event(fk, &ev);
	check_int("own-out-fence-accepted", 0,
		  kms_flip(&fk->dev, &fk->pipe, &fk->fb[0], NULL, in, 3));
	flip_event(fk, &ev);
	check_signalled_before("own-out-fence-signalled-first", in, &ev);
	close(in);
}

/*
 * With signal_delay_us, flipkms's out-fence stays pending for 200 ms after
 * the vblank that latched its flip, and is stamped with that later time: a
 * vkms flip that waited for it cannot complete before that stamp, one that
 * ignored it completes within a vkms frame, long before. vkms's event is
 * read first, and the fence looked at right after it, before anything of
 * flipkms's. vkms stamps an event with the ideal time of the vblank whose
 * (possibly late) timer callback sent it, up to a period before the flush:
 * hence one vkms period of slack, far below the 200 ms.
 */
static void test_pending_to_vkms(struct display *fk, struct display *vk)
{
	struct kms_fence_info info = { 0 };
	struct kms_event ev, vev;
	char crtc_dir[96];
	int64_t slack = (int64_t)kms_mode_period_ns(&vk->pipe.mode) + 1000;
	int in, ret, status;

	begin("pending-flipkms-fence-as-vkms-in-fence");
	require(kms_crtc_debugfs_dir(&fk->dev, &fk->pipe, crtc_dir, sizeof(crtc_dir)) == 0 &&
		kms_crtc_control(crtc_dir, "signal_delay_us", "200000") == 0,
		"write signal_delay_us");
	in = pending_out_fence(fk, 4);
	ret = kms_flip(&vk->dev, &vk->pipe, &vk->fb[1], NULL, in, 4);
	check_int("pending-flipkms-fence-accepted-by-vkms", 0, ret);
	if (!ret) {
		flip_event(vk, &vev);
		status = kms_fence_info(in, &info) ? -1 : info.status;
		check("vkms-flip-waits-for-pending-flipkms-fence",
		      status == 1 && vev.time_us * 1000 + slack >= info.timestamp_ns,
		      "expected the flipkms fence signalled (status 1) and stamped before the vkms event (%lld us, slack %lld ns), got status %d stamped %lld ns",
		      (long long)vev.time_us, (long long)slack, status,
		      (long long)info.timestamp_ns);
	}
	flip_event(fk, &ev);
	kms_crtc_control(crtc_dir, "signal_delay_us", "0");
	require(sync_wait(in, 1000) == 0, "the delayed flipkms fence signals");
	close(in);
}

static void test_pending_to_self(struct display *fk)
{
	struct kms_event ev;
	char crtc_dir[96];
	int in, pending, ret;

	begin("pending-flipkms-fence-as-own-in-fence");
	require(kms_crtc_debugfs_dir(&fk->dev, &fk->pipe, crtc_dir, sizeof(crtc_dir)) == 0 &&
		kms_crtc_control(crtc_dir, "signal_delay_us", "300000") == 0,
		"write signal_delay_us");
	in = pending_out_fence(fk, 5);
	flip_event(fk, &ev);
	pending = kms_fence_polled(in) == 0;
	kms_crtc_control(crtc_dir, "signal_delay_us", "0");
	require(pending, "the out-fence pending 300 ms after its event");
	ret = kms_flip(&fk->dev, &fk->pipe, &fk->fb[0], NULL, in, 6);
	check_int("pending-own-out-fence-accepted", 0, ret);
	if (ret) {
		close(in);
		return;
	}
	flip_event(fk, &ev);
	check_signalled_before("flip-lands-after-pending-own-fence", in, &ev);
	close(in);
}

int main(void)
{
	struct display fk, vk;

	watchdog(60);
	begin("setup");
	display_open(&fk, "flipkms");
	display_open(&vk, "vkms");

	test_vkms_fence(&fk, &vk);
	test_merged(&fk, &vk);
	test_own_fence(&fk);
	test_pending_to_vkms(&fk, &vk);
	test_pending_to_self(&fk);

	display_close(&vk);
	display_close(&fk);
	return finish();
}
