// SPDX-License-Identifier: MIT
/*
 * report-fixture: writes the table, CSV, JSON and SVG reports of a made-up
 * run with known contents into DIR, for reports.sh to check:
 *
 *   2 CRTCs (ids 40, 41), 25 flips each, the first 5 of each warm-up;
 *   flip i: signal - submit = 1000 + i us, wake - signal = 50 us,
 *   event == signal, read - event = 80 us, every 10th flip missed one
 *   vblank, so its interval is 33333 us, the others' 16667 us (none for a
 *   CRTC's first flip; 36 of 40 in one bar, not a round tick); flip 33 was
 *   shown early; flips 3 (warm-up) and 12 were each retried once after
 *   EBUSY; seed 7; the driver description holds a quote, a backslash and a
 *   newline, which the JSON must escape.
 *
 * usage: report-fixture [-d KIND] DIR [FAILURE]
 *
 * With -d, the run is an in-fence one (render 500 us: ready_ns = submit +
 * 500 us) whose in-fences' deadlines are KIND:
 *   deadlines    flip i's deadline is ready + (i - 14) ms, except flips
 *                20 and 31, which had none: 38 counted flips with one, 2
 *                without, slack -4..35 ms (4 negative, p50 15 ms);
 *   none         no flip had one (a kernel that has deadlines, a driver
 *                that sets none);
 *   unsupported  the kernel has no fence deadlines (ENOTTY).
 *
 * With FAILURE, the run is one that stopped for that reason. Its
 * provenance is this command line, 2026-01-02T03:04:05Z and kernel release
 * 6.1.0-fixture; its thresholds --max-missed 3 (broken: 4 missed) and
 * --max-p99-us signal-submit=2000 (kept).

 */
#include <stdio.h>
#include <string.h>

#include "fliplat.h"

#define NFLIPS	50

static int write(const char *dir, const char *name, int (*report)(FILE *, const struct fl_run *),
		 const struct fl_run *run)
{
	char path[512];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = report(f, run);
	return fclose(f) || ret ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct fl_crtc crtcs[2] = {
		{ .crtc_id = 40, .connector_id = 42, .connector = "Virtual-1",
		  .mode_name = "1920x1080", .hdisplay = 1920, .vdisplay = 1080,
		  .vrefresh_mhz = 60000, .period_ns = 16666667 },
		{ .crtc_id = 41, .connector_id = 43, .connector = "Virtual-2",
		  .mode_name = "1920x1080", .hdisplay = 1920, .vdisplay = 1080,
		  .vrefresh_mhz = 60000, .period_ns = 16666667 },
	};
	struct fl_flip flips[NFLIPS];
	struct fl_run run = {
		.device = "/dev/dri/card0", .driver = "fixture",
		.driver_desc = "a \"quoted\" back\\slash\nnewline", .kernel = "Linux test",
		.mode = FL_MODE_ATOMIC, .nonblock = true, .warmup = 5, .flips_per_crtc = 20,
		.seed = 7, .started_ns = 1000000000, .finished_ns = 2000000000,
		.ncrtcs = 2, .crtcs = crtcs, .nflips = NFLIPS, .flips = flips,
	};
	const char *deadlines = NULL;
	int i, arg = 1;

	if (argc > 2 && !strcmp(argv[1], "-d")) {
		deadlines = argv[2];
		arg = 3;
	}
	if (argc - arg != 1 && argc - arg != 2) {
		fprintf(stderr, "usage: %s [-d deadlines|none|unsupported] DIR [FAILURE]\n",
			argv[0]);
		return 2;
	}
	run.failure = argc - arg == 2 ? argv[arg + 1] : NULL;
	if (deadlines) {
		run.mode = FL_MODE_INFENCE;
		run.render_ns = 500000;
		run.deadlines_unsupported = !strcmp(deadlines, "unsupported");
	}
	/* Provenance a test can know: this command line, 2026-01-02 03:04:05 UTC. */
	rp_provenance_init(&run.prov, argc, argv);
	run.prov.started = 1767323045;
	snprintf(run.prov.release, sizeof(run.prov.release), "6.1.0-fixture");
	/* Thresholds: 4 flips missed a vblank (3 allowed), p99 1049 us (2000 allowed). */
	run.limits = FL_NO_LIMITS;
	run.limits.max_missed = 3;
	rp_parse_p99_limit("report-fixture", "signal-submit=2000", fl_metrics, FL_NMETRICS,
			   &run.limits.p99);
	for (i = 0; i < NFLIPS; i++) {
		int64_t submit = 1000000000LL + 20000000LL * i;
		int64_t signal = submit + 1000000 + 1000LL * i;

		flips[i] = (struct fl_flip){
			.index = i, .crtc = i % 2, .warmup = i / 2 < 5,
			.submit_ns = submit, .signal_ns = signal, .event_ns = signal,
			.wake_ns = signal + 50000, .event_read_ns = signal + 80000,
			.event_seq = 100 + i / 2, .interval_ns = i < 2 ? 0 : i % 10 == 9 ? 33333000 : 16667000,
			.has_interval = i >= 2,
			.missed = i % 10 == 9, .seq_known = true, .early = i == 33,
			.retries = i == 3 || i == 12,
		};
		if (!deadlines)
			continue;
		flips[i].ready_ns = submit + 500000;
		if (!strcmp(deadlines, "deadlines") && i != 20 && i != 31)
			flips[i].deadline_ns = flips[i].ready_ns + 1000000LL * (i - 14);
	}
	return write(argv[arg], "table.txt", fl_report_table, &run) ||
	       write(argv[arg], "run.csv", fl_report_csv, &run) ||
	       write(argv[arg], "run.json", fl_report_json, &run) ||
	       write(argv[arg], "run.svg", fl_report_svg, &run);
}
