// SPDX-License-Identifier: GPL-2.0+
/*
 * flipkms: a virtual KMS driver whose page flips carry sync framework
 * out-fences. The device, its module parameters and the commit path.
 */

#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/platform_device.h>

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_drv.h>
#include <drm/drm_fb_helper.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_mode_config.h>
#include <drm/drm_plane.h>
#include <drm/drm_print.h>
#include <drm/drm_vblank.h>

#include "flipkms_compat.h"
#if FLIPKMS_HAS_FBDEV_SHMEM
#include <drm/drm_fbdev_shmem.h>
#endif
#include "flipkms_config.h"
#include "flipkms_drv.h"

#define CREATE_TRACE_POINTS
#include "flipkms_trace.h"

#define DRIVER_NAME	"flipkms"
#define DRIVER_DESC	"Virtual KMS with sync framework page-flip fences"
#define DRIVER_DATE	"20261203"
#define DRIVER_MAJOR	1
#define DRIVER_MINOR	0

/* Module parameters: the shape of the device at load time. */

static unsigned int outputs = 1;
module_param(outputs, uint, 0444);
MODULE_PARM_DESC(outputs, "Number of outputs (CRTC, encoder, connector), 1-4 (default 1)");

static unsigned int overlays = 1;
module_param(overlays, uint, 0444);
MODULE_PARM_DESC(overlays, "Overlay planes per output, 0-4 (default 1)");

static bool cursor = true;
module_param(cursor, bool, 0444);
MODULE_PARM_DESC(cursor, "Give each output a cursor plane (default true)");

/*
 * As vkms: /dev/fbN on the first output. The fbdev client restores its own
 * mode when the last DRM master closes, which lights CRTC 0 again; tests and
 * compositor CI that want a dark display between clients turn it off.
 */
static bool fbdev = true;
module_param(fbdev, bool, 0444);
MODULE_PARM_DESC(fbdev, "Emulate an fbdev on the device, if the kernel has DRM_FBDEV_EMULATION (default true)");

/* For the teardown tests: the creation of this output fails. */
static int fail_output = -1;
module_param(fail_output, int, 0444);
MODULE_PARM_DESC(fail_output, "Test only: make creating output N fail with -ENOMEM (default -1, none)");

/* The commit path */

/* Every commit gets its flip number once it is accepted. */
static int flipkms_atomic_commit(struct drm_device *drm,
				 struct drm_atomic_state *state, bool nonblock)
{
	flipkms_assign_seqnos(state);
	return drm_atomic_helper_commit(drm, state, nonblock);
}

/*
 * The commit's out-fences are out already: everything up to its flip is on
 * their signalling path (annotated, so lockdep catches a fence wait, a
 * dma_resv lock or a GFP_KERNEL allocation in it). The planes' cleanup,
 * which unmaps buffers, comes after.
 */
static void flipkms_atomic_commit_tail(struct drm_atomic_state *old_state)
{
	struct drm_device *drm = old_state->dev;
	bool cookie = dma_fence_begin_signalling();

	/*
	 * CRTCs are on before their planes are flushed, so that the flush
	 * of a modeset waits for the first vblank of the new mode.
	 */
	drm_atomic_helper_commit_modeset_disables(drm, old_state);
	drm_atomic_helper_commit_modeset_enables(drm, old_state);
	flipkms_stall_commits(old_state);
	drm_atomic_helper_commit_planes(drm, old_state, 0);
	drm_atomic_helper_commit_hw_done(old_state);
	drm_atomic_helper_wait_for_flip_done(drm, old_state);
	dma_fence_end_signalling(cookie);
	drm_atomic_helper_cleanup_planes(drm, old_state);
}

static const struct drm_mode_config_funcs flipkms_mode_config_funcs = {
	.fb_create = flipkms_fb_create,
	.atomic_check = drm_atomic_helper_check,
	.atomic_commit = flipkms_atomic_commit,
};

static const struct drm_mode_config_helper_funcs flipkms_mode_config_helpers = {
	.atomic_commit_tail = flipkms_atomic_commit_tail,
};

DEFINE_DRM_GEM_FOPS(flipkms_fops);

static const struct drm_driver flipkms_driver = {
	.driver_features	= DRIVER_MODESET | DRIVER_ATOMIC | DRIVER_GEM,
	.fops			= &flipkms_fops,
	DRM_GEM_SHMEM_DRIVER_OPS,
	.debugfs_init		= flipkms_debugfs_init,
	.name			= DRIVER_NAME,
	.desc			= DRIVER_DESC,
	.date			= DRIVER_DATE,
	.major			= DRIVER_MAJOR,
	.minor			= DRIVER_MINOR,
};

/* Devices */

/* Device instances: the default device is 0, as it is created first. */
static DEFINE_IDA(flipkms_instances);
#define FLIPKMS_MAX_INSTANCE	999

/*
 * A plane's zpos: the description's, else @order, flipkms's: the primary
 * at 0, the overlays above it in the order they were made, the cursor on
 * top. Equal ones stack in that order too (normalize_zpos).
 */
static unsigned int flipkms_zpos(const struct flipkms_config_plane *plane,
				 unsigned int order)
{
	return plane->zpos >= 0 ? plane->zpos : order;
}

/* Output @ccrtc->index: its planes (primary, overlays, cursor), CRTC and connectors. */
static int flipkms_output_create(struct flipkms_device *fkms,
				 struct flipkms_config_crtc *ccrtc)
{
	unsigned int index = ccrtc->index, zpos = 1;
	struct flipkms_output *out = &fkms->outputs[index];
	struct flipkms_config_plane *cplane;
	struct drm_plane *primary, *plane;
	int ret;

	if ((int)index == fkms->config->fail_output)
		return -ENOMEM;

	primary = flipkms_plane_create(&fkms->drm, DRM_PLANE_TYPE_PRIMARY, index,
				       flipkms_zpos(ccrtc->primary, 0),
				       ccrtc->primary->formats);
	if (IS_ERR(primary))
		return PTR_ERR(primary);
	out->primary = primary;

	list_for_each_entry(cplane, &fkms->config->planes, link) {
		if (cplane->type != DRM_PLANE_TYPE_OVERLAY ||
		    flipkms_config_plane_crtc(cplane) != ccrtc)
			continue;
		plane = flipkms_plane_create(&fkms->drm, DRM_PLANE_TYPE_OVERLAY,
					     index, flipkms_zpos(cplane, zpos++),
					     cplane->formats);
		if (IS_ERR(plane))
			return PTR_ERR(plane);
	}

	if (ccrtc->cursor) {
		plane = flipkms_plane_create(&fkms->drm, DRM_PLANE_TYPE_CURSOR,
					     index, flipkms_zpos(ccrtc->cursor, zpos),
					     ccrtc->cursor->formats);
		if (IS_ERR(plane))
			return PTR_ERR(plane);
		out->cursor = plane;
	}

	ret = flipkms_crtc_init(out, index, primary, out->cursor);
	if (ret)
		return ret;
	/* From here on teardown owns the CRTC's timers and timeline. */
	fkms->num_ready++;

	/* Its debugfs controls as they start (Documentation/flipkms.rst). */
	out->refresh = ccrtc->refresh;
	out->signal_delay_us = ccrtc->signal_delay_us;
	atomic_set(&out->drop_vblanks, ccrtc->drop_vblanks);
	atomic_set(&out->stall_ms, ccrtc->stall_ms);
	atomic_set(&out->fence_error, ccrtc->fence_error);
	atomic_set(&out->vrr_hold, ccrtc->vrr_hold);

	ret = flipkms_output_init(out);
	if (ret)
		return ret;
	ccrtc->encoder->out = out;
	/* Without one, a dynamic connector may be added later (configfs). */
	if (ccrtc->encoder->connector) {
		ret = flipkms_output_connector_add(out, ccrtc->encoder->connector);
		if (ret)
			return ret;
		ccrtc->encoder->connector->out = out;
	}
	return flipkms_writeback_init(out, ccrtc->writeback);
}

/* Hot-plug through configfs reaches the outputs no more: they may outlive it. */
static void flipkms_outputs_detach(struct flipkms_device *fkms)
{
	struct flipkms_config_connector *connector;
	struct flipkms_config_encoder *encoder;

	list_for_each_entry(connector, &fkms->config->connectors, link)
		connector->out = NULL;
	list_for_each_entry(encoder, &fkms->config->encoders, link)
		encoder->out = NULL;
}

/*
 * The DRM device's release, before the mode config's cleanup: no commit is
 * left (each atomic state holds the device), so nothing latches through a
 * timeline or re-arms a timer after this. Only the outputs whose CRTC was
 * set up: creation may have stopped early.
 */
static void flipkms_outputs_release(struct drm_device *drm, void *data)
{
	struct flipkms_device *fkms = data;
	unsigned int i;

	for (i = 0; i < fkms->num_ready; i++)
		flipkms_crtc_fini(&fkms->outputs[i]);
	fkms->num_ready = 0;
}

/* After the outputs' release: their stand-ins go with the last commit too. */
static void flipkms_infences_release(struct drm_device *drm, void *data)
{
	flipkms_infences_destroy(data);
}

static int flipkms_modeset_init(struct flipkms_device *fkms)
{
	struct drm_device *drm = &fkms->drm;
	struct flipkms_config_crtc *ccrtc;
	int ret;

	ret = drmm_mode_config_init(drm);
	if (ret)
		return ret;
	/* Registered after the mode config, so released before it. */
	ret = drmm_add_action_or_reset(drm, flipkms_outputs_release, fkms);
	if (ret)
		return ret;

	drm->mode_config.funcs = &flipkms_mode_config_funcs;
	drm->mode_config.helper_private = &flipkms_mode_config_helpers;
	/* These bound framebuffers too: cursors are small. Modes are checked by the CRTC. */
	drm->mode_config.min_width = FLIPKMS_MIN_FB_SIZE;
	drm->mode_config.min_height = FLIPKMS_MIN_FB_SIZE;
	drm->mode_config.max_width = FLIPKMS_MAX_WIDTH;
	drm->mode_config.max_height = FLIPKMS_MAX_HEIGHT;
	drm->mode_config.cursor_width = 512;
	drm->mode_config.cursor_height = 512;
	drm->mode_config.preferred_depth = 24;
	drm->mode_config.normalize_zpos = true;
	/* Tearing flips of the primary plane (flipkms_flip_async()). */
	drm->mode_config.async_page_flip = true;

	fkms->vrr_capable = drm_property_create_bool(drm, DRM_MODE_PROP_IMMUTABLE,
						     "vrr_capable");
	if (!fkms->vrr_capable)
		return -ENOMEM;

	list_for_each_entry(ccrtc, &fkms->config->crtcs, link) {
		ret = flipkms_output_create(fkms, ccrtc);
		if (ret)
			return ret;
	}

	drm_mode_config_reset(drm);
	return 0;
}

/**
 * flipkms_device_create() - build and register a device
 * @config:	its description, which must outlive the device
 * @name:	its platform device's name: "flipkms" for the default
 *		device, "flipkms-DIR" for configfs's flipkms/DIR
 *
 * Each device is a platform device of its own with its own DRM card and
 * its own timelines, named after the platform device.
 *
 * Return: The device, or an ERR_PTR(): -EINVAL (with a message) for a
 * description flipkms cannot build, or the error of the step that failed,
 * with nothing left behind.
 */
struct flipkms_device *flipkms_device_create(struct flipkms_config *config,
					     const char *name)
{
	struct platform_device *pdev;
	struct flipkms_device *fkms;
	int ret;

	ret = flipkms_config_check(config);
	if (ret)
		return ERR_PTR(ret);

	pdev = platform_device_register_simple(name, PLATFORM_DEVID_NONE, NULL, 0);
	if (IS_ERR(pdev))
		return ERR_CAST(pdev);

	if (!devres_open_group(&pdev->dev, NULL, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto err_unregister;
	}

	fkms = devm_drm_dev_alloc(&pdev->dev, &flipkms_driver,
				  struct flipkms_device, drm);
	if (IS_ERR(fkms)) {
		ret = PTR_ERR(fkms);
		goto err_devres;
	}
	fkms->pdev = pdev;
	fkms->config = config;
	fkms->num_outputs = config->num_crtcs;
	fkms->instance = ida_alloc_max(&flipkms_instances, FLIPKMS_MAX_INSTANCE,
				       GFP_KERNEL);
	if (fkms->instance < 0) {
		ret = fkms->instance;
		goto err_devres;
	}

	ret = dma_coerce_mask_and_coherent(fkms->drm.dev, DMA_BIT_MASK(64));
	if (ret)
		goto err_instance;

	/* Vblanks are counted by each CRTC's refresh counter (flipkms_crtc.c). */
	fkms->drm.max_vblank_count = U32_MAX;
	ret = drm_vblank_init(&fkms->drm, fkms->num_outputs);
	if (ret)
		goto err_instance;

	fkms->infences = flipkms_infences_create(&fkms->drm);
	if (!fkms->infences) {
		ret = -ENOMEM;
		goto err_instance;
	}
	ret = drmm_add_action_or_reset(&fkms->drm, flipkms_infences_release,
				       fkms->infences);
	if (ret)
		goto err_instance;

	ret = flipkms_modeset_init(fkms);
	if (ret)
		goto err_outputs;

	ret = drm_dev_register(&fkms->drm, 0);
	if (ret)
		goto err_outputs;

	/* 32 bpp, XRGB8888: 0 would take preferred_depth (24), RGB888. */
	if (config->fbdev)
#if FLIPKMS_HAS_FBDEV_SHMEM
		drm_fbdev_shmem_setup(&fkms->drm, 32);
#else
		drm_fbdev_generic_setup(&fkms->drm, 32);
#endif

	return fkms;

err_outputs:
	flipkms_outputs_detach(fkms);
err_instance:
	ida_free(&flipkms_instances, fkms->instance);
err_devres:
	devres_release_group(&pdev->dev, NULL);
err_unregister:
	platform_device_unregister(pdev);
	return ERR_PTR(ret);
}

/**
 * flipkms_device_destroy() - unplug a device and let it go
 * @fkms:	the device
 *
 * Clients that hold the card open see it unplugged (their calls fail
 * with ENODEV); the DRM device is freed when the last of them closes it
 * and the last commit is done: a nonblocking commit still waiting for
 * its in-fence outlives the shutdown (the helpers give up on it after
 * their timeouts), and its outputs, timelines and timers stay until then
 * (flipkms_outputs_release()). A commit waiting for a stand-in
 * (infence_timeout_ms) goes ahead at once instead. Its description is not
 * touched after this.
 */
void flipkms_device_destroy(struct flipkms_device *fkms)
{
	struct platform_device *pdev = fkms->pdev;

	drm_dev_unplug(&fkms->drm);
	flipkms_infences_unplug(fkms->infences);
	drm_atomic_helper_shutdown(&fkms->drm);
	flipkms_outputs_detach(fkms);
	ida_free(&flipkms_instances, fkms->instance);
	devres_release_group(&pdev->dev, NULL);
	platform_device_unregister(pdev);
}

/* The module: the default device, then configfs for the others. */

static struct flipkms_config *flipkms_default_config;
static struct flipkms_device *flipkms_default;

static int __init flipkms_init(void)
{
	struct flipkms_config *config;
	struct flipkms_device *fkms;
	int ret;

	if (outputs < 1 || outputs > FLIPKMS_MAX_OUTPUTS ||
	    overlays > FLIPKMS_MAX_OVERLAYS) {
		pr_err("flipkms: outputs must be 1-%d and overlays 0-%d\n",
		       FLIPKMS_MAX_OUTPUTS, FLIPKMS_MAX_OVERLAYS);
		return -EINVAL;
	}
	ret = flipkms_output_parse_params();
	if (ret)
		return ret;
	ret = flipkms_vrr_parse_params();
	if (ret)
		return ret;

	config = flipkms_config_default(outputs, overlays, cursor);
	if (!config)
		return -ENOMEM;
	config->fbdev = fbdev;
	config->fail_output = fail_output;

	fkms = flipkms_device_create(config, DRIVER_NAME);
	if (IS_ERR(fkms)) {
		ret = PTR_ERR(fkms);
		goto err_config;
	}

	ret = flipkms_configfs_register();
	if (ret)
		goto err_device;

	flipkms_default_config = config;
	flipkms_default = fkms;
	return 0;

err_device:
	flipkms_device_destroy(fkms);
err_config:
	flipkms_config_destroy(config);
	return ret;
}

/* configfs holds the module while it has devices: only the default is left. */
static void __exit flipkms_exit(void)
{
	flipkms_configfs_unregister();
	flipkms_device_destroy(flipkms_default);
	flipkms_config_destroy(flipkms_default_config);
}

module_init(flipkms_init);
module_exit(flipkms_exit);

MODULE_DESCRIPTION(DRIVER_DESC);
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SYNCFW);
