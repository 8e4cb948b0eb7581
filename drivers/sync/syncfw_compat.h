/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel interfaces syncfw uses that differ between the kernel series
 * it is built for (Debian's linux-source-6.1 and -6.12; see
 * Documentation/building.rst). Each difference has one name here, with the
 * release that brought it.
 */
#ifndef _SYNCFW_COMPAT_H_
#define _SYNCFW_COMPAT_H_

#include <linux/version.h>

/*
 * 6.10: __assign_str() takes only the field; the source is the one its
 * __string() names.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define syncfw_assign_str(field, src) __assign_str(field)
#else
#define syncfw_assign_str(field, src) __assign_str(field, src)
#endif

/*
 * 6.4: a fence's waiters may tell its signaller when they need it
 * (dma_fence_ops.set_deadline; the atomic helpers set the vblank a commit
 * must make, and 6.8's SYNC_IOC_SET_DEADLINE lets userspace). Older
 * kernels have no deadlines: syncfw keeps none and sw_sync has no
 * SW_SYNC_GET_DEADLINE.
 */
#define SYNCFW_HAVE_FENCE_DEADLINE \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0))

#endif /* _SYNCFW_COMPAT_H_ */
