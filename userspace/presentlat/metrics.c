// SPDX-License-Identifier: MIT
/*
 * presentlat's metrics: what each presented frame measured, as the shared
 * reports see it.
 */
#include <string.h>

#include "presentlat.h"

const struct rp_metric pl_metrics[PL_NMETRICS] = {
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

/*
 * Vblanks frame @f missed that it could have made. A client that commits a
 * frame per frame callback can be shown no sooner than the vblank after the
 * previous frame's, and no sooner than the first vblank after its commit:
 * it missed the vblanks past both, min(MSC step - 1, vblanks late). A
 * compositor's repaint window alone (late by one, MSC step 1) is no miss.
 * 0 when either is unknown.
 */
static unsigned int missed(long late, bool step_known, int64_t step)
{
	if (late <= 0 || !step_known || step <= 1)
		return 0;
	return (unsigned int)(step - 1 < late ? step - 1 : late);
}

static const char *const mark_names[] = { "commit", "present" };

int pl_run_samples(const struct pl_run *run, struct rp_samples *out)
{
	const struct pl_frame *prev = NULL;
	int64_t step = 0;
	bool known;
	size_t i;
	long late;

	if (rp_samples_init(out, pl_metrics, PL_NMETRICS, run->nframes))
		return -1;
	/* The frame timeline: commit, then present (a vblank's time). */
	if (rp_samples_marks(out, 2, mark_names, 1)) {
		rp_samples_free(out);
		return -1;
	}
	for (i = 0; i < run->nframes; i++) {
		const struct pl_frame *f = &run->frames[i];

		out->rows[i] = (struct rp_row){
			.index = f->index,
			.counted = !f->warmup,
			.period_ns = f->refresh_ns,
		};
		*rp_mark(out, i, 0) = f->commit_ns;
		if (f->fate != PL_PRESENTED)
			continue;
		*rp_mark(out, i, 1) = f->presented_ns;
		late = vblanks_late(f);
		known = msc_step(f, prev, &step);
		out->rows[i].missed = missed(late, known, step);
		out->rows[i].flagged = out->rows[i].missed > 0 || f->presented_ns <= f->commit_ns;
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

size_t pl_frames_without(const struct pl_run *run, uint32_t flags)
{
	size_t i, n = 0;

	for (i = 0; i < run->nframes; i++) {
		const struct pl_frame *f = &run->frames[i];

		n += !f->warmup && f->fate == PL_PRESENTED && (f->flags & flags) != flags;
	}
	return n;
}

void pl_run_checks(const struct pl_run *run, struct rp_checks *out)
{
	const struct pl_limits *l = &run->opt.limits;
	struct rp_samples s;
	struct pl_counts c;

	memset(out, 0, sizeof(*out));
	pl_run_counts(run, &c);
	if (l->max_late >= 0)
		rp_check(out, "--max-late", "frames after the first vblank after commit",
			 l->max_late, c.late, true);
	if (l->max_discarded >= 0)
		rp_check(out, "--max-discarded", "discarded frames", l->max_discarded,
			 c.discarded, true);
	if (l->require_flags)
		rp_check(out, "--require-flags", "presented frames without them", 0,
			 pl_frames_without(run, l->require_flags), c.presented > 0);
	if (l->p99.n) {
		if (pl_run_samples(run, &s)) {
			/* No memory for the samples: a limit not judged is not kept. */
			rp_check(out, "--max-p99-us", "p99 (out of memory)", 0, 0, false);
			return;
		}
		rp_check_p99(out, &s, &l->p99);
		rp_samples_free(&s);
	}
}

int pl_parse_flags(const char *arg, uint32_t *flags)
{
	static const struct { const char *name; uint32_t flag; } names[] = {
		{ "vsync", PL_VSYNC }, { "hw-clock", PL_HW_CLOCK },
		{ "hw-completion", PL_HW_COMPLETION }, { "zero-copy", PL_ZERO_COPY },
	};
	const char *p = arg, *comma;
	size_t i, len;

	*flags = 0;
	do {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == len && !strncmp(names[i].name, p, len))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return -1;
		*flags |= names[i].flag;
		p = comma + 1;
	} while (comma);
	return 0;
}
