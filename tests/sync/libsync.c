// SPDX-License-Identifier: MIT
/*
 * libsync: the library's own contract, on the real ioctls. Return values and
 * errno of sync_wait/sync_merge/sync_file_info and the sw_sync helpers,
 * including the /dev/sw_sync -> debugfs fallback and EINTR handling.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "check.h"
#include "../lib/result.h"

struct delayed_inc {
	int timeline;
	unsigned int delay_ms;
	pthread_t thread;
};

static void *delayed_inc_fn(void *arg)
{
	struct delayed_inc *d = arg;

	sleep_ms(d->delay_ms);
	sw_sync_timeline_inc(d->timeline, 1);
	return NULL;
}

static void delayed_inc_start(struct delayed_inc *d, int timeline, unsigned int ms)
{
	d->timeline = timeline;
	d->delay_ms = ms;
	require(pthread_create(&d->thread, NULL, delayed_inc_fn, d) == 0, "pthread_create");
}

static void test_timeline_and_fence(void)
{
	int tl, f, g, ret;

	begin("timeline-create-returns-fd");
	tl = sw_sync_timeline_create();
	require(check_succeeds("timeline-create-returns-fd", tl, errno), "no timeline");

	begin("fence-create-returns-fd");
	f = sw_sync_fence_create(tl, "libsync-a", 1);
	require(check_succeeds("fence-create-returns-fd", f, errno), "no fence");

	begin("wait-times-out-with-etime");
	CHECK_FAILS("wait-times-out-with-etime", sync_wait(f, 20), ETIME);
	CHECK_FAILS("wait-zero-timeout-on-active-is-etime", sync_wait(f, 0), ETIME);

	begin("inc-returns-zero");
	check_int("inc-returns-zero", 0, sw_sync_timeline_inc(tl, 1));
	check_int("wait-signalled-returns-zero", 0, sync_wait(f, 0));
	check_int("wait-infinite-on-signalled-returns-zero", 0, sync_wait(f, -1));

	begin("fence-create-null-name");
	g = sw_sync_fence_create(tl, NULL, 1);
	check_succeeds("fence-create-null-name", g, errno);
	if (g >= 0)
		close(g);

	begin("fence-create-truncates-long-name");
	g = sw_sync_fence_create(tl, "a-name-much-longer-than-thirty-one-bytes-in-total", 2);
	check_succeeds("fence-create-truncates-long-name", g, errno);
	if (g >= 0) {
		struct sync_file_info *fi = sync_file_info(g);

		/* The sync_file's name holds 31 bytes and its NUL. */
		check("fence-name-is-the-first-31-bytes",
		      fi && !strcmp(fi->name, "a-name-much-longer-than-thirty-"),
		      "expected \"a-name-much-longer-than-thirty-\", got %s%s%s",
		      fi ? "\"" : "", fi ? fi->name : errno_name(errno), fi ? "\"" : "");
		sync_file_info_free(fi);
		close(g);
	}

	begin("inc-invalid-fd-ebadf");
	CHECK_FAILS("inc-invalid-fd-ebadf", sw_sync_timeline_inc(-1, 1), EBADF);
	CHECK_FAILS("fence-create-invalid-fd-ebadf", sw_sync_fence_create(-1, "x", 1), EBADF);
	ret = CHECK_FAILS("inc-on-fence-fd-einval", sw_sync_timeline_inc(f, 1), EINVAL);
	(void)ret;

	close(f);
	close(tl);
}

static void test_merge_and_info(void)
{
	int tl1, tl2, a, b, m, p[2];
	struct sync_file_info *info;
	struct sync_fence_info *fi;
	unsigned int i;

	tl1 = sw_sync_timeline_create();
	tl2 = sw_sync_timeline_create();
	require(tl1 >= 0 && tl2 >= 0, "timelines");
	a = sw_sync_fence_create(tl1, "libsync-m1", 1);
	b = sw_sync_fence_create(tl2, "libsync-m2", 1);
	require(a >= 0 && b >= 0, "fences");

	begin("merge-returns-new-fd");
	m = sync_merge("libsync-merged", a, b);
	if (m >= 0 && m != a && m != b)
		ok("merge-returns-new-fd");
	else
		not_ok("merge-returns-new-fd", "expected a new fd, got %d/%s (inputs %d, %d)",
		       m, errno_name(errno), a, b);
	require(m >= 0, "merge");

	begin("file-info-returns-info");
	info = sync_file_info(m);
	require(check_succeeds("file-info-returns-info", info ? 0 : -1, errno), "info");
	check_int("file-info-counts-points", 2, info->num_fences);
	check_int("file-info-active-status", 0, info->status);
	if (!strcmp(info->name, "libsync-merged"))
		ok("file-info-names-merged-fence");
	else
		not_ok("file-info-names-merged-fence", "expected \"libsync-merged\", got \"%.32s\"",
		       info->name);
	fi = sync_get_fence_info(info);
	if (fi == (struct sync_fence_info *)(info + 1))
		ok("get-fence-info-returns-array");
	else
		not_ok("get-fence-info-returns-array", "expected %p, got %p",
		       (void *)(info + 1), (void *)fi);
	for (i = 0; fi && i < info->num_fences; i++)
		if (!fi[i].obj_name[0] || !fi[i].driver_name[0] || fi[i].status != 0 ||
		    fi[i].timestamp_ns != 0)
			break;
	if (fi && i == info->num_fences)
		ok("get-fence-info-describes-active-points");
	else if (fi)
		not_ok("get-fence-info-describes-active-points",
		       "expected named points with status 0 and timestamp 0, got \"%.32s\"/\"%.32s\" status %d ts %llu",
		       fi[i].obj_name, fi[i].driver_name, fi[i].status,
		       (unsigned long long)fi[i].timestamp_ns);
	sync_file_info_free(info);

	sw_sync_timeline_inc(tl1, 1);
	CHECK_FAILS("wait-merged-half-signalled-is-etime", sync_wait(m, 0), ETIME);
	sw_sync_timeline_inc(tl2, 1);
	check_int("wait-merged-all-signalled-returns-zero", 0, sync_wait(m, 0));

	begin("file-info-signalled-status");
	info = sync_file_info(m);
	if (info) {
		fi = sync_get_fence_info(info);
		check_int("file-info-signalled-status", 1, info->status);
		for (i = 0; i < info->num_fences; i++)
			if (fi[i].status != 1 || !fi[i].timestamp_ns)
				break;
		if (i == info->num_fences)
			ok("get-fence-info-describes-signalled-points");
		else
			not_ok("get-fence-info-describes-signalled-points",
			       "expected status 1 and a timestamp, got status %d ts %llu",
			       fi[i].status, (unsigned long long)fi[i].timestamp_ns);
		sync_file_info_free(info);
	} else {
		not_ok("file-info-signalled-status", "expected info, got NULL/%s",
		       errno_name(errno));
	}
	{
		/* In a child: a free() of NULL that crashed must not take us down. */
		pid_t child = fork();
		int status = -1;

		require(child >= 0, "fork");
		if (!child) {
			sync_file_info_free(NULL);
			_exit(0);
		}
		waitpid(child, &status, 0);
		check("file-info-free-null-is-harmless", WIFEXITED(status) && !WEXITSTATUS(status),
		      "the child died (status %#x)", status);
	}

	begin("merge-invalid-fd1-ebadf");
	CHECK_FAILS("merge-invalid-fd1-ebadf", sync_merge("x", -1, a), EBADF);
	CHECK_FAILS("merge-invalid-fd2-ebadf", sync_merge("x", a, -1), EBADF);
	CHECK_FAILS("merge-timeline-fd2-einval", sync_merge("x", a, tl1), EINVAL);
	CHECK_FAILS("merge-timeline-fd1-einval", sync_merge("x", tl1, a), EINVAL);
	CHECK_FAILS("info-negative-fd-ebadf", sync_file_info(-1) ? 0 : -1, EBADF);
	require(pipe(p) == 0, "pipe");
	begin("file-info-non-fence-einval");
	errno = 0;
	info = sync_file_info(p[0]);
	check_fails("file-info-non-fence-einval", info ? 0 : -1, EINVAL, errno);
	sync_file_info_free(info);
	CHECK_FAILS("fence-create-on-pipe-einval", sw_sync_fence_create(p[0], "x", 1), EINVAL);
	begin("wait-non-fence-fails");
	if (write(p[1], "x", 1) == 1)
		CHECK_FAILS("wait-readable-non-fence-einval", sync_wait(p[0], 0), EINVAL);
	close(p[0]);
	close(p[1]);
	CHECK_FAILS("wait-closed-fd-ebadf", sync_wait(p[0], 0), EBADF);
	CHECK_FAILS("wait-negative-fd-ebadf", sync_wait(-1, 0), EBADF);

	close(m);
	close(a);
	close(b);
	close(tl1);
	close(tl2);
}

static void test_wait_blocking(void)
{
	struct delayed_inc d;
	int64_t t0, dt;
	int tl, f, ret;

	tl = sw_sync_timeline_create();
	require(tl >= 0, "timeline");

	begin("wait-infinite-returns-when-signalled");
	f = sw_sync_fence_create(tl, "libsync-block", 1);
	require(f >= 0, "fence");
	t0 = now_ns();
	delayed_inc_start(&d, tl, 100);
	ret = sync_wait(f, -1);
	dt = now_ns() - t0;
	pthread_join(d.thread, NULL);
	if (ret == 0 && dt >= 80000000)
		ok("wait-infinite-returns-when-signalled");
	else
		not_ok("wait-infinite-returns-when-signalled",
		       "expected 0 after >= 80 ms, got %d/%s after %lld ms", ret,
		       errno_name(errno), (long long)(dt / 1000000));
	close(f);

	begin("wait-timeout-returns-when-signalled");
	f = sw_sync_fence_create(tl, "libsync-block2", 2);
	require(f >= 0, "fence");
	t0 = now_ns();
	delayed_inc_start(&d, tl, 50);
	ret = sync_wait(f, 10000);
	dt = now_ns() - t0;
	pthread_join(d.thread, NULL);
	if (ret == 0 && dt < 5000000000LL)
		ok("wait-timeout-returns-when-signalled");
	else
		not_ok("wait-timeout-returns-when-signalled",
		       "expected 0 well before 10 s, got %d/%s after %lld ms", ret,
		       errno_name(errno), (long long)(dt / 1000000));
	close(f);

	begin("wait-error-fence-reports-enoent");
	f = sw_sync_fence_create(tl, "libsync-err", 100);
	require(f >= 0, "fence");
	close(tl);
	CHECK_FAILS("wait-error-fence-reports-enoent", sync_wait(f, 1000), ENOENT);
	close(f);
}

/* A signal handler installed without SA_RESTART makes poll() fail with EINTR. */
static void on_usr1(int sig)
{
	(void)sig;
}

struct interrupter {
	pthread_t target, thread;
	volatile int stop;
};

static void *interrupter_fn(void *arg)
{
	struct interrupter *in = arg;

	while (!in->stop) {
		pthread_kill(in->target, SIGUSR1);
		sleep_ms(10);
	}
	return NULL;
}

static void test_wait_eintr(void)
{
	struct sigaction sa;
	struct interrupter in;
	struct delayed_inc d;
	int64_t t0, dt;
	int tl, f, ret, err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);

	tl = sw_sync_timeline_create();
	require(tl >= 0, "timeline");
	f = sw_sync_fence_create(tl, "libsync-eintr", 1);
	require(f >= 0, "fence");

	begin("wait-restarts-after-eintr-and-times-out");
	in.target = pthread_self();
	in.stop = 0;
	require(pthread_create(&in.thread, NULL, interrupter_fn, &in) == 0, "pthread_create");
	t0 = now_ns();
	ret = sync_wait(f, 300);
	err = errno;
	dt = now_ns() - t0;
	if (ret == -1 && err == ETIME && dt >= 290000000)
		ok("wait-restarts-after-eintr-and-times-out");
	else
		not_ok("wait-restarts-after-eintr-and-times-out",
		       "expected -1/ETIME after >= 300 ms, got %d/%s after %lld ms", ret,
		       errno_name(err), (long long)(dt / 1000000));

	begin("wait-restarts-after-eintr-and-signals");
	delayed_inc_start(&d, tl, 150);
	ret = sync_wait(f, -1);
	err = errno;
	pthread_join(d.thread, NULL);
	in.stop = 1;
	pthread_join(in.thread, NULL);
	if (ret == 0)
		ok("wait-restarts-after-eintr-and-signals");
	else
		not_ok("wait-restarts-after-eintr-and-signals", "expected 0, got %d/%s",
		       ret, errno_name(err));

	signal(SIGUSR1, SIG_IGN);
	close(f);
	close(tl);
}

/*
 * Hides /dev/sw_sync in a private mount namespace: sw_sync_timeline_create()
 * must then fall back to debugfs. Runs in a child so our namespace is intact.
 */
static void test_debugfs_fallback(void)
{
	const char *name = "timeline-create-falls-back-to-debugfs";
	int status, pfd[2];
	char line[256];
	ssize_t n;
	pid_t pid;

	begin(name);
	require(pipe(pfd) == 0, "pipe");
	fflush(stdout);
	pid = fork();
	require(pid >= 0, "fork");
	if (pid == 0) {
		struct stat st;
		int tl, f;

		close(pfd[0]);
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("none", "/dev", "tmpfs", 0, "mode=755") < 0) {
			dprintf(pfd[1], "skip - %s: cannot hide /dev/sw_sync (%s)\n", name,
				errno_name(errno));
			_exit(0);
		}
		tl = sw_sync_timeline_create();
		if (tl < 0) {
			dprintf(pfd[1], "not ok - %s: expected a timeline, got -1/%s\n", name,
				errno_name(errno));
			_exit(1);
		}
		if (fstat(tl, &st) < 0 || S_ISCHR(st.st_mode)) {
			dprintf(pfd[1], "not ok - %s: expected the debugfs node, got a char device\n",
				name);
			_exit(1);
		}
		f = sw_sync_fence_create(tl, "libsync-fallback", 1);
		if (f < 0 || sw_sync_timeline_inc(tl, 1) < 0 || sync_wait(f, 1000) < 0) {
			dprintf(pfd[1], "not ok - %s: expected a working timeline, got %s\n", name,
				errno_name(errno));
			_exit(1);
		}
		dprintf(pfd[1], "ok - %s\n", name);
		_exit(0);
	}
	close(pfd[1]);
	n = read(pfd[0], line, sizeof(line) - 1);
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (n <= 0) {
		not_ok(name, "expected a result from the child, got status %d", status);
		return;
	}
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	result_line(line);
	if (strncmp(line, "ok", 2) && strncmp(line, "skip", 4))
		count_failure();
}

int main(void)
{
	watchdog(20);
	test_timeline_and_fence();
	test_merge_and_info();
	test_wait_blocking();
	test_wait_eintr();
	test_debugfs_fallback();
	return finish();
}
