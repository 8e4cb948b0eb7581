// SPDX-License-Identifier: MIT
/*
 * vblank-off: flips while the DRM core turns vblank interrupts off and on
 * (drm.vblankoffdelay), on flipkms.
 *
 *   immediate	vblankoffdelay=-1: the vblank that latches a flip drops the
 *		last vblank reference, and the core disables vblanks from
 *		inside flipkms's vblank timer callback (drm_crtc_vblank_put()
 *		-> vblank_disable_fn() -> disable_vblank). A disable_vblank
 *		that waits for the timer (hrtimer_cancel()) waits for itself:
 *		the first flip hangs the CPU. Every flip must complete, and
 *		each re-enables vblanks at a random point of the frame.
 *   idle	vblankoffdelay=50 (ms): flip, stay idle well past the delay
 *		(the timer stops: the vblank count does not move), flip.
 *
 * In both, a display keeps scanning out while its vblank interrupt is off:
 * every flip's fence lies a whole number of periods (exactly, in ns, the
 * period flipkms computes from the mode) after the previous one, the event
 * carries the fence's time, and the event's sequence advanced by as many
 * frames.
 *
 * The parameter is put back as it was when the test ends, however it ends:
 * the checks run in a child process.
 *
 * usage: vblank-off [-n FLIPS] flipkms
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kms.h"

#define OFFDELAY	"/sys/module/drm/parameters/vblankoffdelay"

static struct kms_dev dev;
static struct kms_pipe pipe_;
static struct kms_fb fb[2];
static char crtc_dir[96];
static int64_t period;
static unsigned int seed = 1;

static int write_offdelay(const char *value)
{
	return write_text(OFFDELAY, value);
}

/*
 * Since Linux 6.11 the core reads drm.vblankoffdelay when it turns a CRTC's
 * vblank on (drm_crtc_vblank_on()), not each time the last reference goes:
 * the CRTC is turned off and on again so that the new value is its own, on
 * every kernel series alike.
 */
static int set_offdelay(const char *value)
{
	int ret = write_offdelay(value);

	if (ret)
		return ret;
	if (kms_disable(&dev, &pipe_))
		return -EIO;
	if (kms_modeset(&dev, &pipe_, NULL, &fb[0]))
		return -EIO;
	kms_drain_events(&dev, 50);
	return 0;
}

/*
 * flipkms's count of handled vblanks of the pipe's CRTC, or -1; its count
 * of vblanks the timer was too late for into @missed, if not NULL.
 */
static long long vblanks_handled(long long *missed)
{
	struct kms_crtc_status st;

	kms_crtc_status(crtc_dir, pipe_.crtc_index, &st);
	if (missed)
		*missed = st.missed;
	return st.vblanks;
}

struct stamp {
	int64_t fence_ns, event_ns;
	uint64_t seq;
};

/* A flip with an out-fence and an event, waited for; false with @why. */
static bool flip(int which, uint64_t cookie, struct stamp *s, char *why, size_t len)
{
	struct kms_fence_info info;
	struct kms_event ev;
	int32_t fence = -1;
	int ret;

	ret = kms_flip(&dev, &pipe_, &fb[which], &fence, -1, cookie);
	if (ret || fence < 0) {
		snprintf(why, len, "commit failed: %s", errno_name(-ret));
		return false;
	}
	ret = kms_next_event(&dev, 2000, &ev);
	if (ret != 1 || ev.user_data != cookie) {
		snprintf(why, len, "no event within 2 s");
		close(fence);
		return false;
	}
	if (sync_wait(fence, 1000) || kms_fence_info(fence, &info) || info.status != 1) {
		snprintf(why, len, "fence not signalled after the event");
		close(fence);
		return false;
	}
	close(fence);
	s->fence_ns = info.timestamp_ns;
	s->event_ns = ev.time_us * 1000;
	s->seq = ev.sequence;
	return true;
}

/*
 * @flips flips, each after @idle_us plus a random part of a frame: every
 * flip completes, and lies on the grid of the first.
 */
static void run(const char *tag, int flips, useconds_t idle_us, bool check_idle)
{
	int done = 0, off_grid = 0, unequal = 0, bad_seq = 0, late = 0, busy = 0, i;
	long long missed = -1, missed_before;
	char why[96] = "", grid_msg[160] = "-", seq_msg[160] = "-", busy_msg[96] = "-";
	struct stamp first = { 0 }, prev = { 0 }, s;
	char name[96];

	snprintf(name, sizeof(name), "%s-flips-complete", tag);
	begin(name);
	for (i = 0; i < flips; i++) {
		long long before = 0, after = 0;

		if (i && check_idle) {
			/* Past the off delay, the timer must be still for 100 ms. */
			usleep(idle_us);
			before = vblanks_handled(NULL);
			usleep(100000 + (useconds_t)(rand_r(&seed) % (period / 1000)));
			after = vblanks_handled(NULL);
			if ((before < 0 || after != before) && !busy++)
				snprintf(busy_msg, sizeof(busy_msg),
					 "%lld vblanks in 100 ms before flip %d", after - before, i);
		} else if (i) {
			usleep(idle_us + (useconds_t)(rand_r(&seed) % (period / 1000)));
		}
		missed_before = missed;
		if (!flip(i % 2, 0x100 + (uint64_t)i, &s, why, sizeof(why)))
			break;
		vblanks_handled(&missed);
		done++;
		if (s.fence_ns / 1000 * 1000 != s.event_ns)
			unequal++;
		if (!i) {
			first = s;
		} else {
			int64_t d = s.fence_ns - first.fence_ns, frames = (s.fence_ns - prev.fence_ns) / period;

			if (d % period && !off_grid++)
				snprintf(grid_msg, sizeof(grid_msg),
					 "flip %d: %lld ns after the first, %lld ns off the %lld ns grid",
					 i, (long long)d, (long long)(d % period), (long long)period);
			/*
			 * The core counts a vblank the timer was late for as
			 * one (drm_update_vblank_count() in vblank irq): only
			 * flips without such a vblank say what the count is.
			 */
			if (missed != missed_before || missed < 0)
				late++;
			else if (s.seq - prev.seq != (uint64_t)frames && !bad_seq++)
				snprintf(seq_msg, sizeof(seq_msg),
					 "flip %d: %lld periods after the previous, sequence +%lld", i,
					 (long long)frames, (long long)(s.seq - prev.seq));
		}
		prev = s;
	}
	check(name, done == flips, "expected %d flips, got %d (%s)", flips, done, why);
	if (check_idle) {
		snprintf(name, sizeof(name), "%s-timer-stops-while-idle", tag);
		check(name, !busy,
		      "expected no vblank handled while idle, got %d flips with some (first: %s)",
		      busy, busy_msg);
	}
	snprintf(name, sizeof(name), "%s-fence-equals-event", tag);
	check(name, !unequal, "expected equal times, got %d of %d flips differing", unequal, done);
	snprintf(name, sizeof(name), "%s-on-vblank-grid", tag);
	check(name, done > 1 && !off_grid,
	      "expected every fence a whole number of periods after the first, got %d of %d off (first %s)",
	      off_grid, done, grid_msg);
	if (late)
		comment("%s: %d flips after a late vblank timer left out of the sequence check", tag,
			late);
	snprintf(name, sizeof(name), "%s-sequence-counts-frames", tag);
	check(name, done > 1 && !bad_seq,
	      "expected the sequence to advance by the periods between flips, got %d of %d not (first %s)",
	      bad_seq, done, seq_msg);
}

static int tests(const char *driver, int flips)
{
	int ret;

	watchdog(100);
	kms_flipkms_setup(driver, "usage: vblank-off [-n FLIPS] flipkms", &dev, &pipe_, crtc_dir,
			  sizeof(crtc_dir), fb);
	require(kms_modeset(&dev, &pipe_, NULL, &fb[0]) == 0, "modeset");
	period = (int64_t)pipe_.mode.htotal * pipe_.mode.vtotal * 1000000 / pipe_.mode.clock;
	kms_drain_events(&dev, 50);

	begin("immediate-setup");
	ret = set_offdelay("-1");
	require(ret == 0, "vblankoffdelay -1, applied by a modeset");
	run("immediate", flips, 0, false);

	begin("idle-setup");
	ret = set_offdelay("50");
	require(ret == 0, "vblankoffdelay 50, applied by a modeset");
	run("idle", 6, 200000, true);

	kms_teardown(&dev, &pipe_, fb);
	return finish();
}

int main(int argc, char **argv)
{
	int flips = 40, opt, status = 0, fd;
	char saved[32] = "";
	ssize_t n = -1;
	pid_t pid;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n') {
			fprintf(stderr, "usage: %s [-n FLIPS] flipkms\n", argv[0]);
			return 2;
		}
		flips = atoi(optarg);
	}
	fd = open(OFFDELAY, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, saved, sizeof(saved) - 1);
		close(fd);
	}
	if (n <= 0) {
		printf("not ok - setup: cannot read %s\n", OFFDELAY);
		return 1;
	}
	saved[n] = 0;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("not ok - setup: fork failed\n");
		return 1;
	}
	if (!pid)
		exit(tests(kms_driver_arg(argc, argv), flips));
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (write_offdelay(saved)) {
		printf("not ok - restore-vblankoffdelay: cannot write %s back\n", saved);
		return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
