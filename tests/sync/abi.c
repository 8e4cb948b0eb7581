// SPDX-License-Identifier: MIT
/*
 * abi: the userspace ABI of syncfw's sw_sync timelines and their sync_file
 * fences, checked with raw syscalls (libsync only creates the objects):
 * device nodes, poll(), SYNC_IOC_FILE_INFO fields and timestamps, fences
 * born signalled, timeline teardown (-ENOENT, waking blocked waiters), the
 * U32_MAX rule (EOVERFLOW, nothing changes) and argument checking.
 */
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "check.h"
#include "sw_sync_uapi.h"

static int open_node(const char *path)
{
	return open(path, O_RDWR | O_CLOEXEC);
}

static int inc(int tl, __u32 n)
{
	return ioctl(tl, SW_SYNC_IOC_INC, &n);
}

static int create(int tl, const char *name, __u32 value)
{
	return sw_sync_fence_create(tl, name, value);
}

/* One point's sync_fence_info; status -1000-errno if FILE_INFO failed. */
static struct sync_fence_info point_info(int fd)
{
	struct sync_fence_info fi;
	struct sync_file_info info;

	memset(&fi, 0, sizeof(fi));
	memset(&info, 0, sizeof(info));
	info.num_fences = 1;
	info.sync_fence_info = (__u64)(uintptr_t)&fi;
	if (ioctl(fd, SYNC_IOC_FILE_INFO, &info) < 0)
		fi.status = -1000 - errno;
	return fi;
}

static void test_nodes(void)
{
	const char *nodes[] = { SW_SYNC_DEV_PATH, SYNCFW_SW_SYNC_PATH, SW_SYNC_DEBUGFS_PATH };
	const char *names[] = { "dev-sw_sync-makes-working-timeline",
				"syncfw-debugfs-sw_sync-makes-working-timeline",
				"debugfs-sw_sync-makes-working-timeline" };
	char link[64];
	struct stat st;
	unsigned int i;
	ssize_t n;
	int f, a, b;

	/*
	 * syncfw's files are in its own directory; mainline's path is a link
	 * to it (these kernels have no CONFIG_SW_SYNC), never a directory a
	 * mainline sw_sync would then fail to create.
	 */
	begin("debugfs-sync-is-link-to-syncfw");
	n = readlink(MAINLINE_DEBUGFS_DIR, link, sizeof(link) - 1);
	if (n < 0) {
		not_ok("debugfs-sync-is-link-to-syncfw", "expected a symlink, got %s",
		       errno_name(errno));
	} else {
		link[n] = '\0';
		if (!strcmp(link, "syncfw"))
			ok("debugfs-sync-is-link-to-syncfw");
		else
			not_ok("debugfs-sync-is-link-to-syncfw", "expected \"syncfw\", got \"%s\"",
			       link);
	}
	begin("debugfs-syncfw-is-directory");
	check_int("debugfs-syncfw-is-directory", 1,
		  lstat(SYNCFW_DEBUGFS_DIR, &st) == 0 && S_ISDIR(st.st_mode));

	begin("dev-sw_sync-is-char-device-0600");
	if (stat(SW_SYNC_DEV_PATH, &st) < 0)
		not_ok("dev-sw_sync-is-char-device-0600", "expected a node, got %s",
		       errno_name(errno));
	else if (!S_ISCHR(st.st_mode) || (st.st_mode & 07777) != 0600)
		not_ok("dev-sw_sync-is-char-device-0600", "expected char device 0600, got %s %04o",
		       S_ISCHR(st.st_mode) ? "char device" : "not a char device",
		       (unsigned int)(st.st_mode & 07777));
	else
		ok("dev-sw_sync-is-char-device-0600");

	for (i = 0; i < 3; i++) {
		int tl;

		begin(names[i]);
		tl = open_node(nodes[i]);
		if (tl < 0) {
			not_ok(names[i], "expected to open %s, got %s", nodes[i], errno_name(errno));
			continue;
		}
		f = create(tl, "abi-node", 1);
		if (f < 0) {
			not_ok(names[i], "expected a fence, got %s", errno_name(errno));
		} else {
			int before = fence_polled(f), r = inc(tl, 1), after = fence_polled(f);

			if (before == 0 && r == 0 && after == 1)
				ok(names[i]);
			else
				not_ok(names[i], "expected active, inc 0, signalled; got %d, %d, %d",
				       before, r, after);
			close(f);
		}
		close(tl);
	}

	begin("timelines-are-independent");
	a = open_node(SW_SYNC_DEV_PATH);
	b = open_node(SW_SYNC_DEV_PATH);
	require(a >= 0 && b >= 0, "two timelines");
	f = create(b, "abi-indep", 1);
	require(f >= 0, "fence");
	inc(a, 5);
	check_int("timelines-are-independent", 0, fence_polled(f));
	close(f);
	close(a);
	close(b);
}

static void test_poll_and_info(void)
{
	struct sync_file_info info;
	struct sync_fence_info fi, fi2;
	struct pollfd pfd;
	char comm[17] = "", oldcomm[17] = "";
	int64_t t_inc, t_after;
	int tl, f, flags;

	/* A timeline is named after the opener's comm. */
	prctl(PR_GET_NAME, oldcomm);
	prctl(PR_SET_NAME, "ffabi-owner");
	tl = sw_sync_timeline_create();
	prctl(PR_GET_NAME, comm);
	prctl(PR_SET_NAME, oldcomm);
	require(tl >= 0, "timeline");
	f = create(tl, "abi-poll", 2);
	require(f >= 0, "fence");

	begin("fence-fd-is-cloexec");
	flags = fcntl(f, F_GETFD);
	check_int("fence-fd-is-cloexec", FD_CLOEXEC, flags & FD_CLOEXEC);

	begin("poll-active-fence-not-ready");
	pfd.fd = f;
	pfd.events = POLLIN;
	pfd.revents = 0;
	check_int("poll-active-fence-not-ready", 0, poll(&pfd, 1, 0));

	begin("file-info-zero-num_fences-returns-count");
	memset(&info, 0, sizeof(info));
	if (ioctl(f, SYNC_IOC_FILE_INFO, &info) < 0) {
		not_ok("file-info-zero-num_fences-returns-count", "expected 0, got -1/%s",
		       errno_name(errno));
		/* A zeroed struct would read as status 0: no answer is no pass. */
		not_ok("file-info-active-fence-status-0", "SYNC_IOC_FILE_INFO failed");
	} else {
		check_int("file-info-zero-num_fences-returns-count", 1, info.num_fences);
		check_int("file-info-active-fence-status-0", 0, info.status);
	}

	begin("file-info-nonzero-flags-einval");
	memset(&info, 0, sizeof(info));
	info.flags = 1;
	CHECK_FAILS("file-info-nonzero-flags-einval", ioctl(f, SYNC_IOC_FILE_INFO, &info),
		    EINVAL);
	CHECK_FAILS("file-info-bad-pointer-efault",
		    ioctl(f, SYNC_IOC_FILE_INFO, (void *)1), EFAULT);
	memset(&info, 0, sizeof(info));
	info.num_fences = 1;
	info.sync_fence_info = 8;
	CHECK_FAILS("file-info-bad-array-pointer-efault", ioctl(f, SYNC_IOC_FILE_INFO, &info),
		    EFAULT);

	begin("file-info-active-point");
	fi = point_info(f);
	check_int("file-info-active-point-status-0", 0, fi.status);
	check_int("file-info-active-point-timestamp-0", 0, (long long)fi.timestamp_ns);
	if (fi.obj_name[0] && fi.driver_name[0])
		ok("file-info-names-non-empty");
	else
		not_ok("file-info-names-non-empty", "expected names, got obj \"%.32s\" driver \"%.32s\"",
		       fi.obj_name, fi.driver_name);
	if (!strncmp(fi.obj_name, comm, sizeof(fi.obj_name)))
		ok("timeline-named-after-opener-comm");
	else
		not_ok("timeline-named-after-opener-comm", "expected \"%s\", got \"%.32s\"", comm,
		       fi.obj_name);

	begin("inc-below-value-keeps-fence-active");
	inc(tl, 1);
	check_int("inc-below-value-keeps-fence-active", 0, fence_polled(f));

	begin("poll-signalled-fence-pollin");
	t_inc = now_ns();
	inc(tl, 1);
	pfd.revents = 0;
	check_int("poll-signalled-fence-returns-1", 1, poll(&pfd, 1, 0));
	check_int("poll-signalled-fence-pollin", POLLIN, pfd.revents);

	begin("file-info-signalled-point");
	fi = point_info(f);
	t_after = now_ns();
	check_int("file-info-signalled-point-status-1", 1, fi.status);
	check_int("file-info-signalled-fence-status-1", 1, fence_status(f));
	if (fi.timestamp_ns && (int64_t)fi.timestamp_ns >= t_inc &&
	    (int64_t)fi.timestamp_ns <= t_after)
		ok("timestamp-between-inc-and-now-monotonic");
	else
		not_ok("timestamp-between-inc-and-now-monotonic",
		       "expected %lld <= ts <= %lld (CLOCK_MONOTONIC ns), got %llu",
		       (long long)t_inc, (long long)t_after, (unsigned long long)fi.timestamp_ns);
	inc(tl, 3);
	fi2 = point_info(f);
	check_int("timestamp-stable-after-later-inc", (long long)fi.timestamp_ns,
		  (long long)fi2.timestamp_ns);

	begin("inc-zero-is-harmless");
	{
		int g = create(tl, "abi-inc0", 6);	/* timeline is at 5 */

		require(g >= 0, "fence");
		check_int("inc-zero-returns-0", 0, inc(tl, 0));
		check_int("inc-zero-keeps-next-point-active", 0, fence_polled(g));
		fi2 = point_info(f);
		check_int("inc-zero-keeps-signalled-timestamp", (long long)fi.timestamp_ns,
			  (long long)fi2.timestamp_ns);
		inc(tl, 1);
		check_int("inc-after-inc-zero-signals-next-point", 1, fence_polled(g));
		close(g);
	}
	close(f);
	close(tl);
}

static void test_born_signalled(void)
{
	struct sync_fence_info fi;
	int64_t t0;
	int tl, f;

	tl = sw_sync_timeline_create();
	require(tl >= 0, "timeline");

	begin("fence-at-zero-born-signalled");
	t0 = now_ns();
	f = create(tl, "abi-born0", 0);
	require(f >= 0, "fence");
	check_int("fence-at-zero-born-signalled", 1, fence_polled(f));
	fi = point_info(f);
	check_int("born-signalled-status-1", 1, fi.status);
	if ((int64_t)fi.timestamp_ns >= t0 && (int64_t)fi.timestamp_ns <= now_ns())
		ok("born-signalled-stamped-at-creation");
	else
		not_ok("born-signalled-stamped-at-creation",
		       "expected %lld <= ts <= now (%lld), got %llu", (long long)t0,
		       (long long)now_ns(), (unsigned long long)fi.timestamp_ns);
	close(f);

	inc(tl, 3);
	begin("fence-at-current-born-signalled");
	f = create(tl, "abi-born3", 3);
	require(f >= 0, "fence");
	check_int("fence-at-current-born-signalled", 1, fence_polled(f));
	close(f);
	f = create(tl, "abi-born2", 2);
	require(f >= 0, "fence");
	check_int("fence-below-current-born-signalled", 1, fence_polled(f));
	close(f);
	f = create(tl, "abi-born4", 4);
	require(f >= 0, "fence");
	check_int("fence-above-current-born-active", 0, fence_polled(f));
	close(f);
	close(tl);
}

struct blocked {
	int fd, use_sync_wait;
	int ret, err, revents;
	int64_t woke;
	pthread_t thread;
	volatile pid_t tid;
};

/*
 * Whether thread @tid sleeps in poll() (sync_wait() polls too): its
 * /proc syscall file names the call it is blocked in, and its state is S.
 */
static int blocked_in_poll(pid_t tid)
{
	char path[64], buf[256];
	long nr = -1;
	char state = '?';
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && strrchr(buf, ')'))
		state = strrchr(buf, ')')[2];
	fclose(f);
	return (nr == SYS_poll || nr == SYS_ppoll) && state == 'S';
}

/* Waits up to 5 s until @b's thread is blocked in the kernel. */
static int wait_until_blocked(struct blocked *b)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (b->tid && blocked_in_poll(b->tid))
			return 1;
		sleep_ms(10);
	}
	return 0;
}

static void *blocked_fn(void *arg)
{
	struct blocked *b = arg;
	struct pollfd pfd = { .fd = b->fd, .events = POLLIN };

	b->tid = gettid();

	if (b->use_sync_wait) {
		b->ret = sync_wait(b->fd, -1);
		b->err = errno;
	} else {
		b->ret = poll(&pfd, 1, -1);
		b->err = errno;
		b->revents = pfd.revents;
	}
	b->woke = now_ns();
	return NULL;
}

static void test_close_timeline(void)
{
	struct sync_fence_info fi;
	struct blocked bp, bw;
	struct pollfd pfd;
	int64_t t_close;
	int tl, done, pending, polled, waited;

	tl = sw_sync_timeline_create();
	require(tl >= 0, "timeline");
	done = create(tl, "abi-done", 1);
	pending = create(tl, "abi-pending", 10);
	polled = create(tl, "abi-polled", 10);
	waited = create(tl, "abi-waited", 20);
	require(done >= 0 && pending >= 0 && polled >= 0 && waited >= 0, "fences");
	inc(tl, 1);

	memset(&bp, 0, sizeof(bp));
	memset(&bw, 0, sizeof(bw));
	bp.fd = polled;
	bw.fd = waited;
	bw.use_sync_wait = 1;
	require(pthread_create(&bp.thread, NULL, blocked_fn, &bp) == 0, "pthread_create");
	require(pthread_create(&bw.thread, NULL, blocked_fn, &bw) == 0, "pthread_create");
	begin("close-timeline-waiters-blocked-first");
	if (wait_until_blocked(&bp) && wait_until_blocked(&bw))
		ok("close-timeline-waiters-blocked-first");
	else
		not_ok("close-timeline-waiters-blocked-first",
		       "expected both threads asleep in poll() within 5 s, got poll %d, sync_wait %d",
		       bp.tid ? blocked_in_poll(bp.tid) : -1, bw.tid ? blocked_in_poll(bw.tid) : -1);

	begin("close-timeline-wakes-blocked-poll");
	t_close = now_ns();
	close(tl);
	pthread_join(bp.thread, NULL);
	pthread_join(bw.thread, NULL);
	if (bp.ret == 1 && bp.revents == POLLIN)
		ok("close-timeline-wakes-blocked-poll");
	else
		not_ok("close-timeline-wakes-blocked-poll", "expected 1 with POLLIN, got %d/%s revents %#x",
		       bp.ret, errno_name(bp.err), (unsigned int)bp.revents);
	if (bw.ret == -1 && bw.err == ENOENT)
		ok("close-timeline-wakes-blocked-sync_wait-with-enoent");
	else
		not_ok("close-timeline-wakes-blocked-sync_wait-with-enoent",
		       "expected -1/ENOENT, got %d/%s", bw.ret, errno_name(bw.err));

	begin("close-timeline-signals-pending-with-enoent");
	check_int("close-timeline-signals-pending-with-enoent", -ENOENT, fence_status(pending));
	fi = point_info(pending);
	check_int("close-timeline-point-status-enoent", -ENOENT, fi.status);
	if (fi.timestamp_ns && (int64_t)fi.timestamp_ns >= t_close &&
	    (int64_t)fi.timestamp_ns <= now_ns())
		ok("close-timeline-stamps-pending-points");
	else
		not_ok("close-timeline-stamps-pending-points", "expected %lld <= ts <= now, got %llu",
		       (long long)t_close, (unsigned long long)fi.timestamp_ns);
	pfd.fd = pending;
	pfd.events = POLLIN;
	pfd.revents = 0;
	poll(&pfd, 1, 0);
	check_int("error-fence-polls-pollin", POLLIN, pfd.revents);
	check_int("close-timeline-keeps-signalled-fence-ok", 1, fence_status(done));

	close(done);
	close(pending);
	close(polled);
	close(waited);
}

static void test_overflow(void)
{
	int tl, f_max1, f_max, f_low, g;

	tl = sw_sync_timeline_create();
	require(tl >= 0, "timeline");

	begin("inc-to-u32-max-1-succeeds");
	check_int("inc-to-u32-max-1-succeeds", 0, inc(tl, UINT32_MAX - 1));
	f_max1 = create(tl, "abi-max1", UINT32_MAX - 1);
	f_max = create(tl, "abi-max", UINT32_MAX);
	require(f_max1 >= 0 && f_max >= 0, "fences");
	check_int("fence-at-u32-max-1-signalled", 1, fence_polled(f_max1));
	check_int("fence-at-u32-max-active", 0, fence_polled(f_max));

	begin("inc-past-u32-max-eoverflow");
	CHECK_FAILS("inc-past-u32-max-eoverflow", inc(tl, 2), EOVERFLOW);
	CHECK_FAILS("inc-u32-max-past-u32-max-eoverflow", inc(tl, UINT32_MAX), EOVERFLOW);
	/* A wrap would have taken the timeline to 0 (or UINT32_MAX-2). */
	check_int("eoverflow-keeps-u32-max-point-active", 0, fence_polled(f_max));
	check_int("eoverflow-keeps-signalled-point-ok", 1, fence_status(f_max1));
	g = create(tl, "abi-max-again", UINT32_MAX);
	check_int("eoverflow-new-u32-max-point-active", 0, g >= 0 ? fence_polled(g) : -1);
	if (g >= 0)
		close(g);
	f_low = create(tl, "abi-low", 1);
	check_int("eoverflow-low-point-born-signalled", 1, f_low >= 0 ? fence_polled(f_low) : -1);
	if (f_low >= 0)
		close(f_low);

	begin("inc-to-exactly-u32-max-succeeds");
	check_int("inc-to-exactly-u32-max-succeeds", 0, inc(tl, 1));
	check_int("u32-max-point-signals-at-u32-max", 1, fence_polled(f_max));
	CHECK_FAILS("inc-at-u32-max-eoverflow", inc(tl, 1), EOVERFLOW);
	check_int("inc-zero-at-u32-max-succeeds", 0, inc(tl, 0));
	g = create(tl, "abi-at-max", UINT32_MAX);
	check_int("fence-at-u32-max-born-signalled-at-max", 1, g >= 0 ? fence_polled(g) : -1);
	if (g >= 0)
		close(g);
	close(f_max1);
	close(f_max);
	close(tl);

	begin("inc-u32-max-from-zero-succeeds");
	tl = sw_sync_timeline_create();
	require(tl >= 0, "timeline");
	check_int("inc-u32-max-from-zero-succeeds", 0, inc(tl, UINT32_MAX));
	close(tl);
}

static void test_bad_args(void)
{
	struct sw_sync_create_fence_data data;
	int tl, before, after;

	tl = sw_sync_timeline_create();
	require(tl >= 0, "timeline");

	begin("create-fence-bad-pointer-efault");
	before = count_open_fds();
	CHECK_FAILS("create-fence-bad-pointer-efault",
		    ioctl(tl, SW_SYNC_IOC_CREATE_FENCE, (void *)1), EFAULT);
	CHECK_FAILS("inc-bad-pointer-efault", ioctl(tl, SW_SYNC_IOC_INC, (void *)1), EFAULT);
	CHECK_FAILS("unknown-timeline-ioctl-enotty", ioctl(tl, _IO('W', 42)), ENOTTY);
	after = count_open_fds();
	check_int("failed-create-fence-leaks-no-fd", before, after);

	/*
	 * A name without its NUL: creating or refusing the fence are both
	 * fine, reading past the name is not (KASAN, checked by the runner).
	 */
	begin("create-fence-unterminated-name");
	memset(&data, 0, sizeof(data));
	memset(data.name, 'x', sizeof(data.name));
	data.value = 1;
	data.fence = -1;
	if (ioctl(tl, SW_SYNC_IOC_CREATE_FENCE, &data) == 0 && data.fence >= 0) {
		check_int("unterminated-name-fence-signals", 1,
			  inc(tl, 1) == 0 ? fence_polled(data.fence) : -1);
		close(data.fence);
	}
	close(tl);
}

/* The @<ns> stamp the dump's fences section gives fence @name, or -1. */
static long long dump_stamp(const char *text, const char *name)
{
	char line[64];
	const char *at;
	long long ns;

	snprintf(line, sizeof(line), "\n%s: signaled @", name);
	at = strstr(text, line);
	if (!at || sscanf(at + strlen(line), "%lld", &ns) != 1)
		return -1;
	return ns;
}

/*
 * dma_fence wants one context's fences to signal in seqno order: a fence
 * created after a later one on the same timeline still signals first, so
 * its timestamp is not after the later one's (it was when each point got
 * its own time, in creation order). The same stamps in the dump.
 */
static void test_signal_order(void)
{
	char n5[32], n10[32], *text;
	struct sync_fence_info fi5, fi10;
	long long d5, d10;
	int tl, f5, f10;

	tl = open_node(SW_SYNC_DEV_PATH);
	require(tl >= 0, "timeline on " SW_SYNC_DEV_PATH);
	unique_name(n10, sizeof(n10), "abi-order10");
	unique_name(n5, sizeof(n5), "abi-order5");
	f10 = create(tl, n10, 10);
	f5 = create(tl, n5, 5);
	require(f10 >= 0 && f5 >= 0, "fences at 10 then 5");

	begin("inc-signals-in-seqno-order");
	check_int("inc-past-both-returns-0", 0, inc(tl, 10));
	fi5 = point_info(f5);
	fi10 = point_info(f10);
	check_int("inc-past-both-signals-5", 1, fi5.status);
	check_int("inc-past-both-signals-10", 1, fi10.status);
	if (fi5.timestamp_ns && fi5.timestamp_ns <= fi10.timestamp_ns)
		ok("file-info-earlier-point-stamped-no-later");
	else
		not_ok("file-info-earlier-point-stamped-no-later",
		       "expected 0 < ts(5) <= ts(10), got ts(5) %llu, ts(10) %llu (%+lld ns)",
		       (unsigned long long)fi5.timestamp_ns,
		       (unsigned long long)fi10.timestamp_ns,
		       (long long)(fi5.timestamp_ns - fi10.timestamp_ns));

	begin("dump-earlier-point-stamped-no-later");
	text = read_text(SYNC_INFO_PATH, NULL);
	if (!text) {
		not_ok("dump-earlier-point-stamped-no-later", "expected %s, got %s",
		       SYNC_INFO_PATH, errno_name(errno));
	} else {
		d5 = dump_stamp(text, n5);
		d10 = dump_stamp(text, n10);
		if (d5 > 0 && d5 <= d10 && d5 == (long long)fi5.timestamp_ns &&
		    d10 == (long long)fi10.timestamp_ns)
			ok("dump-earlier-point-stamped-no-later");
		else
			not_ok("dump-earlier-point-stamped-no-later",
			       "expected ts(5) %llu <= ts(10) %llu as FILE_INFO says, got %lld and %lld",
			       (unsigned long long)fi5.timestamp_ns,
			       (unsigned long long)fi10.timestamp_ns, d5, d10);
		free(text);
	}
	close(f5);
	close(f10);
	close(tl);
}

static void test_debugfs_info(void)
{
	char name[32];
	int tl, f;

	tl = sw_sync_timeline_create();
	require(tl >= 0, "timeline");
	unique_name(name, sizeof(name), "abi-info");
	f = create(tl, name, 1);
	require(f >= 0, "fence");

	begin("info-lists-live-fence");
	check_int("info-lists-live-fence", 1, info_mentions(name));
	close(f);
	check_int("info-forgets-closed-fence", 0, info_mentions(name));
	close(tl);
}

int main(void)
{
	watchdog(20);
	test_nodes();
	test_poll_and_info();
	test_born_signalled();
	test_signal_order();
	test_close_timeline();
	test_overflow();
	test_bad_args();
	test_debugfs_info();
	return finish();
}
