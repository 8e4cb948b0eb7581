// SPDX-License-Identifier: MIT
/*
 * libsync: sw_sync software timelines, for tests and fake renderers.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include <sys/ioctl.h>

#include "errno-convention.h"
#include "sw_sync_uapi.h"
#include "sync.h"

#define SW_SYNC_DEV		"/dev/sw_sync"
#define SW_SYNC_DEBUGFS		"/sys/kernel/debug/sync/sw_sync"

int sw_sync_timeline_create(void)
{
	int fd, err;

	fd = open(SW_SYNC_DEV, O_RDWR | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	err = errno;

	fd = open(SW_SYNC_DEBUGFS, O_RDWR | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	/* Report why the device node failed, unless it simply is not there. */
	if (err != ENOENT)
		errno = err;
	return -1;
}

int sw_sync_timeline_inc(int fd, unsigned int count)
{
	__u32 arg = count;

	if (ioctl(fd, SW_SYNC_IOC_INC, &arg) < 0) {
		errno = sync_errno(errno);
		return -1;
	}
	return 0;
}

int sw_sync_fence_deadline(int timeline, int fence, uint64_t *deadline_ns)
{
	struct sw_sync_get_deadline data;

	memset(&data, 0, sizeof(data));
	data.fence_fd = fence;
	if (ioctl(timeline, SW_SYNC_GET_DEADLINE, &data) < 0) {
		/*
		 * ENOTTY from a timeline (an INC of 0 changes nothing) is a
		 * kernel without the ioctl; from anything else, EINVAL.
		 */
		if (errno == ENOTTY && sw_sync_timeline_inc(timeline, 0) == 0)
			errno = ENOTTY;
		else if (errno == ENOTTY)
			errno = EINVAL;
		return -1;
	}
	*deadline_ns = data.deadline_ns;
	return 0;
}

int sw_sync_fence_create(int fd, const char *name, unsigned int value)
{
	struct sw_sync_create_fence_data data;

	memset(&data, 0, sizeof(data));
	data.value = value;
	if (name)
		strncpy(data.name, name, sizeof(data.name) - 1);

	if (ioctl(fd, SW_SYNC_IOC_CREATE_FENCE, &data) < 0) {
		errno = sync_errno(errno);
		return -1;
	}
	return data.fence;
}
