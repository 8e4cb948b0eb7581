// SPDX-License-Identifier: GPL-2.0+
/*
 * flipkms: a virtual KMS driver whose page flips carry sync framework
 * out-fences.
 */

#include <linux/module.h>
#include <linux/platform_device.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_mode_config.h>

#define DRIVER_NAME	"flipkms"
#define DRIVER_DESC	"Virtual KMS with sync framework page-flip fences"
#define DRIVER_DATE	"20261203"
#define DRIVER_MAJOR	1
#define DRIVER_MINOR	0

struct flipkms_device {
	struct drm_device drm;
	struct platform_device *pdev;
};

static struct flipkms_device *flipkms;

DEFINE_DRM_GEM_FOPS(flipkms_fops);

static const struct drm_driver flipkms_driver = {
	.driver_features	= DRIVER_MODESET | DRIVER_ATOMIC | DRIVER_GEM,
	.fops			= &flipkms_fops,
	DRM_GEM_SHMEM_DRIVER_OPS,
	.name			= DRIVER_NAME,
	.desc			= DRIVER_DESC,
	.date			= DRIVER_DATE,
	.major			= DRIVER_MAJOR,
	.minor			= DRIVER_MINOR,
};

static int __init flipkms_init(void)
{
	struct platform_device *pdev;
	struct flipkms_device *fkms;
	int ret;

	pdev = platform_device_register_simple(DRIVER_NAME, -1, NULL, 0);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);

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

	ret = drmm_mode_config_init(&fkms->drm);
	if (ret)
		goto err_devres;

	ret = drm_dev_register(&fkms->drm, 0);
	if (ret)
		goto err_devres;

	flipkms = fkms;
	return 0;

err_devres:
	devres_release_group(&pdev->dev, NULL);
err_unregister:
	platform_device_unregister(pdev);
	return ret;
}

static void __exit flipkms_exit(void)
{
	struct platform_device *pdev = flipkms->pdev;

	drm_dev_unregister(&flipkms->drm);
	devres_release_group(&pdev->dev, NULL);
	platform_device_unregister(pdev);
}

module_init(flipkms_init);
module_exit(flipkms_exit);

MODULE_DESCRIPTION(DRIVER_DESC);
MODULE_LICENSE("GPL");
