// SPDX-License-Identifier: MIT
/*
 * presentlat's metrics: what each presented frame measured, as the shared
 * reports see it.
 */
#include <string.h>

#include "presentlat.h"

static const struct rp_metric metrics[PL_NMETRICS] = {
	[PL_PRESENT_MINUS_COMMIT] = { "present-commit", "us" },
	[PL_PRESENT_INTERVAL] = { "present-interval", "us" },
	[PL_REFRESH] = { "refresh", "us" },
	[PL_MSC_STEP] = { "msc-step", "vblanks" },
	[PL_VBLANKS_LATE] = { "vblanks-late", "vblanks" },
};

/*
 * Vblanks between the first one after the commit and the one that showed
 * the frame: ceil((presented - commit) / refresh) - 1. A compositor that
 * repaints as late as Weston does (7 ms before the vblank) shows a frame
 * committed just before a vblank one later: that is its repaint window,
 * and counts here. -1 if unknown: refresh 0 (the compositor does not
 * know), or the frame presented at or before its commit (a clock or a
 * compositor gone wrong, counted apart).
 */
static long vblanks_late(const struct pl_frame *f)
{
	int64_t d = f->presented_ns - f->commit_ns;

	if (!f->refresh_ns || d <= 0)
		return -1;
	return (long)((d + f->refresh_ns - 1) / f->refresh_ns) - 1;
}

/* seq = 0: the compositor has no MSC for the output. */
static bool msc_step(const struct pl_frame *f, const struct pl_frame *prev, int64_t *step)
{
	if (!prev || !f->msc || !prev->msc)
		return false;
	*step = (int64_t)(f->msc - prev->msc);
	return true;
}

int64_t pl_clock_ns(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts))
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int pl_run_samples(const struct pl_run *run, struct rp_samples *out)
{
	const struct pl_frame *prev = NULL;
	int64_t step;
	size_t i;
	long late;

	if (rp_samples_init(out, metrics, PL_NMETRICS, run->nframes))
		return -1;
	for (i = 0; i < run->nframes; i++) {
		const struct pl_frame *f = &run->frames[i];

		out->rows[i] = (struct rp_row){
			.index = f->index,
			.counted = !f->warmup,
		};
		if (f->fate != PL_PRESENTED)
			continue;
		late = vblanks_late(f);
		out->rows[i].flagged = late > 0 || f->presented_ns <= f->commit_ns;
		*rp_value(out, i, PL_PRESENT_MINUS_COMMIT) = (f->presented_ns - f->commit_ns) / 1e3;
		if (f->refresh_ns)
			*rp_value(out, i, PL_REFRESH) = f->refresh_ns / 1e3;
		if (late >= 0)
			*rp_value(out, i, PL_VBLANKS_LATE) = (double)late;
		if (prev)
			*rp_value(out, i, PL_PRESENT_INTERVAL) =
				(f->presented_ns - prev->presented_ns) / 1e3;
		if (msc_step(f, prev, &step))
			*rp_value(out, i, PL_MSC_STEP) = (double)step;
		prev = f;
	}
	return 0;
}

void pl_run_counts(const struct pl_run *run, struct pl_counts *out)
{
	const uint32_t vsync = PL_VSYNC | PL_HW_CLOCK | PL_HW_COMPLETION;
	const struct pl_frame *prev = NULL;
	int64_t step;
	bool known;
	size_t i;
	long late;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < run->nframes; i++) {
		const struct pl_frame *f = &run->frames[i];

		/*
		 * One frame per frame callback can be shown no sooner than the
		 * vblank after the previous frame's: that is its first possible
		 * one.
		 */
		known = f->fate == PL_PRESENTED && msc_step(f, prev, &step);
		if (!f->warmup && known && step == 1)
			out->next_vblank++;
		if (!f->warmup && f->fate == PL_PRESENTED && (!f->msc || (prev && !prev->msc)))
			out->msc_unknown++;
		if (f->fate == PL_PRESENTED)
			prev = f;
		if (f->warmup)
			continue;
		out->frames++;
		out->presented += f->fate == PL_PRESENTED;
		out->discarded += f->fate == PL_DISCARDED;
		out->pending += f->fate == PL_PENDING;
		if (f->fate != PL_PRESENTED)
			continue;
		out->not_vsync += (f->flags & vsync) != vsync;
		late = vblanks_late(f);
		out->late += late > 0;
		out->on_time += late == 0;
		out->before_commit += f->presented_ns <= f->commit_ns;
		out->refresh_unknown += !f->refresh_ns;
	}
}
