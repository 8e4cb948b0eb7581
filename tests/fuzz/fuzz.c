// SPDX-License-Identifier: MIT
/*
 * fuzz: a seeded, reproducible fuzzer of the ioctls flipfence exposes:
 * sw_sync (/dev/sw_sync), sync_file and flipkms's DRM device. Each call
 * gets random or adversarial arguments (wrong, closed and foreign fds,
 * NULL, unaligned, read-only and unmapped pointers, huge and negative
 * counts, values near U32_MAX, fences merged with themselves, IN_FENCE_FD
 * of a timeline closed meanwhile, OUT_FENCE_PTR into read-only memory,
 * random property sets, COLOR_ENCODING, COLOR_RANGE and every plane's
 * ROTATION among them, colour LUTs and matrices of random content) and must succeed or fail with one
 * of the errnos listed for that call below. Every 2000 calls the display
 * must still flip. At the end every fd it opened is closed, syncfw's
 * debugfs dump (flipkms's timelines aside, whose flip counts move on) must
 * be as it was before, and no point may be left on flipkms's timelines
 * once the last commits are cleaned up.
 *
 * usage: fuzz [--seed N] [--calls N] [--only sync|drm] [--watchdog SECONDS]
 *
 * --watchdog fails the run, naming the call in progress, after SECONDS
 * (default none): the manifest sets it below its timeout.
 *
 * The seed is printed first; "fuzz --seed N --calls M" replays a run up to
 * call M exactly (the calls do not depend on timing).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/sync_file.h>

#include <drm_fourcc.h>

#include "kms.h"
#include "sw_sync_uapi.h"

#define POOL		16
#define CHECK_EVERY	2000
/* flipkms's DEGAMMA_LUT_SIZE and GAMMA_LUT_SIZE. */
#define LUT_ENTRIES	256

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int below(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static struct {
	int timelines[POOL], fences[POOL];
	int closed_fd, pipe_fd, null_fd;
	struct kms_dev dev;
	struct kms_pipe pipe;
	struct kms_fb fb[2];
	uint32_t colour_props[2];	/* the overlay's COLOR_ENCODING, COLOR_RANGE */
	uint32_t blobs[POOL];
	uint32_t crtc_colour[3];	/* DEGAMMA_LUT, CTM, GAMMA_LUT */
	unsigned long colour_taken[3];	/* commits that took a blob for each */
	uint32_t rotation_props[3];	/* primary's, overlay's and cursor's ROTATION */
	unsigned long rotation_taken;	/* commits that took one not rotate-0 */
	uint32_t handles[POOL];
	char *ro_page, *unmapped, *page;
	uint64_t seed;
	unsigned long call, calls, failures, by_op[16];
	bool drm;
} S;

static const char *const op_names[] = {
	"timeline", "create-fence", "inc", "merge", "file-info", "poll", "close",
	"atomic", "dumb", "addfb", "vblank", "sequence", "property", "blob", "page-flip",
	"colour",
};

/* The call in progress returned @ret (-1 with errno): is that allowed? */
static void expect(int op, long ret, ...)
{
	va_list ap;
	int e, err = errno;
	bool ok = ret >= 0;

	S.by_op[op]++;
	va_start(ap, ret);
	while (!ok && (e = va_arg(ap, int)) != 0)
		ok = e == err;
	va_end(ap);
	if (ok)
		return;
	S.failures++;
	if (S.failures <= 20)
		printf("# call %lu (%s): unexpected %s; replay: fuzz --seed %llu --calls %lu\n",
		       S.call, op_names[op], errno_name(err), (unsigned long long)S.seed,
		       S.call + 1);
}

/* A file descriptor for an argument: usually the right kind, sometimes not. */
static int any_fd(const int *pool)
{
	switch (below(10)) {
	case 0:
		return S.closed_fd;
	case 1:
		return S.pipe_fd;
	case 2:
		return S.null_fd;
	case 3:
		return S.drm ? S.dev.fd : -1;
	case 4:
		return -1 - (int)below(1000);
	default:
		return pool[below(POOL)];
	}
}

/* A user pointer for @size bytes: valid, NULL, unaligned, read-only or unmapped. */
static void *any_ptr(size_t size, bool writable)
{
	(void)size;
	switch (below(8)) {
	case 0:
		return NULL;
	case 1:
		return S.unmapped;
	case 2:
		return S.ro_page + (writable ? 0 : 8);
	case 3:
		return S.page + 4096 - 3;	/* straddles into the unmapped page */
	case 4:
		return S.page + 1;		/* unaligned */
	default:
		return S.page;
	}
}

static uint32_t any_u32(void)
{
	static const uint32_t edge[] = { 0, 1, 2, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff };

	return below(3) ? (uint32_t)below(64) : edge[below(sizeof(edge) / sizeof(edge[0]))];
}

static void put(int *pool, int fd)
{
	int i = below(POOL);

	if (pool[i] >= 0)
		close(pool[i]);
	pool[i] = fd;
}

static void op_timeline(void)
{
	int fd = open("/dev/sw_sync", O_RDWR | O_CLOEXEC);

	expect(0, fd, EMFILE, ENFILE, 0);
	if (fd >= 0)
		put(S.timelines, fd);
}

static void op_create_fence(void)
{
	struct sw_sync_create_fence_data *d = any_ptr(sizeof(*d), true);
	int ret;

	if (d == (void *)S.page || d == (void *)(S.page + 1)) {
		d->value = any_u32();
		memset(d->name, 'n', sizeof(d->name));	/* unterminated on purpose */
	}
	ret = ioctl(any_fd(S.timelines), SW_SYNC_IOC_CREATE_FENCE, d);
	expect(1, ret, EBADF, ENOTTY, EINVAL, EFAULT, ENOMEM, EMFILE, 0);
	if (!ret)
		put(S.fences, d->fence);
}

static void op_inc(void)
{
	__u32 *v = any_ptr(sizeof(*v), false);

	if (v == (void *)S.page || v == (void *)(S.page + 1))
		*v = below(4) ? below(3) : any_u32();
	expect(2, ioctl(any_fd(S.timelines), SW_SYNC_IOC_INC, v),
	       EBADF, ENOTTY, EINVAL, EFAULT, EOVERFLOW, 0);
}

static void op_merge(void)
{
	struct sync_merge_data *m = any_ptr(sizeof(*m), true);
	int fd = any_fd(S.fences), ret;

	if (m == (void *)S.page || m == (void *)(S.page + 1)) {
		memset(m, 0, sizeof(*m));
		m->fd2 = below(4) ? fd : any_fd(S.fences);	/* often itself */
		if (!below(10))
			m->flags = any_u32();
		strcpy(m->name, "fuzz");
	}
	ret = ioctl(fd, SYNC_IOC_MERGE, m);
	/* ENOENT: fd2 is not an open sync_file (mainline since 4.7). */
	expect(3, ret, EBADF, ENOTTY, EINVAL, EFAULT, ENOENT, ENOMEM, EMFILE, 0);
	if (!ret)
		put(S.fences, m->fence);
}

static void op_file_info(void)
{
	struct sync_file_info *info = any_ptr(sizeof(*info), true);

	if (info == (void *)S.page || info == (void *)(S.page + 1)) {
		memset(info, 0, sizeof(*info));
		info->num_fences = below(3) ? below(4) : any_u32();
		info->sync_fence_info = (uintptr_t)any_ptr(info->num_fences * 64, true);
		if (!below(10))
			info->flags = any_u32();
	}
	expect(4, ioctl(any_fd(S.fences), SYNC_IOC_FILE_INFO, info),
	       EBADF, ENOTTY, EINVAL, EFAULT, ENOMEM, 0);
}

static void op_poll(void)
{
	struct pollfd p = { .fd = any_fd(S.fences), .events = POLLIN };

	expect(5, poll(&p, 1, 0), 0);
}

static void op_close(void)
{
	int *pool = below(2) ? S.fences : S.timelines;
	int i = below(POOL);

	/* Closing a timeline with fences on it pending: they must fail, not hang. */
	if (pool[i] >= 0)
		close(pool[i]);
	pool[i] = -1;
	S.by_op[6]++;
}

/*
 * A colour property's value: half the time a fresh blob of the size it
 * takes (a LUT now and then an entry short or long), random entries and
 * CTM coefficients of any sign and magnitude, kept in the blob pool;
 * else none, the mode's blob or any blob of the pool.
 */
static uint64_t colour_value(uint32_t prop)
{
	static uint64_t words[LUT_ENTRIES + 1];
	size_t n = prop == S.crtc_colour[1] ? 9 : LUT_ENTRIES;
	uint32_t blob = 0;
	unsigned int i;

	if (below(2))
		return below(3) ? S.blobs[below(POOL)] : below(2) ? 0 : S.pipe.mode_blob;
	if (n == LUT_ENTRIES && !below(8))
		n = below(2) ? n + 1 : n - 1;
	for (i = 0; i < n; i++)
		words[i] = below(2) ? rnd() : rnd() & (1ULL << 63 | 0x3ffffffffULL);
	if (drmModeCreatePropertyBlob(S.dev.fd, words, n * sizeof(words[0]), &blob))
		return 0;
	i = below(POOL);
	if (S.blobs[i])
		drmModeDestroyPropertyBlob(S.dev.fd, S.blobs[i]);
	S.blobs[i] = blob;
	return blob;
}

/* A random value for property @prop of object @obj. */
static uint64_t any_value(uint32_t prop)
{
	const struct kms_pipe *p = &S.pipe;

	if (prop == p->crtc_props.out_fence_ptr) {
		/* Where an fd lands must be known, to close it: no unaligned one. */
		static const int where[] = { 0, 1, 2, 3, 4, 4, 4 };
		char *const at[] = { NULL, S.unmapped, S.ro_page, S.page + 4093, S.page };

		return (uintptr_t)at[where[below(7)]];
	}
	if (prop == p->primary_props.in_fence_fd || prop == p->overlay_props.in_fence_fd)
		return below(3) ? (uint64_t)(int64_t)any_fd(S.fences) : (uint64_t)-1;
	if (prop == p->primary_props.fb_id || prop == p->overlay_props.fb_id)
		return below(4) ? S.fb[below(2)].fb_id : any_u32();
	if (prop == p->crtc_props.mode_id)
		return below(3) ? S.pipe.mode_blob : S.blobs[below(POOL)];
	if (prop && (prop == S.colour_props[0] || prop == S.colour_props[1]))
		return below(2) ? below(4) : any_u32();	/* 0-2 are offered */
	if (prop && (prop == S.crtc_colour[0] || prop == S.crtc_colour[1] ||
		     prop == S.crtc_colour[2]))
		return colour_value(prop);
	/* Mostly one turn and any mirrors, as the core takes them; else bits at random. */
	if (prop && (prop == S.rotation_props[0] || prop == S.rotation_props[1] ||
		     prop == S.rotation_props[2]))
		return below(4) ? (1u << below(4)) | below(4) << 4 : below(64);
	return below(2) ? below(4096) : (below(2) ? any_u32() : rnd());
}

static void op_atomic(void)
{
	const struct kms_pipe *p = &S.pipe;
	uint32_t objs[] = { p->crtc_id, p->primary_id, p->overlay_id, p->connector_id,
			    p->cursor_id, any_u32() };
	uint32_t props[] = {
		p->crtc_props.out_fence_ptr, p->crtc_props.active, p->crtc_props.mode_id,
		p->primary_props.fb_id, p->primary_props.in_fence_fd, p->primary_props.crtc_id,
		p->primary_props.crtc_x, p->primary_props.src_w, p->overlay_props.fb_id,
		p->overlay_props.in_fence_fd, p->overlay_props.crtc_w, p->conn_props.crtc_id,
		S.colour_props[0], S.colour_props[1], S.crtc_colour[0], S.crtc_colour[1],
		S.crtc_colour[2], S.rotation_props[0], S.rotation_props[1], S.rotation_props[2],
		any_u32(),
	};
	uint32_t flags = DRM_MODE_ATOMIC_TEST_ONLY;
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int n = 1 + below(6), i, k, ret;
	bool colour[3] = { false, false, false }, turned = false;

	if (!below(3))
		flags = DRM_MODE_ATOMIC_NONBLOCK | (below(2) ? DRM_MODE_PAGE_FLIP_EVENT : 0);
	if (!below(8))
		flags |= DRM_MODE_ATOMIC_ALLOW_MODESET;
	if (!below(50))
		flags = any_u32();
	for (i = 0; i < n; i++) {
		uint32_t prop = props[below(sizeof(props) / sizeof(props[0]))];
		uint64_t value = any_value(prop);

		for (k = 0; k < 3; k++) {
			colour[k] |= prop && prop == S.crtc_colour[k] && value;
			turned |= prop && prop == S.rotation_props[k] && value != 1;
		}
		drmModeAtomicAddProperty(req, objs[below(sizeof(objs) / sizeof(objs[0]))], prop,
					 value);
	}
	ret = drmModeAtomicCommit(S.dev.fd, req, flags, NULL);
	drmModeAtomicFree(req);
	for (k = 0; k < 3 && !ret; k++)
		S.colour_taken[k] += colour[k];
	S.rotation_taken += !ret && turned;
	/* A written out-fence is ours to close: look where it may have gone. */
	if (!ret && *(int32_t *)S.page >= 0 && *(int32_t *)S.page != S.dev.fd) {
		if (kms_fence_polled(*(int32_t *)S.page) >= 0)
			put(S.fences, *(int32_t *)S.page);
	}
	expect(7, ret, EINVAL, EFAULT, EBUSY, ENOENT, ERANGE, EACCES, ENOMEM, ENOSPC, EBADF,
	       EDEADLK, EOPNOTSUPP, 0);
	kms_drain_events(&S.dev, 0);
}

static void op_dumb(void)
{
	struct drm_mode_create_dumb c = {
		.width = below(2) ? below(4096) : any_u32(), .height = below(2) ? below(4096) : any_u32(),
		.bpp = below(2) ? 32 : any_u32(),
	};
	struct drm_mode_destroy_dumb d = { .handle = S.handles[below(POOL)] };
	struct drm_mode_map_dumb m = { .handle = below(2) ? S.handles[below(POOL)] : any_u32() };
	int i;

	switch (below(3)) {
	case 0:
		/* ENOSPC, EFBIG: the shmem backing store cannot hold that size. */
		expect(8, drmIoctl(S.dev.fd, DRM_IOCTL_MODE_CREATE_DUMB, &c), EINVAL, ENOMEM,
		       ENOSPC, EFBIG, 0);
		if (c.handle) {
			i = below(POOL);
			if (S.handles[i]) {
				d.handle = S.handles[i];
				drmIoctl(S.dev.fd, DRM_IOCTL_MODE_DESTROY_DUMB, &d);
			}
			S.handles[i] = c.handle;
		}
		break;
	case 1:
		expect(8, drmIoctl(S.dev.fd, DRM_IOCTL_MODE_MAP_DUMB, &m), EINVAL, ENOENT, 0);
		break;
	default:
		expect(8, drmIoctl(S.dev.fd, DRM_IOCTL_MODE_DESTROY_DUMB, &d), EINVAL, ENOENT, 0);
		for (i = 0; i < POOL; i++)
			if (S.handles[i] == d.handle)
				S.handles[i] = 0;
	}
}

static void op_addfb(void)
{
	static const uint32_t formats[] = { DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888,
					    DRM_FORMAT_RGB565, DRM_FORMAT_NV12, 0x20202020 };
	struct drm_mode_fb_cmd2 f = {
		.width = below(2) ? 64 : any_u32(), .height = below(2) ? 64 : any_u32(),
		.pixel_format = formats[below(5)],
		.flags = below(4) ? 0 : (below(2) ? DRM_MODE_FB_MODIFIERS : any_u32()),
		.handles = { S.handles[below(POOL)] },
		.pitches = { below(2) ? 256 : any_u32() },
		.offsets = { below(2) ? 0 : any_u32() },
		.modifier = { below(2) ? 0 : rnd() },
	};
	int ret = drmIoctl(S.dev.fd, DRM_IOCTL_MODE_ADDFB2, &f);
	uint32_t id;

	expect(9, ret, EINVAL, ENOENT, ERANGE, ENOMEM, 0);
	if (!ret)
		drmModeRmFB(S.dev.fd, f.fb_id);
	/* Any id but the display check's own framebuffers. */
	id = any_u32();
	if (id == S.fb[0].fb_id || id == S.fb[1].fb_id)
		id = 0xfffffff0;
	expect(9, drmModeRmFB(S.dev.fd, id) ? -1 : 0, EINVAL, ENOENT, EACCES, 0);
}

static void op_vblank(void)
{
	drmVBlank v = { 0 };

	/* Never an absolute wait for the future: that would block for ever. */
	v.request.type = DRM_VBLANK_RELATIVE | (below(2) ? DRM_VBLANK_EVENT : 0);
	if (!below(5))
		v.request.type |= below(2) ? DRM_VBLANK_SECONDARY :
				  (below(8) << DRM_VBLANK_HIGH_CRTC_SHIFT);
	if (!below(20))
		v.request.type = any_u32() & ~(DRM_VBLANK_ABSOLUTE);
	v.request.sequence = below(2);
	v.request.signal = 0;
	expect(10, drmWaitVBlank(S.dev.fd, &v), EINVAL, EBUSY, ENOMEM, EOPNOTSUPP, 0);
	kms_drain_events(&S.dev, 0);
}

static void op_sequence(void)
{
	uint32_t crtc = below(2) ? S.pipe.crtc_id : any_u32();
	uint64_t seq = 0, ns;

	if (below(2)) {
		expect(11, drmCrtcGetSequence(S.dev.fd, crtc, &seq, &ns) ? -1 : 0,
		       EINVAL, ENOENT, EOPNOTSUPP, 0);
	} else {
		expect(11, drmCrtcQueueSequence(S.dev.fd, crtc, DRM_CRTC_SEQUENCE_RELATIVE |
						(below(10) ? 0 : any_u32()), below(2), &seq, 7) ? -1 : 0,
		       EINVAL, ENOENT, EOPNOTSUPP, ENOMEM, 0);
		kms_drain_events(&S.dev, 0);
	}
}

static void op_property(void)
{
	struct drm_mode_get_property g = {
		.prop_id = below(2) ? S.pipe.crtc_props.active : any_u32(),
		.count_values = below(2) ? 0 : any_u32(),
		.count_enum_blobs = below(2) ? 0 : any_u32(),
		.values_ptr = (uintptr_t)any_ptr(8, true),
		.enum_blob_ptr = (uintptr_t)any_ptr(8, true),
	};

	expect(12, drmIoctl(S.dev.fd, DRM_IOCTL_MODE_GETPROPERTY, &g), EINVAL, ENOENT, EFAULT, 0);
}

static void op_blob(void)
{
	struct drm_mode_create_blob c = {
		.length = below(2) ? below(256) : any_u32(),
		.data = (uintptr_t)any_ptr(256, false),
	};
	int i, ret;

	if (below(2)) {
		ret = drmIoctl(S.dev.fd, DRM_IOCTL_MODE_CREATEPROPBLOB, &c);
		expect(13, ret, EINVAL, EFAULT, ENOMEM, E2BIG, 0);
		if (!ret) {
			i = below(POOL);
			if (S.blobs[i])
				drmModeDestroyPropertyBlob(S.dev.fd, S.blobs[i]);
			S.blobs[i] = c.blob_id;
		}
	} else {
		i = below(POOL);
		ret = drmModeDestroyPropertyBlob(S.dev.fd, below(2) ? S.blobs[i] : any_u32());
		expect(13, ret ? -1 : 0, EINVAL, ENOENT, EPERM, 0);
		if (!ret)
			S.blobs[i] = 0;
	}
}

static void op_page_flip(void)
{
	uint32_t crtc = below(4) ? S.pipe.crtc_id : any_u32();
	uint32_t fb = below(4) ? S.fb[below(2)].fb_id : any_u32();
	uint32_t flags = below(4) ? DRM_MODE_PAGE_FLIP_EVENT : any_u32();

	expect(14, drmModePageFlip(S.dev.fd, crtc, fb, flags, NULL) ? -1 : 0,
	       EINVAL, ENOENT, EBUSY, ENOMEM, EOPNOTSUPP, 0);
	kms_drain_events(&S.dev, 0);
}

/*
 * Some of the CRTC's colour properties in a commit of their own, checked
 * only or committed: random commits rarely get a colour blob past their
 * other properties.
 */
static void op_colour(void)
{
	uint32_t flags = below(2) ? DRM_MODE_ATOMIC_TEST_ONLY : DRM_MODE_ATOMIC_NONBLOCK;
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	bool set[3] = { false, false, false };
	uint64_t value;
	int k, ret;

	for (k = 0; k < 3; k++) {
		if (!S.crtc_colour[k] || below(2))
			continue;
		value = colour_value(S.crtc_colour[k]);
		set[k] = value;
		drmModeAtomicAddProperty(req, S.pipe.crtc_id, S.crtc_colour[k], value);
	}
	ret = drmModeAtomicCommit(S.dev.fd, req, flags, NULL);
	drmModeAtomicFree(req);
	expect(15, ret, EINVAL, EBUSY, 0);
	for (k = 0; k < 3 && !ret; k++)
		S.colour_taken[k] += set[k];
}

/* The display is usable after whatever the fuzzer did: a modeset and a flip. */
static bool display_works(void)
{
	drmModeAtomicReq *req;
	struct kms_event ev;
	int32_t out = -1;
	int tries, ret, i;

	kms_drain_events(&S.dev, 50);
	/* Whatever the fuzzer left on the other planes goes first. */
	req = drmModeAtomicAlloc();
	if (S.pipe.overlay_id)
		kms_req_plane(req, S.pipe.overlay_id, &S.pipe.overlay_props, 0, NULL, -1);
	if (S.pipe.cursor_id)
		kms_req_plane(req, S.pipe.cursor_id, &S.pipe.cursor_props, 0, NULL, -1);
	for (i = 1; i < 3; i++)
		if (S.rotation_props[i])
			drmModeAtomicAddProperty(req, i == 1 ? S.pipe.overlay_id : S.pipe.cursor_id,
						 S.rotation_props[i], DRM_MODE_ROTATE_0);
	ret = drmModeAtomicCommit(S.dev.fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL) ? -errno : 0;
	drmModeAtomicFree(req);
	if (ret)
		comment("display check: disabling overlay and cursor failed: %s", errno_name(-ret));
	/* And the primary's turn, with the whole of a buffer the mode's size. */
	req = drmModeAtomicAlloc();
	kms_req_plane(req, S.pipe.primary_id, &S.pipe.primary_props, S.pipe.crtc_id, &S.fb[0], -1);
	drmModeAtomicAddProperty(req, S.pipe.primary_id, S.rotation_props[0], DRM_MODE_ROTATE_0);
	if (drmModeAtomicCommit(S.dev.fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL))
		comment("display check: rotate-0 on the primary failed: %s", errno_name(errno));
	drmModeAtomicFree(req);
	ret = kms_modeset(&S.dev, &S.pipe, NULL, &S.fb[0]);
	if (ret) {
		comment("display check: modeset failed: %s", errno_name(-ret));
		return false;
	}
	for (tries = 0; tries < 50; tries++) {
		ret = kms_flip(&S.dev, &S.pipe, &S.fb[1], &out, -1, 1);
		if (!ret)
			break;
		sleep_ms(20);
	}
	if (ret || out < 0) {
		comment("display check: flip failed: %s", errno_name(-ret));
		return false;
	}
	ret = kms_next_event(&S.dev, 3000, &ev);
	close(out);
	if (ret != 1)
		comment("display check: no flip event within 3 s");
	return ret == 1;
}

#define SYNC_INFO	"/sys/kernel/debug/sync/info"

/* A timeline's line in the dump, "<name> <driver>: <value>", of flipkms's. */
static bool flipkms_timeline_line(const char *line)
{
	return strncmp(line, "  ", 2) && strstr(line, " flipkms: ");
}

static void append(char *buf, size_t size, size_t *n, const char *line)
{
	size_t len = strlen(line);

	if (*n + len < size) {
		memcpy(buf + *n, line, len + 1);
		*n += len;
	}
}

/*
 * syncfw's dump without flipkms's timelines and fences, each dropped as a
 * whole block (its line and the indented lines under it): what the fuzzer
 * could leak among everyone else's. flipkms's points are checked apart
 * (flipkms_points()): a commit's clean-up may still hold one at first.
 */
static char *sync_dump_timelines(void)
{
	static char buf[65536];
	char line[512], held[512] = "";
	bool fences = false, dropping = false;
	FILE *f = fopen(SYNC_INFO, "r");
	size_t n = 0;

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		bool indented = !strncmp(line, "  ", 2);

		if (!strcmp(line, "timelines:\n") || !strcmp(line, "fences:\n")) {
			fences = line[0] == 'f';
			dropping = false;
			append(buf, sizeof(buf), &n, line);
		} else if (!fences) {
			/* "<name> <driver>: <value>", then "  pt <value>: <status>" */
			if (!indented)
				dropping = flipkms_timeline_line(line);
			if (!dropping)
				append(buf, sizeof(buf), &n, line);
		} else if (!indented) {
			/* "<name>: <status>", then "  <timeline> <driver> pt ..." */
			if (held[0])
				append(buf, sizeof(buf), &n, held);
			snprintf(held, sizeof(held), "%s", line);
		} else {
			if (!strstr(line, " flipkms pt ")) {
				append(buf, sizeof(buf), &n, held);
				append(buf, sizeof(buf), &n, line);
			}
			held[0] = '\0';
		}
	}
	if (held[0])
		append(buf, sizeof(buf), &n, held);
	if (f)
		fclose(f);
	return strdup(buf);
}

/* The points listed under flipkms's timelines in the dump, into @out. */
static int flipkms_points(char *out, size_t size)
{
	bool in_flipkms = false;
	FILE *f = fopen(SYNC_INFO, "r");
	char line[512];
	size_t n = 0;
	int points = 0;

	out[0] = '\0';
	while (f && fgets(line, sizeof(line), f) && strcmp(line, "fences:\n")) {
		if (strncmp(line, "  ", 2)) {
			in_flipkms = flipkms_timeline_line(line);
		} else if (in_flipkms) {
			points++;
			append(out, size, &n, line);
		}
	}
	if (f)
		fclose(f);
	return f ? points : -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "calls", required_argument, NULL, 'c' },
		{ "only", required_argument, NULL, 'o' },
		{ "watchdog", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	void (*const sync_ops[])(void) = { op_timeline, op_create_fence, op_create_fence, op_inc,
					  op_inc, op_merge, op_merge, op_file_info, op_poll,
					  op_close };
	void (*const drm_ops[])(void) = { op_atomic, op_dumb, op_addfb, op_vblank, op_sequence,
					 op_property, op_blob, op_page_flip, op_colour };
	int fds_before, fds_after, opt, i, pfd[2], points;
	static char left[16384];
	bool sync = true, broken = false;
	char *dump_before, *dump_after;
	unsigned long checks = 0;

	S.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	S.calls = 100000;
	S.drm = true;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			S.seed = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			S.calls = strtoul(optarg, NULL, 0);
			break;
		case 'o':
			sync = !strcmp(optarg, "sync");
			S.drm = !strcmp(optarg, "drm");
			break;
		case 'w':
			watchdog((unsigned int)strtoul(optarg, NULL, 0));
			break;
		default:
			fprintf(stderr, "usage: %s [--seed N] [--calls N] [--only sync|drm] [--watchdog SECONDS]\n",
				argv[0]);
			return 2;
		}
	}
	rng_state = S.seed;
	printf("# seed %llu, %lu calls (replay: fuzz --seed %llu --calls %lu)\n",
	       (unsigned long long)S.seed, S.calls, (unsigned long long)S.seed, S.calls);

	begin("setup");
	dump_before = sync_dump_timelines();
	fds_before = count_open_fds();
	S.page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	require(S.page != MAP_FAILED && !munmap(S.page + 4096, 4096), "scratch pages");
	S.unmapped = S.page + 4096;
	S.ro_page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	require(S.ro_page != MAP_FAILED, "read-only page");
	require(!pipe(pfd), "pipe");
	S.pipe_fd = pfd[0];
	close(pfd[1]);
	S.null_fd = open("/dev/null", O_RDWR);
	S.closed_fd = open("/dev/null", O_RDONLY);
	close(S.closed_fd);
	for (i = 0; i < POOL; i++)
		S.timelines[i] = S.fences[i] = -1;
	if (S.drm) {
		require(kms_open(&S.dev, "flipkms", KMS_CAP_ATOMIC) == 0, "open flipkms");
		require(kms_pipes(&S.dev, &S.pipe, 1) == 1, "a pipe");
		S.colour_props[0] = kms_prop_id(S.dev.fd, S.pipe.overlay_id,
						DRM_MODE_OBJECT_PLANE, "COLOR_ENCODING");
		S.colour_props[1] = kms_prop_id(S.dev.fd, S.pipe.overlay_id,
						DRM_MODE_OBJECT_PLANE, "COLOR_RANGE");
		S.crtc_colour[0] = kms_prop_id(S.dev.fd, S.pipe.crtc_id, DRM_MODE_OBJECT_CRTC,
						"DEGAMMA_LUT");
		S.crtc_colour[1] = kms_prop_id(S.dev.fd, S.pipe.crtc_id, DRM_MODE_OBJECT_CRTC,
						"CTM");
		S.crtc_colour[2] = kms_prop_id(S.dev.fd, S.pipe.crtc_id, DRM_MODE_OBJECT_CRTC,
						"GAMMA_LUT");
		S.rotation_props[0] = kms_prop_id(S.dev.fd, S.pipe.primary_id,
						  DRM_MODE_OBJECT_PLANE, "rotation");
		S.rotation_props[1] = kms_prop_id(S.dev.fd, S.pipe.overlay_id,
						  DRM_MODE_OBJECT_PLANE, "rotation");
		S.rotation_props[2] = kms_prop_id(S.dev.fd, S.pipe.cursor_id,
						  DRM_MODE_OBJECT_PLANE, "rotation");
		require(kms_fb_create(S.dev.fd, S.pipe.mode.hdisplay, S.pipe.mode.vdisplay,
				      DRM_FORMAT_XRGB8888, 1, &S.fb[0]) == 0 &&
			kms_fb_create(S.dev.fd, S.pipe.mode.hdisplay, S.pipe.mode.vdisplay,
				      DRM_FORMAT_XRGB8888, 2, &S.fb[1]) == 0, "framebuffers");
		require(display_works(), "a working display before fuzzing");
	}

	for (S.call = 0; S.call < S.calls; S.call++) {
		bool drm_call = S.drm && (!sync || below(2));

		memset(S.page, 0xff, 4096);	/* so that an unwritten out-fence reads -1 */
		if (drm_call)
			drm_ops[below(sizeof(drm_ops) / sizeof(drm_ops[0]))]();
		else
			sync_ops[below(sizeof(sync_ops) / sizeof(sync_ops[0]))]();
		if (S.drm && (S.call + 1) % CHECK_EVERY == 0) {
			checks++;
			if (!display_works() && !broken) {
				broken = true;
				printf("# call %lu: the display no longer flips; replay: fuzz --seed %llu "
				       "--calls %lu\n", S.call, (unsigned long long)S.seed, S.call + 1);
			}
		}
	}

	for (i = 0; i < (int)(sizeof(op_names) / sizeof(op_names[0])); i++)
		if (S.by_op[i])
			comment("%-12s %lu calls", op_names[i], S.by_op[i]);
	check("every-call-returns-an-allowed-errno", S.failures == 0,
	      "%lu of %lu calls returned an errno not allowed for them", S.failures, S.calls);
	if (S.drm) {
		check("display-flips-throughout", !broken && display_works(),
		      "the display stopped flipping (see above)");
		comment("commits that took a DEGAMMA_LUT, CTM, GAMMA_LUT blob: %lu, %lu, %lu",
			S.colour_taken[0], S.colour_taken[1], S.colour_taken[2]);
		/* The random LUTs and matrices got past the checks into commits. */
		check("colour-blobs-taken", S.colour_taken[0] && S.colour_taken[1] &&
		      S.colour_taken[2], "commits that took a DEGAMMA_LUT, CTM, GAMMA_LUT blob: "
		      "%lu, %lu, %lu; expected some of each", S.colour_taken[0], S.colour_taken[1],
		      S.colour_taken[2]);
		/* Turned planes got past the checks into commits. */
		comment("commits that took a rotation other than rotate-0: %lu", S.rotation_taken);
		check("rotations-taken", S.rotation_taken > 0,
		      "no commit took a ROTATION other than rotate-0");
		kms_disable(&S.dev, &S.pipe);
		for (i = 0; i < POOL; i++) {
			struct drm_mode_destroy_dumb d = { .handle = S.handles[i] };

			if (S.blobs[i])
				drmModeDestroyPropertyBlob(S.dev.fd, S.blobs[i]);
			if (S.handles[i])
				drmIoctl(S.dev.fd, DRM_IOCTL_MODE_DESTROY_DUMB, &d);
		}
		kms_fb_destroy(S.dev.fd, &S.fb[0]);
		kms_fb_destroy(S.dev.fd, &S.fb[1]);
		kms_close(&S.dev);
	}
	for (i = 0; i < POOL; i++) {
		if (S.fences[i] >= 0)
			close(S.fences[i]);
		if (S.timelines[i] >= 0)
			close(S.timelines[i]);
	}
	close(S.pipe_fd);
	close(S.null_fd);
	fds_after = count_open_fds();
	check_int("no-fd-leaked", fds_before, fds_after);
	/* Closing the last reference frees a timeline; give deferred frees a moment. */
	sleep_ms(100);
	dump_after = sync_dump_timelines();
	check("no-timeline-or-fence-left-in-syncfw-dump", !strcmp(dump_before, dump_after),
	      "sw_sync lines before:\n%s\nafter:\n%s", dump_before, dump_after);
	/* Every out-fence is closed and the device too: their points go once
	 * the last commits are cleaned up, well within 5 s. */
	for (i = 0; i < 50 && (points = flipkms_points(left, sizeof(left))) != 0; i++)
		sleep_ms(100);
	check("no-flipkms-point-left-after-settle", points == 0,
	      "expected no point on flipkms's timelines 5 s after everything was closed, got %d:\n%s",
	      points, left);
	comment("%lu calls, %lu display checks, %lu unexpected errnos", S.calls, checks,
		S.failures);
	free(dump_before);
	free(dump_after);
	return finish();
}
