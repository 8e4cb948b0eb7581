// SPDX-License-Identifier: GPL-2.0+
/*
 * Planes: a primary, overlays and a cursor per CRTC, all without scaling,
 * each anywhere on the CRTC or partly off it, each in any rotation and
 * reflection.
 * Framebuffers are GEM shmem objects; the composer reads them through the
 * mapping each keeps from the first commit that prepares it until it is
 * destroyed (flipkms_fb.c), so a commit maps nothing of its own: prepare_fb
 * only picks up the buffer's implicit fence, as the GEM plane helper does
 * on every kernel series (the shadow-plane helpers' state and per-commit
 * map went unread, and the map moved to begin/end_fb_access in 6.2).
 */

#include <linux/dma-fence.h>

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_blend.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_gem_atomic_helper.h>
#include <drm/drm_plane.h>
#include <drm/drm_print.h>

#include "flipkms_drv.h"

/* Room for per-plane state to come; the DRM plane comes first. */
struct flipkms_plane {
	struct drm_plane base;
};

/*
 * What the composer reads (flipkms_blend.c, flipkms_formats.c): mainline
 * vkms's formats, 10-bit and half-float RGB, on the primary and overlay
 * planes. The RGB formats come first: the cursor takes those only.
 */
static const u32 flipkms_formats[] = {
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_ARGB8888,
	DRM_FORMAT_XRGB16161616,
	DRM_FORMAT_ARGB16161616,
	DRM_FORMAT_RGB565,
	DRM_FORMAT_XBGR8888,
	DRM_FORMAT_ABGR8888,
	DRM_FORMAT_RGBX8888,
	DRM_FORMAT_RGBA8888,
	DRM_FORMAT_BGRX8888,
	DRM_FORMAT_BGRA8888,
	DRM_FORMAT_RGB888,
	DRM_FORMAT_BGR888,
	DRM_FORMAT_BGR565,
	DRM_FORMAT_XBGR16161616,
	DRM_FORMAT_ABGR16161616,
	DRM_FORMAT_XRGB2101010,
	DRM_FORMAT_ARGB2101010,
	DRM_FORMAT_XBGR2101010,
	DRM_FORMAT_ABGR2101010,
	DRM_FORMAT_XRGB16161616F,
	DRM_FORMAT_ARGB16161616F,
	DRM_FORMAT_R1,
	DRM_FORMAT_R2,
	DRM_FORMAT_R4,
	DRM_FORMAT_R8,
	/* YCbCr from here on */
	DRM_FORMAT_NV12,
	DRM_FORMAT_NV21,
	DRM_FORMAT_NV16,
	DRM_FORMAT_NV61,
	DRM_FORMAT_NV24,
	DRM_FORMAT_NV42,
	DRM_FORMAT_YUV420,
	DRM_FORMAT_YVU420,
	DRM_FORMAT_YUV422,
	DRM_FORMAT_YVU422,
	DRM_FORMAT_YUV444,
	DRM_FORMAT_YVU444,
	DRM_FORMAT_P010,
	DRM_FORMAT_P012,
	DRM_FORMAT_P016,
};

/* The leading RGB part of flipkms_formats[]. */
/**
 * flipkms_plane_formats() - the formats a plane may offer
 * @count:	set to their number
 *
 * A configfs plane offers a subset, a mask of their indices here.
 *
 * Return: The formats, RGB first, then YCbCr.
 */
const u32 *flipkms_plane_formats(unsigned int *count)
{
	BUILD_BUG_ON(ARRAY_SIZE(flipkms_formats) > 64);
	*count = ARRAY_SIZE(flipkms_formats);
	return flipkms_formats;
}

static unsigned int flipkms_rgb_formats(void)
{
	unsigned int n = 0;

	while (n < ARRAY_SIZE(flipkms_formats) &&
	       !drm_format_info(flipkms_formats[n])->is_yuv)
		n++;
	return n;
}

static const u64 flipkms_modifiers[] = {
	DRM_FORMAT_MOD_LINEAR,
	DRM_FORMAT_MOD_INVALID
};

static int flipkms_plane_atomic_check(struct drm_plane *plane,
				      struct drm_atomic_state *state)
{
	struct drm_plane_state *new_state =
		drm_atomic_get_new_plane_state(state, plane);
	struct drm_crtc_state *crtc_state;

	/*
	 * An in-fence guards a framebuffer: without one there is nothing to
	 * wait for, and the commit helpers WARN on such a fence.
	 */
	if (new_state->fence && !new_state->fb) {
		drm_dbg_atomic(plane->dev, "[PLANE:%d:%s] IN_FENCE_FD without a framebuffer\n",
			       plane->base.id, plane->name);
		return -EINVAL;
	}
	if (!new_state->fb || WARN_ON(!new_state->crtc))
		return 0;

	crtc_state = drm_atomic_get_crtc_state(state, new_state->crtc);
	if (IS_ERR(crtc_state))
		return PTR_ERR(crtc_state);

	/*
	 * Every plane may be positioned, the primary too, as mainline vkms
	 * allows: what no plane covers is the opaque black background
	 * (flipkms_blend.c), and a CRTC may be on with no plane at all.
	 */
	return drm_atomic_helper_check_plane_state(new_state, crtc_state,
						   DRM_PLANE_NO_SCALING,
						   DRM_PLANE_NO_SCALING,
						   true, true);
}

/* Map the framebuffer, and put a time limit on the wait for its fence. */
static int flipkms_plane_prepare_fb(struct drm_plane *plane,
				    struct drm_plane_state *new_state)
{
	struct flipkms_device *fkms = to_flipkms_device(plane->dev);
	struct dma_fence *bounded;
	int ret;

	if (new_state->fb) {
		ret = flipkms_fb_keep_mapped(new_state->fb);
		if (ret)
			return ret;
	}
	ret = drm_gem_plane_helper_prepare_fb(plane, new_state);
	if (ret || !new_state->fence)
		return ret;

	bounded = flipkms_infence_bound(fkms->infences, new_state->fence);
	if (!bounded)
		return -ENOMEM;
	dma_fence_put(new_state->fence);
	new_state->fence = bounded;

	return 0;
}

static void flipkms_plane_atomic_update(struct drm_plane *plane,
					struct drm_atomic_state *state)
{
	/* Nothing to program: the composer reads the state at vblank. */
}

static const struct drm_plane_helper_funcs flipkms_plane_helper_funcs = {
	.prepare_fb = flipkms_plane_prepare_fb,
	.atomic_check = flipkms_plane_atomic_check,
	.atomic_update = flipkms_plane_atomic_update,
};

static const struct drm_plane_funcs flipkms_plane_funcs = {
	.update_plane = drm_atomic_helper_update_plane,
	.disable_plane = drm_atomic_helper_disable_plane,
	.reset = drm_atomic_helper_plane_reset,
	.atomic_duplicate_state = drm_atomic_helper_plane_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_plane_destroy_state,
};

/**
 * flipkms_plane_create() - create a plane of output @index
 * @drm:	the device
 * @type:	primary, overlay or cursor
 * @index:	the output (CRTC index) it may be used with
 * @zpos:	its fixed place in the stack, 0 at the bottom
 * @mask:	the formats it offers, bit i for flipkms_plane_formats()[i];
 *		a cursor offers RGB formats only
 *
 * Return: The plane, or an ERR_PTR(): -EINVAL if it would offer none.
 */
struct drm_plane *flipkms_plane_create(struct drm_device *drm,
				       enum drm_plane_type type,
				       unsigned int index, unsigned int zpos,
				       u64 mask)
{
	bool cursor = type == DRM_PLANE_TYPE_CURSOR;
	unsigned int i, n = 0, max;
	struct flipkms_plane *plane;
	u32 formats[64];
	int ret;

	max = cursor ? flipkms_rgb_formats() : ARRAY_SIZE(flipkms_formats);
	for (i = 0; i < max; i++)
		if (mask & BIT_ULL(i))
			formats[n++] = flipkms_formats[i];
	if (!n)
		return ERR_PTR(-EINVAL);

	/* The core keeps a copy of the formats. */
	plane = drmm_universal_plane_alloc(drm, struct flipkms_plane, base,
					   BIT(index), &flipkms_plane_funcs,
					   formats, n, flipkms_modifiers, type,
					   NULL);
	if (IS_ERR(plane))
		return ERR_CAST(plane);

	drm_plane_helper_add(&plane->base, &flipkms_plane_helper_funcs);
	drm_plane_create_zpos_immutable_property(&plane->base, zpos);
	/*
	 * Every rotation and reflection, on every plane: the composer walks
	 * the framebuffer in the order they show it (flipkms_blend.c). The
	 * core takes one rotate-* bit with any reflect-* bits, and, without
	 * scaling, a rotate-90/270 source must be as high as the destination
	 * is wide (-ERANGE otherwise).
	 */
	ret = drm_plane_create_rotation_property(&plane->base, DRM_MODE_ROTATE_0,
						 DRM_MODE_ROTATE_MASK |
						 DRM_MODE_REFLECT_MASK);
	if (ret)
		return ERR_PTR(ret);
	if (cursor)
		return &plane->base;
	/* How its YCbCr formats convert; the defaults are the core's usual. */
	ret = drm_plane_create_color_properties(&plane->base,
						BIT(DRM_COLOR_YCBCR_BT601) |
						BIT(DRM_COLOR_YCBCR_BT709) |
						BIT(DRM_COLOR_YCBCR_BT2020),
						BIT(DRM_COLOR_YCBCR_LIMITED_RANGE) |
						BIT(DRM_COLOR_YCBCR_FULL_RANGE),
						DRM_COLOR_YCBCR_BT601,
						DRM_COLOR_YCBCR_LIMITED_RANGE);
	if (ret)
		return ERR_PTR(ret);
	return &plane->base;
}
