// SPDX-License-Identifier: MIT
/*
 * fliplat's options and --help, whose definitions of the measured times are
 * the same words as Documentation/fliplat.rst.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

static const char usage[] =
"usage: fliplat [OPTIONS]\n"
"\n"
"Drives page flips on a KMS device and measures, for every flip, when it was\n"
"submitted, shown and signalled, all on CLOCK_MONOTONIC:\n"
"\n"
"  submit  just before the commit (or page-flip) ioctl\n"
"  event   the timestamp of the flip's DRM event: the vblank that showed it\n"
"  signal  the out-fence's signal time (SYNC_IOC_FILE_INFO timestamp_ns)\n"
"  wake    when poll() on the out-fence returned in fliplat\n"
"\n"
"and reports min/p50/p90/p99/max and mean/stddev of\n"
"\n"
"  signal-submit    from submit to the out-fence signalling (us)\n"
"  wake-signal      from the signal to a waiting process waking (us)\n"
"  event-signal     from the signal to the event's time; 0 when a driver\n"
"                   signals at the vblank it reports (us)\n"
"  vblank-interval  between consecutive flip events on a CRTC (us)\n"
"  missed-vblanks   vblanks between the first one that could have shown the\n"
"                   flip (the first after submit; in-fence mode: after the\n"
"                   renderer signalled) and the one that did\n"
"  fence-event      the out-fence's signal time minus the event's (us)\n"
"  wake-read        the fence waiter's wake minus the event reader's (us)\n"
"\n"
"Modes:\n"
"  (default)        atomic nonblocking commits with OUT_FENCE_PTR\n"
"  --legacy         drmModePageFlip with an event (no fence: no signal, wake)\n"
"  --infence        atomic + IN_FENCE_FD: a sw_sync \"renderer\" signals each\n"
"                   frame's in-fence --render-us after submit (plus a random\n"
"                   0..--render-jitter-us), as a compositor's GPU would;\n"
"                   just before it signals, it reads the deadline the commit\n"
"                   set on the fence (the vblank it must make; kernels with\n"
"                   fence deadlines, 6.12 here): CSV deadline_ns and\n"
"                   deadline_slack_ns (deadline - ready), JSON \"deadlines\"\n"
"  --blocking       atomic commits without DRM_MODE_ATOMIC_NONBLOCK\n"
"  --async          tearing flips: drmModePageFlip with DRM_MODE_PAGE_FLIP_ASYNC\n"
"                   (legacy on every kernel: 6.12's atomic async flip refuses\n"
"                   OUT_FENCE_PTR, so it has no fence either); event-submit is\n"
"                   the flip-to-scanout latency. Needs DRM_CAP_ASYNC_PAGE_FLIP\n"
"  --vrr            variable refresh, atomic modes: sets the CRTC's VRR_ENABLED\n"
"                   (the connector must be vrr_capable and the mode's rate in\n"
"                   the range, the EDID's or --vrr-range) and paces flips in a\n"
"                   sweep from a quarter of the mode period to 2.5/MIN s after\n"
"                   the last refresh; judges each refresh by the model (at the\n"
"                   flush; one period after the last if sooner; repeated frames\n"
"                   every 1/MIN s if later): CSV vrr_*, JSON counts vrr_breaks\n"
"\n"
"Options:\n"
"  -d, --device PATH       KMS device (default: the first /dev/dri/card* with\n"
"                          a connected connector)\n"
"  -c, --connector NAME|ID connector (default: the first connected one)\n"
"      --crtc ID           CRTC (default: the first free one it can use)\n"
"      --crtcs all         flip on every connected output at once\n"
"  -m, --mode WxH[@HZ]     mode (default: the connector's preferred one)\n"
"  -r, --refresh HZ        refresh rate; a user mode is made from the chosen\n"
"                          mode's timings if the connector lists none\n"
"  -n, --flips N           flips per CRTC after warm-up (default 300)\n"
"  -t, --duration SECONDS  flip for this long instead of a count (not with -n)\n"
"  -w, --warmup N          flips per CRTC not counted (default 10)\n"
"      --vrr-range MIN-MAX  --vrr: the range in Hz the display follows, when\n"
"                          the EDID has none or says otherwise\n"
"      --render-us US      in-fence mode: render time (default 5000)\n"
"      --render-jitter-us US  in-fence mode: random extra render time (0)\n"
"      --seed N            seed of the render-time jitter (default 1)\n"
"      --csv FILE          one row per flip\n"
"      --json FILE         configuration, system and summary\n"
"      --plot FILE.svg     histogram and per-flip timeline of the latency\n"
"      --trace FILE        the kernel's trace events of the run (flipkms,\n"
"                          syncfw, drm), on CLOCK_MONOTONIC: tracefs's text\n"
"                          (root; Documentation/tracepoints.rst)\n"
"\n"
"Thresholds (a CI's verdict): a completed run that breaks one exits 7 and\n"
"says which on stderr; the JSON lists each with its value:\n"
"      --max-missed N      flips that missed at least one vblank\n"
"      --max-late N        in-fence mode: frames the renderer made late\n"
"      --max-early N       flips shown before they were possible (driver bug)\n"
"      --max-vrr-breaks N  --vrr: refreshes that broke the VRR model\n"
"      --max-p99-us METRIC=US  the p99 of a time metric above, in us, over all\n"
"                          CRTCs (repeatable; a metric not observed breaks it)\n"
"\n"
"  -q, --quiet             no summary table on stdout\n"
"      --progress / --no-progress  progress on stderr (default: if a tty)\n"
"  -h, --help              this text\n"
"  -V, --version           fliplat's version (git describe of the build)\n"
"\n"
"Exit status: 0 ok, 1 the run failed, 2 usage, 3 no KMS device/output/mode,\n"
"4 permission denied, 5 device busy (another DRM master), 6 unsupported by\n"
"the driver (no atomic, no OUT_FENCE_PTR, no sw_sync for --infence, no async\n"
"page flips for --async, no vrr_capable connector or range for --vrr),\n"
"7 a threshold broken.\n";

enum {
	OPT_CRTC = 256, OPT_CRTCS, OPT_LEGACY, OPT_INFENCE, OPT_BLOCKING, OPT_RENDER,
	OPT_JITTER, OPT_SEED, OPT_CSV, OPT_JSON, OPT_PLOT, OPT_TRACE, OPT_PROGRESS, OPT_NO_PROGRESS,
	OPT_MAX_MISSED, OPT_MAX_LATE, OPT_MAX_EARLY, OPT_MAX_P99, OPT_ASYNC, OPT_VRR,
	OPT_MAX_VRR_BREAKS, OPT_VRR_RANGE,
};

static const struct option longopts[] = {
	{ "device", required_argument, NULL, 'd' },
	{ "connector", required_argument, NULL, 'c' },
	{ "crtc", required_argument, NULL, OPT_CRTC },
	{ "crtcs", required_argument, NULL, OPT_CRTCS },
	{ "mode", required_argument, NULL, 'm' },
	{ "refresh", required_argument, NULL, 'r' },
	{ "flips", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 't' },
	{ "warmup", required_argument, NULL, 'w' },
	{ "legacy", no_argument, NULL, OPT_LEGACY },
	{ "infence", no_argument, NULL, OPT_INFENCE },
	{ "blocking", no_argument, NULL, OPT_BLOCKING },
	{ "async", no_argument, NULL, OPT_ASYNC },
	{ "vrr", no_argument, NULL, OPT_VRR },
	{ "vrr-range", required_argument, NULL, OPT_VRR_RANGE },
	{ "max-vrr-breaks", required_argument, NULL, OPT_MAX_VRR_BREAKS },
	{ "render-us", required_argument, NULL, OPT_RENDER },
	{ "render-jitter-us", required_argument, NULL, OPT_JITTER },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "max-missed", required_argument, NULL, OPT_MAX_MISSED },
	{ "max-late", required_argument, NULL, OPT_MAX_LATE },
	{ "max-early", required_argument, NULL, OPT_MAX_EARLY },
	{ "max-p99-us", required_argument, NULL, OPT_MAX_P99 },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int number(const char *opt, const char *arg, unsigned long min, unsigned long max,
		  unsigned int *out)
{
	return rp_parse_uint("fliplat", opt, arg, min, max, out);
}

static int parse_mode(const char *arg, struct fl_options *o)
{
	char at;
	int n;

	n = sscanf(arg, "%ux%u%c%u", &o->width, &o->height, &at, &o->refresh);
	if ((n == 2 && !strchr(arg, '@')) || (n == 4 && at == '@' && o->refresh))
		if (o->width && o->height && o->width <= 16384 && o->height <= 16384 &&
		    o->refresh <= 1000)
			return 0;
	fprintf(stderr, "fliplat: --mode wants WIDTHxHEIGHT or WIDTHxHEIGHT@HZ, not '%s'\n", arg);
	return -1;
}

/* --vrr's MIN-MAX in Hz. */
static int parse_vrr_range(const char *arg, struct fl_options *o)
{
	char dash, extra;

	if (sscanf(arg, "%u%c%u%c", &o->vrr_min_hz, &dash, &o->vrr_max_hz, &extra) == 3 &&
	    dash == '-' && arg[0] != '-' && o->vrr_min_hz >= 1 &&
	    o->vrr_min_hz <= o->vrr_max_hz && o->vrr_max_hz <= 1000)
		return 0;
	fprintf(stderr, "fliplat: --vrr-range wants MIN-MAX in Hz, 1 <= MIN <= MAX <= 1000, not '%s'\n",
		arg);
	return -1;
}

int fl_parse_options(int argc, char **argv, struct fl_options *o)
{
	bool flips_given = false;
	unsigned int v;
	int opt;

	*o = (struct fl_options){
		.mode = FL_MODE_ATOMIC, .flips = 300, .warmup = 10, .render_us = 5000,
		.seed = 1, .progress = -1, .limits = FL_NO_LIMITS,
	};
	while ((opt = getopt_long(argc, argv, "d:c:m:r:n:t:w:qhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			o->device = optarg;
			break;
		case 'c':
			o->connector = optarg;
			break;
		case OPT_CRTC:
			if (number("--crtc", optarg, 1, UINT32_MAX, &v))
				return -1;
			o->crtc_id = v;
			break;
		case OPT_CRTCS:
			if (strcmp(optarg, "all") != 0) {
				fprintf(stderr, "fliplat: --crtcs takes 'all' (or use --crtc ID)\n");
				return -1;
			}
			o->all_outputs = true;
			break;
		case 'm':
			if (parse_mode(optarg, o))
				return -1;
			break;
		case 'r':
			if (number("--refresh", optarg, 1, 1000, &o->refresh))
				return -1;
			break;
		case 'n':
			flips_given = true;
			if (number("--flips", optarg, 1, 10000000, &o->flips))
				return -1;
			break;
		case 't':
			if (rp_parse_seconds("fliplat", "--duration", optarg, &o->duration_s))
				return -1;
			break;
		case 'w':
			if (number("--warmup", optarg, 0, 100000, &o->warmup))
				return -1;
			break;
		case OPT_LEGACY:
			o->mode = FL_MODE_LEGACY;
			break;
		case OPT_INFENCE:
			o->mode = FL_MODE_INFENCE;
			break;
		case OPT_BLOCKING:
			o->blocking = true;
			break;
		case OPT_ASYNC:
			o->mode = FL_MODE_ASYNC;
			break;
		case OPT_VRR:
			o->vrr = true;
			break;
		case OPT_VRR_RANGE:
			if (parse_vrr_range(optarg, o))
				return -1;
			break;
		case OPT_MAX_VRR_BREAKS:
			if (number("--max-vrr-breaks", optarg, 0, 100000000, &v))
				return -1;
			o->limits.max_vrr_breaks = v;
			break;
		case OPT_RENDER:
			if (number("--render-us", optarg, 0, 10000000, &o->render_us))
				return -1;
			break;
		case OPT_JITTER:
			if (number("--render-jitter-us", optarg, 0, 10000000, &o->render_jitter_us))
				return -1;
			break;
		case OPT_SEED:
			if (number("--seed", optarg, 0, UINT32_MAX, &o->seed))
				return -1;
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
		case OPT_TRACE:
			o->trace = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_PROGRESS:
			o->progress = 1;
			break;
		case OPT_NO_PROGRESS:
			o->progress = 0;
			break;
		case OPT_MAX_MISSED:
			if (number("--max-missed", optarg, 0, 100000000, &v))
				return -1;
			o->limits.max_missed = v;
			break;
		case OPT_MAX_LATE:
			if (number("--max-late", optarg, 0, 100000000, &v))
				return -1;
			o->limits.max_late = v;
			break;
		case OPT_MAX_EARLY:
			if (number("--max-early", optarg, 0, 100000000, &v))
				return -1;
			o->limits.max_early = v;
			break;
		case OPT_MAX_P99:
			if (rp_parse_p99_limit("fliplat", optarg, fl_metrics, FL_NMETRICS,
					       &o->limits.p99))
				return -1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		case 'V':
			printf("fliplat %s\n", rp_tool_version);
			return 1;
		default:
			fputs("fliplat: see fliplat --help\n", stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fliplat: unexpected argument '%s' (see fliplat --help)\n",
			argv[optind]);
		return -1;
	}
	if (flips_given && o->duration_s > 0) {
		fputs("fliplat: --flips and --duration both say when to stop: give one\n", stderr);
		return -1;
	}
	if (o->duration_s > 0)
		o->flips = 0;
	if (o->blocking && !fl_mode_has_fence(o->mode)) {
		fputs("fliplat: --blocking is for atomic commits; legacy page flips are always "
		      "asynchronous\n", stderr);
		return -1;
	}
	if (o->blocking && o->mode == FL_MODE_INFENCE) {
		/* The renderer runs in fliplat's own loop, which the commit would block. */
		fputs("fliplat: --blocking cannot be combined with --infence: the commit would wait "
		      "for a frame the renderer cannot finish meanwhile\n", stderr);
		return -1;
	}
	if (o->limits.max_late >= 0 && o->mode != FL_MODE_INFENCE) {
		fputs("fliplat: --max-late counts the renderer's late frames: it needs --infence\n",
		      stderr);
		return -1;
	}
	if (o->vrr && !fl_mode_has_fence(o->mode)) {
		fputs("fliplat: --vrr sets VRR_ENABLED with atomic commits: drop --legacy/--async\n",
		      stderr);
		return -1;
	}
	/* The pace is kept by sleeping in the one loop: one output at a time. */
	if (o->vrr && o->all_outputs) {
		fputs("fliplat: --vrr paces one output: drop --crtcs all\n", stderr);
		return -1;
	}
	if (o->vrr_min_hz && !o->vrr) {
		fputs("fliplat: --vrr-range is the range of --vrr: add --vrr\n", stderr);
		return -1;
	}
	if (o->limits.max_vrr_breaks >= 0 && !o->vrr) {
		fputs("fliplat: --max-vrr-breaks counts breaks of the VRR model: it needs --vrr\n",
		      stderr);
		return -1;
	}
	if (o->all_outputs && (o->connector || o->crtc_id)) {
		fputs("fliplat: --crtcs all picks every output; drop --connector/--crtc\n", stderr);
		return -1;
	}
	return 0;
}
