// SPDX-License-Identifier: MIT
/*
 * check.c: the result framework declared in check.h, linked into every C
 * test program in tests/.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "check.h"
#include "result.h"

static int failures;
/* Read by the watchdog's signal handler, so never cached in a register. */
static const char *volatile current = "setup";
static unsigned int watchdog_seconds;

/* --- result lines ------------------------------------------------------- */

void ok(const char *name)
{
	result_ok(name);
}

/* Flushed at once: a crash or the watchdog's _exit() must not lose lines. */
static void vline(const char *prefix, const char *name, const char *fmt, va_list ap)
{
	char line[4096];
	int n;

	n = snprintf(line, sizeof(line), "%s - %s: ", prefix, name);
	if (n >= 0 && (size_t)n < sizeof(line))
		vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	result_line(line);
}

void not_ok(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("not ok", name, fmt, ap);
	va_end(ap);
	failures++;
}

void skip(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("skip", name, fmt, ap);
	va_end(ap);
}

void comment(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void count_failure(void)
{
	failures++;
}

/* --- checks ------------------------------------------------------------- */

bool check(const char *name, bool cond, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		ok(name);
		return true;
	}
	va_start(ap, fmt);
	vline("not ok", name, fmt, ap);
	va_end(ap);
	failures++;
	return false;
}

bool check_int(const char *name, long long want, long long got)
{
	return check(name, want == got, "expected %lld, got %lld", want, got);
}

bool check_fails(const char *name, int ret, int err, int got_errno)
{
	if (ret == -1 && got_errno == err) {
		ok(name);
		return true;
	}
	if (ret == -1)
		not_ok(name, "expected -1/%s, got -1/%s", errno_name(err),
		       errno_name(got_errno));
	else
		not_ok(name, "expected -1/%s, got %d", errno_name(err), ret);
	return false;
}

bool check_succeeds(const char *name, int ret, int got_errno)
{
	if (ret >= 0) {
		ok(name);
		return true;
	}
	not_ok(name, "expected success, got %d/%s", ret, errno_name(got_errno));
	return false;
}

/* --- the program's course ----------------------------------------------- */

void begin(const char *name)
{
	current = name;
}

const char *current_check(void)
{
	return current;
}

void require(bool cond, const char *what)
{
	if (cond)
		return;
	not_ok(current, "setup failed: %s (%s)", what, errno_name(errno));
	exit(1);
}

/* The program may be stuck anywhere, even inside stdio: write(2), not printf. */
static void watchdog_fired(int sig)
{
	char msg[256];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg),
		     "not ok - %s: expected to finish within %u s, got stuck (watchdog)\n",
		     current, watchdog_seconds);
	if (n > 0)
		(void)!write(STDOUT_FILENO, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
	_exit(1);
}

/*
 * Seconds left before tests/runner kills the test, less a margin for the
 * watchdog's own line: the runner exports its deadline on the boot-time
 * clock (/proc/uptime) as $FLIPFENCE_DEADLINE. 0 if there is none.
 */
static unsigned int seconds_to_deadline(void)
{
	const char *s = getenv("FLIPFENCE_DEADLINE");
	struct timespec ts;
	long long left;

	if (!s || !*s || clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
		return 0;
	left = strtoll(s, NULL, 10) - ts.tv_sec - 5;
	return left < 1 ? 1 : (unsigned int)left;
}

void watchdog(unsigned int seconds)
{
	unsigned int left = seconds_to_deadline();

	/* A watchdog the runner's timeout would beat could never name the check. */
	if (left && left < seconds)
		seconds = left;
	watchdog_seconds = seconds;
	signal(SIGALRM, watchdog_fired);
	alarm(seconds);
}

int finish(void)
{
	return failures ? 1 : 0;
}

/* --- probes ------------------------------------------------------------- */

const char *errno_name(int err)
{
	static char buf[24];
	const char *s = err ? strerrorname_np(err) : "0";

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

int write_text(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int count_open_fds(void)
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
