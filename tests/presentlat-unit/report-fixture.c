// SPDX-License-Identifier: MIT
/*
 * report-fixture: writes presentlat's table, CSV, JSON and SVG reports of a
 * made-up run with known contents into DIR, for reports.sh to check:
 *
 *   40 frames, the first 4 warm-up, refresh P = 16666667 ns; frame i is
 *   committed at 1 s + i P + 1 ms and shown at the next vblank, MSC 100 + i,
 *   at 1 s + (i + 1) P; from frame 30 on, one vblank later (MSC 101 + i).
 *   Frame 20 is discarded, frame 39 gets no feedback, frame 10 has VSYNC
 *   but neither HW_CLOCK nor HW_COMPLETION; the others have all three.
 *
 * usage: report-fixture DIR [FAILURE]
 *
 * With FAILURE, the run is one that stopped for that reason. Its
 * provenance is this command line, 2026-01-02T03:04:05Z and kernel release
 * 6.1.0-fixture; its thresholds --max-late 8 (broken: 9 late) and
 * --max-discarded 1 (kept).
 */
#include <string.h>
#include <time.h>

#include "presentlat.h"

#define NFRAMES	40
#define PERIOD	16666667LL

static int write_report(const char *dir, const char *name, int (*report)(FILE *, const struct pl_run *),
			const struct pl_run *run)
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
	struct pl_frame frames[NFRAMES];
	struct pl_run run = {
		.opt = { .frames = NFRAMES - 4, .warmup = 4, .width = 256, .height = 128,
			 .busy = 5, .idle_ms = 50, .render_us = 3000 },
		.compositor = "fixture \"display\"", .kernel = "Linux test",
		.clock_known = true, .clock_id = CLOCK_MONOTONIC, .started_ns = 1000000000, .finished_ns = 2000000000,
		.nframes = NFRAMES, .cap = NFRAMES, .frames = frames,
	};
	int i;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: %s DIR [FAILURE]\n", argv[0]);
		return 2;
	}
	run.failure = argc == 3 ? argv[2] : NULL;
	/* Provenance a test can know: this command line, 2026-01-02 03:04:05 UTC. */
	rp_provenance_init(&run.prov, argc, argv);
	run.prov.started = 1767323045;
	snprintf(run.prov.release, sizeof(run.prov.release), "6.1.0-fixture");
	/* Thresholds: 9 late (8 allowed), 1 discarded (1 allowed). */
	run.opt.limits = PL_NO_LIMITS;
	run.opt.limits.max_late = 8;
	run.opt.limits.max_discarded = 1;
	for (i = 0; i < NFRAMES; i++) {
		long long msc = 100 + i + (i >= 30);

		frames[i] = (struct pl_frame){
			.index = i, .warmup = i < 4,
			.commit_ns = 1000000000LL + i * PERIOD + 1000000,
			.fate = i == 20 ? PL_DISCARDED : i == 39 ? PL_PENDING : PL_PRESENTED,
		};
		if (frames[i].fate != PL_PRESENTED)
			continue;
		frames[i].presented_ns = 1000000000LL + (msc - 99) * PERIOD;
		frames[i].refresh_ns = PERIOD;
		frames[i].msc = msc;
		frames[i].flags = i == 10 ? PL_VSYNC : PL_VSYNC | PL_HW_CLOCK | PL_HW_COMPLETION;
	}
	return write_report(argv[1], "table.txt", pl_report_table, &run) ||
	       write_report(argv[1], "run.csv", pl_report_csv, &run) ||
	       write_report(argv[1], "run.json", pl_report_json, &run) ||
	       write_report(argv[1], "run.svg", pl_report_svg, &run);
}
