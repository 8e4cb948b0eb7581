// SPDX-License-Identifier: MIT
/*
 * --plot: the shared SVG report of a run: the frame timeline of the first
 * CRTC (submit, in-fence ready, latch, out-fence signal, fence wake per
 * flip over the vblank grid), a histogram per time metric it observed that
 * varied (signal - submit, event - submit, wake - signal, event - signal,
 * read - event, vblank interval, fence - event, wake - read), then signal -
 * submit per flip (event - submit in legacy mode, which has no fence), one
 * colour per CRTC, flips that missed a vblank ringed in red. Titles name
 * the mode used (VRR and its range, async); under --vrr the timeline draws
 * each refresh as it began, under --async each flip's tear (frames.c).
 */
#include <stdlib.h>
#include <time.h>

#include "fliplat.h"

int fl_report_svg(FILE *f, const struct fl_run *run)
{
	bool legacy = !fl_mode_has_fence(run->mode);
	const char **names = calloc(run->ncrtcs ? run->ncrtcs : 1, sizeof(*names));
	char subject[200], header[512], started[32], mode[64], (*labels)[24] = calloc(run->ncrtcs ? run->ncrtcs : 1, sizeof(*labels));
	struct rp_samples s;
	struct tm tm;
	size_t i;
	int ret = -1;

	if (!names || !labels || fl_run_samples(run, &s))
		goto out;
	for (i = 0; i < run->ncrtcs; i++) {
		snprintf(labels[i], sizeof(labels[i]), "CRTC %u", run->crtcs[i].crtc_id);
		names[i] = labels[i];
	}
	strftime(started, sizeof(started), "%Y-%m-%d %H:%M:%SZ", gmtime_r(&run->prov.started, &tm));
	fl_run_mode_desc(run, mode, sizeof(mode));
	snprintf(header, sizeof(header), "fliplat %s, %s on %s (%s), %s, %s",
		 rp_tool_version, run->device, run->driver, run->kernel, mode, started);
	snprintf(subject, sizeof(subject), "on %s: %s (%s)", run->driver,
		 run->ncrtcs ? run->crtcs[0].mode_name : "?", mode);
	ret = rp_svg_write(f, &s, &(struct rp_svg){
		.header = header,
		.subject = subject,
		.noun = "flips",
		.timeline_metric = legacy ? FL_EVENT_MINUS_SUBMIT : FL_SIGNAL_MINUS_SUBMIT,
		.timeline_label = legacy ? "event - submit" : "signal - submit",
		.flag_label = "missed a vblank",
		.group_names = names,
		.ngroups = run->ncrtcs,
	});
	rp_samples_free(&s);
out:
	free(names);
	free(labels);
	return ret;
}
