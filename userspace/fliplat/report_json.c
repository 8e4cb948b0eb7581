// SPDX-License-Identifier: MIT
/*
 * --json: whether the run completed (and if not, why it stopped), its
 * configuration, where it ran, what went wrong or late, its CRTCs and the
 * summary statistics, overall and per CRTC. Always valid JSON: strings
 * escaped, no NaN or infinity (a metric nothing observed has n = 0 and null
 * values).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>

#include "fliplat.h"

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_number(FILE *f, double v, bool valid)
{
	if (valid && isfinite(v))
		fprintf(f, "%.3f", v);
	else
		fputs("null", f);
}

static void summary(FILE *f, const struct fl_run *run, int crtc, const char *indent)
{
	static const char *const names[] = { "min", "p50", "p90", "p99", "max", "mean", "stddev" };
	struct fl_stats s;
	double values[7];
	int m, k;

	fputs("{\n", f);
	for (m = 0; m < FL_NMETRICS; m++) {
		fl_run_stats(run, m, crtc, &s);
		values[0] = s.min;
		values[1] = s.p50;
		values[2] = s.p90;
		values[3] = s.p99;
		values[4] = s.max;
		values[5] = s.mean;
		values[6] = s.stddev;
		fprintf(f, "%s  ", indent);
		json_string(f, fl_metric_name(m));
		fprintf(f, ": { \"unit\": ");
		json_string(f, fl_metric_unit(m));
		fprintf(f, ", \"n\": %zu", s.n);
		for (k = 0; k < 7; k++) {
			fprintf(f, ", \"%s\": ", names[k]);
			json_number(f, values[k], s.n > 0);
		}
		fprintf(f, " }%s\n", m + 1 < FL_NMETRICS ? "," : "");
	}
	fprintf(f, "%s}", indent);
}

static void counts(FILE *f, const struct fl_run *run)
{
	struct fl_counts c;

	fl_run_counts(run, &c);
	fprintf(f, "  \"counts\": {\n    \"incomplete_flips\": %zu,\n    \"fence_errors\": %zu,\n"
		"    \"missed_flips\": %zu,\n    \"missed_vblanks\": %zu,\n"
		"    \"early_flips\": %zu,\n    \"late_frames\": %zu,\n"
		"    \"ebusy_retries\": %zu\n  },\n", c.incomplete, c.fence_errors, c.missed_flips,
		c.missed_vblanks, c.early, c.late, c.retries);
}

int fl_report_json(FILE *f, const struct fl_run *run)
{
	size_t i, counted = 0;

	for (i = 0; i < run->nflips; i++)
		counted += !run->flips[i].warmup;

	fprintf(f, "{\n  \"tool\": \"fliplat\",\n  \"status\": \"%s\",\n  \"failure\": ",
		run->failure ? "failed" : "complete");
	if (run->failure)
		json_string(f, run->failure);
	else
		fputs("null", f);
	fputs(",\n  \"config\": {\n    \"mode\": ", f);
	json_string(f, fl_mode_name(run->mode));
	fprintf(f, ",\n    \"nonblock\": %s,\n", run->nonblock ? "true" : "false");
	fprintf(f, "    \"render_ns\": %" PRId64 ",\n    \"render_jitter_ns\": %" PRId64 ",\n",
		run->render_ns, run->render_jitter_ns);
	fprintf(f, "    \"seed\": %u,\n", run->seed);
	fprintf(f, "    \"warmup\": %u,\n    \"flips_per_crtc\": %u,\n    \"duration_s\": ",
		run->warmup, run->flips_per_crtc);
	json_number(f, run->duration_s, run->duration_s > 0);
	fputs("\n  },\n  \"system\": {\n    \"device\": ", f);
	json_string(f, run->device);
	fputs(",\n    \"driver\": ", f);
	json_string(f, run->driver);
	fputs(",\n    \"driver_desc\": ", f);
	json_string(f, run->driver_desc);
	fputs(",\n    \"kernel\": ", f);
	json_string(f, run->kernel);
	fprintf(f, "\n  },\n  \"flips\": %zu,\n  \"flips_counted\": %zu,\n", run->nflips, counted);
	counts(f, run);
	fprintf(f, "  \"elapsed_s\": %.3f,\n  \"crtcs\": [\n",
		(run->finished_ns - run->started_ns) / 1e9);
	for (i = 0; i < run->ncrtcs; i++) {
		const struct fl_crtc *c = &run->crtcs[i];

		fprintf(f, "    { \"crtc_id\": %u, \"connector_id\": %u, \"connector\": ",
			c->crtc_id, c->connector_id);
		json_string(f, c->connector);
		fputs(", \"mode\": ", f);
		json_string(f, c->mode_name);
		fprintf(f, ", \"hdisplay\": %u, \"vdisplay\": %u, \"vrefresh_hz\": %.3f, "
			"\"period_ns\": %" PRId64 ",\n      \"summary\": ",
			c->hdisplay, c->vdisplay, c->vrefresh_mhz / 1e3, c->period_ns);
		summary(f, run, (int)i, "      ");
		fprintf(f, " }%s\n", i + 1 < run->ncrtcs ? "," : "");
	}
	fputs("  ],\n  \"summary\": ", f);
	summary(f, run, -1, "  ");
	fputs("\n}\n", f);
	if (ferror(f)) {
		errno = EIO;
		return -1;
	}
	return 0;
}
