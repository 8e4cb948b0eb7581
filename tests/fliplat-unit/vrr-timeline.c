// SPDX-License-Identifier: MIT
/*
 * vrr-timeline: fliplat's reports of a --vrr run and of an --async run
 * whose pictures are known.
 *
 * The VRR run: a 120 Hz mode in a 48-144 Hz range, 20 flips (2 warm-up),
 * in turn one refreshed at its flush, one held to one period after the
 * last refresh, and one after a frame the display repeated 1/48 s after
 * the last (which fl_judge_flip, counting vblanks, had called missed).
 * Its SVG names the mode and range, draws the refreshes (flush, wait and
 * repeat lines, no fixed grid, no red outline) with their legend; the
 * table, JSON and counts say the same: repeats, not missed vblanks.
 *
 * The async run: 10 tearing flips (2 warm-up), each shown 300 us after
 * submit, between vblanks. Its SVG names async mode and draws a tear on
 * every row, with its legend.
 *
 * usage: vrr-timeline [VRR.svg [ASYNC.svg]]   (keep the pictures, to look at)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fliplat.h"
#include "../lib/result.h"

#define MS		1000000LL
#define T0		(1000 * MS)
#define PERIOD		8333333LL	/* 120 Hz */
#define LONGEST		20833333LL	/* 1/48 s */
#define NFLIPS		20
#define NASYNC		10

/* @report of @run into a string (NULL if it failed), kept at @keep if given. */
static char *written(int (*report)(FILE *, const struct fl_run *), const struct fl_run *run,
		     const char *keep)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f || report(f, run) || fclose(f)) {
		free(text);
		return NULL;
	}
	f = keep ? fopen(keep, "w") : NULL;
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return text;
}

static void vrr_run(int argc, char **argv)
{
	struct fl_crtc crtc = {
		.crtc_id = 40, .connector = "Virtual-1", .mode_name = "1920x1080@120",
		.vrefresh_mhz = 120000, .period_ns = PERIOD, .vrr_min_hz = 48, .vrr_max_hz = 144,
	};
	struct fl_flip flips[NFLIPS];
	struct fl_run run = {
		.device = "/dev/dri/card0", .driver = "fixture", .kernel = "Linux test",
		.mode = FL_MODE_ATOMIC, .nonblock = true, .vrr = true, .warmup = 2,
		.ncrtcs = 1, .crtcs = &crtc, .nflips = NFLIPS, .flips = flips,
	};
	int64_t last = T0;
	uint32_t seq = 100;
	struct fl_counts c;
	char *svg, *table, *json;
	int i;

	rp_provenance_init(&run.prov, argc, argv);
	run.limits = FL_NO_LIMITS;
	for (i = 0; i < NFLIPS; i++) {
		struct fl_flip *f = &flips[i];

		*f = (struct fl_flip){ .index = i, .warmup = i < 2, .seq_known = true };
		switch (i % 3) {
		case 0:		/* inside the range: at the flush */
			f->submit_ns = last + 12 * MS;
			f->event_ns = f->submit_ns + 300000;
			f->event_seq = seq + 1;
			break;
		case 1:		/* above it: one period after the last */
			f->submit_ns = last + 4 * MS;
			f->event_ns = last + PERIOD;
			f->event_seq = seq + 1;
			break;
		default:	/* below it: a repeated frame, then at the flush */
			f->submit_ns = last + 30 * MS;
			f->event_ns = f->submit_ns + 200000;
			f->event_seq = seq + 2;
			f->missed = 1;	/* what the vblank count alone says */
			break;
		}
		f->signal_ns = f->event_ns;
		f->wake_ns = f->event_ns + 100000;
		f->event_read_ns = f->event_ns + 80000;
		f->interval_ns = f->event_ns - last;
		f->has_interval = i > 0;
		fl_vrr_judge(f, last, seq, PERIOD, LONGEST);
		last = f->event_ns;
		seq = f->event_seq;
	}
	result_equal("repeat-not-missed", 0, flips[2].missed);
	fl_run_counts(&run, &c);
	result_equal("counts-no-missed-vblanks", 0, c.missed_vblanks);
	result_equal("counts-at-flush", 6, c.vrr_at_flush);
	result_equal("counts-waited", 6, c.vrr_waited);
	result_equal("counts-after-repeats", 6, c.vrr_after_repeats);
	result_equal("counts-repeated-frames", 6, c.vrr_repeated_frames);
	result_equal("counts-no-breaks", 0, c.vrr_breaks);

	svg = written(fl_report_svg, &run, argc > 1 ? argv[1] : NULL);
	table = written(fl_report_table, &run, NULL);
	json = written(fl_report_json, &run, NULL);
	if (!svg || !table || !json) {
		printf("not ok - vrr-reports-written: a writer failed\n");
		result_failures++;
		return;
	}
	result_has("svg-names-vrr-mode", svg, "atomic mode, VRR 48-144 Hz", true);
	result_has("svg-legend-flush", svg, "VRR refresh started by the flip's flush", true);
	result_has("svg-legend-wait", svg, "held to the max rate", true);
	result_has("svg-legend-repeat", svg, "frame repeated by the display (1/MIN)", true);
	result_has("svg-no-tear-legend", svg, "tearing flip", false);
	/*
	 * One window of the 16 counted rows #2-#17: 5 at the flush, 5 held,
	 * 6 at the flush after a repeated frame, each refresh drawn, and the
	 * repeats but #2's (before the window's first mark, #2's submit).
	 */
	result_equal("svg-flush-rows", 11, result_count(svg, NULL, "data-refresh=\"flush\">"));
	result_equal("svg-wait-rows", 5, result_count(svg, NULL, "data-refresh=\"wait\">"));
	result_equal("svg-flush-lines", 11, result_count(svg, NULL, "class=\"refresh\" data-refresh=\"flush\""));
	result_equal("svg-wait-lines", 5, result_count(svg, NULL, "class=\"refresh\" data-refresh=\"wait\""));
	result_equal("svg-repeat-lines", 5, result_count(svg, NULL, "class=\"refresh\" data-refresh=\"repeat\""));
	result_equal("svg-no-grid", 0, result_count(svg, NULL, "class=\"vblank\""));
	result_equal("svg-no-late", 0, result_count(svg, NULL, "class=\"late\""));
	result_has("table-repeats-not-missed", table,
		   "6 after 6 frames the display repeated at 1/MIN: repeats, not missed vblanks",
		   true);
	result_has("table-none-missed", table, "0 flips missed 0 vblanks", true);
	result_has("json-repeated-frames", json, "\"vrr_repeated_frames\": 6", true);
	result_has("json-mode-description", json, "\"mode_description\": \"atomic mode, VRR 48-144 Hz\"",
		   true);
	free(svg);
	free(table);
	free(json);
}

static void async_run(int argc, char **argv)
{
	struct fl_crtc crtc = {
		.crtc_id = 40, .connector = "Virtual-1", .mode_name = "1920x1080",
		.vrefresh_mhz = 60000, .period_ns = 16666667,
	};
	struct fl_flip flips[NASYNC];
	struct fl_run run = {
		.device = "/dev/dri/card0", .driver = "fixture", .kernel = "Linux test",
		.mode = FL_MODE_ASYNC, .nonblock = true, .warmup = 2,
		.ncrtcs = 1, .crtcs = &crtc, .nflips = NASYNC, .flips = flips,
	};
	char *svg;
	int i;

	rp_provenance_init(&run.prov, argc, argv);
	run.limits = FL_NO_LIMITS;
	for (i = 0; i < NASYNC; i++) {
		int64_t submit = T0 + i * 5 * MS;

		flips[i] = (struct fl_flip){
			.index = i, .warmup = i < 2, .submit_ns = submit,
			.event_ns = submit + 300000, .event_read_ns = submit + 350000,
			.event_seq = 100 + (uint32_t)i / 3, .interval_ns = 5 * MS, .has_interval = i > 0,
		};
	}
	svg = written(fl_report_svg, &run, argc > 2 ? argv[2] : NULL);
	if (!svg) {
		printf("not ok - async-svg-written: fl_report_svg failed\n");
		result_failures++;
		return;
	}
	result_has("svg-names-async-mode", svg, "async mode (tearing flips)", true);
	result_has("svg-not-atomic-mode", svg, "atomic mode", false);
	result_has("svg-legend-tear", svg, "tearing flip: on screen at once, between vblanks", true);
	result_equal("svg-tear-rows", 8, result_count(svg, NULL, "data-refresh=\"tear\">"));
	result_equal("svg-tear-marks", 8, result_count(svg, NULL, "class=\"tear\""));
	result_equal("svg-no-grid-on-tears", 0, result_count(svg, NULL, "class=\"vblank\""));
	result_has("svg-no-vrr-legend", svg, "VRR refresh", false);
	free(svg);
}

int main(int argc, char **argv)
{
	vrr_run(argc, argv);
	async_run(argc, argv);
	return result_failures ? 1 : 0;
}
