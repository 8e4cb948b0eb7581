// SPDX-License-Identifier: GPL-2.0+
/*
 * Variable refresh: each connector is an adaptive-sync monitor with a
 * refresh range (the vrr_range module parameter, a configfs connector's
 * vrr_range, crtc-<i>/vrr_range in debugfs), advertised in its EDID.
 * With VRR_ENABLED on and the mode's rate inside the range, a refresh
 * starts when a flip is flushed, no sooner than one mode period after the
 * previous refresh, and no later than one period of the range's minimum
 * rate, when the display repeats its frame on its own.
 * Documentation/flipkms.rst, Variable refresh, is the datasheet. The timer
 * callback and the flush (flipkms_crtc.c) call the helpers here under
 * &flipkms_output.vblank_lock.
 */

#include <linux/module.h>

#include <drm/drm_print.h>

#include "flipkms_drv.h"
#include "flipkms_frame.h"

static char *vrr_range = "48-144";
module_param(vrr_range, charp, 0444);
MODULE_PARM_DESC(vrr_range,
		 "Refresh range of every output's monitor, MIN-MAX in Hz (30-255), or one range per output, comma-separated (default 48-144)");

/* Each output's range as the module parameter gives it. */
static u32 flipkms_vrr_ranges[FLIPKMS_MAX_OUTPUTS];

/**
 * flipkms_vrr_parse() - read a refresh range
 * @text:	"MIN-MAX" in Hz, with an optional trailing newline
 * @range:	set to flipkms_vrr_pack(MIN, MAX) on success
 *
 * Return: 0; -EINVAL for text that is not MIN-MAX or a MIN above MAX;
 * -ERANGE for a rate outside FLIPKMS_VRR_MIN_HZ to FLIPKMS_VRR_MAX_HZ.
 */
int flipkms_vrr_parse(const char *text, u32 *range)
{
	unsigned int min, max;
	char end = 0;
	int n;

	n = sscanf(text, "%u-%u%c", &min, &max, &end);
	if (n < 2 || (n == 3 && end != '\n'))
		return -EINVAL;
	if (min < FLIPKMS_VRR_MIN_HZ || max > FLIPKMS_VRR_MAX_HZ)
		return -ERANGE;
	if (min > max)
		return -EINVAL;
	*range = flipkms_vrr_pack(min, max);
	return 0;
}

/**
 * flipkms_vrr_parse_params() - check the vrr_range module parameter
 *
 * Return: 0, or the error of the first range that is refused, with a
 * message naming it.
 */
int flipkms_vrr_parse_params(void)
{
	const char *p = vrr_range;
	unsigned int i, len;
	char buf[16];
	int ret = 0;

	for (i = 0; i < FLIPKMS_MAX_OUTPUTS && !ret; i++) {
		/* The last range given goes for the outputs after it. */
		if (i && !*p) {
			flipkms_vrr_ranges[i] = flipkms_vrr_ranges[i - 1];
			continue;
		}
		len = strcspn(p, ",");
		ret = -EINVAL;
		if (len < sizeof(buf)) {
			memcpy(buf, p, len);
			buf[len] = '\0';
			ret = flipkms_vrr_parse(buf, &flipkms_vrr_ranges[i]);
		}
		p += len;
		if (*p == ',')
			p++;
	}
	if (!ret && *p)
		ret = -EINVAL;
	if (ret)
		pr_err("flipkms: vrr_range must be MIN-MAX in Hz with %u <= MIN <= MAX <= %u, or up to %u of them comma-separated, not '%s'\n",
		       FLIPKMS_VRR_MIN_HZ, FLIPKMS_VRR_MAX_HZ, FLIPKMS_MAX_OUTPUTS,
		       vrr_range);
	return ret;
}

/**
 * flipkms_vrr_default() - the refresh range the module parameter gives
 * @index:	an output's index, below FLIPKMS_MAX_OUTPUTS
 *
 * Return: The range, flipkms_vrr_pack()ed.
 */
u32 flipkms_vrr_default(unsigned int index)
{
	return flipkms_vrr_ranges[index];
}

/**
 * flipkms_vrr_next() - when the next refresh under VRR starts
 * @out:	the output, under its vblank lock
 *
 * At the flush of the flip waiting for a refresh, if there is one, but no
 * sooner than one mode period after the latest refresh; without a flip,
 * or if it comes too late, one period of the range's minimum rate after
 * it, which repeats the frame. A flip held by the vrr_hold fault waits
 * for that longest frame too.
 *
 * Return: the start of that refresh.
 */
ktime_t flipkms_vrr_next(const struct flipkms_output *out)
{
	ktime_t at = ktime_add(out->refresh_at, out->vrr_max);

	if (out->vrr_flip && !atomic_read(&out->vrr_hold))
		at = min(at, max(out->vrr_flip,
				 ktime_add(out->refresh_at, out->period)));
	return at;
}

/**
 * flipkms_vrr_skip() - the refreshes a late timer can skip
 * @out:	the output, under its vblank lock
 * @when:	the refresh the timer was due for; moved to the latest of
 *		those that have passed and that it may skip to
 *
 * The timer handles one refresh per expiry, but after a long stall it
 * skips the repeated frames that started meanwhile before any waiting
 * flip's flush (they latch nothing) and handles the latest, as the fixed
 * grid skips missed vblanks.
 *
 * Return: how many it skipped.
 */
u64 flipkms_vrr_skip(const struct flipkms_output *out, ktime_t *when)
{
	s64 late = ktime_to_ns(ktime_sub(ktime_get(), *when));
	s64 step = ktime_to_ns(out->vrr_max);
	s64 to_flip;
	u64 k;

	if (late < step)
		return 0;
	k = div64_u64(late, step);
	if (out->vrr_flip) {
		to_flip = ktime_to_ns(ktime_sub(out->vrr_flip, *when));
		if (to_flip <= 0)
			return 0;
		/* Every skipped refresh and the one handled precede the flip. */
		k = min(k, div64_u64(to_flip - 1, step));
	}
	*when = ktime_add_ns(*when, k * step);
	return k;
}

/**
 * flipkms_vrr_flushed() - a commit is flushed and waits for a refresh
 * @out:	the output, under its vblank lock
 * @enabled:	the commit's VRR_ENABLED
 * @flushed:	its flush time
 *
 * The commit's VRR state takes effect with the refresh that latches it
 * (flipkms_vrr_latched()): VRR only while the mode's rate is in the range
 * then in force. Under VRR, a queued timer due later moves to the refresh
 * the flip brings; one running, or due already, finds the flip when it
 * schedules its next expiry.
 */
void flipkms_vrr_flushed(struct flipkms_output *out, bool enabled,
			 ktime_t flushed)
{
	u32 range = READ_ONCE(out->vrr_range);
	s64 period = ktime_to_ns(out->period);
	u32 hz = period > 0 ? DIV_ROUND_CLOSEST_ULL(NSEC_PER_SEC, period) : 0;
	struct hrtimer *timer = &out->vblank_timer;

	out->vrr_req = enabled && hz >= flipkms_vrr_min_hz(range) &&
		       hz <= flipkms_vrr_max_hz(range);
	out->vrr_req_max = ns_to_ktime(max_t(s64, period,
					     NSEC_PER_SEC / flipkms_vrr_min_hz(range)));
	out->vrr_flip = flushed;
	if (out->vrr && out->vblank_on && !out->in_vblank &&
	    hrtimer_is_queued(timer) &&
	    ktime_after(hrtimer_get_expires(timer), flushed))
		hrtimer_start(timer, min(hrtimer_get_expires(timer),
					 flipkms_vrr_next(out)),
			      HRTIMER_MODE_ABS);
}

/**
 * flipkms_vrr_latched() - the refresh at @when has latched the flip
 * @out:	the output, under its vblank lock
 * @when:	the refresh's time
 *
 * The latched commit's VRR state is in force from this refresh on. When
 * VRR goes off, the mode's grid starts again at this refresh. A flip
 * latched under VRR spends one vrr_hold.
 */
void flipkms_vrr_latched(struct flipkms_output *out, ktime_t when)
{
	if (out->vrr)
		atomic_add_unless(&out->vrr_hold, -1, 0);
	out->vrr_flip = 0;
	if (out->vrr && !out->vrr_req)
		out->anchor = when;
	out->vrr = out->vrr_req;
	out->vrr_max = out->vrr_req_max;
}

/**
 * flipkms_vrr_async_refreshes() - whether an async flip starts a refresh
 * @out:	the output, under its vblank lock
 * @frame:	the flip's frame
 * @now:	its flush
 *
 * Under VRR the display holds the latest refresh's vertical blanking until
 * a flip comes or 1/MIN s has passed. An async flip flushed in that
 * blanking, past the refresh's active lines, has nothing left to tear: it
 * starts the next refresh as a synchronous flip would, at its flush or one
 * mode period after the latest refresh if that is later, as an immediate
 * flip ends amdgpu's stretched front porch. In the active lines it tears
 * as on the fixed grid.
 *
 * Return: True if the flip is to be made synchronous.
 */
bool flipkms_vrr_async_refreshes(const struct flipkms_output *out,
				 const struct flipkms_frame *frame, ktime_t now)
{
	s64 since = ktime_to_ns(ktime_sub(now, out->refresh_at));

	if (!out->vrr || !frame)
		return false;
	return flipkms_tear_line(since, ktime_to_ns(out->period),
				 frame->vtotal) >= frame->height;
}
