/* SPDX-License-Identifier: MIT */
/*
 * result_line(): how every C test in tests/ prints a result line ("ok -
 * NAME", "not ok - NAME: why", "skip - NAME: why"). The line goes to
 * stdout and, under tests/runner, is also appended to the file
 * $FLIPFENCE_RESULT_LOG: the runner counts an "ok" or "skip" line only if
 * it finds it there too, so that an "ok - " line some tool prints on the
 * way (fliplat, modetest, a shell command's output) is never a pass.
 *
 * Header-only, so that the host unit tests, which do not link
 * tests/lib/check.c, print through it as well.
 */
#ifndef FLIPFENCE_TESTS_LIB_RESULT_H
#define FLIPFENCE_TESTS_LIB_RESULT_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

/* @line without its newline; flushed at once, so a crash loses no line. */
static inline void result_line(const char *line)
{
	const char *log = getenv("FLIPFENCE_RESULT_LOG");
	struct iovec iov[2] = {
		{ .iov_base = (void *)line, .iov_len = strlen(line) },
		{ .iov_base = "\n", .iov_len = 1 },
	};
	int fd;

	printf("%s\n", line);
	fflush(stdout);
	if (!log || !*log)
		return;
	/* Opened per line: no descriptor stays open for count_open_fds() to see. */
	fd = open(log, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return;
	/* One writev(2) per line: lines of several processes do not interleave. */
	(void)!writev(fd, iov, 2);
	close(fd);
}

/* "ok - @name". */
static inline void result_ok(const char *name)
{
	char line[512];

	snprintf(line, sizeof(line), "ok - %s", name);
	result_line(line);
}

/* Failed results so far, for a test's exit status (see result_equal()). */
static int result_failures __attribute__((unused));

/* "ok - @name" if @got is @want, else "not ok - @name: expected W, got G". */
static inline void result_equal(const char *name, long want, long got)
{
	if (want == got) {
		result_ok(name);
	} else {
		printf("not ok - %s: expected %ld, got %ld\n", name, want, got);
		fflush(stdout);
		result_failures++;
	}
}

/* How often @what occurs in [@from, @to) (@to NULL: to the end); for reports. */
static inline long result_count(const char *from, const char *to, const char *what)
{
	long n = 0;

	while ((from = strstr(from, what)) && (!to || from < to)) {
		n++;
		from += strlen(what);
	}
	return n;
}

/* "ok - @name" if @text has @want (@has) or has not (!@has), else why not. */
static inline void result_has(const char *name, const char *text, const char *want, int has)
{
	if (!!strstr(text, want) == !!has) {
		result_ok(name);
	} else {
		printf("not ok - %s: expected %s\"%s\"\n", name, has ? "" : "no ", want);
		fflush(stdout);
		result_failures++;
	}
}

#endif /* FLIPFENCE_TESTS_LIB_RESULT_H */
