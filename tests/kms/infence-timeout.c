// SPDX-License-Identifier: MIT
/*
 * infence-timeout: flipkms's optional bound on in-fence waits
 * (infence_timeout_ms). By default (0) there is none: a flip waits for its
 * in-fence however long it takes, as on every KMS driver (checked for
 * longer than the 2 s the bound used to default to). Set, it is a range
 * (above 60000 refused), and a flip behind an in-fence completes whichever
 * of the fence and the timeout comes first, however close they are: a 1 ms
 * timeout against a fence that never signals, and against one signalled
 * right after the commit, many times over. 0 turns it off again.
 *
 * usage: infence-timeout [-n ROUNDS] flipkms
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "kms.h"

#define PARAM	"/sys/module/flipkms/parameters/infence_timeout_ms"

/* Writes @value to the parameter: 0, or -errno. */
static int set_timeout(const char *value)
{
	return write_text(PARAM, value);
}

static long get_timeout(void)
{
	char buf[32] = "";
	int fd = open(PARAM, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

/*
 * One flip behind a fresh sw_sync fence that is signalled right after the
 * commit (@signal) or never: 0 once its event and signalled out-fence are
 * in, else a message in @why.
 */
static int flip_behind(struct kms_dev *dev, const struct kms_pipe *pipe,
		       const struct kms_fb *fb, int signal, char *why, size_t len)
{
	int tl = sw_sync_timeline_create(), fence, ret, rc = -1;
	struct kms_event ev;
	int32_t out = -1;

	if (tl < 0) {
		snprintf(why, len, "sw_sync timeline: %s", errno_name(errno));
		return -1;
	}
	fence = sw_sync_fence_create(tl, "infence-timeout", 1);
	if (fence < 0) {
		snprintf(why, len, "sw_sync fence: %s", errno_name(errno));
		goto out_tl;
	}
	ret = kms_flip(dev, pipe, fb, &out, fence, 7);
	if (signal)
		sw_sync_timeline_inc(tl, 1);
	close(fence);
	if (ret) {
		snprintf(why, len, "commit: %s", errno_name(-ret));
		goto out_tl;
	}
	ret = kms_next_event(dev, 2000, &ev);
	if (ret != 1 || ev.type != DRM_EVENT_FLIP_COMPLETE) {
		snprintf(why, len, "no flip event within 2 s (%s)",
			 ret == 0 ? "timeout" : errno_name(errno));
	} else if (out < 0 || sync_wait(out, 1000)) {
		snprintf(why, len, "out-fence %d not signalled after the event", out);
	} else {
		rc = 0;
	}
	if (out >= 0)
		close(out);
out_tl:
	close(tl);
	return rc;
}

/*
 * With no bound, a flip behind a fence signalled after @hold_ms completes
 * only then: 0, or -1 with a message in @why.
 */
static int flip_waits(struct kms_dev *dev, const struct kms_pipe *pipe,
		      const struct kms_fb *fb, int hold_ms, char *why, size_t len)
{
	int tl = sw_sync_timeline_create(), fence, ret, rc = -1;
	struct kms_event ev;
	int32_t out = -1;

	fence = tl >= 0 ? sw_sync_fence_create(tl, "unbounded", 1) : -1;
	if (fence < 0) {
		snprintf(why, len, "sw_sync fence: %s", errno_name(errno));
		goto out_tl;
	}
	ret = kms_flip(dev, pipe, fb, &out, fence, 8);
	close(fence);
	if (ret) {
		snprintf(why, len, "commit: %s", errno_name(-ret));
		goto out_tl;
	}
	ret = kms_next_event(dev, hold_ms, &ev);
	if (ret != 0) {
		snprintf(why, len, "the flip completed before its fence signalled (%s)",
			 ret == 1 ? "flip event" : errno_name(errno));
	} else if (out >= 0 && kms_fence_polled(out) != 0) {
		snprintf(why, len, "the out-fence signalled before the in-fence");
	} else {
		sw_sync_timeline_inc(tl, 1);
		ret = kms_next_event(dev, 2000, &ev);
		if (ret != 1 || ev.type != DRM_EVENT_FLIP_COMPLETE)
			snprintf(why, len, "no flip event within 2 s of the signal");
		else
			rc = 0;
	}
	if (out >= 0)
		close(out);
out_tl:
	if (tl >= 0)
		close(tl);
	return rc;
}

int main(int argc, char **argv)
{
	int rounds = 50, opt, i, signal, bad[2] = { 0, 0 };
	char why[2][200] = { "", "" }, msg[160];
	struct kms_fb fb[2];
	struct kms_pipe pipe;
	struct kms_dev dev;
	long saved;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n') {
			fprintf(stderr, "usage: %s [-n ROUNDS] flipkms\n", argv[0]);
			return 2;
		}
		rounds = atoi(optarg);
	}
	watchdog(75);
	begin("setup");
	saved = get_timeout();
	require(saved >= 0, "read " PARAM);
	require(kms_open(&dev, kms_driver_arg(argc, argv), KMS_CAP_ATOMIC) == 0, "open card");
	require(kms_pipes(&dev, &pipe, 1) == 1, "a connected pipe");
	for (i = 0; i < 2; i++)
		require(kms_fb_create(dev.fd, pipe.mode.hdisplay, pipe.mode.vdisplay,
				      DRM_FORMAT_XRGB8888, (unsigned int)i, &fb[i]) == 0, "dumb framebuffers");
	require(kms_modeset(&dev, &pipe, NULL, &fb[0]) == 0, "modeset");

	begin("unbounded-by-default");
	check_int("unbounded-by-default", 0, saved);
	begin("flip-waits-for-in-fence-past-2-s");
	check("flip-waits-for-in-fence-past-2-s",
	      !flip_waits(&dev, &pipe, &fb[1], 2500, msg, sizeof(msg)), "%s", msg);
	begin("timeout-above-range-refused");
	check_int("timeout-above-range-refused", -EINVAL, set_timeout("60001"));
	check_int("timeout-above-range-leaves-value", saved, get_timeout());

	begin("timeout-one-ms-accepted");
	if (!check_int("timeout-one-ms-accepted", 0, set_timeout("1")))
		set_timeout("1");
	for (i = 0; i < 2 * rounds; i++) {
		signal = i % 2;
		if (flip_behind(&dev, &pipe, &fb[(i + 1) % 2], signal, msg, sizeof(msg)) &&
		    !bad[signal]++)
			snprintf(why[signal], sizeof(why[signal]), "round %d: %s", i / 2, msg);
	}
	check("flips-behind-unsignalled-fence-complete", !bad[0],
	      "expected every flip to complete after the 1 ms bound, got %d of %d failing (first %s)",
	      bad[0], rounds, why[0]);
	check("flips-behind-just-signalled-fence-complete", !bad[1],
	      "expected every flip to complete, got %d of %d failing (first %s)", bad[1], rounds,
	      why[1]);

	begin("timeout-zero-turns-bound-off");
	check_int("timeout-zero-accepted", 0, set_timeout("0"));
	check("timeout-zero-turns-bound-off",
	      !flip_waits(&dev, &pipe, &fb[0], 300, msg, sizeof(msg)), "%s", msg);
	snprintf(msg, sizeof(msg), "%ld", saved);
	check_int("timeout-restored", 0, set_timeout(msg));
	kms_teardown(&dev, &pipe, fb);
	return finish();
}
