// SPDX-License-Identifier: MIT
/*
 * presentlat's options and --help, whose definitions of the measured times
 * are the same words as Documentation/compositors.rst.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "presentlat.h"

static const char usage[] =
"usage: presentlat [OPTIONS]\n"
"\n"
"A Wayland client that commits frames to a compositor (wl_shm buffers, one\n"
"per frame callback) and records, for every frame, what the compositor's\n"
"presentation-time feedback says happened to it, on the compositor's\n"
"presentation clock (CLOCK_MONOTONIC on a KMS display):\n"
"\n"
"  commit     just before wl_surface.commit\n"
"  presented  the feedback's tv_sec/tv_nsec: when the frame turned to light\n"
"             (on a KMS display, the page flip's vblank)\n"
"  refresh    the feedback's refresh period, msc its vblank count, and its\n"
"             flags: VSYNC, HW_CLOCK, HW_COMPLETION, ZERO_COPY\n"
"\n"
"or that it was discarded, and reports min/p50/p90/p99/max, mean/stddev of\n"
"\n"
"  present-commit    from commit to presented (us)\n"
"  present-interval  between consecutive presented frames (us)\n"
"  refresh           the refresh period the compositor reported (us)\n"
"  msc-step          vblanks between consecutive presented frames (signed;\n"
"                    not observed when the compositor sends no MSC, seq 0)\n"
"  vblanks-late      vblanks between the first one after the commit and the\n"
"                    one that showed the frame (not observed with refresh 0\n"
"                    or a frame presented before its commit: counted apart)\n"
"\n"
"Options:\n"
"  -n, --frames N          frames after warm-up (default 300)\n"
"  -t, --duration SECONDS  commit for this long instead of a count (not with -n)\n"
"  -w, --warmup N          frames not counted (default 10)\n"
"      --pattern BUSY:IDLE_MS  commit BUSY frames, then stay idle IDLE_MS\n"
"                          (default: always busy)\n"
"      --render-us US      spin this long on the CPU before each commit, as a\n"
"                          client rendering its frame would (default 0)\n"
"  -s, --size WxH          the window's buffer size (default 256x256)\n"
"  -f, --fullscreen        ask to be fullscreen; the buffers take the size the\n"
"                          compositor configures (the output's)\n"
"  -o, --output NAME       fullscreen on the output of this name (wl_output\n"
"                          version 4's name, e.g. Virtual-2); implies -f\n"
"      --csv FILE          one row per committed frame\n"
"      --json FILE         configuration, counts and summary\n"
"      --plot FILE.svg     histograms and the per-frame timeline\n"
"\n"
"Thresholds (a CI's verdict): a completed run that breaks one exits 7 and\n"
"says which on stderr; the JSON lists each with its value:\n"
"      --max-late N        frames presented after the first vblank after\n"
"                          their commit (a compositor's repaint delay counts)\n"
"      --max-discarded N   frames the compositor discarded\n"
"      --require-flags LIST  every presented frame has these feedback flags:\n"
"                          vsync,hw-clock,hw-completion,zero-copy\n"
"      --max-p99-us METRIC=US  the p99 of present-commit, present-interval or\n"
"                          refresh, in us (repeatable)\n"
"\n"
"  -q, --quiet             no summary table on stdout\n"
"  -h, --help              this text\n"
"  -V, --version           presentlat's version (git describe of the build)\n"
"\n"
"The compositor is the one WAYLAND_DISPLAY names; it must offer\n"
"wp_presentation.\n"
"\n"
"Frame i's pixel (x, y) is XRGB red (x + i) & 0xff, green y & 0xff, blue\n"
"(x ^ y) & 0xff: every frame differs, and a screenshot tells which it is.\n"
"\n"
"SIGINT or SIGTERM ends the run as its last frame would: no new commit,\n"
"the feedback of the frames committed awaited (3 s at most), the reports\n"
"written, exit 0. A second signal, or one while the last feedback is\n"
"awaited, stops that wait (exit 1 if a frame got none); a third kills.\n"
"\n"
"Exit status: 0 ok, 1 the run failed (a frame without feedback, the\n"
"compositor stalled or closed the window), 2 usage, 3 no usable compositor,\n"
"7 a threshold broken.\n";

enum {
	OPT_PATTERN = 256, OPT_RENDER, OPT_CSV, OPT_JSON, OPT_PLOT, OPT_MAX_LATE,
	OPT_MAX_DISCARDED, OPT_REQUIRE_FLAGS, OPT_MAX_P99,
};

static const struct option longopts[] = {
	{ "frames", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 't' },
	{ "warmup", required_argument, NULL, 'w' },
	{ "pattern", required_argument, NULL, OPT_PATTERN },
	{ "render-us", required_argument, NULL, OPT_RENDER },
	{ "size", required_argument, NULL, 's' },
	{ "fullscreen", no_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "quiet", no_argument, NULL, 'q' },
	{ "max-late", required_argument, NULL, OPT_MAX_LATE },
	{ "max-discarded", required_argument, NULL, OPT_MAX_DISCARDED },
	{ "require-flags", required_argument, NULL, OPT_REQUIRE_FLAGS },
	{ "max-p99-us", required_argument, NULL, OPT_MAX_P99 },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int number(const char *opt, const char *arg, unsigned long min, unsigned long max,
		  unsigned int *out)
{
	return rp_parse_uint("presentlat", opt, arg, min, max, out);
}

/* BUSY:IDLE_MS, or WxH: two numbers around @sep. */
static int pair(const char *opt, const char *arg, char sep, unsigned long max1,
		unsigned long max2, unsigned int *a, unsigned int *b)
{
	const char *rest;

	if (!rp_parse_uint_until(arg, sep, 1, max1, a, &rest) &&
	    !rp_parse_uint_until(rest, '\0', 1, max2, b, NULL))
		return 0;
	fprintf(stderr, "presentlat: %s wants N%cM (N from 1 to %lu, M from 1 to %lu), not '%s'\n",
		opt, sep, max1, max2, arg);
	return -1;
}

int pl_parse_options(int argc, char **argv, struct pl_options *o)
{
	bool frames_given = false;
	unsigned int v;
	int opt;

	*o = (struct pl_options){ .frames = 300, .warmup = 10, .width = 256, .height = 256,
				  .limits = PL_NO_LIMITS };
	while ((opt = getopt_long(argc, argv, "n:t:w:s:fo:qhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			frames_given = true;
			if (number("--frames", optarg, 1, 10000000, &o->frames))
				return -1;
			break;
		case 't':
			if (rp_parse_seconds("presentlat", "--duration", optarg, &o->duration_s))
				return -1;
			break;
		case 'w':
			if (number("--warmup", optarg, 0, 100000, &o->warmup))
				return -1;
			break;
		case OPT_PATTERN:
			if (pair("--pattern", optarg, ':', 100000, 60000, &o->busy, &o->idle_ms))
				return -1;
			break;
		case OPT_RENDER:
			if (number("--render-us", optarg, 0, 1000000, &o->render_us))
				return -1;
			break;
		case 's':
			if (pair("--size", optarg, 'x', 8192, 8192, &o->width, &o->height))
				return -1;
			break;
		case 'f':
			o->fullscreen = true;
			break;
		case 'o':
			o->output = optarg;
			o->fullscreen = true;
			break;
		case OPT_CSV:
			o->csv = optarg;
			break;
		case OPT_JSON:
			o->json = optarg;
			break;
		case OPT_PLOT:
			o->plot = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_MAX_LATE:
			if (number("--max-late", optarg, 0, 100000000, &v))
				return -1;
			o->limits.max_late = v;
			break;
		case OPT_MAX_DISCARDED:
			if (number("--max-discarded", optarg, 0, 100000000, &v))
				return -1;
			o->limits.max_discarded = v;
			break;
		case OPT_REQUIRE_FLAGS:
			if (pl_parse_flags(optarg, &o->limits.require_flags)) {
				fprintf(stderr, "presentlat: --require-flags wants a comma-separated "
					"list of vsync, hw-clock, hw-completion, zero-copy, not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case OPT_MAX_P99:
			if (rp_parse_p99_limit("presentlat", optarg, pl_metrics, PL_NMETRICS,
					       &o->limits.p99))
				return -1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		case 'V':
			printf("presentlat %s\n", rp_tool_version);
			return 1;
		default:
			fputs("presentlat: see presentlat --help\n", stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "presentlat: unexpected argument '%s' (see presentlat --help)\n",
			argv[optind]);
		return -1;
	}
	if (frames_given && o->duration_s > 0) {
		fputs("presentlat: --frames and --duration both say when to stop: give one\n",
		      stderr);
		return -1;
	}
	if (o->duration_s > 0)
		o->frames = 0;
	return 0;
}
