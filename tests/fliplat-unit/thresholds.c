// SPDX-License-Identifier: MIT
/*
 * thresholds: fliplat's verdict for a CI. A run of 40 counted flips, 4 of
 * which missed a vblank and 1 shown early, signal - submit 1010..1049 us:
 * each --max-* threshold fails it when set below what it measured and
 * passes it at exactly that; a metric nothing observed (late frames outside
 * in-fence mode) breaks its threshold; --max-p99-us parses METRIC=US and
 * refuses a metric that is no time or does not exist.
 */
#include <stdio.h>
#include <string.h>

#include "fliplat.h"
#include "../lib/result.h"

#define NFLIPS	50

static struct fl_crtc crtc = { .crtc_id = 40, .period_ns = 16666667 };
static struct fl_flip flips[NFLIPS];
static struct fl_run run = {
	.mode = FL_MODE_ATOMIC, .nonblock = true, .ncrtcs = 1, .crtcs = &crtc,
	.nflips = NFLIPS, .flips = flips,
};

static void make_run(void)
{
	int i;

	for (i = 0; i < NFLIPS; i++) {
		int64_t submit = 1000000000LL + 20000000LL * i;
		int64_t signal = submit + 1000000 + 1000LL * i;

		flips[i] = (struct fl_flip){
			.index = i, .warmup = i < 10, .submit_ns = submit, .signal_ns = signal,
			.event_ns = signal, .wake_ns = signal + 50000, .event_seq = 100 + i,
			.missed = i % 10 == 9, .seq_known = true, .early = i == 33,
		};
	}
}

/* How many of @limits' thresholds the run breaks. */
static long broken(struct fl_limits limits)
{
	struct rp_checks c;

	run.limits = limits;
	fl_run_checks(&run, &c);
	return (long)rp_checks_broken(&c);
}

int main(void)
{
	struct fl_limits l = FL_NO_LIMITS;
	struct rp_checks c;

	make_run();
	result_equal("no-thresholds-none-broken", 0, broken(FL_NO_LIMITS));

	l = FL_NO_LIMITS;
	l.max_missed = 3;
	result_equal("max-missed-3-fails-4-missed", 1, broken(l));
	l.max_missed = 4;
	result_equal("max-missed-4-passes-4-missed", 0, broken(l));

	l = FL_NO_LIMITS;
	l.max_early = 0;
	result_equal("max-early-0-fails-1-early", 1, broken(l));
	l.max_early = 1;
	result_equal("max-early-1-passes-1-early", 0, broken(l));

	/* Late frames are judged only in in-fence mode: unobserved breaks. */
	l = FL_NO_LIMITS;
	l.max_late = 100;
	result_equal("max-late-unobserved-fails", 1, broken(l));
	run.mode = FL_MODE_INFENCE;
	result_equal("max-late-infence-passes", 0, broken(l));
	run.mode = FL_MODE_ATOMIC;

	/* p99 of 1010..1049 (40 samples, nearest rank): the 40th, 1049. */
	l = FL_NO_LIMITS;
	result_equal("p99-parses", 0, rp_parse_p99_limit("fliplat", "signal-submit=1048.5", fl_metrics,
						   FL_NMETRICS, &l.p99));
	result_equal("p99-1048.5-fails-1049", 1, broken(l));
	l.p99.l[0].us = 1049;
	result_equal("p99-1049-passes-1049", 0, broken(l));
	/* wake-signal is 50 us everywhere: a second limit, kept. */
	rp_parse_p99_limit("fliplat", "wake-signal=50", fl_metrics, FL_NMETRICS, &l.p99);
	l.max_missed = 0;
	result_equal("missed-broken-p99s-kept", 1, broken(l));

	/* What the checks say: which option, the value and the limit. */
	run.limits = l;
	fl_run_checks(&run, &c);
	result_equal("check-count", 3, (long)c.n);
	result_equal("first-is-max-missed", 0, strcmp(c.c[0].option, "--max-missed") != 0);
	result_equal("max-missed-value-4", 4, (long)c.c[0].value);

	l = FL_NO_LIMITS;
	result_equal("p99-refuses-vblank-metric", -1,
	      rp_parse_p99_limit("fliplat", "missed-vblanks=1", fl_metrics, FL_NMETRICS, &l.p99));
	result_equal("p99-refuses-unknown-metric", -1,
	      rp_parse_p99_limit("fliplat", "nonsense=1", fl_metrics, FL_NMETRICS, &l.p99));
	result_equal("p99-refuses-no-number", -1,
	      rp_parse_p99_limit("fliplat", "signal-submit=", fl_metrics, FL_NMETRICS, &l.p99));
	result_equal("p99-refused-adds-nothing", 0, (long)l.p99.n);
	return result_failures ? 1 : 0;
}
