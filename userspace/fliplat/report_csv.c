// SPDX-License-Identifier: MIT
/*
 * --csv: one row per flip, raw CLOCK_MONOTONIC nanoseconds and the derived
 * differences; a value a flip did not observe is an empty cell. The header
 * and the rows come from one table, columns[] below.
 */
#include "fliplat.h"

/* col_NAME(): column NAME's cell of flip @i, false when not observed. */
#define COLUMN(name, observed, value)						\
	static bool col_##name(const void *ctx, size_t i, int64_t *v)		\
	{									\
		const struct fl_run *run = ctx;					\
		const struct fl_flip *p = &run->flips[i];			\
										\
		*v = (value);							\
		return (observed);						\
	}

COLUMN(index, true, p->index)
COLUMN(crtc, true, p->crtc)
COLUMN(crtc_id, true, run->crtcs[p->crtc].crtc_id)
COLUMN(warmup, true, p->warmup)
COLUMN(submit_ns, p->submit_ns, p->submit_ns)
COLUMN(ready_ns, p->ready_ns, p->ready_ns)
COLUMN(event_ns, p->event_ns, p->event_ns)
COLUMN(signal_ns, p->signal_ns, p->signal_ns)
COLUMN(wake_ns, p->wake_ns, p->wake_ns)
COLUMN(event_read_ns, p->event_read_ns, p->event_read_ns)
COLUMN(signal_minus_submit_ns, p->signal_ns && p->submit_ns, p->signal_ns - p->submit_ns)
COLUMN(wake_minus_signal_ns, p->wake_ns && p->signal_ns, p->wake_ns - p->signal_ns)
COLUMN(event_minus_signal_ns, p->event_ns && p->signal_ns, p->event_ns - p->signal_ns)
COLUMN(signal_minus_event_ns, p->event_ns && p->signal_ns, p->signal_ns - p->event_ns)
COLUMN(wake_minus_event_read_ns, p->wake_ns && p->event_read_ns, p->wake_ns - p->event_read_ns)
COLUMN(event_seq, p->event_ns, p->event_seq)
COLUMN(interval_ns, p->has_interval, p->interval_ns)
COLUMN(missed_vblanks, p->event_ns && !p->unready, p->missed)
/* Unknown (empty) where the vblank counts could not be read. */
COLUMN(early, p->event_ns && p->seq_known, p->early)
COLUMN(late, p->ready_ns && (p->seq_known || p->unready), p->late)
COLUMN(retries, true, p->retries)
COLUMN(fence_error, p->signal_ns, p->fence_error)
COLUMN(unready, p->ready_ns, p->unready)
/* In-fence mode: empty where the in-fence had no deadline (or none could be read). */
COLUMN(deadline_ns, p->deadline_ns, p->deadline_ns)
COLUMN(deadline_slack_ns, p->deadline_ns && p->ready_ns, p->deadline_ns - p->ready_ns)
/* Flip to scanout (--async), the latch delay (--vrr). */
COLUMN(event_minus_submit_ns, p->event_ns && p->submit_ns, p->event_ns - p->submit_ns)
/* --vrr: empty where the flip was not judged (no refresh before it). */
COLUMN(vrr_gap_ns, p->vrr_kind, p->vrr_gap_ns)
COLUMN(vrr_kind, p->vrr_kind, p->vrr_kind)
COLUMN(vrr_repeats, p->vrr_kind, p->vrr_repeats)
COLUMN(vrr_earliest_ns, p->vrr_kind, p->vrr_earliest_ns)
COLUMN(vrr_broken, p->vrr_kind, p->vrr_broken)

static const struct rp_csv_column columns[] = {
	RP_CSV_COLUMN(index), RP_CSV_COLUMN(crtc), RP_CSV_COLUMN(crtc_id),
	RP_CSV_COLUMN(warmup), RP_CSV_COLUMN(submit_ns), RP_CSV_COLUMN(ready_ns),
	RP_CSV_COLUMN(event_ns), RP_CSV_COLUMN(signal_ns), RP_CSV_COLUMN(wake_ns),
	RP_CSV_COLUMN(event_read_ns), RP_CSV_COLUMN(signal_minus_submit_ns),
	RP_CSV_COLUMN(wake_minus_signal_ns), RP_CSV_COLUMN(event_minus_signal_ns),
	RP_CSV_COLUMN(event_seq), RP_CSV_COLUMN(interval_ns), RP_CSV_COLUMN(missed_vblanks),
	RP_CSV_COLUMN(early), RP_CSV_COLUMN(late), RP_CSV_COLUMN(retries),
	RP_CSV_COLUMN(fence_error), RP_CSV_COLUMN(unready),
	/* Added after the rest (schema 2 readers find columns by name). */
	RP_CSV_COLUMN(signal_minus_event_ns), RP_CSV_COLUMN(wake_minus_event_read_ns),
	RP_CSV_COLUMN(deadline_ns), RP_CSV_COLUMN(deadline_slack_ns),
	RP_CSV_COLUMN(event_minus_submit_ns), RP_CSV_COLUMN(vrr_gap_ns), RP_CSV_COLUMN(vrr_kind),
	RP_CSV_COLUMN(vrr_repeats), RP_CSV_COLUMN(vrr_earliest_ns), RP_CSV_COLUMN(vrr_broken),
};

int fl_report_csv(FILE *f, const struct fl_run *run)
{
	return rp_csv_write(f, columns, sizeof(columns) / sizeof(columns[0]), run->nflips, run);
}
