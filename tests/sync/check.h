/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers for the tests in tests/sync: one result line per check,
 * "ok - NAME" or "not ok - NAME: expected X, got Y", a watchdog so that a
 * hung kernel wait fails the check it hung in, and small probes (clock, open
 * descriptors, debugfs) that several tests need.
 *
 * Header-only on purpose: each .c file in tests/sync is one test program.
 */
#ifndef FLIPFENCE_TESTS_SYNC_CHECK_H
#define FLIPFENCE_TESTS_SYNC_CHECK_H

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

#define SYNC_INFO_PATH		"/sys/kernel/debug/sync/info"
#define SW_SYNC_DEV_PATH	"/dev/sw_sync"
#define SW_SYNC_DEBUGFS_PATH	"/sys/kernel/debug/sync/sw_sync"

static int check_failures;
static const char *volatile check_current = "startup";

static inline void __attribute__((format(printf, 2, 3)))
not_ok(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("not ok - %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	check_failures++;
}

static inline void ok(const char *name)
{
	printf("ok - %s\n", name);
	fflush(stdout);
}

/* Names the check in progress, for the watchdog's message. */
static inline void begin(const char *name)
{
	check_current = name;
}

static inline const char *errno_name(int e)
{
	static char buf[16];
	const char *s = e ? strerrorname_np(e) : "0";

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

/* A condition that must hold; @fmt says what was found instead. */
static inline int __attribute__((format(printf, 3, 4)))
check(const char *name, int cond, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		ok(name);
		return 1;
	}
	printf("not ok - %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	check_failures++;
	return 0;
}

/* Returns whether the check passed, so that callers can skip dependents. */
static inline int check_int(const char *name, long long expected, long long got)
{
	if (expected == got) {
		ok(name);
		return 1;
	}
	not_ok(name, "expected %lld, got %lld", expected, got);
	return 0;
}

/* A call that must fail: ret must be -1 and errno must be err. */
static inline int check_fails(const char *name, int ret, int err, int got_errno)
{
	if (ret == -1 && got_errno == err) {
		ok(name);
		return 1;
	}
	if (ret == -1)
		not_ok(name, "expected -1/%s, got -1/%s", errno_name(err),
		       errno_name(got_errno));
	else
		not_ok(name, "expected -1/%s, got %d", errno_name(err), ret);
	return 0;
}

/* A call that must succeed: ret must be >= 0. */
static inline int check_succeeds(const char *name, int ret, int got_errno)
{
	if (ret >= 0) {
		ok(name);
		return 1;
	}
	not_ok(name, "expected success, got %d/%s", ret, errno_name(got_errno));
	return 0;
}

/* Evaluate a call and check it fails with @err / succeeds, errno captured. */
#define CHECK_FAILS(name, expr, err) __extension__ ({			\
	int ret_;							\
	errno = 0;							\
	ret_ = (expr);							\
	check_fails((name), ret_, (err), errno);			\
})
#define CHECK_SUCCEEDS(name, expr) __extension__ ({			\
	int ret_;							\
	errno = 0;							\
	ret_ = (expr);							\
	check_succeeds((name), ret_, errno);				\
})

/* Aborts the program if a setup step that every later check needs failed. */
static inline void require(int cond, const char *what)
{
	if (cond)
		return;
	not_ok(check_current, "setup failed: %s (%s)", what, errno_name(errno));
	exit(1);
}

static inline void watchdog_fired(int sig)
{
	char msg[200];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg), "not ok - %s: expected to finish, got stuck (watchdog)\n",
		     check_current);
	if (n > 0)
		(void)!write(STDOUT_FILENO, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
	_exit(1);
}

/* Fails the check in progress and exits if the program runs for @seconds. */
static inline void watchdog(unsigned int seconds)
{
	signal(SIGALRM, watchdog_fired);
	alarm(seconds);
}

static inline int finish(void)
{
	return check_failures ? 1 : 0;
}

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

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

/* The number of entries in /proc/self/fd (the directory's own fd excluded). */
static inline int count_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;
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

/* 1 if debugfs sync/info mentions @name, 0 if not, -1 if unreadable. */
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
