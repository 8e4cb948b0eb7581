// SPDX-License-Identifier: MIT
/*
 * presentlat's reports, through the shared writers: the table on stdout,
 * --csv (one row per committed frame), --json (configuration, counts and
 * summary) and --plot (SVG).
 */
#include <time.h>

#include "presentlat.h"

static void flags_text(uint32_t flags, char *buf)
{
	buf[0] = flags & PL_VSYNC ? 's' : '_';
	buf[1] = flags & PL_HW_CLOCK ? 'c' : '_';
	buf[2] = flags & PL_HW_COMPLETION ? 'e' : '_';
	buf[3] = flags & PL_ZERO_COPY ? 'z' : '_';
	buf[4] = '\0';
}

static const char *clock_name(const struct pl_run *run)
{
	if (!run->clock_known)
		return "unknown";
	switch (run->clock_id) {
	case CLOCK_MONOTONIC:
		return "CLOCK_MONOTONIC";
	case CLOCK_MONOTONIC_RAW:
		return "CLOCK_MONOTONIC_RAW";
	case CLOCK_REALTIME:
		return "CLOCK_REALTIME";
	default:
		return "other";
	}
}

int pl_report_table(FILE *f, const struct pl_run *run)
{
	struct rp_samples s;
	struct pl_counts c;

	if (pl_run_samples(run, &s))
		return -1;
	pl_run_counts(run, &c);
	fprintf(f, "presentlat: %s (%s), %s\n", run->compositor, clock_name(run),
		run->kernel);
	fprintf(f, "  %zu frames counted (+%u warm-up) in %.1f s, %ux%u shm", c.frames,
		run->opt.warmup, (run->finished_ns - run->started_ns) / 1e9, run->opt.width,
		run->opt.height);
	if (run->opt.busy)
		fprintf(f, ", %u frames then %u ms idle", run->opt.busy, run->opt.idle_ms);
	if (run->opt.render_us)
		fprintf(f, ", render %u us", run->opt.render_us);
	fputs("\n\n", f);
	rp_table_write(f, &s, -1, "(no frame presented)");
	fprintf(f, "\n  %zu presented, %zu discarded, %zu without feedback, "
		"%zu not VSYNC|HW_CLOCK|HW_COMPLETION, %zu after the first vblank after commit, "
		"%zu at the vblank after the previous frame's\n",
		c.presented, c.discarded, c.pending, c.not_vsync, c.late, c.next_vblank);
	fprintf(f, "  %zu at the first vblank after commit; unknown: %zu with refresh 0, "
		"%zu presented before their commit (a wrong clock or compositor), "
		"%zu without an MSC (seq 0)\n",
		c.on_time, c.refresh_unknown, c.before_commit, c.msc_unknown);
	if (run->failure)
		fprintf(f, "  INCOMPLETE RUN: %s\n", run->failure);
	rp_samples_free(&s);
	return rp_finish(f);
}

/* col_NAME(): column NAME's cell of frame @i, false when not observed. */
#define COLUMN(name, observed, value)						\
	static bool col_##name(const void *ctx, size_t i, int64_t *v)		\
	{									\
		const struct pl_frame *p = &((const struct pl_run *)ctx)->frames[i];	\
		bool shown = p->fate == PL_PRESENTED;				\
										\
		(void)shown;							\
		*v = (value);							\
		return (observed);						\
	}

COLUMN(index, true, p->index)
COLUMN(warmup, true, p->warmup)
COLUMN(commit_ns, true, p->commit_ns)
COLUMN(presented, true, shown)
COLUMN(presented_ns, shown, p->presented_ns)
COLUMN(present_minus_commit_ns, shown, p->presented_ns - p->commit_ns)
COLUMN(refresh_ns, shown && p->refresh_ns, p->refresh_ns)
COLUMN(msc, shown && p->msc, (int64_t)p->msc)
COLUMN(flags, shown, p->flags)
COLUMN(discarded, p->fate != PL_PENDING, p->fate == PL_DISCARDED)

/* The header and the rows both come from this table. */
static const struct rp_csv_column columns[] = {
	RP_CSV_COLUMN(index), RP_CSV_COLUMN(warmup), RP_CSV_COLUMN(commit_ns),
	RP_CSV_COLUMN(presented), RP_CSV_COLUMN(presented_ns),
	RP_CSV_COLUMN(present_minus_commit_ns), RP_CSV_COLUMN(refresh_ns), RP_CSV_COLUMN(msc),
	RP_CSV_COLUMN(flags), RP_CSV_COLUMN(discarded),
};

int pl_report_csv(FILE *f, const struct pl_run *run)
{
	return rp_csv_write(f, columns, sizeof(columns) / sizeof(columns[0]), run->nframes, run);
}

int pl_report_json(FILE *f, const struct pl_run *run)
{
	const uint32_t all = PL_VSYNC | PL_HW_CLOCK | PL_HW_COMPLETION | PL_ZERO_COPY;
	uint32_t any = 0, every = all;
	struct rp_checks checks;
	struct rp_samples s;
	struct pl_counts c;
	struct rp_json j;
	char text[8];
	size_t i;
	int ret;

	if (pl_run_samples(run, &s))
		return -1;
	pl_run_counts(run, &c);
	for (i = 0; i < run->nframes; i++) {
		if (run->frames[i].warmup || run->frames[i].fate != PL_PRESENTED)
			continue;
		any |= run->frames[i].flags;
		every &= run->frames[i].flags;
	}
	pl_run_checks(run, &checks);
	rp_json_begin(&j, f);
	rp_json_provenance(&j, "presentlat", PL_JSON_SCHEMA, &run->prov);
	rp_json_string(&j, "status", run->failure ? "failed" : "complete");
	rp_json_string(&j, "failure", run->failure);
	rp_json_object(&j, "config");
	rp_json_int(&j, "frames", run->opt.frames);
	rp_json_number(&j, "duration_s", run->opt.duration_s, run->opt.duration_s > 0);
	rp_json_int(&j, "warmup", run->opt.warmup);
	rp_json_int(&j, "busy_frames", run->opt.busy);
	rp_json_int(&j, "idle_ms", run->opt.idle_ms);
	rp_json_int(&j, "render_us", run->opt.render_us);
	rp_json_int(&j, "width", run->opt.width);
	rp_json_int(&j, "height", run->opt.height);
	rp_json_close(&j);
	rp_json_object(&j, "system");
	rp_json_string(&j, "display", run->compositor);
	rp_json_string(&j, "kernel", run->kernel);
	rp_json_string(&j, "clock", clock_name(run));
	if (run->clock_known)
		rp_json_int(&j, "clock_id", run->clock_id);
	else
		rp_json_number(&j, "clock_id", 0, false);
	rp_json_close(&j);
	rp_json_int(&j, "frames", run->nframes);
	rp_json_int(&j, "frames_counted", c.frames);
	rp_json_object(&j, "counts");
	rp_json_int(&j, "presented", c.presented);
	rp_json_int(&j, "discarded", c.discarded);
	rp_json_int(&j, "without_feedback", c.pending);
	rp_json_int(&j, "not_vsync_hw", c.not_vsync);
	rp_json_int(&j, "late", c.late);
	rp_json_int(&j, "on_time", c.on_time);
	rp_json_int(&j, "presented_before_commit", c.before_commit);
	rp_json_int(&j, "refresh_unknown", c.refresh_unknown);
	rp_json_int(&j, "at_next_vblank", c.next_vblank);
	rp_json_int(&j, "msc_unknown", c.msc_unknown);
	rp_json_close(&j);
	/* sce_ style, as weston-presentation-shm prints them: s VSYNC, c
	 * HW_CLOCK, e HW_COMPLETION, z ZERO_COPY. */
	flags_text(any, text);
	rp_json_string(&j, "flags_any", text);
	flags_text(c.presented ? every : 0, text);
	rp_json_string(&j, "flags_every", text);
	rp_json_number(&j, "elapsed_s", (run->finished_ns - run->started_ns) / 1e9, true);
	rp_json_summary(&j, "summary", &s, -1);
	rp_json_checks(&j, &checks);
	ret = rp_json_end(&j);
	rp_samples_free(&s);
	return ret;
}

int pl_report_svg(FILE *f, const struct pl_run *run)
{
	char subject[96], header[400], started[32];
	struct rp_samples s;
	struct tm tm;
	int ret;

	if (pl_run_samples(run, &s))
		return -1;
	snprintf(subject, sizeof(subject), "on %s", run->compositor);
	strftime(started, sizeof(started), "%Y-%m-%d %H:%M:%SZ", gmtime_r(&run->prov.started, &tm));
	snprintf(header, sizeof(header), "presentlat %s, compositor %s, %s, %s", rp_tool_version,
		 run->compositor, run->kernel, started);
	ret = rp_svg_write(f, &s, &(struct rp_svg){
		.header = header,
		.subject = subject,
		.noun = "frames",
		.timeline_metric = PL_PRESENT_MINUS_COMMIT,
		.timeline_label = "present - commit",
		.flag_label = "missed a vblank it could have made, or before commit",
	});
	rp_samples_free(&s);
	return ret;
}
