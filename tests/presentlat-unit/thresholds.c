// SPDX-License-Identifier: MIT
/*
 * thresholds: presentlat's verdict for a CI. A run of 36 counted frames
 * (as report-fixture.c's): 9 presented a vblank after the first one after
 * their commit, 1 discarded, 1 (frame 10) with VSYNC but neither HW_CLOCK
 * nor HW_COMPLETION, present - commit 15666.667 us or, for the late ones,
 * 32333.334 us. Each threshold fails it when set below what it measured
 * and passes it at exactly that; --require-flags parses its names.
 */
#include <stdio.h>
#include <string.h>

#include "presentlat.h"
#include "../lib/result.h"

#define NFRAMES	40
#define PERIOD	16666667LL

static struct pl_frame frames[NFRAMES];
static struct pl_run run = { .nframes = NFRAMES, .cap = NFRAMES, .frames = frames };

static void make_run(void)
{
	int i;

	for (i = 0; i < NFRAMES; i++) {
		long long msc = 100 + i + (i >= 30);

		frames[i] = (struct pl_frame){
			.index = i, .warmup = i < 4,
			.commit_ns = 1000000000LL + i * PERIOD + 1000000,
			.fate = i == 20 ? PL_DISCARDED : i == 39 ? PL_PENDING : PL_PRESENTED,
		};
		if (frames[i].fate != PL_PRESENTED)
			continue;
		frames[i].presented_ns = 1000000000LL + (msc - 99) * PERIOD;
		frames[i].refresh_ns = PERIOD;
		frames[i].msc = msc;
		frames[i].flags = i == 10 ? PL_VSYNC : PL_VSYNC | PL_HW_CLOCK | PL_HW_COMPLETION;
	}
}

static long broken(struct pl_limits limits)
{
	struct rp_checks c;

	run.opt.limits = limits;
	pl_run_checks(&run, &c);
	return (long)rp_checks_broken(&c);
}

int main(void)
{
	struct pl_limits l;
	uint32_t flags;

	make_run();
	result_equal("no-thresholds-none-broken", 0, broken(PL_NO_LIMITS));

	l = PL_NO_LIMITS;
	l.max_late = 8;
	result_equal("max-late-8-fails-9-late", 1, broken(l));
	l.max_late = 9;
	result_equal("max-late-9-passes-9-late", 0, broken(l));

	l = PL_NO_LIMITS;
	l.max_discarded = 0;
	result_equal("max-discarded-0-fails-1-discarded", 1, broken(l));
	l.max_discarded = 1;
	result_equal("max-discarded-1-passes-1-discarded", 0, broken(l));

	l = PL_NO_LIMITS;
	result_equal("flags-parse", 0, pl_parse_flags("vsync,hw-clock,hw-completion", &flags));
	result_equal("flags-parsed", PL_VSYNC | PL_HW_CLOCK | PL_HW_COMPLETION, flags);
	l.require_flags = flags;
	result_equal("require-hw-flags-fails-frame-10", 1, broken(l));
	result_equal("frames-without-hw-flags", 1, (long)pl_frames_without(&run, flags));
	result_equal("flags-parse-vsync", 0, pl_parse_flags("vsync", &l.require_flags));
	result_equal("require-vsync-passes", 0, broken(l));
	result_equal("flags-refuse-unknown", -1, pl_parse_flags("vsync,hw_clock", &flags));
	result_equal("flags-refuse-empty", -1, pl_parse_flags("vsync,", &flags));

	/* p99 of present-commit: 25 on time then the 9 late, the 34th of 34. */
	l = PL_NO_LIMITS;
	result_equal("p99-parses", 0, rp_parse_p99_limit("presentlat", "present-commit=32000",
						   pl_metrics, PL_NMETRICS, &l.p99));
	result_equal("p99-32000-fails-32333", 1, broken(l));
	l.p99.l[0].us = 32334;
	result_equal("p99-32334-passes-32333", 0, broken(l));
	result_equal("p99-refuses-msc-step", -1, rp_parse_p99_limit("presentlat", "msc-step=1",
							     pl_metrics, PL_NMETRICS, &l.p99));

	/* All four at once: late and discarded broken, vsync and p99 kept. */
	l.max_late = 0;
	l.max_discarded = 0;
	l.require_flags = PL_VSYNC;
	result_equal("two-of-four-broken", 2, broken(l));
	return result_failures ? 1 : 0;
}
