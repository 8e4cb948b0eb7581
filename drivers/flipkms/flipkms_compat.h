/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * The kernel interfaces flipkms uses that differ between the kernel series
 * it is built for (Debian's linux-source-6.1 and -6.12; see
 * Documentation/building.rst). Each difference has one name here, with the
 * release that brought it; the code tests the name where it differs and
 * uses the newer interface as that release has it.
 */
#ifndef _FLIPKMS_COMPAT_H_
#define _FLIPKMS_COMPAT_H_

#include <linux/version.h>

/*
 * 6.2: a debugfs EDID override lives in &drm_connector.edid_override and
 * drm_edid_override_connector_update() adds its modes; before, it replaced
 * the EDID property and set &drm_connector.override_edid.
 */
#define FLIPKMS_HAS_EDID_OVERRIDE_UPDATE \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0))

/*
 * 6.8: the writeback format check is a connector check,
 * drm_atomic_helper_check_wb_connector_state(connector, state); before, an
 * encoder check, drm_atomic_helper_check_wb_encoder_state().
 */
#define FLIPKMS_HAS_WB_CONNECTOR_CHECK \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0))

/*
 * 6.10: __assign_str() takes only the field; the source is the one its
 * __string() names.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define flipkms_assign_str(field, src) __assign_str(field)
#else
#define flipkms_assign_str(field, src) __assign_str(field, src)
#endif

/*
 * 6.11: GEM shmem drivers have their own fbdev emulation,
 * drm_fbdev_shmem_setup(); drm_fbdev_generic_setup() became fbdev-ttm.
 */
#define FLIPKMS_HAS_FBDEV_SHMEM \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0))

/* 6.12: <asm/unaligned.h> moved to <linux/unaligned.h>. */
#define FLIPKMS_HAS_LINUX_UNALIGNED \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0))

#endif /* _FLIPKMS_COMPAT_H_ */
