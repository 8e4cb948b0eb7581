// SPDX-License-Identifier: MIT
/*
 * --vrr: the pace fliplat drives and the verdict on each refresh, by the
 * model of Documentation/fliplat.rst, "Variable refresh". Pure functions,
 * so that the host unit tests check them.
 */
#include "fliplat.h"

/*
 * Event times are whole µs (truncated) and the model's times are exact:
 * a time derived from two events may be off by up to 2 µs.
 */
#define EVENT_SLACK_NS	2000

int64_t fl_vrr_max_frame_ns(unsigned int min_hz)
{
	return min_hz ? 1000000000LL / min_hz : 0;
}

int64_t fl_vrr_gap_ns(unsigned int k, int64_t period_ns, int64_t max_frame_ns)
{
	int64_t span = max_frame_ns > period_ns ? max_frame_ns - period_ns : 0;

	switch (k % 10) {
	case 0:
		return period_ns / 2;			/* above the range: waits */
	case 1:
		return period_ns * 9 / 10;
	case 2:
		return period_ns + span / 10;		/* inside: at the flush */
	case 3:
		return period_ns + span / 2;
	case 4:
		return period_ns + span * 9 / 10;
	case 5:
		return max_frame_ns * 6 / 5;		/* below: one repeated frame */
	case 6:
		return period_ns / 4;
	case 7:
		return max_frame_ns * 5 / 2;		/* two repeated frames */
	case 8:
		return period_ns + span / 4;
	default:
		return max_frame_ns * 3 / 2;
	}
}

void fl_vrr_judge(struct fl_flip *f, int64_t last_ns, uint32_t last_seq, int64_t period_ns,
		  int64_t max_frame_ns)
{
	uint32_t steps = f->event_seq - last_seq;
	int64_t latest;

	f->vrr_gap_ns = f->submit_ns - last_ns;
	f->vrr_repeats = steps > 0 ? steps - 1 : 0;
	/*
	 * The vblanks counted between submit and the flip's refresh are the
	 * display's own refreshes (at 1/MIN s), which the rules below place
	 * exactly; a refresh out of place breaks the model. None was missed.
	 */
	f->missed = 0;
	/* The latest refresh before the flip's: the last repeated frame. */
	latest = last_ns + (int64_t)f->vrr_repeats * max_frame_ns;
	f->vrr_earliest_ns = latest + period_ns > f->submit_ns ? latest + period_ns : f->submit_ns;
	if (f->vrr_repeats)
		f->vrr_kind = FL_VRR_REPEAT;
	else if (f->submit_ns < latest + period_ns)
		f->vrr_kind = FL_VRR_WAIT;
	else
		f->vrr_kind = FL_VRR_FLUSH;
	/* A flip shown at no new refresh, or the count going back. */
	f->vrr_broken = (int32_t)steps <= 0;
	/* Sooner than one period after the latest refresh, or than submit. */
	if (f->event_ns < f->vrr_earliest_ns - EVENT_SLACK_NS)
		f->vrr_broken = true;
	/* Later than the longest frame: a repeated frame was due first. */
	if (f->event_ns > latest + max_frame_ns + EVENT_SLACK_NS)
		f->vrr_broken = true;
	/* Not exactly one period after: it must have started at the flush. */
	if (f->event_ns > latest + period_ns + EVENT_SLACK_NS &&
	    f->event_ns - f->submit_ns > period_ns)
		f->vrr_broken = true;
}
