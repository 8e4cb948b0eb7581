// SPDX-License-Identifier: GPL-2.0+
/*
 * Framebuffers: flipkms's own GEM shmem objects, as drm_gem_fb_create()
 * makes them, that stay mapped from the first commit that shows them until
 * they are destroyed. Objects imported from another driver's dma-buf are
 * refused: a mapping kept that long would pin the exporter's memory (VRAM
 * or a TTM buffer) for as long as the framebuffer lives, which exporters do
 * not allow, and the composer reads system memory only (no iomem).
 *
 * The shadow-plane helpers map a plane's buffer for each commit and unmap
 * it when the commit is cleaned up; on a client that flips
 * between two buffers that meant pinning and vmapping a whole buffer in
 * every flip's ioctl and unpinning it again in the commit work (the
 * profile of 240 Hz flips on three CRTCs: Documentation/benchmarks.rst).
 * A buffer that has been on screen is likely to be again, so it keeps its
 * mapping, and a commit maps nothing of its own.
 */

#include <linux/mutex.h>
#include <linux/slab.h>

#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_modeset_helper.h>
#include <drm/drm_print.h>

#include "flipkms_drv.h"
#include "flipkms_frame.h"

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

/* Only flipkms's own objects: none imported from another driver. */
static int flipkms_fb_check_native(struct drm_device *drm, struct drm_file *file,
				   const struct drm_mode_fb_cmd2 *cmd)
{
	const struct drm_format_info *info = drm_get_format_info(drm, cmd);
	struct drm_gem_object *obj;
	unsigned int i;
	bool imported;

	for (i = 0; info && i < info->num_planes; i++) {
		obj = drm_gem_object_lookup(file, cmd->handles[i]);
		if (!obj)
			return -ENOENT;
		imported = obj->import_attach;
		drm_gem_object_put(obj);
		if (imported) {
			drm_dbg_kms(drm, "plane %u: an imported dma-buf, not flipkms's\n", i);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Refuse a framebuffer no plane can show, rather than failing the first
 * commit that uses it, with or without DRM_MODE_FB_MODIFIERS (without it
 * the modifier is 0, linear), as mainline's drm_gem_fb_init_with_funcs()
 * does for every atomic driver: ADDFB2 of NV12, a legacy ADDFB of depth 8,
 * 15 or 30. A client such as kmscube that passes an explicit
 * DRM_FORMAT_MOD_INVALID then falls back to a framebuffer without one.
 */
struct drm_framebuffer *flipkms_fb_create(struct drm_device *drm,
					  struct drm_file *file,
					  const struct drm_mode_fb_cmd2 *cmd)
{
	struct flipkms_fb *ffb;
	int ret;

	static_assert(offsetof(struct flipkms_fb, base) == 0);

	if (!drm_any_plane_has_format(drm, cmd->pixel_format, cmd->modifier[0])) {
		drm_dbg_kms(drm, "no plane takes format %p4cc with modifier 0x%llx\n",
			    &cmd->pixel_format, cmd->modifier[0]);
		return ERR_PTR(-EINVAL);
	}
	ret = flipkms_fb_check_native(drm, file, cmd);
	if (ret)
		return ERR_PTR(ret);
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
 * Return: 0 or the mapping's error.
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
		/* shmem maps system memory: the composer reads nothing else. */
		if (!ret && WARN_ON_ONCE(ffb->map[0].is_iomem)) {
			drm_gem_fb_vunmap(fb, ffb->map);
			ret = -EINVAL;
		}
		if (!ret) {
			/* @map before @mapped, for the lockless check above. */
			smp_store_release(&ffb->mapped, true);
		}
	}
	mutex_unlock(&ffb->lock);
	return ret;
}

/**
 * flipkms_fb_data() - where a kept mapping's colour planes start
 * @fb:		a framebuffer flipkms_fb_create() made
 * @data:	DRM_FORMAT_MAX_PLANES entries: each colour plane, at its
 *		offset in the mapping flipkms_fb_keep_mapped() made
 *
 * The mapping lasts until @fb is destroyed, so a holder of a reference on
 * @fb may read through @data without a mapping of its own. Takes no lock
 * and does not sleep.
 *
 * Return: False if @fb has no kept mapping (no commit prepared it).
 */
bool flipkms_fb_data(const struct drm_framebuffer *fb, struct iosys_map *data)
{
	const struct flipkms_fb *ffb = container_of(fb, struct flipkms_fb, base);
	unsigned int i;

	/* Pairs with flipkms_fb_keep_mapped()'s release of @mapped. */
	if (!smp_load_acquire(&ffb->mapped))
		return false;
	for (i = 0; i < DRM_FORMAT_MAX_PLANES; i++) {
		if (i >= fb->format->num_planes) {
			iosys_map_clear(&data[i]);
			continue;
		}
		data[i] = ffb->map[i];
		iosys_map_incr(&data[i], fb->offsets[i]);
	}
	return true;
}
