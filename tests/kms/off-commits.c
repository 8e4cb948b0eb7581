// SPDX-License-Identifier: MIT
/*
 * off-commits: a commit that leaves a CRTC off, off before and after
 * (ACTIVE=0 again, or MODE_ID cleared again), shows nothing and signals
 * nothing, so on flipkms it spends nothing either: the flips counter of
 * flipkms_status does not move and an injected fence_error waits for the
 * next commit really latched, which is then the modeset turning the CRTC
 * on: its out-fence fails with that error. The flip after it signals
 * cleanly.
 *
 * usage: off-commits flipkms
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kms.h"

static struct kms_dev dev;
static struct kms_pipe pipe_;
static struct kms_fb fb[2];
static char crtc_dir[96];

/* flipkms_status's "flips" of the pipe's CRTC, or -1. */
static long long flips_latched(void)
{
	struct kms_crtc_status st;

	kms_crtc_status(crtc_dir, pipe_.crtc_index, &st);
	return st.flips;
}

/* The fence_error control as it reads now, or -1. */
static long fence_error_left(void)
{
	char path[160];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/fence_error", crtc_dir);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* An off -> off commit of the CRTC: ACTIVE=0, and MODE_ID=0 if @mode_too. */
static int commit_off(bool mode_too)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret = 0;

	require(req != NULL, "drmModeAtomicAlloc");
	if (drmModeAtomicAddProperty(req, pipe_.crtc_id, pipe_.crtc_props.active, 0) < 0 ||
	    (mode_too && drmModeAtomicAddProperty(req, pipe_.crtc_id, pipe_.crtc_props.mode_id, 0) < 0))
		ret = -ENOMEM;
	if (!ret && drmModeAtomicCommit(dev.fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL))
		ret = -errno;
	drmModeAtomicFree(req);
	return ret;
}

/* A blocking modeset turning the pipe on, with an out-fence and an event. */
static int enable_with_fence(int32_t *fence)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint32_t blob = 0;
	int ret = 0;

	require(req != NULL, "drmModeAtomicAlloc");
	require(drmModeCreatePropertyBlob(dev.fd, &pipe_.mode, sizeof(pipe_.mode), &blob) == 0,
		"mode blob");
	if (drmModeAtomicAddProperty(req, pipe_.connector_id, pipe_.conn_props.crtc_id,
				     pipe_.crtc_id) < 0 ||
	    drmModeAtomicAddProperty(req, pipe_.crtc_id, pipe_.crtc_props.mode_id, blob) < 0 ||
	    drmModeAtomicAddProperty(req, pipe_.crtc_id, pipe_.crtc_props.active, 1) < 0 ||
	    drmModeAtomicAddProperty(req, pipe_.crtc_id, pipe_.crtc_props.out_fence_ptr,
				     (uint64_t)(uintptr_t)fence) < 0)
		ret = -ENOMEM;
	if (!ret)
		ret = kms_req_plane(req, pipe_.primary_id, &pipe_.primary_props, pipe_.crtc_id,
				    &fb[0], -1);
	if (!ret && drmModeAtomicCommit(dev.fd, req,
					DRM_MODE_ATOMIC_ALLOW_MODESET | DRM_MODE_PAGE_FLIP_EVENT,
					(void *)(uintptr_t)0x0ff))
		ret = -errno;
	drmModeAtomicFree(req);
	drmModeDestroyPropertyBlob(dev.fd, blob);
	return ret;
}

/* The status of @fence once it signalled (1, or the error), or 0. */
static int fence_status(int32_t fence)
{
	struct kms_fence_info info;

	if (fence < 0)
		return 0;
	/* Fails with the fence's error too: the status tells. */
	sync_wait(fence, 2000);
	if (kms_fence_info(fence, &info))
		return 0;
	return info.status;
}

int main(int argc, char **argv)
{
	long long before, after;
	int32_t fence = -1;
	struct kms_event ev;
	int ret, status;
	long left;

	watchdog(45);
	kms_flipkms_setup(kms_driver_arg(argc, argv), "usage: off-commits flipkms", &dev, &pipe_,
			  crtc_dir, sizeof(crtc_dir), fb);
	require(kms_modeset(&dev, &pipe_, NULL, &fb[0]) == 0, "modeset");
	require(kms_disable(&dev, &pipe_) == 0, "disable");
	kms_drain_events(&dev, 50);

	begin("off-commits-succeed");
	before = flips_latched();
	require(before >= 0, "flipkms_status");
	require(kms_crtc_control(crtc_dir, "fence_error", "5") == 0, "fence_error 5");
	ret = commit_off(false);
	if (!ret)
		ret = commit_off(true);
	check("off-commits-succeed", ret == 0, "expected two off -> off commits, got %s",
	      errno_name(-ret));
	after = flips_latched();
	left = fence_error_left();
	check("off-commits-latch-nothing", after == before,
	      "expected the flips counter to stay at %lld, got %lld", before, after);
	check("off-commits-leave-fence-error", left == 5,
	      "expected fence_error 5 still injected, got %ld", left);

	begin("enable-fence-gets-the-error");
	ret = enable_with_fence(&fence);
	require(ret == 0 && fence >= 0, "modeset with an out-fence");
	status = fence_status(fence);
	close(fence);
	check("enable-fence-gets-the-error", status == -EIO,
	      "expected the first fence latched after the off commits to fail with EIO, got status %d (%s)",
	      status, status < 0 ? errno_name(-status) : status ? "signalled" : "not signalled");
	kms_next_event(&dev, 1000, &ev);

	begin("next-flip-signals-cleanly");
	fence = -1;
	ret = kms_flip(&dev, &pipe_, &fb[1], &fence, -1, 0x100);
	status = ret ? 0 : fence_status(fence);
	if (fence >= 0)
		close(fence);
	check("next-flip-signals-cleanly", status == 1, "expected status 1, got %d (%s)", status,
	      ret ? errno_name(-ret) : "-");

	kms_teardown(&dev, &pipe_, fb);
	return finish();
}
