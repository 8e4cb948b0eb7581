// SPDX-License-Identifier: MIT
/*
 * The human summary fliplat prints on stdout: what ran where, then one row
 * per metric, for all CRTCs together and, with several, for each.
 */
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
	case FL_MODE_ASYNC:
		return "async";
	}
	return "?";
}

void fl_run_mode_desc(const struct fl_run *run, char *buf, size_t len)
{
	const struct fl_crtc *c = run->ncrtcs ? &run->crtcs[0] : NULL;

	if (run->mode == FL_MODE_ASYNC)
		snprintf(buf, len, "async mode (tearing flips)");
	else if (run->vrr && c)
		snprintf(buf, len, "%s mode, VRR %u-%u Hz", fl_mode_name(run->mode), c->vrr_min_hz,
			 c->vrr_max_hz);
	else
		snprintf(buf, len, "%s mode", fl_mode_name(run->mode));
}

static size_t counted_flips(const struct fl_run *run)
{
	size_t i, n = 0;

	for (i = 0; i < run->nflips; i++)
		n += !run->flips[i].warmup;
	return n;
}

/* In-fence mode: one line on the in-fences' deadlines. */
static void deadlines(FILE *f, const struct fl_run *run)
{
	struct fl_deadlines d;

	if (run->mode != FL_MODE_INFENCE)
		return;
	fl_run_deadlines(run, &d);
	if (!d.supported) {
		fputs("  deadlines: not supported by this kernel\n", f);
		return;
	}
	fprintf(f, "  deadlines: %zu flips with one, %zu without, %zu signalled after it (late)", d.with,
		d.without, d.past);
	if (d.slack.n)
		fprintf(f, "; slack (deadline - ready) p50 %.1f us, min %.1f, max %.1f",
			d.slack.p50, d.slack.min, d.slack.max);
	fputc('\n', f);
}

int fl_report_table(FILE *f, const struct fl_run *run)
{
	struct rp_samples s;
	struct fl_counts c;
	char unobserved[48];
	size_t i;

	if (fl_run_samples(run, &s))
		return -1;
	snprintf(unobserved, sizeof(unobserved), "(not observed in %s mode)",
		 fl_mode_name(run->mode));

	fprintf(f, "fliplat: %s (%s) on %s, %s\n", run->driver, run->driver_desc, run->device,
		run->kernel);
	if (run->mode == FL_MODE_LEGACY)
		fputs("  mode legacy (drmModePageFlip, no out-fences)", f);
	else if (run->mode == FL_MODE_ASYNC)
		fputs("  mode async (tearing flips: drmModePageFlip with DRM_MODE_PAGE_FLIP_ASYNC, "
		      "no out-fences; event-submit is flip-to-scanout)", f);
	else
		fprintf(f, "  mode %s, %s commits", fl_mode_name(run->mode),
			run->nonblock ? "nonblocking" : "blocking");
	if (run->mode == FL_MODE_INFENCE)
		fprintf(f, ", render %.1f ms + up to %.1f ms", run->render_ns / 1e6,
			run->render_jitter_ns / 1e6);
	if (run->vrr)
		fputs(", VRR_ENABLED, paced", f);
	fprintf(f, "; %zu flips counted (+%u warm-up per CRTC) in %.1f s\n", counted_flips(run),
		run->warmup, (run->finished_ns - run->started_ns) / 1e9);
	for (i = 0; i < run->ncrtcs; i++) {
		const struct fl_crtc *c = &run->crtcs[i];

		fprintf(f, "  CRTC %u -> %s: %s at %.3f Hz (%.3f ms a frame)\n", c->crtc_id,
			c->connector, c->mode_name, c->vrefresh_mhz / 1e3, c->period_ns / 1e6);
		if (run->vrr)
			fprintf(f, "    VRR range %u-%u Hz: frames from %.3f to %.3f ms\n",
				c->vrr_min_hz, c->vrr_max_hz, c->period_ns / 1e6,
				fl_vrr_max_frame_ns(c->vrr_min_hz) / 1e6);
	}
	fputc('\n', f);
	rp_table_write(f, &s, -1, unobserved);
	fl_run_counts(run, &c);
	fprintf(f, "\n  %zu incomplete, %zu fence errors, %zu flips missed %zu vblanks, "
		"%zu early (shown before possible: a driver bug), %zu EBUSY retries",
		c.incomplete, c.fence_errors, c.missed_flips, c.missed_vblanks, c.early, c.retries);
	if (run->mode == FL_MODE_INFENCE)
		fprintf(f, ", %zu late frames (the renderer missed the vblank after submit), "
			"%zu shown before their in-fence signalled (the driver stopped waiting)",
			c.late, c.unready);
	fputc('\n', f);
	deadlines(f, run);
	if (run->vrr)
		fprintf(f, "  VRR: %zu refreshes judged (%zu at the flush, %zu held to the max rate, "
			"%zu after %zu frames the display repeated at 1/MIN: repeats, not missed "
			"vblanks), %zu broke the model (event-submit is the latch delay)\n",
			c.vrr_judged, c.vrr_at_flush, c.vrr_waited, c.vrr_after_repeats,
			c.vrr_repeated_frames, c.vrr_breaks);
	if (c.bad_intervals)
		fprintf(f, "  %zu vblank intervals <= 0 (two flips at one vblank, or the "
			"event time going back: a driver bug)\n", c.bad_intervals);
	if (!run->nonblock && fl_mode_has_fence(run->mode))
		fputs("  blocking commits: missed vblanks count from the vblank before submit "
		      "(a vblank during the ioctl counts)\n", f);
	if (run->failure)
		fprintf(f, "  INCOMPLETE RUN: %s\n", run->failure);
	for (i = 0; run->ncrtcs > 1 && i < run->ncrtcs; i++) {
		fprintf(f, "\n  CRTC %u only:\n", run->crtcs[i].crtc_id);
		rp_table_write(f, &s, (int)i, unobserved);
	}
	rp_samples_free(&s);
	return rp_finish(f);
}
