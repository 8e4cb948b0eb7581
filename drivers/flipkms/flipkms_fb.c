// SPDX-License-Identifier: GPL-2.0+
/*
 * Framebuffers: GEM shmem objects, as drm_gem_fb_create() makes them, that
 * stay mapped from the first commit that shows them until they are
 * destroyed. The shadow-plane helpers map a plane's buffer for each commit
 * and unmap it when the commit is cleaned up; on a client that flips
 * between two buffers that meant pinning and vmapping a whole buffer in
 * every flip's ioctl and unpinning it again in the commit work (the
 * profile of 240 Hz flips on three CRTCs: Documentation/benchmarks.rst).
 * A buffer that has been on screen is likely to be again, so it keeps its
 * mapping, and the per-commit map is a reference count.
 */

#include <linux/mutex.h>
#include <linux/slab.h>

#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_modeset_helper.h>
#include <drm/drm_print.h>

#include "flipkms_drv.h"

/**
 * struct flipkms_fb - a framebuffer, and its long-lived mapping
 * @base:	the framebuffer; first, as drm_gem_fb_destroy() frees it
 * @lock:	serialises the first mapping
 * @mapped:	@map holds a mapping of every object, until destruction
 * @map:	that mapping
 */
struct flipkms_fb {
	struct drm_framebuffer base;
	struct mutex lock;	/* serialises the first mapping */
	bool mapped;
	struct iosys_map map[DRM_FORMAT_MAX_PLANES];
};

static struct flipkms_fb *to_flipkms_fb(struct drm_framebuffer *fb)
{
	return container_of(fb, struct flipkms_fb, base);
}

static void flipkms_fb_destroy(struct drm_framebuffer *fb)
{
	struct flipkms_fb *ffb = to_flipkms_fb(fb);

	if (ffb->mapped)
		drm_gem_fb_vunmap(fb, ffb->map);
	mutex_destroy(&ffb->lock);
	drm_gem_fb_destroy(fb);
}

static const struct drm_framebuffer_funcs flipkms_fb_funcs = {
	.destroy = flipkms_fb_destroy,
	.create_handle = drm_gem_fb_create_handle,
};

/*
 * Refuse a framebuffer no plane can show, rather than failing the first
 * commit that uses it: a client such as kmscube that passes an explicit
 * DRM_FORMAT_MOD_INVALID then falls back to a framebuffer without one.
 */
struct drm_framebuffer *flipkms_fb_create(struct drm_device *drm,
					  struct drm_file *file,
					  const struct drm_mode_fb_cmd2 *cmd)
{
	struct flipkms_fb *ffb;
	int ret;

	static_assert(offsetof(struct flipkms_fb, base) == 0);

	if ((cmd->flags & DRM_MODE_FB_MODIFIERS) &&
	    !drm_any_plane_has_format(drm, cmd->pixel_format, cmd->modifier[0])) {
		drm_dbg_kms(drm, "no plane takes format %p4cc with modifier 0x%llx\n",
			    &cmd->pixel_format, cmd->modifier[0]);
		return ERR_PTR(-EINVAL);
	}
	ffb = kzalloc(sizeof(*ffb), GFP_KERNEL);
	if (!ffb)
		return ERR_PTR(-ENOMEM);
	mutex_init(&ffb->lock);
	ret = drm_gem_fb_init_with_funcs(drm, &ffb->base, file, cmd,
					 &flipkms_fb_funcs);
	if (ret) {
		mutex_destroy(&ffb->lock);
		kfree(ffb);
		return ERR_PTR(ret);
	}
	return &ffb->base;
}

/**
 * flipkms_fb_keep_mapped() - map a framebuffer until it is destroyed
 * @fb: a framebuffer flipkms_fb_create() made
 *
 * Called as a commit prepares a plane that shows @fb; only the first call
 * maps anything.
 *
 * Context: process context; may sleep.
 *
 * Returns 0 or the mapping's error.
 */
int flipkms_fb_keep_mapped(struct drm_framebuffer *fb)
{
	struct flipkms_fb *ffb = to_flipkms_fb(fb);
	int ret = 0;

	/* Pairs with the release below: @map is written before @mapped. */
	if (smp_load_acquire(&ffb->mapped))
		return 0;
	mutex_lock(&ffb->lock);
	if (!ffb->mapped) {
		ret = drm_gem_fb_vmap(fb, ffb->map, NULL);
		if (!ret) {
			/* @map before @mapped, for the lockless check above. */
			smp_store_release(&ffb->mapped, true);
		}
	}
	mutex_unlock(&ffb->lock);
	return ret;
}
