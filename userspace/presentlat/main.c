// SPDX-License-Identifier: MIT
/*
 * presentlat: what a Wayland compositor presented, frame by frame. See
 * presentlat --help and Documentation/compositors.rst.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "presentlat.h"

static int write_file(const char *path, int (*report)(FILE *, const struct pl_run *),
		      const struct pl_run *run)
{
	FILE *f;
	int ret;

	if (!path)
		return 0;
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "presentlat: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ret = report(f, run);
	if (fclose(f) || ret) {
		fprintf(stderr, "presentlat: writing %s failed: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct pl_run run = { 0 };
	struct rp_checks checks;
	const char *display;
	struct utsname u;
	int ret, status;

	ret = pl_parse_options(argc, argv, &run.opt);
	if (ret)
		return ret > 0 ? PL_EXIT_OK : PL_EXIT_USAGE;
	rp_provenance_init(&run.prov, argc, argv);
	display = getenv("WAYLAND_DISPLAY");
	snprintf(run.compositor, sizeof(run.compositor), "%s", display ? display : "wayland-0");
	if (!uname(&u))
		snprintf(run.kernel, sizeof(run.kernel), "%s %s", u.sysname, u.release);

	status = pl_client_run(&run);
	if (run.failure)
		fprintf(stderr, "presentlat: %s\n", run.failure);
	else if (pl_stop_signals)
		fprintf(stderr, "presentlat: stopped by %s after %zu frames\n",
			pl_stop_signal_name(), run.nframes);
	/* A failed run still reports what it measured: that is often the point. */
	if (run.nframes) {
		if (!run.opt.quiet)
			pl_report_table(stdout, &run);
		if (write_file(run.opt.csv, pl_report_csv, &run) |
		    write_file(run.opt.json, pl_report_json, &run) |
		    write_file(run.opt.plot, pl_report_svg, &run))
			status = status ? status : PL_EXIT_FAILED;
		/* A CI's verdict: only a run that otherwise passed can break one. */
		pl_run_checks(&run, &checks);
		rp_checks_print(stderr, "presentlat", &checks);
		if (!status && rp_checks_broken(&checks))
			status = PL_EXIT_THRESHOLD;
	}
	free(run.frames);
	return status;
}
