// SPDX-License-Identifier: MIT
/*
 * libsync: waiting on, merging and describing sync_file fences.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>

#include "errno-convention.h"
#include "sync.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* -1 with errno EBADF if @fd is not open, else EINVAL. */
static int not_a_fence(int fd)
{
	errno = fd < 0 || fcntl(fd, F_GETFD) < 0 ? EBADF : EINVAL;
	return -1;
}

/* The status of the fence as a whole: 1 signalled, 0 active, <0 error. */
static int sync_status(int fd, int *status)
{
	struct sync_file_info info;

	memset(&info, 0, sizeof(info));
	if (ioctl(fd, SYNC_IOC_FILE_INFO, &info) < 0) {
		errno = sync_errno(errno);
		return -1;
	}
	*status = info.status;
	return 0;
}

int sync_wait(int fd, int timeout_ms)
{
	long long deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
	struct pollfd pfd;
	int left = timeout_ms, status;

	if (fd < 0)
		return not_a_fence(fd);

	for (;;) {
		int ret;

		pfd.fd = fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		ret = poll(&pfd, 1, left < 0 ? -1 : left);
		if (ret > 0)
			break;
		if (ret == 0) {
			errno = ETIME;
			return -1;
		}
		if (errno != EINTR && errno != EAGAIN)
			return -1;
		if (timeout_ms > 0) {
			long long rest = deadline - now_ms();

			left = rest > 0 ? (int)rest : 0;
		}
	}

	if (pfd.revents & POLLNVAL) {
		errno = EBADF;
		return -1;
	}
	if (!(pfd.revents & POLLIN)) {
		errno = EINVAL;
		return -1;
	}
	if (sync_status(fd, &status) < 0)
		return -1;
	if (status < 0) {
		errno = -status;
		return -1;
	}
	if (status == 0) {
		/* POLLIN from something that is not a signalled fence. */
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* Linux 6.8's, for headers older than that. */
#ifndef SYNC_IOC_SET_DEADLINE
struct sync_set_deadline {
	__u64	deadline_ns;
	__u64	pad;
};
#define SYNC_IOC_SET_DEADLINE	_IOW(SYNC_IOC_MAGIC, 5, struct sync_set_deadline)
#endif

int sync_set_deadline(int fd, uint64_t deadline_ns)
{
	struct sync_set_deadline data;
	int status;

	memset(&data, 0, sizeof(data));
	data.deadline_ns = deadline_ns;
	if (ioctl(fd, SYNC_IOC_SET_DEADLINE, &data) == 0)
		return 0;
	if (errno != ENOTTY)
		return -1;
	/* A fence that does not know the ioctl: a kernel without deadlines. */
	if (sync_status(fd, &status) == 0) {
		errno = ENOTTY;
		return -1;
	}
	return not_a_fence(fd);
}

int sync_merge(const char *name, int fd1, int fd2)
{
	struct sync_merge_data data;

	memset(&data, 0, sizeof(data));
	data.fd2 = fd2;
	if (name)
		strncpy(data.name, name, sizeof(data.name) - 1);

	if (ioctl(fd1, SYNC_IOC_MERGE, &data) < 0) {
		/* ENOENT: @fd2 is not an open sync_file (mainline since 4.7). */
		if (errno == ENOENT)
			return not_a_fence(fd2);
		errno = sync_errno(errno);
		return -1;
	}
	return data.fence;
}

struct sync_file_info *sync_file_info(int fd)
{
	struct sync_file_info head, *info;
	size_t n;

	memset(&head, 0, sizeof(head));
	if (ioctl(fd, SYNC_IOC_FILE_INFO, &head) < 0) {
		errno = sync_errno(errno);
		return NULL;
	}

	/*
	 * The points of a sync_file never change, so the count from the
	 * first call is the count for the second. The array lives right
	 * behind the header: one allocation, one free().
	 */
	n = head.num_fences;
	info = calloc(1, sizeof(*info) + n * sizeof(struct sync_fence_info));
	if (!info)
		return NULL;

	if (n == 0) {
		*info = head;
		info->sync_fence_info = 0;
		return info;
	}

	info->num_fences = n;
	info->sync_fence_info = (uint64_t)(uintptr_t)(info + 1);
	if (ioctl(fd, SYNC_IOC_FILE_INFO, info) < 0) {
		int err = errno;

		free(info);
		errno = err;
		return NULL;
	}
	return info;
}

struct sync_fence_info *sync_get_fence_info(const struct sync_file_info *info)
{
	return (struct sync_fence_info *)(uintptr_t)info->sync_fence_info;
}

void sync_file_info_free(struct sync_file_info *info)
{
	free(info);
}
