// SPDX-License-Identifier: MIT
/*
 * victim: a client caught in the middle of everything, for faults.sh to
 * kill -9: flipkms's display set, a nonblocking flip pending behind an
 * IN_FENCE_FD that nothing will signal, its out-fence being waited for by
 * one thread, a sw_sync fence being waited for by another, and the sw_sync
 * timelines open. Prints "ready" once all of that is in place, then sleeps.
 *
 * With "hold", it only holds one flipkms out-fence and one sw_sync fence
 * open (for module unload checks) and prints "ready".
 *
 * usage: victim [hold]
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

static void *wait_forever(void *arg)
{
	struct pollfd p = { .fd = *(int *)arg, .events = POLLIN };

	for (;;)
		poll(&p, 1, -1);
	return NULL;
}

int main(int argc, char **argv)
{
	bool hold = argc > 1 && !strcmp(argv[1], "hold");
	int tl, render, sw_tl, sw_fence;
	struct kms_pipe pipe;
	struct kms_fb fb[2];
	struct kms_dev dev;
	struct kms_event ev;
	pthread_t t1, t2;
	int32_t out = -1;

	begin("setup");
	require(kms_open(&dev, "flipkms", KMS_CAP_ATOMIC) == 0, "open flipkms");
	require(kms_pipes(&dev, &pipe, 1) == 1, "a pipe");
	require(kms_fb_create(dev.fd, pipe.mode.hdisplay, pipe.mode.vdisplay, DRM_FORMAT_XRGB8888,
			      1, &fb[0]) == 0 &&
		kms_fb_create(dev.fd, pipe.mode.hdisplay, pipe.mode.vdisplay, DRM_FORMAT_XRGB8888,
			      2, &fb[1]) == 0, "framebuffers");
	require(kms_modeset(&dev, &pipe, NULL, &fb[0]) == 0, "modeset");
	sw_tl = sw_sync_timeline_create();
	sw_fence = sw_sync_fence_create(sw_tl, "victim", 1);
	require(sw_tl >= 0 && sw_fence >= 0, "sw_sync fence");

	if (hold) {
		require(kms_flip(&dev, &pipe, &fb[1], &out, -1, 1) == 0 && out >= 0, "flip");
		require(kms_next_event(&dev, 5000, &ev) == 1, "flip event");
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}

	tl = sw_sync_timeline_create();
	render = sw_sync_fence_create(tl, "never", 1);
	require(tl >= 0 && render >= 0, "in-fence");
	require(kms_flip(&dev, &pipe, &fb[1], &out, render, 1) == 0 && out >= 0,
		"flip behind an in-fence");
	require(!pthread_create(&t1, NULL, wait_forever, &out) &&
		!pthread_create(&t2, NULL, wait_forever, &sw_fence), "waiters");
	sleep_ms(100);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
