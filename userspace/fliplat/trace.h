/* SPDX-License-Identifier: MIT */
/*
 * fliplat --trace: the kernel's trace events of a run (flipkms's, syncfw's
 * and the DRM core's), recorded through tracefs on CLOCK_MONOTONIC, the
 * clock of fliplat's own times, so that its CSV and the trace line up.
 * They go to a tracefs instance of fliplat's own, instances/fliplat-PID,
 * removed afterwards: the global buffer, clock and events (and any other
 * tracer's) are left as they were.
 */
#ifndef FLIPLAT_TRACE_H
#define FLIPLAT_TRACE_H

#include <stdbool.h>

struct fl_trace {
	char dir[96];		/* <tracefs>/instances/fliplat-PID */
	bool created;		/* @dir is ours, to remove */
	bool on;
};

/*
 * Creates the instance, selects the mono clock, enables the event groups
 * that exist and starts tracing. 0, or an FL_EXIT_* status after saying
 * why (no tracefs: unsupported; not root: permission).
 */
int fl_trace_start(struct fl_trace *t);
/*
 * Stops tracing, writes the buffer's text to @path (none if NULL) and
 * removes the instance; 0 or -1.
 */
int fl_trace_stop(struct fl_trace *t, const char *path);

#endif /* FLIPLAT_TRACE_H */
