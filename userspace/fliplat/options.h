/* SPDX-License-Identifier: MIT */
/*
 * fliplat's command line.
 */
#ifndef FLIPLAT_OPTIONS_H
#define FLIPLAT_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "fliplat.h"

/* Exit statuses, also listed in --help and Documentation/fliplat.rst. */
enum {
	FL_EXIT_OK = 0,
	FL_EXIT_FAILED = 1,	/* the run itself failed (a flip timed out, ...) */
	FL_EXIT_USAGE = 2,
	FL_EXIT_NO_DEVICE = 3,	/* no KMS device, no connected output, no such mode */
	FL_EXIT_PERMISSION = 4,
	FL_EXIT_BUSY = 5,	/* another DRM master holds the device */
	FL_EXIT_UNSUPPORTED = 6,	/* no atomic / OUT_FENCE_PTR / sw_sync */
	FL_EXIT_THRESHOLD = 7,	/* the run completed but broke a --max-* threshold */
};

#define FL_MAX_CRTCS	8

struct fl_options {
	const char *device;	/* NULL: the first card with a connected output */
	const char *connector;	/* name ("Virtual-1") or id; NULL: the first */
	uint32_t crtc_id;	/* 0: the first free CRTC for the connector */
	bool all_outputs;	/* --crtcs all */
	unsigned int width, height, refresh;	/* --mode / --refresh, 0: preferred */
	enum fl_mode mode;
	bool blocking;
	/* --vrr: VRR_ENABLED, paced flips; --vrr-range, else 0-0: the EDID's. */
	bool vrr;
	unsigned int vrr_min_hz, vrr_max_hz;
	unsigned int flips;	/* per CRTC; 0 with --duration */
	double duration_s;
	unsigned int warmup;
	unsigned int render_us, render_jitter_us;
	unsigned int seed;
	const char *csv, *json, *plot;
	const char *trace;	/* --trace: where the run's trace events go */
	struct fl_limits limits;	/* --max-*: FL_NO_LIMITS if none */
	bool quiet;
	int progress;		/* -1 auto (stderr is a tty), 0 off, 1 on */
};

/* Parses argv into @o; returns -1 after printing why, 1 for --help or --version. */
int fl_parse_options(int argc, char **argv, struct fl_options *o);

#endif /* FLIPLAT_OPTIONS_H */
