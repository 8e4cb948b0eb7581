// SPDX-License-Identifier: MIT
/*
 * params: the shape flipkms's module parameters gave the device, as a
 * client sees it (tests/kms/params.sh loads each shape):
 *
 *   crtcs, connectors	-o OUTPUTS of each, every connector connected
 *   crtc-<i>-planes	the planes that can show on CRTC i (possible_crtcs)
 *			are its own: one primary, -v OVERLAYS overlays and,
 *			with -c 1, one cursor (none with -c 0); no plane is
 *			shared between CRTCs
 *   crtc-<i>-flips	every CRTC sets its preferred mode and flips with an
 *			out-fence that signals, all of them at once
 *
 * usage: params -o OUTPUTS -v OVERLAYS -c 0|1 flipkms
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

#define MAX_OUTPUTS	4

/* Counts, per CRTC index, the planes of each type that can show on it. */
static void count_planes(int fd, int ncrtcs, int counts[][3], int *shared)
{
	drmModePlaneRes *res = drmModeGetPlaneResources(fd);
	drmModePlane *plane;
	uint64_t type;
	uint32_t i;
	int c;

	require(res != NULL, "drmModeGetPlaneResources");
	*shared = 0;
	for (i = 0; i < res->count_planes; i++) {
		plane = drmModeGetPlane(fd, res->planes[i]);
		require(plane != NULL, "drmModeGetPlane");
		require(kms_prop_get(fd, plane->plane_id, DRM_MODE_OBJECT_PLANE, "type", &type) == 0 &&
			type <= DRM_PLANE_TYPE_CURSOR, "plane type");
		*shared += __builtin_popcount(plane->possible_crtcs) != 1;
		for (c = 0; c < ncrtcs; c++)
			if (plane->possible_crtcs & (1u << c))
				counts[c][type]++;
		drmModeFreePlane(plane);
	}
	drmModeFreePlaneResources(res);
}

int main(int argc, char **argv)
{
	int outputs = -1, overlays = -1, cursor = -1, opt, i, n, shared, got;
	int counts[MAX_OUTPUTS][3] = { { 0 } };
	struct kms_pipe pipes[MAX_OUTPUTS];
	struct kms_fb fb[MAX_OUTPUTS];
	int32_t out[MAX_OUTPUTS];
	struct kms_event ev;
	struct kms_dev dev;
	drmModeRes *res;
	char name[64];

	while ((opt = getopt(argc, argv, "o:v:c:")) != -1) {
		if (opt == 'o')
			outputs = atoi(optarg);
		else if (opt == 'v')
			overlays = atoi(optarg);
		else if (opt == 'c')
			cursor = atoi(optarg);
	}
	if (outputs < 1 || outputs > MAX_OUTPUTS || overlays < 0 || cursor < 0 || cursor > 1) {
		fprintf(stderr, "usage: %s -o OUTPUTS -v OVERLAYS -c 0|1 flipkms\n", argv[0]);
		return 2;
	}
	watchdog(40);
	begin("setup");
	require(kms_open(&dev, kms_driver_arg(argc, argv), KMS_CAP_ATOMIC) == 0, "open flipkms");
	res = drmModeGetResources(dev.fd);
	require(res != NULL, "drmModeGetResources");
	check_int("crtcs", outputs, res->count_crtcs);
	check_int("connectors", outputs, res->count_connectors);
	n = res->count_crtcs < MAX_OUTPUTS ? res->count_crtcs : MAX_OUTPUTS;
	drmModeFreeResources(res);

	count_planes(dev.fd, n, counts, &shared);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "crtc-%d-planes", i);
		check(name, counts[i][DRM_PLANE_TYPE_PRIMARY] == 1 &&
		      counts[i][DRM_PLANE_TYPE_OVERLAY] == overlays &&
		      counts[i][DRM_PLANE_TYPE_CURSOR] == cursor,
		      "expected 1 primary, %d overlays, %d cursor; got %d, %d, %d", overlays, cursor,
		      counts[i][DRM_PLANE_TYPE_PRIMARY], counts[i][DRM_PLANE_TYPE_OVERLAY],
		      counts[i][DRM_PLANE_TYPE_CURSOR]);
	}
	check_int("no-plane-shared-between-crtcs", 0, shared);

	begin("connected-connectors");
	n = kms_pipes(&dev, pipes, MAX_OUTPUTS);
	check_int("connected-connectors", outputs, n);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "crtc-%d-flips", pipes[i].crtc_index);
		begin(name);
		require(kms_fb_create(dev.fd, pipes[i].mode.hdisplay, pipes[i].mode.vdisplay,
				      DRM_FORMAT_XRGB8888, i, &fb[i]) == 0, "framebuffer");
		require(kms_modeset(&dev, &pipes[i], NULL, &fb[i]) == 0, "modeset");
	}
	/* Every CRTC flips at once; each out-fence signals with its flip. */
	for (i = 0; i < n; i++) {
		out[i] = -1;
		snprintf(name, sizeof(name), "crtc-%d-flips", pipes[i].crtc_index);
		begin(name);
		require(kms_flip(&dev, &pipes[i], &fb[i], &out[i], -1, i) == 0 && out[i] >= 0,
			"flip with an out-fence");
	}
	for (got = 0; got < n && kms_next_event(&dev, 5000, &ev) == 1;)
		got += ev.type == DRM_EVENT_FLIP_COMPLETE;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "crtc-%d-flips", pipes[i].crtc_index);
		check(name, got == n && sync_wait(out[i], 1000) == 0,
		      "expected %d flip events and this CRTC's out-fence signalled, got %d events", n,
		      got);
		close(out[i]);
	}
	for (i = 0; i < n; i++) {
		kms_disable(&dev, &pipes[i]);
		kms_fb_destroy(dev.fd, &fb[i]);
	}
	kms_close(&dev);
	return finish();
}
