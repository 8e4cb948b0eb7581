/* SPDX-License-Identifier: MIT */
/*
 * The result framework of every C test in tests/: tests/sync (through
 * tests/sync/check.h), tests/kms and the areas built with kms-area.mk
 * (through tests/kms/kms.h). A test prints one line per check, which
 * tests/runner counts:
 *
 *	ok - NAME
 *	not ok - NAME: expected X, got Y
 *	skip - NAME: reason
 *	# comment
 *
 * and returns finish() from main(): 1 if any check failed, else 0.
 *
 * The state (failures so far, the check in progress) lives in check.c, one
 * object linked into each program, so that helpers compiled apart from the
 * test (kms.c's require()s) count into the same result and name the same
 * check.
 */
#ifndef FLIPFENCE_TESTS_LIB_CHECK_H
#define FLIPFENCE_TESTS_LIB_CHECK_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

/* --- result lines ------------------------------------------------------- */

void ok(const char *name);
/* A failed check: "not ok - @name: <@fmt...>", counted for finish(). */
void __attribute__((format(printf, 2, 3))) not_ok(const char *name, const char *fmt, ...);
/* A check that cannot apply here (no such plane, no such tool): not counted. */
void __attribute__((format(printf, 2, 3))) skip(const char *name, const char *fmt, ...);
void __attribute__((format(printf, 1, 2))) comment(const char *fmt, ...);
/*
 * Counts a failure whose "not ok" line was printed some other way (a
 * child's line passed on as it is), so that finish() still sees it.
 */
void count_failure(void);

/* --- checks: each returns whether it passed, so callers can skip dependents */

/* ok(@name) if @cond, else not_ok(@name, @fmt...). */
bool __attribute__((format(printf, 3, 4))) check(const char *name, bool cond, const char *fmt, ...);
/* Passes if @got == @want; the failure says "expected @want, got @got". */
bool check_int(const char *name, long long want, long long got);
/* A call that must fail: @ret must be -1 and its errno (@got_errno) @err. */
bool check_fails(const char *name, int ret, int err, int got_errno);
/* A call that must succeed: @ret must be >= 0. */
bool check_succeeds(const char *name, int ret, int got_errno);

/* Evaluates a call and checks it fails with @err / succeeds, errno captured. */
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

/* --- the program's course ----------------------------------------------- */

/* Names the check in progress (until then "setup"), for require() and the watchdog. */
void begin(const char *name);
/* The name begin() last gave, for failures found outside a check of their own. */
const char *current_check(void);
/*
 * A setup step every later check needs: unless @cond, prints "not ok -
 * <check in progress>: setup failed: @what (<errno>)" and exits 1.
 */
void require(bool cond, const char *what);
/*
 * Once the program has run @seconds, fails the check in progress and exits
 * 1: a hung kernel wait then names the check it hung in, instead of the
 * runner's timeout killing the program without a word. Under tests/runner,
 * @seconds is cut to end 5 s before the runner's deadline for the test
 * ($FLIPFENCE_DEADLINE), so that the watchdog always fires first.
 */
void watchdog(unsigned int seconds);
/* The program's exit status: 1 if any check failed, else 0. */
int finish(void);

/* --- probes ------------------------------------------------------------- */

/* "EINVAL" for EINVAL, "0" for 0, "errno N" for a number glibc has no name for. */
const char *errno_name(int err);
/* CLOCK_MONOTONIC, the clock of fence timestamps and DRM events. */
int64_t now_ns(void);
/* Sleeps @ms in full, whatever signals interrupt it. */
void sleep_ms(unsigned int ms);
/* Entries in /proc/self/fd, not counting the one used to read it; -1 on error. */
int count_open_fds(void);
/* Whether the running kernel is Linux @major.@minor or later. */
bool kernel_at_least(int major, int minor);
/* Writes @value to the (sysfs, debugfs) file @path: 0, or -errno. */
int write_text(const char *path, const char *value);

#endif /* FLIPFENCE_TESTS_LIB_CHECK_H */
