// SPDX-License-Identifier: MIT
/*
 * deadline: fence deadlines on syncfw's points (kernels from 6.4; the
 * SYNC_IOC_SET_DEADLINE ioctl from 6.8): a waiter's deadline is kept, the
 * earliest one wins, a merged fence passes it to each of its points,
 * SW_SYNC_GET_DEADLINE reports it with mainline's ABI and errnos, the
 * debugfs dump shows it on the point's line and the trace event
 * syncfw:syncfw_pt_deadline records each one. On an older kernel the
 * feature is absent by design: both ioctls fail with ENOTTY, the dump
 * shows no deadline and there is no trace event.
 *
 * usage: deadline
 */
#include "check.h"
#include "sw_sync_uapi.h"

#define DEADLINE_EVENT	"events/syncfw/syncfw_pt_deadline"
#define MS		1000000LL

/* @file in tracefs: mounted on its own, or through debugfs. */
static const char *tracefs(const char *file)
{
	static char path[128];
	const char *dir = access("/sys/kernel/tracing/trace", F_OK) == 0 ?
			  "/sys/kernel/tracing" : "/sys/kernel/debug/tracing";

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return path;
}

/* The dump's line for the fence named @name, or "" (static buffer). */
static const char *dump_line(const char *name)
{
	static char line[256];
	char *text = read_text(SYNC_INFO_PATH, NULL), *p, *end;
	char key[80];

	line[0] = 0;
	if (!text)
		return line;
	snprintf(key, sizeof(key), "\n%s: ", name);
	p = strstr(text, key);
	if (p) {
		p++;
		end = strchr(p, '\n');
		snprintf(line, sizeof(line), "%.*s", end ? (int)(end - p) : (int)strlen(p), p);
	}
	free(text);
	return line;
}

static void test_absent(void)
{
	const char *line;
	char name[64];
	uint64_t d = 0;
	int tl = must_timeline(), f;

	unique_name(name, sizeof(name), "deadline-absent");
	f = must_fence(tl, name, 1);
	CHECK_FAILS("set-deadline-enotty", sync_set_deadline(f, now_ns() + 10 * MS), ENOTTY);
	CHECK_FAILS("get-deadline-enotty", sw_sync_fence_deadline(tl, f, &d), ENOTTY);
	line = dump_line(name);
	check("dump-shows-no-deadline", !strstr(line, " deadline @"),
	      "expected no deadline on the fence's dump line, got '%s'", line);
	check("no-trace-event", access(tracefs("events/syncfw"), F_OK) == 0 &&
	      access(tracefs(DEADLINE_EVENT), F_OK) != 0,
	      "expected syncfw's events without %s on a kernel without deadlines", DEADLINE_EVENT);
	close(f);
	close(tl);
}

/* The deadline sw_sync reports for @f, 0 if none (errno ENOENT), or -errno. */
static long long get_deadline(int tl, int f)
{
	uint64_t d = 0;

	if (sw_sync_fence_deadline(tl, f, &d))
		return errno == ENOENT ? 0 : -errno;
	return (long long)d;
}

static void test_earliest_wins(int tl)
{
	long long t = (long long)(now_ns() + 500 * MS);
	char name[64], want[64];
	const char *line;
	int f;

	unique_name(name, sizeof(name), "deadline-earliest");
	f = must_fence(tl, name, 1);
	CHECK_FAILS("none-set-enoent", sw_sync_fence_deadline(tl, f, &(uint64_t){ 0 }), ENOENT);
	CHECK_SUCCEEDS("set-deadline", sync_set_deadline(f, t));
	check_int("deadline-reported", t, get_deadline(tl, f));
	CHECK_SUCCEEDS("set-later-deadline", sync_set_deadline(f, t + MS));
	check_int("later-deadline-ignored", t, get_deadline(tl, f));
	CHECK_SUCCEEDS("set-earlier-deadline", sync_set_deadline(f, t - MS));
	check_int("earlier-deadline-kept", t - MS, get_deadline(tl, f));

	snprintf(want, sizeof(want), "active deadline @%lld", t - MS);
	line = dump_line(name);
	check("dump-shows-deadline", strstr(line, want) != NULL,
	      "expected '%s' on the fence's dump line, got '%s'", want, line);

	/* Kept once signalled (mainline's rule); a late one changes nothing. */
	require(sw_sync_timeline_inc(tl, 1) == 0, "signal");
	check_int("kept-after-signal", t - MS, get_deadline(tl, f));
	CHECK_SUCCEEDS("set-deadline-after-signal", sync_set_deadline(f, t - 2 * MS));
	check_int("signalled-fence-takes-no-deadline", t - MS, get_deadline(tl, f));
	close(f);
}

/* Points of two timelines: a merge of one timeline's would keep the later. */
static void test_merged(int tl)
{
	long long t = (long long)(now_ns() + 400 * MS);
	int tl2 = must_timeline(), a = must_fence(tl, "deadline-a", 10);
	int b = must_fence(tl2, "deadline-b", 1), m;

	m = sync_merge("deadline-ab", a, b);
	require(m >= 0, "merge");
	CHECK_SUCCEEDS("set-deadline-on-merged", sync_set_deadline(m, t));
	check_int("merged-passes-deadline-to-first", t, get_deadline(tl, a));
	check_int("merged-passes-deadline-to-second", t, get_deadline(tl2, b));
	/* The merged fence is a dma_fence_array, not a sw_sync point. */
	CHECK_FAILS("get-deadline-of-merged-einval", sw_sync_fence_deadline(tl, m, &(uint64_t){ 0 }),
		    EINVAL);
	close(m);
	close(a);
	close(b);
	close(tl2);
}

#define HUGE_DEADLINE	((1ull << 63) + 5)

static void test_bad_arguments(int tl)
{
	struct sw_sync_get_deadline data;
	int f = must_fence(tl, "deadline-args", 20), p[2], ret;
	uint64_t d = 0;

	require(pipe(p) == 0, "pipe");
	CHECK_FAILS("get-deadline-of-pipe-einval", sw_sync_fence_deadline(tl, p[0], &(uint64_t){ 0 }),
		    EINVAL);
	CHECK_FAILS("get-deadline-of-closed-fd-einval",
		    sw_sync_fence_deadline(tl, 100000, &(uint64_t){ 0 }), EINVAL);
	memset(&data, 0, sizeof(data));
	data.fence_fd = f;
	data.pad = 1;
	CHECK_FAILS("get-deadline-pad-einval", ioctl(tl, SW_SYNC_GET_DEADLINE, &data), EINVAL);
	memset(&data, 0, sizeof(data));
	data.fence_fd = f;
	data.deadline_ns = 1;
	CHECK_FAILS("get-deadline-nonzero-in-einval", ioctl(tl, SW_SYNC_GET_DEADLINE, &data),
		    EINVAL);
	CHECK_FAILS("set-deadline-on-pipe-einval", sync_set_deadline(p[0], now_ns()), EINVAL);
	close(p[0]);
	close(p[1]);
	close(f);

	/* A __u64 deadline past INT64_MAX is a negative ktime: still a deadline. */
	f = must_fence(tl, "deadline-huge", 21);
	CHECK_SUCCEEDS("set-deadline-past-int64-max", sync_set_deadline(f, HUGE_DEADLINE));
	errno = 0;
	ret = sw_sync_fence_deadline(tl, f, &d);
	check("deadline-past-int64-max-reported", ret == 0 && d == HUGE_DEADLINE,
	      "expected 0 and %llu, got %d (%s) and %llu", (unsigned long long)HUGE_DEADLINE, ret,
	      errno_name(errno), (unsigned long long)d);
	close(f);
}

/* The trace event fires for each deadline set, saying which ones won. */
static void test_trace(int tl)
{
	long long t = (long long)(now_ns() + 300 * MS);
	char want_first[96], want_later[96], *text, *was_on;
	int f = must_fence(tl, "deadline-trace", 30);

	/* Put tracing_on back as it was: a later test may trace. */
	was_on = read_text(tracefs("tracing_on"), NULL);
	if (write_text(tracefs("trace"), "") || write_text(tracefs(DEADLINE_EVENT "/enable"), "1") ||
	    write_text(tracefs("tracing_on"), "1")) {
		not_ok("trace-event-records-deadlines", "cannot enable %s", DEADLINE_EVENT);
		free(was_on);
		close(f);
		return;
	}
	sync_set_deadline(f, t);
	sync_set_deadline(f, t + MS);
	write_text(tracefs(DEADLINE_EVENT "/enable"), "0");
	write_text(tracefs("tracing_on"), "0");
	text = read_text(tracefs("trace"), NULL);
	write_text(tracefs("tracing_on"), was_on && was_on[0] == '0' ? "0" : "1");
	free(was_on);
	snprintf(want_first, sizeof(want_first), "seqno=30 deadline=%lld earliest=1", t);
	snprintf(want_later, sizeof(want_later), "seqno=30 deadline=%lld earliest=0", t + MS);
	check("trace-event-records-deadlines",
	      text && strstr(text, want_first) && strstr(text, want_later),
	      "expected '%s' and '%s' in the trace", want_first, want_later);
	free(text);
	close(f);
}

int main(void)
{
	int tl;

	watchdog(60);
	/* SYNC_IOC_SET_DEADLINE came in 6.8 (.set_deadline in 6.4). */
	if (!kernel_at_least(6, 8)) {
		comment("no fence deadlines on this kernel (6.8's SYNC_IOC_SET_DEADLINE): absent by design");
		test_absent();
		return finish();
	}
	tl = must_timeline();
	test_earliest_wins(tl);
	test_merged(tl);
	test_bad_arguments(tl);
	test_trace(tl);
	close(tl);
	return finish();
}
