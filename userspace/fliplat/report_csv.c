// SPDX-License-Identifier: MIT
/*
 * --csv: one row per flip, raw CLOCK_MONOTONIC nanoseconds and the derived
 * differences; a value a flip did not observe is an empty cell.
 */
#include <errno.h>
#include <inttypes.h>

#include "fliplat.h"

static void cell(FILE *f, int64_t value, bool observed)
{
	if (observed)
		fprintf(f, ",%" PRId64, value);
	else
		fputc(',', f);
}

int fl_report_csv(FILE *f, const struct fl_run *run)
{
	size_t i;

	fputs("index,crtc,crtc_id,warmup,submit_ns,ready_ns,event_ns,signal_ns,wake_ns,"
	      "event_read_ns,signal_minus_submit_ns,wake_minus_signal_ns,event_minus_signal_ns,"
	      "event_seq,interval_ns,missed_vblanks,early,late,retries,fence_error\n", f);
	for (i = 0; i < run->nflips; i++) {
		const struct fl_flip *p = &run->flips[i];

		fprintf(f, "%u,%u,%u,%d", p->index, p->crtc, run->crtcs[p->crtc].crtc_id,
			p->warmup);
		cell(f, p->submit_ns, p->submit_ns);
		cell(f, p->ready_ns, p->ready_ns);
		cell(f, p->event_ns, p->event_ns);
		cell(f, p->signal_ns, p->signal_ns);
		cell(f, p->wake_ns, p->wake_ns);
		cell(f, p->event_read_ns, p->event_read_ns);
		cell(f, p->signal_ns - p->submit_ns, p->signal_ns && p->submit_ns);
		cell(f, p->wake_ns - p->signal_ns, p->wake_ns && p->signal_ns);
		cell(f, p->event_ns - p->signal_ns, p->event_ns && p->signal_ns);
		cell(f, p->event_seq, p->event_ns);
		cell(f, p->interval_ns, p->interval_ns > 0);
		cell(f, p->missed, p->event_ns);
		/* Unknown (empty) where the vblank counts could not be read. */
		cell(f, p->early, p->event_ns && p->seq_known);
		cell(f, p->late, p->ready_ns && p->seq_known);
		cell(f, p->retries, true);
		cell(f, p->fence_error, p->signal_ns);
		fputc('\n', f);
	}
	if (ferror(f)) {
		errno = EIO;
		return -1;
	}
	return 0;
}
