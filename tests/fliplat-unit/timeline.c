// SPDX-License-Identifier: MIT
/*
 * timeline: the frame timeline of fliplat's --plot against a run whose
 * picture is known. One CRTC at 60 Hz, 150 flips (enough for a p99 below
 * the max), the first 2 warm-up. Flip i is submitted 3 ms after a vblank
 * and latched at the next one, its
 * fence signalled at the vblank and its waiter woken 150 us later; flip 30
 * misses 2 vblanks it could have made, and every flip after it comes 2
 * vblanks later. So the picture has two windows of 16 flips: #2-#17 (the
 * first counted) and #22-#37 (around #30), 32 frame rows, one red outline
 * (on #30), 17 vblank lines behind the first window (vblanks 2 to 18) and
 * 19 behind the second (22 to 40), and a title saying why #30 is the worst.
 * The histograms skip the constant metrics and count what they leave out.
 *
 * usage: timeline [FILE]   (FILE: keep the SVG there, to look at)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fliplat.h"
#include "../lib/result.h"

#define NFLIPS	150
#define T0	1000000000LL
#define PERIOD	16666667LL

int main(int argc, char **argv)
{
	struct fl_crtc crtc = {
		.crtc_id = 40, .connector_id = 42, .connector = "Virtual-1",
		.mode_name = "1920x1080", .hdisplay = 1920, .vdisplay = 1080,
		.vrefresh_mhz = 60000, .period_ns = PERIOD,
	};
	struct fl_flip flips[NFLIPS];
	struct fl_run run = {
		.device = "/dev/dri/card0", .driver = "fixture", .kernel = "Linux test",
		.mode = FL_MODE_ATOMIC, .nonblock = true, .warmup = 2, .flips_per_crtc = 148,
		.ncrtcs = 1, .crtcs = &crtc, .nflips = NFLIPS, .flips = flips,
	};
	const char *second, *worst_histo;
	char *svg = NULL;
	size_t size = 0;
	FILE *f;
	int i;

	rp_provenance_init(&run.prov, argc, argv);
	run.limits = FL_NO_LIMITS;
	for (i = 0; i < NFLIPS; i++) {
		/* The vblank that shows flip i: the next, or for #30 on 2 later. */
		long long vblank = i + 1 + (i >= 30 ? 2 : 0);
		int64_t latch = T0 + vblank * PERIOD;

		flips[i] = (struct fl_flip){
			.index = i, .warmup = i < 2,
			.submit_ns = T0 + (vblank - 1 - (i == 30 ? 2 : 0)) * PERIOD + 3000000,
			.event_ns = latch, .signal_ns = latch, .wake_ns = latch + 150000,
			.event_read_ns = latch + 120000, .event_seq = (uint32_t)vblank,
			.missed = i == 30 ? 2 : 0, .seq_known = true,
			.interval_ns = (i == 30 ? 3 : 1) * PERIOD, .has_interval = i > 0,
		};
	}
	f = open_memstream(&svg, &size);
	if (!f || fl_report_svg(f, &run) || fclose(f)) {
		printf("not ok - svg-written: fl_report_svg failed\n");
		return 1;
	}
	if (argc > 1) {
		f = fopen(argv[1], "w");
		if (f) {
			fputs(svg, f);
			fclose(f);
		}
	}
	second = strstr(svg, "data-window=\"worst\"");
	result_equal("two-windows", 2, result_count(svg, NULL, "class=\"frames\""));
	result_equal("second-window-around-worst", 1, second != NULL);
	if (!second)
		second = svg + strlen(svg);
	result_equal("frame-rows", 32, result_count(svg, NULL, "class=\"frame\""));
	result_equal("first-window-rows", 16, result_count(svg, second, "class=\"frame\""));
	result_equal("late-outlines", 1, result_count(svg, NULL, "class=\"late\""));
	/* The fixed grid: no VRR refreshes or tears, nor their legend. */
	result_equal("no-refresh-legend", 0, result_count(svg, NULL, "legend-refreshes"));
	result_has("late-is-flip-30", svg, "data-index=\"30\" data-missed=\"2\"", 1);
	result_equal("first-window-vblanks", 17, result_count(svg, second, "class=\"vblank\""));
	result_equal("second-window-vblanks", 19, result_count(second, NULL, "class=\"vblank\""));
	result_has("first-window-title", svg, "Flips #2-#17, the first counted", 1);
	result_has("second-window-title", svg, "Flips #22-#37, around the worst", 1);
	result_has("worst-says-why", svg, "the worst: #30, missed 2 vblanks it could have made", 1);
	/* Stages: submit to latch, to signal, to wake in every row; no ready. */
	result_equal("latch-stages", 32, result_count(svg, NULL, "data-stage=\"latch\""));
	result_equal("wake-stages", 32, result_count(svg, NULL, "data-stage=\"wake\""));
	result_equal("no-ready-stage", 0, result_count(svg, NULL, "data-stage=\"ready\""));
	/* Histograms: signal-submit, event-submit, vblank-interval vary; the
	 * constant ones are named in the header instead. */
	result_equal("histograms", 3, result_count(svg, NULL, "class=\"histogram\""));
	result_has("constants-named", svg, "wake-signal 150 us", 1);
	/* vblank-interval: 148 of 149 at one period, #30's (3 periods) above p99. */
	worst_histo = strstr(svg, "data-metric=\"vblank-interval\"");
	result_has("outlier-counted", worst_histo ? worst_histo : "",
		   "data-below=\"0\" data-above=\"1\"", 1);
	result_has("outlier-labelled", svg, "1 above p99 (max 50000.0)", 1);
	free(svg);
	return result_failures ? 1 : 0;
}
