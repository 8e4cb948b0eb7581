// SPDX-License-Identifier: MIT
/*
 * The human summary fliplat prints on stdout: what ran where, then one row
 * per metric, for all CRTCs together and, with several, for each.
 */
#include <errno.h>

#include "fliplat.h"

const char *fl_mode_name(enum fl_mode mode)
{
	switch (mode) {
	case FL_MODE_ATOMIC:
		return "atomic";
	case FL_MODE_LEGACY:
		return "legacy";
	case FL_MODE_INFENCE:
		return "infence";
	}
	return "?";
}

static size_t counted_flips(const struct fl_run *run)
{
	size_t i, n = 0;

	for (i = 0; i < run->nflips; i++)
		n += !run->flips[i].warmup;
	return n;
}

static void table(FILE *f, const struct fl_run *run, int crtc)
{
	struct fl_stats s;
	int m;

	fprintf(f, "  %-16s %-7s %6s %9s %9s %9s %9s %9s %9s %9s\n", "metric", "unit", "n",
		"min", "p50", "p90", "p99", "max", "mean", "stddev");
	for (m = 0; m < FL_NMETRICS; m++) {
		fl_run_stats(run, m, crtc, &s);
		fprintf(f, "  %-16s %-7s %6zu", fl_metric_name(m), fl_metric_unit(m), s.n);
		if (!s.n) {
			fprintf(f, "   (not observed in %s mode)\n", fl_mode_name(run->mode));
			continue;
		}
		fprintf(f, " %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", s.min, s.p50, s.p90,
			s.p99, s.max, s.mean, s.stddev);
	}
}

int fl_report_table(FILE *f, const struct fl_run *run)
{
	struct fl_counts c;
	size_t i;

	fprintf(f, "fliplat: %s (%s) on %s, %s\n", run->driver, run->driver_desc, run->device,
		run->kernel);
	if (run->mode == FL_MODE_LEGACY)
		fputs("  mode legacy (drmModePageFlip, no out-fences)", f);
	else
		fprintf(f, "  mode %s, %s commits", fl_mode_name(run->mode),
			run->nonblock ? "nonblocking" : "blocking");
	if (run->mode == FL_MODE_INFENCE)
		fprintf(f, ", render %.1f ms + up to %.1f ms", run->render_ns / 1e6,
			run->render_jitter_ns / 1e6);
	fprintf(f, "; %zu flips counted (+%u warm-up per CRTC) in %.1f s\n", counted_flips(run),
		run->warmup, (run->finished_ns - run->started_ns) / 1e9);
	for (i = 0; i < run->ncrtcs; i++) {
		const struct fl_crtc *c = &run->crtcs[i];

		fprintf(f, "  CRTC %u -> %s: %s at %.3f Hz (%.3f ms a frame)\n", c->crtc_id,
			c->connector, c->mode_name, c->vrefresh_mhz / 1e3, c->period_ns / 1e6);
	}
	fputc('\n', f);
	table(f, run, -1);
	fl_run_counts(run, &c);
	fprintf(f, "\n  %zu incomplete, %zu fence errors, %zu flips missed %zu vblanks, "
		"%zu early (shown before possible: a driver bug), %zu EBUSY retries",
		c.incomplete, c.fence_errors, c.missed_flips, c.missed_vblanks, c.early, c.retries);
	if (run->mode == FL_MODE_INFENCE)
		fprintf(f, ", %zu late frames (the renderer missed the vblank after submit)",
			c.late);
	fputc('\n', f);
	if (run->failure)
		fprintf(f, "  INCOMPLETE RUN: %s\n", run->failure);
	for (i = 0; run->ncrtcs > 1 && i < run->ncrtcs; i++) {
		fprintf(f, "\n  CRTC %u only:\n", run->crtcs[i].crtc_id);
		table(f, run, (int)i);
	}
	if (ferror(f)) {
		errno = EIO;
		return -1;
	}
	return 0;
}
