// SPDX-License-Identifier: MIT
/*
 * In-fence mode: the deadlines the display set on the renderer's fences.
 * Since Linux 6.4 the atomic helpers tell each plane's in-fence when the
 * vblank the commit must make begins (dma_fence_set_deadline() in the
 * commit worker); fliplat reads it back from sw_sync just before its
 * renderer signals, so the slack (deadline - ready) says how close each
 * frame came to missing its vblank. Documentation/fliplat.rst, "Deadlines".
 */
#include <stdlib.h>
#include <string.h>

#include "fliplat.h"

bool fl_flip_slack(const struct fl_flip *f, int64_t *slack_ns)
{
	if (!f->deadline_ns || !f->ready_ns)
		return false;
	*slack_ns = f->deadline_ns - f->ready_ns;
	return true;
}

void fl_run_deadlines(const struct fl_run *run, struct fl_deadlines *out)
{
	double *slack = malloc((run->nflips ? run->nflips : 1) * sizeof(*slack));
	int64_t ns;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->supported = run->mode == FL_MODE_INFENCE && !run->deadlines_unsupported;
	for (i = 0; out->supported && slack && i < run->nflips; i++) {
		const struct fl_flip *f = &run->flips[i];

		/* A flip whose renderer never signalled had nothing read. */
		if (f->warmup || !f->ready_ns)
			continue;
		if (!fl_flip_slack(f, &ns)) {
			out->without++;
			continue;
		}
		out->past += ns < 0;
		slack[out->with++] = (double)ns / 1e3;
	}
	if (slack)
		rp_stats_compute(slack, out->with, &out->slack);
	free(slack);
}
