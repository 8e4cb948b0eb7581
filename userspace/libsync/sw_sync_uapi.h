/* SPDX-License-Identifier: MIT */
/*
 * The sw_sync ioctls. They are not in the uapi headers: mainline keeps them
 * in drivers/dma-buf/sw_sync.c, and syncfw's /dev/sw_sync implements the
 * same ABI. Defined here exactly as there, for libsync and for the tests
 * that issue them raw.
 */
#ifndef FLIPFENCE_SW_SYNC_UAPI_H
#define FLIPFENCE_SW_SYNC_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

struct sw_sync_create_fence_data {
	__u32	value;
	char	name[32];
	__s32	fence;
};

#define SW_SYNC_IOC_MAGIC	'W'
#define SW_SYNC_IOC_CREATE_FENCE \
	_IOWR(SW_SYNC_IOC_MAGIC, 0, struct sw_sync_create_fence_data)
#define SW_SYNC_IOC_INC		_IOW(SW_SYNC_IOC_MAGIC, 1, __u32)

/*
 * The earliest deadline set on a sw_sync fence (Linux 6.8's
 * SW_SYNC_GET_DEADLINE; syncfw's /dev/sw_sync on kernels with fence
 * deadlines, 6.4 and later): issued on the timeline, naming the fence.
 */
struct sw_sync_get_deadline {
	__u64	deadline_ns;
	__u32	pad;
	__s32	fence_fd;
};

#define SW_SYNC_GET_DEADLINE \
	_IOWR(SW_SYNC_IOC_MAGIC, 2, struct sw_sync_get_deadline)

#endif /* FLIPFENCE_SW_SYNC_UAPI_H */
