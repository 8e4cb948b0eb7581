/* SPDX-License-Identifier: MIT */
/*
 * fliplat's measuring loop.
 */
#ifndef FLIPLAT_FLIP_H
#define FLIPLAT_FLIP_H

#include <signal.h>

#include "device.h"
#include "fliplat.h"
#include "options.h"

/*
 * Flips on every output of @dev as @o says, recording each flip in @run
 * (whose flips array it allocates). Returns FL_EXIT_OK, or FL_EXIT_FAILED
 * (said on stderr) with the flips made so far still in @run.
 */
int fl_measure(struct fl_device *dev, const struct fl_options *o, struct fl_run *run);

/*
 * Set (to the signal's number) by main's SIGINT/SIGTERM handler: fl_measure()
 * submits no more flips, waits for those in flight and returns the run as
 * failed, "stopped by SIGINT", with everything measured so far.
 */
extern volatile sig_atomic_t fl_stop_signal;

#endif /* FLIPLAT_FLIP_H */
