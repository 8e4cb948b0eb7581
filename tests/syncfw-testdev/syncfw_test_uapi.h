/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The ioctls of syncfw_testdev, a test-only module that lets the guest
 * tests reach syncfw's own kernel API (sync_fence_merge(),
 * sync_fence_wait(), sync_timeline_signal_timestamp_locked()), which
 * sw_sync and SYNC_IOC_MERGE do not use. Its node is
 * <debugfs>/syncfw_test (root only); each open is a timeline at 0.
 */
#ifndef SYNCFW_TEST_UAPI_H
#define SYNCFW_TEST_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SYNCFW_TEST_PATH	"/sys/kernel/debug/syncfw_test"

/* A fence (sync_fence_create()) at @value on this open's timeline. */
struct syncfw_test_fence {
	__u32 value;
	__s32 fence;		/* out */
};

/* Advance to @value and signal, stamped @timestamp_ns (CLOCK_MONOTONIC). */
struct syncfw_test_signal {
	__u32 value;
	__u32 pad;
	__s64 timestamp_ns;
};

/* sync_fence_merge() of two sync_file fds into a new one. */
struct syncfw_test_merge {
	__s32 fd1;
	__s32 fd2;
	__s32 fence;		/* out */
	char name[32];
};

/* sync_fence_wait(@fd, @timeout_ms): its return value in @status. */
struct syncfw_test_wait {
	__s32 fd;
	__s32 status;		/* out */
	__s64 timeout_ms;
};

/*
 * HOLD creates a point at the given __u32 value and keeps it unpublished;
 * PUBLISH publishes the held point (it stays this open's until close).
 */
#define SYNCFW_TEST_IOC_FENCE	_IOWR('F', 0, struct syncfw_test_fence)
#define SYNCFW_TEST_IOC_SIGNAL	_IOW('F', 1, struct syncfw_test_signal)
#define SYNCFW_TEST_IOC_MERGE	_IOWR('F', 2, struct syncfw_test_merge)
#define SYNCFW_TEST_IOC_WAIT	_IOWR('F', 3, struct syncfw_test_wait)
#define SYNCFW_TEST_IOC_HOLD	_IOW('F', 4, __u32)
#define SYNCFW_TEST_IOC_PUBLISH	_IO('F', 5)

#endif /* SYNCFW_TEST_UAPI_H */
