// SPDX-License-Identifier: MIT
/*
 * --json: whether the run completed (and if not, why it stopped), its
 * configuration, where it ran, what went wrong or late, its CRTCs and the
 * summary statistics, overall and per CRTC. Always valid JSON (the shared
 * writer): a metric nothing observed has n = 0 and null values.
 */
#include "fliplat.h"

static void counts(struct rp_json *j, const struct fl_run *run)
{
	struct fl_counts c;

	fl_run_counts(run, &c);
	rp_json_object(j, "counts");
	rp_json_int(j, "incomplete_flips", c.incomplete);
	rp_json_int(j, "fence_errors", c.fence_errors);
	rp_json_int(j, "missed_flips", c.missed_flips);
	rp_json_int(j, "missed_vblanks", c.missed_vblanks);
	rp_json_int(j, "early_flips", c.early);
	rp_json_int(j, "late_frames", c.late);
	rp_json_int(j, "unready_flips", c.unready);
	rp_json_int(j, "bad_vblank_intervals", c.bad_intervals);
	rp_json_int(j, "ebusy_retries", c.retries);
	/* --vrr only (else 0): refreshes judged by the model, and its breaks. */
	rp_json_int(j, "vrr_judged", c.vrr_judged);
	rp_json_int(j, "vrr_breaks", c.vrr_breaks);
	/* ... the judged refreshes by kind, and the frames the display repeated
	 * (which are not missed vblanks). */
	rp_json_int(j, "vrr_at_flush", c.vrr_at_flush);
	rp_json_int(j, "vrr_waited", c.vrr_waited);
	rp_json_int(j, "vrr_after_repeats", c.vrr_after_repeats);
	rp_json_int(j, "vrr_repeated_frames", c.vrr_repeated_frames);
	rp_json_close(j);
}

/* In-fence mode only (else null): the in-fences' deadlines and the slack. */
static void deadlines(struct rp_json *j, const struct fl_run *run)
{
	struct fl_deadlines d;
	bool n;

	if (run->mode != FL_MODE_INFENCE) {
		rp_json_string(j, "deadlines", NULL);
		return;
	}
	fl_run_deadlines(run, &d);
	n = d.slack.n > 0;
	rp_json_object(j, "deadlines");
	rp_json_bool(j, "supported", d.supported);
	rp_json_int(j, "with_deadline", d.with);
	rp_json_int(j, "without_deadline", d.without);
	rp_json_int(j, "past_deadline", d.past);
	rp_json_object(j, "slack_us");
	rp_json_int(j, "n", d.slack.n);
	rp_json_number(j, "min", d.slack.min, n);
	rp_json_number(j, "p50", d.slack.p50, n);
	rp_json_number(j, "max", d.slack.max, n);
	rp_json_close(j);
	rp_json_close(j);
}

static void crtc(struct rp_json *j, const struct fl_crtc *c, const struct rp_samples *s,
		 int group)
{
	rp_json_object(j, NULL);
	rp_json_int(j, "crtc_id", c->crtc_id);
	rp_json_int(j, "connector_id", c->connector_id);
	rp_json_string(j, "connector", c->connector);
	rp_json_string(j, "mode", c->mode_name);
	rp_json_int(j, "hdisplay", c->hdisplay);
	rp_json_int(j, "vdisplay", c->vdisplay);
	rp_json_number(j, "vrefresh_hz", c->vrefresh_mhz / 1e3, true);
	rp_json_int(j, "period_ns", c->period_ns);
	rp_json_int(j, "vrr_min_hz", c->vrr_min_hz);
	rp_json_int(j, "vrr_max_hz", c->vrr_max_hz);
	rp_json_summary(j, "summary", s, group);
	rp_json_close(j);
}

int fl_report_json(FILE *f, const struct fl_run *run)
{
	size_t i, counted = 0;
	struct rp_checks checks;
	struct rp_samples s;
	struct rp_json j;
	char mode[64];
	int ret;

	if (fl_run_samples(run, &s))
		return -1;
	for (i = 0; i < run->nflips; i++)
		counted += !run->flips[i].warmup;

	fl_run_checks(run, &checks);
	rp_json_begin(&j, f);
	rp_json_provenance(&j, "fliplat", FL_JSON_SCHEMA, &run->prov);
	rp_json_string(&j, "status", run->failure ? "failed" : "complete");
	rp_json_string(&j, "failure", run->failure);
	rp_json_object(&j, "config");
	rp_json_string(&j, "mode", fl_mode_name(run->mode));
	fl_run_mode_desc(run, mode, sizeof(mode));
	rp_json_string(&j, "mode_description", mode);
	rp_json_bool(&j, "nonblock", run->nonblock);
	rp_json_bool(&j, "vrr", run->vrr);
	rp_json_int(&j, "render_ns", run->render_ns);
	rp_json_int(&j, "render_jitter_ns", run->render_jitter_ns);
	rp_json_int(&j, "seed", run->seed);
	rp_json_int(&j, "warmup", run->warmup);
	rp_json_int(&j, "flips_per_crtc", run->flips_per_crtc);
	rp_json_number(&j, "duration_s", run->duration_s, run->duration_s > 0);
	rp_json_close(&j);
	rp_json_object(&j, "system");
	rp_json_string(&j, "device", run->device);
	rp_json_string(&j, "driver", run->driver);
	rp_json_string(&j, "driver_desc", run->driver_desc);
	rp_json_string(&j, "kernel", run->kernel);
	rp_json_close(&j);
	rp_json_int(&j, "flips", run->nflips);
	rp_json_int(&j, "flips_counted", counted);
	counts(&j, run);
	deadlines(&j, run);
	rp_json_number(&j, "elapsed_s", (run->finished_ns - run->started_ns) / 1e9, true);
	rp_json_array(&j, "crtcs");
	for (i = 0; i < run->ncrtcs; i++)
		crtc(&j, &run->crtcs[i], &s, (int)i);
	rp_json_close(&j);
	rp_json_summary(&j, "summary", &s, -1);
	rp_json_checks(&j, &checks);
	ret = rp_json_end(&j);
	rp_samples_free(&s);
	return ret;
}
