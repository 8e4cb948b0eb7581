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

#endif /* _SYNCFW_COMPAT_H_ */
