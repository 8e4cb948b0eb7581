// SPDX-License-Identifier: MIT
/*
 * merge-errors (seed 006): every way SYNC_IOC_MERGE can fail returns
 * mainline's errno (ENOENT for a second fd that is not an open sync_file,
 * as since Linux 4.7) and gives back everything it took: the reserved fd (so the fd table
 * is unchanged after 10 000 failures) and its references to both fences (so
 * their points leave debugfs once userspace closes them).
 */
#include <sys/mman.h>
#include <sys/resource.h>

#include "check.h"

#define FAILING_CALLS	10000

static int merge_raw(int fd1, int fd2, const char *name, __u32 flags)
{
	struct sync_merge_data data;

	memset(&data, 0, sizeof(data));
	snprintf(data.name, sizeof(data.name), "%s", name);
	data.fd2 = fd2;
	data.flags = flags;
	return ioctl(fd1, SYNC_IOC_MERGE, &data);
}

static int highest_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int max = -1;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] != '.' && fd > max)
			max = fd;
	}
	closedir(d);
	return max;
}

/*
 * Fills the fd table: lowers RLIMIT_NOFILE to just above the highest open fd
 * and dups into every hole. Returns how many dups it made (in @dups).
 */
struct full_table {
	struct rlimit old;
	int dups[256];
	int n;
};

static int fill_fd_table(struct full_table *t, int src)
{
	struct rlimit lim;
	int fd;

	t->n = 0;
	if (getrlimit(RLIMIT_NOFILE, &t->old) < 0)
		return -1;
	lim = t->old;
	lim.rlim_cur = highest_fd() + 1;
	if (setrlimit(RLIMIT_NOFILE, &lim) < 0)
		return -1;
	while (t->n < 256 && (fd = dup(src)) >= 0)
		t->dups[t->n++] = fd;
	return errno == EMFILE ? 0 : -1;
}

static void empty_fd_table(struct full_table *t)
{
	while (t->n > 0)
		close(t->dups[--t->n]);
	setrlimit(RLIMIT_NOFILE, &t->old);
}

int main(void)
{
	char name1[32], name2[32], merged_name[32];
	struct sync_merge_data *ro;
	struct full_table table;
	int tl, f1, f2, p[2], closed, fds_before, fds_after, i, bad, ret, err;
	int first_bad_ret = 0, first_bad_err = 0, first_bad_kind = -1, m;
	static const int expected[] = { ENOENT, ENOENT, EFAULT, EINVAL };

	watchdog(60);
	tl = sw_sync_timeline_create();
	require(tl >= 0, "timeline");
	unique_name(name1, sizeof(name1), "mrgerr-a");
	unique_name(name2, sizeof(name2), "mrgerr-b");
	unique_name(merged_name, sizeof(merged_name), "mrgerr-m");
	f1 = sw_sync_fence_create(tl, name1, 1);
	f2 = sw_sync_fence_create(tl, name2, 2);
	require(f1 >= 0 && f2 >= 0, "fences");
	require(pipe(p) == 0, "pipe");
	closed = open("/dev/null", O_RDONLY | O_CLOEXEC);
	require(closed >= 0, "open /dev/null");
	close(closed);

	begin("info-lists-named-fences");
	if (info_mentions(name1) == 1 && info_mentions(name2) == 1)
		ok("info-lists-named-fences");
	else
		not_ok("info-lists-named-fences", "expected %s and %s in %s, got %d, %d", name1,
		       name2, SYNC_INFO_PATH, info_mentions(name1), info_mentions(name2));

	/* Each failure on its own. */
	begin("merge-closed-fd2-enoent");
	CHECK_FAILS("merge-closed-fd2-enoent", merge_raw(f1, closed, merged_name, 0), ENOENT);
	CHECK_FAILS("merge-negative-fd2-enoent", merge_raw(f1, -1, merged_name, 0), ENOENT);
	CHECK_FAILS("merge-pipe-fd2-enoent", merge_raw(f1, p[0], merged_name, 0), ENOENT);
	CHECK_FAILS("merge-bad-pointer-efault", ioctl(f1, SYNC_IOC_MERGE, (void *)1), EFAULT);
	CHECK_FAILS("merge-nonzero-flags-einval", merge_raw(f1, f2, merged_name, 1), EINVAL);

	begin("merge-unwritable-result-efault");
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	require(ro != MAP_FAILED, "mmap");
	snprintf(ro->name, sizeof(ro->name), "%s", merged_name);
	ro->fd2 = f2;
	require(mprotect(ro, 4096, PROT_READ) == 0, "mprotect");
	fds_before = count_open_fds();
	CHECK_FAILS("merge-unwritable-result-efault", ioctl(f1, SYNC_IOC_MERGE, ro), EFAULT);
	check_int("merge-unwritable-result-installs-no-fd", fds_before, count_open_fds());
	munmap(ro, 4096);

	begin("merge-no-free-fd-emfile");
	require(fill_fd_table(&table, p[0]) == 0, "filling the fd table");
	ret = merge_raw(f1, f2, merged_name, 0);
	err = errno;
	empty_fd_table(&table);
	check_fails("merge-no-free-fd-emfile", ret, EMFILE, err);

	/* 10 000 of them, round robin, then nothing may be left behind. */
	begin("failing-merges-leak-no-fd");
	fds_before = count_open_fds();
	bad = 0;
	for (i = 0; i < FAILING_CALLS * 3 / 4; i++) {
		int k = i % 4;

		errno = 0;
		if (k == 0)
			ret = merge_raw(f1, closed, merged_name, 0);
		else if (k == 1)
			ret = merge_raw(f1, p[0], merged_name, 0);
		else if (k == 2)
			ret = ioctl(f1, SYNC_IOC_MERGE, (void *)1);
		else
			ret = merge_raw(f1, f2, merged_name, 1);
		if (ret != -1 || errno != expected[k]) {
			if (!bad++) {
				first_bad_ret = ret;
				first_bad_err = errno;
				first_bad_kind = k;
			}
			if (ret >= 0)	/* a merge that should have failed */
				close(ret);
		}
	}
	require(fill_fd_table(&table, p[0]) == 0, "filling the fd table");
	for (; i < FAILING_CALLS; i++) {
		errno = 0;
		ret = merge_raw(f1, f2, merged_name, 0);
		if (ret != -1 || errno != EMFILE) {
			if (!bad++) {
				first_bad_ret = ret;
				first_bad_err = errno;
				first_bad_kind = 4;
			}
		}
	}
	empty_fd_table(&table);
	fds_after = count_open_fds();
	if (!bad) {
		ok("failing-merges-fail-consistently");
	} else {
		static const char *kind[] = { "closed fd2", "pipe fd2", "bad pointer",
					      "flags", "full fd table" };

		not_ok("failing-merges-fail-consistently",
		       "expected %d failures with their errno, got %d others, first %d/%s for %s",
		       FAILING_CALLS, bad, first_bad_ret, errno_name(first_bad_err),
		       kind[first_bad_kind]);
	}
	check_int("failing-merges-leak-no-fd", fds_before, fds_after);

	begin("merge-works-after-failures");
	m = sync_merge(merged_name, f1, f2);
	check_succeeds("merge-works-after-failures", m, errno);
	if (m >= 0) {
		check_int("merge-after-failures-has-one-point", 1, fence_size(m));
		close(m);
	}

	begin("failed-merges-leave-no-fence-in-info");
	close(f1);
	close(f2);
	if (info_mentions(name1) == 0 && info_mentions(name2) == 0)
		ok("failed-merges-leave-no-fence-in-info");
	else
		not_ok("failed-merges-leave-no-fence-in-info",
		       "expected %s and %s gone from %s once closed, got %d, %d", name1, name2,
		       SYNC_INFO_PATH, info_mentions(name1), info_mentions(name2));

	close(p[0]);
	close(p[1]);
	close(tl);
	return finish();
}
