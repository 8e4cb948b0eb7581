// SPDX-License-Identifier: MIT
/*
 * --csv: one row per flip, raw CLOCK_MONOTONIC nanoseconds and the derived
 * differences; a value a flip did not observe is an empty cell.
 */
#include "fliplat.h"

static const char header[] =
	"index,crtc,crtc_id,warmup,submit_ns,ready_ns,event_ns,signal_ns,wake_ns,"
	"event_read_ns,signal_minus_submit_ns,wake_minus_signal_ns,event_minus_signal_ns,"
	"event_seq,interval_ns,missed_vblanks,early,late,retries,fence_error,unready";
#define NCOLS 21

static void flip_row(void *ctx, size_t row, int64_t *cell, bool *present)
{
	const struct fl_run *run = ctx;
	const struct fl_flip *p = &run->flips[row];
	size_t c = 0;

#define CELL(value, observed) do { cell[c] = (value); present[c++] = (observed); } while (0)
	CELL(p->index, true);
	CELL(p->crtc, true);
	CELL(run->crtcs[p->crtc].crtc_id, true);
	CELL(p->warmup, true);
	CELL(p->submit_ns, p->submit_ns);
	CELL(p->ready_ns, p->ready_ns);
	CELL(p->event_ns, p->event_ns);
	CELL(p->signal_ns, p->signal_ns);
	CELL(p->wake_ns, p->wake_ns);
	CELL(p->event_read_ns, p->event_read_ns);
	CELL(p->signal_ns - p->submit_ns, p->signal_ns && p->submit_ns);
	CELL(p->wake_ns - p->signal_ns, p->wake_ns && p->signal_ns);
	CELL(p->event_ns - p->signal_ns, p->event_ns && p->signal_ns);
	CELL(p->event_seq, p->event_ns);
	CELL(p->interval_ns, p->has_interval);
	CELL(p->missed, p->event_ns && !p->unready);
	/* Unknown (empty) where the vblank counts could not be read. */
	CELL(p->early, p->event_ns && p->seq_known);
	CELL(p->late, p->ready_ns && (p->seq_known || p->unready));
	CELL(p->retries, true);
	CELL(p->fence_error, p->signal_ns);
	CELL(p->unready, p->ready_ns);
#undef CELL
}

int fl_report_csv(FILE *f, const struct fl_run *run)
{
	return rp_csv_write(f, header, NCOLS, run->nflips, flip_row, (void *)run);
}
