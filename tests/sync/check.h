/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers for the tests in tests/sync: the result framework of
 * tests/lib (one result line per check, "ok - NAME" or "not ok - NAME:
 * expected X, got Y", the watchdog, clock and open-descriptor probes), and
 * the sync-specific probes (fence status and size, debugfs sync/info) and
 * set-up steps that several tests need.
 *
 * These are header-only on purpose: each .c file in tests/sync is one test
 * program, linked with tests/lib/check.c only.
 */
#ifndef FLIPFENCE_TESTS_SYNC_CHECK_H
#define FLIPFENCE_TESTS_SYNC_CHECK_H

/* What these helpers use, and what the tests over them expect from here. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "sync.h"

#include "../lib/check.h"

/*
 * syncfw's debugfs files are in syncfw/; sync/ is mainline's path, a link
 * to syncfw/ on a kernel without mainline's sw_sync.
 */
#define SYNC_INFO_PATH		"/sys/kernel/debug/syncfw/info"
#define SW_SYNC_DEV_PATH	"/dev/sw_sync"
#define SW_SYNC_DEBUGFS_PATH	"/sys/kernel/debug/sync/sw_sync"
#define SYNCFW_DEBUGFS_DIR	"/sys/kernel/debug/syncfw"
#define SYNCFW_SW_SYNC_PATH	SYNCFW_DEBUGFS_DIR "/sw_sync"
#define MAINLINE_DEBUGFS_DIR	"/sys/kernel/debug/sync"

/* The status of a fence as a whole, or -1000 - errno if FILE_INFO failed. */
static inline int fence_status(int fd)
{
	struct sync_file_info info;

	memset(&info, 0, sizeof(info));
	if (ioctl(fd, SYNC_IOC_FILE_INFO, &info) < 0)
		return -1000 - errno;
	return info.status;
}

/* The number of points in a fence, or -1 if FILE_INFO failed. */
static inline int fence_size(int fd)
{
	struct sync_file_info info;

	memset(&info, 0, sizeof(info));
	if (ioctl(fd, SYNC_IOC_FILE_INFO, &info) < 0)
		return -1;
	return (int)info.num_fences;
}

/* Whether a fence has signalled, asked without waiting: 1, 0, or -1. */
static inline int fence_polled(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n = poll(&pfd, 1, 0);

	if (n < 0)
		return -1;
	return n > 0 && (pfd.revents & POLLIN);
}

/*
 * Reads the whole of a (debugfs) text file into a NUL-terminated buffer the
 * caller frees; *len gets its length. NULL with errno set on failure.
 */
static inline char *read_text(const char *path, size_t *len)
{
	size_t size = 16384, used = 0;
	char *buf = malloc(size), *bigger;
	ssize_t n;
	int fd, err;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto err_free;
	for (;;) {
		if (size - used < 4096) {
			bigger = realloc(buf, size * 2);
			if (!bigger) {
				errno = ENOMEM;
				goto err_close;
			}
			buf = bigger;
			size *= 2;
		}
		n = read(fd, buf + used, size - used - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto err_close;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	buf[used] = '\0';
	if (len)
		*len = used;
	return buf;

err_close:
	err = errno;
	close(fd);
	errno = err;
err_free:
	err = errno;
	free(buf);
	errno = err;
	return NULL;
}

/* 1 if syncfw's debugfs info mentions @name, 0 if not, -1 if unreadable. */
static inline int info_mentions(const char *name)
{
	char *text = read_text(SYNC_INFO_PATH, NULL);
	int found;

	if (!text)
		return -1;
	found = strstr(text, name) != NULL;
	free(text);
	return found;
}

/* A sw_sync timeline, or the program stops: every later check needs it. */
static inline int must_timeline(void)
{
	int tl = sw_sync_timeline_create();

	require(tl >= 0, "sw_sync timeline");
	return tl;
}

/* A sw_sync fence at @value on @tl, or the program stops. */
static inline int must_fence(int tl, const char *name, unsigned int value)
{
	int f = sw_sync_fence_create(tl, name, value);

	require(f >= 0, "sw_sync fence");
	return f;
}

/* A name no other process and no earlier run can have given a fence. */
static inline void unique_name(char *buf, size_t size, const char *prefix)
{
	snprintf(buf, size, "%s-%d-%lld", prefix, (int)getpid(),
		 (long long)(now_ns() % 1000000000));
}

#endif /* FLIPFENCE_TESTS_SYNC_CHECK_H */
