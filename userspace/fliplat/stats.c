// SPDX-License-Identifier: MIT
/*
 * fliplat's metrics: what each flip measured, as the shared reports see it.
 */
#include <stdlib.h>
#include <string.h>

#include "fliplat.h"

const struct rp_metric fl_metrics[FL_NMETRICS] = {
	[FL_SIGNAL_MINUS_SUBMIT] = { "signal-submit", "us" },
	[FL_EVENT_MINUS_SUBMIT] = { "event-submit", "us" },
	[FL_WAKE_MINUS_SIGNAL] = { "wake-signal", "us" },
	[FL_EVENT_MINUS_SIGNAL] = { "event-signal", "us" },
	[FL_READ_MINUS_EVENT] = { "read-event", "us" },
	[FL_VBLANK_INTERVAL] = { "vblank-interval", "us" },
	[FL_MISSED_VBLANKS] = { "missed-vblanks", "vblanks" },
	[FL_FENCE_MINUS_EVENT] = { "fence-event", "us" },
	[FL_WAKE_MINUS_READ] = { "wake-read", "us" },
};

const char *fl_metric_name(enum fl_metric m)
{
	return m < FL_NMETRICS ? fl_metrics[m].name : "?";
}

const char *fl_metric_unit(enum fl_metric m)
{
	return m < FL_NMETRICS ? fl_metrics[m].unit : "?";
}

bool fl_metric_is_time(enum fl_metric m)
{
	return m < FL_NMETRICS && rp_metric_is_time(&fl_metrics[m]);
}

/* @later - @earlier in µs, if both were observed. */
static bool difference(int64_t later, int64_t earlier, double *us)
{
	if (!later || !earlier)
		return false;
	*us = (double)(later - earlier) / 1e3;
	return true;
}

/* Metric @m of one flip; false if the flip did not observe it. */
bool fl_flip_metric(const struct fl_flip *f, enum fl_metric m, double *value)
{
	switch (m) {
	case FL_SIGNAL_MINUS_SUBMIT:
		return difference(f->signal_ns, f->submit_ns, value);
	case FL_EVENT_MINUS_SUBMIT:
		return difference(f->event_ns, f->submit_ns, value);
	case FL_WAKE_MINUS_SIGNAL:
		return difference(f->wake_ns, f->signal_ns, value);
	case FL_EVENT_MINUS_SIGNAL:
		return difference(f->event_ns, f->signal_ns, value);
	case FL_READ_MINUS_EVENT:
		return difference(f->event_read_ns, f->event_ns, value);
	case FL_VBLANK_INTERVAL:
		if (!f->has_interval)
			return false;
		*value = (double)f->interval_ns / 1e3;
		return true;
	case FL_MISSED_VBLANKS:
		if (!f->event_ns || f->unready)
			return false;
		*value = f->missed;
		return true;
	case FL_FENCE_MINUS_EVENT:
		return difference(f->signal_ns, f->event_ns, value);
	case FL_WAKE_MINUS_READ:
		return difference(f->wake_ns, f->event_read_ns, value);
	default:
		return false;
	}
}

void fl_run_stats(const struct fl_run *run, enum fl_metric m, int crtc,
		  struct rp_stats *out)
{
	double *v = malloc((run->nflips ? run->nflips : 1) * sizeof(*v));
	size_t i, n = 0;

	if (!v) {
		memset(out, 0, sizeof(*out));
		return;
	}
	for (i = 0; i < run->nflips; i++) {
		const struct fl_flip *f = &run->flips[i];

		if (f->warmup || (crtc >= 0 && f->crtc != (unsigned int)crtc))
			continue;
		if (fl_flip_metric(f, m, &v[n]))
			n++;
	}
	rp_stats_compute(v, n, out);
	free(v);
}

/* The frame timeline's marks of a flip, in the order they happen. */
static const char *const mark_names[] = { "submit", "ready", "latch", "signal", "wake" };
enum { MARK_SUBMIT, MARK_READY, MARK_LATCH, MARK_SIGNAL, MARK_WAKE, NMARKS };

/*
 * How flip @f's refresh began: a tearing flip's at no vblank; a judged VRR
 * refresh at the flush, or held to one period after the latest refresh
 * (repeated frames included), within the events' µs.
 */
static void row_refresh(const struct fl_run *run, const struct fl_flip *f, struct rp_row *row)
{
	const struct fl_crtc *c = f->crtc < run->ncrtcs ? &run->crtcs[f->crtc] : NULL;
	int64_t max_frame = c ? fl_vrr_max_frame_ns(c->vrr_min_hz) : 0, latest;

	if (run->mode == FL_MODE_ASYNC) {
		row->refresh = RP_REFRESH_TEAR;
		return;
	}
	if (f->vrr_kind == FL_VRR_UNJUDGED || !c)
		return;
	row->repeats = f->vrr_repeats;
	row->repeat_ns = max_frame;
	row->repeat_from_ns = f->submit_ns - f->vrr_gap_ns;
	latest = row->repeat_from_ns + (int64_t)f->vrr_repeats * max_frame;
	row->refresh = f->vrr_kind == FL_VRR_WAIT ||
		       (f->vrr_kind == FL_VRR_REPEAT && f->event_ns <= latest + c->period_ns)
		       ? RP_REFRESH_WAIT : RP_REFRESH_FLUSH;
}

int fl_run_samples(const struct fl_run *run, struct rp_samples *out)
{
	size_t i;
	int m;

	if (rp_samples_init(out, fl_metrics, FL_NMETRICS, run->nflips))
		return -1;
	if (rp_samples_marks(out, NMARKS, mark_names, MARK_LATCH)) {
		rp_samples_free(out);
		return -1;
	}
	for (i = 0; i < run->nflips; i++) {
		const struct fl_flip *f = &run->flips[i];

		out->rows[i] = (struct rp_row){
			.index = f->index,
			.group = f->crtc,
			.counted = !f->warmup,
			.flagged = f->missed > 0 || f->unready,
			.missed = f->missed,
			.period_ns = f->crtc < run->ncrtcs ? run->crtcs[f->crtc].period_ns : 0,
		};
		row_refresh(run, f, &out->rows[i]);
		*rp_mark(out, i, MARK_SUBMIT) = f->submit_ns;
		*rp_mark(out, i, MARK_READY) = f->ready_ns;
		*rp_mark(out, i, MARK_LATCH) = f->event_ns;
		*rp_mark(out, i, MARK_SIGNAL) = f->signal_ns;
		*rp_mark(out, i, MARK_WAKE) = f->wake_ns;
		for (m = 0; m < FL_NMETRICS; m++)
			fl_flip_metric(f, m, rp_value(out, i, m));
	}
	return 0;
}

void fl_run_counts(const struct fl_run *run, struct fl_counts *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < run->nflips; i++) {
		const struct fl_flip *f = &run->flips[i];

		/* Retries move a warm-up flip's submit time too: count them all. */
		out->retries += f->retries;
		if (f->warmup)
			continue;
		out->flips++;
		if (!f->event_ns || (fl_mode_has_fence(run->mode) && !f->signal_ns))
			out->incomplete++;
		out->fence_errors += f->fence_error < 0;
		out->missed_flips += f->missed > 0;
		out->missed_vblanks += f->missed;
		out->early += f->early;
		out->late += f->late;
		out->unready += f->unready;
		out->bad_intervals += f->has_interval && f->interval_ns <= 0;
		out->vrr_judged += f->vrr_kind != FL_VRR_UNJUDGED;
		out->vrr_breaks += f->vrr_broken;
		out->vrr_at_flush += f->vrr_kind == FL_VRR_FLUSH;
		out->vrr_waited += f->vrr_kind == FL_VRR_WAIT;
		out->vrr_after_repeats += f->vrr_kind == FL_VRR_REPEAT;
		out->vrr_repeated_frames += f->vrr_kind ? f->vrr_repeats : 0;
	}
}

void fl_judge_flip(struct fl_flip *f, const struct fl_bounds *b)
{
	uint32_t earliest, latest, seq = f->event_seq;
	int64_t from, periods;

	f->missed = 0;
	f->early = false;
	f->seq_known = b->known;
	f->unready = !b->ready;
	if (f->unready) {
		/*
		 * The driver stopped waiting for the in-fence: no vblank was
		 * the first possible one, so none was missed; the renderer
		 * was late.
		 */
		f->late = true;
		f->seq_known = false;
		return;
	}
	if (b->known) {
		/* Event sequences are the low 32 bits of the 64-bit count. */
		earliest = (uint32_t)b->before + 1;
		latest = (uint32_t)(b->blocking ? b->before : b->after) + 1;
		f->early = (int32_t)(seq - earliest) < 0;
		f->missed = (int32_t)(seq - latest) > 0 ? seq - latest : 0;
		return;
	}
	/*
	 * No vblank query: the vblanks that passed between the moment the
	 * flip became possible and the one that showed it, from the period.
	 */
	from = f->ready_ns ? f->ready_ns : f->submit_ns;
	if (!b->period_ns || !from || f->event_ns <= from)
		return;
	periods = (f->event_ns - from + b->period_ns - 1) / b->period_ns - 1;
	f->missed = periods > 0 ? (unsigned int)periods : 0;
}

const char *fl_check_event(const struct fl_run *run, size_t rec, uint32_t crtc_id)
{
	const struct fl_flip *f;

	if (rec >= run->nflips)
		return "a flip event whose cookie is no flip fliplat submitted";
	f = &run->flips[rec];
	if (f->event_ns)
		return "a second flip event for one flip";
	if (crtc_id && f->crtc < run->ncrtcs && crtc_id != run->crtcs[f->crtc].crtc_id)
		return "a flip event on another CRTC than the flip's";
	return NULL;
}

void fl_run_checks(const struct fl_run *run, struct rp_checks *out)
{
	const struct fl_limits *l = &run->limits;
	struct rp_samples s;
	struct fl_counts c;

	memset(out, 0, sizeof(*out));
	fl_run_counts(run, &c);
	if (l->max_missed >= 0)
		rp_check(out, "--max-missed", "flips that missed a vblank", l->max_missed,
			 c.missed_flips, true);
	if (l->max_late >= 0)
		rp_check(out, "--max-late", "late frames", l->max_late, c.late,
			 run->mode == FL_MODE_INFENCE);
	if (l->max_early >= 0)
		rp_check(out, "--max-early", "early flips", l->max_early, c.early, true);
	if (l->max_vrr_breaks >= 0)
		rp_check(out, "--max-vrr-breaks", "refreshes that broke the VRR model",
			 l->max_vrr_breaks, c.vrr_breaks, run->vrr);
	if (l->p99.n) {
		if (fl_run_samples(run, &s)) {
			/* No memory for the samples: a limit not judged is not kept. */
			rp_check(out, "--max-p99-us", "p99 (out of memory)", 0, 0, false);
			return;
		}
		rp_check_p99(out, &s, &l->p99);
		rp_samples_free(&s);
	}
}
