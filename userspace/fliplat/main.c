// SPDX-License-Identifier: MIT
/*
 * fliplat: measures flip-to-signal latency on a KMS device. See fliplat
 * --help and Documentation/fliplat.rst.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "device.h"
#include "flip.h"
#include "fliplat.h"
#include "options.h"
#include "trace.h"

static void describe(struct fl_run *run, const struct fl_device *dev, const struct fl_options *o,
		     struct fl_crtc *crtcs)
{
	struct utsname u;
	unsigned int i;

	snprintf(run->device, sizeof(run->device), "%s", dev->path);
	snprintf(run->driver, sizeof(run->driver), "%s", dev->driver);
	snprintf(run->driver_desc, sizeof(run->driver_desc), "%s", dev->desc);
	run->limits = o->limits;
	if (!uname(&u))
		snprintf(run->kernel, sizeof(run->kernel), "%s %s", u.sysname, u.release);
	run->mode = o->mode;
	run->nonblock = !o->blocking;
	run->vrr = o->vrr;
	run->render_ns = o->mode == FL_MODE_INFENCE ? (int64_t)o->render_us * 1000 : 0;
	run->render_jitter_ns = o->mode == FL_MODE_INFENCE ?
				(int64_t)o->render_jitter_us * 1000 : 0;
	run->warmup = o->warmup;
	run->flips_per_crtc = o->flips;
	run->duration_s = o->duration_s;
	run->ncrtcs = dev->noutputs;
	run->crtcs = crtcs;
	for (i = 0; i < dev->noutputs; i++) {
		const struct fl_output *out = &dev->outputs[i];
		struct fl_crtc *c = &crtcs[i];

		c->crtc_id = out->crtc_id;
		c->connector_id = out->connector_id;
		snprintf(c->connector, sizeof(c->connector), "%s", out->connector);
		snprintf(c->mode_name, sizeof(c->mode_name), "%s", out->mode.name);
		c->hdisplay = out->mode.hdisplay;
		c->vdisplay = out->mode.vdisplay;
		c->period_ns = fl_mode_period_ns(&out->mode);
		c->vrefresh_mhz = c->period_ns ? (uint32_t)(1e12 / c->period_ns + 0.5) : 0;
		c->vrr_min_hz = out->vrr_min_hz;
		c->vrr_max_hz = out->vrr_max_hz;
	}
}

static void stop(int sig)
{
	fl_stop_signal = sig;
}

/*
 * Ctrl-C or a kill ends the run as a timeout would: the flips in flight
 * finish, the display and tracefs are put back, the reports are written.
 * No SA_RESTART, so that the measuring loop's poll() returns at once; the
 * handler is reset, so that a second signal stops fliplat the hard way.
 */
static void catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = stop, .sa_flags = SA_RESETHAND };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int write_file(const char *path, int (*report)(FILE *, const struct fl_run *),
		      const struct fl_run *run)
{
	FILE *f;
	int ret;

	if (!path)
		return 0;
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "fliplat: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ret = report(f, run);
	if (fclose(f) || ret) {
		fprintf(stderr, "fliplat: writing %s failed: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct fl_crtc crtcs[FL_MAX_CRTCS] = { 0 };
	struct fl_run run = { 0 };
	struct fl_trace trace = { 0 };
	struct rp_checks checks;
	struct fl_options o;
	struct fl_device dev;
	int ret, status;

	ret = fl_parse_options(argc, argv, &o);
	if (ret)
		return ret > 0 ? FL_EXIT_OK : FL_EXIT_USAGE;
	rp_provenance_init(&run.prov, argc, argv);
	catch_stop_signals();

	status = fl_device_open(&dev, &o);
	if (status)
		return status;
	if (o.trace)
		status = fl_trace_start(&trace);
	if (!status)
		status = fl_device_modeset(&dev, &o);
	if (!status) {
		describe(&run, &dev, &o, crtcs);
		status = fl_measure(&dev, &o, &run);
	}
	if (o.trace && fl_trace_stop(&trace, o.trace) && !status)
		status = FL_EXIT_FAILED;
	/* A failed run still reports what it measured: that is often the point. */
	if (run.nflips) {
		if (!o.quiet)
			fl_report_table(stdout, &run);
		if (write_file(o.csv, fl_report_csv, &run) |
		    write_file(o.json, fl_report_json, &run) |
		    write_file(o.plot, fl_report_svg, &run))
			status = status ? status : FL_EXIT_FAILED;
		/* A CI's verdict: only a run that otherwise passed can break one. */
		fl_run_checks(&run, &checks);
		rp_checks_print(stderr, "fliplat", &checks);
		if (!status && rp_checks_broken(&checks))
			status = FL_EXIT_THRESHOLD;
	}
	free(run.flips);
	fl_device_close(&dev);
	return status;
}
