// SPDX-License-Identifier: MIT
/*
 * vrr: fliplat's --async/--vrr options and the VRR refresh model's verdict
 * on hand-made flips of a 120 Hz mode in a 48-144 Hz range: a refresh at
 * the flush, one a period after the last, one after repeated frames pass;
 * one too soon, one too late (a repeated frame was due), one on a fixed
 * grid, one at a refresh that did not count and one held past its flush
 * break the model.
 */
#include <stdio.h>
#include <string.h>

#include "fliplat.h"
#include "options.h"
#include "../lib/result.h"

#define MS		1000000LL
#define PERIOD		8333333LL		/* 120 Hz */
#define LONGEST		20833333LL		/* 1/48 s */
#define LAST		(1000 * MS)		/* the last refresh that showed a flip */

static int parse(const char *a, const char *b, const char *c, struct fl_options *o)
{
	char *argv[] = { "fliplat", (char *)a, (char *)b, (char *)c, NULL };
	int argc = 1 + !!a + !!b + !!c;

	optind = 0;
	return fl_parse_options(argc, argv, o);
}

static void options(void)
{
	struct fl_options o;

	result_equal("async-parses", 0, parse("--async", NULL, NULL, &o));
	result_equal("async-is-its-mode", FL_MODE_ASYNC, o.mode);
	result_equal("async-has-no-fence", 0, fl_mode_has_fence(o.mode));
	result_equal("async-not-blocking", -1, parse("--async", "--blocking", NULL, &o));
	result_equal("vrr-parses", 0, parse("--vrr", "--max-vrr-breaks", "0", &o));
	result_equal("vrr-set", 1, o.vrr);
	result_equal("vrr-range-from-edid", 0, o.vrr_min_hz);
	result_equal("vrr-max-breaks", 0, o.limits.max_vrr_breaks);
	result_equal("vrr-range-parses", 0, parse("--vrr", "--vrr-range", "40-120", &o));
	result_equal("vrr-range-min", 40, o.vrr_min_hz);
	result_equal("vrr-range-max", 120, o.vrr_max_hz);
	result_equal("vrr-range-reversed", -1, parse("--vrr", "--vrr-range", "120-40", &o));
	result_equal("vrr-range-junk", -1, parse("--vrr", "--vrr-range", "40-120x", &o));
	result_equal("vrr-range-needs-vrr", -1, parse("--vrr-range", "40-120", NULL, &o));
	result_equal("vrr-not-legacy", -1, parse("--vrr", "--legacy", NULL, &o));
	result_equal("vrr-not-async", -1, parse("--vrr", "--async", NULL, &o));
	result_equal("vrr-not-all-crtcs", -1, parse("--vrr", "--crtcs", "all", &o));
	result_equal("max-vrr-breaks-needs-vrr", -1, parse("--max-vrr-breaks", "0", NULL, &o));
	result_equal("no-vrr-no-limit", -1, parse(NULL, NULL, NULL, &o) ? 0 : o.limits.max_vrr_breaks);
}

/* The verdict on a flip submitted @submit after LAST, shown @event after it, @steps counts on. */
static struct fl_flip judged(int64_t submit, int64_t event, uint32_t steps)
{
	struct fl_flip f = {
		.submit_ns = LAST + submit, .event_ns = LAST + event, .event_seq = 500 + steps,
	};

	fl_vrr_judge(&f, LAST, 500, PERIOD, LONGEST);
	return f;
}

static void verdict(const char *name, struct fl_flip f, enum fl_vrr_kind kind, bool broken)
{
	char n[64];

	snprintf(n, sizeof(n), "%s-kind", name);
	result_equal(n, kind, f.vrr_kind);
	snprintf(n, sizeof(n), "%s-broken", name);
	result_equal(n, broken, f.vrr_broken);
}

static void model(void)
{
	struct fl_flip f;

	/* Inside the range: at the flush, 0.3 ms after submit. */
	verdict("at-flush", judged(12 * MS, 12 * MS + 300000, 1), FL_VRR_FLUSH, false);
	/* Above it: submitted 4 ms after, shown one period after the last. */
	verdict("waited", judged(4 * MS, PERIOD, 1), FL_VRR_WAIT, false);
	/* Event times are whole µs: the period truncated still counts. */
	verdict("waited-us", judged(4 * MS, PERIOD - 333, 1), FL_VRR_WAIT, false);
	/* Below it: a repeated frame at 1/48 s, then the flip at its flush. */
	f = judged(30 * MS, 30 * MS + 200000, 2);
	verdict("repeated", f, FL_VRR_REPEAT, false);
	result_equal("repeated-count", 1, f.vrr_repeats);
	result_equal("repeated-gap", 30 * MS, f.vrr_gap_ns);
	/* ... and one submitted just after the repeat waits a period from it. */
	verdict("repeat-then-wait", judged(LONGEST + MS, LONGEST + PERIOD, 2), FL_VRR_REPEAT,
		false);
	/* Breaks: sooner than a period after the last refresh ... */
	verdict("too-soon", judged(2 * MS, 5 * MS, 1), FL_VRR_WAIT, true);
	/* ... later than 1/MIN with no repeated frame counted ... */
	verdict("no-repeat", judged(25 * MS, 25 * MS + 100000, 1), FL_VRR_FLUSH, true);
	/* ... on a fixed 120 Hz grid: two vblanks counted for a flip 1.1 periods after ... */
	verdict("grid", judged(PERIOD * 11 / 10, 2 * PERIOD, 2), FL_VRR_REPEAT, true);
	/* ... held to the longest frame instead of its flush (vrr_hold) ... */
	verdict("held", judged(9 * MS, LONGEST, 1), FL_VRR_FLUSH, true);
	/* ... at a refresh the count did not move for. */
	verdict("no-count", judged(12 * MS, 12 * MS + 300000, 0), FL_VRR_FLUSH, true);
	/* Before its submit. */
	verdict("before-submit", judged(12 * MS, 11 * MS, 1), FL_VRR_FLUSH, true);
}

static void pace(void)
{
	int64_t min = INT64_MAX, max = 0, g;
	unsigned int k, below = 0, inside = 0, above = 0;

	for (k = 0; k < 10; k++) {
		g = fl_vrr_gap_ns(k, PERIOD, LONGEST);
		min = g < min ? g : min;
		max = g > max ? g : max;
		below += g < PERIOD;
		inside += g >= PERIOD && g < LONGEST;
		above += g >= LONGEST;
	}
	result_equal("pace-repeats", fl_vrr_gap_ns(3, PERIOD, LONGEST),
		     fl_vrr_gap_ns(13, PERIOD, LONGEST));
	result_equal("pace-sooner-than-a-period", 3, below);
	result_equal("pace-inside", 4, inside);
	result_equal("pace-beyond-longest", 3, above);
	result_equal("pace-shortest", PERIOD / 4, min);
	result_equal("pace-longest", LONGEST * 5 / 2, max);
	result_equal("longest-frame-48hz", LONGEST, fl_vrr_max_frame_ns(48));
}

int main(void)
{
	options();
	model();
	pace();
	return result_failures ? 1 : 0;
}
