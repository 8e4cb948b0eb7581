/* SPDX-License-Identifier: MIT */
/*
 * libsync: userspace helpers for sync_file fences and sw_sync timelines.
 *
 * The API follows Android's libsync (system/core/libsync) so that code written
 * against it builds unchanged: sync_wait(), sync_merge(), sync_file_info() and
 * the sw_sync_* test helpers. Fences are sync_file file descriptors as defined
 * by <linux/sync_file.h>; timelines are sw_sync file descriptors, one timeline
 * per open() of /dev/sw_sync (or /sys/kernel/debug/sync/sw_sync).
 *
 * Every function that can fail returns -1 (or NULL) and sets errno; none of
 * them prints anything. Timeline descriptors are opened close-on-exec; fence
 * descriptors are whatever the kernel hands out (close-on-exec in mainline).
 *
 * errno, the same in every function:
 *
 *	EBADF	a descriptor argument is not open (a negative one included)
 *	EINVAL	a descriptor is open but is not what the call needs (a
 *		sync_file fence, or a sw_sync timeline); the kernel's ENOTTY
 *		for an ioctl the file does not know, and SYNC_IOC_MERGE's
 *		ENOENT for a second descriptor that is not a fence, both
 *		become EINVAL or EBADF here
 *	ETIME	sync_wait() timed out
 *	ENOTTY	the deadline calls only: the kernel has no fence deadlines
 *	ENOENT	sw_sync_fence_deadline() only: no deadline was set
 *	other	sync_wait(): the error a fence signalled with (ENOENT for a
 *		point whose timeline was destroyed, EIO, ...); any call: the
 *		errno of the failing system call (ENOMEM, EMFILE, EOVERFLOW)
 */
#ifndef FLIPFENCE_LIBSYNC_SYNC_H
#define FLIPFENCE_LIBSYNC_SYNC_H

#include <stdint.h>
#include <linux/sync_file.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * sync_wait() - wait for a fence to signal
 * @fd:		sync_file fence
 * @timeout_ms:	milliseconds to wait; 0 polls once, a negative value waits
 *		for ever
 *
 * Waits with poll() until @fd is signalled. Signals that interrupt the wait
 * restart it with the time that is left.
 *
 * Return: 0 once the fence has signalled successfully. -1 with errno ETIME if
 * it is still active when @timeout_ms runs out; -1 with errno set to the
 * fence's error (e.g. ENOENT for a point whose timeline was destroyed) if it
 * signalled with an error; -1 with EBADF if @fd is not open, EINVAL if it is
 * not a fence, or the errno of poll() or ioctl() on any other failure.
 */
int sync_wait(int fd, int timeout_ms);

/**
 * sync_merge() - merge two fences into a new one
 * @name:	name of the new fence (truncated to 31 bytes); NULL for ""
 * @fd1:	first fence
 * @fd2:	second fence
 *
 * The new fence signals when every point in both fences has signalled. Points
 * from the same timeline collapse into the later of them. @fd1 and @fd2 stay
 * open and unchanged.
 *
 * Return: the new fence's file descriptor, or -1 with errno EBADF if @fd1 or
 * @fd2 is not open, EINVAL if one is not a fence, or the errno of the
 * SYNC_IOC_MERGE ioctl on any other failure (ENOMEM, EMFILE).
 */
int sync_merge(const char *name, int fd1, int fd2);

/**
 * sync_file_info() - describe a fence and each point it contains
 * @fd:	sync_file fence
 *
 * Issues SYNC_IOC_FILE_INFO twice: once to learn the number of points, then
 * with an array large enough for all of them. ->status is the fence's status
 * (1 signalled, 0 active, <0 error) and ->num_fences the number of points;
 * sync_get_fence_info() returns the array of points.
 *
 * Return: a structure to release with sync_file_info_free(), or NULL with
 * errno EBADF if @fd is not open, EINVAL if it is not a fence, ENOMEM, or
 * the ioctl's errno.
 */
struct sync_file_info *sync_file_info(int fd);

/**
 * sync_get_fence_info() - the points of a sync_file_info
 * @info:	as returned by sync_file_info()
 *
 * Return: an array of @info->num_fences entries, owned by @info; each has
 * obj_name (timeline), driver_name, status and timestamp_ns (CLOCK_MONOTONIC
 * nanoseconds at which the point signalled, 0 while active).
 */
struct sync_fence_info *sync_get_fence_info(const struct sync_file_info *info);

/**
 * sync_file_info_free() - release what sync_file_info() returned
 * @info:	as returned by sync_file_info(); NULL is ignored
 */
void sync_file_info_free(struct sync_file_info *info);

/**
 * sw_sync_timeline_create() - create a software timeline
 *
 * Opens /dev/sw_sync, or /sys/kernel/debug/sync/sw_sync if the device node
 * cannot be opened. The timeline starts at 0 and lives until the descriptor
 * is closed; closing it signals its pending points with -ENOENT.
 *
 * Return: the timeline's file descriptor, or -1 with errno set by open() (of
 * /dev/sw_sync when both fail, unless that node does not exist).
 */
int sw_sync_timeline_create(void);

/**
 * sw_sync_timeline_inc() - advance a timeline
 * @fd:		timeline from sw_sync_timeline_create()
 * @count:	how far to advance; 0 changes nothing
 *
 * Signals every point whose value the timeline reaches.
 *
 * Return: 0, or -1 with errno EBADF if @fd is not open, EINVAL if it is not
 * a timeline, EOVERFLOW if the timeline would pass UINT32_MAX (it is then
 * left unchanged), or the ioctl's errno.
 */
int sw_sync_timeline_inc(int fd, unsigned int count);

/**
 * sw_sync_fence_create() - create a fence on a timeline
 * @fd:		timeline from sw_sync_timeline_create()
 * @name:	name of the fence (truncated to 31 bytes); NULL for ""
 * @value:	the fence signals when the timeline reaches @value; it is born
 *		signalled if the timeline is already there
 *
 * Return: the fence's file descriptor, or -1 with errno EBADF if @fd is not
 * open, EINVAL if it is not a timeline, or the ioctl's errno (ENOMEM,
 * EMFILE).
 */
int sw_sync_fence_create(int fd, const char *name, unsigned int value);

/**
 * sync_set_deadline() - tell a fence's signaller when it is needed
 * @fd:		sync_file fence
 * @deadline_ns: CLOCK_MONOTONIC time, in ns, by which the waiter would
 *		like the fence signalled; a hint, the earliest one counts
 *
 * SYNC_IOC_SET_DEADLINE, Linux 6.8 and later.
 *
 * Return: 0, or -1 with errno EBADF or EINVAL if @fd is not a fence, or
 * ENOTTY if the kernel has no fence deadlines.
 */
int sync_set_deadline(int fd, uint64_t deadline_ns);

/**
 * sw_sync_fence_deadline() - the deadline set on a sw_sync fence
 * @timeline:	the timeline the fence is on
 * @fence:	the fence, from sw_sync_fence_create() on @timeline
 * @deadline_ns: set to the earliest deadline anyone set on the fence
 *		(CLOCK_MONOTONIC ns)
 *
 * SW_SYNC_GET_DEADLINE: on syncfw's sw_sync with a kernel that has fence
 * deadlines (6.4 and later), and on mainline's from 6.8.
 *
 * Return: 0, or -1 with errno ENOENT if no deadline was set (or the fence
 * has signalled), EINVAL if @fence is not a sw_sync fence of @timeline's
 * driver, EBADF if either descriptor is not open, ENOTTY if the kernel
 * cannot tell.
 */
int sw_sync_fence_deadline(int timeline, int fence, uint64_t *deadline_ns);

#ifdef __cplusplus
}
#endif

#endif /* FLIPFENCE_LIBSYNC_SYNC_H */
