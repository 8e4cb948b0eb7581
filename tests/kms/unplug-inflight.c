// SPDX-License-Identifier: MIT
/*
 * unplug-inflight: a configfs device disabled (unplugged) while work it
 * started is still in flight (issue #29). The debug runner fails the test
 * on any splat, KASAN report or kmemleak leak, which is what these catch:
 *
 *   standin-outlives-device	an in-fence stand-in (infence_timeout_ms)
 *				left armed by a commit that failed (a signal
 *				interrupted its wait for the fence) times out
 *				after the client closed and the device was
 *				disabled, i.e. after the DRM device is freed
 *   flip-outlives-unplug	a nonblocking flip behind an unsignalled
 *				in-fence with a 60 s stand-in, the device
 *				disabled, the fence signalled after: the
 *				unplug lets the flip go ahead instead of
 *				waiting out the atomic helpers' timeouts (on
 *				6.1, 30 s: the guest's hung-task check
 *				panics), and its out-fence signals
 *   flip-unbounded-outlives-unplug  (-s, slow, not in make check) the same
 *				with no bound: the unplug waits out the
 *				helpers' timeouts, the commit outlives it and
 *				runs when the fence signals; needs a guest
 *				whose hung-task timeout is above 30 s
 *   enable-again, remove	the device comes back and goes away as usual
 *
 * usage: unplug-inflight [-s] flipkms   (as root, in the guest, through
 * tests/kms/with-module.sh [-a] flipkms so that flipkms must unload after it)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

#define ROOT	"/sys/kernel/config/flipkms/u"
#define TIMEOUT	"/sys/module/flipkms/parameters/infence_timeout_ms"
/* The stand-in's bound: the test waits it out once the device is gone. */
#define STANDIN_MS	1500

/* A one-output device: crtc c, primary plane p, encoder e, connector n. */
static int build_device(void)
{
	static const char *const dirs[] = { "", "/crtcs/c", "/planes/p", "/encoders/e",
					    "/connectors/n" };
	static const char *const links[][2] = {
		{ "/planes/p/possible_crtcs/c", "crtcs/c" },
		{ "/encoders/e/possible_crtcs/c", "crtcs/c" },
		{ "/connectors/n/possible_encoders/e", "encoders/e" },
	};
	char path[256], to[256];

	for (unsigned int i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), ROOT "%s", dirs[i]);
		if (mkdir(path, 0755))
			return -errno;
	}
	if (write_text(ROOT "/planes/p/type", "1"))
		return -EINVAL;
	for (unsigned int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), ROOT "%s", links[i][0]);
		snprintf(to, sizeof(to), ROOT "/%s", links[i][1]);
		if (symlink(to, path))
			return -errno;
	}
	return 0;
}

static void remove_device(void)
{
	static const char *const paths[] = {
		"/planes/p/possible_crtcs/c", "/encoders/e/possible_crtcs/c",
		"/connectors/n/possible_encoders/e",
	};
	static const char *const dirs[] = { "/planes/p", "/connectors/n", "/encoders/e",
					    "/crtcs/c", "" };
	char path[256];

	write_text(ROOT "/enabled", "0");
	for (unsigned int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), ROOT "%s", paths[i]);
		unlink(path);
	}
	for (unsigned int i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), ROOT "%s", dirs[i]);
		rmdir(path);
	}
}

/* Enables the device and opens its card, lit with @fb[0]. 0 or -1. */
static int light(struct kms_dev *kd, struct kms_pipe *pipe, struct kms_fb fb[2])
{
	const char *dir = "/sys/devices/platform/flipkms-u/drm";
	struct dirent *d;
	DIR *drm;

	if (write_text(ROOT "/enabled", "1"))
		return -1;
	memset(kd, 0, sizeof(*kd));
	kd->fd = -1;
	drm = opendir(dir);
	while (drm && (d = readdir(drm)))
		if (!strncmp(d->d_name, "card", 4))
			snprintf(kd->path, sizeof(kd->path), "/dev/dri/%.20s", d->d_name);
	if (drm)
		closedir(drm);
	/* devtmpfs makes the node as the card registers; give it a moment. */
	for (int i = 0; i < 20 && kd->path[0] && kd->fd < 0; i++) {
		kd->fd = open(kd->path, O_RDWR | O_CLOEXEC);
		if (kd->fd < 0)
			sleep_ms(50);
	}
	snprintf(kd->driver, sizeof(kd->driver), "flipkms");
	if (kd->fd < 0 || drmSetClientCap(kd->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1) ||
	    drmSetClientCap(kd->fd, DRM_CLIENT_CAP_ATOMIC, 1) || kms_pipes(kd, pipe, 1) != 1)
		return -1;
	for (int i = 0; i < 2; i++)
		if (kms_fb_create(kd->fd, pipe->mode.hdisplay, pipe->mode.vdisplay,
				  DRM_FORMAT_XRGB8888, (unsigned int)i, &fb[i]))
			return -1;
	return kms_modeset(kd, pipe, NULL, &fb[0]) ? -1 : 0;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * A blocking flip to @fb behind @fence, with the raw ioctl (libdrm's
 * drmIoctl() would restart it): a signal interrupts its wait for the
 * fence, so it fails after prepare_fb made the stand-in. -errno.
 */
static int interrupted_flip(struct kms_dev *kd, const struct kms_pipe *pipe,
			    const struct kms_fb *fb, int fence)
{
	uint32_t objs[1] = { pipe->primary_id }, counts[1] = { 2 };
	uint32_t props[2] = { pipe->primary_props.fb_id, pipe->primary_props.in_fence_fd };
	uint64_t values[2] = { fb->fb_id, (uint64_t)fence };
	struct drm_mode_atomic arg = {
		.count_objs = 1,
		.objs_ptr = (uintptr_t)objs,
		.count_props_ptr = (uintptr_t)counts,
		.props_ptr = (uintptr_t)props,
		.prop_values_ptr = (uintptr_t)values,
	};
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	int ret;

	sigaction(SIGALRM, &sa, NULL);
	alarm(1);
	ret = ioctl(kd->fd, DRM_IOCTL_MODE_ATOMIC, &arg) ? -errno : 0;
	alarm(0);
	return ret;
}

static void check_standin(void)
{
	struct kms_fb fb[2];
	struct kms_pipe pipe;
	struct kms_dev kd;
	int tl, fence, ret;
	char ms[16];

	begin("standin-outlives-device");
	snprintf(ms, sizeof(ms), "%d", STANDIN_MS);
	require(write_text(TIMEOUT, ms) == 0, "set " TIMEOUT);
	require(light(&kd, &pipe, fb) == 0, "enable u and light its card");
	tl = sw_sync_timeline_create();
	fence = tl >= 0 ? sw_sync_fence_create(tl, "unplug-inflight", 1) : -1;
	require(fence >= 0, "sw_sync fence");
	ret = interrupted_flip(&kd, &pipe, &fb[1], fence);
	close(fence);
	close(kd.fd);
	check_int("standin-flip-interrupted", -EINTR, ret);
	check_succeeds("standin-disable", write_text(ROOT "/enabled", "0"), errno);
	/* The stand-in's timer fires now, the DRM device gone. */
	sleep_ms(STANDIN_MS + 500);
	close(tl);
	check_succeeds("standin-outlives-device", write_text(TIMEOUT, "0"), errno);
}

/* @bound_ms: infence_timeout_ms for the flip, "0" for none. */
static void check_inflight_flip(const char *name, const char *bound_ms)
{
	struct kms_fb fb[2];
	struct kms_pipe pipe;
	struct kms_dev kd;
	char what[3][64];
	int32_t out = -1;
	int tl, fence, ret;
	int64_t t0;

	snprintf(what[0], sizeof(what[0]), "%s-flip-accepted", name);
	snprintf(what[1], sizeof(what[1]), "%s-disable", name);
	snprintf(what[2], sizeof(what[2]), "%s-out-fence-signals", name);
	begin(name);
	require(write_text(TIMEOUT, bound_ms) == 0, "set " TIMEOUT);
	require(light(&kd, &pipe, fb) == 0, "enable u and light its card");
	tl = sw_sync_timeline_create();
	fence = tl >= 0 ? sw_sync_fence_create(tl, "unplug-inflight", 1) : -1;
	require(fence >= 0, "sw_sync fence");
	ret = kms_flip(&kd, &pipe, &fb[1], &out, fence, 1);
	close(fence);
	check_int(what[0], 0, ret);
	/* Its tail waits for the fence now: the helpers have taken it. */
	sleep_ms(100);
	t0 = now_ns();
	ret = write_text(ROOT "/enabled", "0");
	printf("# disable took %.1f s\n", (double)(now_ns() - t0) / 1e9);
	check_int(what[1], 0, ret);
	/* An unbounded flip's tail runs now, after the unplug. */
	sw_sync_timeline_inc(tl, 1);
	check(what[2], out >= 0 && sync_wait(out, 2000) == 0,
	      "out-fence %d not signalled 2 s after the in-fence", out);
	close(tl);
	if (out >= 0)
		close(out);
	close(kd.fd);
	check(name, access(kd.path, F_OK) != 0, "%s still there", kd.path);
	write_text(TIMEOUT, "0");
}

int main(int argc, char **argv)
{
	struct kms_fb fb[2];
	struct kms_pipe pipe;
	struct kms_dev kd;
	bool slow = false;
	int opt;

	while ((opt = getopt(argc, argv, "s")) != -1) {
		if (opt != 's')
			goto usage;
		slow = true;
	}
	if (!kms_driver_arg(argc, argv) || strcmp(kms_driver_arg(argc, argv), "flipkms"))
		goto usage;
	watchdog(slow ? 110 : 40);
	if (access("/sys/kernel/config/flipkms", F_OK))
		mount("none", "/sys/kernel/config", "configfs", 0, NULL);
	require(access("/sys/kernel/config/flipkms", F_OK) == 0, "configfs has no flipkms/");
	atexit(remove_device);
	require(build_device() == 0, "build flipkms/u");

	check_standin();
	check_inflight_flip("flip-outlives-unplug", "60000");
	if (slow)
		check_inflight_flip("flip-unbounded-outlives-unplug", "0");

	begin("enable-again");
	check("enable-again", light(&kd, &pipe, fb) == 0, "enable u and light its card again");
	close(kd.fd);
	begin("remove");
	remove_device();
	check("remove", access(ROOT, F_OK) != 0, ROOT " still there");
	return finish();
usage:
	fprintf(stderr, "usage: unplug-inflight [-s] flipkms\n");
	return 2;
}
