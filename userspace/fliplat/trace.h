/* SPDX-License-Identifier: MIT */
/*
 * fliplat --trace: the kernel's trace events of a run (flipkms's, syncfw's
 * and the DRM core's), recorded through tracefs on CLOCK_MONOTONIC, the
 * clock of fliplat's own times, so that its CSV and the trace line up.
 */
#ifndef FLIPLAT_TRACE_H
#define FLIPLAT_TRACE_H

#include <stdbool.h>

struct fl_trace {
	char dir[64];		/* tracefs */
	char clock[32];		/* trace_clock before the run, to restore */
	bool on;
};

/*
 * Clears the trace buffer, selects the mono clock, enables the event
 * groups that exist and starts tracing. 0, or an FL_EXIT_* status after
 * saying why (no tracefs: unsupported; not root: permission).
 */
int fl_trace_start(struct fl_trace *t);
/* Stops tracing, writes the buffer's text to @path, puts tracefs back; 0 or -1. */
int fl_trace_stop(struct fl_trace *t, const char *path);

#endif /* FLIPLAT_TRACE_H */
